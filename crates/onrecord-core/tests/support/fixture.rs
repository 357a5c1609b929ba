//! The fixture the bounded property runs (`bounded_fuzz.rs`) and the cargo-fuzz targets
//! (`fuzz/src/lib.rs`, by path) start from: a small index, a toy query model that fits its
//! vectors, the questions to ask, and index bytes around an edited payload.

use onrecord_core::{
    AnswerConfig, Block, BlockKind, Index, IndexBuilder, IndexSettings, Lang, QueryModel,
    SourceDoc, SourceSection, VectorIndex, ask, chunk, encode_query_model,
};

/// Questions that reach the fixture's fragments (and some that reach nothing).
pub const QUESTIONS: &[&str] = &[
    "How much does delivery cost in zone 2?",
    "When does the refund arrive?",
    "What does it weigh?",
    "Which battery, and what does it cost?",
    "Erstattung Werktagen",
    "",
    "zone zone zone fee fee",
];

/// A small index whose fragments have several sentences, neighbours that refer back or
/// introduce a list, a table, code and vectors: what `ask` walks through.
pub fn fixture() -> Index {
    let page = |path: &str, title: &str, lang, heading: &str, blocks: Vec<Block>| SourceDoc {
        path: path.into(),
        url: format!("/{path}/"),
        title: title.into(),
        lang,
        themes: vec!["cargo".into()],
        collection: None,
        sections: vec![SourceSection {
            heading_path: vec![heading.into()],
            anchor: heading.to_lowercase(),
            blocks,
        }],
    };
    let docs = [
        page(
            "delivery",
            "Delivery",
            Lang::English,
            "Fees",
            vec![
                Block::paragraph(
                    "Delivery is by van. It costs EUR 95 in zone 2. Zone 1 is free. The fee covers:",
                ),
                Block {
                    kind: BlockKind::ListItem,
                    text: "carrying the bike to your door".into(),
                },
                Block {
                    kind: BlockKind::Table,
                    text: "Zone | Fee\n1 | 0\n2 | 95".into(),
                },
            ],
        ),
        page(
            "battery",
            "Battery",
            Lang::English,
            "Weight",
            vec![
                Block::paragraph(
                    "The battery weighs 4 kg. It costs EUR 640. This includes a charger.",
                ),
                Block {
                    kind: BlockKind::Code,
                    text: "larkctl battery show --weight".into(),
                },
            ],
        ),
        page(
            "rueckgabe",
            "Rückgabe",
            Lang::German,
            "Erstattung",
            vec![Block::paragraph(
                "Die Erstattung kommt innerhalb von 10 Werktagen. Sie gilt für Räder und Teile.",
            )],
        ),
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    builder.name_site(&["Larkspur".into()]);
    for doc in &docs {
        builder.add(doc, &chunk(doc, 80));
    }
    let mut index = builder.finish();
    let mut vectors = VectorIndex::new(model_checksum(), 4);
    for i in 0..index.fragments.len() {
        vectors.push(&[1.0, i as f32, -0.5, 0.25]);
    }
    index.vectors = Some(vectors);
    index
}

pub fn model_bytes() -> Vec<u8> {
    let vocab: Vec<String> = ["[UNK]", "delivery", "refund", "battery", "cost", "##s"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    encode_query_model(
        &vocab,
        4,
        &[
            (1, vec![1.0, 0.0, 0.0, 0.5]),
            (2, vec![0.0, 1.0, 0.0, 0.0]),
            (3, vec![0.0, 0.2, 1.0, 0.0]),
            (5, vec![0.1, 0.1, 0.1, 0.1]),
        ],
    )
}

pub fn model_checksum() -> u32 {
    QueryModel::from_bytes(&model_bytes())
        .expect("the toy model decodes")
        .checksum()
}

/// Asks every question (with and without `model`) and checks every answer.
pub fn ask_everything(index: &Index, model: Option<&QueryModel>) {
    for question in QUESTIONS {
        super::invariants::check_answer(
            index,
            &ask(index, model, question, &AnswerConfig::DEFAULT),
        );
    }
}

/// Index bytes around `payload` with its length and checksum recomputed, so edits reach the
/// decoder instead of stopping at the checksum.
pub fn with_header(payload: &[u8]) -> Vec<u8> {
    super::frame::framed(b"ONRINDEX", onrecord_core::FORMAT_VERSION, [0; 32], payload)
}
