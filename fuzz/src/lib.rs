//! What the fuzz targets share: a small index and query model to start from, the questions to
//! ask, and the invariants (the same file the core's tests use).

use onrecord_core::{
    AnswerConfig, Block, BlockKind, FORMAT_VERSION, Index, IndexBuilder, IndexSettings, Lang,
    QueryModel, SourceDoc, SourceSection, VectorIndex, ask, chunk, encode_query_model,
};

#[path = "../../crates/onrecord-core/tests/support/invariants.rs"]
pub mod invariants;

/// Questions that reach the fixture's fragments, and some that reach nothing.
pub const QUESTIONS: &[&str] = &[
    "How much does delivery cost in zone 2?",
    "When does the refund arrive?",
    "What does the battery weigh, and what does it cost?",
    "Erstattung Werktagen",
    "",
];

/// A toy query model (4 dimensions) whose rows the fixture's vectors match.
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

/// A small index with several sentences per fragment, a list, a table, code, two languages
/// and vectors for [`model_bytes`].
pub fn fixture() -> Index {
    let page = |path: &str, title: &str, lang, blocks: Vec<Block>| SourceDoc {
        path: path.into(),
        url: format!("/{path}/"),
        title: title.into(),
        lang,
        themes: vec!["cargo".into()],
        collection: None,
        sections: vec![SourceSection {
            heading_path: vec![title.into()],
            anchor: path.into(),
            blocks,
        }],
    };
    let docs = [
        page(
            "delivery",
            "Delivery",
            Lang::English,
            vec![
                Block::paragraph("Delivery is by van. It costs EUR 95 in zone 2. The fee covers:"),
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
            vec![Block::paragraph(
                "Die Erstattung kommt innerhalb von 10 Werktagen. Sie gilt für Räder und Teile.",
            )],
        ),
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in &docs {
        builder.add(doc, &chunk(doc, 80));
    }
    let mut index = builder.finish();
    let checksum = QueryModel::from_bytes(&model_bytes()).map_or(0, |m| m.checksum());
    let mut vectors = VectorIndex::new(checksum, 4);
    for i in 0..index.fragments.len() {
        vectors.push(&[1.0, i as f32, -0.5, 0.25]);
    }
    index.vectors = Some(vectors);
    index
}

/// Index bytes around `payload` with its length and checksum recomputed, so that the payload
/// reaches the decoder.
pub fn with_header(payload: &[u8]) -> Vec<u8> {
    let mut out = b"ONRINDEX".to_vec();
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0; 32]);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&out);
    hasher.update(payload);
    out.extend_from_slice(&hasher.finalize().to_le_bytes());
    out.extend_from_slice(payload);
    out
}

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

/// Asks every question (with and without `model`) and checks every answer.
pub fn ask_everything(index: &Index, model: Option<&QueryModel>) {
    for question in QUESTIONS {
        let answer = ask(index, model, question, &AnswerConfig::DEFAULT);
        invariants::check_answer(index, &answer);
    }
}
