//! The previous document embedder, candle's `BertModel` in padded batches of 16: kept as the
//! oracle the fast encoder is tested against (cosine ≥ 0.999) and as the peer the embedding
//! benchmark measures it against. The build does not use it.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use onrecord_core::WordPiece;

use super::normalize;

/// Fragments embedded per forward pass.
const BATCH: usize = 16;

/// all-MiniLM-L6-v2 through candle (the build's embedder until the fast encoder replaced it).
pub struct CandleBert {
    bert: BertModel,
    wordpiece: WordPiece,
    cls: u32,
    sep: u32,
    pad: u32,
    max_tokens: usize,
}

impl CandleBert {
    /// Loads `config.json`, `model.safetensors` and `vocab.txt` from the teacher folder.
    pub fn load(teacher: &Path, max_tokens: usize) -> Result<CandleBert> {
        let read = |name: &str| -> Result<Vec<u8>> {
            let path = teacher.join(name);
            fs::read(&path).with_context(|| format!("cannot read {}", path.display()))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .context("teacher config.json is not a BERT config")?;
        let vb = VarBuilder::from_buffered_safetensors(
            read("model.safetensors")?,
            DType::F32,
            &Device::Cpu,
        )?;
        let bert = BertModel::load(vb, &config)?;
        let vocab = String::from_utf8(read("vocab.txt")?).context("vocab.txt is not UTF-8")?;
        let vocab: Vec<String> = vocab.lines().map(str::to_owned).collect();
        let wordpiece = WordPiece::new(&vocab);
        let special = |t: &str| {
            wordpiece
                .id(t)
                .with_context(|| format!("no {t} in vocab.txt"))
        };
        Ok(CandleBert {
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            pad: special("[PAD]")?,
            bert,
            wordpiece,
            max_tokens,
        })
    }

    /// Mean-pooled, L2-normalised embeddings, in the order of `texts`.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<(usize, Vec<u32>)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut ids = vec![self.cls];
                ids.extend(
                    self.wordpiece
                        .tokenize(t)
                        .into_iter()
                        .take(self.max_tokens - 2),
                );
                ids.push(self.sep);
                (i, ids)
            })
            .collect();
        // Similar lengths share a batch, so little compute goes to padding.
        order.sort_by_key(|(_, ids)| ids.len());
        let mut res = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let vectors = self.forward(batch.iter().map(|(_, ids)| ids.as_slice()).collect())?;
            for ((i, _), v) in batch.iter().zip(vectors) {
                res[*i] = v;
            }
        }
        Ok(res)
    }

    fn forward(&self, batch: Vec<&[u32]>) -> Result<Vec<Vec<f32>>> {
        let len = batch.iter().map(|b| b.len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(batch.len() * len);
        let mut mask = Vec::with_capacity(batch.len() * len);
        for row in &batch {
            ids.extend_from_slice(row);
            ids.extend(std::iter::repeat_n(self.pad, len - row.len()));
            mask.extend(std::iter::repeat_n(1u32, row.len()));
            mask.extend(std::iter::repeat_n(0u32, len - row.len()));
        }
        let device = Device::Cpu;
        let ids = Tensor::from_vec(ids, (batch.len(), len), &device)?;
        let mask = Tensor::from_vec(mask, (batch.len(), len), &device)?;
        let types = ids.zeros_like()?;
        let hidden = self.bert.forward(&ids, &types, Some(&mask))?;
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
        let counts = mask.sum(1)?;
        let mean: Vec<Vec<f32>> = summed.broadcast_div(&counts)?.to_vec2()?;
        Ok(mean
            .into_iter()
            .map(|mut v| {
                normalize(&mut v);
                v
            })
            .collect())
    }
}
