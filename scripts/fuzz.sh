#!/usr/bin/env bash
# Fuzzes the C decode module with libFuzzer + AddressSanitizer + UBSan,
# one run per format, seeded from TestImages/ and, for WebP and GIF, from the
# shared formats corpus when it is beside the checkout (not part of CI).
#
#   scripts/fuzz.sh [SECONDS_PER_FORMAT] [FORMAT...]     default: 600 s, jpeg png webp gif
#
# FUZZ_JOBS=N (default 1) runs N fuzzers per format side by side, each on a
# corpus of its own (seeded from the shared one, merged back at the end), and
# adds up their executions: one per core. FUZZ_MAX_LEN=BYTES caps the size of
# the inputs the fuzzer makes (libFuzzer's -max_len; default: its own choice).
#
# Corpora grow under .build-fuzz/corpus-FORMAT (git-ignored) and are reused;
# crashes land in .build-fuzz/findings-FORMAT/. Exits 1 if anything was found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
jobs="${FUZZ_JOBS:-1}"
max_len="${FUZZ_MAX_LEN:-}"
shift || true
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(jpeg png webp gif)

scripts/setup.sh
work=.build-fuzz
mkdir -p "$work"
clang=$(command -v clang)
harness="$work/fuzz_decode"
# The toolchain's clang ships libFuzzer (and lld); the system codecs are linked as usual.
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
    -I Sources/CThumbnail/include -I Sources/CThumbnail \
    $(pkg-config --cflags libjpeg libpng libwebpdemux lcms2) \
    Sources/CThumbnail/*.c scripts/fuzz/fuzz_decode.c \
    $(pkg-config --libs libjpeg libpng libwebpdemux lcms2) -lgif -o "$harness"

status=0
for format in "${formats[@]}"; do
    corpus="$work/corpus-$format"
    findings="$work/findings-$format"
    mkdir -p "$corpus" "$findings"
    case "$format" in
        jpeg) pattern='*.jpg' ;;
        png) pattern='*.png' ;;
        webp) pattern='*.webp' ;;
        gif) pattern='*.gif' ;;
        *) echo "fuzz: unknown format $format (jpeg, png, webp or gif)" >&2; exit 64 ;;
    esac
    find TestImages -name "$pattern" -size -200k -exec cp -n {} "$corpus/" \;
    if [ -d ../shared/corpora/formats/"$format" ]; then
        find ../shared/corpora/formats/"$format" -name "$pattern" -size -200k -exec cp -n {} "$corpus/" \;
    fi
    echo "fuzz: $format for ${seconds}s x $jobs job(s), corpus $(ls "$corpus" | wc -l) files" >&2
    rm -f "$work"/fuzz-"$format"-*.log
    pids=() total=0
    for job in $(seq "$jobs"); do
        mkdir -p "$corpus-$job"
        cp -n "$corpus"/* "$corpus-$job/"
        "$harness" "$corpus-$job" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 ${max_len:+-max_len="$max_len"} \
            -artifact_prefix="$findings/" -print_final_stats=1 >"$work/fuzz-$format-$job.log" 2>&1 &
        pids+=("$!")
    done
    for job in $(seq "$jobs"); do
        log="$work/fuzz-$format-$job.log"
        if ! wait "${pids[$((job - 1))]}"; then
            status=1
            echo "fuzz: $format FOUND A PROBLEM, see $log and $findings/" >&2
        fi
        grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE|^fuzz: JPEG decodes|^fuzz: decodes" "$log" \
            | sed "s/^/fuzz: $format job $job: /" >&2 || true
        executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        total=$((total + ${executions:-0}))
        cp -n "$corpus-$job"/* "$corpus/"
        rm -rf "$corpus-$job"
    done
    echo "fuzz: $format: $total executions in all" >&2
done
exit "$status"
