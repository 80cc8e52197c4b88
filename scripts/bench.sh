#!/usr/bin/env bash
# Benchmark (not a test): `thumbnailer thumb -s 256` against its peers, whole
# processes, CPU / wall / peak RSS, on JPEGs, PNGs, WebPs, AVIF, HEIC and JPEG XL made from real photos.
#
#   scripts/bench.sh [--quick | --rounds N] [--bench-dir DIR] [--thumbnailer BIN | --no-thumbnailer]
#
# What it does:
#   1. installs the peers when missing (Debian/Ubuntu, apt-get, sudo when not root):
#      libvips-tools python3-pil libjpeg-turbo-progs webp imagemagick, the AVIF, HEIC and
#      JPEG XL tools (libavif-bin libheif-examples libjxl-tools), plus the source photos
#      (lomiri-wallpapers-16.04) and what png_rows needs (cc, libpng-dev); and a venv in
#      $BENCH_DIR/venv with a current Pillow, pillow-heif, pillow-avif-plugin and
#      pillow-jxl-plugin from PyPI, the Pillow peer for the newer formats;
#   2. makes (once; cached in $BENCH_DIR/images) 6 JPEGs and 6 PNGs of 1-3 MB, 4 WebPs,
#      and single large files (24 MP JPEGs, a 12 MP PNG, a 24 MP WebP, a 24 MP AVIF, an
#      iPhone-like 24 MP HEIC with its thumbnail item, 24 MP JPEG XL lossy and recompressed
#      from a JPEG) from the CC0/CC-BY photos (scripts/bench/make_images.py);
#   3. builds the C helpers (scripts/bench/png_rows.c, the libpng row-by-row floor;
#      rusage_exec.c, which runs each process and reports its CPU, wall and peak RSS)
#      and the release thumbnailer into .build-bench (skipped, with a message, when
#      it can't be built);
#   4. times thumbnailer, vipsthumbnail, Pillow, djpeg -scale 1/8, png_rows, dwebp -resize and
#      the newer formats' own decoders at full size (avifdec, heif-convert, djxl), one
#      process per file, tools alternating, several rounds (scripts/bench/run_bench.py),
#      and prints a Markdown report (machine, images, table, targets PASS/MISS) that
#      is also written to $BENCH_DIR/results.md.
#
# Environment: BENCH_DIR (default /tmp/thumbnailer-bench), BENCH_PYTHON (a Python
# with Pillow; default /usr/bin/python3), IMAGEMAGICK (convert binary of ImageMagick 6).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HELPERS="$REPO/scripts/bench"
BENCH_DIR="${BENCH_DIR:-/tmp/thumbnailer-bench}"
PYTHON="${BENCH_PYTHON:-/usr/bin/python3}"
ROUNDS=5
SIZE=256
THUMBNAILER=""          # explicit binary (--thumbnailer)
USE_THUMBNAILER=1
BUILD=1
REGEN=0
STRICT=0
APT_PACKAGES=(libvips-tools python3-pil libjpeg-turbo-progs webp imagemagick lomiri-wallpapers-16.04 libpng-dev gcc libc6-dev pkg-config
    libavif-bin libheif-examples libjxl-tools python3-venv)
# The Pillow that opens AVIF, HEIC and JPEG XL (Debian's cannot): a venv in $BENCH_DIR, from PyPI.
PLUGINS_PACKAGES=(pillow pillow-heif pillow-avif-plugin pillow-jxl-plugin)

usage() {
    cat <<EOF
Usage: scripts/bench.sh [options]

Times 'thumbnailer thumb -s $SIZE' against vipsthumbnail, Pillow, djpeg -scale 1/8 (JPEG
floor), a libpng row decoder (PNG floor) and dwebp -resize (WebP floor), one process per
image, and prints a
Markdown report (also written to \$BENCH_DIR/results.md).

Options:
  --rounds N          timed rounds (default $ROUNDS), after one untimed warm-up round
  --quick             2 rounds
  --bench-dir DIR     work directory: images, helpers, outputs, report
                      (default \$BENCH_DIR or /tmp/thumbnailer-bench)
  --thumbnailer BIN   time this thumbnailer binary instead of building one
  --no-build          use .build-bench/release/thumbnailer as it is, don't run swift build
  --no-thumbnailer    time the peers only
  --regen             remake the images even when cached
  --strict            exit 3 when a target is missed (default: report only)
  -h, --help          this text

The release build is 'swift build -c release --static-swift-stdlib --product thumbnailer --scratch-path .build-bench'
in $REPO; a failed build stops the benchmark.
EOF
}

die() { echo "bench: error: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

parse_args() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --rounds)
                [ $# -ge 2 ] || die "--rounds needs a number"
                [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--rounds needs a positive integer, not '$2'"
                ROUNDS="$2"; shift ;;
            --rounds=*) ROUNDS="${1#*=}"; [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "bad --rounds" ;;
            --quick) ROUNDS=2 ;;
            --bench-dir) [ $# -ge 2 ] || die "--bench-dir needs a directory"; BENCH_DIR="$2"; shift ;;
            --bench-dir=*) BENCH_DIR="${1#*=}" ;;
            --thumbnailer) [ $# -ge 2 ] || die "--thumbnailer needs a path"; THUMBNAILER="$2"; shift ;;
            --thumbnailer=*) THUMBNAILER="${1#*=}" ;;
            --no-build) BUILD=0 ;;
            --no-thumbnailer) USE_THUMBNAILER=0 ;;
            --regen) REGEN=1 ;;
            --strict) STRICT=1 ;;
            -h|--help) usage; exit 0 ;;
            *) usage >&2; die "unknown argument '$1'" ;;
        esac
        shift
    done
    mkdir -p "$BENCH_DIR" || die "cannot create $BENCH_DIR"
    BENCH_DIR="$(cd "$BENCH_DIR" && pwd)"
}

# ImageMagick 6's convert under a name that is really ImageMagick (on some machines
# 'convert' on PATH is something else).
find_imagemagick() {
    local c
    for c in "${IMAGEMAGICK:-}" convert-im6.q16 convert-im6 magick convert; do
        [ -n "$c" ] || continue
        if command -v "$c" >/dev/null 2>&1 && "$c" -version 2>/dev/null | grep -q ImageMagick; then
            command -v "$c"; return 0
        fi
    done
    return 1
}

# Prints what the benchmark needs and cannot find, one item a line (nothing when all is there).
missing_peers() {
    command -v vipsthumbnail >/dev/null 2>&1 || echo "vipsthumbnail (libvips-tools)"
    command -v djpeg >/dev/null 2>&1 || echo "djpeg (libjpeg-turbo-progs)"
    command -v dwebp >/dev/null 2>&1 || echo "dwebp (webp)"
    command -v avifenc >/dev/null 2>&1 || echo "avifenc, avifdec (libavif-bin)"
    command -v heif-convert >/dev/null 2>&1 || echo "heif-enc, heif-convert (libheif-examples)"
    command -v cjxl >/dev/null 2>&1 || echo "cjxl, djxl (libjxl-tools)"
    /usr/bin/python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || echo "python3 -m venv (python3-venv)"
    { [ -x "$PYTHON" ] && "$PYTHON" -c 'import PIL' >/dev/null 2>&1; } || echo "$PYTHON with PIL (python3-pil)"
    find_imagemagick >/dev/null || echo "ImageMagick convert (imagemagick)"
    command -v cc >/dev/null 2>&1 || echo "cc (gcc)"
    { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libpng; } || echo "libpng via pkg-config (libpng-dev, pkg-config)"
    { [ -f /usr/share/backgrounds/seeding_by_Clements_Engelhardt.jpg ] \
        && [ -f /usr/share/doc/lomiri-wallpapers-16.04/copyright ]; } || echo "source photos (lomiri-wallpapers-16.04)"
}

install_peers() {
    local missing
    missing="$(missing_peers)"
    [ -n "$missing" ] || return 0
    say "missing: $(echo "$missing" | paste -sd ';' | sed 's/;/; /g')"
    command -v apt-get >/dev/null 2>&1 \
        || die "no apt-get: install ${APT_PACKAGES[*]} (or equivalents) by hand"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "not root and no sudo: install ${APT_PACKAGES[*]}"
        sudo="sudo"
    fi
    say "installing ${APT_PACKAGES[*]} with apt-get"
    $sudo apt-get update -qq || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${APT_PACKAGES[@]}" >/dev/null \
        || die "apt-get install failed"
    missing="$(missing_peers)"
    [ -z "$missing" ] || die "still missing after apt-get install: $(echo "$missing" | paste -sd ';' | sed 's/;/; /g')"
}

# Compiles the C helpers into $BENCH_DIR/bin when missing or older than their source:
# png_rows (the libpng floor) and rusage_exec (the launcher that measures each process).
build_helpers() {
    mkdir -p "$BENCH_DIR/bin"
    PNG_ROWS="$BENCH_DIR/bin/png_rows"
    LAUNCHER="$BENCH_DIR/bin/rusage_exec"
    if [ ! -x "$PNG_ROWS" ] || [ "$HELPERS/png_rows.c" -nt "$PNG_ROWS" ]; then
        say "compiling png_rows (libpng floor)"
        # shellcheck disable=SC2046
        cc -O2 -o "$PNG_ROWS" "$HELPERS/png_rows.c" $(pkg-config --cflags --libs libpng) \
            || die "cannot compile $HELPERS/png_rows.c"
    fi
    if [ ! -x "$LAUNCHER" ] || [ "$HELPERS/rusage_exec.c" -nt "$LAUNCHER" ]; then
        say "compiling rusage_exec (process launcher)"
        # Static when libc.a is there: the smallest launcher adds the least to a child's RSS.
        cc -O2 -static -o "$LAUNCHER" "$HELPERS/rusage_exec.c" 2>/dev/null \
            || cc -O2 -o "$LAUNCHER" "$HELPERS/rusage_exec.c" \
            || die "cannot compile $HELPERS/rusage_exec.c"
    fi
}

make_images() {
    local args=("$BENCH_DIR/images" --magick "$MAGICK")
    if [ "$REGEN" -eq 1 ]; then args+=(--force); fi
    "$PYTHON" "$HELPERS/make_images.py" "${args[@]}" || die "image generation failed"
}

# Sets THUMBNAILER (empty when it can't be had) and THUMBNAILER_INFO.
prepare_thumbnailer() {
    THUMBNAILER_INFO=""
    if [ "$USE_THUMBNAILER" -eq 0 ]; then
        THUMBNAILER=""; THUMBNAILER_INFO="disabled with --no-thumbnailer"; return 0
    fi
    if [ -n "$THUMBNAILER" ]; then
        [ -x "$THUMBNAILER" ] || die "--thumbnailer $THUMBNAILER is not an executable file"
        THUMBNAILER="$(cd "$(dirname "$THUMBNAILER")" && pwd)/$(basename "$THUMBNAILER")"
        THUMBNAILER_INFO="given with --thumbnailer"
        return 0
    fi
    local bin="$REPO/.build-bench/release/thumbnailer"
    local log="$BENCH_DIR/swift-build.log"
    if [ "$BUILD" -eq 1 ]; then
        command -v swift >/dev/null 2>&1 || die "swift is not on PATH (use --no-thumbnailer to time the peers only)"
        say "building thumbnailer (release, static Swift runtime, --scratch-path .build-bench; log: $log)"
        if ! (cd "$REPO" && swift build -c release --static-swift-stdlib --product thumbnailer --scratch-path .build-bench) >"$log" 2>&1; then
            grep -E 'error:' "$log" | head -n 10 >&2 || true
            die "the release build failed; see $log"
        fi
    fi
    [ -x "$bin" ] || die "$bin does not exist (run without --no-build)"
    THUMBNAILER="$bin"
    local head dirty
    head="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo "no commit")"
    dirty="$(git -C "$REPO" status --porcelain -- Sources Package.swift 2>/dev/null | wc -l | tr -d ' ')"
    THUMBNAILER_INFO="release build of $head, $dirty uncommitted paths under Sources/ and Package.swift, binary from $(date -r "$bin" '+%Y-%m-%d %H:%M')"
}

run_benchmark() {
    local args=(
        --images "$BENCH_DIR/images" --work "$BENCH_DIR" --results "$BENCH_DIR/results.md"
        --rounds "$ROUNDS" --size "$SIZE"
        "--thumbnailer=$THUMBNAILER" "--thumbnailer-info=$THUMBNAILER_INFO"
        --vipsthumbnail "$(command -v vipsthumbnail)" --djpeg "$(command -v djpeg)" --dwebp "$(command -v dwebp)"
        --python "$PYTHON" --pillow-script "$HELPERS/pillow_thumb.py"
        --png-rows "$PNG_ROWS" --launcher "$LAUNCHER" --magick "$MAGICK"
        "--avifdec=$(command -v avifdec || true)" "--heif-convert=$(command -v heif-convert || true)"
        "--djxl=$(command -v djxl || true)" "--plugins-python=$PLUGINS_PYTHON"
    )
    if [ "$STRICT" -eq 1 ]; then args+=(--strict); fi
    "$PYTHON" "$HELPERS/run_bench.py" "${args[@]}"
}

# Sets PLUGINS_PYTHON: the venv's Python with PLUGINS_PACKAGES, made once (empty, with a message,
# when PyPI cannot be reached: the newer formats are then measured without Pillow).
prepare_plugins_python() {
    local venv="$BENCH_DIR/venv"
    PLUGINS_PYTHON="$venv/bin/python"
    if "$PLUGINS_PYTHON" -c 'import PIL, pillow_heif, pillow_jxl' >/dev/null 2>&1; then return 0; fi
    say "making $venv with ${PLUGINS_PACKAGES[*]}"
    if ! { /usr/bin/python3 -m venv "$venv" && "$venv/bin/pip" install -q "${PLUGINS_PACKAGES[@]}"; } >&2; then
        say "could not install ${PLUGINS_PACKAGES[*]}: AVIF, HEIC and JPEG XL are measured without Pillow"
        PLUGINS_PYTHON=""
    fi
}

main() {
    parse_args "$@"
    install_peers
    prepare_plugins_python
    MAGICK="$(find_imagemagick)" || die "ImageMagick not found (apt-get install imagemagick)"
    build_helpers
    make_images
    prepare_thumbnailer
    run_benchmark
}

main "$@"
