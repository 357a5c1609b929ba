//! `onrecord ask`: one question against an index, printed for a site owner (or as JSON).

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use onrecord_core::{Answer, AnswerConfig, Citation, Decline, Mode, ask, asks_by_meaning};
use serde_json::{Value, json};

use crate::deploy;

/// The index and (when present) query model a path names: an index file (or a sharded index's
/// manifest, its shards beside it) with an optional `query-model.onq` beside it, a folder with
/// `index.onr` or `manifest.onr` (as build-index writes), or a deploy folder.
fn locate(path: &Path) -> Result<(PathBuf, Option<PathBuf>)> {
    let beside = |dir: &Path| Some(dir.join("query-model.onq")).filter(|p| p.is_file());
    if path.is_file() {
        return Ok((path.to_path_buf(), path.parent().and_then(beside)));
    }
    let index = onrecord_files::index_path(path);
    if index.is_file() {
        return Ok((index, beside(path)));
    }
    if path.join(deploy::LOADER).is_file() {
        let folder = deploy::read_folder(path)?;
        return Ok((folder.index, folder.model));
    }
    bail!(
        "{}: not an index file, nor a folder with index.onr, manifest.onr or {}",
        path.display(),
        deploy::LOADER
    )
}

pub(crate) fn run(path: &Path, question: &str, as_json: bool, lexical: bool) -> Result<()> {
    let (index_path, model_path) = locate(path)?;
    let index = deploy::read_index(&index_path)?;
    let model = match model_path.filter(|_| !lexical) {
        Some(model_path) => Some(deploy::read_model(&model_path, &index, &index_path)?),
        None => None,
    };
    let answer = ask(&index, model.as_ref(), question, &AnswerConfig::DEFAULT);
    let by_meaning = asks_by_meaning(&index, model.as_ref(), question);
    if as_json {
        println!("{:#}", to_json(&answer, by_meaning));
    } else {
        print!("{}", to_text(&answer, by_meaning));
    }
    Ok(())
}

fn mode(answer: &Answer) -> &'static str {
    match answer.mode {
        Mode::Answer => "answer",
        Mode::RelatedMaterial => "related-material",
        Mode::NotFound => "not-found",
        _ => "other",
    }
}

/// The decline's gate (the widget's names) and its reason in words.
fn decline_reason(decline: &Decline) -> (&'static str, String) {
    let quoted = |terms: &[String]| {
        terms
            .iter()
            .map(|t| format!("‘{t}’"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let percent = |share: f32| (share.clamp(0.0, 1.0) * 100.0).round() as u32;
    // As the widget says it (messages.js `gateOf`): with every word of the question covered,
    // the decline model weighed the evidence as a whole, so no percentage explains it.
    let weak = "the closest passage uses the question's words but does not answer it clearly enough to be quoted";
    match decline {
        Decline::NoContentWords => (
            "no-content-words",
            "the question has no content words".into(),
        ),
        Decline::NeverMentioned { terms } => (
            "never-mentioned",
            format!("no page mentions {}", quoted(terms)),
        ),
        Decline::Missing { terms } => (
            "missing",
            format!("the closest passage does not mention {}", quoted(terms)),
        ),
        Decline::Unsupported { coverage } if percent(*coverage) >= 100 => {
            ("unsupported", weak.into())
        }
        Decline::BelowFloor { coverage, .. } if percent(*coverage) >= 100 => {
            ("below-floor", weak.into())
        }
        Decline::Unsupported { coverage } => (
            "unsupported",
            format!(
                "the best sentence carries only {}% of the question",
                percent(*coverage)
            ),
        ),
        Decline::NoAmount => (
            "no-amount",
            "the question asks for a number and the closest sentence gives none".into(),
        ),
        Decline::BelowFloor { coverage, meaning } => (
            "below-floor",
            match meaning {
                Some(cos) => format!(
                    "the best passage covers {}% of the question's words, meaning similarity {cos:.2}",
                    percent(*coverage)
                ),
                None => format!(
                    "the best passage covers only {}% of the question's words",
                    percent(*coverage)
                ),
            },
        ),
        Decline::OtherLanguage { lang } => (
            "other-language",
            format!(
                "the question reads as language '{}', and no page is in it",
                lang.tag()
            ),
        ),
        _ => ("other", "declined".into()),
    }
}

fn cite(citation: &Citation) -> String {
    let place = if citation.section.is_empty() {
        citation.title.clone()
    } else {
        format!("{} › {}", citation.title, citation.section)
    };
    format!("{place} <{}>", citation.url)
}

fn to_text(answer: &Answer, vectors: bool) -> String {
    let mut out = String::new();
    let matching = if vectors {
        "words and meaning"
    } else {
        "words only"
    };
    if let Some(decline) = &answer.decline {
        let (gate, reason) = decline_reason(decline);
        out += &format!("declined ({gate}): {reason} [matched by {matching}]\n");
    } else {
        out += &format!(
            "{} ({}{}) [matched by {matching}]\n",
            mode(answer),
            answer
                .confidence
                .map_or("no confidence".into(), |c| format!(
                    "{} confidence",
                    c.label()
                )),
            answer
                .completeness
                .as_ref()
                .map_or(String::new(), |c| format!(", {}", c.label())),
        );
    }
    for quote in &answer.quotes {
        if let Some(header) = &quote.header {
            out += &format!("  {header}\n");
        }
        out += &format!("  “{}”\n    — {}\n", quote.text, cite(&quote.citation));
    }
    for hint in &answer.hints {
        out += &format!(
            "  a private note bears on it: {} ({}) <{}>\n",
            hint.label, hint.locator, hint.url
        );
    }
    if !answer.missing_terms.is_empty() {
        out += &format!(
            "  words no page uses: {}\n",
            answer.missing_terms.join(", ")
        );
    }
    if !answer.corrections.is_empty() {
        let read: Vec<String> = answer
            .corrections
            .iter()
            .map(|c| format!("{} → {}", c.from, c.to))
            .collect();
        out += &format!("  read as: {}\n", read.join(", "));
    }
    if !answer.results.is_empty() {
        // Results are never an answer: their own heading, no confidence.
        out += if answer.decline.is_some() {
            "results (not an answer; these sections may help):\n"
        } else {
            "results:\n"
        };
        for r in &answer.results {
            out += &format!(
                "  {}\n    {}\n",
                cite(&r.citation),
                marked(&r.excerpt, &r.highlights)
            );
        }
    }
    out
}

/// `text` with its highlighted ranges in brackets, for a terminal.
fn marked(text: &str, highlights: &[(u32, u32)]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for &(s, e) in highlights {
        let (s, e) = (s as usize, e as usize);
        match (text.get(at..s), text.get(s..e)) {
            (Some(before), Some(word)) => {
                out += before;
                out += "[";
                out += word;
                out += "]";
                at = e;
            }
            _ => continue,
        }
    }
    out + text.get(at..).unwrap_or_default()
}

fn citation_json(c: &Citation) -> Value {
    json!({
        "title": c.title, "section": c.section, "url": c.url,
        "textFragmentUrl": c.text_fragment_url,
        "fragmentNo": c.fragment_no, "fragmentCount": c.fragment_count,
    })
}

fn to_json(answer: &Answer, vectors: bool) -> Value {
    let decline = answer.decline.as_ref().map(|decline| {
        let (gate, reason) = decline_reason(decline);
        let terms: &[String] = match decline {
            Decline::NeverMentioned { terms } | Decline::Missing { terms } => terms,
            _ => &[],
        };
        json!({ "gate": gate, "reason": reason, "terms": terms })
    });
    json!({
        "mode": mode(answer),
        "matchedByMeaning": vectors,
        "confidence": answer.confidence.map(|c| c.label()),
        "completeness": answer.completeness.as_ref().map(|c| c.label()),
        "quotes": answer.quotes.iter().map(|q| json!({
            "text": q.text, "header": q.header, "fragment": q.fragment,
            "start": q.start, "end": q.end, "citation": citation_json(&q.citation),
        })).collect::<Vec<_>>(),
        "related": answer.related.iter().map(|s| citation_json(&s.citation)).collect::<Vec<_>>(),
        "hints": answer.hints.iter().map(|h| json!({
            "label": h.label, "url": h.url, "locator": h.locator,
        })).collect::<Vec<_>>(),
        "decline": decline,
        "missingTerms": answer.missing_terms,
        "results": answer.results.iter().map(|r| json!({
            "url": r.citation.url, "title": r.citation.title, "section": r.citation.section,
            "fragment": r.fragment, "excerpt": r.excerpt,
            "highlights": r.highlights.iter().map(|&(s, e)| [s, e]).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "corrections": answer.corrections.iter().map(|c| json!({
            "from": c.from, "to": c.to,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A percentage explains a decline only when some of the question was not covered.
    #[test]
    fn highlights_are_bracketed_and_bad_ranges_skipped() {
        assert_eq!(
            marked("gzip compression on", &[(5, 16)]),
            "gzip [compression] on"
        );
        assert_eq!(marked("é and", &[(1, 2), (3, 6)]), "é [and]");
        assert_eq!(marked("ab", &[(0, 9)]), "ab");
    }

    #[test]
    fn a_fully_covered_decline_is_not_explained_by_a_percentage() {
        let (gate, full) = decline_reason(&Decline::Unsupported { coverage: 1.0 });
        assert_eq!(gate, "unsupported");
        assert!(
            !full.contains('%') && full.contains("clearly enough"),
            "{full}"
        );
        let (gate, full) = decline_reason(&Decline::BelowFloor {
            coverage: 1.0,
            meaning: Some(0.4),
        });
        assert_eq!(gate, "below-floor");
        assert!(!full.contains('%'), "{full}");
        let (_, part) = decline_reason(&Decline::Unsupported { coverage: 0.4 });
        assert!(part.contains("only 40%"), "{part}");
    }
}
