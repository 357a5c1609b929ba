//! The sharded layout: golden files, on-demand answering identical to the whole index, and
//! shards that are cut off, corrupt, of another version or of another build.

use onrecord_core::ann::{CodeList, ivf_code_search, probed_lists};
use onrecord_core::{
    AnswerConfig, Block, DecodeError, HEADER_LEN, Index, IndexBuilder, IndexSettings, Lang,
    MANIFEST_MAGIC, PROBES, SHARD_FORMAT_VERSION, SHARD_MAGIC, ShardErrorKind, ShardSizes,
    ShardedFiles, ShardedIndex, SourceDoc, SourceSection, VectorIndex, VectorLists, ask, chunk,
    search_vectors,
};
use proptest::prelude::*;

mod support;
use support::toy_model::{toy_model, with_toy_vectors};

/// Seven pages, two of them in German and one empty, so tiny shards make several of each kind.
fn fixture() -> Index {
    let page = |path: &str, title: &str, lang, sections: &[(&str, &str)]| SourceDoc {
        path: format!("{path}.md"),
        url: format!("/{path}/"),
        title: title.into(),
        lang,
        themes: vec![],
        collection: None,
        sections: sections
            .iter()
            .map(|(heading, text)| SourceSection {
                heading_path: vec![heading.to_string()],
                anchor: heading.to_lowercase(),
                blocks: vec![Block::paragraph(*text)],
            })
            .collect(),
    };
    let docs = [
        page(
            "returns",
            "Returns and refunds",
            Lang::English,
            &[
                (
                    "Bikes",
                    "You can return a bike within 30 days of delivery. Refunds arrive within 14 days.",
                ),
                (
                    "Parts",
                    "Unused parts go back within 60 days. We pay the return postage for parts.",
                ),
            ],
        ),
        // A page without fragments: pages start where the next one does.
        page("empty", "Empty", Lang::English, &[]),
        page(
            "delivery",
            "Delivery",
            Lang::English,
            &[
                (
                    "Fees",
                    "Delivery costs EUR 95 in zone 2. Zone 1 is free of charge.",
                ),
                (
                    "Times",
                    "Bikes leave the workshop within 3 working days of assembly.",
                ),
            ],
        ),
        page(
            "warranty",
            "Warranty",
            Lang::English,
            &[(
                "Frames",
                "Frames carry a ten year warranty. Batteries are covered for two years or 800 charge cycles.",
            )],
        ),
        page(
            "service",
            "Service",
            Lang::English,
            &[(
                "Inspections",
                "The first inspection after 500 km is free. Book it online or call the workshop.",
            )],
        ),
        page(
            "rueckgabe",
            "Rückgabe",
            Lang::German,
            &[(
                "Fristen",
                "Die Erstattung kommt innerhalb von 10 Werktagen nach Eingang der Rücksendung.",
            )],
        ),
        page(
            "lieferung",
            "Lieferung",
            Lang::German,
            &[(
                "Kosten",
                "Die Lieferung in Zone 2 kostet 95 Euro, in Zone 1 ist sie kostenlos.",
            )],
        ),
    ];
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for doc in &docs {
        builder.add(doc, &chunk(doc, 800));
    }
    let mut index = builder.finish();
    assert_eq!(index.docs[1].n_fragments, 0);
    let mut vectors = VectorIndex::new(0xfeed_beef, 4);
    for i in 0..index.fragments.len() {
        vectors.push(&[1.0, i as f32, -0.5, 0.25]);
    }
    index.vectors = Some(vectors);
    index
}

/// Shards of a few terms and about one page each.
const TINY: ShardSizes = ShardSizes {
    postings: 120,
    text: 100,
    threshold: 0,
};

const HASH: [u8; 32] = [7; 32];

fn files() -> ShardedFiles {
    fixture().to_shards(HASH, TINY).unwrap()
}

fn shard<'a>(files: &'a ShardedFiles, name: &str) -> &'a [u8] {
    &files.shards.iter().find(|(n, _)| n == name).unwrap().1
}

const QUESTIONS: [&str; 8] = [
    "How many days do I have to return a bike?",
    "When does my refund arrive?",
    "What does delivery cost in zone 2?",
    "How long is the battery warranty?",
    "Is the first inspection free?",
    "Wann kommt die Erstattung?",
    "Was kostet die Lieferung?",
    "What is the capital of France?",
];

#[test]
fn the_fixture_makes_several_shards_of_each_kind() {
    let files = files();
    let count = |kind: &str| {
        files
            .shards
            .iter()
            .filter(|(n, _)| n.starts_with(kind))
            .count()
    };
    assert!(count("p-") >= 3, "{:?}", files.shards.len());
    assert!(count("t-") >= 3, "{:?}", files.shards.len());
    // Without lists, the vectors are one list.
    assert_eq!(count("v-"), 1, "{:?}", files.shards.len());
}

#[test]
fn the_same_index_gives_the_same_files() {
    assert_eq!(files(), files());
}

/// Each question, fetching only what its reads miss, answers exactly as the whole index does,
/// and no question needs every shard.
#[test]
fn answers_on_demand_equal_the_whole_index() {
    let files = files();
    let whole = fixture();
    let config = AnswerConfig::DEFAULT;
    for question in QUESTIONS {
        let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
        let mut fetched = Vec::new();
        let answer = sharded
            .complete(
                |index| ask(index, None, question, &config),
                |name| {
                    fetched.push(name.to_owned());
                    Some(shard(&files, name).to_vec())
                },
            )
            .unwrap();
        assert_eq!(answer, ask(&whole, None, question, &config), "{question}");
        assert!(
            fetched.len() < files.shards.len(),
            "{question}: {fetched:?}"
        );
        // A second question on the same shards fetches nothing.
        let again = sharded
            .complete(
                |index| ask(index, None, question, &config),
                |name| panic!("{question}: fetched {name} twice"),
            )
            .unwrap();
        assert_eq!(again, answer);
    }
}

/// Typing on a sharded index finds what the whole index finds, for every prefix of every word
/// of the questions, whatever earlier keystrokes fetched (issue 41: a prefix whose words run
/// over several postings shards).
#[test]
fn searches_as_you_type_on_demand_equal_the_whole_index() {
    let files = files();
    let whole = fixture();
    for fresh in [true, false] {
        let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
        for question in QUESTIONS {
            for end in (2..=question.len()).filter(|&e| question.is_char_boundary(e)) {
                let typed = &question[..end];
                if fresh {
                    sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
                }
                let found = sharded
                    .complete(
                        |index| onrecord_core::search_sections(index, None, typed),
                        |name| Some(shard(&files, name).to_vec()),
                    )
                    .unwrap();
                assert_eq!(
                    found,
                    onrecord_core::search_sections(&whole, None, typed),
                    "{typed:?}"
                );
            }
        }
    }
}

/// With a query model, vector ranking reads the vector lists' residual codes and the meaning feature
/// the text shards' int8 vectors: answers on demand are those of the index with every shard in.
#[test]
fn answers_with_vectors_on_demand_equal_every_shard_in() {
    let words = [
        "[UNK]",
        "bike",
        "return",
        "refund",
        "delivery",
        "zone",
        "warranty",
        "battery",
        "inspection",
        "free",
        "cost",
        "days",
    ];
    let model = toy_model(&words);
    let mut whole = fixture();
    with_toy_vectors(&mut whole, &model);
    let files = whole.to_shards(HASH, TINY).unwrap();
    let mut all = ShardedIndex::from_manifest(&files.manifest).unwrap();
    for (name, bytes) in &files.shards {
        all.add_shard(name, bytes).unwrap();
    }
    let all = all.into_index();
    let config = AnswerConfig::DEFAULT;
    // The model changes some answer (its vectors are read), or this test would prove nothing.
    assert!(
        QUESTIONS
            .iter()
            .any(|q| { ask(&all, Some(&model), q, &config) != ask(&all, None, q, &config) })
    );
    for question in QUESTIONS {
        let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
        let answer = sharded
            .complete(
                |index| ask(index, Some(&model), question, &config),
                |name| Some(shard(&files, name).to_vec()),
            )
            .unwrap();
        assert_eq!(
            answer,
            ask(&all, Some(&model), question, &config),
            "{question}"
        );
        // Without the model nothing reads a vector: the whole index's answer.
        let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
        let lexical = sharded
            .complete(
                |index| ask(index, None, question, &config),
                |name| Some(shard(&files, name).to_vec()),
            )
            .unwrap();
        assert_eq!(lexical, ask(&whole, None, question, &config), "{question}");
    }
}

/// The first run names the postings shards of the question's words, and only those: no text
/// is needed before retrieval has candidates.
#[test]
fn the_first_phase_needs_postings_only() {
    let files = files();
    let sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let _ = ask(sharded.index(), None, QUESTIONS[0], &AnswerConfig::DEFAULT);
    let needed = sharded.needed();
    assert!(!needed.is_empty());
    assert!(needed.iter().all(|n| n.starts_with("p-")), "{needed:?}");
    assert!(sharded.needed().is_empty(), "needed() drains");
}

#[test]
fn a_shard_that_cannot_be_fetched_is_named() {
    let files = files();
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let err = sharded
        .complete(
            |index| ask(index, None, QUESTIONS[0], &AnswerConfig::DEFAULT),
            |_| None,
        )
        .unwrap_err();
    assert_eq!(err.kind, ShardErrorKind::Unavailable);
    assert!(err.to_string().contains(&err.name), "{err}");
    assert!(err.to_string().contains("offline"), "{err}");
}

/// The committed golden files for this version must equal what the fixture writes now.
/// Refresh with `UPDATE_GOLDEN=1 cargo test -p onrecord-core --test shards` after bumping
/// SHARD_FORMAT_VERSION.
#[test]
fn golden_files_of_this_version_match() {
    let dir = format!(
        "{}/tests/data/sharded_v{SHARD_FORMAT_VERSION}",
        env!("CARGO_MANIFEST_DIR")
    );
    let files = files();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(format!("{dir}/manifest.onr"), &files.manifest).unwrap();
        for (name, bytes) in &files.shards {
            std::fs::write(format!("{dir}/{name}"), bytes).unwrap();
        }
    }
    let golden = std::fs::read(format!("{dir}/manifest.onr"))
        .expect("golden sharded files for the current SHARD_FORMAT_VERSION are committed");
    assert_eq!(
        golden, files.manifest,
        "format changed: bump SHARD_FORMAT_VERSION and add golden files"
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "manifest.onr")
        .collect();
    names.sort();
    let mut expected: Vec<String> = files.shards.iter().map(|(n, _)| n.clone()).collect();
    expected.sort();
    assert_eq!(names, expected);
    let mut sharded = ShardedIndex::from_manifest(&golden).unwrap();
    for (name, bytes) in &files.shards {
        let committed = std::fs::read(format!("{dir}/{name}")).unwrap();
        assert_eq!(&committed, bytes, "{name}");
        sharded.add_shard(name, &committed).unwrap();
    }
}

/// With every shard in, the sharded index holds what the whole index holds.
#[test]
fn every_shard_in_gives_the_whole_index_back() {
    let files = files();
    let whole = fixture();
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    // In reverse order: shards may come in any order, but vector rows only once their text
    // shard (which names them) is in.
    let rows = |n: &String| n.starts_with("r-");
    assert!(files.shards.iter().any(|(n, _)| rows(n)));
    for (name, bytes) in files.shards.iter().rev() {
        let taken = sharded.add_shard(name, bytes);
        if rows(name) {
            assert_eq!(taken.unwrap_err().kind, ShardErrorKind::NotInManifest);
        } else {
            taken.unwrap();
        }
    }
    let missing = sharded.missing_shards();
    assert!(
        !missing.is_empty() && missing.iter().all(rows),
        "{missing:?}"
    );
    for name in missing {
        sharded.add_shard(&name, shard(&files, &name)).unwrap();
    }
    assert!(sharded.missing_shards().is_empty());
    let index = sharded.index();
    assert_eq!(index.fragments, whole.fragments);
    assert_eq!(index.terms, whole.terms);
    assert_eq!(index.docs, whole.docs);
    assert_eq!(index.vector_space(), whole.vector_space());
    for id in 0..whole.fragment_count() {
        assert_eq!(index.vector(id), whole.vector(id), "{id}");
        assert_eq!(index.fragment_length(id), whole.fragment_length(id), "{id}");
    }
    assert!(sharded.needed().is_empty());
}

/// The manifest holds each page's size and kind, not its path, URL, title or themes: those
/// come with the text shard of its first fragment, which reading the page notes as needed.
#[test]
fn page_records_travel_with_their_text() {
    let files = files();
    let whole = fixture();
    let contains = |bytes: &[u8], s: &str| bytes.windows(s.len()).any(|w| w == s.as_bytes());
    for doc in &whole.docs {
        assert!(!contains(&files.manifest, &doc.url), "{}", doc.url);
        let holders = files.shards.iter().filter(|(_, b)| contains(b, &doc.url));
        assert_eq!(holders.count(), 1, "{}", doc.url);
    }
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let stub = sharded.index().doc(2).unwrap().clone();
    assert_eq!(
        (stub.title.as_str(), stub.n_fragments),
        ("", whole.docs[2].n_fragments)
    );
    let needed = sharded.needed();
    assert_eq!(needed.len(), 1, "{needed:?}");
    assert!(needed[0].starts_with("t-"), "{needed:?}");
    sharded
        .add_shard(&needed[0], shard(&files, &needed[0]))
        .unwrap();
    assert_eq!(sharded.index().doc(2), Some(&whole.docs[2]));
    assert!(sharded.needed().is_empty());
}

/// A text shard carries no vectors: it names the shard of its fragments' int8 vectors, which
/// a question fetches only for the fragments the meaning gate weighs; a lexical question never.
#[test]
fn vector_rows_travel_apart_from_their_text() {
    let files = files();
    let whole = fixture();
    let rows: Vec<&(String, Vec<u8>)> = files
        .shards
        .iter()
        .filter(|(n, _)| n.starts_with("r-"))
        .collect();
    let texts = files
        .shards
        .iter()
        .filter(|(n, _)| n.starts_with("t-"))
        .count();
    assert_eq!(rows.len(), texts);
    // Every row shard is `dims` bytes and a scale a fragment, and holds its text shard's.
    let dims = whole.vector_space().unwrap().1;
    let row_bytes: usize = rows.iter().map(|(_, b)| b.len() - HEADER_LEN).sum();
    assert!(
        row_bytes >= whole.fragments.len() * (dims + 4),
        "{row_bytes}"
    );
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let id = whole.fragment_count() - 1;
    assert_eq!(sharded.index().vector(id), None);
    // First the text shard, which names the rows, then the rows.
    let needed = sharded.needed();
    assert_eq!(needed.len(), 1);
    assert!(needed[0].starts_with("t-"), "{needed:?}");
    let (rows_name, rows_bytes) = rows.last().unwrap();
    let err = sharded.add_shard(rows_name, rows_bytes).unwrap_err();
    assert_eq!(err.kind, ShardErrorKind::NotInManifest);
    assert!(err.to_string().contains("named by a text shard"), "{err}");
    sharded
        .add_shard(&needed[0], shard(&files, &needed[0]))
        .unwrap();
    assert_eq!(sharded.index().vector(id), None);
    assert_eq!(sharded.needed(), vec![rows_name.clone()]);
    // Another text shard's rows are not these.
    let (other, other_bytes) = rows.first().unwrap();
    assert_ne!(other, rows_name);
    assert!(sharded.add_shard(rows_name, other_bytes).is_err());
    sharded.add_shard(rows_name, rows_bytes).unwrap();
    assert_eq!(sharded.index().vector(id), whole.vector(id));
    assert!(sharded.needed().is_empty());
    // A lexical question reads no vector: it fetches no rows.
    for question in QUESTIONS {
        let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
        sharded
            .complete(
                |index| ask(index, None, question, &AnswerConfig::DEFAULT),
                |name| {
                    assert!(!name.starts_with("r-"), "{question}: {name}");
                    Some(shard(&files, name).to_vec())
                },
            )
            .unwrap();
    }
}

/// Text shards whose fragments have identical vectors (a site's copied pages) name one rows
/// file; it fills each text shard's fragments, whether it came before or after that text shard,
/// and is taken once.
#[test]
fn identical_rows_are_one_file_for_every_text_shard_naming_them() {
    let mut whole = fixture();
    let n = whole.fragments.len();
    let mut vectors = VectorIndex::new(0xfeed_beef, 4);
    for _ in 0..n {
        vectors.push(&[1.0, 2.0, -0.5, 0.25]);
    }
    whole.vectors = Some(vectors);
    let files = whole.to_shards(HASH, TINY).unwrap();
    let names: Vec<&String> = files.shards.iter().map(|(n, _)| n).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "each file is written once");
    let texts: Vec<&String> = names
        .iter()
        .copied()
        .filter(|n| n.starts_with("t-"))
        .collect();
    let rows = names.iter().filter(|n| n.starts_with("r-")).count();
    assert!(rows < texts.len(), "{rows} rows for {} texts", texts.len());
    // Every fragment's vector, whatever order the text shards come in.
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let mut taken = Vec::new();
    for text in &texts {
        sharded.add_shard(text, shard(&files, text)).unwrap();
        let missing = sharded.missing_shards().into_iter();
        for name in missing.filter(|n| n.starts_with("r-")) {
            sharded.add_shard(&name, shard(&files, &name)).unwrap();
            taken.push(name);
        }
        for id in 0..n as u32 {
            if sharded.index().fragment(id).is_some() {
                assert_eq!(sharded.index().vector(id), whole.vector(id), "{id}");
            }
        }
    }
    // Each rows file was taken once: a text shard naming rows already in shares them.
    assert_eq!(taken.len(), rows, "{taken:?}");
    assert!(
        sharded
            .missing_shards()
            .iter()
            .all(|n| !n.starts_with("t-"))
    );
    let _ = sharded.needed();
    for id in 0..n as u32 {
        assert_eq!(sharded.index().vector(id), whole.vector(id), "{id}");
    }
    assert!(sharded.needed().is_empty());
}

/// The previous version's golden manifest is refused by its version, with a message that
/// says to rebuild.
#[test]
fn the_previous_versions_golden_manifest_is_refused_clearly() {
    let path = format!(
        "{}/tests/data/sharded_v{}/manifest.onr",
        env!("CARGO_MANIFEST_DIR"),
        SHARD_FORMAT_VERSION - 1
    );
    let bytes = std::fs::read(&path).expect("the previous version keeps its golden files");
    let err = ShardedIndex::from_manifest(&bytes).unwrap_err();
    assert_eq!(
        err.kind(),
        &DecodeError::UnsupportedVersion {
            found: SHARD_FORMAT_VERSION - 1,
            supported: SHARD_FORMAT_VERSION
        }
    );
    assert!(err.to_string().contains("rebuild"), "{err}");
}

/// `n` one-fragment pages with pseudo-random vectors of 8 dimensions, grouped in `n_lists`
/// lists (fragment `i` in list `i % n_lists`) around pseudo-random centroids.
fn ivf_fixture(n: usize, n_lists: usize) -> (Index, VectorLists) {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 2001) as f32 / 1000.0 - 1.0
    };
    let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
    for i in 0..n {
        let doc = SourceDoc {
            path: format!("p{i:03}.md"),
            url: format!("/p{i}/"),
            title: format!("Page {i}"),
            lang: Lang::English,
            themes: vec![],
            collection: None,
            sections: vec![SourceSection {
                heading_path: vec![format!("Part {i}")],
                anchor: String::new(),
                blocks: vec![Block::paragraph(format!(
                    "Gear {i} needs grease number {} every season.",
                    i % 7
                ))],
            }],
        };
        builder.add(&doc, &chunk(&doc, 800));
    }
    let mut index = builder.finish();
    let mut vectors = VectorIndex::new(0xabcd, 8);
    for _ in 0..index.fragments.len() {
        vectors.push(&(0..8).map(|_| next()).collect::<Vec<_>>());
    }
    let mut centroids = VectorIndex::new(0xabcd, 8);
    for _ in 0..n_lists {
        centroids.push(&(0..8).map(|_| next()).collect::<Vec<_>>());
    }
    index.vectors = Some(vectors);
    let members = (0..n_lists)
        .map(|l| {
            (0..index.fragments.len() as u32)
                .filter(|i| *i as usize % n_lists == l)
                .collect()
        })
        .collect();
    (index, VectorLists { centroids, members })
}

/// With more lists than [`PROBES`] reads, a sharded index's vector search fetches the probed
/// lists only (at least `PROBES.min`, at most `PROBES.max`, as `probed_lists` picks them) and
/// returns what IVF over their residual codes returns; with no more than `PROBES.min`, every
/// list and brute force over every fragment's code.
#[test]
fn vector_search_reads_the_probed_lists_only() {
    for n_lists in [PROBES.max * 2, PROBES.min / 2] {
        let (whole, lists) = ivf_fixture(60, n_lists);
        let files = whole.to_shards_with(HASH, TINY, Some(&lists)).unwrap();
        let vectors = whole.vectors.as_ref().unwrap();
        let code_lists: Vec<CodeList> = lists
            .members
            .iter()
            .enumerate()
            .map(|(l, ids)| {
                let mut codes = CodeList::default();
                for &id in ids {
                    let centroid = lists.centroids.rows().row(l).unwrap();
                    codes.push(id, whole.vector(id).unwrap(), centroid);
                }
                codes
            })
            .collect();
        // With lists left unprobed, some query misses a better member (IVF is approximate).
        let mut differs = false;
        for q in 0..10 {
            let query: Vec<f32> = {
                let v: Vec<f32> = (0..8).map(|j| ((q * 8 + j) as f32).sin()).collect();
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / n).collect()
            };
            let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
            let first = search_vectors(sharded.index(), &query, 20);
            assert!(
                first.is_empty(),
                "nothing is scored before the lists are in"
            );
            let needed = sharded.needed();
            assert!(needed.iter().all(|n| n.starts_with("v-")), "{needed:?}");
            let probed = probed_lists(lists.centroids.rows(), &query, PROBES);
            assert_eq!(needed.len(), probed.len());
            assert!(probed.len() >= PROBES.min.min(n_lists) && probed.len() <= PROBES.max);
            let hits = sharded
                .complete(
                    |index| search_vectors(index, &query, 20),
                    |name| Some(shard(&files, name).to_vec()),
                )
                .unwrap();
            let ivf = ivf_code_search(lists.centroids.rows(), &code_lists, &query, PROBES, 20);
            assert_eq!(hits, ivf, "{n_lists} lists, query {q}");
            // Brute force over the codes: every member of every list scored.
            let mut brute: Vec<_> = code_lists
                .iter()
                .enumerate()
                .flat_map(|(l, codes)| {
                    let base = lists.centroids.rows().score(l, &query).unwrap();
                    codes.hits(&query, base).collect::<Vec<_>>()
                })
                .collect();
            brute.sort_by(|a, b| {
                b.score
                    .total_cmp(&a.score)
                    .then(a.fragment.cmp(&b.fragment))
            });
            brute.truncate(20);
            if n_lists <= PROBES.min {
                assert_eq!(hits, brute);
            }
            differs |= hits != brute;
            assert_eq!(vectors.dims, 8);
        }
        assert_eq!(differs, n_lists > PROBES.max, "{n_lists} lists");
    }
}

#[test]
fn vector_lists_that_miss_or_repeat_a_fragment_are_refused() {
    let (whole, mut lists) = ivf_fixture(10, 3);
    let moved = lists.members[0].remove(0);
    assert!(whole.to_shards_with(HASH, TINY, Some(&lists)).is_err());
    lists.members[1].push(moved);
    lists.members[1].sort_unstable();
    assert!(whole.to_shards_with(HASH, TINY, Some(&lists)).is_ok());
    lists.members[2].push(moved);
    lists.members[2].sort_unstable();
    let err = whole.to_shards_with(HASH, TINY, Some(&lists)).unwrap_err();
    assert!(err.to_string().contains("another list"), "{err}");
}

#[test]
fn a_manifest_is_not_an_index_nor_the_reverse() {
    let files = files();
    assert_eq!(
        Index::from_bytes(&files.manifest).unwrap_err(),
        DecodeError::BadMagic
    );
    let index = fixture().to_bytes(HASH).unwrap();
    let err = ShardedIndex::from_manifest(&index).unwrap_err();
    assert_eq!(err.kind(), &DecodeError::BadMagic);
    assert_eq!(
        err.to_string(),
        "not an onrecord index manifest (bad magic bytes)"
    );
}

#[test]
fn every_truncation_and_bit_flip_of_the_manifest_is_an_error() {
    let bytes = files().manifest;
    for len in 0..bytes.len() {
        assert!(ShardedIndex::from_manifest(&bytes[..len]).is_err(), "{len}");
    }
    for i in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[i / 8] ^= 1 << (i % 8);
        assert!(ShardedIndex::from_manifest(&b).is_err(), "bit {i}");
    }
}

#[test]
fn shards_of_another_version_are_refused_by_name() {
    let files = files();
    let (name, bytes) = &files.shards[0];
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let mut old = bytes.clone();
    old[8..12].copy_from_slice(&(SHARD_FORMAT_VERSION - 1).to_le_bytes());
    let err = sharded.add_shard(name, &old).unwrap_err();
    assert_eq!(
        err.kind,
        ShardErrorKind::Decode(DecodeError::UnsupportedVersion {
            found: SHARD_FORMAT_VERSION - 1,
            supported: SHARD_FORMAT_VERSION
        })
    );
    assert!(err.to_string().contains(name.as_str()), "{err}");
    assert!(err.to_string().contains("version"), "{err}");
}

#[test]
fn truncated_and_corrupt_shards_are_refused_by_name() {
    let files = files();
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    // The text shards name the vector rows' shards (a text shard taken is still checked).
    for (name, bytes) in files.shards.iter().filter(|(n, _)| n.starts_with("t-")) {
        sharded.add_shard(name, bytes).unwrap();
    }
    for (name, bytes) in &files.shards {
        for len in 0..bytes.len() {
            let err = sharded.add_shard(name, &bytes[..len]).unwrap_err();
            let expected_kind = if len < HEADER_LEN {
                matches!(
                    err.kind,
                    ShardErrorKind::Decode(DecodeError::TooShort { .. })
                )
            } else {
                matches!(
                    err.kind,
                    ShardErrorKind::Decode(DecodeError::Truncated { .. })
                )
            };
            assert!(expected_kind, "{name} cut to {len}: {err}");
            assert!(err.to_string().contains(name.as_str()));
        }
        for i in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[i / 8] ^= 1 << (i % 8);
            let err = sharded.add_shard(name, &b).unwrap_err();
            assert!(err.to_string().contains(name.as_str()), "bit {i}: {err}");
        }
    }
    // None of it was taken: every shard still goes in.
    for (name, bytes) in &files.shards {
        sharded.add_shard(name, bytes).unwrap();
    }
}

/// A shard of another build (another corpus hash) is refused, even under a name the manifest
/// lists; so is a shard of this build under another shard's name, and a name not listed.
#[test]
fn shards_of_another_build_or_place_are_refused_by_name() {
    let files = files();
    let other = fixture().to_shards([8; 32], TINY).unwrap();
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let (name, _) = &files.shards[0];
    let (_, foreign) = &other.shards[0];
    let err = sharded.add_shard(name, foreign).unwrap_err();
    assert_eq!(err.kind, ShardErrorKind::OtherBuild);
    assert!(err.to_string().contains(name.as_str()), "{err}");
    assert!(err.to_string().contains("another build"), "{err}");

    let (second, second_bytes) = &files.shards[1];
    let err = sharded.add_shard(name, second_bytes).unwrap_err();
    assert_eq!(err.kind, ShardErrorKind::NotTheListedShard, "{second}");

    let err = sharded
        .add_shard("p-00000000.onr", second_bytes)
        .unwrap_err();
    assert_eq!(err.kind, ShardErrorKind::NotInManifest);
    assert!(err.to_string().contains("p-00000000.onr"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Arbitrary bytes never panic as a manifest or a shard, bare or as the payload behind a
    /// valid header (so postcard decodes them).
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let files = files();
        let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
        for magic in [MANIFEST_MAGIC, SHARD_MAGIC] {
            let framed = support::frame::framed(&magic, SHARD_FORMAT_VERSION, HASH, &bytes);
            let _ = ShardedIndex::from_manifest(&bytes);
            let _ = ShardedIndex::from_manifest(&framed);
            for (name, _) in &files.shards {
                let _ = sharded.add_shard(name, &bytes);
                let _ = sharded.add_shard(name, &framed);
            }
        }
    }
}

// Issue 43: a text shard holding a fragment with an empty sentence range is refused, naming the
// fragment (by its id in the whole index) and the sentence, as the whole index is.
#[test]
fn a_text_shard_with_an_empty_sentence_range_is_refused_by_name() {
    let mut index = fixture();
    let frag = index.fragments.len() - 1;
    let (start, _) = index.fragments[frag].sentences[0];
    index.fragments[frag].sentences[0] = (start, start);
    let files = index.to_shards(HASH, TINY).unwrap();
    let mut sharded = ShardedIndex::from_manifest(&files.manifest).unwrap();
    let refused: Vec<ShardErrorKind> = files
        .shards
        .iter()
        .filter_map(|(name, bytes)| sharded.add_shard(name, bytes).err())
        .map(|e| e.kind)
        .collect();
    // (The rows named by that text shard are then not in the manifest's reach either.)
    let expected = ShardErrorKind::Decode(DecodeError::EmptySentence {
        fragment: frag as u32,
        sentence: 0,
    });
    assert!(refused.contains(&expected), "{refused:?}");
}
