#!/usr/bin/env bash
# Requests/s through the fleet of scripts/fleet/nginx.conf for 1, 2 and 3 `thumbnailer serve`
# replicas (release build) sharing the loopback S3 store (scripts/s3-store.py), all on this one
# machine. For each replica count, from nothing (a fresh store prefix, disk caches and nginx cache):
#   cold: wrk over distinct URLs (the five test photos under --urls paths, served by a static nginx
#         origin), each asked once: every request a fetch, a render and a store write;
#   hot:  200 of them, asked through nginx once first, then again and again: nginx's cache
#         answers, no replica is asked.
# Then what a request costs the process that answers it, in CPU (user + sys from /proc, so the
# other processes sharing the cores do not count): a render, a hit in a replica's memory, on its
# disk, in the store, and a hit in nginx's cache; requests/s per core is 1000 / that. One 2-core machine runs the origin, the store, nginx, every replica and
# wrk, so more replicas share the same 2 cores: the rows show the fleet's overhead and its
# routing, not how it scales on more machines (see the cost model in docs/scaling-out.md for that).
# Usage: scripts/bench-fleet.sh [--box N] [--connections N] [--urls N] [--seconds N]
set -euo pipefail
cd "$(dirname "$0")/.."
box=256 connections=32 urls=3000 seconds=10
while [ $# -gt 0 ]; do
    case $1 in
        --box) box=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --urls) urls=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) echo "usage: $0 [--box N] [--connections N] [--urls N] [--seconds N]" >&2; exit 64 ;;
    esac
done
for tool in wrk nginx curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench-fleet: needs $tool (Debian: wrk nginx curl)" >&2; exit 1; }
done
scripts/setup-store.sh >&2
bin=.build/release/thumbnailer
swift build -c release --product thumbnailer >&2

work=$(mktemp -d /tmp/thumbnailer-bench-fleet.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for conf in "$work"/*/nginx.pid "$work"/origin.pid; do [ -f "$conf" ] && kill "$(cat "$conf")" 2>/dev/null || true; done
    scripts/s3-store.py stop "$work/store" >/dev/null 2>&1 || true
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# cpu_ms PID…: user + sys CPU milliseconds the processes have used (all their threads).
cpu_ms() {
    python3 - "$@" <<'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
total = 0
for pid in sys.argv[1:]:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        continue
    total += int(fields[11]) + int(fields[12])  # utime, stime
print(total * 1000 // tick)
PY
}
wait_for() {
    for _ in $(seq 1 300); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done
    echo "bench-fleet: $1 did not answer" >&2; exit 1
}

# The origin: a static nginx over the test photos under distinct paths; it logs every GET.
mapfile -t photos < <(ls TestImages/photo-*)
mkdir -p "$work/origin/img"
paths=()
for ((n = 0; n < urls; n++)); do
    photo=${photos[$((n % ${#photos[@]}))]}
    ln "$photo" "$work/origin/img/$n.${photo##*.}" 2>/dev/null || cp "$photo" "$work/origin/img/$n.${photo##*.}"
    paths+=("img/$n.${photo##*.}")
done
origin_port=$(free_port)
cat > "$work/origin.conf" <<CONF
worker_processes 1;
pid $work/origin.pid;
error_log $work/origin-error.log warn;
events { worker_connections 4096; }
http {
    access_log $work/origin.log;
    client_body_temp_path $work/origin-temp; proxy_temp_path $work/origin-temp; fastcgi_temp_path $work/origin-temp;
    uwsgi_temp_path $work/origin-temp; scgi_temp_path $work/origin-temp;
    types { image/jpeg jpg; image/png png; }
    server { listen 127.0.0.1:$origin_port; root $work/origin; location = /idle { return 204; } }
}
CONF
nginx -c "$work/origin.conf"
wait_for "http://127.0.0.1:$origin_port/idle"
origin_gets() { grep -c '"GET /img' "$work/origin.log" 2>/dev/null || true; }
python3 scripts/bench/serve/sign.py "$box" "http://127.0.0.1:$origin_port" "${paths[@]}" > "$work/urls"

eval "$(scripts/s3-store.py start "$work/store" bench)"
export AWS_ENDPOINT_URL AWS_REGION AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY

# wrk_run BASE REPEAT URLFILE: one JSON line from scripts/bench/serve/requests.lua.
wrk_run() {
    URLS=$3 THREADS=$connections IDLE_PATH=/healthz REPEAT=$2 \
        wrk -t "$connections" -c "$connections" -d "${seconds}s" --timeout 60s -s scripts/bench/serve/requests.lua "$1" | tail -1
}

rows=()
for replicas in 1 2 3; do
    run="$work/fleet-$replicas"
    mkdir -p "$run/nginx"
    upstreams="" replica_pids=()
    for ((i = 1; i <= replicas; i++)); do
        port=$(free_port)
        "$bin" serve --host 127.0.0.1 --port "$port" --insecure-unsigned --private-addresses --no-access-log \
            --store "s3://bench/fleet-$replicas" --cache-dir "$run/replica-$i" >/dev/null 2>"$run/replica-$i.err" &
        pids+=($!) replica_pids+=($!)
        upstreams+="server 127.0.0.1:$port max_fails=1 fail_timeout=10s; "
        wait_for "http://127.0.0.1:$port/readyz"
    done
    port=$(free_port)
    sed -e "s|@PREFIX@|$run/nginx|g" -e "s|@USER@|$(id -un)|g" -e "s|@LISTEN@|127.0.0.1:$port|g" \
        -e "s|@REPLICAS@|$upstreams|g" scripts/fleet/nginx.conf > "$run/nginx/nginx.conf"
    nginx -p "$run/nginx" -c "$run/nginx/nginx.conf" -e "$run/nginx/error.log"
    wait_for "http://127.0.0.1:$port/healthz"
    gets_before=$(origin_gets)
    cold=$(wrk_run "http://127.0.0.1:$port" 0 "$work/urls")
    gets=$(( $(origin_gets) - gets_before ))
    # Hot: 200 thumbnails, each asked once through nginx first so that its cache holds them all.
    head -200 "$work/urls" > "$run/hot-urls"
    sed "s|^|http://127.0.0.1:$port|" "$run/hot-urls" | xargs -n 1 -P 8 curl -s -o /dev/null
    nginx_pids=("$(cat "$run/nginx/nginx.pid")" $(pgrep -P "$(cat "$run/nginx/nginx.pid")"))
    nginx_before=$(cpu_ms "${nginx_pids[@]}")
    hot=$(wrk_run "http://127.0.0.1:$port" 1 "$run/hot-urls")
    nginx_hit_cpu=$(python3 -c "import json,sys; print('%.3f' % (($(cpu_ms "${nginx_pids[@]}") - $nginx_before) / max(1, json.loads(sys.argv[1])['answered'])))" "$hot")
    rows+=("$(python3 - "$replicas" "$gets" "$(nproc)" "$cold" "$hot" "$nginx_hit_cpu" <<'PY'
import json, sys
replicas, gets, cores = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
cold, hot, nginx_hit_cpu = json.loads(sys.argv[4]), json.loads(sys.argv[5]), float(sys.argv[6])
note = " (URLs ran out: rerun with more --urls)" if cold["exhausted"] else ""
if cold["failed"] or hot["failed"]:
    note += " (%d cold, %d hot failed)" % (cold["failed"], hot["failed"])
cold_rate, hot_rate = cold["answered"] / cold["seconds"], hot["answered"] / hot["seconds"]
print("| %d%s | %.1f | %.0f | %.0f | %d | %.0f | %.1f | %.3f |" % (
    replicas, note, cold_rate, cold["p50_ms"], cold["p99_ms"], gets, hot_rate, hot["p99_ms"], nginx_hit_cpu))
PY
)")
    echo "${rows[-1]}" >&2
    kill "$(cat "$run/nginx/nginx.pid")"
    for pid in "${replica_pids[@]}"; do kill "$pid"; wait "$pid" 2>/dev/null || true; done
done

# The cost of each kind of answer, in the CPU of the replica that gives it: 300 thumbnails rendered
# by replica A (8 at once), then asked of A again and again (its memory), then of a replica B on
# an empty disk sharing A's store (the store), then of B restarted (its disk). Each answer's
# X-Thumbnail-Tier is counted, so a row says what it measured.
cost_urls="$work/cost-urls"
tail -300 "$work/urls" > "$cost_urls"
start_replica() {  # NAME: starts a replica on the "cost" prefix with its own disk; sets replica_pid, replica_port
    replica_port=$(free_port)
    "$bin" serve --host 127.0.0.1 --port "$replica_port" --insecure-unsigned --private-addresses --no-access-log \
        --store "s3://bench/cost" --cache-dir "$work/cost-$1" >/dev/null 2>"$work/cost-$1.err" &
    replica_pid=$!
    pids+=("$replica_pid")
    wait_for "http://127.0.0.1:$replica_port/readyz"
}
# each_once PORT: asks for every cost URL once, 8 at once over 8 kept-alive connections (as wrk's
# are, so that no row pays for a connection per request); prints the statuses and tiers, counted.
each_once() {
    python3 - "$1" "$cost_urls" <<'PY'
import collections, http.client, sys, threading
port, paths = int(sys.argv[1]), open(sys.argv[2]).read().split()
seen, lock = collections.Counter(), threading.Lock()
def ask(share):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for path in share:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        with lock:
            seen[f"{response.status} {response.getheader('X-Thumbnail-Tier')}"] += 1
threads = [threading.Thread(target=ask, args=(paths[i::8],)) for i in range(8)]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(", ".join(f"{count} × {answer}" for answer, count in sorted(seen.items())))
PY
}
cost_rows=()
# cost_row LABEL PID REQUESTS CPU_BEFORE TIERS
cost_row() {
    local used=$(( $(cpu_ms "$2") - $4 ))
    cost_rows+=("$(python3 -c "import sys; ms = $used / max(1, $3); print('| %s | %d | %.2f | %.0f | %s |' % (sys.argv[1], $3, ms, 1000 / ms if ms else 0, sys.argv[2].strip()))" "$1" "$5")")
    echo "${cost_rows[-1]}" >&2
}
start_replica a
a_pid=$replica_pid a_port=$replica_port
before=$(cpu_ms "$a_pid"); tiers=$(each_once "$a_port")
cost_row "render (fetch, decode, encode, store PUT)" "$a_pid" "$(wc -l < "$cost_urls")" "$before" "$tiers"
tiers=$(each_once "$a_port")
before=$(cpu_ms "$a_pid")
memory=$(wrk_run "http://127.0.0.1:$a_port" 1 "$cost_urls")
cost_row "hit in the replica's memory (wrk, 32 connections)" "$a_pid" \
    "$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['answered'])" "$memory")" "$before" "$tiers"
start_replica b
b_pid=$replica_pid
before=$(cpu_ms "$b_pid"); tiers=$(each_once "$replica_port")
cost_row "hit in the store (a replica on an empty disk)" "$b_pid" "$(wc -l < "$cost_urls")" "$before" "$tiers"
kill "$b_pid"; wait "$b_pid" 2>/dev/null || true
start_replica b
before=$(cpu_ms "$replica_pid"); tiers=$(each_once "$replica_port")
cost_row "hit on the replica's disk (restarted)" "$replica_pid" "$(wc -l < "$cost_urls")" "$before" "$tiers"

echo "| replicas | cold renders/s | cold p50 ms | cold p99 ms | origin GETs | hot (nginx cache) req/s | hot p99 ms | nginx CPU ms per hit |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
echo "| answer | requests | replica CPU ms each | per core /s | answered by |"
echo "| --- | ---: | ---: | ---: | --- |"
printf '%s\n' "${cost_rows[@]}"
echo
echo "box ${box}x$box (fit), $urls distinct source URLs over ${#photos[@]} photos, wrk -t $connections -c $connections" \
     "-d ${seconds}s, everything on $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
