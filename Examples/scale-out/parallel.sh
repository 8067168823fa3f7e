#!/usr/bin/env bash
# Scale-out on one machine (or over ssh with parallel -S): GNU parallel runs the shards, accelkit
# merges them into the report one unsharded run writes.
#
#   Examples/scale-out/parallel.sh DATASET OUT [SHARDS]
#
# OUT/parts/K holds each shard's partial.json, OUT/report the merged report. ACCELKIT names the
# binary (default: accelkit on PATH).
set -euo pipefail
dataset=$1 out=$2 shards=${3:-8}
accelkit=${ACCELKIT:-accelkit}

# Each shard evaluates the traces it owns with one thread: the shards are the parallelism.
parallel --halt now,fail=1 "$accelkit" evaluate "$dataset" --shard {}/"$shards" --jobs 1 --quiet \
  -o "$out/parts/{}" ::: $(seq 1 "$shards")
"$accelkit" merge "$out"/parts/* -o "$out/report"
