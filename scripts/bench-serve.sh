#!/usr/bin/env bash
# Benchmark of thumbnail servers on loopback: cold renders/s, p50/p99 latency and
# peak RSS (the whole process tree) for each server, every request a distinct
# source URL (the five test photos under 1,000 paths, served as static files by
# nginx), one box size, the same wrk concurrency for all. Peers: thumbor 7.8
# (PyPI, in a venv under .build/bench-serve, its default settings plus
# MAX_WIDTH/MAX_HEIGHT at the box, one process per core) and nginx's
# image_filter (Debian's libnginx-mod-http-image-filter, one worker per core).
# `thumbnailer serve` joins the table once the build has it.
# Each server gets the same wrk load for the same time (one connection per wrk
# thread, each asking for its own URLs in turn); a run that would ask for a URL
# twice is marked, so no row counts a cache hit as a render.
# Usage: scripts/bench-serve.sh [--box N] [--connections N] [--urls N] [--seconds N]
set -euo pipefail
cd "$(dirname "$0")/.."
box=256 connections=32 urls=1000 seconds=5
while [ $# -gt 0 ]; do
    case $1 in
        --box) box=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --urls) urls=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) echo "usage: $0 [--box N] [--connections N] [--urls N] [--seconds N]" >&2; exit 64 ;;
    esac
done

need=""
command -v wrk >/dev/null 2>&1 || need="$need wrk"
command -v nginx >/dev/null 2>&1 || need="$need nginx-light"
[ -f /usr/lib/nginx/modules/ngx_http_image_filter_module.so ] || need="$need libnginx-mod-http-image-filter"
if [ -n "$need" ]; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "bench-serve: installing$need with apt-get" >&2
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need >/dev/null
fi
venv=.build/bench-serve/thumbor
if [ ! -x "$venv/bin/thumbor" ]; then
    echo "bench-serve: installing thumbor 7.8.0 from PyPI into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "thumbor==7.8.0"
fi

work=$(mktemp -d /tmp/thumbnailer-bench-serve.XXXXXX)
chmod 755 "$work"  # nginx's workers run as nobody
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -- "$pid" 2>/dev/null || true; done
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT

# free_port: a port nothing listens on now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The origin: /img/N.jpg|png is photo N mod 5, hard links to the test photos.
mapfile -t photos < <(ls TestImages/photo-*)
mkdir -p "$work/origin/img" "$work"/{client,proxy,fastcgi,uwsgi,scgi}
paths=()
for ((n = 0; n < urls; n++)); do
    photo=${photos[$((n % ${#photos[@]}))]}
    name="$n.${photo##*.}"
    ln "$photo" "$work/origin/img/$name" 2>/dev/null || cp "$photo" "$work/origin/img/$name"
    paths+=("img/$name")
done
origin_port=$(free_port) filter_port=$(free_port)
sed -e "s|__WORK__|$work|g" -e "s|__ORIGIN_PORT__|$origin_port|g" -e "s|__FILTER_PORT__|$filter_port|g" \
    -e "s|__BOX__|$box|g" scripts/bench/serve/nginx-peers.conf > "$work/nginx.conf"
nginx -c "$work/nginx.conf"
origin="127.0.0.1:$origin_port"

# wait_for URL: until it answers.
wait_for() {
    for _ in $(seq 1 200); do
        curl -s -o /dev/null "$1" && return 0
        sleep 0.1
    done
    echo "bench-serve: $1 did not answer" >&2
    exit 1
}

# run NAME BASE IDLE PID URLFILE: wrk over the URL file against BASE, with the
# peak RSS of PID's process tree; appends a table row.
rows=()
run() {
    local name=$1 base=$2 idle=$3 pid=$4 list=$5
    python3 scripts/bench/serve/rss_peak.py "$pid" > "$work/rss" &
    local sampler=$!
    local result
    result=$(URLS=$list THREADS=$connections IDLE_PATH=$idle \
        wrk -t "$connections" -c "$connections" -d "${seconds}s" --timeout 60s -s scripts/bench/serve/requests.lua "$base" \
        | tail -1)
    kill -TERM "$sampler"; wait "$sampler" || true
    local peak; peak=$(cat "$work/rss")
    rows+=("$(python3 - "$name" "$peak" "$result" <<'PY'
import json, sys
name, peak, result = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
rate = result["rendered"] / result["seconds"]
note = " (URLs ran out: rerun with more --urls)" if result["exhausted"] else ""
print("| %s%s | %d | %d | %.1f | %.0f | %.0f | %.1f |" % (name, note, result["rendered"], result["failed"], rate,
      result["p50_ms"], result["p99_ms"], peak))
PY
)")
    echo "${rows[-1]}" >&2
}

# nginx image_filter: its worker processes are the master's children.
printf '/resize/%s\n' "${paths[@]}" > "$work/urls-nginx"
wait_for "http://127.0.0.1:$filter_port/idle"
run "nginx image_filter ($(nproc) workers)" "http://127.0.0.1:$filter_port" /idle "$(cat "$work/nginx.pid")" "$work/urls-nginx"

# thumbor, one process per core (--processes 0), fit-in like the others.
cat > "$work/thumbor.conf" <<CONF
MAX_WIDTH = $box
MAX_HEIGHT = $box
FILE_STORAGE_ROOT_PATH = "$work/thumbor-storage"
CONF
thumbor_port=$(free_port)
# In a session of its own: with --processes 0 its children outlive a killed parent, so the group is killed.
setsid "$venv/bin/thumbor" -p "$thumbor_port" -i 127.0.0.1 -c "$work/thumbor.conf" --processes 0 -l error \
    > "$work/thumbor.log" 2>&1 &
thumbor=$!; pids+=("-$thumbor")
printf "/unsafe/fit-in/${box}x${box}/$origin/%s\n" "${paths[@]}" > "$work/urls-thumbor"
wait_for "http://127.0.0.1:$thumbor_port/healthcheck"
run "thumbor 7.8 ($(nproc) processes)" "http://127.0.0.1:$thumbor_port" /healthcheck "$thumbor" "$work/urls-thumbor"
kill -- "-$thumbor"

# thumbnailer serve, when this build has it.
bin=.build/release/thumbnailer
swift build -c release --product thumbnailer >&2
if "$bin" serve --help 2>/dev/null | grep -q -- --insecure-unsigned; then
    export THUMBNAILER_KEY=$(python3 -c 'import os; print(os.urandom(32).hex())')
    export THUMBNAILER_SALT=$(python3 -c 'import os; print(os.urandom(16).hex())')
    python3 scripts/bench/serve/sign.py "$box" "http://$origin" "${paths[@]}" > "$work/urls-thumbnailer"
    port=$(free_port)
    "$bin" serve --port "$port" --cache-dir "$work/thumbnailer-cache" --private-addresses > "$work/serve.log" 2>&1 &
    serve=$!; pids+=("$serve")
    wait_for "http://127.0.0.1:$port/healthz"
    run "thumbnailer serve (cold)" "http://127.0.0.1:$port" /healthz "$serve" "$work/urls-thumbnailer"
    run "thumbnailer serve (memory hits)" "http://127.0.0.1:$port" /healthz "$serve" "$work/urls-thumbnailer"
else
    echo "bench-serve: this build has no \`thumbnailer serve\`: peers only" >&2
fi

echo "| server | rendered | failed | renders/s | p50 ms | p99 ms | peak RSS MiB |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
echo "box ${box}x$box (fit), $urls distinct source URLs over ${#photos[@]} photos, wrk -t $connections -c $connections -d ${seconds}s," \
     "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
