#!/bin/sh
# Lists the tools of the everything server at $1 (default http://127.0.0.1:3000/mcp).
url=${1:-http://127.0.0.1:3000/mcp}
curl -s "$url" \
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
