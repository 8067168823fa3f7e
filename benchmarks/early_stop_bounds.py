#!/usr/bin/env python3
"""How many trees a row walks before the early stop proves its probability below the decoding's
floor, with the bound accelkit uses and with a row-dependent one (docs/PERFORMANCE.md, "The
learned detector"):

    accelkit features TRACE.npy --model models/shake -o features.npy
    python3 benchmarks/early_stop_bounds.py models/shake features.npy

- fixed: after every eight trees, the sum so far plus the largest leaf of every later tree
  (`TreeEnsemble.marginSurelyBelow`; what accelkit does). Cost: four steps per tree walked.
- root: each later tree bounded by the largest leaf under the branch its root takes, checked after
  every tree. Cost: one step per tree for the bounds, three more per tree walked.

Per classifier, the floor is the lowest threshold its decoding reads (on and off for the label's
own; sustained_on, sustained_off and hold for the sustained one). The rounding slack accelkit adds
is left out: it moves no count here by more than a tree.
"""
import json
import math
import os
import sys

import numpy as np


def trees_of(path):
    with open(path) as f:
        model = json.load(f)
    return model["learner"]["gradient_booster"]["model"]["trees"]


def descend(tree, rows, steps):
    """Each row's node after `steps` steps from the root (a leaf stays where it is)."""
    left = np.array(tree["left_children"])
    right = np.array(tree["right_children"])
    feature = np.array(tree["split_indices"])
    value = np.array(tree["split_conditions"], dtype=np.float32)
    default_left = np.array(tree["default_left"]) == 1
    node = np.zeros(len(rows), dtype=int)
    for _ in range(steps):
        inner = left[node] != -1
        v = rows[np.arange(len(rows)), feature[node]]
        go_left = np.where(np.isnan(v), default_left[node], v < value[node])
        node = np.where(inner, np.where(go_left, left[node], right[node]), node)
    return node


def largest_below(tree):
    """The largest leaf under each node."""
    left, right = tree["left_children"], tree["right_children"]
    value = tree["split_conditions"]
    best = [0.0] * len(left)
    for i in range(len(left) - 1, -1, -1):
        best[i] = value[i] if left[i] == -1 else max(best[left[i]], best[right[i]])
    return np.array(best)


def walked(partial, bounds, limit, every):
    """Trees walked per row: the first checkpoint k (every `every` trees) where the first k
    leaves plus the bounds of the rest stay below `limit`, else all of them."""
    rows, count = partial.shape[0], bounds.shape[1]
    rest = np.concatenate([np.cumsum(bounds[:, ::-1], axis=1)[:, ::-1], np.zeros((rows, 1))], axis=1)
    done = np.concatenate([np.zeros((rows, 1)), np.cumsum(partial, axis=1)], axis=1)
    out = np.full(rows, count)
    for k in range(((count - 1) // every) * every, -1, -every):
        out = np.where(done[:, k] + rest[:, k] < limit, k, out)
    return out


def main():
    model_dir, features = sys.argv[1], sys.argv[2]
    with open(os.path.join(model_dir, "detector.json")) as f:
        detector = json.load(f)
    table = np.load(features)
    names = detector["features"]["names"]
    rows = np.stack([table[n] for n in names], axis=1).astype(np.float32)
    label = detector["labels"][0]
    decoding = detector["decoding"][label]
    classifiers = [(detector["classifiers"][label], min(decoding["on"], decoding["off"]))]
    if label in detector.get("sustained", {}):
        floor = min(decoding.get("sustained_on", 1), decoding.get("sustained_off", 1))
        if decoding.get("hold_s", 0) > 0:
            floor = min(floor, decoding.get("hold", 1))
        classifiers.append((detector["sustained"][label], floor))
    print("classifier,trees,floor,fixed_walked,fixed_steps,root_walked,root_steps")
    for file, floor in classifiers:
        trees = trees_of(os.path.join(model_dir, file))
        limit = math.log(floor / (1 - floor))
        # 64 steps reach a leaf in any tree XGBoost grows here (depth at most 10).
        leaves = np.stack([np.array(t["split_conditions"], dtype=np.float32)[descend(t, rows, 64)]
                           for t in trees], axis=1)
        largest = np.array([largest_below(t)[0] for t in trees])
        fixed = walked(leaves, np.broadcast_to(largest, leaves.shape), limit, 8).mean()
        root = np.stack([largest_below(t)[descend(t, rows, 1)] for t in trees], axis=1)
        by_root = walked(leaves, root, limit, 1).mean()
        depth = detector["training"]["max_depth"]
        print("%s,%d,%g,%.1f,%.0f,%.1f,%.0f" % (file, len(trees), floor, fixed, fixed * depth, by_root,
                                                len(trees) + by_root * (depth - 1)))


if __name__ == "__main__":
    main()
