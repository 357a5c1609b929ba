#!/usr/bin/env python3
"""Extract training passages from pinned Debian documentation packages.

Output: JSONL, one {"src": ..., "text": ...} per line, deduplicated, in a
deterministic order (sorted file lists, seeded RNG).

The passages only fit the static token table; they are never shipped.
Evaluation sets (/work/shared/corpora, corpus/, eval/) are never read here.

Passage shapes (questions are short, documents are not, so mix them):
  heading alone, one sentence, one paragraph, heading + paragraph,
  paragraph + the next 1-3 blocks (a section-like window).
"""
import argparse
import gzip
import html
import json
import os
import random
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

SEED = 20240611

# Source name -> (Debian packages, kind, passage quota[, path filter]).  Files are
# taken from `dpkg -L` of the pinned packages only.  Quotas keep the mix broad
# (technical docs, man pages, everyday English from WordNet glosses/fortunes).
SOURCES = {
    "python":     (["python3.11-doc"], "html", 10000),
    "django":     (["python-django-doc"], "html", 5000),
    "postgresql": (["postgresql-doc-15"], "html", 4500),
    "nodejs":     (["nodejs-doc"], "html", 4000),
    "git":        (["git-doc"], "html", 3500),
    "sqlite":     (["sqlite3-doc"], "html", 2500),
    "debian":     (["debian-reference-en", "debian-handbook", "debian-faq", "developers-reference",
                    "maint-guide"], "html", 6000, r"/en-US/|^(?!.*/debian-handbook/)"),
    "gnu":        (["bash-doc", "gnu-standards"], "html", 1500),
    "manpages":   (["manpages", "manpages-dev"], "man", 6500),
    "wordnet":    (["wordnet-base"], "wordnet", 16000),
    "fortunes":   (["fortunes-min", "fortunes"], "fortune", 6000),
}
BLOCK_TAGS = {"p", "div", "li", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
              "td", "th", "tr", "table", "blockquote", "section", "br", "ul", "ol", "dl",
              "article", "header", "footer", "main", "figcaption", "caption", "title"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
SKIP_TAGS = {"script", "style", "head", "nav", "noscript", "button", "select", "form", "svg"}
SKIP_CLASS = re.compile(r"\b(sphinxsidebar|related|footer|headerlink|navheader|navfooter|"
                        r"toc|toctree-wrapper|breadcrumbs?|api_metadata|changelog|picker|"
                        r"copyright|mark|legacy)\b")
# Elements whose end tag may be omitted cannot be skipped by nesting count.
OPTIONAL_END = {"li", "p", "dt", "dd", "td", "th", "tr", "option", "thead", "tbody"}
SKIP_ID = re.compile(r"^(column2|toc|gtoc|nav|footer|header|sidebar|search)")


class BlockParser(HTMLParser):
    """Turns an HTML page into a list of (kind, text) blocks; kind in heading/text/code."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.buf = [], []
        self.skip_tag, self.skip_nest = None, 0
        self.in_heading = self.in_pre = 0

    def flush(self):
        raw = "".join(self.buf)
        self.buf = []
        if self.in_pre:
            text = raw.strip("\n")
            kind = "code"
        else:
            text = re.sub(r"\s+", " ", raw).strip()
            kind = "heading" if self.in_heading else "text"
        text = text.replace("\u00b6", "").strip()
        if text:
            self.blocks.append((kind, text))

    def handle_starttag(self, tag, attrs):
        if self.skip_tag is not None:
            if tag == self.skip_tag:
                self.skip_nest += 1
            return
        a = dict(attrs)
        by_attr = tag not in OPTIONAL_END and (SKIP_CLASS.search(a.get("class") or "") or SKIP_ID.match(a.get("id") or ""))
        if tag in SKIP_TAGS or by_attr:
            if tag not in ("br", "img", "hr", "input", "meta", "link"):
                self.skip_tag, self.skip_nest = tag, 1
            return
        if tag in BLOCK_TAGS:
            self.flush()
        if tag in HEADINGS:
            self.in_heading += 1
        if tag == "pre":
            self.in_pre += 1

    def handle_endtag(self, tag):
        if self.skip_tag is not None:
            if tag == self.skip_tag:
                self.skip_nest -= 1
                if self.skip_nest == 0:
                    self.skip_tag = None
            return
        if tag in BLOCK_TAGS:
            self.flush()
        if tag in HEADINGS and self.in_heading:
            self.in_heading -= 1
        if tag == "pre" and self.in_pre:
            self.in_pre -= 1

    def handle_data(self, data):
        if self.skip_tag is None:
            self.buf.append(data)


def html_blocks(path):
    p = BlockParser()
    try:
        p.feed(path.read_text(encoding="utf-8", errors="replace"))
        p.close()
        p.flush()
    except Exception as e:  # malformed page: keep what we have
        print(f"warn: {path}: {e}", file=sys.stderr)
    return p.blocks


def man_blocks(path):
    """Render a man page with groff (very long lines => one paragraph per line)."""
    try:
        src = gzip.open(path).read() if str(path).endswith(".gz") else path.read_bytes()
    except OSError:
        return []
    if src.startswith(b".so "):  # alias page
        return []
    r = subprocess.run(["groff", "-t", "-man", "-Tutf8", "-P-cbou", "-rLL=3000n", "-rLT=3000n"],
                       input=src, capture_output=True, timeout=60)
    blocks = []
    section = None
    for line in r.stdout.decode("utf-8", "replace").splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        text = re.sub(r"\s+", " ", line).strip()
        if indent == 0:  # section heading, or the page header/footer
            section = text
            if re.search(r"\(\d\w*\)\s*$", text) or re.match(r"^(Linux|GNU|man-pages)", text):
                continue
            blocks.append(("heading", text.title() if text.isupper() else text))
        elif section in ("SYNOPSIS",):
            continue
        elif indent <= 3:
            blocks.append(("heading", text) if len(text.split()) <= 6 and not text.endswith(".") else ("text", text))
        else:
            blocks.append(("text", text))
    return blocks


SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


def passages_from_blocks(blocks, rng):
    """Make passages of varied shapes from one document's block list."""
    out = []
    heading = None
    for i, (kind, text) in enumerate(blocks):
        if kind == "heading":
            heading = text
            if 2 <= len(text.split()) <= 20 and rng.random() < 0.5:
                out.append(text)
            continue
        if kind == "code" or len(text.split()) < 5:
            continue
        r = rng.random()
        if r < 0.25:
            sents = [s for s in SENT_SPLIT.split(text) if len(s.split()) >= 4]
            if sents:
                out.append(rng.choice(sents))
        elif r < 0.60:
            out.append(text)
        elif r < 0.80 and heading:
            out.append(heading + "\n" + text)
        else:
            parts = [text]
            for k2, t2 in blocks[i + 1:i + 1 + rng.randint(1, 3)]:
                if k2 == "code":
                    t2 = "\n".join(t2.splitlines()[:8])
                parts.append(t2)
            out.append("\n".join(parts))
    # cap very long passages (the teacher sees <= 256 tokens anyway)
    return [" ".join(p.split(" ")[:220]) if len(p.split(" ")) > 220 else p for p in out]


def wordnet_passages(path, rng):
    """'bicycle, bike, wheel, cycle: a wheeled vehicle ...; "he rode his bike"' style glosses."""
    out = []
    for line in open(path, encoding="latin-1"):
        if line.startswith("  ") or "|" not in line:
            continue  # licence header
        head, gloss = line.split("|", 1)
        f = head.split()
        n = int(f[3], 16)
        words = [f[4 + 2 * k].replace("_", " ") for k in range(n)]
        words = [re.sub(r"\(.*\)$", "", w) for w in words]
        gloss = gloss.strip()
        r = rng.random()
        if r < 0.4:
            out.append(", ".join(words[:4]) + ": " + gloss)
        elif r < 0.7:
            out.append(gloss)
        else:
            ex = re.findall(r'"([^"]{12,})"', gloss)
            out.append(ex[0] if ex else words[0] + ": " + gloss.split(";")[0])
    return out


FORTUNE_SKIP = {"art", "ascii-art", "ethnic", "drugs", "offensive"}


def fortune_passages(f):
    out = []
    if f.name not in FORTUNE_SKIP:
        for entry in f.read_text(encoding="utf-8", errors="replace").split("\n%\n"):
            text = re.sub(r"\s+", " ", entry).strip()
            if 4 <= len(text.split()) <= 150:
                out.append(text)
    return out


def package_files(pkgs, pattern, path_filter=None):
    """Regular files (not symlinks) shipped by the given Debian packages, sorted."""
    files = []
    for pkg in pkgs:
        out = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True, check=True).stdout
        for p in out.splitlines():
            if re.search(pattern, p) and os.path.isfile(p) and not os.path.islink(p):
                if path_filter is None or re.search(path_filter, p):
                    files.append(Path(p))
    return sorted(set(files))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    seen, total = set(), 0
    with open(args.out + ".tmp", "w", encoding="utf-8") as fo:
        for src, (pkgs, kind, quota, *flt) in SOURCES.items():
            rng = random.Random(f"{SEED}-{src}")
            cands = []
            if kind == "html":
                for f in package_files(pkgs, r"\.html?$", flt[0] if flt else None):
                    cands += passages_from_blocks(html_blocks(f), rng)
            elif kind == "man":
                for f in package_files(pkgs, r"/man/man[^/]*/[^/]+$"):
                    cands += passages_from_blocks(man_blocks(f), rng)
            elif kind == "wordnet":
                for f in package_files(pkgs, r"/data\.(noun|verb|adj|adv)$"):
                    cands += wordnet_passages(f, rng)
            elif kind == "fortune":
                for f in package_files(pkgs, r"/fortunes/[^/.]+$"):
                    cands += fortune_passages(f)
            uniq = []
            for t in cands:
                t = t.strip()
                key = t.lower()
                if len(t) >= 12 and key not in seen:
                    seen.add(key)
                    uniq.append(t)
            rng.shuffle(uniq)
            keep = uniq[:quota]
            for t in keep:
                fo.write(json.dumps({"src": src, "text": t}, ensure_ascii=False) + "\n")
            total += len(keep)
            print(f"{src:12s} candidates={len(uniq):7d} kept={len(keep):6d}", file=sys.stderr)
    os.replace(args.out + ".tmp", args.out)
    print(f"total passages: {total}", file=sys.stderr)


if __name__ == "__main__":
    main()
