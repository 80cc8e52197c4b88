#!/usr/bin/env bash
# Benchmark (not a test): what `thumbnailer browse` writes to the terminal while
# it scrolls, per graphics protocol (half blocks, kitty, sixel, iTerm2), and
# whether the frame cap (a frame at most every 30 ms) holds while it does.
#
#   scripts/bench-browse.sh [--rates 30,60] [--protocols blocks,kitty,sixel,iterm] [--cell 10x20]
#
# A 300-item JSON Feed of the test photos (distinct URLs) is served from
# 127.0.0.1; browse (release build) runs in a pseudo-terminal of 120×40 cells of
# 10×20 pixels, with scripts/bench/browse_bytes.py playing the terminal: it
# answers the detection queries, waits for the first screen, then holds j for
# 250 rows at each rate and counts every byte and frame browse writes until the
# screen is still, and browse's CPU time. The feed is warmed first at both sizes
# browse asks for here (16x12 for half blocks, 160x120 for pixels), so every
# protocol starts alike: a feed seen before, its thumbnails on disk, none in
# memory. Prints a Markdown table; the JSON lines go to $OUT/runs.jsonl.
set -euo pipefail
cd "$(dirname "$0")/.."
rates=30,60
passthrough=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rates) rates="$2"; shift 2 ;;
        --protocols|--cell) passthrough+=("$1" "$2"); shift 2 ;;
        *) echo "bench-browse: unknown argument $1" >&2; exit 64 ;;
    esac
done
scripts/setup.sh >&2
swift build -c release --product thumbnailer >&2
out="${OUT:-/tmp/thumbnailer-bench-browse/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
python3 scripts/bench/warm_server.py TestImages/photo-* > "$out/port" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$out/port" ] && break; sleep 0.1; done
feed="http://127.0.0.1:$(head -1 "$out/port")/feed-300.json"
echo "bench-browse: warming $feed at 16x12 and 160x120" >&2
.build/release/thumbnailer warm "$feed" --cache-dir "$out/cache" -s 16x12 -s 160x120 >&2
: > "$out/runs.jsonl"
for rate in ${rates//,/ }; do
    echo "bench-browse: holding j at $rate rows/s" >&2
    python3 scripts/bench/browse_bytes.py .build/release/thumbnailer "$feed" "$out/cache" --rate "$rate" \
        ${passthrough[@]+"${passthrough[@]}"} | tee -a "$out/runs.jsonl" >&2
done
python3 - "$out/runs.jsonl" <<'PY'
import json, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
print("| protocol | keys/s | bytes per scrolled row | frames/s while scrolling | frame interval min / median / max (ms) | largest frame | browse CPU per row |")
print("|---|---:|---:|---:|---|---:|---:|")
for r in runs:
    print("| %s | %g | %s | %s | %s / %s / %s | %s | %s ms |" % (
        r["protocol"], r["keys_per_second"], format(r["bytes_per_row"], ","), r["frames_per_second_while_scrolling"],
        r["min_frame_interval_ms"], r["median_frame_interval_ms"], r["max_frame_interval_while_scrolling_ms"],
        format(r["largest_frame_bytes"], ","), r["browse_cpu_ms_per_row"]))
PY
echo "bench-browse: results in $out" >&2
