#!/usr/bin/python3
"""Timing driver of scripts/bench.sh: runs every tool as a separate process on
every image, alternating tools, for several rounds, and prints a Markdown report.

Each process runs under scripts/bench/rusage_exec (a tiny C launcher), which
forks, execs it, reaps it with wait4 and reports its CPU time (ru_utime +
ru_stime, all threads), its peak resident set (ru_maxrss, KiB on Linux) and
its wall time (fork to reap). Reaping straight from Python with os.wait4 would
overstate RSS: Linux carries the parent's high-water mark through exec, so every
child of this Python process would report at least Python's own peak.
One untimed warm-up round comes first (page cache, dynamic loader, output
checks). Within a round each image is handed to every tool in turn, and the
order of the tools rotates from image to image and round to round.
Class figures are per-round sums over the class's files (CPU, wall) or the
maximum (RSS); the report shows the median over rounds.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

MIB = 1024.0  # ru_maxrss is in KiB


# ---------------------------------------------------------------- processes

class Sample:
    __slots__ = ("cpu", "wall", "rss_kib", "code")

    def __init__(self, cpu, wall, rss_kib, code):
        self.cpu, self.wall, self.rss_kib, self.code = cpu, wall, rss_kib, code


def run_process(launcher, argv, err_path, env):
    """Runs argv under the rusage_exec launcher, stdout to /dev/null, stderr to err_path.

    The numbers come from the launcher's wait4 of the real process (see rusage_exec.c
    for why not os.wait4 here); os.wait4 here only reaps the launcher.
    """
    rfd, wfd = os.pipe()
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_DUP2, wfd, 3),
    ]
    try:
        pid = os.posix_spawn(launcher, [launcher] + argv, env, file_actions=actions)
    finally:
        os.close(wfd)
    with os.fdopen(rfd) as report:
        line = report.read()
    _, status, _ = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or len(line.split()) != 4:
        return Sample(0.0, 0.0, 0, 127)
    cpu, wall, rss, code = line.split()
    return Sample(float(cpu), float(wall), int(rss), int(code))


def first_lines(path, n=4):
    try:
        with open(path, errors="replace") as f:
            return " | ".join(line.rstrip() for line in f.readlines()[:n]) or "(no stderr)"
    except OSError:
        return "(no stderr)"


# ---------------------------------------------------------------- tools

class Tool:
    """name: key; label: shown in tables; kinds: image kinds it handles; batch: takes all files at once."""

    def __init__(self, name, label, kinds, make_argv, batch=False, makes_output=True, only=None):
        self.name, self.label, self.kinds = name, label, kinds
        self.make_argv, self.batch, self.makes_output = make_argv, batch, makes_output
        self.only = only  # a predicate on the image, or None for every image of its kinds

    def handles(self, im):
        return im["kind"] in self.kinds and (self.only is None or self.only(im))


def fitted_size(im, box):
    """The image's size fitted into box × box, rounded as the decoders round it (never upscaled)."""
    w, h = im["width"], im["height"]
    if w <= box and h <= box:
        return w, h
    if w >= h:
        return box, max(1, (2 * h * box + w) // (2 * w))
    return max(1, (2 * w * box + h) // (2 * h)), box


MODERN_KINDS = ("avif", "heic", "jxl")

# What the 24 MP files of the newer formats need past the default limits (the report says so): an
# 8-bit 4:2:0 AVIF's frames need 50.5 MiB (32 MiB by default), libjxl's estimate for 24 MP 2.0 GB
# (256 MiB by default).
THUMBNAILER_LIMITS = {"avif": ["--max-decoder-memory", "64M"], "jxl": ["--max-jxl-decoder-memory", "3G"]}


def pillow_kinds(python):
    """The kinds the Pillow peer can open with the Python given: the newer formats through Pillow's own
    AVIF (11.3 and later) or pillow-avif-plugin, pillow-heif and pillow-jxl-plugin, where installed."""
    kinds = ["jpeg", "png", "webp"]
    probes = {"avif": "import PIL.features as f, importlib.util as u; "
                      "assert f.check('avif') or u.find_spec('pillow_avif')",
              "heic": "import pillow_heif", "jxl": "import pillow_jxl"}
    for kind, probe in probes.items():
        if subprocess.run([python, "-c", probe], capture_output=True).returncode == 0:
            kinds.append(kind)
    return tuple(kinds)


def build_tools(a, out_dir):
    def out(tool, image):
        stem = os.path.splitext(image["file"])[0]
        return os.path.join(out_dir, tool, stem + (".png" if image["has_alpha"] else ".jpg"))

    def scratch(tool, image, extension):
        return os.path.join(out_dir, tool, os.path.splitext(image["file"])[0] + extension)

    size = str(a.size)
    tools = []
    if a.thumbnailer:
        tools.append(Tool("thumbnailer", "thumbnailer", ("jpeg", "png", "webp") + MODERN_KINDS,
                          lambda im, p: [a.thumbnailer, "thumb", "-s", size, *THUMBNAILER_LIMITS.get(im["kind"], []),
                                         "-o", out("thumbnailer", im), p]))
        # The path the DC-only decoder replaces, on the progressive files: the CPU baseline it must not exceed.
        tools.append(Tool("thumbnailer-skipping", "thumbnailer, scan skipping", ("jpeg",),
                          lambda im, p: [a.thumbnailer, "thumb", "-s", size, "--progressive-path", "skipping-scans",
                                         "-o", out("thumbnailer-skipping", im), p],
                          only=lambda im: "progressive" in im["format"]))
    tools.append(Tool("vips", "vipsthumbnail", ("jpeg", "png", "webp") + MODERN_KINDS,
                      lambda im, p: [a.vipsthumbnail, "-s", size, "-o", out("vips", im) + "[Q=85]", p]))
    tools.append(Tool("pillow", "Pillow draft+thumbnail", pillow_kinds(a.python),
                      lambda im, p: [a.python, a.pillow_script, size, p, out("pillow", im)]))
    if a.plugins_python:
        # The newer formats through a current Pillow with its plugins (bench.sh makes the venv).
        newer = tuple(kind for kind in pillow_kinds(a.plugins_python) if kind in MODERN_KINDS)
        tools.append(Tool("pillow-plugins", "Pillow + plugins draft+thumbnail", newer,
                          lambda im, p: [a.plugins_python, a.pillow_script, size, p, out("pillow-plugins", im)]))
    tools.append(Tool("djpeg", "djpeg -scale 1/8 (floor)", ("jpeg",),
                      lambda im, p: [a.djpeg, "-scale", "1/8", "-outfile", os.devnull, p], makes_output=False))
    tools.append(Tool("libpng", "libpng rows (floor)", ("png",),
                      lambda im, p: [a.png_rows, p], makes_output=False))
    # libwebp's own scaled decode (WebPDecoderConfig.use_scaling) to the thumbnail's size, no output file.
    tools.append(Tool("dwebp", "dwebp -resize (floor)", ("webp",),
                      lambda im, p: [a.dwebp, p, "-resize", *map(str, fitted_size(im, a.size)),
                                     "-pam" if im["has_alpha"] else "-ppm", "-o", os.devnull], makes_output=False))
    # Each newer format's own decoder at full size, one thread: what the issue compares CPU with.
    if a.avifdec:
        tools.append(Tool("avifdec", "avifdec full decode (--info, 1 job)", ("avif",),
                          lambda im, p: [a.avifdec, "--info", "-j", "1", p], makes_output=False))
    if a.heif_convert:
        tools.append(Tool("heif-convert", "heif-convert full decode (to Y4M)", ("heic",),
                          lambda im, p: [a.heif_convert, "--quiet", p, scratch("heif-convert", im, ".y4m")],
                          makes_output=False))
    if a.djxl:
        tools.append(Tool("djxl", "djxl full decode (to PPM, 1 thread)", ("jxl",),
                          lambda im, p: [a.djxl, p, scratch("djxl", im, ".ppm"), "--num_threads=1"],
                          makes_output=False))
    return tools


# ---------------------------------------------------------------- machine facts

def command_output(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mem_total():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[:3]
    except OSError:
        return ["?"] * 3


def software_lines(a):
    lines = []
    if a.thumbnailer:
        lines.append(f"- thumbnailer: `{a.thumbnailer}` ({a.thumbnailer_info})")
    else:
        lines.append(f"- thumbnailer: not measured ({a.thumbnailer_info})")
    swift = command_output(["swift", "--version"]).splitlines()
    lines.append(f"- Swift: {swift[0] if swift else 'not found'}")
    djpeg = command_output([a.djpeg, "-version"]).splitlines()
    lines.append(f"- libjpeg-turbo (djpeg): {djpeg[0] if djpeg else '?'}")
    lines.append(f"- libpng (png_rows, pkg-config): {command_output(['pkg-config', '--modversion', 'libpng']) or '?'}")
    vips = command_output([a.vipsthumbnail, "--vips-version"]) or command_output(["vips", "--version"])
    conc = os.environ.get("VIPS_CONCURRENCY")
    lines.append(f"- libvips (vipsthumbnail): {vips or '?'}"
                 + (f", VIPS_CONCURRENCY={conc}" if conc else ", default thread pool"))
    pil = command_output([a.python, "-c",
                          "import PIL, PIL.features as f; print(PIL.__version__, 'libjpeg', f.version('jpg'),"
                          " 'zlib', f.version('zlib'))"])
    lines.append(f"- Pillow: {pil or '?'} (Python {command_output([a.python, '-c', 'import platform; print(platform.python_version())'])})")
    if a.plugins_python:
        plugins = command_output([a.plugins_python, "-c",
                                  "import importlib.metadata as m; print(', '.join(p + ' ' + m.version(p) for p in "
                                  "('pillow', 'pillow-heif', 'pillow-avif-plugin', 'pillow-jxl-plugin')))"])
        lines.append(f"- Pillow for AVIF, HEIC and JPEG XL: {plugins or '?'} (`{a.plugins_python}`)")
    for name, argv in (("avifdec", [a.avifdec, "--version"]), ("heif-convert", [a.heif_convert, "--help"]),
                       ("djxl", [a.djxl, "--version"])):
        if argv[0]:
            first = command_output(argv).splitlines()
            lines.append(f"- {name}: {' '.join(first[:1]) or '?'}")
    im = command_output([a.magick, "-version"]).splitlines()
    lines.append(f"- ImageMagick (image generation only): {im[0].replace('Version: ', '') if im else '?'}")
    cc = command_output(["cc", "--version"]).splitlines()
    lines.append(f"- cc (png_rows, -O2): {cc[0] if cc else '?'}")
    return lines


# ---------------------------------------------------------------- report helpers

def md_table(header, rows, align=None):
    align = align or ["l"] * len(header)
    sep = ["---:" if x == "r" else "---" for x in align]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def fmt_ratio(x):
    return "—" if x is None else f"{x:.2f}×"


class Aggregate:
    def __init__(self, cpu, wall, rss_kib, rounds):
        self.cpu, self.wall, self.rss_mib, self.rounds = cpu, wall, rss_kib / MIB, rounds


def aggregate(results, keys, rounds):
    """Median over rounds of (sum CPU, sum wall, max RSS) of the samples under keys; None if none complete."""
    per_round = []
    for r in range(rounds):
        samples = [results[k][r] for k in keys]
        if any(s is None or s.code != 0 for s in samples):
            continue
        per_round.append((sum(s.cpu for s in samples), sum(s.wall for s in samples),
                          max(s.rss_kib for s in samples)))
    if not per_round:
        return None
    return Aggregate(statistics.median(x[0] for x in per_round), statistics.median(x[1] for x in per_round),
                     statistics.median(x[2] for x in per_round), len(per_round))


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="Timing driver of scripts/bench.sh")
    ap.add_argument("--images", required=True, help="image directory with manifest.json")
    ap.add_argument("--work", required=True, help="directory for thumbnails and stderr files")
    ap.add_argument("--results", required=True, help="Markdown report to write")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--thumbnailer", default="", help="binary; empty: not measured")
    ap.add_argument("--thumbnailer-info", default="")
    ap.add_argument("--vipsthumbnail", required=True)
    ap.add_argument("--djpeg", required=True)
    ap.add_argument("--python", required=True, help="Python with Pillow, for the Pillow peer")
    ap.add_argument("--pillow-script", required=True)
    ap.add_argument("--png-rows", required=True)
    ap.add_argument("--dwebp", required=True)
    ap.add_argument("--launcher", required=True, help="the rusage_exec binary")
    ap.add_argument("--plugins-python", default="",
                    help="Python with a current Pillow, pillow-heif and pillow-jxl-plugin, for the newer formats")
    ap.add_argument("--avifdec", default="", help="avifdec; empty: not measured")
    ap.add_argument("--heif-convert", default="", help="heif-convert; empty: not measured")
    ap.add_argument("--djxl", default="", help="djxl; empty: not measured")
    ap.add_argument("--magick", default="convert-im6.q16")
    ap.add_argument("--strict", action="store_true", help="exit 3 when a target is missed")
    a = ap.parse_args()

    with open(os.path.join(a.images, "manifest.json")) as f:
        manifest = json.load(f)
    images = manifest["images"]
    by_id = {im["id"]: im for im in images}
    group = lambda g: [im["id"] for im in images if g in im["groups"]]
    jpeg_set, png_set, webp_set = group("jpeg"), group("png"), group("webp")
    big_webp = group("single_webp_big")
    big_jpeg, big_png, prog = group("single_jpeg_big"), group("single_png_big"), group("single_progressive")
    big_prog_420, big_prog_444 = group("single_progressive_big_420"), group("single_progressive_big_444")
    big_avif, big_heic = group("single_avif_big"), group("single_heic_big")
    big_jxl_lossy, big_jxl_jpeg = group("single_jxl_lossy_big"), group("single_jxl_recompressed_big")

    out_dir = os.path.join(a.work, "out")
    shutil.rmtree(out_dir, ignore_errors=True)
    tools = build_tools(a, out_dir)
    for t in tools:
        os.makedirs(os.path.join(out_dir, t.name), exist_ok=True)
    err_path = os.path.join(a.work, "stderr.txt")
    env = dict(os.environ)

    # Units of work: (key, tool, argv). One per tool and image, plus thumbnailer's batch mode and start-up.
    units = []  # list of lists: the tools that take turns on one image
    for im in images:
        path = os.path.join(a.images, im["file"])
        units.append([((t.name, im["id"]), t, t.make_argv(im, path)) for t in tools if t.handles(im)])
    if a.thumbnailer:
        for name, ids in (("jpeg", jpeg_set), ("png", png_set), ("webp", webp_set)):
            d = os.path.join(out_dir, "thumbnailer-batch-" + name)
            os.makedirs(d, exist_ok=True)
            argv = [a.thumbnailer, "thumb", "-s", str(a.size), "-o", d + "/"] + \
                   [os.path.join(a.images, by_id[i]["file"]) for i in ids]
            units.append([(("thumbnailer-batch", name), None, argv)])
        units.append([(("thumbnailer-start", "-"), None, [a.thumbnailer, "thumb", "--help"])])

    results = {key: [None] * a.rounds for unit in units for key, _, _ in unit}
    failures = {}
    true_bin = shutil.which("true") or "/bin/true"
    base = min((run_process(a.launcher, [true_bin], err_path, env) for _ in range(5)), key=lambda x: x.cpu)
    load_start = loadavg()
    total_runs = sum(len(u) for u in units) * (a.rounds + 1)
    print(f"bench: {total_runs} processes ({a.rounds} rounds + warm-up); load average {' '.join(load_start)}",
          file=sys.stderr)
    t_start = time.time()
    for r in range(-1, a.rounds):  # round -1 is the warm-up
        for ui, unit in enumerate(units):
            shift = (max(r, 0) + ui) % len(unit)
            for key, tool, argv in unit[shift:] + unit[:shift]:
                s = run_process(a.launcher, argv, err_path, env)
                if s.code != 0:
                    failures.setdefault(key, f"exit {s.code}: {first_lines(err_path)}")
                if r >= 0:
                    results[key][r] = s
        if r >= 0:
            print(f"bench: round {r + 1}/{a.rounds} done ({time.time() - t_start:.0f} s)", file=sys.stderr)
    load_end = loadavg()

    # Output checks (the last round's files are still there).
    warnings = []
    try:
        from PIL import Image
    except ImportError:
        Image = None
    for t in tools:
        if not t.makes_output:
            continue
        for im in images:
            if not t.handles(im) or (t.name, im["id"]) in failures:
                continue
            stem = os.path.splitext(im["file"])[0]
            p = os.path.join(out_dir, t.name, stem + (".png" if im["has_alpha"] else ".jpg"))
            if not os.path.exists(p) or os.path.getsize(p) == 0:
                warnings.append(f"{t.label} wrote no thumbnail for {im['file']}")
            elif Image is not None:
                with Image.open(p) as th:
                    if max(th.size) != a.size:
                        warnings.append(f"{t.label}: thumbnail of {im['file']} is {th.size[0]}×{th.size[1]}")

    # ---------------------------------------------------------- report
    L = []
    L.append("# Thumbnailer benchmark")
    L.append("")
    L.append(f"{datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')} · "
             f"{a.rounds} rounds (+1 warm-up) · thumbnails fit in {a.size}×{a.size}")
    L.append("")
    L.append("## Machine")
    L.append("")
    u = platform.uname()
    L.append(f"- nproc: {os.cpu_count()} · CPU: {cpu_model()} · memory: {mem_total()}")
    L.append(f"- kernel: {u.system} {u.release} ({u.machine}) · {command_output(['sh', '-c', '. /etc/os-release && echo $PRETTY_NAME']) or ''}")
    L.append(f"- load average: {' '.join(load_start)} at start, {' '.join(load_end)} at end"
             + (" — **other work was running: expect noisy wall times**" if float(load_start[0]) > 0.5 or float(load_end[0]) > 1.5 else ""))
    L += software_lines(a)
    L.append("")
    L.append("## Images")
    L.append("")
    rows = []
    for im in images:
        rows.append([im["id"], im["file"], im["format"], f"{im['width']}×{im['height']}", f"{im['megapixels']:.1f}",
                     f"{im['bytes']:,}", f"{im['bytes'] / 1e6:.2f}"])
    L += md_table(["id", "file", "format", "pixels", "MP", "bytes", "MB"], rows,
                  ["l", "l", "l", "r", "r", "r", "r"])
    L.append("")
    L.append(f"JPEG set: {', '.join(jpeg_set)} · PNG set: {', '.join(png_set)} · WebP set: {', '.join(webp_set)} · "
             f"single files: {', '.join(big_jpeg + big_png + prog + big_prog_420 + big_prog_444 + big_webp)}, "
             f"{', '.join(big_avif + big_heic + big_jxl_lossy + big_jxl_jpeg)}")
    L.append("")
    L.append("Sources (Debian package lomiri-wallpapers-16.04, "
             f"licences from `{manifest['copyright_file']}`), cropped, resampled and re-encoded for this benchmark:")
    L.append("")
    srcs = {}
    for im in images:
        srcs.setdefault(im["source"], [im["copyright"], im["license"], []])[2].append(im["id"])
    for src, (holder, lic, ids) in srcs.items():
        L.append(f"- {src} — © {holder}, {lic} — used for {', '.join(ids)}")
    L.append("")
    L.append("## Method")
    L.append("")
    L.append("One process per tool and file (thumbnailer also once per set with all the set's files: "
             "\"1 process\" rows). CPU = user + sys of the process (all threads), wall = spawn to exit, "
             "RSS = the process's peak resident set (`wait4` `ru_maxrss`, taken by the small C launcher "
             f"`rusage_exec` that forks and execs each command; through it a bare `true` shows {base.rss_kib / MIB:.1f} MiB "
             f"and {base.cpu * 1000:.1f} ms CPU). Per round, a class sums CPU and "
             "wall over its files and takes the largest RSS; the table shows medians over rounds. "
             "Floors: `djpeg -scale 1/8` to /dev/null for JPEG, `png_rows` (libpng `png_read_row`, expand + "
             "scale_16, no output) for PNG, `dwebp -resize W H` (libwebp's scaled decode to the thumbnail's "
             "size) to /dev/null for WebP. Ratios are CPU ÷ the floor's CPU, and CPU ÷ Pillow's CPU, on the "
             "same files. Outputs: JPEG q85, PNG for images with alpha. Pillow runs "
             f"`{a.python}`, so its figures include the interpreter's start-up. For AVIF, HEIC and JPEG XL "
             "the \"floor\" is the format's own decoder decoding the whole picture on one thread (`avifdec "
             "--info -j 1`, `heif-convert` to Y4M, `djxl` to PPM with `--num_threads=1`): not a floor, the "
             "comparison issue 7/7 asks for. thumbnailer runs with the limits those 24 MP files need, "
             "named in its rows: `--max-decoder-memory 64M` for the AVIF, `--max-jxl-decoder-memory 3G` "
             "for the JPEG XL files.")
    L.append("")
    L.append("## Results")
    L.append("")

    dims = lambda ids: "×".join(map(str, (by_id[ids[0]]["width"], by_id[ids[0]]["height"]))) if ids else ""
    classes = [  # name, image ids, floor tool, thumbnailer batch unit
        (f"JPEG set ({len(jpeg_set)} files)", jpeg_set, "djpeg", "jpeg"),
        (f"PNG set ({len(png_set)} files)", png_set, "libpng", "png"),
        (f"JPEG {dims(big_jpeg)} baseline", big_jpeg, "djpeg", None),
        (f"PNG {dims(big_png)}", big_png, "libpng", None),
        (f"JPEG progressive {dims(prog)}", prog, "djpeg", None),
        (f"JPEG progressive {dims(big_prog_420)} 4:2:0", big_prog_420, "djpeg", None),
        (f"JPEG progressive {dims(big_prog_444)} 4:4:4", big_prog_444, "djpeg", None),
        (f"WebP set ({len(webp_set)} files)", webp_set, "dwebp", "webp"),
        (f"WebP {dims(big_webp)} lossy", big_webp, "dwebp", None),
        (f"AVIF {dims(big_avif)} 8-bit 4:2:0", big_avif, "avifdec", None),
        (f"HEIC {dims(big_heic)} iPhone-like, thumbnail item", big_heic, "heif-convert", None),
        (f"JPEG XL {dims(big_jxl_lossy)} lossy", big_jxl_lossy, "djxl", None),
        (f"JPEG XL {dims(big_jxl_jpeg)} recompressed JPEG", big_jxl_jpeg, "djxl", None),
    ]
    table, agg = [], {}
    for cname, ids, floor, batch in classes:
        if not ids:
            continue
        floor_agg = aggregate(results, [(floor, i) for i in ids], a.rounds)
        measured = lambda name: (aggregate(results, [(name, i) for i in ids], a.rounds)
                                 if all((name, i) in results for i in ids) else None)
        pil_agg = measured("pillow") or measured("pillow-plugins")
        entries = []
        for t in tools:
            if t.name in ("djpeg", "libpng", "dwebp", "avifdec", "heif-convert", "djxl") and t.name != floor:
                continue
            if not all(t.handles(by_id[i]) for i in ids):
                continue
            label = t.label
            if t.name == "thumbnailer" and THUMBNAILER_LIMITS.get(by_id[ids[0]]["kind"]):
                label += " " + " ".join(THUMBNAILER_LIMITS[by_id[ids[0]]["kind"]])
            entries.append((label, [(t.name, i) for i in ids], t.name))
            if t.name == "thumbnailer" and batch:
                entries.append(("thumbnailer, 1 process", [("thumbnailer-batch", batch)], "thumbnailer-batch"))
        for label, keys, tname in entries:
            g = aggregate(results, keys, a.rounds)
            agg[(tname, cname)] = g
            if g is None:
                failed = sorted({k[1] for k in keys if k in failures and k[0] != "thumbnailer-batch"})
                table.append([label, cname, "failed" + (": " + ", ".join(failed) if failed else "")
                              + " (see Problems)", "", "", "", ""])
                continue
            table.append([label, cname, f"{g.cpu:.3f}", f"{g.wall:.3f}", f"{g.rss_mib:.1f}",
                          fmt_ratio(g.cpu / floor_agg.cpu if floor_agg else None),
                          fmt_ratio(g.cpu / pil_agg.cpu if pil_agg else None)])
    if a.thumbnailer:
        g = aggregate(results, [("thumbnailer-start", "-")], a.rounds)
        if g:
            table.append(["thumbnailer thumb --help", "process start, no image", f"{g.cpu:.3f}", f"{g.wall:.3f}",
                          f"{g.rss_mib:.1f}", "", ""])
    L += md_table(["tool", "class", "CPU s", "wall s", "peak RSS MiB", "CPU ÷ floor", "CPU ÷ Pillow"], table,
                  ["l", "l", "r", "r", "r", "r", "r"])
    L.append("")

    # ---------------------------------------------------------- targets
    L.append("## Targets")
    L.append("")
    missed = 0

    def target(desc, value, limit, unit, shown):
        nonlocal missed
        if value is None:
            L.append(f"- **SKIP** {desc}: {shown}")
            return
        ok = value <= limit
        missed += not ok
        L.append(f"- **{'PASS' if ok else 'MISS'}** {desc}: {shown} (target ≤ {limit:g}{unit})")

    def ratio_target(desc, cname, num, den, limit):
        n, d = agg.get((num, cname)), agg.get((den, cname))
        if not a.thumbnailer:
            return target(desc, None, limit, "×", "thumbnailer not measured")
        if n is None or d is None:
            return target(desc, None, limit, "×", "a run failed (see Problems)")
        r = n.cpu / d.cpu
        target(desc, r, limit, "×", f"{n.cpu:.3f} s ÷ {d.cpu:.3f} s = {r:.2f}×")

    def rss_target(desc, cname, limit):
        g = agg.get(("thumbnailer", cname))
        if not a.thumbnailer:
            return target(desc, None, limit, " MiB", "thumbnailer not measured")
        if g is None:
            return target(desc, None, limit, " MiB", "a run failed (see Problems)")
        target(desc, g.rss_mib, limit, " MiB", f"{g.rss_mib:.1f} MiB")

    cn = [c[0] for c in classes]
    ratio_target("JPEG set CPU ≤ 1.15× djpeg -scale 1/8", cn[0], "thumbnailer", "djpeg", 1.15)
    ratio_target("PNG set CPU ≤ 1.15× libpng row floor", cn[1], "thumbnailer", "libpng", 1.15)
    rss_target(f"peak RSS, {cn[2]}", cn[2], 20)
    rss_target(f"peak RSS, {cn[3]}", cn[3], 20)
    ratio_target(f"{cn[4]}: CPU ≤ 0.5× Pillow's", cn[4], "thumbnailer", "pillow", 0.5)
    for progressive in cn[4:7]:
        ratio_target(f"{progressive}: CPU ≤ the scan-skipping path's", progressive, "thumbnailer",
                     "thumbnailer-skipping", 1.0)
    rss_target(f"peak RSS, {cn[5]}", cn[5], 20)
    rss_target(f"peak RSS, {cn[6]}", cn[6], 20)
    ratio_target(f"{cn[7]} CPU ≤ 1.15× dwebp's scaled decode", cn[7], "thumbnailer", "dwebp", 1.15)
    rss_target(f"peak RSS, {cn[8]}", cn[8], 20)
    ratio_target(f"{cn[10]}: CPU ≤ 0.1× heif-convert's full decode (from the thumbnail item)", cn[10],
                 "thumbnailer", "heif-convert", 0.1)
    ratio_target(f"{cn[11]}: CPU ≤ 0.2× djxl's full decode (the issue's DC path; libjxl 0.7 has none faster)",
                 cn[11], "thumbnailer", "djxl", 0.2)
    L.append("")

    # ---------------------------------------------------------- per file
    L.append("## Per file (median CPU ms · peak RSS MiB)")
    L.append("")
    names = [t for t in tools]
    rows = []
    for im in images:
        row = [im["id"]]
        for t in names:
            if not t.handles(im):
                row.append("")
                continue
            g = aggregate(results, [(t.name, im["id"])], a.rounds)
            row.append("failed" if g is None else f"{g.cpu * 1000:.0f} · {g.rss_mib:.1f}")
        rows.append(row)
    L += md_table(["file"] + [t.label for t in names], rows, ["l"] + ["r"] * len(names))
    L.append("")

    problems = [f"{k[0]} on {k[1]}: {v}" for k, v in sorted(failures.items())] + warnings
    if problems:
        L.append("## Problems")
        L.append("")
        L += [f"- {p}" for p in problems]
        L.append("")

    raw = {f"{k[0]}/{k[1]}": [None if x is None else dict(cpu=x.cpu, wall=x.wall, rss_kib=x.rss_kib, code=x.code)
                               for x in v] for k, v in results.items()}
    with open(os.path.join(a.work, "samples.json"), "w") as f:
        json.dump(dict(rounds=a.rounds, thumbnailer=a.thumbnailer, samples=raw), f, indent=1)

    text = "\n".join(L)
    print(text)
    with open(a.results, "w") as f:
        f.write(text + "\n")
    print(f"bench: report written to {a.results}", file=sys.stderr)
    if a.strict and missed:
        sys.exit(3)


if __name__ == "__main__":
    main()
