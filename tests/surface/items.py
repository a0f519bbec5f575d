#!/usr/bin/env python3
"""The public surface of a crate, one item per line, from rustdoc's list of all items.

usage: items.py ALL_HTML [--check LIST | --write LIST]

ALL_HTML is `target/doc/<crate>/all.html` (`cargo doc --no-deps`), which lists every public
item reachable from the crate root (structs, enums, traits, functions, macros, type aliases,
constants, statics, unions) and leaves out what is `#[doc(hidden)]`. Each line is
`<kind> <path>`, sorted. Items under a module docs/stability.md lists as not covered by semver
(`wire`) are left out. Methods, fields and variants are not listed: they belong to their item.

--check LIST: exits 1 and prints a unified diff when the surface differs from the committed
LIST (what to do: make the new item private, or accept it with --write and say so in the
CHANGELOG). --write LIST: rewrites LIST. Neither: prints the surface and a count per module.
"""
import difflib
import html
import re
import sys
from collections import Counter

NOT_COVERED = ("wire::",)

SECTION = re.compile(r'<h3 id="([a-z-]+)">')
ITEM = re.compile(r'<li><a href="[^"]*">([^<]+)</a></li>')


def surface(path):
    text = open(path, encoding="utf-8").read()
    items = []
    # Each section (`<h3 id="structs">`) lists its items until the next one.
    marks = [(m.start(), m.group(1)) for m in SECTION.finditer(text)] + [(len(text), None)]
    for (start, kind), (end, _) in zip(marks, marks[1:]):
        kind = {"structs": "struct", "enums": "enum", "traits": "trait", "functions": "fn",
                "macros": "macro", "types": "type", "type-aliases": "type",
                "constants": "const", "statics": "static", "unions": "union",
                "attributes": "attribute", "derives": "derive",
                "trait-aliases": "trait-alias"}.get(kind, kind)
        for item in ITEM.findall(text[start:end]):
            item = html.unescape(item)
            if not item.startswith(NOT_COVERED):
                items.append(f"{kind} {item}")
    return sorted(set(items))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    items = surface(sys.argv[1])
    if not items:
        sys.exit(f"{sys.argv[1]}: no items found (is it rustdoc's all.html?)")
    lines = [line + "\n" for line in items]
    if len(sys.argv) == 4 and sys.argv[2] == "--write":
        with open(sys.argv[3], "w", encoding="utf-8") as out:
            out.writelines(lines)
        print(f"{sys.argv[3]}: {len(items)} items")
        return
    if len(sys.argv) == 4 and sys.argv[2] == "--check":
        committed = open(sys.argv[3], encoding="utf-8").readlines()
        diff = list(difflib.unified_diff(committed, lines, sys.argv[3], "the code's surface"))
        if diff:
            sys.stdout.writelines(diff)
            print(f"\nthe public surface differs from {sys.argv[3]} ({len(committed)} items listed, "
                  f"{len(items)} in the code): make the new items private, or accept them with "
                  f"`python3 tests/surface/items.py {sys.argv[1]} --write {sys.argv[3]}` and say so in CHANGELOG.md")
            sys.exit(1)
        print(f"{sys.argv[3]}: the surface is as listed ({len(items)} items)")
        return
    sys.stdout.writelines(lines)
    per_module = Counter(item.split(" ", 1)[1].split("::")[0] if "::" in item else "(root)"
                         for item in items)
    for module, count in per_module.most_common():
        print(f"# {count:4} {module}")
    print(f"# {len(items)} items")


if __name__ == "__main__":
    main()
