//! `onrecord ask`: one question against an index, printed for a site owner (or as JSON).

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use onrecord_core::{
    Answer, AnswerConfig, Citation, Decline, Mode, Question, ask, asks_by_meaning,
};
use serde_json::{Value, json};

use crate::{deploy, messages};

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
    let by_meaning = asks_by_meaning(&index, model.as_ref(), &Question::new(question));
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
    let matching = messages::matched_by(vectors);
    if let Some(decline) = &answer.decline {
        let (gate, reason) = messages::decline(decline);
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
            "  {}: {} ({}) <{}>\n",
            messages::PRIVATE_NOTE,
            hint.label,
            hint.locator,
            hint.url
        );
    }
    if !answer.missing_terms.is_empty() {
        out += &format!(
            "  {}: {}\n",
            messages::WORDS_NO_PAGE_USES,
            answer.missing_terms.join(", ")
        );
    }
    if !answer.corrections.is_empty() {
        let read: Vec<String> = answer
            .corrections
            .iter()
            .map(|c| format!("{} → {}", c.from, c.to))
            .collect();
        out += &format!("  {}: {}\n", messages::READ_AS, read.join(", "));
    }
    if !answer.results.is_empty() {
        // Results are never an answer: their own heading, no confidence.
        out += messages::results_heading(answer.decline.is_some());
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
        let (gate, reason) = messages::decline(decline);
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

    #[test]
    fn highlights_are_bracketed_and_bad_ranges_skipped() {
        assert_eq!(
            marked("gzip compression on", &[(5, 16)]),
            "gzip [compression] on"
        );
        assert_eq!(marked("é and", &[(1, 2), (3, 6)]), "é [and]");
        assert_eq!(marked("ab", &[(0, 9)]), "ab");
    }
}
