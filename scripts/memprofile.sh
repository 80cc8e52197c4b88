#!/usr/bin/env bash
# The memory benchmark: the problem and the fix side by side. Replays one
# scripted scroll through a long feed of 1-3 MB photos served from 127.0.0.1
# under three strategies, each in its own process: naive (full-size decodes,
# all kept), window (full-size decodes, released outside the visible rows
# ± 20) and thumbnailer (downscaled while decoding, 8 and 32 MiB budgets, disk
# tier), at a realistic and a fast scroll speed. Samples RSS every 50 ms and
# writes a Markdown table and SVG plots of RSS over time.
# Usage: scripts/memprofile.sh [--quick] [--items N]   (--quick: 60 items instead of 300)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product memory-profile >&2
out="${MEMPROFILE_OUT:-/tmp/thumbnailer-memprofile/$(date +%Y%m%d-%H%M%S)}"
python3 scripts/bench/memprofile.py .build/release "$out" "$@"
echo "results in $out (results.md, rss-realistic.svg, rss-fast.svg, runs.jsonl)" >&2
