#!/usr/bin/env python3
"""Fails when onrecord-core's modules import each other in a circle (issue 44).

Reads every `.rs` file under crates/onrecord-core/src (one file = one module; `lib.rs` is the
crate root, `x/mod.rs` is `x`), outside comments and `#[cfg(test)]` modules, and takes each
`crate::…`, `super::…` and `self::…` path (in `use` lines and in code) as an edge to the module
it names. A path to an item that a module re-exports (`pub use`, as lib.rs does) goes to where
the item is defined. A module reaching into its own submodules (`answer` → `answer::quote`) is
the tree itself, not an import, and is not counted.
  scripts/check-imports.py [SRC]    (prints the circles and exits 1 if there are any)
"""

import re
import sys
from pathlib import Path

SRC = Path(sys.argv[1] if len(sys.argv) > 1 else "crates/onrecord-core/src")


def module_of(path: Path) -> tuple:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts == ["lib"]:
        return ()
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


def strip(text: str) -> str:
    """The code without comments, strings and `#[cfg(test)]` modules."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\])'", "' '", text)
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand(tree: str) -> list:
    """`a::{b, c::{d, e}}` → [a::b, a::c::d, a::c::e] (as segment lists)."""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [[s for s in re.sub(r"\bas\w+$", "", tree).split("::") if s]]
    prefix = [s for s in m.group(1).split("::") if s]
    inner, depth, part, res = m.group(2), 0, "", []
    for ch in inner + ",":
        if ch == "," and depth == 0:
            if part:
                res += [prefix + p for p in expand(part)]
            part = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        part += ch
    return res


files = {module_of(p): strip(p.read_text()) for p in sorted(SRC.rglob("*.rs"))}
modules = set(files)


def absolute(module: tuple, segs: list) -> list:
    """A path as written in `module`, from the crate root."""
    if not segs:
        return []
    if segs[0] == "crate":
        return segs[1:]
    base = list(module)
    if segs[0] == "self":
        return base + segs[1:]
    while segs and segs[0] == "super":
        base, segs = base[:-1], segs[1:]
    return base + segs


uses = {m: [] for m in modules}  # module -> (absolute path, is pub)
for m, text in files.items():
    for u in re.finditer(r"(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", text):
        for segs in expand(u.group(2)):
            if segs and segs[0] in ("crate", "super", "self"):
                uses[m].append((absolute(m, segs), bool(u.group(1))))


def resolve(segs: list, seen=()) -> tuple:
    """The module that defines what `segs` (from the root) names."""
    mod = ()
    for i, s in enumerate(segs):
        if mod + (s,) in modules:
            mod = mod + (s,)
            continue
        for path, public in uses.get(mod, []):
            if public and path and path[-1] == s and (mod, s) not in seen:
                return resolve(path + segs[i + 1 :], seen + ((mod, s),))
        break
    return mod


edges = {m: set() for m in modules}
for m, text in files.items():
    paths = [p for p, _ in uses[m]]
    code = re.sub(r"(pub(?:\([^)]*\))?\s+)?use\s+[^;]+;", " ", text)
    for p in re.finditer(r"\b((?:crate|super|self)(?:::\w+)+)", code):
        paths.append(absolute(m, p.group(1).split("::")))
    for path in paths:
        target = resolve(path)
        if target != m and target[: len(m)] != m:
            edges[m].add(target)

# Tarjan's strongly connected components; a circle is one with more than one module.
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]


def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in sorted(edges[v]):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


sys.setrecursionlimit(10000)
for v in sorted(modules):
    if v not in index:
        visit(v)

name = lambda m: "::".join(m) or "lib"
for comp in sccs:
    inside = set(comp)
    print(f"import circle among {len(comp)} modules of {SRC}:")
    for m in comp:
        print(f"  {name(m)} -> {', '.join(name(t) for t in sorted(edges[m] & inside))}")
if sccs:
    sys.exit(1)
print(f"{SRC}: {len(modules)} modules, no import circles")
