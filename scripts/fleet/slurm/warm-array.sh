#!/bin/bash
# `thumbnailer warm` as one task of a Slurm array job: task I warms slice I of N of the feed
# into the object store every task shares (warm's --shard-count takes I from SLURM_ARRAY_TASK_ID).
#
#   sbatch --array=0-3 scripts/fleet/slurm/warm-array.sh 4 FEED s3://BUCKET/PREFIX [warm options…]
#
# N is an argument, not the array's size: a task resubmitted alone (`sbatch --array=2 … 4 …`)
# must still warm slice 2 of 4, and it skips what the store already has.
#
# A task whose run exits 75 (some images failed for a reason that may pass: the origin or the
# store unreachable, timing out or answering 5xx) is requeued by Slurm where slurm.conf says
# `RequeueExit=75` (scripts/slurm.sh does), and the run again fetches only what is missing. After
# WARM_MAX_RESTARTS restarts (default 3) the task exits 1 instead, so a lasting outage ends the job
# rather than requeueing it forever. Each run appends its summary (--json: one line) to the output.
#
# The binary is $THUMBNAILER, else `thumbnailer` on PATH; the store's credentials come from the
# environment sbatch passes on (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
#SBATCH --job-name=thumbnailer-warm
#SBATCH --open-mode=append
set -uo pipefail

if [ $# -lt 3 ] || [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
    echo "usage: sbatch --array=0-(N-1) $0 N FEED STORE [warm options…]" >&2
    exit 64
fi
shards=$1 feed=$2 store=$3
shift 3
if [ "$SLURM_ARRAY_TASK_ID" -ge "$shards" ]; then
    echo "warm-array: task $SLURM_ARRAY_TASK_ID is past the $shards shards (array indices go from 0 to $((shards - 1)))" >&2
    exit 64
fi

"${THUMBNAILER:-thumbnailer}" warm "$feed" --store "$store" --shard-count "$shards" --json "$@"
status=$?
if [ "$status" -eq 75 ] && [ "${SLURM_RESTART_COUNT:-0}" -ge "${WARM_MAX_RESTARTS:-3}" ]; then
    echo "warm-array: still failing after ${SLURM_RESTART_COUNT} restarts; not asking for another" >&2
    exit 1
fi
exit "$status"
