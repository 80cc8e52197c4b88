-- wrk script for scripts/bench-serve.sh, run with one connection per thread
-- (-t N -c N, THREADS=N) for a fixed time over the URL paths in the file $URLS
-- (one per line). Cold (the default): each thread asks for its own slice of
-- them, one after the other, each once, so every request is a cold render; a
-- thread that answers its whole slice before the time is up asks for
-- $IDLE_PATH from then on and the run is marked "exhausted": give it more URLs
-- or less time. With REPEAT=1 (hits): every thread cycles through all of them,
-- starting at its own place, for as long as wrk runs. Only a 200 with an image
-- counts as answered. done() prints one JSON line.
local paths = {}
for line in io.lines(os.getenv("URLS")) do paths[#paths + 1] = line end
local repeats = os.getenv("REPEAT") == "1"

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  threads[#threads + 1] = thread
end

function init(args)
  step = repeats and 1 or tonumber(os.getenv("THREADS"))
  next_index = id
  answered = 0
  failed = 0
  exhausted = 0
end

-- The path this thread's one connection asks for now. It moves on only with an
-- answer: wrk asks again for a request it has not managed to write yet (a
-- connection's first write that would block), which must be the same one.
function request()
  if repeats then
    return wrk.format("GET", paths[(next_index - 1) % #paths + 1])
  end
  if next_index > #paths then
    exhausted = 1
    return wrk.format("GET", os.getenv("IDLE_PATH"))
  end
  return wrk.format("GET", paths[next_index])
end

-- The Content-Type header, whatever the case of its name.
local function content_type(headers)
  for name, value in pairs(headers) do
    if name:lower() == "content-type" then return value end
  end
  return ""
end

function response(status, headers, body)
  if not repeats and next_index > #paths then return end
  if status == 200 and content_type(headers):sub(1, 6) == "image/" then
    answered = answered + 1
  else
    failed = failed + 1
  end
  next_index = next_index + step
end

function done(summary, latency, requests)
  local answered_total, failed_total, exhausted_threads = 0, 0, 0
  for _, thread in ipairs(threads) do
    answered_total = answered_total + thread:get("answered")
    failed_total = failed_total + thread:get("failed")
    exhausted_threads = exhausted_threads + thread:get("exhausted")
  end
  io.write(string.format(
    '{"answered": %d, "failed": %d, "exhausted": %d, "seconds": %.3f, "p50_ms": %.2f, "p99_ms": %.2f, "socket_errors": %d}\n',
    answered_total, failed_total, exhausted_threads, summary.duration / 1e6,
    latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
