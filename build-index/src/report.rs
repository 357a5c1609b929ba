//! What a build did, for people: the [`Report`] and its printed form, and the log that
//! lists a few warnings of each kind and counts the rest.

use std::collections::BTreeMap;
use std::fmt;

use onrecord_core::PageKind;

#[cfg(feature = "experiments")]
use crate::AdaptStats;
use crate::EmbedStats;
use crate::selection::Input;

/// What a build did, for people.
#[derive(Debug, Default)]
pub struct Report {
    pub pages_indexed: usize,
    pub drafts_skipped: Vec<String>,
    pub superseded: Vec<(String, String)>,
    pub private_notes: usize,
    /// What the corpus was read as.
    pub input: Input,
    /// Pages that asked not to be indexed, with the reason.
    pub pages_skipped: Vec<(String, String)>,
    pub warnings: Vec<String>,
    pub other_files: usize,
    pub fragments: usize,
    pub terms: usize,
    pub input_bytes: u64,
    pub index_bytes: usize,
    /// Serialized size of each part of the payload.
    pub bytes_by_part: Vec<(&'static str, usize)>,
    /// What embedding the fragments did (when built with vectors).
    pub embedding: Option<EmbedStats>,
    /// What adapting the query model to the site did (when asked for).
    #[cfg(feature = "experiments")]
    pub adaptation: Option<AdaptStats>,
    /// Pages set aside from quoted answers (release notes, listings), with their kind and
    /// whether the site owner declared it.
    pub set_aside: Vec<(String, PageKind, bool)>,
    /// Collections with the number of indexed pages in each.
    pub collections: Vec<(String, usize)>,
    /// Blocks of a built site's chrome (menus, footers on most pages), not indexed.
    pub chrome: Vec<String>,
    /// A built site's banner heading (the first `<h1>` of most pages, so no page's title) and
    /// how many pages were titled by their own top heading or their `<title>` instead.
    pub banner: Option<(String, usize)>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_input(f)?;
        self.fmt_pages(f)?;
        for warning in &self.warnings {
            writeln!(f, "warning: {warning}")?;
        }
        if self.other_files > 0 {
            writeln!(
                f,
                "other files       {} (not pages, ignored)",
                self.other_files
            )?;
        }
        self.fmt_sizes(f)?;
        self.fmt_embedding(f)?;
        #[cfg(feature = "experiments")]
        self.fmt_adaptation(f)?;
        Ok(())
    }
}

impl Report {
    /// What was read as what, and what of it was left out before indexing.
    fn fmt_input(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = match self.input {
            Input::Markdown => "markdown",
            Input::Html => "HTML (a built site)",
        };
        writeln!(f, "input             {input}")?;
        writeln!(f, "pages indexed     {}", self.pages_indexed)?;
        // A generator's redirect pages can number in the hundreds: the first few say what
        // kind of page was skipped, the count says how many.
        let skipped: Vec<String> = self
            .pages_skipped
            .iter()
            .take(MAX_LISTED)
            .map(|(page, why)| format!("{page}: {why}"))
            .collect();
        if !skipped.is_empty() {
            writeln!(
                f,
                "pages skipped     {}{}",
                self.pages_skipped.len(),
                list_first(&skipped, self.pages_skipped.len())
            )?;
        }
        if !self.chrome.is_empty() {
            let shown: Vec<String> = self
                .chrome
                .iter()
                .take(3)
                .map(|text| format!("\"{}\"", onrecord_core::shorten(text, 40)))
                .collect();
            writeln!(
                f,
                "site chrome       {} blocks on most pages (menus, footers), not indexed{}",
                self.chrome.len(),
                list_first(&shown, self.chrome.len())
            )?;
        }
        if let Some((banner, pages)) = &self.banner {
            writeln!(
                f,
                "banner heading    \"{}\" opens most pages: {pages} titled by their own heading or <title> instead",
                onrecord_core::shorten(banner, 40)
            )?;
        }
        Ok(())
    }

    /// What became of the pages read: drafts, superseded and set-aside pages, collections,
    /// private notes.
    fn fmt_pages(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "drafts skipped    {}{}",
            self.drafts_skipped.len(),
            list(&self.drafts_skipped)
        )?;
        let superseded: Vec<String> = self
            .superseded
            .iter()
            .map(|(a, b)| format!("{a} -> {b}"))
            .collect();
        writeln!(
            f,
            "superseded        {}{}",
            superseded.len(),
            list(&superseded)
        )?;
        let set_aside: Vec<String> = self
            .set_aside
            .iter()
            .map(|(path, kind, declared)| {
                let kind = match kind {
                    PageKind::ReleaseNotes => "release notes",
                    PageKind::Listing => "listing",
                    _ => "page",
                };
                let how = if *declared {
                    "declared"
                } else {
                    "from its structure"
                };
                format!("{path} ({kind}, {how})")
            })
            .collect();
        writeln!(
            f,
            "set aside         {} (quoted only for questions about versions or changes){}",
            set_aside.len(),
            list(&set_aside)
        )?;
        let collections: Vec<String> = self
            .collections
            .iter()
            .map(|(name, pages)| format!("{name}: {pages}"))
            .collect();
        writeln!(
            f,
            "collections       {}{}",
            collections.len(),
            list(&collections)
        )?;
        writeln!(
            f,
            "private notes     {} (routing hints only; bodies never indexed)",
            self.private_notes
        )?;
        Ok(())
    }

    /// The index's size, in all and by part.
    fn fmt_sizes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fragments         {}", self.fragments)?;
        writeln!(f, "terms             {}", self.terms)?;
        writeln!(f, "input             {} bytes", self.input_bytes)?;
        writeln!(f, "index             {} bytes", self.index_bytes)?;
        let per_fragment = |bytes: u64| bytes as f64 / self.fragments.max(1) as f64;
        for (part, bytes) in &self.bytes_by_part {
            let bytes = *bytes as u64;
            let each = per_fragment(bytes);
            writeln!(f, "  {part:<38} {bytes:>9} bytes  {each:>7.1} per fragment")?;
        }
        Ok(())
    }

    /// What embedding the fragments did, or that there are no vectors.
    fn fmt_embedding(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.embedding {
            Some(e) => {
                writeln!(
                    f,
                    "embedding         {} fragments in {:.1} s ({:.1} fragments/s): {} from the cache, {} embedded",
                    e.fragments,
                    e.total_secs,
                    e.fragments as f64 / e.total_secs.max(1e-9),
                    e.cache_hits,
                    e.embedded,
                )?;
                if e.embedded > 0 {
                    writeln!(
                        f,
                        "  teacher                                {:.1} fragments/s on {} threads",
                        e.embedded as f64 / e.teacher_secs.max(1e-9),
                        e.threads
                    )?;
                }
                match &e.cache_dir {
                    Some(dir) => writeln!(
                        f,
                        "  cache                                  {}",
                        dir.display()
                    )?,
                    None => writeln!(
                        f,
                        "  cache                                  none (in memory only)"
                    )?,
                }
            }
            None => writeln!(
                f,
                "embedding         none (no --teacher/--model-dir): lexical retrieval only"
            )?,
        }
        Ok(())
    }

    /// What adapting the query model to the site did (when asked for).
    #[cfg(feature = "experiments")]
    fn fmt_adaptation(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(a) = &self.adaptation {
            writeln!(
                f,
                "query model       adapted to the site in {:.1} s ({:.2} s per 1k fragments): {} pseudo-queries, {} rows changed, {} bytes; pseudo-query cos {:.3} -> {:.3} (float {:.3})",
                a.secs,
                a.secs * 1000.0 / self.fragments.max(1) as f64,
                a.pseudo_queries,
                a.rows_changed,
                a.model_bytes,
                a.cos_before,
                a.cos_after,
                a.cos_trained,
            )?;
        }
        Ok(())
    }
}

/// Skipped pages the build report names before it says "and N more".
const MAX_LISTED: usize = 10;

/// The first few of `total` items, and how many more there are.
fn list_first(shown: &[String], total: usize) -> String {
    match total.saturating_sub(shown.len()) {
        0 => list(shown),
        more => format!("{} and {more} more", list(shown)),
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        String::new()
    } else {
        format!(" ({})", items.join(", "))
    }
}

/// Warnings of one kind the build lists before it counts the rest.
pub const MAX_SAME_WARNINGS: usize = 5;

/// Warnings, at most [`MAX_SAME_WARNINGS`] of each kind, and a count of the rest.
#[derive(Default)]
pub(crate) struct WarningLog {
    lines: Vec<String>,
    /// Per kind: how many were listed, and how many more were only counted.
    counts: BTreeMap<String, (usize, usize)>,
}

impl WarningLog {
    pub(crate) fn push(&mut self, kind: &str, line: String) {
        let (listed, more) = self.counts.entry(kind.to_owned()).or_default();
        if *listed < MAX_SAME_WARNINGS {
            *listed += 1;
            self.lines.push(line);
        } else {
            *more += 1;
        }
    }

    /// The listed warnings, then one line per kind with the count of those not listed.
    pub(crate) fn finish(self) -> Vec<String> {
        let mut lines = self.lines;
        for (kind, (_, more)) in self.counts.into_iter().filter(|(_, (_, more))| *more > 0) {
            lines.push(format!("{more} more like the above: {kind}"));
        }
        lines
    }
}

/// The kind of a reader's warning, for [`WarningLog`]: an include not rendered (the include
/// module's warnings end so, and its count of those it did not list), generator syntax
/// dropped, an unsupported `<html lang>`, or else the warning itself (so only its exact repeats
/// are counted).
pub(crate) fn page_warning_kind(warning: &str) -> &str {
    if warning.ends_with("; nothing included") {
        "includes not rendered"
    } else if warning.ends_with(", not listed") {
        "pages with more includes not rendered"
    } else if warning.ends_with("; dropped") {
        "generator syntax dropped"
    } else if warning.contains("is not a supported language; read as") {
        "unsupported languages"
    } else {
        warning
    }
}
