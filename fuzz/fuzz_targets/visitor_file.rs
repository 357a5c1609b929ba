//! The visitor-file reader ("your documents"): any text indexes or is refused by name; what it
//! builds passes the decoder's own checks and answers within the invariants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use onrecord_core::{Index, Lang, PlainFile, index_documents};
use onrecord_fuzz::ask_everything;

fuzz_target!(|data: &[u8]| {
    let files = [PlainFile {
        name: "notes.md".into(),
        text: String::from_utf8_lossy(data).into_owned(),
    }];
    match index_documents(&files, Lang::English) {
        Ok(index) => {
            assert!(!index.fragments.is_empty());
            let bytes = index.to_bytes([0; 32]).expect("encodes");
            assert!(
                Index::from_bytes(&bytes).is_ok(),
                "the reader's index fails validation"
            );
            ask_everything(&index, None);
        }
        Err(e) => assert!(e.to_string().contains("notes.md"), "{e}"),
    }
});
