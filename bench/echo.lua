-- wrk script: stateless tools/call of echo with a fresh JSON-RPC id per request.
-- wrk -t1 -c64 -d5s -s bench/echo.lua http://127.0.0.1:PORT/mcp   (cross-check of loadgen)
local id = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
request = function()
  id = id + 1
  return wrk.format(nil, nil, nil,
    '{"jsonrpc":"2.0","id":' .. id .. ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}')
end
