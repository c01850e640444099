#!/usr/bin/env python3
"""Import circles between the top-level modules of a crate (issue 24).

    python3 scripts/module_cycles.py crates/capkit-report [crates/profile-stats ...]

A crate's top-level modules are `src/NAME.rs` and `src/NAME/` (the crate root, `lib.rs` or
`main.rs`, is not one: it only declares and re-exports). Module A imports module B when a file
of A names a path `crate::B…` (in a `use` or inline; `use crate::{B::x, C}` counts for B and
C) or `crate::ITEM` where the crate root re-exports ITEM from B (`pub use B::ITEM`), or, in a
top-level file, `super::B` outside a `mod … {}` block, or invokes `NAME!` where B defines
`macro_rules! NAME` (a crate's own macros reach other modules by textual scope, no path).
Comments and string literals are skipped. Code inside a `#[cfg(test)]` module is counted apart: a test may reach any module, and
its edges are listed but not part of the graph.

For each crate the script prints every edge (with the first place that makes it), then each
circle: the strongly connected components of more than one module, with one shortest cycle
through each. Exit status 1 when any crate has a circle, so it can gate CI once none remains.
"""

import re
import sys
from collections import defaultdict, deque
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_comments_and_strings(text: str) -> str:
    """The text with comments and string/char literals blanked (newlines kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x[0-9a-fA-F]{2}'", text[i:i + 12])
            out.append("' '")
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_end(text: str, open_brace: int) -> int:
    """Index just past the brace that closes the one at `open_brace`."""
    depth = 0
    for j in range(open_brace, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(text)


def split_test_modules(code: str):
    """(code outside #[cfg(test)] modules, [(offset, test module code)])."""
    tests = []
    pattern = re.compile(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{")
    while True:
        m = pattern.search(code)
        if not m:
            return code, tests
        end = block_end(code, m.end() - 1)
        tests.append((m.start(), code[m.start():end]))
        code = code[:m.start()] + "\n" * code.count("\n", m.start(), end) + code[end:]


def group_heads(body: str):
    """The first segment of each top-level item of a `{…}` use group."""
    heads, depth, item = [], 0, ""
    for c in body:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            heads.append(item)
            item = ""
        else:
            item += c
    heads.append(item)
    return [re.match(r"\s*(" + IDENT + r"|\*)?", h).group(1) for h in heads if h.strip()]


def referenced(code: str, top_level_file: bool):
    """(line number, name) of every `crate::NAME` (and, in a top-level file, `super::NAME`)."""
    # `super::` inside an inline `mod x { … }` of a top-level file is that file's own module.
    inline = [(m.end() - 1, block_end(code, m.end() - 1))
              for m in re.finditer(r"\bmod\s+" + IDENT + r"\s*\{", code)]
    found = []
    for prefix in ["crate"] + (["super"] if top_level_file else []):
        for m in re.finditer(r"(?<![A-Za-z0-9_:])" + prefix + r"\s*::\s*(\{|" + IDENT + ")", code):
            if prefix == "super" and any(a < m.start() < b for a, b in inline):
                continue
            line = code.count("\n", 0, m.start()) + 1
            if m.group(1) == "{":
                end = block_end(code, m.end() - 1)
                found.extend((line, head) for head in group_heads(code[m.end():end - 1]) if head)
            else:
                found.append((line, m.group(1)))
    return found


def crate_modules(src: Path):
    """Top-level module name -> its files."""
    modules = defaultdict(list)
    for path in sorted(src.rglob("*.rs")):
        rel = path.relative_to(src)
        if rel.parts[0] in ("lib.rs", "main.rs") or rel.parts[0] == "bin":
            continue
        name = rel.parts[0][:-3] if len(rel.parts) == 1 else rel.parts[0]
        modules[name].append(path)
    return modules


def reexports(root: str):
    """Item -> module, from the crate root's `pub use MODULE::…` lines."""
    items = {}
    code = strip_comments_and_strings(root)
    for m in re.finditer(r"pub(\([^)]*\))?\s+use\s+(" + IDENT + r")\s*::\s*([^;]*);", code):
        module, rest = m.group(2), m.group(3)
        body = rest[1:-1] if rest.startswith("{") else rest
        for item in re.split(r",", body.replace("\n", " ")):
            item = item.strip()
            if not item:
                continue
            alias = re.search(r"\bas\s+(" + IDENT + r")$", item)
            last = alias.group(1) if alias else item.split("::")[-1].strip()
            if last != "*":
                items[last] = module
    return items


def macro_definitions(modules):
    """Macro name -> the top-level module whose files define it with `macro_rules!`."""
    defined = {}
    for module, files in modules.items():
        for path in files:
            code = strip_comments_and_strings(path.read_text())
            for m in re.finditer(r"\bmacro_rules!\s*(" + IDENT + ")", code):
                defined.setdefault(m.group(1), module)
    return defined


def invoked(code: str, macros):
    """(line number, defining module) of every invocation `NAME!(…)` of a crate macro."""
    found = []
    for m in re.finditer(r"(?<![A-Za-z0-9_$])(" + IDENT + r")\s*!\s*[(\[{]", code):
        if m.group(1) in macros:
            found.append((code.count("\n", 0, m.start()) + 1, macros[m.group(1)]))
    return found


def analyse(crate: Path):
    src = crate / "src"
    root = src / "lib.rs" if (src / "lib.rs").exists() else src / "main.rs"
    modules = crate_modules(src)
    items = reexports(root.read_text())
    macros = macro_definitions(modules)
    edges, test_edges = {}, {}
    for module, files in modules.items():
        for path in files:
            code = strip_comments_and_strings(path.read_text())
            main, tests = split_test_modules(code)
            top = len(path.relative_to(src).parts) == 1
            for table, chunks in ((edges, [(0, main)]), (test_edges, tests)):
                for offset, chunk in chunks:
                    base = code.count("\n", 0, offset)
                    for line, name in referenced(chunk, top):
                        target = name if name in modules else items.get(name)
                        if target and target != module and target in modules:
                            table.setdefault((module, target), f"{path}:{base + line}")
                    for line, target in invoked(chunk, macros):
                        if target != module:
                            table.setdefault((module, target), f"{path}:{base + line}")
    test_only = {e: w for e, w in test_edges.items() if e not in edges}
    return sorted(modules), edges, test_only


def components(nodes, edges):
    """Strongly connected components (Tarjan), each sorted."""
    graph = defaultdict(list)
    for a, b in edges:
        graph[a].append(b)
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
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
            out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def shortest_cycle(start, members, edges):
    """A shortest cycle from `start` back to it, inside `members`."""
    prev, queue = {}, deque([start])
    while queue:
        v = queue.popleft()
        for a, b in sorted(edges):
            if a != v or b not in members:
                continue
            if b == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if b not in prev:
                prev[b] = v
                queue.append(b)
    return None


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    any_cycle = False
    for arg in argv:
        crate = Path(arg)
        nodes, edges, test_only = analyse(crate)
        print(f"## {crate}: {len(nodes)} top-level modules, {len(edges)} edges")
        for (a, b), where in sorted(edges.items()):
            print(f"  {a} -> {b}   ({where})")
        if test_only:
            print("  test-only (inside #[cfg(test)] modules; not counted):")
            for (a, b), where in sorted(test_only.items()):
                print(f"    {a} -> {b}   ({where})")
        cycles = [c for c in components(nodes, edges) if len(c) > 1]
        if not cycles:
            print("  no circle")
        for comp in cycles:
            any_cycle = True
            members = set(comp)
            print(f"  CIRCLE among {{{', '.join(comp)}}}:")
            for v in comp:
                cycle = shortest_cycle(v, members, edges)
                if cycle:
                    print("    " + " -> ".join(cycle))
            print("    edges inside it:")
            for (a, b), where in sorted(edges.items()):
                if a in members and b in members:
                    print(f"      {a} -> {b}   ({where})")
        print()
    return 1 if any_cycle else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
