//! A file of the index format (index, manifest or shard) around arbitrary payload bytes.

use onrecord_core::FORMAT_VERSION;

/// `payload` behind a header of this version, with `magic`, `corpus_hash` and a valid checksum.
pub fn framed(magic: &[u8; 8], corpus_hash: [u8; 32], payload: &[u8]) -> Vec<u8> {
    let mut out = magic.to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&corpus_hash);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&out);
    hasher.update(payload);
    out.extend_from_slice(&hasher.finalize().to_le_bytes());
    out.extend_from_slice(payload);
    out
}
