//! How a built index is written: one `index.onr`, or a manifest and its shards, each file
//! through a temporary name and a rename.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use onrecord_core::{Index, ShardSizes, ShardedFiles, VectorLists};

use crate::{Build, ivf};

/// Writes `bytes` to `out_dir/index.onr` through a temporary file, so a failed or interrupted
/// write never leaves a half-finished index under the final name.
pub fn write_index(out_dir: &Path, bytes: &[u8]) -> Result<PathBuf> {
    write_atomically(out_dir, "index.onr", bytes)
}

/// How the index is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One file below `ShardSizes::threshold`, a manifest and shards above it.
    Auto,
    /// One file, `index.onr`, whatever its size.
    Single,
    /// A manifest and shards, whatever the size.
    Sharded,
}

impl Layout {
    /// Whether an index of `bytes` bytes (as one file) is written as a manifest and shards.
    pub fn is_sharded(self, bytes: usize, sizes: ShardSizes) -> bool {
        match self {
            Layout::Auto => bytes >= sizes.threshold,
            Layout::Single => false,
            Layout::Sharded => true,
        }
    }
}

/// Writes a built index into `out_dir`: `index.onr`, or (sharded) `manifest.onr` and its shards
/// beside it, each gzip-compressed (`onrecord_files` reads either). Returns the paths written,
/// the index or manifest first. A small site stays one file (`Layout::Auto` below
/// `sizes.threshold`), so its first answer is one fetch.
pub fn write_layout(
    out_dir: &Path,
    built: &Build,
    layout: Layout,
    sizes: ShardSizes,
) -> Result<Vec<PathBuf>> {
    if !layout.is_sharded(built.bytes.len(), sizes) {
        return Ok(vec![write_index(out_dir, &built.bytes)?]);
    }
    let files = to_compressed_shards(&built.index, sizes)?;
    let mut written = Vec::with_capacity(files.shards.len() + 1);
    // Shards first: a manifest on disk never names a shard that is not there yet.
    for (name, bytes) in &files.shards {
        written.push(write_atomically(out_dir, name, bytes)?);
    }
    written.insert(
        0,
        write_atomically(out_dir, onrecord_files::MANIFEST_NAME, &files.manifest)?,
    );
    Ok(written)
}

/// The seed of IVF training, so the same vectors always give the same lists.
const IVF_SEED: u64 = 11;

/// The index as a manifest and shards, its vectors (if any) in about √n IVF lists trained
/// here (`ivf.rs`), so a question fetches the few lists nearest its vector.
pub fn to_shards(index: &Index, sizes: ShardSizes) -> Result<ShardedFiles> {
    let lists = index.vectors.as_ref().map(|v| {
        let ivf = ivf::train(v, ivf::list_count(v.scales.len()), IVF_SEED);
        VectorLists {
            centroids: ivf.centroids,
            members: ivf.lists.into_iter().map(|l| l.ids).collect(),
        }
    });
    index
        .to_shards_with(index.corpus_hash, sizes, lists.as_ref())
        .context("cannot encode the sharded index")
}

/// [`to_shards`] with every file gzip-compressed, as they are deployed: what a visitor downloads
/// does not depend on the host compressing it (`onrecord_files` and the widget's worker read
/// either). Names stay those of the uncompressed files.
pub fn to_compressed_shards(index: &Index, sizes: ShardSizes) -> Result<ShardedFiles> {
    let files = to_shards(index, sizes)?;
    Ok(ShardedFiles {
        manifest: onrecord_files::gzip(&files.manifest),
        shards: files
            .shards
            .iter()
            .map(|(name, bytes)| (name.clone(), onrecord_files::gzip(bytes)))
            .collect(),
    })
}

/// Writes `out_dir/name` through a temporary file and a rename.
pub fn write_atomically(out_dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    fs::create_dir_all(out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    let final_path = out_dir.join(name);
    let tmp_path = out_dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = fs::write(&tmp_path, bytes)
        .and_then(|()| fs::File::open(&tmp_path)?.sync_all())
        .and_then(|()| fs::rename(&tmp_path, &final_path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp_path);
        return Err(e).with_context(|| format!("cannot write {}", final_path.display()));
    }
    Ok(final_path)
}
