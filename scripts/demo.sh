#!/usr/bin/env bash
# Sets up a fresh machine and runs the main job on the built-in default:
# thumbnails of every image at the top of TestImages/ (no network needed;
# the deliberately broken files in TestImages/invalid/ are left out).
# Usage: scripts/demo.sh [OUTPUT_DIR]   (default: ./thumbnails)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out="${1:-thumbnails}"
swift build -c release --static-swift-stdlib --product thumbnailer
mapfile -t images < <(find TestImages -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.png' \) | sort)
.build/release/thumbnailer thumb --size 256 -o "$out" "${images[@]}"
echo "${#images[@]} thumbnails in $out/" >&2
