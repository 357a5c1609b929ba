//! `eval --cross REGISTRY --adapt-sweep`: chooses the site adaptation's knobs the way the
//! cross-corpus protocol chooses every knob. Each corpus is built once; every grid point (and
//! "no adaptation") adapts its query model and scores retrieval on the corpus's **dev** half
//! (MRR, recall@5 breaking ties, the shipped pipeline); each left-out corpus then gets the grid
//! point with the best mean over the **other** corpora's dev halves.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use build_index::{Adapt, Embedder, Options, adapt, build_with, embedding_texts};
use onrecord_core::{QueryModel, SHIPPED, retrieve_with};

use crate::cross::{Entry, choose, in_fit};
use crate::metrics::{self, DEPTH};
use crate::questions::{self, Split, select};

/// The grid: epochs × learning rate × pull × which pseudo-queries, in a fixed order.
fn grid() -> Vec<Option<Adapt>> {
    let mut res = vec![None];
    for site_negatives in [false, true] {
        for first_sentences in [true, false] {
            for epochs in [4, 16] {
                for lr in [0.003, 0.01, 0.03] {
                    for pull in [0.1, 1.0] {
                        if site_negatives && epochs > 4 {
                            continue;
                        }
                        res.push(Some(Adapt {
                            epochs,
                            lr,
                            pull,
                            first_sentences,
                            site_negatives,
                            ..Adapt::STANDARD
                        }));
                    }
                }
            }
        }
    }
    res
}

fn name(knobs: &Option<Adapt>) -> String {
    match knobs {
        None => "no adaptation".to_owned(),
        Some(a) => format!(
            "{} epochs, lr {}, pull {}, {}, {} negatives",
            a.epochs,
            a.lr,
            a.pull,
            if a.first_sentences {
                "headings + first sentences"
            } else {
                "headings"
            },
            if a.site_negatives { "site" } else { "in-batch" }
        ),
    }
}

/// Runs the sweep and returns its markdown report.
pub fn run(entries: Vec<Entry>, options: &Options, embedder: Option<&Embedder>) -> Result<String> {
    let Some(embedder) = embedder else {
        bail!("--adapt-sweep needs vectors");
    };
    let grid = grid();
    // scores[corpus][grid point] = (dev MRR, dev recall@5); also recall@1 for the table.
    let mut scores = Vec::new();
    let mut r1 = Vec::new();
    let mut secs = Vec::new();
    for entry in &entries {
        let options = &entry.options(options);
        let mut qs = questions::load(&entry.questions)?;
        if build_index::corpus_input(&entry.corpus, options)? == build_index::Input::Html {
            questions::on_built_site(&mut qs);
        }
        let plain = Options {
            adapt: None,
            ..options.clone()
        };
        let built = build_with(&entry.corpus, &plain, Some(embedder))
            .with_context(|| format!("cannot build the {} corpus", entry.name))?;
        let (targets, _) = embedder.embed_fragments(&embedding_texts(&built.index))?;
        let dev = select(&qs, Split::Dev);
        let mut row = Vec::new();
        let mut row_r1 = Vec::new();
        let mut row_secs = Vec::new();
        for knobs in &grid {
            let mut index = built.index.clone();
            let bytes = match knobs {
                None => embedder.query_model_bytes.clone(),
                Some(k) => {
                    let (bytes, stats) = adapt(&embedder.query_model_bytes, &index, &targets, k)?;
                    row_secs.push(stats.secs * 1000.0 / index.fragments.len().max(1) as f64);
                    bytes
                }
            };
            let model = QueryModel::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("{e}"))?;
            if let Some(v) = index.vectors.as_mut() {
                v.model_checksum = model.checksum();
            }
            let r = metrics::retrieval(&index, &dev, &|q| {
                retrieve_with(&index, Some(&model), q, DEPTH, SHIPPED)
                    .iter()
                    .map(|h| h.fragment)
                    .collect()
            });
            row.push((r.mrr, r.recall_5));
            row_r1.push(r.recall_1);
        }
        eprintln!("sweep: {} done", entry.name);
        scores.push(row);
        r1.push(row_r1);
        secs.push(row_secs);
    }

    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Site adaptation: knobs by dev halves (leave one corpus out)\n"
    );
    let _ = write!(
        md,
        "Dev-half MRR / recall@1 of the shipped pipeline per grid point.\n\n| grid point |"
    );
    for e in &entries {
        let _ = write!(md, " {} |", e.name);
    }
    let _ = write!(md, " s per 1k fragments (max) |\n|---|");
    for _ in &entries {
        let _ = write!(md, "---:|");
    }
    md.push_str("---:|\n");
    for (k, knobs) in grid.iter().enumerate() {
        let _ = write!(md, "| {} |", name(knobs));
        for c in 0..entries.len() {
            let _ = write!(md, " {:.3} / {:.3} |", scores[c][k].0, r1[c][k]);
        }
        let cost = match k {
            0 => 0.0,
            _ => secs.iter().map(|s| s[k - 1]).fold(0.0, f64::max),
        };
        let _ = writeln!(md, " {cost:.2} |");
    }
    let _ = writeln!(
        md,
        "\nChosen for each left-out corpus (best mean dev MRR of the others):\n"
    );
    let all = in_fit(&entries);
    for (left, e) in entries.iter().enumerate() {
        let train: Vec<usize> = all.iter().copied().filter(|&c| c != left).collect();
        let k = choose(&scores, &train);
        let _ = writeln!(md, "- {}: {}", e.name, name(&grid[k]));
    }
    let k = choose(&scores, &all);
    let _ = writeln!(md, "- all corpora in the fit: {}", name(&grid[k]));
    Ok(md)
}
