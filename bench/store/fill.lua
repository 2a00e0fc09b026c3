-- wrk load script: the shared SendMessage request (bench/server/sendmessage.lua), stopping
-- once `limit` answers came back (wrk ... -s fill.lua URL -- LIMIT PREFIX). Fills a store with
-- about LIMIT new tasks (in-flight requests may add a few more); message ids start with PREFIX.
function init(args)
  counter = 0
  answers = 0
  limit = tonumber(args[1]) or 10000
  prefix = args[2] or "fill"
  headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"%s-%d",' ..
    '"role":"ROLE_USER","parts":[{"text":"hello bench %d"}]}}}', counter, prefix, counter, counter)
  return wrk.format("POST", nil, headers, body)
end

function response(status, hdrs, body)
  answers = answers + 1
  if answers >= limit then wrk.thread:stop() end
end
