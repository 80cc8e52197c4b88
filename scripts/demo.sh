#!/usr/bin/env bash
# Sets up a fresh machine and runs the main job on the built-in default:
# `thumbnailer warm` on TestImages/feed.json (a JSON Feed of every decodable
# test image, by relative path: no network needed), twice. The first run
# stores each original and its 256 and 128 px thumbnails; the second finds
# everything cached and downloads and writes nothing.
# Usage: scripts/demo.sh [CACHE_DIR]   (default: ./.demo-cache, emptied first)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cache="${1:-.demo-cache}"
swift build -c release --product thumbnailer
rm -rf "$cache"
echo "== first run: fills the cache" >&2
.build/release/thumbnailer warm TestImages/feed.json --cache-dir "$cache" -s 256 -s 128
echo "== second run: everything is cached" >&2
second=$(.build/release/thumbnailer warm TestImages/feed.json --cache-dir "$cache" -s 256 -s 128)
echo "$second"
if ! grep -q '^fetched     0 images' <<<"$second"; then
    echo "demo: the second run downloaded images: the cache did not hold what the first run stored" >&2
    exit 1
fi
.build/release/thumbnailer cache stats --cache-dir "$cache"
