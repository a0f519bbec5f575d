#!/usr/bin/env python3
"""A synthetic OpenRPC contract of N tools, each with four params (a string, a bounded integer,
an enum and a $ref'd object) and an object result: the document bench/src/bin/gen-synthetic.rs
writes, in Python so that the scripts need not build the bench workspace.

usage: bench/synthetic.py N > synthetic.json   (bench/build-times.sh, bench/edit-loop.sh)
"""
import json, sys
n = int(sys.argv[1])
method = lambda i: {
    "name": f"method_{i:04}", "summary": f"Synthetic method number {i}.", "x-mcp": {"kind": "tool"},
    "params": [
        {"name": "query", "required": True, "schema": {"type": "string"}},
        {"name": "limit", "schema": {"type": "integer", "minimum": 1}},
        {"name": "mode", "schema": {"type": "string", "enum": ["fast", "thorough"]}},
        {"name": "filter", "schema": {"$ref": "#/components/schemas/Filter"}}],
    "result": {"name": "result", "schema": {"type": "object", "properties": {
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
        "total": {"type": "integer"}}, "required": ["items", "total"]}}}
json.dump({"openrpc": "1.3.2",
    "info": {"title": "Synthetic", "version": "0.1.0", "x-mcp": {"name": "synthetic"}},
    "methods": [method(i) for i in range(n)],
    "components": {"schemas": {
        "Filter": {"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}}, "since": {"type": "string"}}},
        "Item": {"type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}},
            "required": ["id", "title"]}}}}, sys.stdout, indent=2, sort_keys=True)
