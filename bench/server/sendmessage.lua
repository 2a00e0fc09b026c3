-- The project's shared SendMessage load script (../shared/bench/sendmessage.lua), kept here so that
-- a fresh clone can run bench/server/run.py; unchanged below this header.
-- wrk load script: non-streaming A2A v1.0 JSON-RPC SendMessage (echo -> completed Task).
-- Usage: wrk -t1 -c32 -d15s --timeout 5s --latency -s sendmessage.lua http://127.0.0.1:PORT/a2a/jsonrpc
-- Every response is checked: HTTP 200 + JSON-RPC "result" + TASK_STATE_COMPLETED counts as ok,
-- anything else as rpc_error. done() prints one JSON summary line (latencies in ms).
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  counter = 0
  ok_count = 0
  err_count = 0
  first_err = ""
  headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"wrk-%d-%d",' ..
    '"role":"ROLE_USER","parts":[{"text":"hello bench %d"}]}}}', counter, tid, counter, counter)
  return wrk.format("POST", nil, headers, body)
end

function response(status, hdrs, body)
  if status == 200 and body:find('"result"', 1, true) and body:find("TASK_STATE_COMPLETED", 1, true) then
    ok_count = ok_count + 1
  else
    err_count = err_count + 1
    if first_err == "" then first_err = string.format("%d %s", status, body:sub(1, 200)) end
  end
end

function done(summary, latency, requests)
  local ok, err, fe = 0, 0, ""
  for _, t in ipairs(threads) do
    ok = ok + t:get("ok_count")
    err = err + t:get("err_count")
    if fe == "" then fe = t:get("first_err") end
  end
  local secs = summary.duration / 1e6
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"ok":%d,"rpc_errors":%d,"duration_s":%.2f,"rps":%.1f,"ok_rps":%.1f,' ..
    '"p50_ms":%.2f,"p90_ms":%.2f,"p99_ms":%.2f,"max_ms":%.2f,' ..
    '"sock_connect":%d,"sock_read":%d,"sock_write":%d,"sock_timeout":%d,"non2xx":%d,"first_err":%q}\n',
    summary.requests, ok, err, secs, summary.requests / secs, ok / secs,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.connect, e.read, e.write, e.timeout, e.status, fe))
end
