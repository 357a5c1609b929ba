//! The index decoder, and `ask` on whatever decodes. The first byte chooses how the rest is
//! used: as a whole file, as a payload behind a valid header (length and CRC recomputed), or as
//! edits to the fixture's payload (also behind a valid header).
#![no_main]

use libfuzzer_sys::fuzz_target;
use onrecord_core::{HEADER_LEN, Index, QueryModel};
use onrecord_fuzz::{ask_everything, edit, fixture, model_bytes, with_header};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = match mode % 3 {
        0 => rest.to_vec(),
        1 => with_header(rest),
        _ => {
            let Ok(bytes) = fixture().to_bytes([0; 32]) else {
                return;
            };
            let mut payload = bytes[HEADER_LEN..].to_vec();
            edit(&mut payload, rest);
            with_header(&payload)
        }
    };
    if let Ok(index) = Index::from_bytes(&bytes) {
        let model = QueryModel::from_bytes(&model_bytes()).ok();
        ask_everything(&index, None);
        ask_everything(&index, model.as_ref());
    }
});
