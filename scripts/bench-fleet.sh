#!/usr/bin/env bash
# Requests/s through the fleet of scripts/fleet/nginx.conf for 1, 2 and 3 `thumbnailer serve`
# replicas (release build) sharing the loopback S3 store (scripts/s3-store.py), all on this one
# machine. For each replica count, from nothing (a fresh store prefix, disk caches and nginx cache):
#   cold: wrk over distinct URLs (the five test photos under --urls paths, served by a static nginx
#         origin), each asked once: every request a fetch, a render and a store write;
#   hot:  200 of them, asked through nginx once first, then again and again: nginx's cache
#         answers, no replica is asked.
# Then requests/s per core. One 2-core machine runs the origin, the store, nginx, every replica and
# wrk, so more replicas share the same 2 cores: the rows show the fleet's overhead and its
# routing, not how it scales on more machines (see the README's cost model for that).
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
    hot=$(wrk_run "http://127.0.0.1:$port" 1 "$run/hot-urls")
    rows+=("$(python3 - "$replicas" "$gets" "$(nproc)" "$cold" "$hot" <<'PY'
import json, sys
replicas, gets, cores = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
cold, hot = json.loads(sys.argv[4]), json.loads(sys.argv[5])
note = " (URLs ran out: rerun with more --urls)" if cold["exhausted"] else ""
if cold["failed"] or hot["failed"]:
    note += " (%d cold, %d hot failed)" % (cold["failed"], hot["failed"])
cold_rate, hot_rate = cold["answered"] / cold["seconds"], hot["answered"] / hot["seconds"]
print("| %d%s | %.1f | %.0f | %.0f | %d | %.0f | %.1f | %.1f | %.0f |" % (
    replicas, note, cold_rate, cold["p50_ms"], cold["p99_ms"], gets, hot_rate, hot["p99_ms"],
    cold_rate / cores, hot_rate / cores))
PY
)")
    echo "${rows[-1]}" >&2
    kill "$(cat "$run/nginx/nginx.pid")"
    for pid in "${replica_pids[@]}"; do kill "$pid"; wait "$pid" 2>/dev/null || true; done
done

echo "| replicas | cold renders/s | cold p50 ms | cold p99 ms | origin GETs | hot (nginx cache) req/s | hot p99 ms | renders/s per core | hits/s per core |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
echo "box ${box}x$box (fit), $urls distinct source URLs over ${#photos[@]} photos, wrk -t $connections -c $connections" \
     "-d ${seconds}s, everything on $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
