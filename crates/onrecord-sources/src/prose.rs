//! Cleans page sources before markdown parsing, so that only prose reaches the index.
//!
//! Real docs mix markdown with the syntax of the generator that builds them. Outside code
//! fences this pass renders or drops, never keeps:
//! - MDX `import`/`export` lines, MDX comments and JSX components (`<Alert type="info">`);
//! - Liquid tags (`{% include %}`) and, on pages with frontmatter (the only pages Jekyll runs
//!   Liquid on), expressions (`{{ page.lang }}`); elsewhere `{{closure}}` is text, but a line that
//!   is only a `{{ placeholder }}` (mdBook-spec's `{{ grammar-summary }}`) goes;
//! - Hugo shortcodes (`{{< figure >}}`, `{{% note %}}…{{% /note %}}`: their inner text stays);
//! - mdBook-spec rule ids (`r[items.fn]`) and admonition markers (`> [!NOTE]`,
//!   `> [!EDITION-2024]`), whose text stays, led by a label ("Note:", "Edition 2024:");
//! - MyST directives: admonitions keep their body with a label, code directives become code
//!   blocks, `{toctree}`/`{contents}`/`{image}` and the like go, others keep their title and
//!   body; roles (``{doc}`text <target>` ``) and `(target)=` lines; rST directives (`.. note::`),
//!   roles and links left in markdown;
//! - kramdown attribute lines (`{: .class}`);
//! - a line that starts with an HTML or JSX tag becomes the text between its tags, as a
//!   paragraph of its own (so `<td>Boolean</td>` keeps "Boolean" and `<Alert>` lines vanish);
//! - `<script>`, `<style>` and HTML comments go whole.
//!
//! Code fences are kept verbatim, apart from Liquid's `{% raw %}` markers. Includes are
//! rendered before this pass ([`crate::include`]).

use crate::markup::{self, Directive};

/// Returns the cleaned source. `liquid`: whether Liquid expressions are template syntax here.
pub(crate) fn clean(source: &str, liquid: bool) -> String {
    let mut lines: Vec<String> = source.split('\n').map(str::to_owned).collect();
    let mut out = Vec::with_capacity(lines.len());
    clean_lines(&mut lines, liquid, &mut out);
    out.join("\n")
}

fn clean_lines(lines: &mut [String], liquid: bool, out: &mut Vec<String>) {
    let mut fence: Option<(char, usize)> = None;
    let mut skip_until: Option<&'static str> = None;
    let mut open_tag = false;
    // Whether the line before was markup: text indented inside an element (`<li markdown="1">`
    // in kramdown, any element in MDX) is markdown there, not an indented code block.
    let mut after_markup = false;
    let mut i = 0;
    while i < lines.len() {
        let line = std::mem::take(&mut lines[i]);
        i += 1;
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
            out.push(strip_liquid_raw(&line));
            continue;
        }
        if let Some((open, name, arg)) = directive_open(trimmed) {
            let indent = &line[..line.len() - trimmed.len()];
            let end = closing_line(lines, i, open);
            let body = options_end(lines, i, end);
            let rendered = directive(indent, name, arg, &mut lines[body..end], liquid);
            out.extend(rendered);
            i = (end + 1).min(lines.len());
            continue;
        }
        if let Some((name, arg)) = rst_directive(trimmed) {
            let indent = line.len() - trimmed.len();
            let end = rst_body_end(lines, i, indent);
            let body = options_end(lines, i, end);
            let by = lines[body..end]
                .iter()
                .filter(|l| !l.trim().is_empty())
                .map(|l| l.len() - l.trim_start_matches(' ').len())
                .min()
                .unwrap_or(0);
            let mut body: Vec<String> = lines[body..end].iter().map(|l| dedent(l, by)).collect();
            let rendered = directive(&line[..indent], name, arg, &mut body, liquid);
            out.extend(rendered);
            i = end;
            continue;
        }
        if let Some(f) = is_fence(trimmed) {
            fence = Some(f);
            out.push(line);
            continue;
        }
        if is_esm(trimmed)
            || markup::is_rule_id(trimmed)
            || is_myst_target(trimmed)
            || trimmed.trim_end() == "+++"
            || (trimmed.starts_with("{:") && trimmed.trim_end().ends_with('}'))
        {
            out.push(String::new());
            continue;
        }
        let mut last = String::new();
        let next = lines.get_mut(i).unwrap_or(&mut last);
        if let Some(marker_line) = admonition_marker(&line, next) {
            out.push(marker_line);
            continue;
        }
        let mut line = strip_spans(&strip_spans(&line, "{{<", ">}}"), "{{%", "%}}");
        if let Some(open) = ["{{<", "{{%"].iter().find(|o| line.contains(**o)) {
            // A shortcode spread over several lines: drop it to its end.
            let at = line.find(open).unwrap_or(line.len());
            line.truncate(at);
            skip_until = Some(if *open == "{{<" { ">}}" } else { "%}}" });
        }
        let line = strip_spans(&line, "{%", "%}");
        let line = if liquid {
            strip_spans(&line, "{{", "}}")
        } else if markup::is_placeholder(line.trim()) {
            String::new()
        } else {
            line
        };
        let line = markup::roles(&strip_spans(&line, "{/*", "*/}"));
        let trimmed = line.trim_start();
        if let Some(end) = opens_dropped_block(trimmed) {
            if !trimmed.contains(end) {
                skip_until = Some(end);
            }
            out.push(String::new());
            continue;
        }
        if starts_with_tag(trimmed) {
            after_markup = true;
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
        if std::mem::take(&mut after_markup) && line.len() - trimmed.len() >= 4 {
            out.push(trimmed.to_owned());
            continue;
        }
        out.push(line);
    }
}

/// Renders a MyST or rST directive from its body lines (options already left out).
fn directive(
    indent: &str,
    name: &str,
    arg: &str,
    body: &mut [String],
    liquid: bool,
) -> Vec<String> {
    // Blank lines around it: the output never runs on into a paragraph or list item before it.
    let mut out = vec![String::new()];
    match markup::directive(name, arg) {
        Directive::Dropped => {}
        Directive::Code => {
            let lang = arg.split_whitespace().next().unwrap_or_default();
            out.push(format!("{indent}```{lang}"));
            out.extend(body.iter_mut().map(std::mem::take));
            out.push(format!("{indent}```"));
        }
        Directive::Labelled(label) => {
            clean_lines(body, liquid, &mut out);
            let first = out.iter_mut().find(|l| !l.trim().is_empty());
            if let Some(first) = first.filter(|l| starts_prose(l)) {
                let at = first.len() - first.trim_start().len();
                first.insert_str(at, &format!("{}: ", label_text(&label)));
            }
        }
        Directive::Titled => {
            if !arg.is_empty() {
                out.push(format!("{indent}{}", markup::roles(arg)));
                out.push(String::new());
            }
            clean_lines(body, liquid, &mut out);
        }
    }
    out.push(String::new());
    out
}

/// An admonition marker line, `> [!NOTE]`: returns what replaces it, and puts its label in
/// front of the next line when that line carries on the quote's first paragraph.
fn admonition_marker(line: &str, next: &mut String) -> Option<String> {
    let (prefix, content) = split_quote(line);
    if !prefix.contains('>') {
        return None;
    }
    let (label, rest) = markup::admonition(content)?;
    let label = label_text(&label);
    if !rest.trim().is_empty() {
        return Some(format!("{prefix}{label}: {}", rest.trim_start()));
    }
    let (next_prefix, next_content) = split_quote(next);
    let depth = |p: &str| p.matches('>').count();
    if depth(next_prefix) == depth(prefix) && starts_prose(next_content) {
        let at = next_prefix.len();
        next.insert_str(at, &format!("{label}: "));
    }
    Some(prefix.trim_end().to_owned())
}

/// `Note` → `Note`, and a title that ends in punctuation keeps it (no colon is added).
fn label_text(label: &str) -> &str {
    label.trim_end_matches(':')
}

/// Splits a line into its block-quote prefix (`  > > `) and the rest.
fn split_quote(line: &str) -> (&str, &str) {
    let mut end = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' | '\t' => {}
            '>' => end = i + 1,
            _ => break,
        }
    }
    let rest = &line[end..];
    let rest_trimmed = rest.strip_prefix(' ').unwrap_or(rest);
    (&line[..line.len() - rest_trimmed.len()], rest_trimmed)
}

/// Whether a line carries on a paragraph (not a fence, list, heading, quote, table or tag).
fn starts_prose(content: &str) -> bool {
    let t = content.trim_start();
    if t.is_empty() || content.len() - t.len() >= 4 {
        return false;
    }
    let fence = t.starts_with("```") || t.starts_with("~~~") || t.starts_with(":::");
    if fence || t.starts_with(['#', '<', '|', '>']) || markup::admonition(t).is_some() {
        return false;
    }
    if t.starts_with(':') && is_option(t) {
        return false;
    }
    if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        if rest.is_empty() || rest.starts_with(' ') {
            return false;
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    !(digits > 0 && t[digits..].starts_with(['.', ')']))
}

/// A MyST directive fence: ```` ```{name} argument ```` (or `~~~`, `:::`).
fn directive_open(trimmed: &str) -> Option<((char, usize), &str, &str)> {
    crate::include::directive_open(trimmed)
}

/// The index of the line that closes a directive opened with `open`, or `lines.len()`:
/// nested fences (code, inner directives) are skipped whole.
fn closing_line(lines: &[String], from: usize, (ch, len): (char, usize)) -> usize {
    let mut nested: Option<(char, usize)> = None;
    for (i, line) in lines.iter().enumerate().skip(from) {
        let trimmed = line.trim_start();
        let run = |c: char| trimmed.chars().take_while(|x| *x == c).count();
        let is_close =
            |c: char, l: usize| run(c) >= l && trimmed.trim_end().chars().all(|x| x == c);
        match nested {
            Some((c, l)) => {
                if is_close(c, l) {
                    nested = None;
                }
            }
            None if is_close(ch, len) => return i,
            None => {
                let c = trimmed.chars().next().unwrap_or(' ');
                if matches!(c, '`' | '~' | ':') && run(c) >= 3 {
                    nested = Some((c, run(c)));
                }
            }
        }
    }
    lines.len()
}

/// Where a directive's body starts: after its `:key: value` lines or its `---` YAML block.
fn options_end(lines: &[String], from: usize, end: usize) -> usize {
    let mut i = from;
    if lines.get(i).is_some_and(|l| l.trim() == "---") {
        let close = (i + 1..end).find(|&j| lines[j].trim() == "---");
        return close.map_or(i, |c| c + 1);
    }
    while i < end && is_option(lines[i].trim()) {
        i += 1;
    }
    i
}

fn is_option(trimmed: &str) -> bool {
    trimmed
        .strip_prefix(':')
        .and_then(|r| r.split_once(':'))
        .is_some_and(|(key, _)| {
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        })
}

/// An rST directive, `.. note::` or `.. code-block:: python`: its name and argument.
fn rst_directive(trimmed: &str) -> Option<(&str, &str)> {
    let rest = trimmed.strip_prefix(".. ")?;
    let (name, arg) = rest.split_once("::")?;
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
    valid.then(|| (name, arg.trim()))
}

/// The end (exclusive) of an rST directive's body: its blank or more-indented lines.
fn rst_body_end(lines: &[String], from: usize, indent: usize) -> usize {
    let mut end = from;
    for (i, line) in lines.iter().enumerate().skip(from) {
        if line.trim().is_empty() {
            continue;
        }
        if line.len() - line.trim_start().len() <= indent {
            break;
        }
        end = i + 1;
    }
    end
}

fn dedent(line: &str, by: usize) -> String {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    line[spaces.min(by)..].to_owned()
}

/// MyST's cross-reference target line, `(labels/exit-code)=`.
fn is_myst_target(trimmed: &str) -> bool {
    trimmed
        .trim_end()
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(")="))
        .is_some_and(|label| !label.is_empty() && !label.contains(char::is_whitespace))
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

    /// The cleaned text with runs of blank lines squeezed to one (paragraph breaks are what
    /// matters to the parser; how many blank lines make one does not).
    fn squeezed(src: &str, liquid: bool) -> String {
        let cleaned = clean(src, liquid);
        let mut out: Vec<&str> = Vec::new();
        for line in cleaned.split('\n') {
            if !(line.is_empty() && out.last().is_some_and(|l| l.is_empty())) {
                out.push(line);
            }
        }
        out.join("\n")
    }

    #[test]
    fn mdx_imports_and_components_go_their_text_stays() {
        let src = "import Alert from '@components/Alert.astro';\n\n<Alert type=\"info\">\nKeep this.\n</Alert>\n\n<PackageManagerCommand command=\"npm i\" />\n{/* hidden */}Shown.";
        assert_eq!(clean(src, true), "\n\n\nKeep this.\n\n\n\nShown.");
    }

    #[test]
    fn liquid_is_removed_outside_code_on_pages_jekyll_renders() {
        let src = "{% capture note %}\nSee [guide](/{{ page.lang }}/guide/).\n{% endcapture %}\n```\n{% raw %}{{ x }}{% endraw %}\n```";
        assert_eq!(
            clean(src, true),
            "\nSee [guide](//guide/).\n\n```\n{{ x }}\n```"
        );
        // Without frontmatter Jekyll renders no Liquid: `{{closure}}` is text, a lone
        // `{{ placeholder }}` line (a preprocessor's) is not.
        let src =
            "The sentinel `{{src-base}}` is replaced.\n{{ grammar-summary }}\n{{summary-table}}";
        assert_eq!(
            clean(src, false),
            "The sentinel `{{src-base}}` is replaced.\n\n"
        );
    }

    #[test]
    fn html_lines_keep_their_text_and_scripts_go() {
        let src = "<table class=\"t\">\n  <thead><tr><th>Type</th><th>Value</th></tr></thead>\n<td markdown=\"1\">\n<script>\nalert(1)\n</script>\n<!-- a\ncomment -->\n<Alert\n  type=\"x\"\n>\ntext";
        let cleaned = clean(src, true);
        let lines: Vec<&str> = cleaned.split('\n').collect();
        assert_eq!(
            lines,
            ["", "Type Value", "", "", "", "", "", "", "", "", "", "text"]
        );
    }

    #[test]
    fn text_indented_inside_an_element_is_markdown_not_code() {
        let src = "<ul>\n  <li markdown=\"1\">\n    The value of [req.ip](/api/#ip) is\n    the address.\n  </li>\n</ul>\n\n    let code = 1;";
        assert_eq!(
            clean(src, true),
            "\n\nThe value of [req.ip](/api/#ip) is\n    the address.\n\n\n\n    let code = 1;"
        );
    }

    #[test]
    fn code_fences_are_verbatim_and_autolinks_stay() {
        let src = "```js\nimport x from 'y';\n<div>{{ a }}</div>\nr[not.a.rule]\n> [!NOTE]\n```\n<https://expressjs.com>";
        assert_eq!(clean(src, true), src);
    }

    #[test]
    fn rule_ids_go_and_admonitions_keep_their_text_with_a_label() {
        let src = "r[unsafe.extern.edition2024]\n> [!EDITION-2024]\n> `extern` blocks were allowed.\n\n  > [!EXAMPLE]\n  > ```rust\n  > let x = 1;\n  > ```\n> [!WARNING] Inline text.";
        assert_eq!(
            clean(src, false),
            "\n>\n> Edition 2024: `extern` blocks were allowed.\n\n  >\n  > ```rust\n  > let x = 1;\n  > ```\n> Warning: Inline text."
        );
    }

    #[test]
    fn myst_directives_render_or_go() {
        let src = "(labels/exit-code)=\n\n```{note}\n{doc}`Black is licensed under MIT <license>`.\n```\n\n````{admonition} Stable!\n:class: tip\n\nBody with\n```python\nx = 1\n```\n````\n\n```{toctree}\n---\nmaxdepth: 3\n---\nfaq\n```\n```{code-block} python\n:linenos:\nprint(1)\n```\n- {ref}`genindex`\n```{rubric} Contents\n```\n";
        assert_eq!(
            squeezed(src, false),
            "\nNote: Black is licensed under MIT.\n\nStable!\n\nBody with\n```python\nx = 1\n```\n\n```python\nprint(1)\n```\n\n- genindex\n\nContents\n"
        );
    }

    #[test]
    fn rst_left_in_markdown_renders() {
        let src = "Intro.\n\n.. note::\n   :class: x\n\n   Mind the gap.\n\n.. image:: https://x.test/b.svg\n   :target: https://x.test\n\nSee :ref:`the guide <guide>` and `the site <https://x.test>`_.";
        assert_eq!(
            squeezed(src, false),
            "Intro.\n\nNote: Mind the gap.\n\nSee the guide and the site."
        );
    }

    #[test]
    fn hugo_shortcodes_go_their_inner_text_stays() {
        let src = "{{< figure src=\"a.png\" >}}\n{{% note %}}Keep me.{{% /note %}}\n{{< tabs\n  items=\"a,b\" >}}\nAfter.";
        assert_eq!(clean(src, false), "\nKeep me.\n\n\nAfter.");
    }
}
