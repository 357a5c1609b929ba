//! The index format: round trip, determinism, golden files, and hostile bytes.

use onrecord_core::{
    Block, BlockKind, Collection, DecodeError, FORMAT_VERSION, HEADER_LEN, Index, IndexBuilder,
    IndexSettings, Lang, SourceDoc, SourceSection, VectorIndex, chunk,
};
use proptest::prelude::*;

mod support;

fn fixture() -> Index {
    let docs = [
        SourceDoc {
            path: "a.md".into(),
            url: "/a/".into(),
            title: "Deliveries".into(),
            lang: Lang::English,
            themes: vec!["shipping".into()],
            collection: Some("guides".into()),
            sections: vec![SourceSection {
                heading_path: vec!["Fees".into()],
                anchor: "fees".into(),
                blocks: vec![
                    Block::paragraph("Delivery costs EUR 95 in zone 2. Zone 1 is free."),
                    Block {
                        kind: BlockKind::Table,
                        text: "Zone | Fee\n1 | 0\n2 | 95".into(),
                    },
                    Block {
                        kind: BlockKind::Code,
                        text: "larkctl fee --zone 2".into(),
                    },
                ],
            }],
        },
        SourceDoc {
            path: "b.md".into(),
            url: "/b/".into(),
            title: "Rückgabe".into(),
            lang: Lang::German,
            themes: vec![],
            collection: None,
            sections: vec![SourceSection {
                heading_path: vec![],
                anchor: String::new(),
                blocks: vec![Block::paragraph(
                    "Die Erstattung kommt innerhalb von 10 Werktagen.",
                )],
            }],
        },
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    builder.name_site(&["Larkspur Cycle Works".into()]);
    builder.declare_collection(Collection {
        name: "decisions".into(),
        label: "Why we decided".into(),
        cap: 1,
    });
    for doc in &docs {
        builder.add(doc, &chunk(doc, 800));
    }
    let mut index = builder.finish();
    let mut vectors = VectorIndex::new(0xfeed_beef, 4);
    for i in 0..index.fragments.len() {
        vectors.push(&[1.0, i as f32, -0.5, 0.25]);
    }
    index.vectors = Some(vectors);
    index
}

fn fixture_bytes() -> Vec<u8> {
    fixture().to_bytes([7; 32]).unwrap()
}

#[test]
fn round_trip_restores_the_index_and_its_hash() {
    let index = Index::from_bytes(&fixture_bytes()).unwrap();
    assert_eq!(index.corpus_hash, [7; 32]);
    assert_eq!(
        index,
        Index {
            corpus_hash: [7; 32],
            ..fixture()
        }
    );
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    assert_eq!(fixture_bytes(), fixture_bytes());
}

/// The committed golden file for this version must still load and must equal what the fixture
/// builds now: a change to the format types without a version bump fails here.
/// Refresh with `UPDATE_GOLDEN=1 cargo test -p onrecord-core --test format` after bumping.
#[test]
fn golden_file_of_this_version_matches() {
    let path = format!(
        "{}/tests/data/index_v{FORMAT_VERSION}.onr",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, fixture_bytes()).unwrap();
    }
    let golden =
        std::fs::read(&path).expect("golden index for the current FORMAT_VERSION is committed");
    assert!(Index::from_bytes(&golden).is_ok());
    assert_eq!(
        golden,
        fixture_bytes(),
        "format changed: bump FORMAT_VERSION and add a golden file"
    );
}

/// Golden files of earlier versions stay committed and must be refused by name, never misread.
#[test]
fn golden_files_of_earlier_versions_are_refused_clearly() {
    for version in 1..FORMAT_VERSION {
        let path = format!(
            "{}/tests/data/index_v{version}.onr",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(&path).expect("every earlier version keeps its golden file");
        assert_eq!(
            Index::from_bytes(&bytes),
            Err(DecodeError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION
            })
        );
    }
}

#[test]
fn other_versions_are_refused_by_name() {
    for version in [0, FORMAT_VERSION + 1, u32::MAX] {
        let mut bytes = fixture_bytes();
        bytes[8..12].copy_from_slice(&version.to_le_bytes());
        let err = Index::from_bytes(&bytes).unwrap_err();
        assert_eq!(
            err,
            DecodeError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION
            }
        );
        assert!(err.to_string().contains("rebuild the index"));
    }
}

#[test]
fn foreign_bytes_are_refused() {
    assert_eq!(
        Index::from_bytes(b""),
        Err(DecodeError::TooShort { len: 0 })
    );
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.resize(200, 0);
    assert_eq!(Index::from_bytes(&png), Err(DecodeError::BadMagic));
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = fixture_bytes();
    for len in 0..bytes.len() {
        let err = Index::from_bytes(&bytes[..len]).unwrap_err();
        if len < HEADER_LEN {
            assert_eq!(err, DecodeError::TooShort { len });
        } else {
            assert!(matches!(err, DecodeError::Truncated { .. }), "{len}: {err}");
        }
    }
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut bytes = fixture_bytes();
    bytes.push(0);
    assert_eq!(
        Index::from_bytes(&bytes),
        Err(DecodeError::TrailingBytes { extra: 1 })
    );
}

#[test]
fn every_single_bit_flip_is_an_error() {
    let bytes = fixture_bytes();
    for i in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[i / 8] ^= 1 << (i % 8);
        assert!(
            Index::from_bytes(&flipped).is_err(),
            "flip of bit {i} went unnoticed"
        );
    }
}

#[test]
fn a_well_checksummed_but_inconsistent_payload_is_invalid() {
    let mut index = fixture();
    index.terms[0].postings.push((9_999, 1));
    let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
    assert_eq!(
        err,
        DecodeError::Invalid("a posting names a missing fragment")
    );

    let mut index = fixture();
    index.vectors.as_mut().unwrap().scales.pop();
    let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
    assert_eq!(
        err,
        DecodeError::Invalid("vector count does not match the fragments")
    );

    let mut index = fixture();
    index.docs[1].collection = Some(7);
    let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
    assert_eq!(
        err,
        DecodeError::Invalid("a page names a missing collection")
    );

    let mut index = fixture();
    index.fragments[0].sentences.push((3, 10_000));
    let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
    assert_eq!(
        err,
        DecodeError::SentenceOutsideText {
            fragment: 0,
            sentence: index.fragments[0].sentences.len() as u32 - 1,
        }
    );
}

// Issue 14, item 6: a quote runs from one sentence's start to a later one's end, so ranges that
// are each inside the text but out of order made `ask` quote "" with start > end.
#[test]
fn sentence_ranges_out_of_order_or_overlapping_are_invalid() {
    for (sentences, at) in [
        (vec![(24, 48), (0, 23)], 1),
        (vec![(0, 30), (20, 48)], 1),
        (vec![(5, 10), (5, 10)], 1),
    ] {
        let mut index = fixture();
        assert!(index.fragments[0].text.len() >= 48);
        index.fragments[0].sentences = sentences.clone();
        let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
        assert_eq!(
            err,
            DecodeError::SentencesOutOfOrder {
                fragment: 0,
                sentence: at
            },
            "{sentences:?}"
        );
    }
    // Adjacent ranges are fine (the table rows named units past these two).
    let mut index = fixture();
    index.fragments[0].sentences = vec![(0, 10), (10, 20)];
    index.fragments[0].table_rows.clear();
    index.fragments[0].code.clear();
    assert!(Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).is_ok());
}

// Issue 43: a CRC-valid index with a zero-length sentence range was accepted and answered with
// an empty quote "" at High confidence. Every fragment, every place in it: refused by name.
#[test]
fn an_empty_sentence_range_is_refused_wherever_it_is() {
    let base = fixture();
    for (f, frag) in base.fragments.iter().enumerate() {
        for (s, &(start, _)) in frag.sentences.iter().enumerate() {
            let mut index = base.clone();
            index.fragments[f].sentences[s] = (start, start);
            let bytes = index.to_bytes([0; 32]).unwrap();
            assert_eq!(
                Index::from_bytes(&bytes).unwrap_err(),
                DecodeError::EmptySentence {
                    fragment: f as u32,
                    sentence: s as u32
                },
                "fragment {f}, sentence {s}"
            );
        }
    }
    // Also at the very end of the text, where the range is still "inside" it.
    let mut index = fixture();
    let end = index.fragments[1].text.len() as u32;
    index.fragments[1].sentences.push((end, end));
    let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
    assert!(
        matches!(err, DecodeError::EmptySentence { fragment: 1, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("is empty"), "{err}");
}

#[test]
fn code_units_out_of_order_or_missing_are_invalid() {
    // `is_code` binary-searches the list, and a code unit must exist.
    for code in [vec![1, 0], vec![0, 0], vec![99]] {
        let mut index = fixture();
        index.fragments[0].code = code.clone();
        let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
        assert_eq!(
            err,
            DecodeError::Invalid("code units are out of order or name a missing unit"),
            "{code:?}"
        );
    }
}

#[test]
fn postings_out_of_order_or_repeated_are_invalid() {
    // Lookups binary-search a term's postings by fragment.
    assert!(fixture().fragments.len() >= 2);
    for postings in [vec![(1, 1), (0, 1)], vec![(0, 1), (0, 2)]] {
        let mut index = fixture();
        index.terms[0].postings = postings;
        let err = Index::from_bytes(&index.to_bytes([0; 32]).unwrap()).unwrap_err();
        assert_eq!(
            err,
            DecodeError::Invalid("postings are not sorted by fragment and unique")
        );
    }
}

/// A header with a valid checksum around arbitrary payload bytes.
fn with_header(payload: &[u8]) -> Vec<u8> {
    support::frame::framed(b"ONRINDEX", onrecord_core::FORMAT_VERSION, [0; 32], payload)
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = Index::from_bytes(&bytes);
    }

    #[test]
    fn arbitrary_payloads_behind_a_valid_header_never_panic(
        payload in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let _ = Index::from_bytes(&with_header(&payload));
    }

    #[test]
    fn mutated_payloads_behind_a_valid_header_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        let bytes = fixture_bytes();
        let mut payload = bytes[HEADER_LEN..].to_vec();
        for (at, value) in edits {
            let at = at % payload.len();
            payload[at] = value;
        }
        let _ = Index::from_bytes(&with_header(&payload));
    }
}
