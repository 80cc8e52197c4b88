#!/usr/bin/env bash
# Sets up a fresh machine and runs the whole test suite: `scripts/test.sh`.
# Extra arguments go to `swift test` (e.g. --filter Conformance).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build "$@"
