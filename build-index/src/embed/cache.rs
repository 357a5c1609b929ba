//! The on-disk cache of teacher embeddings, so a rebuild embeds only fragments whose text changed.
//!
//! Layout: `<root>/<model id, 16 hex>/<16 hex>.seg`. The model id hashes everything that decides
//! a vector (the teacher's weights, configuration and vocabulary, the token limit, the pooling and
//! any prefix, and [`ENGINE`]), so a different teacher or a changed forward pass never reads
//! another's vectors; the key of an entry is the SHA-256 of the text embedded.
//!
//! A build writes the vectors it computed as one new segment file, through a temporary file and a
//! rename: an interrupted build leaves at most a `.tmp` file (removed later), and builds running at
//! the same time each write their own segment. When a model folder holds more than
//! [`MAX_SEGMENTS`] segments, a build merges them into one, keeping the [`MAX_ENTRIES`] most
//! recently used vectors; that bounds the folder at about `MAX_ENTRIES × (40 + 4 × dims)` bytes.
//! Deleting the folder is always safe.
//!
//! A segment that does not check out (wrong magic, version, model, size or CRC-32) is never used:
//! the build says so in a warning that names the file, and removes it.
//!
//! Segment format (little-endian): `ONREMBC1`, u32 version, the 32-byte model id, u32 dims,
//! u64 count, then `count` entries of { 32-byte text hash, u64 last use (Unix seconds),
//! dims × f32 }, then a CRC-32 of everything before it.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use onrecord_core::hex;
use sha2::{Digest, Sha256};

/// Bumped whenever the forward pass changes its numbers, so older vectors are not reused.
pub(crate) const ENGINE: &str = "onrecord-encoder-1";
const MAGIC: &[u8; 8] = b"ONREMBC1";
const VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 32 + 4 + 8;
/// More segments than this are merged into one.
pub(crate) const MAX_SEGMENTS: usize = 16;
/// A merge keeps at most this many vectors per model, the most recently used first.
pub(crate) const MAX_ENTRIES: usize = 200_000;
/// A temporary file older than this was left by an interrupted build.
const STALE_TMP: Duration = Duration::from_secs(3600);

pub(crate) type Key = [u8; 32];

pub(crate) fn text_key(text: &str) -> Key {
    Sha256::digest(text.as_bytes()).into()
}

/// One model's folder of segments.
pub(crate) struct DiskCache {
    dir: PathBuf,
    model: Key,
    dims: usize,
}

/// What a look-up found.
pub(crate) struct Found {
    pub(crate) vectors: HashMap<Key, Vec<f32>>,
    pub(crate) warnings: Vec<String>,
}

impl DiskCache {
    pub(crate) fn new(root: &Path, model: Key, dims: usize) -> DiskCache {
        let dir = root.join(hex(&model[..8]));
        DiskCache { dir, model, dims }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The cached vectors of `keys`. Unreadable or invalid segments are skipped with a warning
    /// (and removed when they are invalid); a missing folder is an empty cache.
    pub(crate) fn lookup(&self, keys: &HashSet<Key>) -> Found {
        let mut found = Found {
            vectors: HashMap::new(),
            warnings: Vec::new(),
        };
        for path in self.segments(&mut found.warnings) {
            self.read_segment(&path, &mut found.warnings, |key, _, vector| {
                if keys.contains(key) && !found.vectors.contains_key(key) {
                    found.vectors.insert(*key, vector.to_vec());
                }
            });
        }
        found
    }

    /// Writes `entries` as a new segment, then merges the folder when it holds too many
    /// segments. `used` are the keys this build used, which count as just used in a merge.
    /// Failures are warnings: the cache only saves time.
    pub(crate) fn store(&self, entries: &[(Key, Vec<f32>)], used: &HashSet<Key>) -> Vec<String> {
        let mut warnings = Vec::new();
        let now = unix_now();
        if !entries.is_empty() {
            let stamped: Vec<(Key, u64, &[f32])> = entries
                .iter()
                .map(|(k, v)| (*k, now, v.as_slice()))
                .collect();
            if let Err(e) = self.write_segment(&stamped) {
                warnings.push(format!(
                    "embedding cache {}: cannot write: {e}",
                    self.dir.display()
                ));
                return warnings;
            }
        }
        let segments = self.segments(&mut warnings);
        if segments.len() > MAX_SEGMENTS {
            self.merge(&segments, used, now, &mut warnings);
        }
        warnings
    }

    fn merge(
        &self,
        segments: &[PathBuf],
        used: &HashSet<Key>,
        now: u64,
        warnings: &mut Vec<String>,
    ) {
        let mut all: HashMap<Key, (u64, Vec<f32>)> = HashMap::new();
        for path in segments {
            self.read_segment(path, warnings, |key, stamp, vector| {
                let stamp = if used.contains(key) { now } else { stamp };
                let entry = all.entry(*key).or_insert_with(|| (stamp, vector.to_vec()));
                entry.0 = entry.0.max(stamp);
            });
        }
        let mut entries: Vec<(Key, u64, &[f32])> = all
            .iter()
            .map(|(k, (s, v))| (*k, *s, v.as_slice()))
            .collect();
        // Newest first, then by key, so the same entries always make the same file.
        entries.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        entries.truncate(MAX_ENTRIES);
        let written = match self.write_segment(&entries) {
            Ok(path) => path,
            Err(e) => {
                warnings.push(format!(
                    "embedding cache {}: cannot merge: {e}",
                    self.dir.display()
                ));
                return;
            }
        };
        for path in segments.iter().filter(|p| **p != written) {
            // Another build may have merged the same segment already.
            if let Err(e) = fs::remove_file(path)
                && e.kind() != ErrorKind::NotFound
            {
                warnings.push(format!("embedding cache {}: {e}", path.display()));
            }
        }
    }

    /// The segment files, sorted by name; stale temporary files are removed on the way.
    fn segments(&self, warnings: &mut Vec<String>) -> Vec<PathBuf> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return Vec::new(),
            Err(e) => {
                warnings.push(format!(
                    "embedding cache {}: cannot list: {e}",
                    self.dir.display()
                ));
                return Vec::new();
            }
        };
        let mut res = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".seg") && !name.starts_with('.') {
                res.push(path);
            } else if name.ends_with(".tmp") {
                let stale = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > STALE_TMP);
                if stale {
                    let _ = fs::remove_file(&path);
                }
            }
        }
        res.sort();
        res
    }

    /// Calls `each(key, last use, vector)` for every entry of a valid segment. An invalid one
    /// is reported and removed, and none of its entries is used.
    fn read_segment(
        &self,
        path: &Path,
        warnings: &mut Vec<String>,
        mut each: impl FnMut(&Key, u64, &[f32]),
    ) {
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            // Merged away by another build since the listing.
            Err(e) if e.kind() == ErrorKind::NotFound => return,
            Err(e) => {
                warnings.push(format!(
                    "embedding cache {}: cannot read: {e}",
                    path.display()
                ));
                return;
            }
        };
        let vectors = match self.decode(&bytes) {
            Ok(vectors) => vectors,
            Err(why) => {
                warnings.push(format!(
                    "embedding cache {}: {why}; discarded",
                    path.display()
                ));
                let _ = fs::remove_file(path);
                return;
            }
        };
        let entry_len = 40 + 4 * self.dims;
        let mut vector = vec![0f32; self.dims];
        for entry in vectors.chunks_exact(entry_len) {
            let (key, rest) = entry.split_at(32);
            let (stamp, floats) = rest.split_at(8);
            for (v, b) in vector.iter_mut().zip(floats.chunks_exact(4)) {
                *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            let key: Key = key.try_into().unwrap_or([0; 32]);
            let stamp = u64::from_le_bytes(stamp.try_into().unwrap_or([0; 8]));
            each(&key, stamp, &vector);
        }
    }

    /// Checks a segment and returns its entry bytes.
    fn decode<'b>(&self, bytes: &'b [u8]) -> Result<&'b [u8], String> {
        if bytes.len() < HEADER + 4 {
            return Err(format!("truncated ({} bytes)", bytes.len()));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if &body[..8] != MAGIC {
            return Err("not an embedding cache segment".into());
        }
        let u32_at =
            |i: usize| u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
        if crc32fast::hash(body) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
            return Err("checksum mismatch".into());
        }
        if u32_at(8) != VERSION {
            return Err(format!("version {} (expected {VERSION})", u32_at(8)));
        }
        if body[12..44] != self.model {
            return Err("written for another model".into());
        }
        if u32_at(44) as usize != self.dims {
            return Err(format!(
                "{} dimensions (expected {})",
                u32_at(44),
                self.dims
            ));
        }
        let count = u64::from_le_bytes(body[48..56].try_into().unwrap_or([0; 8]));
        let entries = &body[HEADER..];
        let expected = (40 + 4 * self.dims as u64).checked_mul(count);
        if expected != Some(entries.len() as u64) {
            return Err(format!(
                "{count} entries do not fill {} bytes",
                entries.len()
            ));
        }
        Ok(entries)
    }

    /// Writes a segment through a temporary file and a rename; returns its path.
    fn write_segment(&self, entries: &[(Key, u64, &[f32])]) -> std::io::Result<PathBuf> {
        let mut bytes = Vec::with_capacity(HEADER + entries.len() * (40 + 4 * self.dims) + 4);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&self.model);
        bytes.extend_from_slice(&(self.dims as u32).to_le_bytes());
        bytes.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (key, stamp, vector) in entries {
            bytes.extend_from_slice(key);
            bytes.extend_from_slice(&stamp.to_le_bytes());
            for v in vector.iter() {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        bytes.extend_from_slice(&crc32fast::hash(&bytes).to_le_bytes());
        fs::create_dir_all(&self.dir)?;
        let name = hex(&Sha256::digest(&bytes)[..8]);
        let path = self.dir.join(format!("{name}.seg"));
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = self
            .dir
            .join(format!(".{name}.{}.{nanos}.tmp", std::process::id()));
        let written = fs::write(&tmp, &bytes)
            .and_then(|()| fs::File::open(&tmp)?.sync_all())
            .and_then(|()| fs::rename(&tmp, &path));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written.map(|()| path)
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "onrecord-cache-{name}-{}-{}",
            std::process::id(),
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn vector(seed: u32, dims: usize) -> Vec<f32> {
        (0..dims)
            .map(|i| (seed * 31 + i as u32) as f32 * 0.25)
            .collect()
    }

    fn keys(texts: &[&str]) -> HashSet<Key> {
        texts.iter().map(|t| text_key(t)).collect()
    }

    #[test]
    fn stored_vectors_come_back_bit_for_bit() {
        let root = temp_dir("roundtrip");
        let cache = DiskCache::new(&root, [7; 32], 3);
        let entries = vec![
            (text_key("a"), vec![0.1, -0.0, f32::MIN_POSITIVE]),
            (text_key("b"), vector(2, 3)),
        ];
        assert!(cache.store(&entries, &HashSet::new()).is_empty());
        let found = cache.lookup(&keys(&["a", "b", "c"]));
        assert!(found.warnings.is_empty());
        assert_eq!(found.vectors.len(), 2);
        for (k, v) in &entries {
            let got = &found.vectors[k];
            assert!(got.iter().zip(v).all(|(a, b)| a.to_bits() == b.to_bits()));
        }
        // Another model (or another dims) does not see them.
        assert!(
            DiskCache::new(&root, [8; 32], 3)
                .lookup(&keys(&["a"]))
                .vectors
                .is_empty()
        );
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_damaged_segment_is_named_discarded_and_never_used() {
        let root = temp_dir("damaged");
        let cache = DiskCache::new(&root, [1; 32], 4);
        cache.store(&[(text_key("a"), vector(1, 4))], &HashSet::new());
        let seg = cache.segments(&mut Vec::new()).pop().unwrap();
        let good = fs::read(&seg).unwrap();
        // What the warning says, and the damage.
        type Damage = (&'static str, fn(&mut Vec<u8>));
        let damages: [Damage; 4] = [
            ("checksum mismatch", |b| b[HEADER + 40] ^= 1),
            ("truncated", |b| b.truncate(10)),
            ("not an embedding cache", |b| b[0] = b'X'),
            ("checksum mismatch", |b| b.truncate(b.len() - 8)),
        ];
        for (expected, damage) in damages {
            let mut bytes = good.clone();
            damage(&mut bytes);
            fs::write(&seg, &bytes).unwrap();
            let found = cache.lookup(&keys(&["a"]));
            assert!(found.vectors.is_empty(), "{expected}");
            assert_eq!(found.warnings.len(), 1, "{expected}");
            let warning = &found.warnings[0];
            assert!(
                warning.contains(&seg.display().to_string()) && warning.contains(expected),
                "{warning}"
            );
            assert!(!seg.exists(), "the damaged segment is removed");
        }
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn many_segments_merge_into_one_keeping_the_newest() {
        let root = temp_dir("merge");
        let cache = DiskCache::new(&root, [2; 32], 2);
        for i in 0..=MAX_SEGMENTS as u32 {
            let text = format!("text {i}");
            let w = cache.store(&[(text_key(&text), vector(i, 2))], &HashSet::new());
            assert!(w.is_empty(), "{w:?}");
        }
        assert_eq!(cache.segments(&mut Vec::new()).len(), 1);
        let all: Vec<String> = (0..=MAX_SEGMENTS).map(|i| format!("text {i}")).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let found = cache.lookup(&keys(&all));
        assert_eq!(found.vectors.len(), MAX_SEGMENTS + 1);
        assert_eq!(found.vectors[&text_key("text 3")], vector(3, 2));
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_interrupted_write_leaves_nothing_that_is_read() {
        let root = temp_dir("tmp");
        let cache = DiskCache::new(&root, [3; 32], 2);
        fs::create_dir_all(cache.dir()).unwrap();
        fs::write(cache.dir().join(".abc.1.2.tmp"), b"ONREMBC1 half a file").unwrap();
        let found = cache.lookup(&keys(&["a"]));
        assert!(found.vectors.is_empty() && found.warnings.is_empty());
        fs::remove_dir_all(&root).unwrap();
    }
}
