#!/usr/bin/env bash
# Benchmark of `thumbnailer warm`: feeds of 100 and 1,000 items (the test
# photos repeated under distinct URLs) served from 127.0.0.1 by a small Python
# server; each run starts from an empty cache. Reports images/s, CPU (user +
# sys of the warm process) and its peak RSS, for 100 vs 1,000 items and for 1
# vs 2 decode workers, plus a second run over the full cache (the floor: the
# process with its feed and caches, no transfer or decode). A second feed adds
# two 5 MB PNGs (generated, RGB and RGBA) to the photos, whose set already has a
# progressive JPEG.
# Usage: scripts/bench-warm.sh [--quick]   (--quick: 50 and 200 items)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
small=100 large=1000
if [ "${1:-}" = "--quick" ]; then small=50 large=200; fi
swift build -c release --product thumbnailer >&2
bin=.build/release/thumbnailer
work=$(mktemp -d /tmp/thumbnailer-bench-warm.XXXXXX)
server="" big_server=""
trap 'kill $server $big_server 2>/dev/null || true; rm -rf "$work"' EXIT
mapfile -t photos < <(ls TestImages/photo-*)
python3 scripts/bench/make_big_png.py "$work/big-rgb.png" 1600 1200 --seed 1
python3 scripts/bench/make_big_png.py "$work/big-rgba.png" 1400 1100 --alpha --seed 2

# serve PORTFILE PHOTO...: starts a feed server in the background; sets $started to its PID.
serve() {
    local portfile=$1
    shift
    python3 scripts/bench/warm_server.py "$@" > "$portfile" &
    started=$!
    for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.05; done
}
serve "$work/port" "${photos[@]}"
server=$started port=$(head -1 "$work/port")
serve "$work/big-port" "${photos[@]}" "$work/big-rgb.png" "$work/big-rgba.png"
big_server=$started big_port=$(head -1 "$work/big-port")

# run NAME ITEMS DECODERS [reuse] [PORT]: one warm run, timed; prints a table row.
run() {
    local name=$1 items=$2 decoders=$3 reuse=${4:-} feed_port=${5:-$port}
    local cache="$work/cache-$items-$decoders-$feed_port"
    [ -n "$reuse" ] || rm -rf "$cache"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
        "$bin" warm "http://127.0.0.1:$feed_port/feed-$items.json" --cache-dir "$cache" --decoders "$decoders" --json --quiet \
        > "$work/summary.json"
    read -r wall user sys rss < "$work/time"
    python3 - "$name" "$items" "$decoders" "$wall" "$user" "$sys" "$rss" "$work/summary.json" <<'PY'
import json, sys
name, items, decoders, wall, user, sys_, rss, path = sys.argv[1:]
s = json.load(open(path))
wall, cpu = float(wall), float(user) + float(sys_)
print("| %s | %s | %s | %d | %d | %.1f | %.2f | %.2f | %.1f |" % (
    name, items, decoders, s["fetched"], s["alreadyCached"], int(items) / wall, wall, cpu, int(rss) / 1024))
PY
}

echo "| run | items | decode workers | fetched | already cached | images/s | wall s | CPU s | peak RSS MiB |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
run "first run" "$small" 2
run "first run" "$large" 2
run "first run" "$large" 1
run "second run (all cached): the floor" "$large" 2 reuse
run "with 5 MB PNGs and a progressive JPEG" "$small" 2 "" "$big_port"
