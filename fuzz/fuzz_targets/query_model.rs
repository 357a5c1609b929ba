//! The query-model decoder. The first byte chooses: the rest as a whole file, or as edits to
//! the toy model with its CRC recomputed. What decodes embeds and answers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onrecord_core::QueryModel;
use onrecord_fuzz::{QUESTIONS, ask_everything, edit, fixture, model_bytes};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let good = model_bytes();
        let mut body = good[..good.len() - 4].to_vec();
        edit(&mut body, rest);
        let crc = crc32fast::hash(&body);
        body.extend_from_slice(&crc.to_le_bytes());
        body
    };
    match QueryModel::from_bytes(&bytes) {
        Ok(model) => {
            for question in QUESTIONS {
                if let Some(v) = model.embed(question) {
                    assert_eq!(v.len(), model.dims());
                    assert!(v.iter().all(|x| x.is_finite()));
                }
            }
            ask_everything(&fixture(), Some(&model));
        }
        Err(e) => assert!(e.to_string().contains("query model"), "{e}"),
    }
});
