#!/usr/bin/env bash
# Sets up a fresh machine and runs the whole test suite: `scripts/test.sh`.
# Extra arguments go to `swift test` (e.g. --filter Conformance).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The browse end-to-end test drives the terminal front end in tmux; it skips without it.
if ! command -v tmux >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq tmux >/dev/null; } \
        || echo "test: tmux could not be installed; the browse end-to-end test will be skipped" >&2
fi
swift build --build-tests
swift test --skip-build "$@"
