//! Document embedding throughput on the rust-reference corpus, rounds interleaved in one run:
//! - the previous implementation (candle's `BertModel`, `CandleBert`), the peer;
//! - the build's embedder with all-MiniLM-L6-v2, cold (empty cache) and warm (all cached);
//! - multilingual-e5-small, cold, when `scripts/setup-e5.sh` has fetched it.
//!
//! It first checks that the previous and the new MiniLM agree (lowest cosine ≥ 0.999).
//!
//! `cargo bench -p build-index --bench embed [-- --fragments N --rounds R --no-previous]`
//! (defaults 200 and 3; `--fragments all` takes every fragment; `--no-previous` skips the slow
//! peer). Needs `scripts/setup.sh` (the teacher) and the shared corpora beside the checkout.
//!
//! On a shared machine the wall-clock rates depend on the other load, so it also prints the
//! fragments per CPU-second each one spent (from /proc/self/stat): twice that is what two
//! otherwise idle cores would give.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use build_index::{
    CandleBert, E5_FILE, EmbedOptions, Embedder, MAX_TOKENS, ModelFiles, Options, Teacher, build,
    embedding_texts,
};

fn main() -> Result<()> {
    let mut fragments: Option<usize> = Some(200);
    let mut rounds = 3;
    let mut previous = true;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--fragments" => {
                let n = args.next().context("--fragments needs a value")?;
                fragments = if n == "all" { None } else { Some(n.parse()?) };
            }
            "--rounds" => rounds = args.next().context("--rounds needs a value")?.parse()?,
            "--no-previous" => previous = false,
            // cargo bench passes --bench.
            _ => {}
        }
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = crate_dir.join("../../shared/corpora/rust-reference");
    let files = ModelFiles {
        teacher: crate_dir.join("../target/models/all-minilm-l6-v2"),
        model_dir: crate_dir.join("model"),
    };
    let e5 = crate_dir.join("../target/models/multilingual-e5-small");
    let e5 = e5.join(E5_FILE).is_file().then_some(e5);
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
        "{} of {} rust-reference fragments, {rounds} rounds, {threads} threads{}",
        texts.len(),
        all.len(),
        if e5.is_some() {
            ""
        } else {
            " (no multilingual-e5-small: run scripts/setup-e5.sh)"
        }
    );

    let old = CandleBert::load(&files.teacher, MAX_TOKENS)?;
    {
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
    }

    let cache_root =
        std::env::temp_dir().join(format!("onrecord-embed-bench-{}", std::process::id()));
    let options = |round: usize, name: &str| EmbedOptions {
        cache_dir: Some(cache_root.join(format!("{name}-{round}"))),
        threads,
    };
    // Per implementation: (fragments per second, fragments per CPU-second) of each round.
    let mut results: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for round in 0..rounds {
        let mut line = format!("round {round}:");
        let mut time = |name: &'static str, run: &mut dyn FnMut() -> Result<()>| -> Result<()> {
            let (started, cpu) = (Instant::now(), cpu_secs());
            run()?;
            let per_sec = texts.len() as f64 / started.elapsed().as_secs_f64();
            // Under a tick (10 ms) of CPU time there is nothing to divide by.
            let cpu = cpu_secs() - cpu;
            let per_cpu_sec = if cpu >= 0.05 {
                texts.len() as f64 / cpu
            } else {
                f64::NAN
            };
            line += &format!(
                " {name} {per_sec:.1}/s ({} per CPU-s);",
                number(per_cpu_sec)
            );
            results
                .entry(name)
                .or_default()
                .push((per_sec, per_cpu_sec));
            Ok(())
        };
        if previous {
            time("previous MiniLM", &mut || old.embed(&refs).map(drop))?;
        }
        let cold = Embedder::load_with(&files, &options(round, "minilm"))?;
        time("MiniLM cold", &mut || {
            let (_, stats) = cold.embed_fragments(&texts)?;
            ensure!(stats.cache_hits == 0, "the cold run found cached vectors");
            Ok(())
        })?;
        // A new embedder: nothing in memory, every vector on disk.
        let warm = Embedder::load_with(&files, &options(round, "minilm"))?;
        time("MiniLM warm", &mut || {
            let (_, stats) = warm.embed_fragments(&texts)?;
            ensure!(
                stats.embedded == 0,
                "the warm run embedded {}",
                stats.embedded
            );
            Ok(())
        })?;
        if let Some(dir) = &e5 {
            let e5 = Embedder::full_teacher(dir, &options(round, "e5"))?;
            time("e5 cold", &mut || e5.embed_fragments(&texts).map(drop))?;
        }
        println!("{line}");
    }
    let _ = std::fs::remove_dir_all(&cache_root);
    println!("medians over {rounds} rounds:");
    let median_of = |name: &str, pick: fn(&(f64, f64)) -> f64| {
        results
            .get(name)
            .map_or(f64::NAN, |r| median(r.iter().map(pick).collect()))
    };
    for name in results.keys() {
        println!(
            "  {name:<16} {:>9.1} fragments/s {:>7} per CPU-second",
            median_of(name, |r| r.0),
            number(median_of(name, |r| r.1))
        );
    }
    // Ratios round by round, so a drift in the machine's load cancels out.
    let ratio = |a: &str, b: &str| {
        let (Some(a), Some(b)) = (results.get(a), results.get(b)) else {
            return f64::NAN;
        };
        median(a.iter().zip(b).map(|(x, y)| x.0 / y.0).collect())
    };
    println!(
        "  MiniLM cold / previous {:.2}×, e5 cold / MiniLM cold {:.2}× (medians of per-round ratios)",
        ratio("MiniLM cold", "previous MiniLM"),
        ratio("e5 cold", "MiniLM cold")
    );
    Ok(())
}

/// One decimal, or "–" for a rate that could not be measured.
fn number(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1}")
    } else {
        "–".to_owned()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
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
