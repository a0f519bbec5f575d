#!/usr/bin/env python3
"""Checks docs/runtime.md's settings table against a server's --help.

usage: settings_table.py DOCS_RUNTIME_MD HELP_TEXT

Every flag of --help must have a row, every row's flag must be in --help, and a row's
environment variable (and its default, when --help prints a plain one) must be the flag's.
Prints one line per mismatch and exits 1 if there is any.
"""
import re
import sys

doc, help_text = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])

# --help: "  --flag <VALUE>\n   text...\n   [env: X] [default: D]"
flags = {}
for block in re.split(r"\n(?=\s+(?:-[A-Za-z], )?--[a-z])", help_text):
    m = re.match(r"\s+(?:-[A-Za-z], )?(--[a-z][a-z-]*)", block)
    if not m:
        continue
    env = re.search(r"\[env: ([A-Z_]+)\]", block)
    default = re.search(r"\[default: ([^\]]+)\]", block)
    flags[m.group(1)] = (env and env.group(1), default and default.group(1))

rows = {}
for line in doc.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 4 or not cells[0].startswith("`-"):
        continue
    flag = re.findall(r"--[a-z][a-z-]*", cells[0])
    if flag:
        rows[flag[0]] = (cells[1].strip("`"), cells[2].strip("`"))

problems = []
for flag, (env, default) in flags.items():
    if flag == "--help":
        continue
    if flag not in rows:
        problems.append(f"{flag}: in --help, no row in the settings table")
        continue
    doc_env, doc_default = rows[flag]
    if env and doc_env != env:
        problems.append(f"{flag}: the table says {doc_env!r}, --help says [env: {env}]")
    # Defaults --help prints as one plain value (not prose such as "off, everything in memory").
    if default and re.fullmatch(r"[\w.:,/-]+", default) and default != "off":
        if doc_default != default:
            problems.append(f"{flag}: the table's default is {doc_default!r}, --help says {default!r}")
for flag in rows:
    if flag not in flags:
        problems.append(f"{flag}: a row in the settings table, not in --help")

for p in problems:
    print(f"settings table: {p}")
print(f"settings table: {len(rows)} rows, {len(flags) - 1} flags in --help, {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
