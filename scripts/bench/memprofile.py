#!/usr/bin/env python3
"""The memory benchmark behind scripts/memprofile.sh.

Serves a long feed of the test photos (1-3 MB JPEG and PNG) repeated under
distinct URLs from 127.0.0.1, then replays the same scripted scroll (a window
of 10 rows down the whole list and back up) at a realistic and at a fast speed
under each strategy, each in its own `memory-profile` process, sampling the
process's RSS from /proc every 50 ms. Writes results.md (the table), runs.jsonl
(every run's report and samples) and rss-<speed>.svg (RSS over time, a line per
strategy) into the output folder.

Usage: memprofile.py BIN_DIR OUT_DIR [--quick] [--items N]
(--quick: 60 items and a faster realistic scroll; --items: that many items, for a smoke test)"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

STRATEGIES = [("naive", None), ("window", None), ("thumbnailer", 8), ("thumbnailer", 32)]
COLOURS = {"naive": "#d62728", "window": "#ff7f0e", "thumbnailer 8 MiB": "#2ca02c", "thumbnailer 32 MiB": "#1f77b4"}


def rss_bytes(pid):
    try:
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def run(binary, feed, photos, strategy, budget, speed):
    cache = tempfile.mkdtemp(prefix="thumbnailer-memprofile-cache-")
    command = [binary, "--feed", feed, "--strategy", strategy, "--rows-per-second", str(speed), "--cache-dir", cache]
    if budget:
        command += ["--budget-mib", str(budget)]
    for photo in photos:
        command += ["--photos", photo]
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = []
    while process.poll() is None:
        rss = rss_bytes(process.pid)
        if rss is not None:
            samples.append((round(time.monotonic() - started, 3), rss))
        time.sleep(0.05)
    out, err = process.communicate()
    subprocess.run(["rm", "-rf", cache])
    if process.returncode != 0:
        raise SystemExit("memory-profile failed (%s): %s" % (strategy, err.strip()))
    report = json.loads(out.strip().splitlines()[-1])
    report["label"] = strategy + (" %d MiB" % budget if budget else "")
    report["samples"] = samples
    return report


def mib(value):
    return value / (1 << 20)


def table(reports):
    rows = ["| strategy | speed | peak RSS MiB | end RSS MiB | downloaded MB | images decoded | memory hit rate | rows shown correctly | latency median / p95 ms |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in reports:
        lookups = r["memoryHits"] + r["memoryMisses"]
        correct = (r["rowsShown"] - r["rowsShownWrong"]) / max(1, r["rowsDisplayed"])
        rows.append("| %s | %s (%g rows/s) | %.1f | %.1f | %.1f | %d | %.0f %% | %.1f %% (%d of %d) | %.0f / %.0f |" % (
            r["label"], r["speed"], r["rowsPerSecond"], mib(r["peakRSSBytes"]), mib(r["endRSSBytes"]), r["bytesDownloaded"] / 1e6,
            r["decodes"], 100 * r["memoryHits"] / max(1, lookups), 100 * correct,
            r["rowsShown"] - r["rowsShownWrong"], r["rowsDisplayed"],
            r.get("latencyMedianMs", 0), r.get("latencyP95Ms", 0)))
    return "\n".join(rows)


def plot(reports, title):
    width, height, left, bottom, top, right = 760, 380, 60, 40, 30, 190
    longest = max(s[-1][0] for r in reports for s in [r["samples"]] if s) or 1
    highest = max(mib(rss) for r in reports for _, rss in r["samples"]) or 1
    step = next(s for s in [10, 25, 50, 100, 250, 500, 1000, 2500] if highest / s <= 8)
    ceiling = step * (int(highest // step) + 1)
    x = lambda t: left + (width - left - right) * t / longest
    y = lambda m: height - bottom - (height - top - bottom) * m / ceiling
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="14">%s</text>' % (left, title)]
    for tick in range(0, int(ceiling) + 1, step):
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, width - right, y(tick), y(tick)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (left - 6, y(tick) + 4, tick))
    out.append('<text x="14" y="%d" transform="rotate(-90 14 %d)">RSS (MiB)</text>' % (height // 2, height // 2))
    out.append('<text x="%d" y="%d" text-anchor="middle">seconds</text>' % ((left + width - right) // 2, height - 8))
    for t in range(0, int(longest) + 1, max(1, int(longest / 8))):
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(t), height - bottom + 16, t))
    for index, r in enumerate(reports):
        colour = COLOURS.get(r["label"], "#555")
        points = " ".join("%.1f,%.1f" % (x(t), y(mib(rss))) for t, rss in r["samples"])
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (colour, points))
        ly = top + 20 + 20 * index
        out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"/>' % (width - right + 15, width - right + 40, ly, ly, colour))
        out.append('<text x="%d" y="%d">%s</text>' % (width - right + 46, ly + 4, r["label"]))
    out.append("</svg>")
    return "\n".join(out)


def main():
    bin_dir, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    options = sys.argv[3:]
    quick = "--quick" in options
    items = int(options[options.index("--items") + 1]) if "--items" in options else 60 if quick else 300
    speeds = [("realistic", 8 if quick else 4), ("fast", 40)]
    root = pathlib.Path(__file__).resolve().parents[2]
    photos = sorted(str(p) for p in (root / "TestImages").glob("photo-*"))
    out_dir.mkdir(parents=True, exist_ok=True)
    server = subprocess.Popen([sys.executable, str(root / "scripts/bench/warm_server.py")] + photos, stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        feed = "http://127.0.0.1:%d/feed-%d.json" % (port, items)
        reports = []
        for speed_name, speed in speeds:
            group = []
            for strategy, budget in STRATEGIES:
                print("memprofile: %s at %s speed (%g rows/s)" % (strategy + (" %d MiB" % budget if budget else ""), speed_name, speed), file=sys.stderr)
                report = run(str(bin_dir / "memory-profile"), feed, photos, strategy, budget, speed)
                report["speed"] = speed_name
                group.append(report)
            (out_dir / ("rss-%s.svg" % speed_name)).write_text(plot(group, "RSS while scrolling %d rows down and back up, %s speed (%g rows/s)" % (items, speed_name, speed)))
            reports += group
    finally:
        server.kill()
    with open(out_dir / "runs.jsonl", "w") as runs:
        for r in reports:
            runs.write(json.dumps(r) + "\n")
    header = "Feed: %d items (%s, repeated under distinct URLs) from 127.0.0.1; a window of 10 rows scrolled down the whole list and back up.\n\n" % (
        items, ", ".join(os.path.basename(p) for p in photos))
    (out_dir / "results.md").write_text(header + table(reports) + "\n")
    print(table(reports))


if __name__ == "__main__":
    main()
