#!/usr/bin/env python3
"""Checks the relative links of Markdown files: the file exists, and an #anchor is a heading.

usage: links.py FILE.md...   (paths relative to the current directory, the checkout's root)

Links to http(s)://, mailto: and the like are not fetched (the test runs offline). Anchors are
GitHub's: the heading in lower case, punctuation other than `-` and `_` dropped, spaces as `-`,
a repeated heading suffixed `-1`, `-2`. Prints one line per broken link; exits 1 if any.
"""
import os
import re
import sys

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```+|~~~+)")


def slug(heading):
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose_lines(path):
    """The lines of a Markdown file outside fenced blocks, with their numbers."""
    fence = None
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        m = FENCE.match(line)
        if m and fence is None:
            fence = m.group(1)
            continue
        if fence is not None:
            if line.startswith(fence):
                fence = None
            continue
        yield number, line.rstrip("\n")


anchors_cache = {}


def anchors(path):
    if path not in anchors_cache:
        seen = {}
        found = set()
        for _, line in prose_lines(path):
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        anchors_cache[path] = found
    return anchors_cache[path]


problems = 0
checked = 0
for source in sys.argv[1:]:
    for number, line in prose_lines(source):
        # Code spans are not links: `[x](y)` inside backticks is text.
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            checked += 1
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(source), path)) if path else source
            where = f"{source}:{number}: [{target}]"
            if not os.path.exists(resolved):
                print(f"links: {where}: {resolved} does not exist")
                problems += 1
                continue
            if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                print(f"links: {where}: {resolved} has no heading whose anchor is #{anchor}")
                problems += 1
print(f"links: {checked} relative link(s) in {len(sys.argv) - 1} file(s), {problems} broken")
sys.exit(1 if problems else 0)
