#!/usr/bin/env bash
# Benchmark of `thumbnailer warm`: feeds of 100 and 1,000 items (the test
# photos repeated under distinct URLs) served from 127.0.0.1 by a small Python
# server; each run starts from an empty cache. Reports images/s, CPU (user +
# sys of the warm process) and its peak RSS, for 100 vs 1,000 items and for 1
# vs 2 decode workers, plus a second run over the full cache.
# Usage: scripts/bench-warm.sh [--quick]   (--quick: 50 and 200 items)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
small=100 large=1000
if [ "${1:-}" = "--quick" ]; then small=50 large=200; fi
swift build -c release --product thumbnailer >&2
swift build -c release --product thumbnailer-feed >&2
bin=.build/release/thumbnailer
work=$(mktemp -d /tmp/thumbnailer-bench-warm.XXXXXX)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
mapfile -t photos < <(ls TestImages/photo-*)
python3 scripts/bench/warm_server.py "${photos[@]}" > "$work/port" &
server=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(head -1 "$work/port")

# run NAME ITEMS DECODERS [reuse]: one warm run, timed; prints a table row.
run() {
    local name=$1 items=$2 decoders=$3 reuse=${4:-}
    local cache="$work/cache-$items-$decoders"
    [ -n "$reuse" ] || rm -rf "$cache"
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" \
        "$bin" warm "http://127.0.0.1:$port/feed-$items.json" --cache-dir "$cache" --decoders "$decoders" --json --quiet \
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
run "second run (all cached)" "$large" 2 reuse
