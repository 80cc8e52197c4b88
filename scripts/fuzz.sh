#!/usr/bin/env bash
# Fuzzes the C decode module with libFuzzer + AddressSanitizer + UBSan,
# one run per format, seeded from TestImages/ (not part of CI).
#
#   scripts/fuzz.sh [SECONDS_PER_FORMAT] [FORMAT...]     default: 600 s, jpeg png
#
# Corpora grow under .build-fuzz/corpus-FORMAT (git-ignored) and are reused;
# crashes land in .build-fuzz/findings-FORMAT/. Exits 1 if anything was found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(jpeg png)

scripts/setup.sh
work=.build-fuzz
mkdir -p "$work"
clang=$(command -v clang)
harness="$work/fuzz_decode"
# The toolchain's clang ships libFuzzer (and lld); the system codecs are linked as usual.
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
    -I Sources/CThumbnail/include -I Sources/CThumbnail \
    $(pkg-config --cflags libjpeg libpng) \
    Sources/CThumbnail/*.c scripts/fuzz/fuzz_decode.c \
    $(pkg-config --libs libjpeg libpng) -o "$harness"

status=0
for format in "${formats[@]}"; do
    corpus="$work/corpus-$format"
    findings="$work/findings-$format"
    mkdir -p "$corpus" "$findings"
    case "$format" in
        jpeg) pattern='*.jpg' ;;
        png) pattern='*.png' ;;
        *) echo "fuzz: unknown format $format (jpeg or png)" >&2; exit 64 ;;
    esac
    find TestImages -name "$pattern" -size -200k -exec cp -n {} "$corpus/" \;
    echo "fuzz: $format for ${seconds}s, corpus $(ls "$corpus" | wc -l) files" >&2
    log="$work/fuzz-$format.log"
    if ! "$harness" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1; then
        status=1
        echo "fuzz: $format FOUND A PROBLEM, see $log and $findings/" >&2
    fi
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE|^fuzz: JPEG decodes" "$log" | sed "s/^/fuzz: $format: /" >&2 || true
done
exit "$status"
