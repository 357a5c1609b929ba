//! The reader model's file as stored: the types both the writer and the decoder use (int8
//! matrices as written, f32 vectors), its encoding and its checked decoding.

use crate::format::{DecodeError, array};

/// The first bytes of every reader model file.
pub(crate) const MAGIC: [u8; 8] = *b"ONRREADR";
/// Magic, version, data length and the trailing checksum: the least a reader model file has.
pub(crate) const HEADER_LEN: usize = 20;
/// The fixed part before the data: magic, version and data length.
const PREFIX_LEN: usize = 16;
/// BERT's two segments: the question (0) and the passage (1).
pub(crate) const TOKEN_TYPES: usize = 2;
/// The specials every vocabulary holds: padding, unknown pieces and the pair's framing.
pub(crate) const SPECIALS: [&str; 4] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"];

/// The network's shape as the file records it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    pub(crate) layers: usize,
    pub(crate) hidden: usize,
    pub(crate) heads: usize,
    pub(crate) intermediate: usize,
    /// Position-embedding rows stored, and so the longest sequence the model reads.
    pub(crate) positions: usize,
    pub(crate) eps: f32,
}

impl Shape {
    /// Whether the shape is one this code runs. The bounds are far above BERT-tiny's and keep
    /// every size computed from them small enough for a 32-bit `usize`.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        if !(1..=24).contains(&self.layers) {
            return Err("layer count out of range");
        }
        if !(1..=1024).contains(&self.hidden) {
            return Err("hidden size out of range");
        }
        if self.heads == 0 || self.heads > self.hidden || self.hidden % self.heads != 0 {
            return Err("head count does not divide the hidden size");
        }
        if !(1..=4096).contains(&self.intermediate) {
            return Err("intermediate size out of range");
        }
        // [CLS], [SEP] and [SEP] need three positions.
        if !(3..=512).contains(&self.positions) {
            return Err("stored positions out of range");
        }
        if !(self.eps.is_finite() && self.eps > 0.0) {
            return Err("layer-norm epsilon is not a positive number");
        }
        Ok(())
    }
}

/// A matrix of int8 rows, each with its own f32 scale (value = scale × int8).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Int8Rows {
    pub(crate) cols: usize,
    pub(crate) scales: Vec<f32>,
    pub(crate) data: Vec<i8>,
}

impl Int8Rows {
    /// Quantizes `rows` rows of `cols` values with one scale per row (`quantize_row`).
    pub(crate) fn quantize(values: &[f32], cols: usize) -> Int8Rows {
        let mut res = Int8Rows {
            cols,
            scales: Vec::new(),
            data: Vec::with_capacity(values.len()),
        };
        for row in values.chunks_exact(cols.max(1)) {
            let (scale, q) = crate::vector::quantize_row(row, 1);
            res.scales.push(scale);
            res.data.extend(q);
        }
        res
    }

    /// Row `i` as (scale, values), or `None` past the end.
    pub(crate) fn row(&self, i: usize) -> Option<(f32, &[i8])> {
        let start = i.checked_mul(self.cols)?;
        Some((
            *self.scales.get(i)?,
            self.data.get(start..start.checked_add(self.cols)?)?,
        ))
    }

    /// The matrix in f32, row-major.
    pub(crate) fn dequantize(&self) -> Vec<f32> {
        let mut res = Vec::with_capacity(self.data.len());
        for (row, &scale) in self.data.chunks_exact(self.cols.max(1)).zip(&self.scales) {
            res.extend(row.iter().map(|&q| scale * f32::from(q)));
        }
        res
    }
}

/// A LayerNorm's weight and bias.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Norm {
    pub(crate) weight: Vec<f32>,
    pub(crate) bias: Vec<f32>,
}

/// A dense layer as stored: int8 weight rows ([out, in], as torch) and an f32 bias.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredDense {
    pub(crate) weight: Int8Rows,
    pub(crate) bias: Vec<f32>,
}

/// One encoder layer as stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StoredLayer {
    pub(crate) query: StoredDense,
    pub(crate) key: StoredDense,
    pub(crate) value: StoredDense,
    pub(crate) attention_out: StoredDense,
    pub(crate) attention_norm: Norm,
    pub(crate) ff_in: StoredDense,
    pub(crate) ff_out: StoredDense,
    pub(crate) ff_norm: Norm,
}

/// Everything a reader model file holds, in file order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReaderFile {
    pub(crate) shape: Shape,
    pub(crate) vocab: Vec<String>,
    pub(crate) word: Int8Rows,
    pub(crate) position: Int8Rows,
    pub(crate) token_type: Int8Rows,
    pub(crate) embedding_norm: Norm,
    pub(crate) layers: Vec<StoredLayer>,
    pub(crate) head_weight: Vec<f32>,
    pub(crate) head_bias: f32,
}

impl ReaderFile {
    /// The file's bytes. The caller has checked what decoding checks (the writer validates its
    /// weights; a decoded file was checked), so every length here is the shape's.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let s = &self.shape;
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&super::READER_VERSION.to_le_bytes());
        // The data length is filled in once the data is written.
        out.extend_from_slice(&0u32.to_le_bytes());
        for n in [s.layers, s.hidden, s.heads, s.intermediate, s.positions] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out.extend_from_slice(&s.eps.to_le_bytes());
        out.extend_from_slice(&(self.vocab.len() as u32).to_le_bytes());
        for token in &self.vocab {
            let bytes = token.as_bytes();
            out.push(bytes.len() as u8);
            out.extend_from_slice(bytes);
        }
        put_rows(&mut out, &self.word);
        put_rows(&mut out, &self.position);
        put_rows(&mut out, &self.token_type);
        put_norm(&mut out, &self.embedding_norm);
        for layer in &self.layers {
            for dense in [&layer.query, &layer.key, &layer.value, &layer.attention_out] {
                put_dense(&mut out, dense);
            }
            put_norm(&mut out, &layer.attention_norm);
            put_dense(&mut out, &layer.ff_in);
            put_dense(&mut out, &layer.ff_out);
            put_norm(&mut out, &layer.ff_norm);
        }
        put_f32s(&mut out, &self.head_weight);
        put_f32s(&mut out, &[self.head_bias]);
        let data_len = (out.len() - PREFIX_LEN) as u32;
        out[12..PREFIX_LEN].copy_from_slice(&data_len.to_le_bytes());
        let crc = crate::crc::crc32(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads a file, checking magic, version, length and checksum before anything else and
    /// every count against the bytes left before allocating for it. Returns the file and its
    /// checksum.
    pub(crate) fn decode(bytes: &[u8]) -> Result<(ReaderFile, u32), DecodeError> {
        if bytes.len() < HEADER_LEN {
            return Err(DecodeError::TooShort { len: bytes.len() });
        }
        if bytes[..8] != MAGIC {
            return Err(DecodeError::BadMagic);
        }
        let version = u32::from_le_bytes(array(&bytes[8..12]));
        if version != super::READER_VERSION {
            return Err(DecodeError::UnsupportedVersion {
                found: version,
                supported: super::READER_VERSION,
            });
        }
        let declared = u64::from(u32::from_le_bytes(array(&bytes[12..PREFIX_LEN])));
        let present = (bytes.len() - HEADER_LEN) as u64;
        if present < declared {
            return Err(DecodeError::Truncated {
                expected: declared,
                found: present,
            });
        }
        if present > declared {
            return Err(DecodeError::TrailingBytes {
                extra: present - declared,
            });
        }
        let body_len = bytes.len() - 4;
        let expected = u32::from_le_bytes(array(&bytes[body_len..]));
        let found = crate::crc::crc32(&bytes[..body_len]);
        if expected != found {
            return Err(DecodeError::ChecksumMismatch { expected, found });
        }
        let mut r = Cursor {
            bytes: &bytes[..body_len],
            pos: PREFIX_LEN,
        };
        let file = r.file()?;
        if r.pos != body_len {
            return Err(DecodeError::TrailingBytes {
                extra: (body_len - r.pos) as u64,
            });
        }
        Ok((file, expected))
    }
}

fn put_f32s(out: &mut Vec<u8>, values: &[f32]) {
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// All scales first, then all values: the int8 bytes stay together, which compresses better.
fn put_rows(out: &mut Vec<u8>, rows: &Int8Rows) {
    put_f32s(out, &rows.scales);
    out.extend(rows.data.iter().map(|&v| v as u8));
}

fn put_dense(out: &mut Vec<u8>, dense: &StoredDense) {
    put_rows(out, &dense.weight);
    put_f32s(out, &dense.bias);
}

fn put_norm(out: &mut Vec<u8>, norm: &Norm) {
    put_f32s(out, &norm.weight);
    put_f32s(out, &norm.bias);
}

/// Reads the data part (after the prefix, before the checksum); `take` never reads past it.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            // Counted without the prefix, as the header's data length is.
            return Err(DecodeError::Truncated {
                expected: (self.pos - PREFIX_LEN).saturating_add(n) as u64,
                found: (self.bytes.len() - PREFIX_LEN) as u64,
            });
        };
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(array(self.take(4)?)))
    }

    fn usize(&mut self) -> Result<usize, DecodeError> {
        usize::try_from(self.u32()?).map_err(|_| DecodeError::Invalid("a count overflows"))
    }

    /// `n` finite f32 values.
    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, DecodeError> {
        let len = n
            .checked_mul(4)
            .ok_or(DecodeError::Invalid("a count overflows"))?;
        let values: Vec<f32> = self
            .take(len)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(array(b)))
            .collect();
        if values.iter().any(|v| !v.is_finite()) {
            return Err(DecodeError::Invalid("a weight is not a finite number"));
        }
        Ok(values)
    }

    fn rows(&mut self, rows: usize, cols: usize) -> Result<Int8Rows, DecodeError> {
        let scales = self.f32s(rows)?;
        let len = rows
            .checked_mul(cols)
            .ok_or(DecodeError::Invalid("a count overflows"))?;
        let data = self.take(len)?.iter().map(|&b| b as i8).collect();
        Ok(Int8Rows { cols, scales, data })
    }

    fn dense(&mut self, n_out: usize, n_in: usize) -> Result<StoredDense, DecodeError> {
        Ok(StoredDense {
            weight: self.rows(n_out, n_in)?,
            bias: self.f32s(n_out)?,
        })
    }

    fn norm(&mut self, n: usize) -> Result<Norm, DecodeError> {
        Ok(Norm {
            weight: self.f32s(n)?,
            bias: self.f32s(n)?,
        })
    }

    fn file(&mut self) -> Result<ReaderFile, DecodeError> {
        let shape = Shape {
            layers: self.usize()?,
            hidden: self.usize()?,
            heads: self.usize()?,
            intermediate: self.usize()?,
            positions: self.usize()?,
            eps: f32::from_le_bytes(array(self.take(4)?)),
        };
        shape.check().map_err(DecodeError::Invalid)?;
        let vocab_len = self.usize()?;
        // Each entry takes at least its length byte: the vector is no larger than the input.
        if vocab_len > self.bytes.len() - self.pos {
            return Err(DecodeError::Invalid(
                "vocabulary count exceeds the file size",
            ));
        }
        let mut vocab = Vec::with_capacity(vocab_len);
        for _ in 0..vocab_len {
            let len = usize::from(self.take(1)?[0]);
            let token = std::str::from_utf8(self.take(len)?)
                .map_err(|_| DecodeError::Invalid("vocabulary is not UTF-8"))?;
            vocab.push(token.to_owned());
        }
        if SPECIALS.iter().any(|s| !vocab.iter().any(|t| t == s)) {
            return Err(DecodeError::Invalid(
                "vocabulary lacks one of [PAD] [UNK] [CLS] [SEP]",
            ));
        }
        let (h, i) = (shape.hidden, shape.intermediate);
        let word = self.rows(vocab_len, h)?;
        let position = self.rows(shape.positions, h)?;
        let token_type = self.rows(TOKEN_TYPES, h)?;
        let embedding_norm = self.norm(h)?;
        let mut layers = Vec::with_capacity(shape.layers);
        for _ in 0..shape.layers {
            layers.push(StoredLayer {
                query: self.dense(h, h)?,
                key: self.dense(h, h)?,
                value: self.dense(h, h)?,
                attention_out: self.dense(h, h)?,
                attention_norm: self.norm(h)?,
                ff_in: self.dense(i, h)?,
                ff_out: self.dense(h, i)?,
                ff_norm: self.norm(h)?,
            });
        }
        let head_weight = self.f32s(h)?;
        let head_bias = self.f32s(1)?.first().copied().unwrap_or(0.0);
        Ok(ReaderFile {
            shape,
            vocab,
            word,
            position,
            token_type,
            embedding_norm,
            layers,
            head_weight,
            head_bias,
        })
    }
}
