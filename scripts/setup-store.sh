#!/usr/bin/env bash
# Installs what the loopback S3-compatible store (scripts/s3-store.py) needs:
# Debian's python3-swift (OpenStack Swift with s3api) and memcached, without
# their recommendations (no rsyslog, uwsgi or systemd units). apt only; safe to
# run again. Exits 1 when the store still cannot run (its tests then skip).
set -euo pipefail
cd "$(dirname "$0")/.."
if scripts/s3-store.py check >/dev/null 2>&1; then
    exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "setup-store: installing python3-swift memcached with apt-get" >&2
    { $sudo apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-swift memcached >/dev/null; } || true
fi
scripts/s3-store.py check
