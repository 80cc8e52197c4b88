#!/usr/bin/env bash
# Benchmark (not a test): throughput of ThumbnailKit's MemoryCache and DiskCache.
#
#   scripts/bench-caches.sh [--quick] [--help]
#
# What it does:
#   1. builds the cache-benchmark tool in release into .build-bench (its own scratch
#      path, so it never disturbs a debug build in .build);
#   2. runs it with the arguments given here, which prints a Markdown report on stdout
#      (machine, build, a MemoryCache table for 1 and 2 threads, a DiskCache table of
#      20 KB and 2 MB writes with and without fsync, warm reads and evicting writes)
#      and its progress on stderr.
#
# The disk entries go to a new directory under $TMPDIR (or /tmp), removed at the end;
# TMPDIR=/dev/shm measures the cache without the device. The tool exits 1 when a
# cache operation fails or a cache misbehaves, 64 on a usage error.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRATCH="$REPO/.build-bench"

die() { echo "bench-caches: error: $*" >&2; exit 1; }
say() { echo "bench-caches: $*" >&2; }

main() {
    command -v swift >/dev/null 2>&1 || die "swift is not on PATH"
    say "building cache-benchmark (release, --scratch-path .build-bench)"
    (cd "$REPO" && swift build -c release --product cache-benchmark --scratch-path "$SCRATCH") >&2 \
        || die "the release build failed"
    "$SCRATCH/release/cache-benchmark" "$@"
}

main "$@"
