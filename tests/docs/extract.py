#!/usr/bin/env python3
"""Turns the fenced ```sh blocks of Markdown files into one bash script (tests/docs/run.sh).

usage: extract.py FILE.md... > script.sh

The convention (README.md of this directory says it for writers):

- A ```sh block is run; any other fence (```text, ```console, ```rust, ...) is not.
- Every file and every `## ` heading starts in the working directory again (`cd "$DOCS_WORK"`);
  within a section the blocks share one shell, so a `cd` carries on to the next block.
- A ```text block that follows a run block with nothing but blank lines between is that
  block's expected standard output, compared line by line (trailing spaces ignored).
- `<!-- docs-test: background PORT -->` on the line before a block: the block is started in
  the background (its own process group); the test waits until 127.0.0.1:PORT accepts, runs
  the next block (the probe), then stops the background block's processes.
- `<!-- docs-test: skip REASON -->` on the line before a block: not run; REASON is printed.
"""
import re
import shlex
import sys

MARKER = re.compile(r"^<!--\s*docs-test:\s*(\w+)\s*(.*?)\s*-->\s*$")


def blocks(path):
    """Yields (kind, line, info, text) for headings and fenced blocks of one file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    marker = None
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        if m:
            marker = (m.group(1), m.group(2))
            i += 1
            continue
        if line.startswith("## "):
            yield ("heading", i + 1, None, line[3:])
            marker = None
        fence = re.match(r"^(```+)(\S*)\s*$", line)
        if fence:
            ticks, lang = fence.group(1), fence.group(2)
            start = i + 1
            j = i + 1
            while j < len(lines) and not lines[j].startswith(ticks):
                j += 1
            if j == len(lines):
                sys.exit(f"{path}:{start}: a fenced block that never closes")
            yield ("block", start, (lang, marker), "\n".join(lines[i + 1 : j]))
            marker = None
            i = j + 1
            continue
        if line.strip() and not m:
            # Prose between a run block and a text block breaks the "expected output" link.
            yield ("prose", i + 1, None, line)
        i += 1


def main():
    out = []
    emit = out.append
    for path in sys.argv[1:]:
        emit(f"docs_file {shlex.quote(path)}")
        pending_output = None  # the id of a run block whose output a text block may check
        for kind, line, info, text in blocks(path):
            where = f"{path}:{line}"
            if kind == "heading":
                emit(f"docs_section {shlex.quote(where)} {shlex.quote(text)}")
                pending_output = None
                continue
            if kind == "prose":
                pending_output = None
                continue
            lang, marker = info
            if lang == "text" and pending_output is not None:
                emit(f"docs_expect {pending_output} <<'__DOCS_EXPECTED__'\n{text}\n__DOCS_EXPECTED__")
                pending_output = None
                continue
            pending_output = None
            if lang != "sh":
                continue
            if marker and marker[0] == "skip":
                emit(f"docs_skip {shlex.quote(where)} {shlex.quote(marker[1])}")
                continue
            if "__DOCS_BLOCK__" in text or "__DOCS_EXPECTED__" in text:
                sys.exit(f"{where}: the block uses this test's own heredoc delimiter")
            if marker and marker[0] == "background":
                port = marker[1]
                if not port.isdigit():
                    sys.exit(f"{where}: docs-test: background needs a port, got {port!r}")
                emit(f"docs_background {shlex.quote(where)} {port} <<'__DOCS_BLOCK__'\n{text}\n__DOCS_BLOCK__")
                continue
            if marker:
                sys.exit(f"{where}: unknown docs-test marker {marker[0]!r}")
            # Run in this shell (a `cd` carries on), stdout kept for a following text block.
            emit(f"docs_block_start {shlex.quote(where)} <<'__DOCS_BLOCK__'\n{text}\n__DOCS_BLOCK__")
            emit("{\n" + text + "\n} >\"$DOCS_OUT\"")
            emit("docs_block_end")
            pending_output = '"$DOCS_LAST"'
        emit("docs_file_end")
    print("\n".join(out))


main()
