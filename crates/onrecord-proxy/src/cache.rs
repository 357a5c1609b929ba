//! The answer cache: validated summaries only, keyed on everything that could change them,
//! bounded in bytes and evicted oldest first.

use std::collections::{HashMap, VecDeque};

use sha2::{Digest, Sha256};

use crate::api::SummaryDto;
use crate::prompt::PROMPT_VERSION;

/// The cache key: index format and corpus, normalised question, sorted fragment ids, model,
/// max tokens and prompt version.
pub(crate) fn key(
    index_version: u32,
    corpus_hash: &[u8; 32],
    question: &str,
    fragments: &[u32],
    model: &str,
    max_tokens: u32,
) -> [u8; 32] {
    let mut ids = fragments.to_vec();
    ids.sort_unstable();
    let question: Vec<String> = question.split_whitespace().map(str::to_lowercase).collect();
    let mut h = Sha256::new();
    h.update(index_version.to_le_bytes());
    h.update(corpus_hash);
    h.update(PROMPT_VERSION.to_le_bytes());
    h.update(max_tokens.to_le_bytes());
    // Lengths first, so that no two different tuples hash the same byte string.
    for part in [question.join(" ").as_bytes(), model.as_bytes()] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.update((ids.len() as u64).to_le_bytes());
    for id in ids {
        h.update(id.to_le_bytes());
    }
    h.finalize().into()
}

pub(crate) struct Cache {
    cap_bytes: usize,
    bytes: usize,
    entries: HashMap<[u8; 32], (SummaryDto, usize)>,
    order: VecDeque<[u8; 32]>,
}

impl Cache {
    pub(crate) fn new(cap_bytes: usize) -> Cache {
        Cache {
            cap_bytes,
            bytes: 0,
            entries: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    pub(crate) fn get(&self, key: &[u8; 32]) -> Option<SummaryDto> {
        self.entries.get(key).map(|(s, _)| s.clone())
    }

    /// Stores a summary if it is worth keeping: a verified answer with nothing dropped, or the
    /// model's own clean decline. Upstream failures never get here; invalid or partly
    /// unverified output is refused.
    pub(crate) fn put(&mut self, key: [u8; 32], summary: &SummaryDto) {
        let clean = match summary.mode {
            "answer" => summary.dropped == 0,
            _ => summary.reason == Some("model-declined") && summary.dropped == 0,
        };
        if !clean || self.entries.contains_key(&key) {
            return;
        }
        let size = 64
            + summary
                .claims
                .iter()
                .map(|c| 64 + c.text.len() + c.title.len() + c.section.len() + c.url.len())
                .sum::<usize>();
        if size > self.cap_bytes {
            return;
        }
        while self.bytes + size > self.cap_bytes {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some((_, n)) = self.entries.remove(&old) {
                self.bytes -= n;
            }
        }
        self.bytes += size;
        self.entries.insert(key, (summary.clone(), size));
        self.order.push_back(key);
    }

    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ClaimDto;

    fn answer(text: &str) -> SummaryDto {
        SummaryDto {
            mode: "answer",
            reason: None,
            claims: vec![ClaimDto {
                fragment: 0,
                start: 0,
                end: text.len() as u32,
                text: text.into(),
                title: "t".into(),
                section: "s".into(),
                url: "/u".into(),
            }],
            dropped: 0,
            cached: false,
        }
    }

    #[test]
    fn the_key_changes_with_every_part_and_only_then() {
        let h = [7u8; 32];
        let base = key(2, &h, "How  do I Return?", &[3, 1], "m", 400);
        assert_eq!(base, key(2, &h, "how do i return?", &[1, 3], "m", 400));
        assert_ne!(base, key(3, &h, "how do i return?", &[1, 3], "m", 400));
        assert_ne!(
            base,
            key(2, &[8; 32], "how do i return?", &[1, 3], "m", 400)
        );
        assert_ne!(base, key(2, &h, "how do i refund?", &[1, 3], "m", 400));
        assert_ne!(base, key(2, &h, "how do i return?", &[1, 4], "m", 400));
        assert_ne!(base, key(2, &h, "how do i return?", &[1, 3], "n", 400));
        assert_ne!(base, key(2, &h, "how do i return?", &[1, 3], "m", 401));
    }

    #[test]
    fn stays_under_its_cap_and_refuses_unclean_summaries() {
        let mut c = Cache::new(10_000);
        for i in 0u32..10_000 {
            let mut k = [0u8; 32];
            k[..4].copy_from_slice(&i.to_le_bytes());
            c.put(k, &answer("some quoted text of moderate length"));
            assert!(c.bytes() <= 10_000);
        }
        let mut partly = answer("x");
        partly.dropped = 1;
        c.put([1; 32], &partly);
        assert_eq!(c.get(&[1; 32]), None);
        let invalid = SummaryDto {
            mode: "not-found",
            reason: Some("model-output-invalid"),
            claims: vec![],
            dropped: 0,
            cached: false,
        };
        c.put([2; 32], &invalid);
        assert_eq!(c.get(&[2; 32]), None);
    }
}
