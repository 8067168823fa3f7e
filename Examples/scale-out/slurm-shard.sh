#!/usr/bin/env bash
# A Slurm job array: task K of N evaluates shard K/N. Submit it, then the merge once every task
# has succeeded:
#
#   job=$(sbatch --parsable --array=1-8 Examples/scale-out/slurm-shard.sh datasets/test parts)
#   sbatch --dependency=afterok:$job Examples/scale-out/slurm-merge.sh parts report
#
# (--array=1-8 on the command line sets the shard count; Slurm gives each task its
# SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.)
#SBATCH --job-name=accelkit-shard
#SBATCH --cpus-per-task=2
set -euo pipefail
accelkit=${ACCELKIT:-accelkit}
"$accelkit" evaluate "$1" --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" \
  --jobs "${SLURM_CPUS_PER_TASK:-1}" --quiet -o "$2/$SLURM_ARRAY_TASK_ID"
