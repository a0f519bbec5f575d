#!/usr/bin/env python3
"""Checks the answers of a generated README's first session (tests/docs/generated_readme.sh).

usage: generated_readme.py tools|no-tools TRANSCRIPT

The transcript is the standard output of the README's blocks: the server's JSON lines among
whatever else the blocks print. `initialize` (id 1) must be a result at the revision asked;
then, for `tools`, the `tools/call` (id 2) is the scaffold's `isError` result saying the tool
is not implemented yet; for `no-tools`, `tools/list` (id 2) is a result with no tool.
"""
import json
import sys


def main():
    expect, path = sys.argv[1], sys.argv[2]
    answers = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("{"):
            message = json.loads(line)
            answers[message.get("id")] = message
    problems = []
    init = answers.get(1, {}).get("result", {})
    if init.get("protocolVersion") != "2025-11-25":
        problems.append(f"initialize did not answer 2025-11-25: {answers.get(1)}")
    second = answers.get(2, {})
    result = second.get("result")
    if result is None:
        problems.append(f"the request did not get a result: {second}")
    elif expect == "tools":
        text = " ".join(c.get("text", "") for c in result.get("content", []))
        if result.get("isError") is not True or "is not implemented yet" not in text:
            problems.append(f"tools/call is not the unimplemented tool's isError: {result}")
    elif result.get("tools") != []:
        problems.append(f"tools/list is not empty: {result}")
    for problem in problems:
        print(f"[generated-readme] {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"[generated-readme] answers as the README says ({expect})", file=sys.stderr)


main()
