//! Site adaptation of the query model (issue 10 §2): deterministic, bounded, a valid model file
//! the vectors name, and the site's headings end up nearer their own fragments.
//!
//! Needs the teacher that `scripts/setup.sh` fetches into `target/models/`.

use std::path::Path;
use std::sync::OnceLock;

use build_index::{
    Adapt, Build, EmbedOptions, Embedder, ModelFiles, Options, build_with, pseudo_queries,
};
use onrecord_core::{Index, QueryModel};

fn embedder() -> Embedder {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let teacher = crate_dir.join("../target/models/all-minilm-l6-v2");
    assert!(
        teacher.join("model.safetensors").is_file(),
        "{} is missing: run scripts/setup.sh",
        teacher.display()
    );
    let files = ModelFiles {
        teacher,
        model_dir: crate_dir.join("model"),
    };
    let options = EmbedOptions {
        cache_dir: None,
        threads: 2,
    };
    Embedder::load_with(&files, &options).unwrap()
}

fn demo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus"))
}

fn build_demo(embedder: &Embedder, adapt: Option<Adapt>) -> Build {
    let options = Options {
        adapt,
        ..Options::standard()
    };
    build_with(demo(), &options, Some(embedder)).unwrap()
}

/// The demo corpus built once without and twice with adaptation (embedding is the slow part).
struct Demo {
    embedder: Embedder,
    plain: Build,
    adapted: Build,
    again: Build,
}

fn demo_builds() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let embedder = embedder();
        Demo {
            plain: build_demo(&embedder, None),
            adapted: build_demo(&embedder, Some(Adapt::STANDARD)),
            again: build_demo(&embedder, Some(Adapt::STANDARD)),
            embedder,
        }
    })
}

fn model(built: &Build) -> QueryModel {
    QueryModel::from_bytes(built.query_model.as_deref().unwrap()).unwrap()
}

/// Cosine of `text`'s query vector and fragment `frag`'s stored vector.
fn cosine(index: &Index, model: &QueryModel, text: &str, frag: u32) -> f32 {
    let vectors = index.vectors.as_ref().unwrap();
    let dims = vectors.dims as usize;
    let Some(q) = model.embed(text) else {
        return 0.0;
    };
    let row = &vectors.data[frag as usize * dims..(frag as usize + 1) * dims];
    let dot: f32 = row.iter().zip(&q).map(|(&v, x)| f32::from(v) * x).sum();
    dot * vectors.scales[frag as usize]
}

#[test]
fn adaptation_is_deterministic_valid_and_bounded() {
    let Demo {
        embedder,
        plain,
        adapted: a,
        again: b,
    } = demo_builds();
    let (bytes_a, bytes_b) = (
        a.query_model.as_ref().unwrap(),
        b.query_model.as_ref().unwrap(),
    );
    assert_eq!(
        bytes_a, bytes_b,
        "same site, same knobs: the same model bytes"
    );
    assert_eq!(a.bytes, b.bytes, "and the same index bytes");

    // A valid model file (it decodes: magic, version, checksum), a new one, named by the
    // vectors, the same size and dimensions as the model it came from.
    let (base, adapted) = (model(plain), model(a));
    assert_ne!(bytes_a, &embedder.query_model_bytes);
    assert_eq!(
        plain.query_model.as_ref(),
        Some(&embedder.query_model_bytes)
    );
    assert_ne!(adapted.checksum(), base.checksum());
    let vectors = a.index.vectors.as_ref().unwrap();
    assert_eq!(vectors.model_checksum, adapted.checksum());
    assert!(onrecord_core::model_fits(&a.index, &adapted));
    assert!(!onrecord_core::model_fits(&a.index, &base));
    assert_eq!(bytes_a.len(), embedder.query_model_bytes.len());
    assert_eq!(adapted.dims(), base.dims());
    assert_eq!(adapted.rows().count(), base.rows().count());
    // Requantised on the shipped grid (multiples of 32, or ±127), which keeps the gzip size.
    assert!(
        adapted
            .rows()
            .flat_map(|(_, _, v)| v)
            .all(|&v| v.unsigned_abs() == 127 || v % 32 == 0)
    );
    // Only rows of the site's tokens change; the document vectors are the same.
    let changed = adapted
        .rows()
        .zip(base.rows())
        .filter(|(x, y)| x != y)
        .count();
    let stats = a.report.adaptation.as_ref().unwrap();
    assert!(changed > 0 && changed <= stats.rows_changed, "{changed}");
    assert!(stats.rows_changed < base.rows().count() / 2);
    assert_eq!(
        (&vectors.scales, &vectors.data),
        (
            &plain.index.vectors.as_ref().unwrap().scales,
            &plain.index.vectors.as_ref().unwrap().data
        )
    );
    // A generous guard (the demo corpus adapts in well under a second).
    assert!(stats.secs < 60.0, "{} s", stats.secs);
    assert!(a.report.to_string().contains("adapted to the site"));
}

#[test]
fn headings_move_closer_to_their_own_fragments() {
    let Demo { plain, adapted, .. } = demo_builds();
    let (before, after) = (model(plain), model(adapted));
    let headings = pseudo_queries(&plain.index, false);
    assert!(headings.len() > 20, "{}", headings.len());
    let mean = |model: &QueryModel, built: &Build| {
        headings
            .iter()
            .map(|(text, frag)| cosine(&built.index, model, text, *frag))
            .sum::<f32>()
            / headings.len() as f32
    };
    let (cos_before, cos_after) = (mean(&before, plain), mean(&after, adapted));
    assert!(
        cos_after > cos_before + 0.02,
        "mean heading-to-own-fragment cosine {cos_before:.3} -> {cos_after:.3}"
    );
    // More headings find their own fragment first among all the site's fragments.
    let firsts = |model: &QueryModel, built: &Build| {
        headings
            .iter()
            .filter(|(text, frag)| {
                let own = cosine(&built.index, model, text, *frag);
                (0..built.index.fragments.len() as u32)
                    .all(|f| f == *frag || cosine(&built.index, model, text, f) < own)
            })
            .count()
    };
    let (first_before, first_after) = (firsts(&before, plain), firsts(&after, adapted));
    assert!(
        first_after > first_before,
        "headings ranking their own fragment first: {first_before} -> {first_after} of {}",
        headings.len()
    );
}

#[test]
fn pseudo_queries_are_headings_titles_and_first_sentences_of_one_section() {
    let root = std::env::temp_dir().join(format!("onrecord-adapt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("ferry.md"),
        "# Ferry\n\n## Examples\n\nThe first ferry leaves at 06:40. It is often late.\n",
    )
    .unwrap();
    std::fs::write(
        root.join("bikes.md"),
        "# Bikes\n\n## Examples\n\nCargo bikes need a vehicle ticket.\n",
    )
    .unwrap();
    let built = build_index::build(&root, &Options::standard()).unwrap();
    let _ = std::fs::remove_dir_all(&root);
    let queries = pseudo_queries(&built.index, true);
    let texts: Vec<&str> = queries.iter().map(|(t, _)| t.as_str()).collect();
    // "Examples" heads a section on both pages: it stands for neither.
    assert!(!texts.contains(&"Examples"), "{texts:?}");
    assert!(texts.contains(&"Ferry Examples"), "{texts:?}");
    assert!(
        texts.contains(&"The first ferry leaves at 06:40."),
        "{texts:?}"
    );
    assert!(
        !pseudo_queries(&built.index, false)
            .iter()
            .any(|(t, _)| t.starts_with("The first ferry"))
    );
    for (text, frag) in &queries {
        let f = &built.index.fragments[*frag as usize];
        let title = &built.index.docs[f.doc as usize].title;
        assert!(
            f.text.contains(text.as_str()) || text.contains(f.heading_path.last().unwrap()),
            "{text:?} -> {title}: {:?}",
            f.text
        );
    }
}
