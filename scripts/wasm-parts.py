#!/usr/bin/env python3
"""What each part of a wasm module costs: code bytes by crate and module, and the sections.

    python3 scripts/wasm-parts.py FILE.wasm [--depth 2] [--top 40]

Reads the module's `name` section (rustc keeps it unless the build strips symbols), demangles
Rust's legacy symbols (`_ZN` + length-prefixed path), and sums each function body's size under
the first `--depth` parts of its path (`memdag_core::memory`, `serde_json::de`, ...). Trait
impls (`<T as Trait>::method`) count under the type's path, and serde's under one bucket per
crate; generic library code (`core::slice::sort`, `alloc::collections`) counts under the
library, whichever crate instantiated it. Data (string tables, the
rule lexicons) is in the data section and is reported as one line: wasm does not say which
function owns which bytes. Run it on the wasm before wasm-opt, which drops the names. A
measurement for issue 28 (item 4), not a test.
"""
import argparse
import re
import sys
from collections import defaultdict


def leb(buf, at):
    """An unsigned LEB128 at `at`: (value, next offset)."""
    value = shift = 0
    while True:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def sections(buf):
    if buf[:4] != b"\0asm":
        sys.exit("not a wasm module")
    at = 8
    while at < len(buf):
        sid = buf[at]
        size, body = leb(buf, at + 1)
        yield sid, buf[body:body + size]
        at = body + size


def imported_functions(body):
    count, at = leb(body, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module and field names
            n, at = leb(body, at)
            at += n
        kind = body[at]
        at += 1
        if kind == 0:  # function: a type index
            _, at = leb(body, at)
            funcs += 1
        elif kind == 1:  # table: reftype, limits
            at += 1
            flags = body[at]
            _, at = leb(body, at + 1)
            if flags & 1:
                _, at = leb(body, at)
        elif kind == 2:  # memory: limits
            flags = body[at]
            _, at = leb(body, at + 1)
            if flags & 1:
                _, at = leb(body, at)
        elif kind == 3:  # global: valtype, mutability
            at += 2
        else:
            sys.exit(f"unknown import kind {kind}")
    return funcs


def function_names(body):
    names = {}
    at = 0
    name, at = leb(body, at)
    at += name  # the custom section's own name, "name"
    while at < len(body):
        sub = body[at]
        size, start = leb(body, at + 1)
        if sub == 1:
            count, p = leb(body, start)
            for _ in range(count):
                idx, p = leb(body, p)
                n, p = leb(body, p)
                names[idx] = body[p:p + n].decode("utf-8", "replace")
                p += n
        at = start + size
    return names


def demangle_v0(sym):
    """The identifiers of a v0 Rust symbol (`_R...`, the precompiled std uses it), in order:
    each is a decimal length then that many characters; crate hashes (`Cs<hash>_`) are skipped.
    Close enough to tell `core::fmt` from `alloc::str`, not a full demangler."""
    sym = re.sub(r"Cs[0-9A-Za-z]*_", "C", sym)
    parts, at = [], 2
    while at < len(sym):
        m = re.match(r"(\d+)_?", sym[at:])
        if not m:
            at += 1
            continue
        n = int(m.group(1))
        start = at + len(m.group())
        ident = sym[start:start + n]
        if n and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", ident):
            parts.append(ident)
            at = start + n
        else:
            at += len(m.group())
    return parts or [sym]


def demangle(sym):
    """The path parts of a Rust symbol, else the symbol as one part."""
    if sym.startswith("_R"):
        return demangle_v0(sym)
    if not sym.startswith("_ZN"):
        return [sym]
    parts, at = [], 3
    while at < len(sym) and sym[at].isdigit():
        m = re.match(r"\d+", sym[at:])
        n = int(m.group())
        at += len(m.group())
        parts.append(sym[at:at + n])
        at += n
    if parts and re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        parts.pop()
    out = []
    for p in parts:
        p = p.replace("$LT$", "<").replace("$GT$", ">").replace("$u20$", " ").replace("..", "::")
        p = p.replace("$RF$", "&").replace("$C$", ",").replace("$BP$", "*").replace("$u7b$", "{")
        p = p.replace("$u7d$", "}").replace("$u5b$", "[").replace("$u5d$", "]")
        out.append(p)
    return out


def group(parts, depth):
    path = "::".join(parts).lstrip("_")
    if path.startswith("<"):
        # `<T as trait::Path>::method`: serde's trait impls (derived visitors, seeds) form one
        # bucket per implementing crate, since serde's generics are a part issue 28 asks about;
        # other impls count under the implementing type's path.
        inner, _, rest = path[1:].partition(" as ")
        inner = inner.lstrip("&*").replace("mut ", "").lstrip("_<")
        ty = "::".join(inner.split("::")[:depth])
        if "serde" in rest.split(">")[0] or "serde" in inner.split("::")[0]:
            return f"serde impls, for {inner.split('::')[0]}"
        return ty + " (impls)"
    return "::".join(parts[:depth])


# The parts issue 28 names, by path prefix (first match wins; serde impls by their bucket).
ROLLUP = [
    ("rules (extraction, lexicons in code)", ("memdag_core::memory::rules",)),
    ("time parser", ("memdag_core::time::",)),
    ("export and import", ("memdag_core::export",)),
    ("cipher", ("memdag_core::cipher", "memdag_core::seal", "chacha20", "poly1305", "aes", "ghash",
                "polyval", "blake2", "ctr::", "aead", "universal_hash", "zeroize", "cipher::")),
    ("serde (rmp, json, derives)", ("serde", "rmp")),
    ("regex (grep)", ("regex", "aho_corasick", "memchr")),
    ("unicode tables", ("unicode_",)),
    ("memdag core, the rest", ("memdag_core", "memdag_types")),
    ("JS bindings", ("memdag_wasm", "js_sys", "wasm_bindgen", "web_sys")),
    ("Rust std generics (sort, collections, fmt)", ("core", "alloc", "std", "hashbrown", "dlmalloc", "compiler_builtins", "foldhash", "rustc", "tinyvec")),
]


def rollup(path):
    path = path.lstrip("_<&*")
    # v0 symbols leave a tag or two before the crate (`Nt`, `NtC`): skip them.
    comps = path.split("::")
    while len(comps) > 1 and re.fullmatch(r"[A-Z][A-Za-z]{0,3}|[a-z]", comps[0]):
        comps.pop(0)
    path = "::".join(comps)
    for label, prefixes in ROLLUP:
        if any(path.startswith(p) for p in prefixes):
            return label
    return "other"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wasm")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    buf = open(args.wasm, "rb").read()
    imports = 0
    bodies = []
    names = {}
    section_bytes = defaultdict(int)
    ids = {0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
           6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "data count"}
    for sid, body in sections(buf):
        label = ids.get(sid, str(sid))
        if sid == 0:
            n, at = leb(body, 0)
            label = "custom: " + body[at:at + n].decode("utf-8", "replace")
            if label == "custom: name":
                names = function_names(body)
        section_bytes[label] += len(body)
        if sid == 2:
            imports = imported_functions(body)
        if sid == 10:
            count, at = leb(body, 0)
            for _ in range(count):
                size, start = leb(body, at)
                bodies.append(size)
                at = start + size
    if not names:
        sys.exit("no name section: run it on the wasm before wasm-opt or strip")
    by_part = defaultdict(int)
    by_rollup = defaultdict(int)
    for i, size in enumerate(bodies):
        sym = names.get(imports + i, f"<function {imports + i}>")
        parts = demangle(sym)
        by_part[group(parts, args.depth)] += size
        joined = "::".join(parts).lstrip("_")
        if joined.startswith("<") and " as " in joined:
            # An impl of a serde trait is serde's cost, whichever type it is for.
            trait = joined.split(" as ", 1)[1]
            by_rollup["serde (rmp, json, derives)" if trait.startswith("serde") else rollup(joined)] += size
        else:
            by_rollup[rollup(joined)] += size
    total = len(buf)
    code = sum(bodies)
    print(f"{args.wasm}: {total} B; code {code} B in {len(bodies)} functions")
    print("\n| section | bytes | share |\n|---|---|---|")
    for label, size in sorted(section_bytes.items(), key=lambda x: -x[1]):
        print(f"| {label} | {size} | {100 * size / total:.1f}% |")
    print("\n| code by the parts issue 28 names | bytes | share of code |\n|---|---|---|")
    for label, size in sorted(by_rollup.items(), key=lambda x: -x[1]):
        print(f"| {label} | {size} | {100 * size / code:.1f}% |")
    print(f"\n| code by part (depth {args.depth}) | bytes | share of code |\n|---|---|---|")
    rows = sorted(by_part.items(), key=lambda x: -x[1])
    for part, size in rows[:args.top]:
        print(f"| {part} | {size} | {100 * size / code:.1f}% |")
    rest = sum(s for _, s in rows[args.top:])
    if rest:
        print(f"| {len(rows) - args.top} more parts | {rest} | {100 * rest / code:.1f}% |")


if __name__ == "__main__":
    main()
