//! Shared by the integration tests: the corpora beside the checkout, and the generator syntax
//! that must never reach indexed text, in one place.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

/// A corpus from `../shared/corpora` (read at test time, never copied into the repository).
pub(crate) fn shared(rel: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpora")
        .join(rel);
    assert!(
        path.is_dir(),
        "{} is missing: the shared corpora must sit beside the checkout",
        path.display()
    );
    path
}

/// The Black docs (MyST markdown for Sphinx), which `scripts/setup.sh` unpacks from PyPI.
pub(crate) fn black_docs() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/corpora/black-26.10.1/docs");
    assert!(
        path.is_dir(),
        "{} is missing: run scripts/setup.sh (it fetches the black==26.10.1 sdist)",
        path.display()
    );
    path
}

/// Every corpus root the markup test reads, with the private folder its build uses.
pub(crate) fn corpora() -> Vec<(String, PathBuf, &'static str)> {
    let mut roots: Vec<(String, PathBuf, &'static str)> = [
        ("express/astro-5x/src/content", "private"),
        ("express/jekyll-md/en", "private"),
        ("rust-reference", "private"),
        ("rustc-dev-guide", "private"),
        ("person-a/example-content", "notebook"),
        ("person-a/demo/corpus", "private"),
    ]
    .into_iter()
    .map(|(rel, private)| (rel.to_owned(), shared(rel), private))
    .collect();
    roots.push(("black-26.10.1/docs".to_owned(), black_docs(), "private"));
    roots
}

/// Markdown files under `dir`, sorted, as paths relative to `dir`.
pub(crate) fn markdown_files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path
                .extension()
                .is_some_and(|e| e == "md" || e == "mdx" || e == "markdown")
            {
                let rel = path.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Where a pattern applies: prose (code blocks may show any syntax as an example), or all text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    Prose,
    All,
}

/// One piece of generator syntax: who writes it, how to find it, and an example it must match.
pub(crate) struct Syntax {
    pub(crate) generator: &'static str,
    pub(crate) pattern: &'static str,
    pub(crate) scope: Scope,
    pub(crate) example: &'static str,
}

/// Generator syntax that must never be quoted: one or more patterns per generator.
pub(crate) const SYNTAX: &[Syntax] = &[
    Syntax {
        generator: "mdBook",
        pattern: r"\{\{#(include|rustdoc_include|playground|title)\b",
        scope: Scope::All,
        example: "{{#rustdoc_include ../listings/main.rs:anchor}}",
    },
    Syntax {
        generator: "mdBook-spec",
        pattern: r"(^|\s)r\[[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\]",
        scope: Scope::Prose,
        example: "r[lifetime-elision.function.intro]",
    },
    Syntax {
        generator: "mdBook-spec",
        pattern: r"\{\{\s*(grammar-summary|summary-table)\s*\}\}",
        scope: Scope::Prose,
        example: "{{ grammar-summary }}",
    },
    Syntax {
        generator: "GitHub/mdBook-spec admonition",
        pattern: r"\[![A-Za-z][A-Za-z0-9_-]*\]",
        scope: Scope::Prose,
        example: "> [!EDITION-2024]",
    },
    Syntax {
        generator: "MyST directive",
        pattern: r"(?m)^\s*(`{3,}|~{3,}|:{3,})\{[A-Za-z][\w:-]*\}",
        scope: Scope::Prose,
        example: "```{include} ../CHANGES.md",
    },
    Syntax {
        generator: "MyST directive option",
        pattern: r"(?m)^\s*:(maxdepth|caption|hidden|local|backlinks|class|target|start-after|end-before|start-line|end-line|linenos|name|alt|width|align|includehidden):",
        scope: Scope::Prose,
        example: ":maxdepth: 2",
    },
    Syntax {
        generator: "MyST role",
        pattern: r"\{[A-Za-z][\w:.+-]*\}`",
        scope: Scope::Prose,
        example: "{doc}`Black is licensed under the MIT license <license>`",
    },
    Syntax {
        generator: "MyST target",
        pattern: r"(?m)^\([\w/.:-]+\)=\s*$",
        scope: Scope::Prose,
        example: "(labels/exit-code)=",
    },
    Syntax {
        generator: "rST directive",
        pattern: r"(?m)^\s*\.\. [A-Za-z][\w:-]*::",
        scope: Scope::Prose,
        example: ".. code-block:: python",
    },
    Syntax {
        generator: "rST role",
        pattern: r"(^|[\s(]):[A-Za-z][\w:.+-]*:`",
        scope: Scope::Prose,
        example: "see :ref:`the guide <guide>`",
    },
    Syntax {
        generator: "rST link",
        pattern: r"`[^`<]+<[^`>]+>`_",
        scope: Scope::Prose,
        example: "`Black <https://github.com/psf/black>`_",
    },
    Syntax {
        generator: "MDX import/export",
        pattern: r#"(?m)^\s*(import\s.+\sfrom\s+['"]|export\s+(const|default|function|let)\s)"#,
        scope: Scope::Prose,
        example: "import Alert from '@components/Alert.astro';",
    },
    Syntax {
        generator: "MDX component",
        pattern: r#"<[A-Z][A-Za-z0-9]*\s+[A-Za-z-]+=["{]|<[A-Z][A-Za-z0-9]*\s*/>|</[A-Z][A-Za-z0-9]*>|(?m)^\s*<[A-Z][A-Za-z0-9]*>\s*$"#,
        scope: Scope::Prose,
        example: "<Alert type=\"info\">",
    },
    Syntax {
        generator: "MDX comment",
        pattern: r"\{/\*",
        scope: Scope::Prose,
        example: "{/* hidden */}",
    },
    Syntax {
        generator: "Liquid tag",
        pattern: r"\{%-?\s*[a-z]+",
        scope: Scope::Prose,
        example: "{% include admonitions/note.html content=x %}",
    },
    Syntax {
        generator: "Liquid expression",
        pattern: r"\{\{-?\s+[a-z_][\w.]*\s*(\|[^}]*)?-?\}\}|\{\{\s*(page|site|layout|include|paginator)\.",
        scope: Scope::Prose,
        example: "[guide](/{{ page.lang }}/guide/)",
    },
    Syntax {
        generator: "Liquid raw",
        pattern: r"\{%-?\s*(end)?raw\s*-?%\}",
        scope: Scope::All,
        example: "{% raw %}{{ x }}{% endraw %}",
    },
    Syntax {
        generator: "Hugo shortcode",
        pattern: r"\{\{[<%]|[>%]\}\}",
        scope: Scope::Prose,
        example: "{{< figure src=\"a.png\" >}}",
    },
    Syntax {
        generator: "kramdown attributes",
        pattern: r"\{:\s+[.#][A-Za-z]|\{:toc\}|\{#[A-Za-z][\w-]*\}",
        scope: Scope::Prose,
        example: "## Things to do in your code {#in-code}",
    },
    Syntax {
        generator: "raw HTML",
        // Structural tags, or inline ones with attributes: prose may name `<span>` as an example.
        pattern: r"</?(div|table|thead|tbody|tr|td|th|details|summary|section|iframe)(\s[^>]*)?/?>|<(span|img|br|a|p)\s[^>]*>",
        scope: Scope::Prose,
        example: "<td markdown=\"1\">",
    },
];

/// The compiled patterns, in [`SYNTAX`] order.
pub(crate) fn compiled() -> Vec<(&'static Syntax, Regex)> {
    SYNTAX
        .iter()
        .map(|s| (s, Regex::new(s.pattern).expect(s.pattern)))
        .collect()
}

/// The generator syntax found in `text`, as `generator: "match"` lines.
pub(crate) fn leaks(patterns: &[(&'static Syntax, Regex)], text: &str, code: bool) -> Vec<String> {
    patterns
        .iter()
        .filter(|(s, _)| !code || s.scope == Scope::All)
        .filter_map(|(s, re)| {
            re.find(text)
                .map(|m| format!("{}: {:?}", s.generator, m.as_str()))
        })
        .collect()
}
