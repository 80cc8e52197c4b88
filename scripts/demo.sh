#!/usr/bin/env bash
# Sets up a fresh machine and runs the main job on the built-in default:
# thumbnails of every image in TestImages/ (no network needed).
# Usage: scripts/demo.sh [OUTPUT_DIR]   (default: ./thumbnails)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out="${1:-thumbnails}"
swift build -c release --static-swift-stdlib --product thumbnailer
mapfile -t images < <(find TestImages -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.png' \) | sort)
status=0
.build/release/thumbnailer thumb --size 256 -o "$out" "${images[@]}" || status=$?
echo "thumbnails in $out/ (exit status $status: 1 means some test images are deliberately broken)" >&2
