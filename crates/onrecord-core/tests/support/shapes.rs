//! Pathological visitor files (issue 14): each shape is about 2 MB, the most a visitor may drop
//! (`MAX_FILE_BYTES`). Shared by the size/time guard (`tests/visitor_files.rs`) and the benchmark
//! (`build-index/benches/visitor_files.rs`).

/// Repeats `unit` until the text is as long as it may be (at most `MAX_FILE_BYTES`).
fn fill(head: &str, unit: &str) -> String {
    let max = onrecord_core::MAX_FILE_BYTES;
    let n = max.saturating_sub(head.len()) / unit.len().max(1);
    let mut text = String::with_capacity(max);
    text.push_str(head);
    for _ in 0..n {
        text.push_str(unit);
    }
    text
}

/// `head` numbered from 0 with `tail` after each number, until the text is as long as it may be.
fn numbered(head: &str, tail: &str) -> String {
    let max = onrecord_core::MAX_FILE_BYTES;
    let mut text = String::with_capacity(max);
    for i in 0.. {
        let unit = format!("{head}{i}{tail}");
        if text.len() + unit.len() > max {
            break;
        }
        text.push_str(&unit);
    }
    text
}

/// Words without sentence punctuation: `n` bytes of them.
fn words(n: usize) -> String {
    let mut s = String::with_capacity(n + 8);
    let mut i = 0usize;
    while s.len() < n {
        s.push_str(["returns ", "cargo ", "bike ", "within ", "days ", "60 "][i % 6]);
        i += 1;
    }
    s
}

/// 2 MB of ordinary notes: sections of a few paragraphs of sentences. The peer every shape is
/// compared with in the benchmark.
pub fn ordinary() -> String {
    fill(
        "# Workshop notes\n\n",
        "## Returns and refunds\n\nBikes can be returned within 30 days of delivery. The odometer must \
         show less than 50 km, and we deduct a usage fee of EUR 150 above that. Refunds arrive \
         within 14 days.\n\nUnused parts and accessories can be returned within 60 days in their \
         original packaging. Helmets only with the seal unbroken.\n\n- Frame: five years\n\
         - Battery: two years\n\n",
    )
}

/// `(name, text)` of every shape.
pub fn shapes() -> Vec<(&'static str, String)> {
    let mb = 1_000_000;
    vec![
        ("ordinary notes", ordinary()),
        // Each `[` used to scan the rest of the paragraph for `](`.
        ("open brackets", fill("", "[")),
        ("links without a closing parenthesis", fill("", "[a](b ")),
        (
            "nested brackets",
            format!("{}{}", "[".repeat(mb - 10), "](x)".repeat(mb / 4 - 10)),
        ),
        ("close-open pairs", fill("", "](")),
        // Each `![` used to scan the rest of the paragraph for `](` and `)`.
        ("open image brackets", fill("", "![")),
        ("images without a closing parenthesis", fill("", "![a](b ")),
        // A 1 MB heading over a megabyte of text: copied and re-tokenized for every fragment.
        (
            "1 MB heading",
            format!(
                "## {}\n\n{}",
                words(mb),
                fill("", "Bikes can be returned within 30 days. ")
                    .get(..mb - 100)
                    .unwrap_or("")
            ),
        ),
        (
            "1 MB title",
            format!(
                "# {}\n\n{}",
                words(mb),
                fill("", "Bikes can be returned within 30 days. ")
                    .get(..mb - 100)
                    .unwrap_or("")
            ),
        ),
        (
            "CR-only line endings",
            fill(
                "# Notes\r",
                "## Returns\rBikes can be returned within 30 days.\r\r",
            ),
        ),
        (
            "CRLF line endings",
            fill(
                "# Notes\r\n",
                "## Returns\r\nBikes can be returned within 30 days.\r\n\r\n",
            ),
        ),
        (
            "one long line of words",
            words(onrecord_core::MAX_FILE_BYTES - 10),
        ),
        ("one long word", fill("", "a")),
        ("one long line of short sentences", fill("", "A b. ")),
        ("one long line of multibyte letters", fill("", "é")),
        ("one long line of emoji", fill("", "🚲")),
        (
            "deep headings",
            fill("", "# a\n## b\n### c\n#### d\n##### e\n###### f\ntext\n"),
        ),
        ("headings only", fill("", "## h\n")),
        // Each heading's anchor used to be compared with every anchor before it.
        ("distinct headings", numbered("## h", "\ntext\n")),
        (
            "1 MB frontmatter title",
            format!(
                "---\ntitle: {}\n---\n\n{}",
                words(mb),
                fill("", "Bikes can be returned within 30 days. ")
                    .get(..mb - 100)
                    .unwrap_or("")
            ),
        ),
        (
            "table rows",
            fill("Zone | Fee\n|---|---|\n", "1 | EUR 95 within 30 days\n"),
        ),
        ("nested quotes", fill("", "> ")),
        ("nested list markers", fill("", "- ")),
        ("many list items", fill("", "- item\n")),
        ("fence toggles", fill("", "```\ncode\n")),
        ("unclosed fence with one long line", fill("```\n", "x")),
        ("emphasis markers", fill("", "**")),
        ("backticks", fill("", "`")),
        ("blank lines with text", fill("", "a\n\n")),
        ("tabs and spaces", fill("x", " \t")),
    ]
}
