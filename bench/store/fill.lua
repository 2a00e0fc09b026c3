-- wrk load script: the shared SendMessage request (bench/server/sendmessage.lua) with message
-- ids that start with PREFIX (wrk ... -s fill.lua URL -- PREFIX), so that each fill of one
-- store makes new tasks instead of repeating earlier message ids. wrk cannot stop after a
-- count; bench/store/run.py stops it when the file holds enough tasks.
function init(args)
  counter = 0
  prefix = args[1] or "fill"
  headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"messageId":"%s-%d",' ..
    '"role":"ROLE_USER","parts":[{"text":"hello bench %d"}]}}}', counter, prefix, counter, counter)
  return wrk.format("POST", nil, headers, body)
end
