#!/usr/bin/env bash
# Makes scripts/figures/browse.svg, the README's picture of
# `thumbnailer browse`: runs it on TestImages/feed.json in a detached tmux
# session (120×42, true colour), moves down a few rows, captures the screen
# with its colours and draws the capture as an SVG.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "screenshot: needs tmux" >&2; exit 1; }
swift build --product thumbnailer >&2
cache=$(mktemp -d /tmp/thumbnailer-screenshot.XXXXXX)
socket="thumbnailer-screenshot-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$cache"' EXIT
tmux -L "$socket" new-session -d -s shot -x 120 -y 42 \
    "env COLORTERM=truecolor .build/debug/thumbnailer browse TestImages/feed.json --cache-dir $cache --row-height 9; sleep 30"
sleep 3
for key in j j j; do tmux -L "$socket" send-keys -t shot "$key"; sleep 0.3; done
sleep 2
tmux -L "$socket" capture-pane -p -e -t shot | python3 scripts/figures/ansi_to_svg.py > scripts/figures/browse.svg
echo "scripts/figures/browse.svg" >&2
