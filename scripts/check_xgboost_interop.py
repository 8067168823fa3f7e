#!/usr/bin/env python3
"""Checks that a model accelkit trained loads in Python's xgboost and predicts what accelkit
predicts.

    python3 scripts/check_xgboost_interop.py MODEL_DIR FEATURES_CSV

FEATURES_CSV is what `accelkit features TRACE --model MODEL_DIR -o FEATURES_CSV` writes: the
features under their names, and p_LABEL, accelkit's probability per window. For every label of
the model, LABEL.xgb.json is loaded with xgboost.Booster, its feature_names are checked against
the CSV's columns, and its probabilities on those columns are compared with p_LABEL. Prints the
versions and the largest difference; exits 1 when one exceeds 1e-6.
"""
import csv
import json
import math
import sys

import numpy
import xgboost


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    directory, features = sys.argv[1], sys.argv[2]
    with open(f"{directory}/detector.json") as f:
        detector = json.load(f)
    with open(features, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    column = {name: k for k, name in enumerate(header)}

    def values(name):
        return numpy.array([float(r[column[name]]) if r[column[name]] != "" else math.nan for r in body])

    print(f"xgboost {xgboost.__version__}, numpy {numpy.__version__}, python {sys.version.split()[0]}")
    print(f"model trained by xgboost {detector['training']['xgboost']}; {len(body)} windows")
    worst = 0.0
    for label in detector["labels"]:
        booster = xgboost.Booster(model_file=f"{directory}/{label}.xgb.json")
        names = booster.feature_names
        if names != detector["features"]["names"]:
            sys.exit(f"{label}: the model's feature_names differ from detector.json's")
        matrix = numpy.column_stack([values(n) for n in names])
        predicted = booster.predict(xgboost.DMatrix(matrix, feature_names=names, missing=math.nan))
        difference = float(numpy.max(numpy.abs(predicted - values(f"p_{label}"))))
        worst = max(worst, difference)
        print(f"{label}: largest difference {difference:.3g} over {len(body)} windows")
    if worst > 1e-6:
        sys.exit(1)


if __name__ == "__main__":
    main()
