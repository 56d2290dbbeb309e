#!/usr/bin/env python3
"""The layout check of scripts/test.sh: no import circle, crates depend in one direction, no
source file over 800 lines.

- Modules: every `.rs` file under `crates/<crate>/src` is a module (`mod.rs` and `lib.rs` name
  their folder). A module imports another when it names it in a path anywhere in its code:
  `crate::a::b`, `super::x`, `self::x` or, for its own submodule `x`, `x::` (each resolved to
  the longest module prefix that exists). A module naming one of its ancestors does not count:
  a folder's `mod.rs` is the interface the files under it implement, and using it is what
  they are for. A circle is a set of two or more modules of one crate that import each other,
  directly or through others.
- Crates: each crate's `[dependencies]` on the workspace's own crates must follow LAYERS,
  lowest first; a crate may depend only on crates of a lower layer.
- Files: no `.rs` file under `crates/` is longer than MAX_LINES.

Prints what it finds; exits 1 on any circle, wrong-way dependency or long file.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_LINES = 800
# The workspace's crates from the bottom up; a crate may depend on crates of earlier layers.
LAYERS = [
    ["memdag-types", "memdag-alloc"],
    ["memdag-core"],
    ["memdag-wasm", "memdag-component"],
    ["memdag-host"],
    ["memdag-bench"],
]


def rust_files(src):
    for dirpath, _, names in os.walk(src):
        for n in sorted(names):
            if n.endswith(".rs"):
                yield os.path.join(dirpath, n)


def module_of(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("lib", "mod", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def paths_in(text, children):
    """Every `crate::a::b...`, `super::...`, `self::...` and `<child>::...` path (as lists of
    segments), with use-groups expanded one level (`use crate::a::{b, c::d}`)."""
    out = []
    heads = ["crate", "super", "self"] + sorted(children)
    pattern = r"(?<![A-Za-z0-9_:])(" + "|".join(map(re.escape, heads)) + r")((?:::[A-Za-z_][A-Za-z0-9_]*)*)(::\{([^{}]*)\})?"
    for m in re.finditer(pattern, text):
        head = [m.group(1)] + [s for s in m.group(2).split("::") if s]
        if m.group(4) is not None:
            for item in m.group(4).split(","):
                item = item.strip().split(" as ")[0].strip()
                if item:
                    out.append(head + [s for s in item.split("::") if s and s != "self"])
        else:
            out.append(head)
    return out


def resolve(module, segments, modules):
    """The module a path names: the longest prefix that is a module of the crate."""
    if segments[0] == "crate":
        base, rest = (), segments[1:]
    elif segments[0] == "self":
        base, rest = module, segments[1:]
    elif segments[0] != "super":
        base, rest = module, segments
    else:
        base = module
        rest = segments
        while rest and rest[0] == "super":
            base = base[:-1]
            rest = rest[1:]
    best = base if base in modules else None
    for i in range(1, len(rest) + 1):
        cand = base + tuple(rest[:i])
        if cand in modules:
            best = cand
    return best


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def crate_circles(crate_dir):
    src = os.path.join(crate_dir, "src")
    files = list(rust_files(src))
    modules = {module_of(src, f): f for f in files}
    graph = {m: set() for m in modules}
    for m, f in modules.items():
        text = strip_comments(open(f, encoding="utf-8").read())
        children = {c[-1] for c in modules if len(c) == len(m) + 1 and c[: len(m)] == m}
        for p in paths_in(text, children):
            target = resolve(m, p, modules)
            if target is None or target == m:
                continue
            if m[: len(target)] == target:
                continue  # an ancestor: the interface this module implements
            graph[m].add(target)
    return [sorted(c) for c in sccs(graph) if len(c) > 1], graph


def crate_deps(crate_dir, names):
    text = open(os.path.join(crate_dir, "Cargo.toml"), encoding="utf-8").read()
    deps = set()
    section = None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("["):
            section = s.strip("[]")
            continue
        if section and (section == "dependencies" or section.endswith(".dependencies")):
            name = s.split("=", 1)[0].strip()
            if name in names:
                deps.add(name)
    return deps


def main():
    crates_dir = os.path.join(ROOT, "crates")
    crates = sorted(d for d in os.listdir(crates_dir) if os.path.isfile(os.path.join(crates_dir, d, "Cargo.toml")))
    layer = {c: i for i, group in enumerate(LAYERS) for c in group}
    failures = 0
    for c in crates:
        if c not in layer:
            print(f"layout: crate {c} has no layer in scripts/check-layout.py")
            failures += 1
    for c in crates:
        circles, _ = crate_circles(os.path.join(crates_dir, c))
        for circle in circles:
            failures += 1
            print(f"layout: circle in {c}: " + " <-> ".join("::".join(m) or "lib" for m in circle))
        for d in sorted(crate_deps(os.path.join(crates_dir, c), set(crates))):
            if layer.get(d, 99) >= layer.get(c, -1):
                failures += 1
                print(f"layout: {c} depends on {d}, which is not below it")
        for f in rust_files(os.path.join(crates_dir, c)):
            n = sum(1 for _ in open(f, encoding="utf-8"))
            if n > MAX_LINES:
                failures += 1
                print(f"layout: {os.path.relpath(f, ROOT)} has {n} lines (at most {MAX_LINES})")
    if failures:
        print(f"layout: {failures} problem(s)")
        return 1
    print(f"layout: {len(crates)} crates, no circle, dependencies one way, no file over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
