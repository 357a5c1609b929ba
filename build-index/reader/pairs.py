#!/usr/bin/env python3
"""Extract (question, answer passage, hard negatives) groups for the reader from pinned
Debian documentation packages (unpacked with dpkg-deb -x under --src).

Only these packages are read; the project's evaluation corpora are never read.

Kinds of groups:
  faq      question headings ending in "?"  -> first answering sentence(s) of the section
  def      <dt> term / <dd> description     -> terse visitor questions -> dd's first sentence
  default  same dl entries (and "Default:" sections) -> the sentence that states the default;
           the dd's describing first sentence is a hard negative
  howto    "How to ...", "Installing ..." headings -> instruction sentence + its code block
  define   short noun heading whose section starts "X is ..." -> that sentence

Every group: q, pos, up to 7 negs (hard: same section/page, sibling dd's, the heading that
restates the question, a few generic "this section explains ..." restatements, and BM25
neighbours from other pages of the same package). Deterministic: sorted files, seeded RNG.
Split by package: --dev-pkgs go to pairs.dev.jsonl, the rest to pairs.train.jsonl.
"""
import argparse
import collections
import hashlib
import html
import json
import math
import os
import random
import re
import sys
from html.parser import HTMLParser

# ---------------------------------------------------------------- package file selection
PKG_GLOBS = {
    "debian-faq": ("usr/share/doc/debian/FAQ", r".*\.html$", r"^(index|faqinfo)"),
    "debian-handbook": ("usr/share/doc/debian-handbook/html/en-US", r".*\.html$", r"^(index|pr01|ix01|appendix)"),
    "debian-reference-en": ("usr/share/debian-reference", r".*\.en\.html$", r"^index"),
    "developers-reference": ("usr/share/developers-reference", r".*\.html$", r"^(index|search|developers-reference)\.html"),
    "maint-guide": ("usr/share/doc/maint-guide/html", r".*\.en\.html$", r"^index"),
    "git-doc": ("usr/share/doc/git-doc", r".*\.html$", r"^(RelNotes|index)"),
    "nodejs-doc": ("usr/share/doc/nodejs/api", r".*\.html$", r"^(all|index)\.html"),
    "postgresql-doc-15": ("usr/share/doc/postgresql-doc-15/html", r".*\.html$", r"^(release-|bookindex|index)"),
    "python-django-doc": ("usr/share/doc/python-django-doc/html", r".*\.html$",
                          r"^(_|genindex|search|py-modindex|releases/|contents)"),
    "python3.11-doc": ("usr/share/doc/python3.11/html", r".*\.html$",
                       r"^(_|genindex|search|py-modindex|whatsnew/changelog|contents|download|bugs|copyright|license)"),
    "sqlite3-doc": ("usr/share/doc/sqlite3", r".*\.html$", r"^(releaselog|changes|chronology|index|docs|sitemap|keyword_index|toc)"),
}


def package_files(src, pkg):
    base, keep, skip = PKG_GLOBS[pkg]
    root = os.path.join(src, pkg, base)
    out = []
    for dp, dns, fns in os.walk(root):
        dns.sort()
        for fn in sorted(fns):
            p = os.path.join(dp, fn)
            rel = os.path.relpath(p, root)
            if os.path.islink(p) or not re.match(keep, fn) or re.match(skip, rel):
                continue
            out.append((rel, p))
    out.sort()
    return out


# ---------------------------------------------------------------- tolerant HTML -> tree
VOID = {"br", "img", "hr", "meta", "link", "input", "col", "area", "base", "wbr", "source", "embed", "param", "track"}
P_CLOSERS = {"p", "div", "ul", "ol", "dl", "pre", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section",
             "blockquote", "form", "hr", "header", "footer", "nav", "article", "aside", "main", "figure"}
P_BOUND = {"div", "li", "dd", "dt", "td", "th", "section", "body", "blockquote", "article", "main", "root"}


class Node:
    __slots__ = ("tag", "attrs", "children", "parent")

    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.children, self.parent = tag, attrs, [], parent

    def cls(self):
        return set((self.attrs.get("class") or "").split())


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {}, None)
        self.cur = self.root

    def _close_up(self, tags, bounds):
        n = self.cur
        while n is not None and n.tag not in bounds:
            if n.tag in tags:
                self.cur = n.parent
                return
            n = n.parent

    def handle_starttag(self, tag, attrs):
        if tag in P_CLOSERS:
            self._close_up({"p"}, P_BOUND)
        if tag == "li":
            self._close_up({"li"}, {"ul", "ol", "root"})
        if tag in ("dt", "dd"):
            self._close_up({"dt", "dd"}, {"dl", "root"})
        n = Node(tag, {k: (v or "") for k, v in attrs}, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, {k: (v or "") for k, v in attrs}, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != "root":
            if n.tag == tag:
                self.cur = n.parent
                return
            n = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


SKIP_TAGS = {"script", "style", "head", "table", "nav", "form", "button", "select", "noscript", "svg", "footer"}
SKIP_CLASSES = {"navheader", "navfooter", "toc", "sphinxsidebar", "related", "headerlink", "footer", "breadcrumbs",
                "list-of-tables", "list-of-figures", "list-of-examples", "indexterm", "toclink", "nav", "mark",
                "api_stability", "sphinxsidebarwrapper", "docs-nav", "added", "changed", "versionmodified",
                "version-history", "navigation", "copyright", "highlight-pycon"}
SKIP_IDS = {"global-nav", "toc", "column2", "gtoc", "header", "footer", "sidebar", "hd", "ft", "gn-links", "apicontent-toc"}
INLINE = {"a", "span", "code", "em", "strong", "b", "i", "tt", "kbd", "var", "samp", "abbr", "sup", "sub", "s", "small",
          "big", "cite", "q", "u", "font", "img", "label", "br", "acronym", "dfn", "del", "ins", "mark", "time", "wbr",
          "bdi", "bdo", "data", "nobr"}
HEAD = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


def skipped(n):
    if n.tag in SKIP_TAGS:
        return True
    if n.cls() & SKIP_CLASSES:
        return True
    return n.attrs.get("id") in SKIP_IDS


def text_of(n, pre=False, raw=False):
    parts = []

    def rec(x):
        for c in x.children:
            if isinstance(c, str):
                parts.append(c)
            elif c.tag == "br":
                parts.append("\n" if pre else " ")
            elif not skipped(c):
                rec(c)

    rec(n)
    s = "".join(parts)
    if raw:
        return s
    if pre:
        s = s.replace("\r", "").strip("\n")
        lines = [ln.rstrip() for ln in s.split("\n")]
        return "\n".join(lines).strip()
    return norm_ws(s)


def norm_ws(s):
    s = s.replace("\u00b6", " ").replace("\u00a0", " ").replace("\u200b", "")
    return re.sub(r"\s+", " ", s).strip()


class Def:
    __slots__ = ("terms", "blocks", "dl_id", "raw_dt", "depth")

    def __init__(self, terms, blocks, dl_id, raw_dt, depth):
        self.terms, self.blocks, self.dl_id, self.raw_dt, self.depth = terms, blocks, dl_id, raw_dt, depth


def blocks_of(root):
    """Flat block stream: ('h', level, text) ('p', text) ('pre', text) ('def', Def)."""
    out = []
    dl_counter = [0]

    def walk(node, out, depth=0):
        buf = []

        def flush():
            t = norm_ws("".join(buf))
            buf.clear()
            if t:
                out.append(("p", t))

        for c in node.children:
            if isinstance(c, str):
                buf.append(c)
                continue
            if skipped(c):
                continue
            if c.tag in INLINE:
                buf.append(" " if c.tag == "br" else text_of(c, raw=True))
                continue
            flush()
            if c.tag in HEAD:
                t = text_of(c)
                if t:
                    out.append(("h", HEAD[c.tag], t))
            elif c.tag == "p":
                t = text_of(c)
                if t:
                    out.append(("p", t))
                # malformed html: block children inside <p>
                for g in c.children:
                    if not isinstance(g, str) and g.tag in ("pre", "ul", "ol", "dl", "div"):
                        walk_one(g, out, depth)
            elif c.tag == "pre":
                t = text_of(c, pre=True)
                if t:
                    out.append(("pre", t))
            elif c.tag == "dl":
                walk_dl(c, out, depth)
            elif c.tag == "li":
                sub = []
                walk(c, sub, depth)
                out.extend(("li", b[1]) if b[0] == "p" else b for b in sub)
            else:
                walk(c, out, depth)
        flush()

    def walk_one(n, out, depth=0):
        holder = Node("x", {}, None)
        holder.children = [n]
        walk(holder, out, depth)

    def walk_dl(dl, out, depth):
        dl_counter[0] += 1
        dl_id = dl_counter[0]
        terms, raw = [], []
        nested = []
        for c in dl.children:
            if isinstance(c, str) or skipped(c):
                continue
            if c.tag == "dt":
                raw.append(c)
                t = text_of(c)
                if t:
                    terms.append(t)
            elif c.tag == "dd":
                sub = []
                walk(c, sub, depth + 1)
                own = [b for b in sub if b[0] != "def"]
                nested.extend(b for b in sub if b[0] == "def")
                if terms:
                    out.append(("def", Def(terms, own, dl_id, raw, depth)))
                else:
                    out.extend(own)
                terms, raw = [], []
            else:
                walk_one(c, out, depth)
        out.extend(nested)

    walk(root, out)
    return out


def parse_page(path):
    with open(path, "rb") as f:
        data = f.read()
    s = data.decode("utf-8", errors="replace")
    t = Tree()
    try:
        t.feed(s)
        t.close()
    except Exception:  # noqa: BLE001 - a broken page is skipped, not fatal
        return []
    body = t.root
    return blocks_of(body)


# ---------------------------------------------------------------- sentences
ABBR_END = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|Dr|Mr|Mrs|Ms|St|No|Fig|approx|resp|al|Inc|Ltd|Jr|Sr|ca|viz)\.|\b[A-Za-z]\.)$")
SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"\u201c\u2018'(`\[<$-])")


def sentences(text):
    parts = SPLIT.split(text)
    out = []
    for p in parts:
        if out and ABBR_END.search(out[-1]):
            out[-1] = out[-1] + " " + p
        else:
            out.append(p)
    return [s.strip() for s in out if s.strip()]


MAXP = 400


def clip(s, n=MAXP):
    if len(s) <= n:
        return s
    cut = s[:n]
    sp = cut.rfind(" ")
    if sp > n * 0.6:
        cut = cut[:sp]
    return cut.rstrip() + " \u2026"


def clip_code(code, n):
    if len(code) <= n:
        return code
    lines, total = [], 0
    for ln in code.split("\n"):
        if total + len(ln) + 1 > n:
            break
        lines.append(ln)
        total += len(ln) + 1
    if not lines:
        return code[:n]
    return "\n".join(lines)


META_RE = re.compile(r"^(Added in:?|Stability:|Deprecated since|Changed in version|New in version|Removed in)", re.I)


def good_sentence(s):
    if META_RE.match(s):
        return False
    return 20 <= len(s) <= MAXP and len(s.split()) >= 3 and re.search(r"[a-zA-Z]{3}", s) is not None


# ---------------------------------------------------------------- BM25 over sentences
STOP = set("""a an the of to in on for and or is are be by with as at it its this that these those from
do does did how i can you we my me what which why when where who whose will would should could may might
there their then than so if not no into out about use using used get set there's it's does doesn't
your our they them he she his her have has had was were been being any all some more most such only
also just like one two way ways s t""".split())
TOK = re.compile(r"[a-z0-9_]+")


def words(s):
    return [w for w in TOK.findall(s.lower()) if w not in STOP and len(w) > 1]


class BM25:
    def __init__(self, docs):
        self.docs = docs
        self.tf = []
        self.len = []
        df = collections.Counter()
        self.post = collections.defaultdict(list)
        for i, d in enumerate(docs):
            c = collections.Counter(words(d))
            self.tf.append(c)
            self.len.append(sum(c.values()) or 1)
            for w in c:
                self.post[w].append(i)
            df.update(c.keys())
        n = max(1, len(docs))
        self.avg = sum(self.len) / n
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        self.n = n

    def score(self, q_words, i, k1=1.2, b=0.75):
        tf, ln = self.tf[i], self.len[i]
        s = 0.0
        for w in q_words:
            f = tf.get(w, 0)
            if f:
                s += self.idf[w] * f * (k1 + 1) / (f + k1 * (1 - b + b * ln / self.avg))
        return s

    def top(self, q, k=30, max_df_frac=0.05):
        qw = list(dict.fromkeys(words(q)))
        cand = set()
        for w in qw:
            p = self.post.get(w)
            if p and len(p) <= max(50, max_df_frac * self.n):
                cand.update(p)
        scored = sorted(((self.score(qw, i), i) for i in cand), key=lambda x: (-x[0], x[1]))
        return [i for s, i in scored[:k] if s > 0]


# ---------------------------------------------------------------- question templates
Q_WORDS = re.compile(r"^(how (do|can|should|would) (i|you|we)|how to|what (is|are|does|do)|why (is|are|does|do|doesn't|don't|can't)"
                     r"|is there|are there|can i|can you|do i|does|is it|where (is|are|do|can)|which|when)\b", re.I)


def strip_number(h):
    h = re.sub(r"^(Chapter|Appendix|Section)\s+[\dA-Z]+\.\s*", "", h)
    h = re.sub(r"^[\dA-Z]{1,3}(\.\d+)*\.?\s+", "", h)
    return h.strip()


def terse(q):
    """"How do I display the files of an installed package?" -> "display files installed package"."""
    q = q.rstrip("?").strip()
    q2 = Q_WORDS.sub("", q).strip()
    ws = [w for w in re.findall(r"[\w.\-/+#:]+", q2) if w.lower() not in STOP]
    if len(ws) < 2:
        return None
    return " ".join(ws).lower()


GERUND = {
    "installing": "install", "configuring": "configure", "creating": "create", "setting": "set",
    "using": "use", "adding": "add", "removing": "remove", "upgrading": "upgrade", "running": "run",
    "enabling": "enable", "disabling": "disable", "writing": "write", "building": "build",
    "changing": "change", "deploying": "deploy", "debugging": "debug", "testing": "test",
    "managing": "manage", "updating": "update", "uninstalling": "uninstall", "compiling": "compile",
    "starting": "start", "stopping": "stop", "mounting": "mount", "backing": "back", "restoring": "restore",
    "migrating": "migrate", "customizing": "customize", "customising": "customise", "connecting": "connect",
    "downloading": "download", "checking": "check", "making": "make", "getting": "get", "handling": "handle",
    "defining": "define", "serving": "serve", "sending": "send", "reading": "read", "loading": "load",
    "generating": "generate", "signing": "sign", "uploading": "upload", "rebuilding": "rebuild",
    "converting": "convert", "importing": "import", "exporting": "export", "listing": "list",
    "finding": "find", "searching": "search", "replacing": "replace", "editing": "edit", "packaging": "package",
    "patching": "patch", "declaring": "declare", "registering": "register", "specifying": "specify",
    "limiting": "limit", "securing": "secure", "protecting": "protect", "sharing": "share",
    "extending": "extend", "overriding": "override", "passing": "pass", "writing": "write",
}


BASE_VERBS = set(GERUND.values()) - {"use", "list", "search", "test", "package", "patch", "limit", "check", "back",
                                     "find", "sign", "handle", "export", "import"}
TO_CLAUSE = re.compile(r"^To ([a-z]+(?: [^,:;()]{2,80}?)?)(?:,|:)\s*(.*)$", re.S)
TO_BAD = re.compile(r"\b(this|that|these|those|do so|it|them|be|summarize|illustrate|recap|see|sum up|avoid confusion)\b")


_V = (r"(use|run|type|call|set|add|issue|invoke|execute|specify|pass|enter|give|write|put|edit|create|install|make|"
      r"select|apply|include|append|change|load|import|remove|delete|start|stop|open|configure|define|mount|build|copy)")
TO_INSTR = re.compile(r"^((simply|just|then|first) )?" + _V + r"\b|^(you|one|we) (can|should|could|would|may|need to|have to|must) "
                      r"((simply|just|first) )?" + _V + r"\b", re.I)


def to_clause_task(sent):
    m = TO_CLAUSE.match(sent)
    if not m:
        return None
    task = m.group(1).strip()
    n = len(task.split())
    if n < 2 or n > 12 or TO_BAD.search(task) or task.split()[0] in ("the", "a", "an", "some", "all"):
        return None
    rest = m.group(2).strip()
    if not rest and "\n" not in sent:
        return None
    if rest and not TO_INSTR.match(rest) and not sent.endswith(":"):
        return None
    return task


def howto_questions(h):
    """Return (task phrase, list of question variants) or None."""
    h = strip_number(h).rstrip(".:")
    m = re.match(r"^how (?:do i|can i|to|do you|can you|should i)\s+(.+?)\??$", h, re.I)
    if m:
        task = m.group(1)
    else:
        m = re.match(r"^([A-Z][a-z]+ing)\s+(.+)$", h)
        if not m or m.group(1).lower() not in GERUND:
            m2 = re.match(r"^([A-Z][a-z]+)\s+(.+)$", h)
            if m2 and m2.group(1).lower() in BASE_VERBS and not h.endswith("?"):
                task = m2.group(1).lower() + " " + m2.group(2)
                if len(task.split()) < 2 or len(task.split()) > 10:
                    return None
                return task, [f"how do i {task}", f"How do I {task}?", f"how to {task}", task, f"how can i {task}"]
            return None
        rest = m.group(2)
        if re.match(r"^(of|with|and|in|for|to|on|from)\b", rest, re.I):
            return None
        if len(rest.split()) > 9:
            return None
        verb = GERUND[m.group(1).lower()]
        if verb == "set" and rest.lower().startswith("up "):
            verb, rest = "set up", rest[3:]
        elif verb == "back" and rest.lower().startswith("up"):
            verb, rest = "back up", rest[2:].strip()
        task = verb + " " + rest
    task = task.strip()
    if len(task.split()) < 2 or len(task) > 90:
        return None
    tl = task[0].lower() + task[1:]
    return tl, [f"how do i {tl}", f"How do I {tl}?", f"how to {tl}", tl, f"{tl}?".lower()]


def term_name(raw, pkg):
    """Clean a <dt> into a term a visitor would type; None if it is not term-like."""
    t = raw.strip()
    t = re.sub(r"\s*\((?:integer|boolean|string|enum|floating point|real|int|bool|text)\)\s*$", "", t, flags=re.I)
    # python signatures: module.func(args) -> module.func ; "class foo.Bar(...)" -> foo.Bar
    t = re.sub(r"^(class|exception|method|attribute|data|function|coroutine|abstractmethod|classmethod|staticmethod|async|await|property|final|awaitable)\s+", "", t)
    if "(" in t and not t.startswith("-"):
        t = t.split("(", 1)[0].strip()
    t = t.rstrip(":").strip()
    if not t or len(t) > 48:
        return None
    if len(t.split()) > 4:
        return None
    if t.startswith("-"):
        # "--output=<file>" -> "--output"; "-o <file>" -> "-o"
        t = re.split(r"[=\s\[<]", t, 1)[0]
        return t if len(t) >= 2 else None
    return t


# --------------------------------------------------------------- default sentences
DEFAULT_RE = re.compile(r"(\bthe default\b|\bdefaults? to\b|\bby default\b|^default:|\(default[:\s]|\bdefault (value|setting) (is|of)\b|\bis the default\b|\(the default\))", re.I)


def is_default_sentence(s):
    return DEFAULT_RE.search(s) is not None and len(s) >= 8


DEFAULT_TPL = ["{t} default", "default value of {t}", "what is the default {t}", "default {t}",
               "{t} default value", "What is the default value of {t}?", "what does {t} default to"]
DEF_TPL_OPT = ["what does {t} do", "{t}", "{t} option", "what is the {t} flag", "What does {t} do?", "{t} flag"]
DEF_TPL_TERM = ["what is {t}", "{t}", "what does {t} do", "What is {t}?", "{t} meaning", "explain {t}"]
DEF_TPL_PARAM = ["what is {t}", "{t}", "{t} setting", "what does {t} control", "{t} parameter", "What is {t} for?"]
DEF_TPL_FUNC = ["what does {t} do", "{t}", "what is {t}", "{t} function", "What does {t}() do?"]

RESTATE_TPL = ["This section explains {topic}.", "This page describes {topic}.", "Here's the basics of {topic}.",
               "In this chapter we look at {topic}.", "The following section covers {topic}.",
               "Read on to learn about {topic}.", "This guide shows {topic}.", "Let's talk about {topic}.",
               "Below you will find information about {topic}.", "This document is about {topic}."]
RESTATE_TASK_TPL = ["Description: You want to {task}.", "You may want to {task}.", "Sometimes you need to {task}.",
                    "This section explains how to {task}.", "Here's how to {task}, step by step.",
                    "A common question is how to {task}."]


# ---------------------------------------------------------------- page model
class Page:
    def __init__(self, pkg, rel, blocks):
        self.pkg, self.rel, self.blocks = pkg, rel, blocks
        self.title = next((b[2] for b in blocks if b[0] == "h"), "")
        # sections: list of (heading, level, [block indices])
        self.sections = []
        cur = ("", 0, [])
        for i, b in enumerate(blocks):
            if b[0] == "h":
                self.sections.append(cur)
                cur = (b[2], b[1], [])
            else:
                cur[2].append(i)
        self.sections.append(cur)
        # page sentences (for same-page negatives): (section index, sentence)
        self.sents = []
        for si, (h, lvl, idx) in enumerate(self.sections):
            for i in idx:
                for s in block_sentences(blocks[i]):
                    self.sents.append((si, s))


def block_sentences(b):
    if b[0] in ("p", "li"):
        return [s for s in sentences(b[1]) if good_sentence(s)]
    if b[0] == "def":
        out = []
        for bb in b[1].blocks:
            if bb[0] in ("p", "li"):
                out.extend(s for s in sentences(bb[1]) if good_sentence(s))
        return out
    return []


def first_answer(blocks, idx, min_len=60):
    """First answering sentence(s) of a section: accumulate until min_len chars; a sentence
    ending in ':' takes the following list items / code block."""
    for k, i in enumerate(idx):
        b = blocks[i]
        if b[0] != "p":
            if b[0] == "pre":
                return None  # code before any prose: skip
            continue
        ss = sentences(b[1])
        if not ss:
            continue
        acc = ""
        used = 0
        for s in ss:
            acc = (acc + " " + s).strip()
            used += 1
            if len(acc) >= min_len or acc.endswith(":"):
                break
        if acc.endswith(":"):
            tail = []
            for j in idx[k + 1:k + 5]:
                bj = blocks[j]
                if bj[0] == "pre":
                    tail.append(clip_code(bj[1], 300))
                    break
                if bj[0] in ("p", "li"):
                    tail.append(bj[1])
                    if sum(len(x) for x in tail) > 250:
                        break
                else:
                    break
            if not tail:
                return None
            acc = acc + "\n" + "\n".join(tail)
        if len(acc) < 15:
            return None
        return clip(acc), used, i
    return None


def intro_sentence(blocks, idx):
    for i in idx:
        if blocks[i][0] == "p":
            ss = [s for s in sentences(blocks[i][1]) if good_sentence(s)]
            if ss:
                return ss[0]
    return None


def code_passages(blocks, idx):
    """(sentence + following code block) passages of a section, in order."""
    out = []
    for k, i in enumerate(idx[:-1]):
        b, nb = blocks[i], blocks[idx[k + 1]]
        if b[0] == "p" and nb[0] == "pre" and idx[k + 1] == i + 1:
            ss = sentences(b[1])
            if not ss:
                continue
            s = ss[-1]
            if len(s) < 25 and len(ss) > 1:
                s = ss[-2] + " " + s
            if len(s) < 12 or len(s) > 300:
                continue
            code = clip_code(nb[1], 300)
            if len(code) < 3:
                continue
            out.append((clip(s + "\n" + code), s, i))
    return out


IMPERATIVE = re.compile(r"^(To [a-z]+ [^,]{0,80}, )?(add|run|use|type|install|create|edit|set|put|enter|execute|call|write|open|"
                        r"navigate|change|make|copy|invoke|start|stop|configure|define|specify|include|insert|"
                        r"append|load|import|pass|issue|mount|upload|download|select|activate|clone|apply|build|"
                        r"compile|remove|delete|update|upgrade|try|do|check|first|then|next|finally|simply|just)\b", re.I)
INSTR_CUE = re.compile(r"(like this|as follows|the following (command|commands|line|lines|code|example|entry|configuration|"
                       r"snippet)|following:|command:|you can (use|run|type|do|add|set|create|install)|you need to|"
                       r"you should|you must|simply|just run|this command|for example, to)", re.I)


def howto_score(sent, code, task):
    sc = 0
    if IMPERATIVE.match(sent):
        sc += 2
    if INSTR_CUE.search(sent):
        sc += 1
    tw = set(words(task))
    if tw & set(words(sent + " " + code)):
        sc += 1
    verb = task.split()[0].lower()
    if re.search(r"\b" + re.escape(verb[:5]), sent.lower()):
        sc += 1
    if re.match(r"^(the output|this (prints|outputs|produces|gives|shows|returns)|which (prints|outputs|gives))", sent, re.I):
        sc -= 2
    return sc


# ---------------------------------------------------------------- group builders
def uniq_negs(pos, cands, qtext, k=7):
    seen = {pos.lower()}
    out = []
    pw = set(words(pos))
    for src, c in cands:
        key = c.lower()
        if key in seen or len(c) < 8:
            continue
        if c in pos or (pos in c and len(pos) > 30):
            continue
        cw = set(words(c))
        if pw and cw and len(pw & cw) / len(pw | cw) > 0.7:
            continue
        seen.add(key)
        out.append((src, c))
        if len(out) >= k:
            break
    return out


class Builder:
    def __init__(self, seed):
        self.seed = seed
        self.groups = []

    def rng(self, *key):
        h = hashlib.sha256(("%d|" % self.seed + "|".join(map(str, key))).encode()).digest()
        return random.Random(int.from_bytes(h[:8], "little"))

    def add(self, pkg, page, kind, q, pos, negs):
        if len(negs) < 3:
            return
        self.groups.append({"kind": kind, "pkg": pkg, "page": page, "q": q, "pos": pos,
                            "negs": [c for _, c in negs], "neg_src": [s for s, _ in negs]})


def bm25_negs(index, q, page_key, exclude_pred, rng, n):
    out = []
    for i in index.top(q, k=40):
        pk, s = index.meta[i]
        if pk == page_key or exclude_pred(s):
            continue
        out.append(s)
        if len(out) >= 12:
            break
    rng.shuffle(out)
    # keep the strongest ones first but with some randomness: take from top 12
    return [("bm25", s) for s in out[:n]]


def build_package(pkg, pages, B, stats):
    # sentence index of this package for BM25 negatives
    docs, meta = [], []
    for p in pages:
        for si, s in p.sents:
            docs.append(s)
            meta.append((p.rel, s))
    index = BM25(docs)
    index.meta = meta

    for p in pages:
        blocks = p.blocks
        secs = p.sections
        code_by_sec = {si: code_passages(blocks, idx) for si, (h, lvl, idx) in enumerate(secs)}
        all_code = [(si, c[0]) for si, cs in code_by_sec.items() for c in cs]
        for si, (h, lvl, idx) in enumerate(secs):
            if not h:
                continue
            hs = strip_number(h)
            sec_sents = [s for s2, s in p.sents if s2 == si]
            other_sents = [s for s2, s in p.sents if s2 != si]
            # ---------------- FAQ
            if hs.endswith("?") and 12 <= len(hs) <= 160 and idx:
                fa = first_answer(blocks, idx)
                if fa:
                    pos, used, bi = fa
                    rng = B.rng(pkg, p.rel, si, "faq")
                    variants = [hs, hs.lower().rstrip("?").strip()]
                    t = terse(hs)
                    if t:
                        variants.append(t)
                    for vi, q in enumerate(variants):
                        r = B.rng(pkg, p.rel, si, "faq", vi)
                        cands = []
                        if r.random() < 0.6:
                            cands.append(("heading", hs))
                        later = [s for s in sec_sents if s not in pos][1:]
                        r.shuffle(later)
                        cands += [("section", s) for s in later[:2]]
                        o = list(other_sents)
                        r.shuffle(o)
                        cands += [("page", s) for s in o[:2]]
                        topic = restate_topic(hs)
                        if topic and r.random() < 0.35:
                            cands.append(("synthetic", r.choice(RESTATE_TPL).format(topic=topic)))
                        cands += bm25_negs(index, q, p.rel, lambda s: False, r, 6)
                        negs = uniq_negs(pos, cands, q)
                        B.add(pkg, p.rel, "faq", q, pos, negs)
                        stats["faq"] += 1
            # ---------------- how-to
            hq = howto_questions(hs)
            best = None
            if hq and code_by_sec.get(si) and not p.rel.startswith("whatsnew"):
                scored = [(howto_score(c[1], c[0], hq[0]), -k, c) for k, c in enumerate(code_by_sec[si])]
                scored.sort(reverse=True)
                if scored[0][0] >= 2:
                    best = scored[0][2]
            if best:
                task, qs = hq
                pos, sent, bi = best
                intro = intro_sentence(blocks, idx)
                r0 = B.rng(pkg, p.rel, si, "howto")
                for vi, q in enumerate(r0.sample(qs, 2)):
                    r = B.rng(pkg, p.rel, si, "howto", vi)
                    cands = []
                    if intro and intro not in pos:
                        cands.append(("intro", intro))
                    if r.random() < 0.5:
                        cands.append(("heading", hs))
                    if r.random() < 0.4:
                        cands.append(("synthetic", r.choice(RESTATE_TASK_TPL).format(task=task)))
                    oc = [c for s2, c in all_code if c != pos]
                    r.shuffle(oc)
                    cands += [("page_code", c) for c in oc[:2]]
                    rest = [s for s in sec_sents if s not in pos and s != intro and not s.endswith(":")]
                    r.shuffle(rest)
                    cands += [("section", s) for s in rest[:2]]
                    cands += bm25_negs(index, q, p.rel, lambda s: False, r, 5)
                    negs = uniq_negs(pos, cands, q)
                    B.add(pkg, p.rel, "howto", q, pos, negs)
                    stats["howto"] += 1
            # ---------------- "X is ..." definitions under a short noun heading
            if 1 <= len(hs.split()) <= 4 and not hs.endswith("?") and idx and not hq:
                intro = intro_sentence(blocks, idx)
                if intro:
                    core = re.sub(r"^(the|a|an)\s+", "", hs.strip(), flags=re.I)
                    m = re.match(r"^(the |a |an )?" + re.escape(core) + r"\s*(\([^)]*\))?\s+(is|are|means|refers to|stands for)\s", intro, re.I)
                    if m and len(core) >= 2:
                        r = B.rng(pkg, p.rel, si, "define")
                        q = r.choice(["what is {t}", "what is {t}?", "What is {t}?", "{t}", "what are {t}", "define {t}",
                                      "{t} meaning"]).format(t=core if r.random() < 0.5 else core.lower())
                        cands = []
                        rest = [s for s in sec_sents if s != intro]
                        r.shuffle(rest)
                        cands += [("section", s) for s in rest[:3]]
                        if r.random() < 0.35:
                            cands.append(("synthetic", r.choice(RESTATE_TPL).format(topic=core)))
                        cands += bm25_negs(index, q, p.rel, lambda s: False, r, 5)
                        negs = uniq_negs(clip(intro), cands, q)
                        B.add(pkg, p.rel, "define", q, clip(intro), negs)
                        stats["define"] += 1
            # ---------------- API headings: "fs.readFile(path[, options], callback)", "Class: fs.Dir"
            m = re.match(r"^(?:Class: |Static method: |Event: )?((?:new )?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*(\(.*\))?$", hs)
            if m and idx and pkg == "nodejs-doc":
                fname = m.group(1).replace("new ", "")
                psents = []
                for i in idx:
                    if blocks[i][0] == "p":
                        psents.extend(s for s in sentences(blocks[i][1]) if good_sentence(s))
                lis = [blocks[i][1] for i in idx if blocks[i][0] == "li"]
                if psents and not psents[0].startswith("Added in") and not is_default_sentence(psents[0]):
                    desc = clip(psents[0])
                    others = [("sibling", s) for s2, s in p.sents if s2 != si and not is_default_sentence(s)]
                    r = B.rng(pkg, p.rel, si, "api")
                    r.shuffle(others)
                    emit_term_groups(B, index, pkg, p, ("api", si), fname, "func", desc, None,
                                     [("dd", clip(s)) for s in psents[1:4]], others[:4], stats)
                    # parameter defaults listed as "name <type> ... Default: x"
                    for li_k, li in enumerate(lis):
                        dm = re.match(r"^([A-Za-z_$][\w$]*)\s+<[^>]+>.*\bDefault:\s*\S", li)
                        if not dm or len(li) > MAXP:
                            continue
                        param = dm.group(1)
                        r = B.rng(pkg, p.rel, si, "apidef", li_k)
                        short = fname.split(".")[-1] if r.random() < 0.4 else fname
                        q = r.choice(["{f} {p} default", "default {p} for {f}", "what is the default {p} of {f}",
                                      "{f} {p} option default", "{f} default {p}"]).format(f=short, p=param)
                        cands = [("describe", desc)]
                        nd = [("li", x) for x in lis if x != li and "Default:" not in x and len(x) > 15]
                        wd = [("li_default", x) for x in lis if x != li and "Default:" in x]
                        r.shuffle(nd)
                        r.shuffle(wd)
                        cands += nd[:2] + wd[:2] + [("dd", clip(s)) for s in psents[1:3]]
                        cands += bm25_negs(index, q, p.rel, is_default_sentence, r, 3)
                        negs = uniq_negs(li, cands, q)
                        B.add(pkg, p.rel, "default", q, li, negs)
                        stats["default"] += 1
            # ---------------- Django-style "Default: ..." settings sections
            if re.fullmatch(r"[A-Za-z_][\w.\-]{2,40}", hs) and idx:
                psents = []
                for i in idx:
                    if blocks[i][0] == "p":
                        psents.extend(sentences(blocks[i][1]))
                dflt = [s for s in psents if re.match(r"^Default:\s*\S", s)]
                desc = [s for s in psents if good_sentence(s) and not is_default_sentence(s)]
                if dflt and desc:
                    emit_term_groups(B, index, pkg, p, si, hs, "param", clip(desc[0]), clip(dflt[0]),
                                     [("dd", s) for s in desc[1:4]],
                                     [("sibling", s) for s in other_sents if not is_default_sentence(s)], stats)
        # ---------------- "To <task>, use ..." sentences (with their code block when one follows)
        n_to = 0
        for si, (h, lvl, idx) in enumerate(secs):
            if n_to >= 12:
                break
            for k, i in enumerate(idx):
                if blocks[i][0] != "p" or n_to >= 12:
                    continue
                ss = sentences(blocks[i][1])
                for j, s in enumerate(ss):
                    task = to_clause_task(s)
                    if not task or len(s) > 300:
                        continue
                    pos = s
                    if j == len(ss) - 1 and k + 1 < len(idx) and idx[k + 1] == i + 1 and blocks[i + 1][0] == "pre":
                        pos = s + "\n" + clip_code(blocks[i + 1][1], 300)
                    elif s.endswith(":"):
                        continue
                    pos = clip(pos)
                    r = B.rng(pkg, p.rel, si, i, j, "to")
                    q = r.choice(["how do i {t}", "how to {t}", "{t}", "How do I {t}?", "how can i {t}",
                                  "How can I {t}?"]).format(t=task)
                    cands = []
                    intro = intro_sentence(blocks, idx)
                    if intro and intro not in pos:
                        cands.append(("intro", intro))
                    if r.random() < 0.4:
                        cands.append(("synthetic", r.choice(RESTATE_TASK_TPL).format(task=task)))
                    oc = [c for s2, c in all_code if c != pos]
                    r.shuffle(oc)
                    cands += [("page_code", c) for c in oc[:2]]
                    rest = [x for s2, x in p.sents if s2 == si and x not in pos and not x.endswith(":")
                            and not x.startswith("To ")]
                    r.shuffle(rest)
                    cands += [("section", x) for x in rest[:2]]
                    cands += bm25_negs(index, q, p.rel, lambda x: x.startswith("To " + task), r, 4)
                    negs = uniq_negs(pos, cands, q)
                    B.add(pkg, p.rel, "howto", q, pos, negs)
                    stats["howto_to"] += 1
                    n_to += 1
        # ---------------- definition lists
        defs = [b[1] for b in blocks if b[0] == "def"]
        by_dl = collections.defaultdict(list)
        for d in defs:
            by_dl[d.dl_id].append(d)
        page_firsts = []
        firsts_of = {}
        for d in defs:
            ss = []
            for bb in d.blocks:
                if bb[0] == "p":
                    ss.extend(sentences(bb[1]))
            ss = [s for s in ss if len(s) >= 8]
            firsts_of[id(d)] = ss
            if ss and not is_default_sentence(ss[0]):
                page_firsts.append(clip(ss[0]))
        for dl_id, entries in by_dl.items():
            firsts = [firsts_of[id(d)] for d in entries]
            for ei, d in enumerate(entries):
                ss = firsts[ei]
                if not ss:
                    continue
                dt_id = d.raw_dt[-1].attrs.get("id", "") if d.raw_dt else ""
                r = B.rng(pkg, p.rel, dl_id, ei, "defname")
                if pkg == "python3.11-doc" and re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+", dt_id):
                    parts = dt_id.split(".")
                    names = [dt_id, ".".join(parts[-2:]), parts[-1]]
                    name = names[r.randrange(3)]
                else:
                    names = [term_name(t, pkg) for t in d.terms]
                    names = [n for n in names if n]
                    if not names:
                        continue
                    name = r.choice(names) if len(names) > 1 and r.random() < 0.5 else names[-1]
                if name.startswith("__") or (d.depth > 0 and re.fullmatch(r"[a-z]+", name)):
                    continue
                desc = ss[0]
                if len(desc) < 25 and len(ss) > 1 and not is_default_sentence(ss[1]):
                    desc = desc + " " + ss[1]
                if len(desc) < 12 or is_default_sentence(ss[0]):
                    continue
                sib = []
                for ej, other in enumerate(firsts):
                    if ej != ei and other:
                        sib.append(("sibling", clip(other[0])))
                if len(sib) < 3:
                    more = [("sibling", x) for x in page_firsts if x != clip(desc) and ("sibling", x) not in sib]
                    r.shuffle(more)
                    sib += more[:3 - len(sib)]
                rest = [("dd", clip(s)) for s in ss[1:] if s not in desc]
                if name.startswith("-"):
                    style = "opt"
                elif pkg == "postgresql-doc-15" and re.fullmatch(r"[a-z_][a-z0-9_.]+", name):
                    style = "param"
                elif re.fullmatch(r"[a-z]+\.[a-z][\w.]*", name) and pkg == "git-doc":
                    style = "param"
                elif pkg in ("python3.11-doc", "python-django-doc", "nodejs-doc") and re.fullmatch(r"[\w.]+", name) and ("_" in name or "." in name):
                    style = "func"
                else:
                    style = "term"
                dsent = next((s for s in ss[1:] if is_default_sentence(s)), None)
                emit_term_groups(B, index, pkg, p, ("dl", dl_id, ei), name, style, clip(desc),
                                 clip(dsent) if dsent else None, rest, sib, stats, page_title=p.title)


def restate_topic(h):
    h = h.rstrip("?").strip()
    m = re.match(r"^how (?:do|can|should) (?:i|you|we) (.+)$", h, re.I)
    if m:
        return "how to " + m.group(1)
    m = re.match(r"^what (?:is|are) (.+)$", h, re.I)
    if m:
        return m.group(1)
    if len(h.split()) <= 8 and not Q_WORDS.match(h):
        return h[0].lower() + h[1:]
    return None


def emit_term_groups(B, index, pkg, p, key, name, style, desc, dsent, rest, sib, stats, page_title=""):
    # --- definition question
    r = B.rng(pkg, p.rel, key, "def")
    tpl = {"opt": DEF_TPL_OPT, "param": DEF_TPL_PARAM, "func": DEF_TPL_FUNC}.get(style, DEF_TPL_TERM)
    q = r.choice(tpl).format(t=name)
    if style == "opt" and pkg == "git-doc" and r.random() < 0.4:
        cmd = re.match(r"^(git-[a-z\-]+)\.html$", p.rel)
        if cmd:
            q = cmd.group(1).replace("-", " ", 1) + " " + name
    cands = []
    sb = list(sib)
    r.shuffle(sb)
    cands += sb[:3]
    rs = list(rest)
    r.shuffle(rs)
    cands += rs[:2]
    if r.random() < 0.25:
        cands.append(("synthetic", r.choice(RESTATE_TPL).format(topic="the " + name + " " + {"opt": "option", "param": "setting"}.get(style, "function" if style == "func" else "term").strip())))
    opt_term = name if name.startswith("-") else None
    cands += bm25_negs(index, q, p.rel, (lambda s: opt_term in s) if opt_term else (lambda s: False), r, 5)
    negs = uniq_negs(desc, cands, q)
    B.add(pkg, p.rel, "def", q, desc, negs)
    stats["def"] += 1
    # --- default question
    if dsent and style in ("opt", "param"):
        r = B.rng(pkg, p.rel, key, "default")
        q = r.choice(DEFAULT_TPL).format(t=name)
        cands = [("describe", desc)]
        rs = [x for x in rest if not is_default_sentence(x[1])]
        r.shuffle(rs)
        cands += rs[:2]
        sb = [x for x in sib if not is_default_sentence(x[1])]
        r.shuffle(sb)
        cands += sb[:2]
        cands += bm25_negs(index, q, p.rel, is_default_sentence, r, 4)
        negs = uniq_negs(dsent, cands, q)
        B.add(pkg, p.rel, "default", q, dsent, negs)
        stats["default"] += 1


# ---------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True, help="dir with one unpacked package per subdir")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--dev-pkgs", default="python-django-doc,debian-faq,sqlite3-doc")
    ap.add_argument("--pkgs", default=",".join(PKG_GLOBS))
    args = ap.parse_args()
    dev = set(args.dev_pkgs.split(","))
    B = Builder(args.seed)
    per = {}
    for pkg in args.pkgs.split(","):
        files = package_files(args.src, pkg)
        pages = []
        for rel, path in files:
            bl = parse_page(path)
            if bl:
                pages.append(Page(pkg, rel, bl))
        stats = collections.Counter()
        n0 = len(B.groups)
        build_package(pkg, pages, B, stats)
        per[pkg] = stats
        print(f"{pkg:22s} pages {len(pages):5d} groups {len(B.groups) - n0:6d} " +
              " ".join(f"{k}={v}" for k, v in sorted(stats.items())), file=sys.stderr, flush=True)
    # dedupe on (question lowercased, positive)
    seen = set()
    train, devg = [], []
    for g in B.groups:
        k = (g["q"], g["pos"])
        if k in seen:
            continue
        seen.add(k)
        (devg if g["pkg"] in dev else train).append(g)
    rng = random.Random(args.seed)
    rng.shuffle(train)
    rng.shuffle(devg)
    os.makedirs(args.out, exist_ok=True)
    for name, gs in (("pairs.train.jsonl", train), ("pairs.dev.jsonl", devg)):
        with open(os.path.join(args.out, name), "w") as f:
            for g in gs:
                f.write(json.dumps(g, ensure_ascii=False, sort_keys=True) + "\n")
    print("\nsplit  kind     groups  negs/group", file=sys.stderr)
    summary = {}
    for split, gs in (("train", train), ("dev", devg)):
        c = collections.Counter(g["kind"] for g in gs)
        for k in sorted(c):
            nn = sum(len(g["negs"]) for g in gs if g["kind"] == k) / c[k]
            print(f"{split:5s}  {k:8s} {c[k]:6d}  {nn:.2f}", file=sys.stderr)
        summary[split] = dict(c)
        summary[split + "_by_pkg"] = dict(collections.Counter(g["pkg"] for g in gs))
        summary[split + "_neg_src"] = dict(collections.Counter(s for g in gs for s in g["neg_src"]))
    with open(os.path.join(args.out, "pairs.stats.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    print(json.dumps(summary, sort_keys=True), file=sys.stderr)


if __name__ == "__main__":
    main()
