#!/usr/bin/env bash
# A sharded tuning: the search goes a round at a time (each round starts from the best trials
# so far), so each round runs its shards and merges them into the state the next round resumes
# from. Five rounds finish any search (one to explore, four to refine); once finished, merging
# writes best.params, trials.csv, folds.csv and pareto.svg beside the state, exactly as an
# unsharded `accelkit tune ... -o DIR` writes them.
#
#   Examples/scale-out/parallel-tune.sh DATASET RULE OUT [SHARDS [TUNE OPTIONS...]]
set -euo pipefail
dataset=$1 rule=$2 out=$3 shards=${4:-8}
options=("${@:5}")
accelkit=${ACCELKIT:-accelkit}

resume=()
for round in 1 2 3 4 5; do
  parallel --halt now,fail=1 "$accelkit" tune "$dataset" --rule "$rule" --shard {}/"$shards" "${options[@]}" "${resume[@]}" \
    --jobs 1 --quiet -o "$out/round$round/{}" ::: $(seq 1 "$shards")
  "$accelkit" merge "$out/round$round"/* -o "$out/state"
  resume=(--resume "$out/state")
done
