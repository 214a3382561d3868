# Shell functions shared by .ci/bench, .ci/bench-hashing and .ci/bench-cost
# (sourced, not run).

# need_wrk installs wrk from Debian's packages when it is missing.
need_wrk() {
  command -v wrk >/dev/null || (export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq wrk >/dev/null) ||
    { echo "wrk is missing and could not be installed: apt-get install wrk"; exit 1; }
}

# get_lua FILE writes a wrk script of GET /public-api/trainees/{id}, the id
# drawn from the space-separated ids in $IDS.
get_lua() {
  cat > "$1" <<'LUA'
local ids = {}
for id in string.gmatch(os.getenv("IDS"), "%d+") do ids[#ids + 1] = id end
request = function()
  return wrk.format("GET", "/public-api/trainees/" .. ids[math.random(#ids)])
end
LUA
}

# server_addr LOG prints the address a starting `traineed serve` logs as
# listening in LOG, waiting up to 10 s for it (empty if it never does).
server_addr() {
  local addr=""
  for _ in $(seq 1 100); do
    addr=$(grep -o '"msg":"listening","addr":"[^"]*"' "$1" | sed 's/.*"addr":"//; s/"$//') || true
    [ -n "$addr" ] && break; sleep 0.1
  done
  echo "$addr"
}

# trainee_ids BASE KEY prints the ids of the company's first 100 trainees,
# space-separated.
trainee_ids() {
  curl -s -H "X-API-Key: $2" "$1/public-api/trainees/search?size=100" | grep -o '"id":[0-9]*' | cut -d: -f2 | tr '\n' ' '
}

# create_lua FILE writes a wrk script of POST /public-api/trainees with a
# new e-mail each time (unique per run: set RUN to something new).
create_lua() {
  cat > "$1" <<'LUA'
local n = 0
local threads = 0
setup = function(thread) threads = threads + 1; thread:set("tid", threads) end
init = function() wrk.headers["Content-Type"] = "application/json" end
request = function()
  n = n + 1
  local body = string.format('{"name":"Bench %d","email":"bench-%s-%s-%d@example.com","password":"bench password"}',
    n, os.getenv("RUN"), tid, n)
  return wrk.format("POST", "/public-api/trainees", nil, body)
end
LUA
}

# update_lua FILE writes a wrk script of PUT /public-api/trainees/{id}
# renaming a trainee drawn from $IDS (a new name each time: the row, its
# search copies and the search index change).
update_lua() {
  cat > "$1" <<'LUA'
local ids = {}
for id in string.gmatch(os.getenv("IDS"), "%d+") do ids[#ids + 1] = id end
local n = 0
init = function() wrk.headers["Content-Type"] = "application/json" end
request = function()
  n = n + 1
  local body = string.format('{"name":"Bench Renamed %s %d"}', os.getenv("RUN"), n)
  return wrk.format("PUT", "/public-api/trainees/" .. ids[math.random(#ids)], nil, body)
end
LUA
}
