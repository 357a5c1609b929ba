//! Collections: the kinds of truth a site's pages hold — how something works (guides), why it
//! was decided (decisions), what it is (reference), what changed (release notes) — or a kind
//! the site names itself. A page belongs to at most one; an answer labels each quote with its
//! collection and takes at most `cap` quotes from each. Decision records are quoted for
//! questions that ask why (or about a decision), as release notes are for questions about
//! versions or changes: to anything else their history ("until 2024 the warranty was three
//! years") would be a misleading answer.

use serde::{Deserialize, Serialize};

use crate::lang::{self, List};
use crate::question::Question;

/// A collection of pages, as the index stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collection {
    /// `guides`, `decisions`, `reference`, `release-notes`, or the site's own name.
    pub name: String,
    /// The site owner's label for quotes from it; empty: the widget words the label of a
    /// built-in collection itself (in the visitor's language) and shows other names as they are.
    pub label: String,
    /// At most this many quotes of one answer come from this collection.
    pub cap: u32,
}

impl Collection {
    /// The cap when the site sets none: as many quotes as an answer has.
    pub const DEFAULT_CAP: u32 = 3;

    /// The built-in collection names: guides (how), decisions (why), reference, release notes.
    pub const BUILT_IN: [&'static str; 4] = ["guides", "decisions", "reference", "release-notes"];

    /// A collection with the default cap and no label of its own.
    pub fn named(name: &str) -> Collection {
        Collection {
            name: name.to_owned(),
            label: String::new(),
            cap: Collection::DEFAULT_CAP,
        }
    }

    /// Whether its pages record why something was decided: an explanation request ("why?")
    /// looks there as well as on the pages it follows up.
    pub fn is_decisions(&self) -> bool {
        self.name == "decisions"
    }

    /// Whether it holds release notes, which are quoted only for questions about versions or
    /// changes (its pages get [`crate::PageKind::ReleaseNotes`]).
    pub fn is_release_notes(&self) -> bool {
        self.name == "release-notes"
    }
}

/// Whether a question asks about a decision ("who decided…", "when will you reconsider…"),
/// so decision records may answer it even without a "why".
pub fn asks_about_decisions(question: &Question) -> bool {
    question
        .words()
        .iter()
        .any(|w| lang::in_any(List::DecisionWords, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_about_decisions() {
        assert!(asks_about_decisions(&Question::new(
            "Who decided that every bike gets the same motor?"
        )));
        assert!(asks_about_decisions(&Question::new(
            "When will you reconsider building an app?"
        )));
        assert!(asks_about_decisions(&Question::new(
            "Warum ist montags geschlossen?"
        )));
        assert!(!asks_about_decisions(&Question::new(
            "How many years is the frame warranty?"
        )));
    }
}
