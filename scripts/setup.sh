#!/usr/bin/env bash
# Installs what building Thumbnailer needs and is missing: pkg-config and the
# libjpeg-turbo, libpng, libwebp, giflib, libavif, libheif, libjxl, LittleCMS 2 (ICC colour), Nettle (for
# SHA-256), libcurl (HTTP), zlib (compressed bodies) and libxml2 (feeds) development files.
# Debian/Ubuntu (apt) or macOS (brew).
# Safe to run again: it installs nothing when everything is there.
set -euo pipefail

have_libraries() {
    command -v pkg-config >/dev/null 2>&1 \
        && pkg-config --exists libjpeg 2>/dev/null \
        && pkg-config --exists libpng 2>/dev/null \
        && pkg-config --exists nettle 2>/dev/null \
        && pkg-config --exists libcurl 2>/dev/null \
        && pkg-config --exists zlib 2>/dev/null \
        && pkg-config --exists libxml-2.0 2>/dev/null \
        && pkg-config --exists libwebpdemux 2>/dev/null \
        && pkg-config --exists lcms2 2>/dev/null \
        && pkg-config --exists libavif 2>/dev/null \
        && pkg-config --exists libheif 2>/dev/null \
        && pkg-config --exists libjxl 2>/dev/null \
        && has_giflib
}

# giflib has no pkg-config file everywhere: ask the compiler for its header.
has_giflib() {
    echo '#include <gif_lib.h>' | cc -E -x c - >/dev/null 2>&1
}

if have_libraries; then
    exit 0
fi

if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "setup: installing pkg-config libjpeg-dev libpng-dev libwebp-dev libgif-dev libavif-dev libheif-dev libjxl-dev liblcms2-dev nettle-dev libcurl4-openssl-dev zlib1g-dev libxml2-dev with apt-get" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq pkg-config libjpeg-dev libpng-dev libwebp-dev libgif-dev libavif-dev libheif-dev libjxl-dev liblcms2-dev nettle-dev libcurl4-openssl-dev zlib1g-dev libxml2-dev >/dev/null
elif command -v brew >/dev/null 2>&1; then
    echo "setup: installing pkg-config jpeg-turbo libpng webp giflib libavif libheif jpeg-xl little-cms2 nettle curl zlib libxml2 with brew" >&2
    brew install pkg-config jpeg-turbo libpng webp giflib libavif libheif jpeg-xl little-cms2 nettle curl zlib libxml2
else
    echo "setup: need pkg-config and the libjpeg (libjpeg-turbo), libpng, libwebp, giflib, libavif, libheif, libjxl, LittleCMS 2, Nettle, libcurl, zlib and libxml2 development files; install them and retry" >&2
    exit 1
fi

have_libraries || { echo "setup: libjpeg/libpng/libwebp/giflib/libavif/libheif/libjxl/lcms2/nettle/libcurl/zlib/libxml2 still not found by pkg-config" >&2; exit 1; }
command -v swift >/dev/null 2>&1 || { echo "setup: swift is not on PATH (need Swift 6)" >&2; exit 1; }
