#!/usr/bin/env python3
"""Drives `thumbnailer serve --feed`'s web list in headless Chromium for WebListBrowserTests.

Measures; asserts nothing: every figure goes to standard output as one JSON object per line, and
the Swift test decides. Where the test has to change the origin mid-run, the driver prints a
`{"phase": "waiting", "for": NAME}` line and waits for the file WORKDIR/go-NAME.

    drive_web_list.py URL WORKDIR --failing N --held FIRST COUNT

Needs python3-selenium, chromium and chromium-driver (Debian); CHROMIUM and CHROMEDRIVER may name
other binaries.
"""
import argparse
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# Samples every row of every frame while it scrolls the viewport along a schedule of segments
# (pixels per second for a duration); resolves with what it saw. Runs in the page.
SCROLL_AND_SAMPLE = r"""
const [segments, done] = [arguments[0], arguments[arguments.length - 1]];
const viewport = document.getElementById("viewport");
const canvas = document.createElement("canvas");
canvas.width = canvas.height = 1;
const context = canvas.getContext("2d", { willReadFrequently: true });
const seen = new Map();          // "index r g b" → frames it was seen in
const bound = new Map();         // index → [first frame time it was bound in this stretch, longest stretch]
let frames = 0, maxRows = 0, maxShown = 0;
const passed = new Set();
let segment = 0, segmentStart = performance.now(), segmentTop = viewport.scrollTop;

function sample(now) {
  frames += 1;
  const rows = document.querySelectorAll("#spacer .row");
  maxRows = Math.max(maxRows, rows.length);
  const top = viewport.getBoundingClientRect().top, bottom = top + viewport.clientHeight;
  let shown = 0;
  const boundNow = new Set();
  for (const row of rows) {
    if (row.hidden || row.dataset.index === undefined) continue;
    const index = Number(row.dataset.index);
    boundNow.add(index);
    const rect = row.getBoundingClientRect();
    if (rect.bottom > top && rect.top < bottom) { shown += 1; passed.add(index); }
    const image = row.querySelector("img");
    if (image.complete && image.naturalWidth > 0) {
      context.clearRect(0, 0, 1, 1);
      context.drawImage(image, Math.floor(image.naturalWidth / 2), Math.floor(image.naturalHeight / 2), 1, 1, 0, 0, 1, 1);
      const [r, g, b] = context.getImageData(0, 0, 1, 1).data;
      const key = `${index} ${r} ${g} ${b}`;
      seen.set(key, (seen.get(key) || 0) + 1);
    }
  }
  maxShown = Math.max(maxShown, shown);
  for (const index of boundNow) {
    const stretch = bound.get(index);
    if (stretch === undefined) bound.set(index, [now, 0]);
    else if (stretch[0] === null) stretch[0] = now;
    else stretch[1] = Math.max(stretch[1], now - stretch[0]);
  }
  for (const [index, stretch] of bound) if (!boundNow.has(index)) stretch[0] = null;
}

function frame(now) {
  sample(now);
  while (segment < segments.length && now - segmentStart >= segments[segment][1] * 1000) {
    segmentTop += segments[segment][0] * segments[segment][1];
    segmentStart += segments[segment][1] * 1000;
    segment += 1;
  }
  if (segment === segments.length) {
    done({
      frames, maxRows, maxShown,
      passed: passed.size,
      samples: [...seen].map(([key, count]) => key.split(" ").map(Number).concat([count])),
      longestBound: [...bound].map(([index, stretch]) => [index, Math.round(stretch[1])]),
    });
    return;
  }
  const [speed] = segments[segment];
  viewport.scrollTop = segmentTop + speed * (now - segmentStart) / 1000;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
"""

# The rows in the DOM: index, state, text, and the centre pixel of an image that shows.
ROWS = r"""
const canvas = document.createElement("canvas");
canvas.width = canvas.height = 1;
const context = canvas.getContext("2d", { willReadFrequently: true });
const viewport = document.getElementById("viewport");
const top = viewport.getBoundingClientRect().top, bottom = top + viewport.clientHeight;
return [...document.querySelectorAll("#spacer .row")].filter((row) => !row.hidden).map((row) => {
  const image = row.querySelector("img");
  let pixel = null;
  if (image.complete && image.naturalWidth > 0) {
    context.clearRect(0, 0, 1, 1);
    context.drawImage(image, Math.floor(image.naturalWidth / 2), Math.floor(image.naturalHeight / 2), 1, 1, 0, 0, 1, 1);
    pixel = [...context.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  }
  const rect = row.getBoundingClientRect();
  return { index: Number(row.dataset.index), state: row.dataset.state, meta: row.querySelector(".meta").textContent,
           shown: rect.bottom > top && rect.top < bottom, pixel,
           imageWidth: image.naturalWidth, imageHeight: image.naturalHeight };
});
"""

HEAP = "window.gc(); window.gc(); return performance.memory.usedJSHeapSize;"


def report(phase, **figures):
    print(json.dumps({"phase": phase, **figures}), flush=True)


def wait_for_go(workdir, name, timeout=180):
    report("waiting", **{"for": name})
    deadline = time.monotonic() + timeout
    while not os.path.exists(os.path.join(workdir, "go-" + name)):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the test never said go-{name}")
        time.sleep(0.05)


def rows(driver):
    return driver.execute_script(ROWS)


def wait_until(driver, condition, timeout=60):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda _: condition())


def scroll_to(driver, index):
    driver.execute_script(
        "const list = window.thumbnailList.list; list.viewport.scrollTop = arguments[0] * list.rowHeight;", index)


def schedule(total_height, viewport_height, direction):
    """Steady stretches of 2 s at 1,200 px/s, each followed by a flick of about a tenth of the
    list in half a second and a pause of 0.4 s, until the other end."""
    travel = total_height - viewport_height
    flick = (travel - 10 * 2400) / 10
    segments = []
    for _ in range(10):
        segments += [[1200 * direction, 2.0], [flick * 2 * direction, 0.5], [0, 0.4]]
    return segments


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("workdir")
    parser.add_argument("--failing", type=int, required=True, help="an item whose source fails until the test says")
    parser.add_argument("--held", type=int, nargs=2, required=True, metavar=("FIRST", "COUNT"),
                        help="items whose origin responses wait until the test lets them go")
    arguments = parser.parse_args()

    driver = browser(arguments.workdir, "profile", scale=1)
    try:
        driver.get(arguments.url)
        wait_until(driver, lambda: driver.execute_script("return window.thumbnailList !== undefined"))
        driver.execute_script("""
            window.layoutShift = 0;
            window.layoutShiftSources = [];
            const describe = (node) => node ? `${node.nodeName}#${node.id || ""}.${node.className || ""}` : "?";
            new PerformanceObserver((list) => {
                for (const entry of list.getEntries()) {
                    window.layoutShift += entry.value;
                    for (const source of entry.sources || []) {
                        if (window.layoutShiftSources.length < 10) window.layoutShiftSources.push(
                            `${describe(source.node)} ${JSON.stringify(source.previousRect)} → ${JSON.stringify(source.currentRect)}`);
                    }
                }
            }).observe({ type: "layout-shift", buffered: true });
        """)
        wait_until(driver, lambda: all(row["state"] == "loaded" for row in rows(driver) if row["shown"]))
        first = rows(driver)
        geometry = driver.execute_script("""
            const list = window.thumbnailList.list;
            return { viewportHeight: list.viewport.clientHeight, rowHeight: list.rowHeight, columns: list.columns,
                     overscan: window.thumbnailList.settings.overscan, dwell: window.thumbnailList.settings.dwell,
                     count: list.feed.count, spacerHeight: document.getElementById("spacer").offsetHeight };
        """)
        report("first-screen", rows=first, heap=driver.execute_script(HEAP), geometry=geometry)

        down = driver.execute_async_script(SCROLL_AND_SAMPLE,
                                           schedule(geometry["spacerHeight"], geometry["viewportHeight"], 1))
        heap_at_bottom = driver.execute_script(HEAP)
        up = driver.execute_async_script(SCROLL_AND_SAMPLE,
                                         schedule(geometry["spacerHeight"], geometry["viewportHeight"], -1))
        report("scrolled", down=down, up=up, heapAtBottom=heap_at_bottom, heap=driver.execute_script(HEAP), layoutShift=driver.execute_script("return window.layoutShift"),
               layoutShiftSources=driver.execute_script("return window.layoutShiftSources"),
               stats=driver.execute_script("return window.thumbnailList.stats"))

        # Rows whose thumbnails the origin holds: once the server has asked for them, scroll away.
        held_first, held_count = arguments.held
        scroll_to(driver, held_first)
        wait_until(driver, lambda: any(row["index"] == held_first for row in rows(driver)))
        wait_for_go(arguments.workdir, "held")
        left = [row["index"] for row in rows(driver)]
        scroll_to(driver, 0)
        wait_until(driver, lambda: all(row["index"] < held_first for row in rows(driver)))
        report("moved-away", left=left, stats=driver.execute_script("return window.thumbnailList.stats"))
        wait_for_go(arguments.workdir, "cancelled")

        # A source that fails, then recovers: `r` for one, the retry button for the next.
        failing = arguments.failing
        scroll_to(driver, failing)

        def state_of(index):
            return next((row for row in rows(driver) if row["index"] == index), {"state": None})

        wait_until(driver, lambda: state_of(failing)["state"] == "failed" and state_of(failing + 1)["state"] == "failed")
        report("failed", rows=[state_of(failing), state_of(failing + 1)])
        wait_for_go(arguments.workdir, "first-recovered")
        driver.find_element(By.ID, "viewport").send_keys("r")
        wait_until(driver, lambda: state_of(failing)["state"] == "loaded" and state_of(failing + 1)["state"] == "failed")
        report("retried-by-key", rows=[state_of(failing), state_of(failing + 1)])
        wait_for_go(arguments.workdir, "second-recovered")
        driver.find_element(By.CSS_SELECTOR, f'.row[data-index="{failing + 1}"] .retry').click()
        wait_until(driver, lambda: state_of(failing + 1)["state"] == "loaded")
        report("retried-by-button", rows=[state_of(failing), state_of(failing + 1)])
    finally:
        driver.quit()

    # The grid on a screen of twice the density: squares at 2x.
    driver = browser(arguments.workdir, "profile-grid", scale=2)
    try:
        driver.get(arguments.url + "?view=grid")
        wait_until(driver, lambda: driver.execute_script("return window.thumbnailList !== undefined"))
        wait_until(driver, lambda: all(row["state"] == "loaded" for row in rows(driver) if row["shown"]))
        report("grid", rows=rows(driver), density=driver.execute_script("return window.devicePixelRatio"))
    finally:
        driver.quit()


def browser(workdir, profile, scale):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1000,800", f"--force-device-scale-factor={scale}", "--enable-precise-memory-info",
                     "--js-flags=--expose-gc", "--no-first-run", "--disable-extensions",
                     f"--user-data-dir={os.path.join(workdir, profile)}"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    driver.set_script_timeout(600)
    return driver


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # the test shows what went wrong, with the figures so far
        report("error", message=f"{type(error).__name__}: {error}")
        sys.exit(1)
