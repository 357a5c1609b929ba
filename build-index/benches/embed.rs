//! Document embedding throughput on the rust-reference corpus: the build's embedder cold (empty
//! cache) and warm (every vector cached), against the previous implementation (candle's
//! `BertModel`, `CandleBert`) in the same run, rounds interleaved. Also checks that the two
//! agree: the lowest cosine between their vectors must be at least 0.999.
//!
//! `cargo bench -p build-index --bench embed [-- --fragments N --rounds R]` (defaults 200 and 3;
//! `--fragments all` takes every fragment). Needs `scripts/setup.sh` (the teacher) and the
//! shared corpora beside the checkout.
//!
//! On a shared machine the wall-clock rates depend on the other load, so it also prints the
//! fragments per CPU-second each implementation spent (from /proc/self/stat): twice that is what
//! two otherwise idle cores would give.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use build_index::{
    CandleBert, EmbedOptions, Embedder, MAX_TOKENS, ModelFiles, Options, Teacher, build,
    embedding_texts,
};

fn main() -> Result<()> {
    let mut fragments: Option<usize> = Some(200);
    let mut rounds = 3;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--fragments" => {
                let n = args.next().context("--fragments needs a value")?;
                fragments = if n == "all" { None } else { Some(n.parse()?) };
            }
            "--rounds" => rounds = args.next().context("--rounds needs a value")?.parse()?,
            // cargo bench passes --bench; criterion-style filters are not used here.
            _ => {}
        }
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = crate_dir.join("../../shared/corpora/rust-reference");
    let files = ModelFiles {
        teacher: crate_dir.join("../target/models/all-minilm-l6-v2"),
        model_dir: crate_dir.join("model"),
    };
    let all = embedding_texts(&build(&corpus, &Options::standard())?.index);
    // An even spread over the corpus, so the sample has the corpus's mix of lengths.
    let step = fragments.map_or(1, |n| (all.len() / n.max(1)).max(1));
    let texts: Vec<String> = all
        .iter()
        .step_by(step)
        .take(fragments.unwrap_or(usize::MAX))
        .cloned()
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let threads = EmbedOptions::standard().threads;
    println!(
        "{} of {} rust-reference fragments, {rounds} rounds, {threads} threads",
        texts.len(),
        all.len()
    );

    let old = CandleBert::load(&files.teacher, MAX_TOKENS)?;
    let teacher = Teacher::load(&files.teacher, threads)?;
    let (want, got) = (old.embed(&refs)?, teacher.embed(&refs)?);
    let worst = want
        .iter()
        .zip(&got)
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>())
        .fold(f32::INFINITY, f32::min);
    println!("lowest cosine to the previous implementation: {worst:.6}");
    ensure!(
        worst >= 0.999,
        "the encoder drifted from candle's BertModel: cosine {worst}"
    );
    drop(teacher);

    let cache_root =
        std::env::temp_dir().join(format!("onrecord-embed-bench-{}", std::process::id()));
    let (mut old_rate, mut cold_rate, mut warm_rate, mut ratio) = (vec![], vec![], vec![], vec![]);
    let (mut old_cpu, mut cold_cpu) = (vec![], vec![]);
    for round in 0..rounds {
        let (started, cpu) = (Instant::now(), cpu_secs());
        old.embed(&refs)?;
        let old_secs = started.elapsed().as_secs_f64();
        old_cpu.push(texts.len() as f64 / (cpu_secs() - cpu));

        let cache = cache_root.join(round.to_string());
        let options = EmbedOptions {
            cache_dir: Some(cache.clone()),
            threads,
        };
        let cold = Embedder::load_with(&files, &options)?;
        let (started, cpu) = (Instant::now(), cpu_secs());
        let (_, stats) = cold.embed_fragments(&texts)?;
        let cold_secs = started.elapsed().as_secs_f64();
        cold_cpu.push(texts.len() as f64 / (cpu_secs() - cpu));
        ensure!(
            stats.embedded == distinct(&texts),
            "cold run found cached vectors"
        );
        drop(cold);

        let warm = Embedder::load_with(&files, &options)?;
        let started = Instant::now();
        let (_, stats) = warm.embed_fragments(&texts)?;
        let warm_secs = started.elapsed().as_secs_f64();
        ensure!(
            stats.embedded == 0,
            "warm run embedded {} texts",
            stats.embedded
        );

        let rate = |secs: f64| texts.len() as f64 / secs;
        println!(
            "round {round}: previous {:.1}/s ({:.1} per CPU-second), cold {:.1}/s ({:.1} per CPU-second), warm {:.0}/s",
            rate(old_secs),
            old_cpu[round],
            rate(cold_secs),
            cold_cpu[round],
            rate(warm_secs)
        );
        old_rate.push(rate(old_secs));
        cold_rate.push(rate(cold_secs));
        warm_rate.push(rate(warm_secs));
        ratio.push(old_secs / cold_secs);
        let _ = std::fs::remove_dir_all(&cache);
    }
    let _ = std::fs::remove_dir_all(&cache_root);
    println!(
        "median fragments/s: previous {:.1}, cold {:.1}, warm {:.0}; cold / previous {:.2}× (median of per-round ratios)",
        median(old_rate),
        median(cold_rate),
        median(warm_rate),
        median(ratio)
    );
    println!(
        "median fragments per CPU-second: previous {:.1}, cold {:.1}",
        median(old_cpu),
        median(cold_cpu)
    );
    Ok(())
}

/// User + system CPU seconds of this process so far (Linux; NaN elsewhere).
fn cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces) follow its ')'.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        // utime and stime, in clock ticks of 1/100 s on Linux.
        (Some(user), Some(system)) => (user + system) / 100.0,
        _ => f64::NAN,
    }
}

fn distinct(texts: &[String]) -> usize {
    texts.iter().collect::<std::collections::HashSet<_>>().len()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}
