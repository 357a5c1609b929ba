//! onrecord's index files as native programs read and write them: the one place that knows a
//! file may be gzip-compressed (RFC 1952) on disk, and how a sharded index sits in a folder.
//!
//! `build-index` writes a sharded index's manifest and shards gzip-compressed, so what a
//! visitor downloads does not depend on the host compressing it; the core reads and writes the
//! uncompressed bytes and has no decompressor (the browser gunzips with `DecompressionStream`,
//! native readers here). A file is read as gzip when it starts with gzip's magic bytes
//! (`1f 8b`) and as it is otherwise, so plain files (a one-file `index.onr`, shards written
//! before compression) keep working: no onrecord file starts with those bytes (every one starts
//! with an `ONR…` magic).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use onrecord_core::{Index, MANIFEST_MAGIC, ShardedIndex};

/// The first two bytes of a gzip member.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The most bytes one decompressed file may have: far above any index (100,000 fragments with
/// vectors are about 100 MB), and a bound on what a corrupt or hostile file can make us hold.
const MAX_DECOMPRESSED: u64 = 1 << 30;

/// Name of a sharded index's manifest in its folder.
pub const MANIFEST_NAME: &str = "manifest.onr";

/// `bytes` gzip-compressed (best compression, no file name, modification time 0): the same
/// bytes always give the same file.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

/// `bytes` decompressed when they are gzip, as they are otherwise.
pub fn gunzip_if_gzipped(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    GzDecoder::new(bytes.as_slice())
        .take(MAX_DECOMPRESSED + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > MAX_DECOMPRESSED {
        return Err(std::io::Error::other(format!(
            "it decompresses to more than {MAX_DECOMPRESSED} bytes"
        )));
    }
    Ok(out)
}

/// Reads an index file, decompressing it when it is gzip. Errors name the file.
pub fn read_file(path: &Path) -> Result<Vec<u8>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    gunzip_if_gzipped(bytes)
        .with_context(|| format!("{}: not a readable gzip file", path.display()))
}

/// Where an index is: `path` itself when it is a file, else the folder's `index.onr` or, when
/// there is none, its `manifest.onr`.
pub fn index_path(path: &Path) -> PathBuf {
    if !path.is_dir() {
        return path.to_owned();
    }
    let single = path.join("index.onr");
    if single.is_file() {
        single
    } else {
        path.join(MANIFEST_NAME)
    }
}

/// Loads an index from a file or folder ([`index_path`]): one index file, or a sharded
/// index's manifest and every shard it lists, read from the manifest's folder. The sharded
/// index answers as a visitor's browser does once it has fetched everything (vector search
/// reads the lists nearest the question). Errors name the file and what is wrong with it.
pub fn load_index(path: &Path) -> Result<Index> {
    let path = index_path(path);
    let bytes = read_file(&path)?;
    if !bytes.starts_with(&MANIFEST_MAGIC) {
        return Index::from_bytes(&bytes).with_context(|| format!("{}", path.display()));
    }
    let mut sharded = ShardedIndex::from_manifest(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    // The manifest's shards, then the vector rows their text shards name.
    loop {
        let missing = sharded.missing_shards();
        if missing.is_empty() {
            break;
        }
        for name in missing {
            let shard = dir.join(&name);
            if !shard.is_file() {
                bail!(
                    "{}: the index lists the shard {name}, which is not in {}; copy the whole folder the build wrote",
                    path.display(),
                    dir.display()
                );
            }
            let bytes = read_file(&shard)?;
            sharded
                .add_shard(&name, &bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", shard.display()))?;
        }
    }
    Ok(sharded.into_index())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_round_trips_and_plain_bytes_pass_through() {
        let data = b"ONRSHARD and some payload, repeated, repeated, repeated".to_vec();
        let packed = gzip(&data);
        assert!(packed.starts_with(&GZIP_MAGIC));
        assert_eq!(packed, gzip(&data), "the same bytes give the same file");
        assert_eq!(gunzip_if_gzipped(packed).unwrap(), data);
        assert_eq!(gunzip_if_gzipped(data.clone()).unwrap(), data);
        assert_eq!(gunzip_if_gzipped(Vec::new()).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn a_cut_gzip_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let packed = gzip(&[7u8; 4000]);
        let path = dir.path().join("p-00000001.onr");
        std::fs::write(&path, &packed[..packed.len() / 2]).unwrap();
        let err = read_file(&path).unwrap_err();
        assert!(format!("{err:#}").contains("p-00000001.onr"), "{err:#}");
    }
}
