#!/usr/bin/env bash
# Benchmark of `thumbnailer warm --store --shard`: images per second for 1, 2 and
# 4 shards warming one feed into a real S3-compatible store on loopback (OpenStack
# Swift's s3api, scripts/s3-store.py), every process on this machine, each with an
# empty disk cache and a bucket of its own per run. The feed is the test photos
# repeated under distinct URLs (scripts/bench/warm_server.py), one 256 px thumbnail
# per image, and the CPU the warm processes took (user + sys) per image. Two ceilings: the store's own PUT rate (20 KB objects, 8 in flight,
# through boto3 when the Python running this has it), and the rate of a warm that
# only copies thumbnails its disk cache already has into an empty bucket (a HEAD
# and a PUT per image: everything but fetching and decoding).
# Usage: scripts/bench-shards.sh [ITEMS]   (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
items="${1:-1000}"
scripts/setup-store.sh
swift build -c release --product thumbnailer >&2
bin=$PWD/.build/release/thumbnailer
work=$(mktemp -d /tmp/thumbnailer-bench-shards.XXXXXX)
server=""
trap 'kill $server 2>/dev/null || true; scripts/s3-store.py stop "$work/store" || true; rm -rf "$work"' EXIT
mapfile -t photos < <(ls TestImages/photo-*)
python3 scripts/bench/warm_server.py "${photos[@]}" > "$work/port" &
server=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
feed="http://127.0.0.1:$(head -1 "$work/port")/feed-$items.json"
set -a
# shellcheck disable=SC1091
eval "$(scripts/s3-store.py start "$work/store")"
set +a

# warm_shards NAME SHARDS BUCKET [CACHE_PREFIX]: SHARDS warm processes side by side; prints a table row.
warm_shards() {
    local name=$1 shards=$2 bucket=$3 cache=${4:-$work/cache-$3}
    scripts/s3-store.py bucket "$work/store" "$bucket"
    local start end pids=()
    start=$(date +%s.%N)
    for index in $(seq 0 $((shards - 1))); do
        /usr/bin/time -f "%U %S" -o "$work/time-$bucket-$index" \
            "$bin" warm "$feed" --store "s3://$bucket/thumbs" --shard "$index/$shards" --cache-dir "$cache-$index" \
            --json --quiet > "$work/summary-$bucket-$index.json" &
        pids+=("$!")
    done
    wait "${pids[@]}"
    end=$(date +%s.%N)
    python3 - "$name" "$shards" "$start" "$end" "$items" "$work" "$bucket" <<'PY'
import glob, json, sys
name, shards, start, end, items, work, bucket = sys.argv[1:]
summaries = [json.load(open(p)) for p in glob.glob("%s/summary-%s-*.json" % (work, bucket))]
cpu = sum(sum(map(float, open(p).read().split()[-2:])) for p in glob.glob("%s/time-%s-*" % (work, bucket)))
wall = float(end) - float(start)
written = sum(s["storeObjectsWritten"] for s in summaries)
fetched = sum(s["fetched"] for s in summaries)
failed = sum(s["failed"] for s in summaries)
print("| %s | %s | %d | %d | %d | %.2f | %.1f | %.1f |" % (name, shards, fetched, written, failed, wall, int(items) / wall,
                                                      1000 * cpu / int(items)))
PY
}

echo "| run | shards | fetched | objects written | failed | wall s | images/s | warm CPU ms/image |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
warm_shards "fetch, decode, store" 1 one
warm_shards "fetch, decode, store" 2 two
warm_shards "fetch, decode, store" 4 four
warm_shards "second run of 4 shards (all stored)" 4 four "$work/again"
# The one-shard run's disk cache has every thumbnail: into an empty bucket it only copies.
warm_shards "copy from disk to store only" 1 copy "$work/cache-one"

if python3 -c "import boto3" 2>/dev/null; then
    python3 - <<'PY'
import os, time, concurrent.futures, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name=os.environ["AWS_REGION"],
                  config=Config(s3={"addressing_style": "path"}, max_pool_connections=8))
s3.create_bucket(Bucket="ceiling")
body = os.urandom(20_000)
count = 1000
start = time.monotonic()
with concurrent.futures.ThreadPoolExecutor(8) as pool:
    list(pool.map(lambda n: s3.put_object(Bucket="ceiling", Key="k/%d" % n, Body=body), range(count)))
wall = time.monotonic() - start
print("\nThe store's own PUT rate (boto3, 20 KB, 8 in flight): %d PUTs in %.2f s, %.0f PUTs/s" % (count, wall, count / wall))
PY
else
    echo "(boto3 is not importable here: no raw PUT ceiling)"
fi
