-- The shared SendMessage load script (bench/server/sendmessage.lua), each request on a new
-- connection: `Connection: close` makes the server close after its answer, and wrk opens
-- the next connection (for https://, with a full TLS handshake). Set A2A_BENCH_BASE_LUA to
-- the base script's path.
dofile(os.getenv("A2A_BENCH_BASE_LUA"))
local base_init = init
function init(args)
  base_init(args)
  headers["Connection"] = "close"
end
