#!/usr/bin/env bash
# Makes scripts/figures/web-list.png, docs/serving.md's picture of `thumbnailer serve --feed`'s web
# list: the photos of Debian's lomiri-wallpapers package (CC BY and CC BY-SA; /usr/share/backgrounds), and
# TestImages after them, in headless Chromium (a 1000×840 window), once every thumbnail on screen has
# loaded. The photos come from a loopback origin (python3's http.server) through serve.
# Needs chromium, chromium-driver and python3-selenium (Debian); lomiri-wallpapers is optional.
#   scripts/screenshot-web.sh [list|grid]
set -euo pipefail
cd "$(dirname "$0")/.."
view=${1:-list}
for tool in /usr/bin/chromium /usr/bin/chromedriver; do
    [ -x "$tool" ] || { echo "screenshot: needs $tool (Debian: chromium chromium-driver)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import selenium' 2>/dev/null || { echo "screenshot: needs python3-selenium (Debian)" >&2; exit 1; }
swift build --product thumbnailer >&2
work=$(mktemp -d /tmp/thumbnailer-web-screenshot.XXXXXX)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT

mkdir "$work/origin"
for image in /usr/share/backgrounds/*.jpg TestImages/*.jpg TestImages/*.png; do
    [ -f "$image" ] && ln -s "$(realpath "$image")" "$work/origin/$(basename "$image")"
done
port_file="$work/origin-port"
/usr/bin/python3 - "$work/origin" "$port_file" 2>/dev/null <<'PY' &
import functools, http.server, json, os, sys
root, port_file = sys.argv[1], sys.argv[2]
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=root))
port = server.server_address[1]
names = sorted(name for name in os.listdir(root) if name != "feed.json")
names = [n for n in names if "_by_" in n] + [n for n in names if "_by_" not in n]
items = [{"id": name, "title": os.path.splitext(name)[0].replace("_", " "), "image": f"http://127.0.0.1:{port}/{name}"}
         for name in names]
with open(os.path.join(root, "feed.json"), "w") as feed:
    json.dump({"version": "https://jsonfeed.org/version/1.1", "title": "Wallpapers and test images", "items": items}, feed)
with open(port_file, "w") as out:
    out.write(str(port))
server.serve_forever()
PY
pids+=($!)
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.1; done
.build/debug/thumbnailer serve --port 0 --insecure-unsigned --private-addresses --no-access-log \
    --feed "http://127.0.0.1:$(cat "$port_file")/feed.json" --cache-dir "$work/cache" >"$work/serve.out" &
pids+=($!)
for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
page="$(sed -n 's/^listening on //p' "$work/serve.out")/?view=$view"
/usr/bin/python3 - "$page" "scripts/figures/web-$view.png" "$work/profile" <<'PY'
import sys, time
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
page, output, profile = sys.argv[1:]
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1000,840", "--hide-scrollbars",
                 "--force-device-scale-factor=1", f"--user-data-dir={profile}"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(page)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        states = driver.execute_script("""
            const viewport = document.getElementById("viewport");
            if (!viewport || !window.thumbnailList) return ["none"];
            const bottom = viewport.getBoundingClientRect().bottom;
            return [...document.querySelectorAll(".row:not([hidden])")]
                .filter((row) => row.getBoundingClientRect().top < bottom).map((row) => row.dataset.state);""")
        if states and all(state in ("loaded", "failed") for state in states):
            break
        time.sleep(0.2)
    driver.execute_script("window.thumbnailList.list.select(1)")  # the selection shows, as in browse's picture
    time.sleep(0.5)
    driver.save_screenshot(output)
finally:
    driver.quit()
PY
echo "screenshot: wrote scripts/figures/web-$view.png" >&2
