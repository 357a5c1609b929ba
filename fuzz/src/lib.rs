//! What the fuzz targets share: a small index and query model to start from, the questions to
//! ask, and the invariants: the same files the core's bounded property runs use
//! (`crates/onrecord-core/tests/support/`), included by path.

#[path = "../../crates/onrecord-core/tests/support/fixture.rs"]
pub mod fixture;
#[path = "../../crates/onrecord-core/tests/support/frame.rs"]
pub mod frame;
#[path = "../../crates/onrecord-core/tests/support/invariants.rs"]
pub mod invariants;

pub use fixture::{QUESTIONS, ask_everything, fixture, model_bytes, with_header};

/// Applies `edits` (pairs of position and byte) to `bytes`.
pub fn edit(bytes: &mut [u8], edits: &[u8]) {
    for pair in edits.chunks_exact(3) {
        if bytes.is_empty() {
            return;
        }
        let at = usize::from(u16::from_le_bytes([pair[0], pair[1]])) % bytes.len();
        bytes[at] = pair[2];
    }
}
