//! Gates after generation: strict parsing of the model's reply, quote verification against the
//! proxy's own copy of each fragment, and the mode re-derived from what survives.

use onrecord_core::{Index, section_url, verify_quote};
use serde::Deserialize;

use crate::api::{ClaimDto, SummaryDto};

/// At most this many claims; a reply with more is refused whole (a flood of overlapping quotes
/// is not an answer).
pub(crate) const MAX_CLAIMS: usize = 8;
/// The model's own wording is cut to this many characters.
const MAX_ANSWER_CHARS: usize = 600;

/// What the model must return. Unknown fields (`html`, `url`, `tool_calls`, …) fail the parse.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelReply {
    found: bool,
    // Required by the contract but never kept: the provisional stream has already shown it.
    #[serde(rename = "answer")]
    _answer: String,
    claims: Vec<ModelClaim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelClaim {
    quote: String,
    fragment: u32,
}

/// Checks the model's raw output. `sent` are the fragment ids the browser asked about.
/// `finish_reason` other than `stop` (cut by length, filtered) declines.
pub(crate) fn check(
    index: &Index,
    sent: &[u32],
    content: &str,
    finish_reason: Option<&str>,
) -> SummaryDto {
    if matches!(finish_reason, Some(r) if r != "stop") {
        return decline("model-output-cut", 0);
    }
    let Ok(reply) = serde_json::from_str::<ModelReply>(content.trim()) else {
        return decline("model-output-invalid", 0);
    };
    if reply.claims.len() > MAX_CLAIMS {
        return decline("model-output-invalid", reply.claims.len());
    }
    if !reply.found {
        // A decline with quotes attached is still a decline; the quotes count as dropped.
        return decline("model-declined", reply.claims.len());
    }
    let mut claims: Vec<ClaimDto> = Vec::new();
    let mut dropped = 0;
    for claim in &reply.claims {
        match verified(index, sent, claim) {
            // The same quote twice is shown once; a repeat is no unchecked quote.
            Some(c)
                if claims
                    .iter()
                    .any(|k| k.fragment == c.fragment && k.start == c.start && k.end == c.end) => {}
            Some(c) => claims.push(c),
            None => dropped += 1,
        }
    }
    if claims.is_empty() {
        return decline("no-verified-quote", dropped);
    }
    SummaryDto {
        mode: "answer",
        reason: None,
        claims,
        dropped,
        cached: false,
    }
}

/// A claim that cites a sent fragment and quotes it (whole words, at least
/// [`onrecord_core::MIN_QUOTE_WORDS`]: the core's rule, the same the browser checks); the text
/// is taken from the fragment.
fn verified(index: &Index, sent: &[u32], claim: &ModelClaim) -> Option<ClaimDto> {
    if !sent.contains(&claim.fragment) {
        return None;
    }
    let frag = index.fragment(claim.fragment)?;
    let range = verify_quote(&frag.text, &claim.quote)?;
    let doc = index.doc(frag.doc)?;
    let url = section_url(&doc.url, &frag.anchor);
    Some(ClaimDto {
        fragment: claim.fragment,
        start: u32::try_from(range.start).ok()?,
        end: u32::try_from(range.end).ok()?,
        text: frag.text.get(range)?.to_string(),
        title: doc.title.clone(),
        section: frag.heading_path.join(" › "),
        url,
    })
}

fn decline(reason: &'static str, dropped: usize) -> SummaryDto {
    SummaryDto {
        mode: "not-found",
        reason: Some(reason),
        claims: Vec::new(),
        dropped,
        cached: false,
    }
}

/// The `answer` string of a reply that is still being written, for the provisional display:
/// the JSON string value after `"answer":`, decoded as far as it goes, and whether it is
/// complete (its closing quote arrived, or it reached the display cap). `None` until it starts.
pub(crate) fn partial_answer(buf: &str) -> Option<(String, bool)> {
    let key = buf.find("\"answer\"")?;
    let rest = buf.get(key + "\"answer\"".len()..)?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some((out, true)),
            '\\' => match chars.next() {
                Some('n') | Some('t') | Some('r') => out.push(' '),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if hex.len() < 4 {
                        // Half an escape: wait for the rest ("\u00" is not NUL).
                        break;
                    }
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(c) if c.is_control() => out.push(' '),
                        Some(c) => out.push(c),
                        None => {}
                    }
                }
                Some(c) if c.is_control() => out.push(' '),
                Some(c) => out.push(c),
                None => break,
            },
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
        if out.chars().count() >= MAX_ANSWER_CHARS {
            return Some((out, true));
        }
    }
    Some((out, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use onrecord_core::{
        Block, IndexBuilder, IndexSettings, Lang, SourceDoc, SourceSection, chunk,
    };
    use proptest::prelude::*;
    use serde_json::json;

    const TEXT: &str =
        "Unused parts and accessories can be returned within 60 days. Helmets only sealed.";

    fn index() -> Index {
        let mut builder = IndexBuilder::new(Lang::English, IndexSettings::STANDARD);
        for (i, text) in [TEXT, "You have 30 days from the day of delivery."]
            .iter()
            .enumerate()
        {
            let doc = SourceDoc {
                path: format!("{i}.md"),
                url: format!("/{i}/"),
                title: "Returns".into(),
                lang: Lang::English,
                themes: vec![],
                collection: None,
                sections: vec![SourceSection {
                    heading_path: vec!["Parts".into()],
                    anchor: "parts".into(),
                    blocks: vec![Block::paragraph(*text)],
                }],
            };
            builder.add(&doc, &chunk(&doc, 800));
        }
        builder.finish()
    }

    /// Model output: the contract's shape with quotes cut anywhere from the fragments, or
    /// that shape broken.
    fn model_output() -> impl Strategy<Value = String> {
        let claim =
            (0..TEXT.len(), 0..TEXT.len(), 0u32..4, any::<bool>()).prop_map(|(a, b, f, upper)| {
                let (a, b) = (a.min(b), a.max(b));
                let quote = TEXT.get(a..b).unwrap_or("");
                let quote = if upper {
                    quote.to_uppercase()
                } else {
                    quote.to_string()
                };
                json!({"quote": quote, "fragment": f})
            });
        (
            any::<bool>(),
            proptest::collection::vec(claim, 0..10),
            0usize..400,
            any::<u8>(),
        )
            .prop_map(|(found, claims, cut, junk)| {
                let whole = json!({"found": found, "answer": "a", "claims": claims}).to_string();
                match junk % 4 {
                    0 => whole.get(..cut.min(whole.len())).unwrap_or("").to_string(),
                    1 => format!("{whole}{}", char::from(junk)),
                    _ => whole,
                }
            })
    }

    proptest! {
        #[test]
        fn any_model_output_gives_verified_claims_or_a_decline(content in model_output()) {
            let index = index();
            let s = check(&index, &[0, 1], &content, Some("stop"));
            for c in &s.claims {
                prop_assert!(c.fragment < 2);
                let text = &index.fragments[c.fragment as usize].text;
                prop_assert_eq!(text.get(c.start as usize..c.end as usize), Some(c.text.as_str()));
                prop_assert_eq!(onrecord_core::verify_quote(text, &c.text), Some(c.start as usize..c.end as usize));
            }
            prop_assert_eq!(s.mode == "answer", !s.claims.is_empty());
        }

        #[test]
        fn a_partial_answer_never_panics_and_never_grows_past_the_cap(buf in "\\PC{0,80}(\"answer\" ?: ?\")?(\\PC|\\\\u[0-9a-f]{0,4}|\\\\.){0,700}") {
            if let Some((text, _)) = partial_answer(&buf) {
                prop_assert!(text.chars().count() <= MAX_ANSWER_CHARS);
                prop_assert!(!text.contains('\0'));
            }
        }
    }

    #[test]
    fn partial_answer_follows_the_stream() {
        assert_eq!(partial_answer("{\"found\": true, \"ans"), None);
        assert_eq!(
            partial_answer("{\"found\":true,\"answer\":\"Ref"),
            Some(("Ref".into(), false))
        );
        assert_eq!(
            partial_answer("{\"answer\": \"a \\\"b\\\"\\nc\\u00e9\", \"claims\": []}"),
            Some(("a \"b\" cé".into(), true))
        );
        assert_eq!(
            partial_answer("{\"answer\": \"x\\u00"),
            Some(("x".into(), false)),
            "half an escape waits"
        );
    }
}
