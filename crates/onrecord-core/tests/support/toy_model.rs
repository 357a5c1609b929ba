//! A tiny query model for tests that need vectors: each word of `words` (the first is the
//! unknown token) gets a fixed, distinct 4-dimensional row.

use onrecord_core::{Index, QueryModel, VectorIndex, encode_query_model};

pub fn toy_model(words: &[&str]) -> QueryModel {
    let vocab: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let rows: Vec<(u32, Vec<f32>)> = (1..words.len() as u32)
        .map(|i| {
            let x = i as f32;
            (i, vec![x.sin(), x.cos(), (x * 0.7).sin(), 1.0 / x])
        })
        .collect();
    QueryModel::from_bytes(&encode_query_model(&vocab, 4, &rows)).expect("a valid toy model")
}

/// Gives every fragment of `index` its toy vector (a fixed one when no word is known), so that
/// `model` fits the index.
pub fn with_toy_vectors(index: &mut Index, model: &QueryModel) {
    let mut vectors = VectorIndex::new(model.checksum(), 4);
    for f in &index.fragments {
        vectors.push(
            &model
                .embed(&f.text)
                .unwrap_or_else(|| vec![0.5, -0.5, 0.5, -0.5]),
        );
    }
    index.vectors = Some(vectors);
}
