//! The no-leak boundary: nothing derived from a private note's body, non-public frontmatter or
//! file name may appear in any byte `build-index` writes, nor in any decoded string or term.
//! Canaries are random per run; every 6-word run of every body is checked too.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use onrecord_core::{AnswerConfig, Index, Mode, ask};

/// A random lowercase token with digits, e.g. `k3vq9z…`: the stemmer leaves it alone.
fn canary(seed: &mut u64) -> String {
    (0..14)
        .map(|i| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            let alphabet = if i % 3 == 1 {
                b"0123456789".as_slice()
            } else {
                b"bcdfghjkmnpqrstvwxz".as_slice()
            };
            alphabet[(*seed % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

struct Planted {
    canaries: Vec<String>,
    bodies: Vec<String>,
}

fn plant(root: &Path) -> Planted {
    let mut seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    seed ^= u64::from(std::process::id()) << 32;
    let mut canaries = Vec::new();
    let mut bodies = Vec::new();
    let mut includes =
        "# Included notes\n\nThe notes, as a page would include them.\n\n".to_owned();
    write(
        root,
        "shop/returns.md",
        "---\ntitle: Returns\n---\n# Returns\n\n## Refunds\n\nRefunds arrive within ten working days of the return.\n",
    );
    write(
        root,
        "workshop/booking.md",
        "---\ntitle: Booking\n---\n# Booking\n\nBook a repair up to three weeks ahead. A deposit is due when you book.\n",
    );
    // Notes in the private folder, one in a public folder that declares itself private, and one
    // whose `private:` value is not a clear boolean.
    let notes = [
        (
            "private",
            "Deposit review, March",
            "/workshop/booking/",
            "Minutes, item 4",
            "deposit, booking",
            "",
        ),
        (
            "private/sub",
            "Supplier call",
            "/shop/returns/",
            "Call notes p. 2",
            "supplier",
            "",
        ),
        (
            "internal",
            "Refund dispute",
            "/shop/returns/",
            "Ticket 12",
            "refund",
            "private: true\n",
        ),
        (
            "internal",
            "Unclear note",
            "/shop/returns/",
            "Page 1",
            "unclear",
            "private: maybe\n",
        ),
    ];
    for (i, (dir, title, about, locator, keywords, flag)) in notes.iter().enumerate() {
        let c: Vec<String> = (0..4).map(|_| canary(&mut seed)).collect();
        let body = format!(
            "Internal remarks about {} that must stay private. The supplier {} raised prices again and \
             the team agreed to absorb the cost until {} while {} reviews the contract in detail.\n\n\
             Nobody outside the workshop should read this paragraph about deposits and refunds.\n",
            c[0], c[1], c[2], c[3]
        );
        let name_canary = canary(&mut seed);
        let field_canary = canary(&mut seed);
        let text = format!(
            "---\ntitle: {title}\nabout: {about}\nlocator: {locator}\nkeywords: [{keywords}]\n{flag}description: {field_canary}\nauthor: {field_canary}\n---\n{body}"
        );
        write(root, &format!("{dir}/note-{i}-{name_canary}.md"), &text);
        includes.push_str(&format!(
            "{{{{#include ../{dir}/note-{i}-{name_canary}.md}}}}\n\n```{{include}} ../{dir}/note-{i}-{name_canary}.md\n```\n\n"
        ));
        canaries.extend(c);
        canaries.push(name_canary);
        canaries.push(field_canary);
        bodies.push(body);
    }
    // A public page that tries to include every note (mdBook's and MyST's syntax): an include
    // never brings a private body into a public page.
    write(root, "shop/notes.md", &includes);
    Planted { canaries, bodies }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// Every string the index holds, for checks after decoding.
fn decoded_strings(index: &Index) -> Vec<String> {
    let mut out = Vec::new();
    for d in &index.docs {
        out.extend([d.path.clone(), d.url.clone(), d.title.clone()]);
    }
    for f in &index.fragments {
        out.push(f.text.clone());
        out.push(f.anchor.clone());
        out.extend(f.heading_path.iter().cloned());
    }
    out.extend(index.terms.iter().map(|t| t.term.clone()));
    out.extend(index.hint_terms.iter().map(|t| t.term.clone()));
    for h in &index.hints {
        out.extend([h.label.clone(), h.url.clone(), h.locator.clone()]);
    }
    out
}

#[test]
fn no_byte_of_a_private_note_reaches_the_output() {
    let dir = std::env::temp_dir().join(format!("onrecord-canary-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let corpus = dir.join("corpus");
    let out = dir.join("out");
    let planted = plant(&corpus);
    let status = Command::new(env!("CARGO_BIN_EXE_build-index"))
        .arg(&corpus)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );

    let mut written = Vec::new();
    files_under(&out, &mut written);
    assert!(!written.is_empty());
    let mut blobs: Vec<Vec<u8>> = written.iter().map(|p| fs::read(p).unwrap()).collect();
    // Anything compressed is checked decompressed as well (gzip magic).
    assert!(
        blobs.iter().all(|b| !b.starts_with(&[0x1f, 0x8b])),
        "compressed output: decompress it here too"
    );
    let index = Index::from_bytes(&fs::read(out.join("index.onr")).unwrap()).unwrap();
    let strings = decoded_strings(&index);
    blobs.push(strings.join("\n").into_bytes());

    for c in &planted.canaries {
        for blob in &blobs {
            assert!(!contains(blob, c.as_bytes()), "canary {c} leaked");
        }
    }
    let mut runs = 0;
    for body in &planted.bodies {
        let words: Vec<&str> = body.split_whitespace().collect();
        for w in words.windows(6) {
            let run = w.join(" ");
            for blob in &blobs {
                assert!(!contains(blob, run.as_bytes()), "body text leaked: {run:?}");
                assert!(
                    !contains(blob, run.to_lowercase().as_bytes()),
                    "body text leaked: {run:?}"
                );
            }
            runs += 1;
        }
    }
    assert!(runs > 100);

    // The notes still route: four hints, captions only.
    assert_eq!(index.hints.len(), 4);
    assert!(
        index
            .hints
            .iter()
            .any(|h| h.label == "Deposit review, March" && h.locator == "Minutes, item 4")
    );
    // Only the three public pages were indexed.
    assert_eq!(index.docs.len(), 3);
    let a = ask(
        &index,
        None,
        "Who reviewed the deposit in the minutes?",
        &AnswerConfig::DEFAULT,
    );
    assert!(
        a.quotes
            .iter()
            .all(|q| !planted.bodies.iter().any(|b| b.contains(&q.text)))
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_question_only_a_note_bears_on_gets_related_material() {
    let dir = std::env::temp_dir().join(format!("onrecord-route-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    plant(&dir);
    let built = build_index::build(&dir, &build_index::Options::standard()).unwrap();
    let a = ask(
        &built.index,
        None,
        "What did the supplier call notes say?",
        &AnswerConfig::DEFAULT,
    );
    assert_eq!(a.mode, Mode::RelatedMaterial, "{a:?}");
    assert!(a.quotes.is_empty());
    assert_eq!(a.hints[0].label, "Supplier call");
    assert_eq!(a.hints[0].locator, "Call notes p. 2");
    let _ = fs::remove_dir_all(&dir);
}
