#!/usr/bin/env bash
# Makes scripts/figures/docc-thumbnailkit.png: ThumbnailKit's DocC landing page, built for static
# hosting, served on loopback and rendered by headless Chromium (Debian's chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium >/dev/null || { echo "screenshot-docs: needs chromium" >&2; exit 1; }
site=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$site"' EXIT
swift package --allow-writing-to-directory "$site" generate-documentation --target ThumbnailKit --disable-indexing \
    --transform-for-static-hosting --hosting-base-path / --output-path "$site" >&2
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$port/documentation/thumbnailkit/" && break; sleep 0.1; done
mkdir -p scripts/figures
chromium --headless=new --no-sandbox --disable-gpu --window-size=1280,1000 --virtual-time-budget=8000 \
    --screenshot="$PWD/scripts/figures/docc-thumbnailkit.png" "http://127.0.0.1:$port/documentation/thumbnailkit/" 2>/dev/null
echo "scripts/figures/docc-thumbnailkit.png" >&2
