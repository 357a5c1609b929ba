//! Lowercase hex, the one helper every crate uses for hashes (corpus hashes, content-hashed
//! names, checksums).

/// `bytes` as lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
