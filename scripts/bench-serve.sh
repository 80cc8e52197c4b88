#!/usr/bin/env bash
# Benchmark of thumbnail servers on loopback: cold renders/s, p50/p99 latency and
# peak RSS (the whole process tree) for each server, every request a distinct
# source URL (the five test photos under 1,000 paths, served as static files by
# nginx), one box size, the same wrk concurrency for all. Peers: thumbor 7.8
# (PyPI, in a venv under .build/bench-serve, its default settings plus
# MAX_WIDTH/MAX_HEIGHT at the box, one process per core) and nginx's
# image_filter (Debian's libnginx-mod-http-image-filter, one worker per core);
# then `thumbnailer serve` (this checkout, built for release, unsigned URLs).
# Each server gets the same wrk load for the same time (one connection per wrk
# thread, each asking for its own URLs in turn); a run that would ask for a URL
# twice is marked, so no row counts a cache hit as a render. The origin's log
# gives each row its count of origin GETs: a cold row fetches once per render.
# Then thumbnailer's hits/s: memory hits (the same 64 thumbnails asked again and
# again) and disk hits (a server started afresh on the same cache, memory held
# to nothing when `serve` has --memory-budget, cycling over all the URLs).
# --giant: the same cold runs on a 24 MP JPEG (made with Pillow) under
# distinct URLs, 64 connections for 20 s: peak RSS under 64 concurrent cold 24 MP renders.
# Usage: scripts/bench-serve.sh [--box N] [--connections N] [--urls N] [--seconds N] [--giant]
set -euo pipefail
cd "$(dirname "$0")/.."
box=256 connections="" urls=1000 seconds="" giant=0
while [ $# -gt 0 ]; do
    case $1 in
        --box) box=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --urls) urls=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        --giant) giant=1; shift ;;
        *) echo "usage: $0 [--box N] [--connections N] [--urls N] [--seconds N] [--giant]" >&2; exit 64 ;;
    esac
done
# A 24 MP render takes seconds with 64 at once: a longer run, so that rows count more than a handful.
if [ "$giant" = 1 ]; then : "${connections:=64}" "${seconds:=20}"; else : "${connections:=32}" "${seconds:=5}"; fi

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

# Built first: a build that fails stops the run before any server starts.
bin=.build/release/thumbnailer
swift build -c release --product thumbnailer >&2
if ! "$bin" serve --help 2>/dev/null | grep -q -- --insecure-unsigned; then
    echo "bench-serve: this build has no \`thumbnailer serve\`" >&2
    exit 1
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

# The origin: /img/N.jpg|png is photo N mod 5, hard links to the test photos
# (with --giant, all links to one 24 MP JPEG).
if [ "$giant" = 1 ]; then
    echo "bench-serve: making a 6000x4000 JPEG" >&2
    pillow=python3
    python3 -c 'import PIL' 2>/dev/null || pillow=/usr/bin/python3  # Debian's python3-pil beside another python3
    "$pillow" scripts/bench/serve/giant.py "$work/giant-6000x4000.jpg"
    photos=("$work/giant-6000x4000.jpg")
else
    mapfile -t photos < <(ls TestImages/photo-*)
fi
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

# origin_gets: how many GETs the origin has logged so far.
origin_gets() { cat "$work/origin.log" 2>/dev/null | grep -c '"GET ' || true; }

# run NAME BASE IDLE PID URLFILE [REPEAT]: wrk over the URL file against BASE, with the
# peak RSS of PID's process tree and the origin GETs it caused; appends a table row.
# Cold (each URL once) by default; REPEAT=1 for hits (the URLs again and again).
rows=()
run() {
    local name=$1 base=$2 idle=$3 pid=$4 list=$5 repeat=${6:-0}
    local gets_before; gets_before=$(origin_gets)
    python3 scripts/bench/serve/rss_peak.py "$pid" > "$work/rss" &
    local sampler=$!
    local result
    result=$(URLS=$list THREADS=$connections IDLE_PATH=$idle REPEAT=$repeat \
        wrk -t "$connections" -c "$connections" -d "${seconds}s" --timeout 60s -s scripts/bench/serve/requests.lua "$base" \
        | tail -1)
    kill -TERM "$sampler"; wait "$sampler" || true
    local peak; peak=$(cat "$work/rss")
    local gets=$(( $(origin_gets) - gets_before ))
    rows+=("$(python3 - "$name" "$peak" "$gets" "$repeat" "$result" <<'PY'
import json, sys
name, peak, gets, repeat, result = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", json.loads(sys.argv[5])
note = ""
if repeat:
    if gets:
        note += " (origin asked: not all hits)"
    template = "| %s%s | %d | %d | %.0f | %.2f | %.2f | %.1f | %d |"
else:
    if result["exhausted"]:
        note += " (URLs ran out: rerun with more --urls)"
    if gets < result["answered"]:
        note += " (fewer origin GETs than renders: not all cold)"
    template = "| %s%s | %d | %d | %.1f | %.0f | %.0f | %.1f | %d |"
if result["socket_errors"]:
    note += " (%d socket errors)" % result["socket_errors"]
print(template % (name, note, result["answered"], result["failed"], result["answered"] / result["seconds"],
                  result["p50_ms"], result["p99_ms"], peak, gets))
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

# thumbnailer serve, unsigned like thumbor's /unsafe/ URLs, its disk cache in the work directory.
# start_serve [OPTION...]: starts it on a free port; sets serve (its pid) and serve_base.
start_serve() {
    : > "$work/serve.out"  # there, and empty, before the server writes its address line
    "$bin" serve --insecure-unsigned --private-addresses --port 0 --cache-dir "$work/thumbnailer-cache" "$@" \
        > "$work/serve.out" 2>> "$work/serve.err" &
    serve=$!; pids+=("$serve")
    local line=""
    for _ in $(seq 1 200); do
        line=$(head -1 "$work/serve.out")
        [ -n "$line" ] && break
        sleep 0.05
    done
    case $line in
        "listening on http://"*) serve_base=${line#listening on } ;;
        *) echo "bench-serve: thumbnailer serve did not start: $(cat "$work/serve.err")" >&2; exit 1 ;;
    esac
}
# stop_serve: SIGTERM, then wait for it to drain and exit.
stop_serve() { kill -TERM "$serve"; wait "$serve" || true; }

python3 scripts/bench/serve/sign.py "$box" "http://$origin" "${paths[@]}" > "$work/urls-thumbnailer"
start_serve
run "thumbnailer serve" "$serve_base" /healthz "$serve" "$work/urls-thumbnailer"

if [ "$giant" = 0 ]; then
    # Memory hits: 64 thumbnails, made first, asked again and again.
    head -64 "$work/urls-thumbnailer" > "$work/urls-memory"
    sed "s|^|$serve_base|" "$work/urls-memory" | xargs -n 1 -P 4 curl -s -o /dev/null
    run "thumbnailer serve, memory hits (64 thumbnails)" "$serve_base" /healthz "$serve" "$work/urls-memory" 1
    # Disk hits: every URL on disk first (the cold run made only some), then a server with
    # nothing in memory cycling over all of them.
    sed "s|^|$serve_base|" "$work/urls-thumbnailer" | xargs -n 1 -P 4 curl -s -o /dev/null
    stop_serve
    budget=() disk_name="thumbnailer serve, disk hits ($urls thumbnails"
    if "$bin" serve --help | grep -q -- --memory-budget; then
        budget=(--memory-budget 1) disk_name+=", --memory-budget 1)"
    else
        disk_name+=" cycled past the memory budget: some may be memory hits)"
    fi
    start_serve "${budget[@]}"
    run "$disk_name" "$serve_base" /healthz "$serve" "$work/urls-thumbnailer" 1
fi
stop_serve

echo "| server | answered | failed | renders/s, hits/s | p50 ms | p99 ms | peak RSS MiB | origin GETs |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
source_note="$urls distinct source URLs over ${#photos[@]} photos"
[ "$giant" = 1 ] && source_note="$urls distinct source URLs of one 6000x4000 (24 MP) JPEG"
echo "box ${box}x$box (fit), $source_note, wrk -t $connections -c $connections -d ${seconds}s," \
     "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
