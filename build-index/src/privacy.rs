//! Private notes: which files are private, and the routing hint a note gives from its
//! frontmatter alone; no byte of a note's body reaches the index.

use onrecord_core::{Lang, RoutingHint};
use onrecord_sources::frontmatter;

use crate::Options;

/// A private note as the index may know it: its routing hint and routing keywords.
pub(crate) struct Note {
    pub(crate) hint: RoutingHint,
    pub(crate) keywords: Vec<String>,
    pub(crate) lang: Lang,
}

/// The prefix of paths in the private folder, `private/`.
pub(crate) fn private_prefix(options: &Options) -> String {
    format!("{}/", options.private_dir.trim_matches('/'))
}

/// Whether a file is private: in the private folder (`rel`, when it lies inside the corpus) or
/// declared so in its frontmatter. An include never brings such a file into a public page.
pub(crate) fn is_private(private_prefix: &str, rel: Option<&str>, bytes: &[u8]) -> bool {
    rel.is_some_and(|r| r.starts_with(private_prefix)) || declares_private(bytes)
}

/// The routing hint a private note file gives (from its frontmatter only).
pub fn note_hint(bytes: &[u8], options: &Options) -> Option<RoutingHint> {
    private_note(bytes, options).map(|note| note.hint)
}

/// Whether a file's frontmatter declares it private; unreadable frontmatter counts as private
/// only if it mentions `private:` at all (then the build will not publish it).
pub(crate) fn declares_private(bytes: &[u8]) -> bool {
    let Ok(source) = std::str::from_utf8(bytes) else {
        return false;
    };
    match frontmatter::split("", source) {
        Ok((fm, _, _)) => fm.is_private(),
        Err(_) => source
            .lines()
            .take_while(|l| !l.is_empty())
            .any(|l| l.trim_start().starts_with("private:")),
    }
}

/// The routing hint of a private note, from its frontmatter only. `None` when the frontmatter
/// cannot be read (the note is then skipped; its path is named, its content never).
pub(crate) fn private_note(bytes: &[u8], options: &Options) -> Option<Note> {
    let source = std::str::from_utf8(bytes).ok()?;
    let (fm, _body, _) = frontmatter::split("", source).ok()?;
    Some(Note {
        hint: RoutingHint {
            label: fm
                .title
                .clone()
                .unwrap_or_else(|| "Private note".to_owned()),
            url: fm.about.clone().unwrap_or_default(),
            locator: fm.locator.clone().unwrap_or_default(),
        },
        keywords: fm.keywords.to_vec(),
        lang: fm
            .lang
            .as_deref()
            .and_then(Lang::from_tag)
            .unwrap_or(options.default_lang),
    })
}
