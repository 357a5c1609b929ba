#!/usr/bin/env bash
# Load benchmark of onrecord-proxy on loopback (not part of CI).
#  1. throughput and latency: wrk -t2 -c64 against the proxy with an instant fake upstream,
#     every request a different question (cache off), each answer parsed and its quote verified;
#  2. memory: 1,000 requests in flight against a fake upstream that takes 1 s, RSS sampled.
# Installs wrk with apt when it is missing. Needs www/dist/index.onr (scripts/build-index.sh).
# Usage: scripts/bench-proxy.sh [seconds per run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
say() { printf 'bench-proxy: %s\n' "$*"; }

if ! command -v wrk >/dev/null; then
  say "installing wrk"
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null; else sudo apt-get install -y wrk >/dev/null; fi
fi
[ -f www/dist/index.onr ] || scripts/build-index.sh
cargo build --quiet --release -p onrecord-proxy --bin onrecord-proxy --example fake_upstream
target_dir="${CARGO_TARGET_DIR:-target}"
proxy_bin="$target_dir/release/onrecord-proxy"
fake_bin="$target_dir/release/examples/fake_upstream"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT

# Starts the fake upstream with a delay (ms); sets $fake_url.
start_fake() {
  "$fake_bin" 127.0.0.1:0 "$1" > "$tmp/fake.url" &
  pids+=($!)
  for _ in $(seq 50); do [ -s "$tmp/fake.url" ] && break; sleep 0.1; done
  fake_url=$(head -1 "$tmp/fake.url")
}

# Starts the proxy in front of $fake_url on a free port; sets $proxy_pid, $proxy_port, $hash.
start_proxy() {
  proxy_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$proxy_bin" --index www/dist/index.onr --upstream "$fake_url" --model bench --no-key --no-cache \
    --listen "127.0.0.1:$proxy_port" --client-rate 1000000000/1000000000 \
    --global-rate 1000000000/1000000000 --max-in-flight 4096 \
    --max-connections-per-client 4096 2> "$tmp/proxy.log" &
  proxy_pid=$!
  pids+=("$proxy_pid")
  for _ in $(seq 50); do grep -q 'for corpus' "$tmp/proxy.log" 2>/dev/null && break; sleep 0.1; done
  hash=$(sed -n 's/.*for corpus \([0-9a-f]*\).*/\1/p' "$tmp/proxy.log")
  version=$(python3 -c 'import struct,sys; d=open("www/dist/index.onr","rb").read(12); print(struct.unpack("<I", d[8:12])[0])')
}

# A wrk script: POST, a distinct question per request, and a check that answers verified.
cat > "$tmp/post.lua" <<'LUA'
local n = 0
local hash = os.getenv("ONR_HASH")
local version = os.getenv("ONR_VERSION")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  n = n + 1
  local body = string.format(
    '{"indexVersion":%s,"corpusHash":"%s","question":"How long does a refund take, case %d?","fragments":[0,1,2]}',
    version, hash, n)
  return wrk.format(nil, "/v1/summary", nil, body)
end
local bad = 0
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, '"mode":"answer"', 1, true) then bad = bad + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("not a verified answer: %d\n", bad))
end
LUA

say "1. instant upstream, wrk -t2 -c64 -d${secs}s"
start_fake 0
start_proxy
ONR_HASH=$hash ONR_VERSION=$version wrk -t2 -c64 -d"${secs}s" --latency -s "$tmp/post.lua" \
  "http://127.0.0.1:$proxy_port" | tee "$tmp/wrk1.txt"
rps=$(awk '/^Requests\/sec/ {print $2}' "$tmp/wrk1.txt")
p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk1.txt")
kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null || true

say "2. upstream taking 1 s, 1,000 connections in flight, wrk -t2 -c1000 -d${secs}s"
start_fake 1000
start_proxy
rss_idle=$(awk '/VmRSS/ {print $2}' "/proc/$proxy_pid/status")
ONR_HASH=$hash ONR_VERSION=$version wrk -t2 -c1000 -d"${secs}s" --timeout 10s --latency \
  -s "$tmp/post.lua" "http://127.0.0.1:$proxy_port" > "$tmp/wrk2.txt" &
wrk_pid=$!
peak=0
while kill -0 "$wrk_pid" 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$proxy_pid/status" 2>/dev/null || echo 0)
  [ "${rss:-0}" -gt "$peak" ] && peak=$rss
  sleep 0.5
done
wait "$wrk_pid" || true
cat "$tmp/wrk2.txt"
rps2=$(awk '/^Requests\/sec/ {print $2}' "$tmp/wrk2.txt")
p99_2=$(awk '$1 == "99%" {print $2}' "$tmp/wrk2.txt")
sleep 2
rss_after=$(awk '/VmRSS/ {print $2}' "/proc/$proxy_pid/status")

say "results"
echo "instant upstream, 64 connections: ${rps} req/s, p99 ${p99}"
echo "1 s upstream, 1,000 in flight: ${rps2} req/s, p99 ${p99_2}, proxy RSS idle $((rss_idle / 1024)) MB, peak $((peak / 1024)) MB, 2 s after $((rss_after / 1024)) MB"
