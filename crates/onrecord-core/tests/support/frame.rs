//! A file of the index format (index, manifest or shard) around arbitrary payload bytes.

/// `payload` behind a header of `version`, with `magic`, `corpus_hash` and a valid checksum.
pub fn framed(magic: &[u8; 8], version: u32, corpus_hash: [u8; 32], payload: &[u8]) -> Vec<u8> {
    let mut out = magic.to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&corpus_hash);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&out);
    hasher.update(payload);
    out.extend_from_slice(&hasher.finalize().to_le_bytes());
    out.extend_from_slice(payload);
    out
}
