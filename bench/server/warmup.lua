-- Warm-up load for bench/server/run.py: the same SendMessage call as the measured script
-- (../shared/bench/sendmessage.lua), with message ids of its own ("warm-..."), so that the
-- measured run's ids are all new to the server and every measured call creates a task.
local n = 0
function request()
  n = n + 1
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"warm-%d",' ..
    '"role":"ROLE_USER","parts":[{"text":"hello warm-up %d"}]}}}', n, n, n)
  return wrk.format("POST", nil, { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }, body)
end
