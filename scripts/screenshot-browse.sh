#!/usr/bin/env bash
# Makes scripts/figures/browse.png, the README's picture of `thumbnailer browse`:
# TestImages/feed.json in the same terminal twice, three rows down, side by
# side: on the left in half blocks (--graphics blocks, 24-bit colour), on the
# right with real pixels (--graphics auto, which finds sixel). The terminal is
# xterm as a VT340 (DejaVu Sans Mono 11, 90×32 cells, black) on an X server of
# the script's own (Xvfb); the screen is captured with xwd and cropped.
# Needs xvfb, xterm, x11-apps, xdotool and fonts-dejavu-core (Debian).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in Xvfb xterm xwd xdotool fc-list; do
    command -v "$tool" >/dev/null || { echo "screenshot: needs $tool (Debian: xvfb xterm x11-apps xdotool fontconfig)" >&2; exit 1; }
done
fc-list | grep -q "DejaVu Sans Mono" || { echo "screenshot: needs DejaVu Sans Mono (Debian: fonts-dejavu-core)" >&2; exit 1; }
swift build --product thumbnailer >&2
work=$(mktemp -d /tmp/thumbnailer-screenshot.XXXXXX)
# Xvfb picks a free display number itself and writes it once it is ready (-displayfd).
Xvfb -displayfd 1 -screen 0 1280x800x24 -nolisten tcp >"$work/display" 2>/dev/null &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 200); do [ -s "$work/display" ] && break; sleep 0.05; done
[ -s "$work/display" ] || { echo "screenshot: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(head -1 "$work/display")"

# browse with --graphics $1, three rows down, captured to $work/$1.xwd. xterm drops COLORTERM, so
# the shell inside sets it again.
shoot() {
    xterm -ti vt340 -bg black -fg white -fa "DejaVu Sans Mono" -fs 11 -geometry 90x32+0+0 -e sh -c \
        "env COLORTERM=truecolor .build/debug/thumbnailer browse TestImages/feed.json --cache-dir $work/cache --graphics $1; sleep 60" \
        2>/dev/null &
    local xterm=$!
    sleep 4
    xdotool mousemove 300 300 key j key j key j
    sleep 2
    xwd -root -silent -out "$work/$1.xwd"
    kill -9 "$xterm"
}
shoot blocks
shoot auto
python3 scripts/xwd-to-png.py scripts/figures/browse.png "$work/blocks.xwd" "$work/auto.xwd" --crop 0 0 816 626
echo "scripts/figures/browse.png" >&2
