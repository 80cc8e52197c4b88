#!/usr/bin/env bash
# A thumbnail fleet on one machine, for trying it: the loopback S3-compatible store
# (scripts/s3-store.py), N `thumbnailer serve` replicas sharing it, each with its own disk cache,
# and nginx in front (scripts/fleet/nginx.conf: a consistent hash on the source, the next replica
# on failure, a cache playing the CDN). Everything on 127.0.0.1, kept in one directory.
#
#   scripts/fleet.sh start [DIR] [REPLICAS]   start (default .fleet, 3 replicas); prints the URL
#   scripts/fleet.sh stop [DIR]               stop all of it; DIR keeps the store and the caches
#
# Replicas listen on 127.0.0.1:18081…, nginx on 127.0.0.1:18080 (FLEET_PORT to change). URLs are
# unsigned (--insecure-unsigned) and sources may be private addresses: this is for trying it on
# loopback, never for a network. For a real fleet, see docs/scaling-out.md ("Serving as a fleet").
# Needs nginx and what scripts/setup-store.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
command=${1:-}
dir=$(realpath -m "${2:-.fleet}")
replicas=${3:-3}
base=${FLEET_PORT:-18080}

stop() {
    if [ -f "$dir/nginx/nginx.pid" ]; then kill "$(cat "$dir/nginx/nginx.pid")" 2>/dev/null || true; fi
    for pid_file in "$dir"/replica-*/pid; do
        [ -f "$pid_file" ] && { kill "$(cat "$pid_file")" 2>/dev/null || true; rm -f "$pid_file"; }
    done
    [ -d "$dir/store" ] && scripts/s3-store.py stop "$dir/store" >/dev/null 2>&1 || true
}

case "$command" in
start)
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "fleet: needs nginx (Debian: nginx)" >&2; exit 1; }
    scripts/setup-store.sh >&2
    swift build --product thumbnailer >&2
    mkdir -p "$dir/store" "$dir/nginx"
    stop
    eval "$(scripts/s3-store.py start "$dir/store" thumbnails)"
    export AWS_ENDPOINT_URL AWS_REGION AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
    upstreams=""
    for i in $(seq 1 "$replicas"); do
        port=$((base + i))
        mkdir -p "$dir/replica-$i"
        .build/debug/thumbnailer serve --host 127.0.0.1 --port "$port" --insecure-unsigned --private-addresses \
            --store s3://thumbnails/fleet --cache-dir "$dir/replica-$i/cache" \
            >"$dir/replica-$i/access.log" 2>"$dir/replica-$i/error.log" &
        echo $! >"$dir/replica-$i/pid"
        upstreams+="server 127.0.0.1:$port max_fails=1 fail_timeout=10s; "
    done
    # Each replica ready before nginx sends it anything: a refused connection marks it down for 10 s.
    for i in $(seq 1 "$replicas"); do
        for _ in $(seq 300); do curl -fsS "http://127.0.0.1:$((base + i))/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
    done
    sed -e "s|@PREFIX@|$dir/nginx|g" -e "s|@USER@|$(id -un)|g" -e "s|@LISTEN@|127.0.0.1:$base|g" \
        -e "s|@REPLICAS@|$upstreams|g" scripts/fleet/nginx.conf >"$dir/nginx/nginx.conf"
    nginx_binary=$(command -v nginx || echo /usr/sbin/nginx)
    "$nginx_binary" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/error.log"
    for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$base/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
    echo "fleet: $replicas replicas behind http://127.0.0.1:$base/ (store $AWS_ENDPOINT_URL, bucket thumbnails); stop with: $0 stop $dir"
    ;;
stop)
    stop
    echo "fleet: stopped; $dir keeps the store and the caches" >&2
    ;;
*)
    sed -n '2,14p' "$0" >&2
    exit 64
    ;;
esac
