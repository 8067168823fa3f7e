#!/usr/bin/env bash
# The merge job of slurm-shard.sh: refuses to write a report while a shard is missing.
#SBATCH --job-name=accelkit-merge
set -euo pipefail
accelkit=${ACCELKIT:-accelkit}
"$accelkit" merge "$1"/* -o "$2"
