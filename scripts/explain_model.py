#!/usr/bin/env python3
"""Which features move a model's probability on a set of windows: each feature's mean
contribution to the log-odds (XGBoost's SHAP values, pred_contribs), most negative and most
positive first, with the feature's median there.

    python3 scripts/explain_model.py MODEL_DIR LABEL FEATURES_CSV...

Each FEATURES_CSV is what `accelkit features TRACE --labels EVENTS -o FEATURES_CSV` writes (on the
model's grid and windows: pass its --feature-rate, --window and --band); the windows of LABEL
(label_LABEL = 1) are explained. Prints the windows' median probability and the ten features that
lower it most and raise it most. Needs xgboost (pip install xgboost); accelkit does not.
"""
import csv
import sys

import numpy
import xgboost


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    directory, label, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    booster = xgboost.Booster()
    booster.load_model(f"{directory}/{label}.xgb.json")
    names = booster.feature_names
    rows = []
    for path in files:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("label_" + label) == "1":
                    rows.append([float(row[n]) if row[n] != "" else numpy.nan for n in names])
    if not rows:
        sys.exit(f"no window of {label} in the files")
    values = numpy.array(rows, dtype=numpy.float32)
    matrix = xgboost.DMatrix(values, feature_names=names, missing=numpy.nan)
    probability = booster.predict(matrix)
    contributions = booster.predict(matrix, pred_contribs=True)[:, :-1].mean(axis=0)
    print(f"{len(rows)} windows of {label}; median probability {numpy.median(probability):.3f}")
    order = numpy.argsort(contributions)
    for title, picks in (("lowering", order[:10]), ("raising", order[::-1][:10])):
        print(title)
        for i in picks:
            print(f"  {names[i]:32s} {contributions[i]:+.2f}  (median {numpy.nanmedian(values[:, i]):.4g})")


if __name__ == "__main__":
    main()
