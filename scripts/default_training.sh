# The built-in shake model's training command (scripts/train_default_model), shared with the
# scripts that train it again in part. Sourced, it defines
#
#   train_shake_model ACCELKIT WORK SUSTAINED_MANIFEST OUT [OPTION...]
#
# which trains on WORK as scripts/train_default_model leaves it, with SUSTAINED_MANIFEST as the
# real shakes' manifest among the sustained classifier's sets (WORK/shakes/train.csv for the
# built-in model), into OUT. OPTIONs come after the recipe's own and replace them (`--cv trace
# --folds 2`) or add to them (`--scores`). Run from the repository's root.
train_shake_model() {
  local accelkit=$1 work=$2 real=$3 out=$4
  shift 4
  "$accelkit" train datasets/train "$work"/gen-sine "$work"/gen-strokes "$work"/gen-twist "$work"/gen-walking \
    "$work/gen-negatives" "$work/everyday/manifest.csv" --sustained "$work/sus-sine" \
    --sustained "$work/sus-strokes" --sustained "$work/sus-twist" --sustained "$work/sus-walking" \
    --sustained "$real" --label shake --cv source --threads 2 --exponential --window 0.25 --window 1 \
    --window 4 --window 16 --span 1 --ram 8KiB --flash 48KiB --trees table --depth 4 --allow-outside-paths \
    -o "$out" "$@"
}
