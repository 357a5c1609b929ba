//! Generator syntax that survives into text, and how each piece renders: mdBook-spec rule ids,
//! admonition markers, MyST/Sphinx directives and roles, rST roles and links.
//!
//! These rules work on text, so the markdown pre-pass ([`crate::prose`]) and readers of built
//! pages share them (a generator run without its preprocessor leaves the same syntax in HTML).

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// Whether a line is an mdBook-spec rule id, `r[lifetime-elision.function.intro]`: the
/// preprocessor turns it into a link anchor, so it is never text.
pub(crate) fn is_rule_id(line: &str) -> bool {
    static RULE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^r\[[A-Za-z0-9_.-]+\]$").expect("valid regex"));
    RULE.is_match(line.trim())
}

/// An admonition marker at the start of `text`, `[!NOTE]` or `[!EDITION-2024]` (GitHub's
/// alerts, mdBook-spec's admonitions): its label (`Note`, `Edition 2024`) and the rest.
pub(crate) fn admonition(text: &str) -> Option<(String, &str)> {
    let rest = text.trim_start().strip_prefix("[!")?;
    let end = rest.find(']')?;
    let kind = &rest[..end];
    let valid = kind.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && kind
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then(|| (label(kind), &rest[end + 1..]))
}

/// Whether an admonition's title is a label ("Note", "See also", "Edition 2024") that leads
/// its first paragraph, rather than a sentence of its own ("Note - Black is now stable!").
pub(crate) fn is_label(title: &str) -> bool {
    let words = title.split_whitespace().count();
    (1..=3).contains(&words) && !title.ends_with(['!', '?', '.'])
}

/// A line that is only a template placeholder, `{{ grammar-summary }}` (mdBook-spec's, left
/// in the page when the preprocessor does not run).
pub(crate) fn is_placeholder(trimmed: &str) -> bool {
    trimmed
        .strip_prefix("{{")
        .and_then(|r| r.strip_suffix("}}"))
        .is_some_and(|inner| !inner.contains(['{', '}']) && !inner.trim().is_empty())
}

/// Whether a line is only an mdBook helper, `{{#include ../x.rs}}`: mdBook leaves one in the
/// page when it cannot read the file.
pub(crate) fn is_mdbook_helper(line: &str) -> bool {
    let t = line.trim();
    [
        "{{#include",
        "{{#rustdoc_include",
        "{{#playground",
        "{{#title",
    ]
    .iter()
    .any(|h| t.starts_with(h))
        && t.ends_with("}}")
}

/// `EDITION-2024` → `Edition 2024`, `NOTE` → `Note`, `seealso` → `See also`.
pub(crate) fn label(kind: &str) -> String {
    if kind.eq_ignore_ascii_case("seealso") {
        return "See also".to_owned();
    }
    let words: Vec<String> = kind
        .split(['-', '_'])
        .filter(|w| !w.is_empty())
        .enumerate()
        .map(|(i, w)| {
            let lower = w.to_lowercase();
            let mut chars = lower.chars();
            match chars.next() {
                Some(first) if i == 0 => first.to_uppercase().chain(chars).collect(),
                _ => lower,
            }
        })
        .collect();
    words.join(" ")
}

/// How a MyST/Sphinx directive renders in a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Directive {
    /// Its body, the first paragraph led by a label (`Note:`).
    Labelled(String),
    /// Its argument as a paragraph (a title), then its body.
    Titled,
    /// Its body as a code block.
    Code,
    /// Nothing: navigation, images, build-time output, cross-reference targets.
    Dropped,
}

/// What a directive named `name` (with argument `arg`) becomes. Domain prefixes
/// (`py:function`) are kept: domain directives are signatures, shown as titles.
pub(crate) fn directive(name: &str, arg: &str) -> Directive {
    let name = name.to_ascii_lowercase();
    let versioned = |what: &str| {
        let arg = arg.split_whitespace().next().unwrap_or_default();
        Directive::Labelled(format!("{what} {arg}").trim_end().to_owned())
    };
    match name.as_str() {
        "attention" | "caution" | "danger" | "error" | "hint" | "important" | "note"
        | "seealso" | "tip" | "warning" | "todo" => Directive::Labelled(label(&name)),
        "versionadded" => versioned("Added in version"),
        "versionchanged" => versioned("Changed in version"),
        "deprecated" => versioned("Deprecated since version"),
        "versionremoved" => versioned("Removed in version"),
        "code-block" | "code" | "sourcecode" | "code-cell" | "math" | "parsed-literal"
        | "csv-table" => Directive::Code,
        "toctree" | "contents" | "include" | "literalinclude" | "image" | "raw"
        | "program-output" | "command-output" | "index" | "highlight" | "tabularcolumns"
        | "autosummary" | "mermaid" | "graphviz" | "plantuml" | "bibliography"
        | "footbibliography" | "sectionauthor" | "codeauthor" | "moduleauthor" | "meta"
        | "currentmodule" | "default-role" | "role" | "tableofcontents" | "target" => {
            Directive::Dropped
        }
        n if n.starts_with("auto") || n.ends_with(":module") || n.ends_with(":currentmodule") => {
            Directive::Dropped
        }
        // A custom admonition's title: a label when it is one, else a paragraph of its own.
        "admonition" if is_label(arg) => Directive::Labelled(arg.to_owned()),
        _ => Directive::Titled,
    }
}

/// Renders MyST roles (``{doc}`text <target>` ``), rST roles (``:ref:`text` ``) and rST links
/// (`` `text <url>`_ ``) in a line of markdown as the built page shows them.
pub(crate) fn roles(line: &str) -> String {
    static MYST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(^|[^`$\w])\{([A-Za-z][\w:.+-]*)\}(?:``(.+?)``|`([^`]+)`)")
            .expect("valid regex")
    });
    static RST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(^|[\s(]):([A-Za-z][\w:.+-]*):`([^`]+)`").expect("valid regex")
    });
    static RST_LINK: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"`([^`<]+?)\s*<[^`<>]+>`__?").expect("valid regex"));
    if !line.contains('`') {
        return line.to_owned();
    }
    let line = MYST.replace_all(line, |c: &Captures<'_>| {
        let content = c.get(3).or_else(|| c.get(4)).map_or("", |m| m.as_str());
        format!("{}{}", &c[1], role(&c[2], content))
    });
    let line = RST.replace_all(&line, |c: &Captures<'_>| {
        format!("{}{}", &c[1], role(&c[2], &c[3]))
    });
    RST_LINK.replace_all(&line, "$1").into_owned()
}

/// A role as the page shows it: cross-references as their title (or target), other roles as
/// inline code.
fn role(name: &str, content: &str) -> String {
    let name = name.to_ascii_lowercase();
    let (title, target) = match content
        .trim_end()
        .strip_suffix('>')
        .and_then(|c| c.rsplit_once('<'))
    {
        Some((title, target)) if !title.trim().is_empty() => (Some(title.trim()), target),
        _ => (None, content),
    };
    let text = title.map_or_else(
        || {
            let target = target.trim().trim_start_matches('!');
            match target.strip_prefix('~') {
                Some(path) => path.rsplit('.').next().unwrap_or(path).to_owned(),
                None => target.to_owned(),
            }
        },
        str::to_owned,
    );
    let plain = matches!(
        name.as_str(),
        "doc"
            | "ref"
            | "term"
            | "numref"
            | "any"
            | "download"
            | "kbd"
            | "guilabel"
            | "menuselection"
            | "std:doc"
            | "std:ref"
            | "abbr"
            | "sup"
            | "sub"
            | "dfn"
            | "eq"
    );
    if name == "abbr" {
        // `{abbr}`LIFO (last-in, first-out)``: the page shows the abbreviation.
        return text.split(" (").next().unwrap_or(&text).to_owned();
    }
    if plain { text } else { format!("`{text}`") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_and_admonitions() {
        assert!(is_rule_id("r[lifetime-elision.function.intro]"));
        assert!(is_rule_id("  r[items.fn] "));
        assert!(!is_rule_id("r[i] is the i-th row"));
        assert!(!is_rule_id("let x = r[0];"));
        assert_eq!(
            admonition("[!EDITION-2024] rest"),
            Some(("Edition 2024".to_owned(), " rest"))
        );
        assert_eq!(admonition("[!NOTE]"), Some(("Note".to_owned(), "")));
        assert_eq!(admonition("[![badge](x)](y)"), None);
        assert_eq!(label("seealso"), "See also");
    }

    #[test]
    fn roles_render_as_the_page_shows_them() {
        assert_eq!(
            roles("{doc}`Black is licensed under the MIT license <license>`."),
            "Black is licensed under the MIT license."
        );
        assert_eq!(roles("- {doc}`the_basics`"), "- the_basics");
        assert_eq!(roles("- {ref}`genindex`"), "- genindex");
        assert_eq!(
            roles("Call {py:func}`~black.format_str` now"),
            "Call `format_str` now"
        );
        assert_eq!(
            roles("see :ref:`the docs <docs>` and :class:`Foo`"),
            "see the docs and `Foo`"
        );
        assert_eq!(roles("a `link <https://x.org>`_ here"), "a link here");
        assert_eq!(roles("`{doc}` stays"), "`{doc}` stays");
        assert_eq!(roles("`{doc}` and `x`"), "`{doc}` and `x`");
        assert_eq!(
            roles("`listening on ${port}` and `x`"),
            "`listening on ${port}` and `x`"
        );
        assert_eq!(roles("_when to use `unsafe`_."), "_when to use `unsafe`_.");
    }

    #[test]
    fn directives_render_by_kind() {
        assert_eq!(directive("note", ""), Directive::Labelled("Note".into()));
        assert_eq!(
            directive("versionadded", "1.2 more"),
            Directive::Labelled("Added in version 1.2".into())
        );
        assert_eq!(directive("toctree", ""), Directive::Dropped);
        assert_eq!(directive("automodule", "black"), Directive::Dropped);
        assert_eq!(directive("code-block", "python"), Directive::Code);
        assert_eq!(
            directive("admonition", "Note - Black is stable!"),
            Directive::Titled
        );
        assert_eq!(
            directive("admonition", "Heads up"),
            Directive::Labelled("Heads up".into())
        );
        assert_eq!(directive("tab-item", "Python"), Directive::Titled);
    }
}
