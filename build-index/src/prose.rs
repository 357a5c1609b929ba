//! Cleans page sources before markdown parsing, so that only prose reaches the index.
//!
//! Real docs mix markdown with template and component syntax: MDX `import`/`export` lines and
//! JSX components (`<Alert type="info">`), Liquid tags (`{% include %}`, `{{ page.lang }}`) and
//! raw HTML blocks (notes, tables). Outside code fences this pass
//! - drops MDX `import`/`export` lines, MDX comments and Liquid tags and expressions;
//! - replaces a line that starts with an HTML or JSX tag by the text between its tags, as a
//!   paragraph of its own (so `<td>Boolean</td>` keeps "Boolean" and `<Alert>` lines vanish);
//! - drops `<script>`, `<style>` and HTML comments whole.
//!
//! Code fences are kept verbatim, apart from Liquid's `{% raw %}` markers. Line count is kept,
//! so parser positions still match the file.

/// Returns the cleaned source, with exactly as many lines as `source`.
pub(crate) fn clean(source: &str) -> String {
    let mut out = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    let mut skip_until: Option<&'static str> = None;
    let mut open_tag = false;
    for line in source.split('\n') {
        let trimmed = line.trim_start();
        if let Some(end) = skip_until {
            if line.contains(end) {
                skip_until = None;
            }
            out.push(String::new());
            continue;
        }
        if open_tag {
            // Inside a tag spread over several lines: drop until its closing '>'.
            open_tag = !line.contains('>');
            out.push(String::new());
            continue;
        }
        if let Some((ch, len)) = fence {
            if is_fence(trimmed).is_some_and(|(c, l)| {
                c == ch && l >= len && trimmed.trim_end().chars().all(|x| x == ch)
            }) {
                fence = None;
            }
            out.push(strip_liquid_raw(line));
            continue;
        }
        if let Some(f) = is_fence(trimmed) {
            fence = Some(f);
            out.push(line.to_owned());
            continue;
        }
        if is_esm(trimmed) {
            out.push(String::new());
            continue;
        }
        let line = strip_spans(
            &strip_spans(&strip_spans(line, "{%", "%}"), "{{", "}}"),
            "{/*",
            "*/}",
        );
        let trimmed = line.trim_start();
        if let Some(end) = opens_dropped_block(trimmed) {
            if !trimmed.contains(end) {
                skip_until = Some(end);
            }
            out.push(String::new());
            continue;
        }
        if starts_with_tag(trimmed) {
            if !trimmed.contains('>') {
                open_tag = true;
                out.push(String::new());
                continue;
            }
            // A line of markup: keep only its text, as a paragraph of its own.
            let text = strip_tags(trimmed);
            out.push(text.split_whitespace().collect::<Vec<_>>().join(" "));
            continue;
        }
        out.push(line);
    }
    out.join("\n")
}

/// `(fence char, run length)` if the line opens or closes a code fence.
fn is_fence(trimmed: &str) -> Option<(char, usize)> {
    let ch = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == ch).count();
    (len >= 3).then_some((ch, len))
}

/// MDX module syntax: `import x from 'y'`, `import 'y'`, `export const …`.
fn is_esm(trimmed: &str) -> bool {
    let import = trimmed.starts_with("import ")
        && (trimmed.contains(" from '")
            || trimmed.contains(" from \"")
            || trimmed.starts_with("import '")
            || trimmed.starts_with("import \""));
    let export = [
        "export const ",
        "export default ",
        "export function ",
        "export let ",
    ]
    .iter()
    .any(|p| trimmed.starts_with(p));
    import || export
}

/// Blocks dropped whole: their closing marker if the line opens one.
fn opens_dropped_block(trimmed: &str) -> Option<&'static str> {
    let lower = trimmed.get(..8).unwrap_or(trimmed).to_ascii_lowercase();
    if trimmed.starts_with("<!--") {
        Some("-->")
    } else if lower.starts_with("<script") {
        Some("</script>")
    } else if lower.starts_with("<style") {
        Some("</style>")
    } else {
        None
    }
}

/// Whether a line starts with an HTML/JSX tag (`<a`, `</a`, `<Alert`), not an autolink or `<5`.
fn starts_with_tag(trimmed: &str) -> bool {
    let mut chars = trimmed.chars();
    if chars.next() != Some('<') {
        return false;
    }
    let first = match chars.next() {
        Some('/') => chars.next(),
        c => c,
    };
    let is_name_start = first.is_some_and(|c| c.is_ascii_alphabetic());
    let name: String = trimmed
        .trim_start_matches(['<', '/'])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '.')
        .collect();
    // `<https://…>` and `<me@x.org>` are autolinks, not tags.
    let rest = &trimmed.trim_start_matches(['<', '/'])[name.len()..];
    is_name_start && !rest.starts_with(':') && !rest.starts_with('@')
}

/// Removes `<…>` tags, leaving the text between them (tags become spaces).
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' if !in_tag => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Removes every `open … close` span (Liquid tags and expressions, MDX comments).
fn strip_spans(s: &str, open: &str, close: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find(open) {
        let Some(len) = rest[start + open.len()..].find(close) else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start + open.len() + len + close.len()..];
    }
    out.push_str(rest);
    out
}

fn strip_liquid_raw(line: &str) -> String {
    line.replace("{% raw %}", "")
        .replace("{% endraw %}", "")
        .replace("{%raw%}", "")
        .replace("{%endraw%}", "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mdx_imports_and_components_go_their_text_stays() {
        let src = "import Alert from '@components/Alert.astro';\n\n<Alert type=\"info\">\nKeep this.\n</Alert>\n\n<PackageManagerCommand command=\"npm i\" />\n{/* hidden */}Shown.";
        assert_eq!(clean(src), "\n\n\nKeep this.\n\n\n\nShown.");
    }

    #[test]
    fn liquid_is_removed_outside_code() {
        let src = "{% capture note %}\nSee [guide](/{{ page.lang }}/guide/).\n{% endcapture %}\n```\n{% raw %}{{ x }}{% endraw %}\n```";
        assert_eq!(clean(src), "\nSee [guide](//guide/).\n\n```\n{{ x }}\n```");
    }

    #[test]
    fn html_lines_keep_their_text_and_scripts_go() {
        let src = "<table class=\"t\">\n  <thead><tr><th>Type</th><th>Value</th></tr></thead>\n<td markdown=\"1\">\n<script>\nalert(1)\n</script>\n<!-- a\ncomment -->\n<Alert\n  type=\"x\"\n>\ntext";
        let cleaned = clean(src);
        let lines: Vec<&str> = cleaned.split('\n').collect();
        assert_eq!(
            lines,
            ["", "Type Value", "", "", "", "", "", "", "", "", "", "text"]
        );
    }

    #[test]
    fn code_fences_are_verbatim_and_autolinks_stay() {
        let src = "```js\nimport x from 'y';\n<div>{{ a }}</div>\n```\n<https://expressjs.com>";
        assert_eq!(clean(src), src);
    }

    #[test]
    fn line_count_is_kept() {
        let src = "a\n<div>\nb\n</div>\n{% x %}\n";
        assert_eq!(clean(src).split('\n').count(), src.split('\n').count());
    }
}
