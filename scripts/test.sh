#!/usr/bin/env bash
# Sets up a fresh machine and runs the whole test suite: `scripts/test.sh`.
# Extra arguments go to `swift test` (e.g. --filter Conformance).
set -euo pipefail
cd "$(dirname "$0")/.."
# The browse end-to-end test drives the terminal front end in tmux and skips
# without it, so a run without tmux would pass without having tested browse:
# install tmux, or stop here.
if ! command -v tmux >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
        echo "test: installing tmux with apt-get" >&2
        { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq tmux >/dev/null; } || true
    elif command -v brew >/dev/null 2>&1; then
        echo "test: installing tmux with brew" >&2
        brew install tmux || true
    fi
    if ! command -v tmux >/dev/null 2>&1; then
        echo "test: tmux is missing and could not be installed; the browse end-to-end test needs it." >&2
        echo "test: install tmux and run this again (plain \`swift test\` runs everything else and skips that test)." >&2
        exit 1
    fi
fi
# Every relative link and anchor in README.md and docs/*.md leads somewhere.
python3 scripts/check-docs-links.py
scripts/setup.sh
# The object-store tests run against a real S3-compatible server on loopback; where it cannot be
# installed they skip, saying why.
scripts/setup-store.sh || echo "test: no loopback S3 store here; the object-store tests will skip" >&2
# The graphics tests: the sixel encoder's output decoded by libsixel's sixel2png, and browse in
# real terminals on Xvfb, driven by xdotool, seen through xwd: xterm (a VT340, with sixel, in the
# 6x13 font of xfonts-base, also inside tmux) and kitty (kitty graphics; it draws with OpenGL, here
# Mesa's software renderer). Where these cannot be installed, those tests skip, saying why.
graphics_tools="sixel2png Xvfb xterm xwd xdotool kitty"
if ! (for tool in $graphics_tools; do command -v "$tool" >/dev/null 2>&1 || exit 1; done) && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    packages="libsixel-bin xvfb xterm x11-apps xdotool xfonts-base kitty libgl1-mesa-dri"
    echo "test: installing $packages with apt-get" >&2
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        $packages >/dev/null; } \
        || echo "test: the graphics tools could not be installed; the sixel, xterm and kitty tests will skip" >&2
fi
# The web list's browser tests drive Debian's Chromium through chromium-driver with python3-selenium
# (Debian's own python3, which has it); where these cannot be installed, those tests skip, saying why.
if ! { [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && /usr/bin/python3 -c 'import selenium' 2>/dev/null; } \
    && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "test: installing chromium chromium-driver python3-selenium with apt-get" >&2
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        chromium chromium-driver python3-selenium >/dev/null; } \
        || echo "test: Chromium could not be installed; the web list's browser tests will skip" >&2
fi
# The fleet tests put Debian's nginx in front of serve replicas; without it they skip, saying why.
if ! [ -x /usr/sbin/nginx ] && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nginx >/dev/null; } \
        || echo "test: nginx could not be installed; the fleet tests will skip" >&2
fi
# The Slurm test runs warm as an array job on a single-node Slurm of its own (scripts/slurm.sh), with
# MariaDB for accounting; without these it skips, saying why. Their services are not started here.
if ! { command -v slurmctld && command -v slurmdbd && command -v mariadbd; } >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        slurm-wlm slurmdbd mariadb-server >/dev/null; } \
        || echo "test: Slurm could not be installed; the Slurm test will skip" >&2
fi
# The file-access test counts the system calls a second warm makes with strace; it skips without it.
if ! command -v strace >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq strace >/dev/null; } \
        || echo "test: strace could not be installed; the warm file-access test will skip" >&2
fi
# The AVIF, HEIC and JPEG XL tests compare thumbnails with each format's own decoder (avifdec,
# heif-convert, djxl); without them those comparisons skip, saying why.
if ! { command -v avifdec && command -v heif-convert && command -v djxl; } >/dev/null 2>&1 \
    && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        libavif-bin libheif-examples libjxl-tools >/dev/null; } \
        || echo "test: the AVIF, HEIC and JPEG XL reference decoders could not be installed; those comparisons will skip" >&2
fi
swift build --build-tests
# The adopter fixture, an app's package that uses the library by path. Built here, before the
# tests, so that AdopterPackageTests, which builds it again, finds it current instead of compiling
# a second copy of the library beside the tests that count concurrency.
swift build --package-path Tests/AdopterPackage --scratch-path .build/adopter
# The command where shells look for it: scripts/install.sh puts this debug build, its man page and
# its completions into a scratch prefix, which CommandInstallationTests checks.
export THUMBNAILER_INSTALLED_PREFIX
THUMBNAILER_INSTALLED_PREFIX=$(mktemp -d)
scripts/install.sh --configuration debug --prefix "$THUMBNAILER_INSTALLED_PREFIX"
# The documentation: every public symbol of the library products has a doc comment, and their DocC
# catalogs build with warnings as errors (together, so that links between the modules resolve).
sdk=$(xcrun --show-sdk-path 2>/dev/null || true)
CPATH="$sdk/usr/include/libxml2${CPATH:+:$CPATH}" swift package dump-symbol-graph --minimum-access-level public >/dev/null
python3 scripts/check-doc-coverage.py
swift package generate-documentation --enable-experimental-combined-documentation \
    --target ThumbnailKit --target ThumbnailHTTP --target ThumbnailServer --warnings-as-errors
if [ $# -gt 0 ]; then
    exec swift test --skip-build "$@"
fi
# Three runs, so that on a 2-core machine no test waits on a pool and cores that others hold: the
# in-process suites; then the end-to-end suites, whose child processes take whole cores (beside the
# in-process suites, these pushed waits in the coalescing, HTTP-server and warming tests past their
# 60 s bounds in CI); then, apart, the two tests that parse feeds of millions of items, each keeping
# a core busy for a minute or more: warm of a 32 MB feed of 4.4 M items (beside it, the
# killed-shard test passed its 120 s limit) and browse of 400,000 items (beside it, the kitty-in-tmux
# test never saw its first thumbnail drawn).
# Last, also apart, serve against hostile clients: its 1,000 connections and floods of bytes load
# both cores, and the server's peak memory, which it bounds, grows with how far behind it falls.
# Then the web list in Chromium, whose software rendering takes a core while it samples every
# frame of its scrolling; then the engines: the fleet (nginx, three replicas, a thousand requests
# at once) and Slurm (MariaDB, four daemons, an array job), each a machine's worth of processes.
alone='FeedSizeLimitTests/aFeedOfMillionsOfTinyItemsIsShardedInBoundedMemory|BrowseMemoryTests/aFeedOfManyTinyItemsBrowsesToItsLastRowInBoundedMemory'
hostile='ServeHostileClientTests'
browser='WebListBrowserTests'
engines='FleetTests|WarmShardStoreTests/aSlurmArrayJob'
swift test --skip-build --skip ThumbnailerCLITests
swift test --skip-build --filter ThumbnailerCLITests --skip "$alone|$hostile|$browser|$engines"
swift test --skip-build --filter "$alone"
swift test --skip-build --filter "$hostile"
swift test --skip-build --filter "$browser"
swift test --skip-build --filter "$engines"
# Last, the README's first command as a user runs it: the demo (a release build, then warm twice;
# it fails when the second run downloads anything). ReadmeCommandsTests checks that it is here.
scripts/demo.sh "$(mktemp -d)/demo-cache"
