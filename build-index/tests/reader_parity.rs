//! The reader model (`onrecord_core::ReaderModel`) against candle's `BertModel` on real
//! weights: the unquantized forward pass must give candle's `[CLS]` hidden state, and the
//! int8 file's scores must stay near the f32 ones. It also times `score` for eight passages of
//! about 50 tokens, and checks that pruning to the passages' tokens changes no score.
//!
//! It needs a BERT checkpoint, so it runs only when asked:
//! `ONRECORD_READER_PARITY=/path/to/model.safetensors cargo test -p build-index --features
//! experiments --test reader_parity -- --nocapture`, with `config.json` and `vocab.txt` (or
//! `tokenizer.json`) beside the weights. A checkpoint without `head.*` (a pretrained one) gets
//! a seeded head. Time it with the core optimized: add
//! `--config 'profile.dev.package.onrecord-core.opt-level=3'`.

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use build_index::{PackOptions, SplitMix, pack_reader_with, read_vocab, reader_weights};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use onrecord_core::{ReaderModel, prune_reader_model};
use safetensors::SafeTensors;
use safetensors::tensor::TensorView;

const PAIRS: [(&str, &str); 6] = [
    (
        "How do I return a bike?",
        "Bikes can be returned within 30 days of purchase. Bring the receipt to any store.",
    ),
    (
        "what is the refund window",
        "Refunds arrive within 14 days. We pay return postage for faulty items.",
    ),
    ("Does the café open on Sundays?", ""),
    (
        "",
        "An empty question is still a pair: [CLS] [SEP] passage [SEP].",
    ),
    (
        "a question long enough to be cut at thirty two word pieces because it goes on and on \
         about returns, refunds, receipts, postage, stores, bikes, helmets and everything else",
        "short passage",
    ),
    (
        "Which port does the proxy listen on?",
        "The proxy listens on port 8787 by default. Set ONRECORD_PORT to change it; the widget \
         reads the address from data-proxy. Requests carry the index version, the corpus hash, \
         the question and fragment ids, never passage text. Upstream keys stay on the server and \
         never appear in a response, a header, a log line or a streamed draft. Each connection \
         has header, body and write timeouts, and the number of connections is capped.",
    ),
];

/// About 50 tokens each, as a question's retrieved passages are.
const PASSAGES: [&str; 8] = [
    "Returns are free within thirty days of delivery. Pack the item in its original box, print the label from your order page and drop it at any post office; the refund reaches your card within fourteen days of our receiving it.",
    "The proxy listens on port 8787 by default. Set the ONRECORD_PORT variable to change it, and point the widget at the new address with the data-proxy attribute on the script tag that loads it.",
    "Shards are fetched on demand: the manifest names each shard by its checksum, so a browser can cache them forever and a rebuild only changes the shards whose content changed since the last deploy.",
    "A decline never cites anything. When the engine cannot find a sentence that answers the question, it says why: the pages never use the subject, the question is outside the site, or the evidence is too weak.",
    "Private notes are never indexed. A note contributes only a routing hint, and no byte of its body, its file name or its non-public frontmatter reaches any file the build writes, which a test checks with a canary.",
    "The query model embeds only the question, by summing static rows of its word pieces; documents are embedded at build time by the full transformer and projected into the same space, so search costs one lookup.",
    "Each fragment is cut from a page by heading, and every quote is a byte-exact slice of a stored fragment, taken from stored offsets; a quote claimed by a model is shown only if it is found as whole words.",
    "Follow-up questions are read in the light of the previous turn: a pronoun is resolved to the earlier subject, and a new subject keeps nothing of what came before, so the thread never drifts into old answers.",
];

#[test]
fn the_reader_matches_candle_bert_and_int8_stays_near_f32() {
    let Some(path) = std::env::var_os("ONRECORD_READER_PARITY") else {
        eprintln!(
            "reader_parity skipped: set ONRECORD_READER_PARITY=/path/to/model.safetensors \
             (config.json and vocab.txt or tokenizer.json beside it)"
        );
        return;
    };
    let path = PathBuf::from(path);
    let dir = path.parent().expect("the weights are in a folder");
    let bytes = fs::read(&path).expect("the weights are readable");
    let vocab_path = ["vocab.txt", "tokenizer.json"]
        .map(|name| dir.join(name))
        .into_iter()
        .find(|p| p.is_file())
        .expect("vocab.txt or tokenizer.json beside the weights");
    let vocab = read_vocab(&fs::read(vocab_path).unwrap()).unwrap();
    let config: Config =
        serde_json::from_slice(&fs::read(dir.join("config.json")).expect("config.json")).unwrap();
    let options = PackOptions {
        heads: config.num_attention_heads,
        layer_norm_eps: config.layer_norm_eps as f32,
    };
    let with_head = with_seeded_head(&bytes, config.hidden_size);

    let packed = pack_reader_with(&with_head, &vocab, options).unwrap();
    let int8 = ReaderModel::from_bytes(&packed).unwrap();
    let weights = reader_weights(&with_head, &vocab, options).unwrap();
    let f32_model = ReaderModel::unquantized(&weights).unwrap();
    let head = &weights.tensors["head.weight"].data;
    let bias = weights.tensors["head.bias"].data[0];
    println!(
        "packed {} into {} bytes ({} vocabulary entries, hidden {}, {} layers)",
        path.display(),
        packed.len(),
        int8.vocab_len(),
        weights.config.hidden,
        weights.config.layers
    );

    let vb = VarBuilder::from_buffered_safetensors(bytes, DType::F32, &Device::Cpu).unwrap();
    let bert = BertModel::load(vb, &config).unwrap();
    let (mut worst_f32, mut worst_int8_hidden, mut worst_drift) = (0f32, 0f32, 0f32);
    let mut scores = Vec::new();
    for (q, p) in PAIRS {
        let (ids, first_len) = f32_model.pair_ids(q, p);
        assert_eq!(int8.pair_ids(q, p), (ids.clone(), first_len));
        let want = candle_cls(&bert, &ids, first_len);
        let ours = f32_model.cls_hidden(q, p);
        let ours_int8 = int8.cls_hidden(q, p);
        let diff = max_abs_diff(&want, &ours);
        let int8_diff = max_abs_diff(&want, &ours_int8);
        let candle_score = head.iter().zip(&want).map(|(w, x)| w * x).sum::<f32>() + bias;
        let (s32, s8) = (f32_model.score(q, &[p])[0], int8.score(q, &[p])[0]);
        println!(
            "{:>3} tokens: f32 hidden vs candle {diff:.2e}, int8 hidden vs candle {int8_diff:.2e}; \
             score candle {candle_score:+.5} f32 {s32:+.5} int8 {s8:+.5} (drift {:+.5})",
            ids.len(),
            s8 - s32
        );
        assert!(
            (candle_score - s32).abs() < 1e-4,
            "score {s32} vs {candle_score}"
        );
        worst_f32 = worst_f32.max(diff);
        worst_int8_hidden = worst_int8_hidden.max(int8_diff);
        worst_drift = worst_drift.max((s8 - s32).abs());
        scores.push(s32);
    }
    let spread = scores.iter().fold(f32::MIN, |m, &s| m.max(s))
        - scores.iter().fold(f32::MAX, |m, &s| m.min(s));
    println!(
        "max |f32 - candle| of the [CLS] state {worst_f32:.2e}; int8 {worst_int8_hidden:.2e}; \
         max |int8 - f32| score drift {worst_drift:.5} (the scores' spread: {spread:.5})"
    );
    assert!(
        worst_f32 <= 1e-4,
        "f32 forward differs from candle by {worst_f32}"
    );

    // The eight passages scored together, as a question's retrieved passages are.
    let question = "How long does a refund take after I return something?";
    let tokens: Vec<usize> = PASSAGES
        .iter()
        .map(|p| int8.pair_ids(question, p).0.len())
        .collect();
    let s32 = f32_model.score(question, &PASSAGES);
    let s8 = int8.score(question, &PASSAGES);
    let drift = s32
        .iter()
        .zip(&s8)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    println!("8 passages, {tokens:?} tokens a pair: int8 score drift up to {drift:.5}");
    println!("  f32  {s32:.4?}\n  int8 {s8:.4?}");
    let rank = |s: &[f32]| {
        let mut order: Vec<usize> = (0..s.len()).collect();
        order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
        order
    };
    println!("  ranking f32 {:?}, int8 {:?}", rank(&s32), rank(&s8));

    let mut times = Vec::new();
    for _ in 0..15 {
        let started = Instant::now();
        std::hint::black_box(int8.score(question, &PASSAGES));
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "score(8 passages): median {:.2} ms, fastest {:.2} ms over 15 runs{}",
        times[times.len() / 2],
        times[0],
        if cfg!(debug_assertions) {
            " (a test build: unless onrecord-core was optimized, as the module doc says, this is \
             not its speed)"
        } else {
            ""
        }
    );

    // Pruned to the words of these texts, the model scores them exactly as before.
    let words = int8.wordpiece();
    let mut kept = std::collections::BTreeSet::new();
    for text in PASSAGES.iter().chain([&question]) {
        kept.extend(words.tokenize(text));
    }
    let full_vocab = &vocab;
    let pruned = prune_reader_model(&packed, |t| {
        words.id(t).is_some_and(|id| kept.contains(&id))
    })
    .unwrap();
    let pruned = ReaderModel::from_bytes(&pruned).unwrap();
    println!(
        "pruned to {} of {} vocabulary entries",
        pruned.vocab_len(),
        full_vocab.len()
    );
    assert_eq!(pruned.score(question, &PASSAGES), s8);
}

/// The weights with a seeded `head.weight` and `head.bias` added when they have none.
fn with_seeded_head(bytes: &[u8], hidden: usize) -> Vec<u8> {
    let file = SafeTensors::deserialize(bytes).unwrap();
    if file.names().iter().any(|n| n.starts_with("head.")) {
        return bytes.to_vec();
    }
    let mut rng = SplitMix(20240607);
    let unit = |rng: &mut SplitMix| rng.below(2001) as f32 / 1000.0 - 1.0;
    let head: Vec<u8> = (0..hidden)
        .flat_map(|_| (unit(&mut rng) / (hidden as f32).sqrt()).to_le_bytes())
        .collect();
    let bias = 0.1f32.to_le_bytes();
    let mut views: Vec<(String, TensorView<'_>)> = file.tensors();
    views.push((
        "head.weight".into(),
        TensorView::new(safetensors::Dtype::F32, vec![1, hidden], &head).unwrap(),
    ));
    views.push((
        "head.bias".into(),
        TensorView::new(safetensors::Dtype::F32, vec![1], &bias).unwrap(),
    ));
    safetensors::serialize(views, None).unwrap()
}

/// candle's last hidden state at position 0 for one unpadded sequence.
fn candle_cls(bert: &BertModel, ids: &[u32], first_len: usize) -> Vec<f32> {
    let types: Vec<u32> = (0..ids.len()).map(|t| u32::from(t >= first_len)).collect();
    let ids = Tensor::from_vec(ids.to_vec(), (1, types.len()), &Device::Cpu).unwrap();
    let types = Tensor::from_vec(types.clone(), (1, types.len()), &Device::Cpu).unwrap();
    let hidden = bert.forward(&ids, &types, None).unwrap();
    hidden.get(0).unwrap().get(0).unwrap().to_vec1().unwrap()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0f32, f32::max)
}
