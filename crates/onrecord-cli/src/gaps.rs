//! `onrecord gaps LOG.jsonl`: what visitors asked and could not get, from the records the widget
//! sends to a site's `data-report` URL, one JSON object a line: the declined questions grouped
//! by the words the pages never use, the most asked questions answered with low confidence, the
//! answers marked unhelpful and the pages most opened from results. What to write next.
//!
//! The log comes from the open web (anyone can post to a report URL), so a line that is not a
//! record is counted and named by its number, never dropped silently, and a question is printed
//! without its control characters.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

#[derive(Args)]
pub(crate) struct GapsArgs {
    /// The records your data-report URL received, one JSON object a line (docs/widget.md).
    log: PathBuf,
    /// How many entries each part of the report lists.
    #[arg(long, default_value_t = 10)]
    top: usize,
}

/// The version of [`Record`] this build reads (its `v`).
pub(crate) const RECORD_VERSION: u32 = 1;

/// One thing a visitor did, as the widget reports it (`report` in www/onrecord/owner.js sends
/// every key, in this order). These fields *are* the format: a change bumps [`RECORD_VERSION`]
/// and the golden file `tests/data/gaps/records.jsonl`, which the end-to-end test holds the
/// widget's beacon to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Record {
    /// The format version, [`RECORD_VERSION`].
    pub v: u32,
    pub event: Event,
    /// The question as the visitor asked it (for `opened`, the one whose results it was under).
    pub question: String,
    /// The path of the page the widget was on.
    pub page: String,
    /// `answered`: the confidence label shown, none where no label was measured to hold.
    pub confidence: Option<Level>,
    /// `declined`: why (the decline's gate, such as `never-mentioned`).
    pub reason: Option<String>,
    /// `declined`: the question's words that no page uses.
    pub missing: Vec<String>,
    /// `opened`: the path (and `#section`) of the page opened.
    pub url: Option<String>,
    /// `feedback`: whether the visitor said the answer helped.
    pub helpful: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Event {
    Answered,
    Declined,
    Opened,
    Feedback,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Level {
    High,
    Medium,
    Low,
}

/// A log as read: its records, and the lines that were not records (1-based number, why).
#[derive(Debug, Default)]
pub(crate) struct Log {
    pub records: Vec<Record>,
    pub bad: Vec<(usize, String)>,
}

impl Log {
    /// Adds line `no`; a blank line is no record and no error.
    fn push(&mut self, no: usize, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else {
            self.bad.push((no, "not UTF-8".into()));
            return;
        };
        if text.trim().is_empty() {
            return;
        }
        match serde_json::from_str::<Record>(text) {
            Ok(r) if r.v != RECORD_VERSION => self.bad.push((
                no,
                format!(
                    "record version {}, and this onrecord reads version {RECORD_VERSION}",
                    r.v
                ),
            )),
            Ok(r) => self.records.push(r),
            Err(e) => self.bad.push((no, e.to_string())),
        }
    }
}

/// Reads a log from its text.
#[cfg(test)]
pub(crate) fn parse(text: &str) -> Log {
    let mut log = Log::default();
    for (i, line) in text.split('\n').enumerate() {
        log.push(i + 1, line.as_bytes());
    }
    log
}

pub(crate) fn run(args: &GapsArgs) -> Result<()> {
    let path = &args.log;
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    // Line by line, as bytes: a large log is never held whole, and a line that is not UTF-8
    // is one bad line rather than the end of the reading.
    let mut reader = BufReader::new(file);
    let mut log = Log::default();
    let mut line = Vec::new();
    for no in 1.. {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("{}: cannot read line {no}", path.display()))?;
        if n == 0 {
            break;
        }
        log.push(no, line.strip_suffix(b"\n").unwrap_or(&line));
    }
    print!("{}", report(&log, args.top));
    Ok(())
}

/// How often each question was asked, by its words (case, spacing and the final "?" aside),
/// shown as first asked.
#[derive(Default)]
struct Tally<'a> {
    counts: BTreeMap<String, (usize, &'a str)>,
}

impl<'a> Tally<'a> {
    fn add(&mut self, question: &'a str) {
        let entry = self.counts.entry(key(question)).or_insert((0, question));
        entry.0 += 1;
    }

    fn total(&self) -> usize {
        self.counts.values().map(|(n, _)| n).sum()
    }

    /// The most asked first (ties by their words, so a report is the same for the same log).
    fn ranked(&self) -> Vec<(usize, &'a str)> {
        let mut res: Vec<_> = self.counts.iter().map(|(k, &(n, q))| (n, k, q)).collect();
        res.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        res.into_iter().map(|(n, _, q)| (n, q)).collect()
    }
}

fn key(question: &str) -> String {
    let words: Vec<String> = question.split_whitespace().map(str::to_lowercase).collect();
    words
        .join(" ")
        .trim_end_matches(['?', '.', '!'])
        .trim_end()
        .to_string()
}

/// At most `max` characters of text from the log, without control characters (the log is
/// anyone's input, and this goes to a terminal).
fn shown(text: &str, max: usize) -> String {
    let mut res: String = text
        .trim()
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .take(max)
        .collect();
    if text.trim().chars().count() > max {
        res.push('…');
    }
    res
}

/// The report: a summary line, then each part with at most `top` entries.
pub(crate) fn report(log: &Log, top: usize) -> String {
    let mut declined: BTreeMap<String, Tally> = BTreeMap::new();
    let mut other = Tally::default();
    let mut low = Tally::default();
    let mut unhelpful = Tally::default();
    let mut opened = Tally::default();
    let (mut answered, mut helpful) = (0, 0);
    for r in &log.records {
        match r.event {
            Event::Declined if r.missing.is_empty() => other.add(&r.question),
            Event::Declined => {
                // The same words in any case and order are one gap.
                let mut words: Vec<String> = r
                    .missing
                    .iter()
                    .map(|w| shown(&w.to_lowercase(), 40))
                    .collect();
                words.sort();
                words.dedup();
                let words: Vec<String> = words.iter().map(|w| format!("‘{w}’")).collect();
                declined
                    .entry(words.join(", "))
                    .or_default()
                    .add(&r.question);
            }
            Event::Answered => {
                answered += 1;
                if matches!(r.confidence, Some(Level::Low) | None) {
                    low.add(&r.question);
                }
            }
            Event::Opened => {
                let url = r.url.as_deref().unwrap_or_default();
                opened.add(url.split('#').next().unwrap_or_default());
            }
            Event::Feedback if r.helpful == Some(false) => unhelpful.add(&r.question),
            Event::Feedback => helpful += 1,
        }
    }
    let n_declined = other.total() + declined.values().map(Tally::total).sum::<usize>();
    let mut out = format!(
        "{} questions: {answered} answered, {n_declined} declined; {} pages opened from results; \
         feedback: {helpful} helpful, {} not\n",
        answered + n_declined,
        opened.total(),
        unhelpful.total(),
    );
    let mut part = |title: &str, rows: Vec<String>| {
        out.push_str(&format!("\n{title}\n"));
        if rows.is_empty() {
            out.push_str("  none\n");
        }
        for row in rows.into_iter().take(top) {
            out.push_str(&format!("  {row}\n"));
        }
    };
    let mut groups: Vec<(&String, &Tally)> = declined.iter().collect();
    groups.sort_by(|a, b| b.1.total().cmp(&a.1.total()).then(a.0.cmp(b.0)));
    part(
        "Declined: words the pages never use (write about these)",
        groups
            .iter()
            .map(|(words, tally)| {
                let asked: Vec<String> = tally
                    .ranked()
                    .iter()
                    .take(3)
                    .map(|&(n, q)| match n {
                        1 => format!("“{}”", shown(q, 100)),
                        _ => format!("“{}” ({n}×)", shown(q, 100)),
                    })
                    .collect();
                format!("{:>4}  {words}: {}", tally.total(), asked.join(", "))
            })
            .collect(),
    );
    let listed = |tally: &Tally| -> Vec<String> {
        tally
            .ranked()
            .iter()
            .map(|(n, q)| format!("{n:>4}  {}", shown(q, 100)))
            .collect()
    };
    part(
        "Declined though the pages use the words (they do not answer clearly)",
        listed(&other),
    );
    part(
        "Answered with low confidence or none, most asked (check these answers)",
        listed(&low),
    );
    part("Answers marked not helpful", listed(&unhelpful));
    part("Pages most opened from results", listed(&opened));
    if !log.bad.is_empty() {
        part(
            &format!("{} lines are not records and were left out", log.bad.len()),
            log.bad
                .iter()
                .map(|(no, why)| format!("line {no}: {}", shown(why, 200)))
                .collect(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/gaps/");

    fn data(name: &str) -> String {
        std::fs::read_to_string(format!("{DATA}{name}")).expect("test data")
    }

    /// Compares with a golden file; UPDATE_EXPECT=1 rewrites it.
    fn golden(name: &str, actual: &str) {
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(format!("{DATA}{name}"), actual).expect("golden file written");
        }
        assert_eq!(
            actual,
            data(name),
            "{name} differs (UPDATE_EXPECT=1 rewrites it)"
        );
    }

    #[test]
    fn the_golden_records_are_the_format_byte_for_byte() {
        // One record of each event, as the widget writes them: every key, in order.
        let text = data("records.jsonl");
        let log = parse(&text);
        assert!(log.bad.is_empty(), "{:?}", log.bad);
        let events: Vec<Event> = log.records.iter().map(|r| r.event).collect();
        assert_eq!(
            events,
            [
                Event::Answered,
                Event::Declined,
                Event::Opened,
                Event::Feedback
            ]
        );
        let written: Vec<String> = log
            .records
            .iter()
            .map(|r| serde_json::to_string(r).expect("serializes"))
            .collect();
        assert_eq!(written.join("\n") + "\n", text);
    }

    #[test]
    fn a_recorded_log_gives_the_golden_report() {
        golden("report.txt", &report(&parse(&data("log.jsonl")), 10));
    }

    #[test]
    fn lines_that_are_not_records_are_named_by_number() {
        let good = data("records.jsonl");
        let first = good.lines().next().expect("a record");
        let text = [
            first,
            "",
            "not json",
            &first.replace("\"v\":1", "\"v\":2"),
            &first.replace("\"page\"", "\"visitor\":\"x\",\"page\""),
            &first.replace(",\"missing\":[]", ""),
            first,
        ]
        .join("\n");
        let log = parse(&text);
        assert_eq!(log.records.len(), 2);
        let bad: Vec<(usize, &str)> = log.bad.iter().map(|(n, w)| (*n, w.as_str())).collect();
        assert_eq!(bad.len(), 4, "{bad:?}");
        assert_eq!(bad[0].0, 3);
        assert_eq!(
            bad[1],
            (4, "record version 2, and this onrecord reads version 1")
        );
        assert!(bad[2].0 == 5 && bad[2].1.contains("unknown field `visitor`"));
        assert!(bad[3].0 == 6 && bad[3].1.contains("missing field `missing`"));
        let out = report(&log, 10);
        assert!(out.contains("4 lines are not records and were left out\n  line 3: "));
    }

    #[test]
    fn questions_are_shown_without_control_characters() {
        assert_eq!(shown("a\u{1b}[2Jb\n", 100), "a\u{fffd}[2Jb");
        assert_eq!(shown(&"x".repeat(150), 100).chars().count(), 101);
    }

    #[test]
    fn questions_count_together_whatever_their_case_spacing_and_mark() {
        let mut tally = Tally::default();
        for q in ["How do I return?", "how do  I return", "Other"] {
            tally.add(q);
        }
        assert_eq!(tally.ranked(), [(2, "How do I return?"), (1, "Other")]);
    }
}
