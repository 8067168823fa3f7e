#!/usr/bin/env python3
"""Writes variants of an annotated dataset to check that a rule does not depend on the sample
rate or on the sensor's range: the same traces resampled to other rates (by accelkit convert
--resample, linear interpolation) and clipped to +-2 g.

    scripts/make_variants.py datasets/test /tmp/variants
    accelkit evaluate /tmp/variants/30hz --rule swing
    accelkit evaluate /tmp/variants/200hz --rule swing
    accelkit evaluate /tmp/variants/clip2g --rule swing

Annotations and the manifest are copied unchanged (the rate column is rewritten).
"""
import csv
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def accelkit():
    path = os.path.join(ROOT, ".build", "release", "accelkit")
    if not os.path.exists(path):
        subprocess.run(["swift", "build", "-c", "release", "--product", "accelkit"], cwd=ROOT, check=True)
    return path


def variant(dataset, out, name, convert):
    target = os.path.join(out, name)
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(dataset, "manifest.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        convert(os.path.join(dataset, row["trace"]), os.path.join(target, row["trace"]), row)
        shutil.copy(os.path.join(dataset, row["events"]), os.path.join(target, row["events"]))
    with open(os.path.join(target, "manifest.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["trace", "events", "rate", "split"], extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    dataset, out = sys.argv[1], sys.argv[2]
    binary = accelkit()
    for rate in (30, 200):
        def resample(src, dst, row, rate=rate):
            subprocess.run([binary, "convert", src, "--resample", str(rate), "-o", dst], check=True)
            row["rate"] = str(rate)
        variant(dataset, out, f"{rate}hz", resample)

    def clip(src, dst, row):
        with open(src, newline="") as f, open(dst, "w", newline="") as g:
            reader = csv.reader(f)
            writer = csv.writer(g, lineterminator="\n")
            writer.writerow(next(reader))
            for t, *axes in reader:
                writer.writerow([t] + [repr(max(-2.0, min(2.0, float(v)))) for v in axes])
    variant(dataset, out, "clip2g", clip)


if __name__ == "__main__":
    main()
