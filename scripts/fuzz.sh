#!/usr/bin/env bash
# Fuzzes the code that reads hostile bytes with libFuzzer + AddressSanitizer, one run per target:
#
#   C decode module (+ UBSan), seeded from TestImages/ and, for WebP and GIF, from the shared
#   formats corpus when it is beside the checkout (not part of CI):
#     jpeg png webp gif avif heic jxl
#   Swift parsers, each harness compiled with swiftc together with the sources it fuzzes (no
#   SwiftPM target, so CI builds nothing more), seeded from scripts/fuzz/seeds/TARGET:
#     json  JSONReader, then JSON Feed and plain JSON through FeedParser
#     xml   RSS and Atom through FeedParser and libxml2's SAX parser (loaded as in production)
#     s3    the S3 XML documents (<Error>, ListObjectsV2)
#     keys  KeyDecoder, whole and in pieces
#     text  TerminalText's escaping
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 600 s, every target above
#   scripts/fuzz.sh --replay
#
# --replay builds the C harness as for fuzzing and runs it once over every input a fuzzer found a
# defect with (scripts/fuzz/regressions/, kept after the fix), the test images and, when it is
# beside the checkout, the shared corpora; exits 1 at the first report (SanitizedDecoderTests).
#
# FUZZ_JOBS=N (default 1) runs N fuzzers per target side by side, each on a
# corpus of its own (seeded from the shared one, merged back at the end), and
# adds up their executions: one per core. FUZZ_MAX_LEN=BYTES caps the size of
# the inputs the fuzzer makes (libFuzzer's -max_len; default: its own choice).
# FUZZ_RUNS=N stops each fuzzer after N executions (libFuzzer's -runs) if the
# time is not up first.
#
# Corpora grow under .build-fuzz/corpus-TARGET (git-ignored) and are reused;
# crashes land in .build-fuzz/findings-TARGET/. Exits 1 if anything was found.
set -euo pipefail
cd "$(dirname "$0")/.."
replay=""
if [ "${1:-}" = --replay ]; then replay=1; shift; fi
seconds="${1:-600}"
jobs="${FUZZ_JOBS:-1}"
max_len="${FUZZ_MAX_LEN:-}"
runs="${FUZZ_RUNS:-}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jpeg png webp gif avif heic jxl json xml s3 keys text)

scripts/setup.sh
work=.build-fuzz
mkdir -p "$work"
clang=$(command -v clang)

# The C harness: the toolchain's clang ships libFuzzer (and lld); the system codecs are linked as usual,
# but for libavif, libheif and libjxl, opened at run time as in production (none is instrumented).
build_c_harness() {
    local output="$1"
    "$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld \
        -I Sources/CThumbnail/include -I Sources/CThumbnail -I Sources/CLazyLibrary/include \
        $(pkg-config --cflags libjpeg libpng libwebpdemux libavif libheif libjxl lcms2) \
        Sources/CThumbnail/*.c Sources/CLazyLibrary/lazy_library.c scripts/fuzz/fuzz_decode.c \
        $(pkg-config --libs libjpeg libpng libwebpdemux lcms2) -lgif -o "$output"
}

if [ "$replay" ]; then
    # Its own build, so that a replay never replaces the harness of a fuzzer running meanwhile.
    mkdir -p "$work/replay"
    build_c_harness "$work/replay/fuzz_decode"
    shopt -s nullglob
    regressions=(scripts/fuzz/regressions/*)
    shopt -u nullglob
    inputs=()
    for root in TestImages ../shared/corpora; do
        [ -d "$root" ] || continue
        mapfile -t -O "${#inputs[@]}" inputs < <(find "$root" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \
            -o -iname '*.webp' -o -iname '*.gif' -o -iname '*.avif' -o -iname '*.heic' -o -iname '*.heif' -o -iname '*.jxl' \) | sort)
    done
    echo "fuzz: replaying ${#regressions[@]} regression inputs and ${#inputs[@]} images" >&2
    "$work/replay/fuzz_decode" "${regressions[@]}" "${inputs[@]}" >"$work/replay/replay.log" 2>&1 \
        || { grep -v '^Running: \|^Executed ' "$work/replay/replay.log" | tail -40 >&2; exit 1; }
    grep -c '^Executed ' "$work/replay/replay.log" | sed 's/^/fuzz: replayed without a report: /' >&2
    exit 0
fi

# ThumbnailFeeds' C dependencies, instrumented too, with the module maps SwiftPM would generate for
# them; libxml2 and libcurl themselves are opened at run time, as in production, and not instrumented.
build_feeds_dependencies() {
    local modules="$work/swift-modules" target
    mkdir -p "$modules"
    for target in CLazyLibrary CLazyLibXML2 CLazyCurl; do
        mkdir -p "$modules/$target"
        printf 'module %s {\n    umbrella "%s"\n    export *\n}\n' "$target" "$PWD/Sources/$target/include" \
            >"$modules/$target/module.modulemap"
        "$clang" -g -O1 -fsanitize=fuzzer-no-link,address -c -I Sources/CLazyLibrary/include \
            -I "Sources/$target/include" -I/usr/include/libxml2 "Sources/$target"/*.c -o "$work/$target.o"
    done
}

# A Swift harness: scripts/fuzz/Fuzz*.swift compiled in one module with the sources it fuzzes.
build_swift_harness() {
    local target="$1" harness sources=() flags=() inputs=()
    case "$target" in
        json | xml)
            harness=FuzzXMLFeed
            [ "$target" = xml ] || harness=FuzzJSONFeed
            mapfile -t sources < <(find Sources/ThumbnailFeeds -name '*.swift' | sort)
            sources+=(scripts/fuzz/FeedFuzzing.swift)
            inputs=(Sources/CLazyLibrary Sources/CLazyLibXML2 Sources/CLazyCurl)
            flags=(-I "$work/swift-modules" -I Sources/CLibXML2 -I Sources/CCurl -Xcc -I/usr/include/libxml2
                "$work/CLazyLibrary.o" "$work/CLazyLibXML2.o" "$work/CLazyCurl.o")
            ;;
        s3)
            harness=FuzzS3Documents
            sources=(Sources/ThumbnailHTTP/S3/S3Documents.swift Sources/ThumbnailHTTP/S3/S3Error.swift)
            ;;
        keys)
            harness=FuzzKeyDecoder
            sources=(Sources/ThumbnailTerminal/Input/KeyDecoder.swift Sources/ThumbnailTerminal/Input/Key.swift)
            ;;
        text)
            harness=FuzzTerminalText
            sources=(Sources/ThumbnailTerminal/Screen/TerminalText.swift)
            ;;
    esac
    # Reused while nothing it is built from changed: a build takes minutes on a busy machine.
    local output="$work/fuzz-$target"
    if [ -x "$output" ] && [ -z "$(find "${sources[@]}" "${inputs[@]}" "scripts/fuzz/$harness.swift" scripts/fuzz.sh \
        -newer "$output")" ]; then
        return
    fi
    if [ ${#inputs[@]} -gt 0 ]; then build_feeds_dependencies; fi
    # -package-name: the sources use `package` access, as in the package they come from.
    swiftc -swift-version 6 -parse-as-library -O -g -sanitize=fuzzer,address -use-ld=lld -module-name "$harness" \
        -package-name thumbnailer "${sources[@]}" "scripts/fuzz/$harness.swift" "${flags[@]}" -o "$output"
}

for target in "${targets[@]}"; do
    case "$target" in
        jpeg | png | webp | gif | avif | heic | jxl | json | xml | s3 | keys | text) ;;
        *) echo "fuzz: unknown target $target (jpeg, png, webp, gif, avif, heic, jxl, json, xml, s3, keys or text)" >&2
           exit 64 ;;
    esac
done

status=0
for target in "${targets[@]}"; do
    corpus="$work/corpus-$target"
    findings="$work/findings-$target"
    mkdir -p "$corpus" "$findings"
    options=()
    case "$target" in
        jpeg | png | webp | gif | avif | heic | jxl)
            [ "${c_harness_built:-}" ] || { build_c_harness "$work/fuzz_decode"; c_harness_built=1; }
            harness="$work/fuzz_decode"
            case "$target" in
                jpeg) pattern='*.jpg' ;;
                png) pattern='*.png' ;;
                webp) pattern='*.webp' ;;
                gif) pattern='*.gif' ;;
                avif) pattern='*.avif' ;;
                heic) pattern='*.heic' ;;
                jxl) pattern='*.jxl' ;;
            esac
            find TestImages -name "$pattern" -size -200k -exec cp -n {} "$corpus/" \;
            if [ -d ../shared/corpora/formats/"$target" ]; then
                find ../shared/corpora/formats/"$target" -name "$pattern" -size -200k -exec cp -n {} "$corpus/" \;
            fi
            ;;
        *)
            build_swift_harness "$target"
            harness="$work/fuzz-$target"
            cp -n scripts/fuzz/seeds/"$target"/* "$corpus/"
            if [ -f "scripts/fuzz/$target.dict" ]; then options+=(-dict="scripts/fuzz/$target.dict"); fi
            ;;
    esac
    echo "fuzz: $target for ${seconds}s x $jobs job(s), corpus $(ls "$corpus" | wc -l) files" >&2
    rm -f "$work"/fuzz-"$target"-*.log
    pids=() total=0 started=$SECONDS
    for job in $(seq "$jobs"); do
        mkdir -p "$corpus-$job"
        cp -n "$corpus"/* "$corpus-$job/"
        "$harness" "$corpus-$job" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 ${max_len:+-max_len="$max_len"} \
            ${runs:+-runs="$runs"} "${options[@]}" \
            -artifact_prefix="$findings/" -print_final_stats=1 >"$work/fuzz-$target-$job.log" 2>&1 &
        pids+=("$!")
    done
    for job in $(seq "$jobs"); do
        log="$work/fuzz-$target-$job.log"
        if ! wait "${pids[$((job - 1))]}"; then
            status=1
            echo "fuzz: $target FOUND A PROBLEM, see $log and $findings/" >&2
        fi
        grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE|^fuzz: JPEG decodes|^fuzz: decodes" "$log" \
            | sed "s/^/fuzz: $target job $job: /" >&2 || true
        executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        total=$((total + ${executions:-0}))
        cp -n "$corpus-$job"/* "$corpus/"
        rm -rf "$corpus-$job"
    done
    echo "fuzz: $target: $total executions in all, $((SECONDS - started)) s, corpus $(ls "$corpus" | wc -l) files" >&2
done
exit "$status"
