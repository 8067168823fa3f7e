#!/usr/bin/env python3
"""Writes turned, resampled and clipped copies of real recordings, to train a detector on real
positives at attitudes, rates and sensor ranges their few sources do not cover.

    scripts/augment_positives.py MANIFEST OUT [--activity NAME ...] [--rate HZ]
    accelkit train ... MANIFEST OUT/manifest.csv --label shake --cv source

MANIFEST is an accelkit dataset's manifest with `source`, `position` and `activity` columns (what
scripts/import_shakes.py and scripts/import_everyday.py write); with --activity, only its rows of
those activities are copied (e.g. `--activity shake --activity sustained`: the positives). Each
trace (t,x,y,z in g) gets the five copies below, written to OUT with its events unchanged and
the same source, position and activity, so that `train --cv source` holds a source's copies out
with it (a copy never tests a model trained on its original). OUT/manifest.csv lists them.

  copy  turned (the whole trace, gravity included: the device held otherwise)  rate    range
  t1    90 degrees about x                                                      25 Hz   as read
  t2    90 degrees about y                                                      50 Hz   +-2 g
  t3    135 degrees about (1, 1, 0)                                             30 Hz   as read
  t4    60 degrees about (0, 1, 1)                                              25 Hz   +-2 g
  t5    -120 degrees about (1, 0, 1)                                            50 Hz   as read

With --rate HZ, each trace gets one copy instead, `rHZ`: as read (not turned, not clipped) at
that rate, resampled as below; to measure a detector at the rate of another device, e.g. a 25 Hz
phone (`accelkit evaluate OUT/manifest.csv --rule learned-shake`).

A copy's sample at time t is the mean of the readings within half its sampling step of t (a box
filter against aliasing when the rate falls), or, where no reading lies there (the rate rises),
the linear interpolation of the two around t; then the turn, then the clipping. A gap longer
than a second is kept as a gap. The copies are fixed (no randomness): the same input gives the
same files.
"""
import csv
import math
import os
import sys

GAP = 1.0  # seconds between readings that no sample bridges


def turn(axis, degrees):
    """The rotation matrix of `degrees` about `axis` (right-handed)."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    n = math.sqrt(sum(v * v for v in axis))
    x, y, z = (v / n for v in axis)
    return ((c + x * x * (1 - c), x * y * (1 - c) - z * s, x * z * (1 - c) + y * s),
            (y * x * (1 - c) + z * s, c + y * y * (1 - c), y * z * (1 - c) - x * s),
            (z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c)))


COPIES = (
    ("t1", turn((1, 0, 0), 90), 25.0, None),
    ("t2", turn((0, 1, 0), 90), 50.0, 2.0),
    ("t3", turn((1, 1, 0), 135), 30.0, None),
    ("t4", turn((0, 1, 1), 60), 25.0, 2.0),
    ("t5", turn((1, 0, 1), -120), 50.0, None),
)


def read(path):
    """The readings (t, x, y, z) of a t,x,y,z CSV, its header skipped, non-numbers dropped."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        next(reader, None)
        for row in reader:
            try:
                v = tuple(float(x) for x in row[:4])
            except ValueError:
                continue
            if len(v) == 4 and all(math.isfinite(x) for x in v):
                rows.append(v)
    return rows


def resampled(rows, rate):
    """(t, (x, y, z)) on a grid of `rate` Hz from the first reading, as the module's doc says."""
    out = []
    if not rows:
        return out
    half = 0.5 / rate
    t0, k = rows[0][0], 0
    n = int((rows[-1][0] - t0) * rate + 1e-9) + 1
    for i in range(n):
        t = t0 + i / rate
        while k < len(rows) and rows[k][0] < t - half:
            k += 1
        j = k
        while j < len(rows) and rows[j][0] < t + half:
            j += 1
        if j > k:
            out.append((t, tuple(sum(r[a] for r in rows[k:j]) / (j - k) for a in (1, 2, 3))))
            continue
        if k == 0 or k >= len(rows):
            continue
        before, after = rows[k - 1], rows[k]
        if after[0] - before[0] > GAP:
            continue  # a gap: no sample
        w = (t - before[0]) / (after[0] - before[0])
        out.append((t, tuple(before[a] + w * (after[a] - before[a]) for a in (1, 2, 3))))
    return out


def copy(rows, matrix, rate, clip):
    """The copy's lines t,x,y,z (times from 0, as the original's first reading)."""
    lines = []
    t0 = rows[0][0] if rows else 0.0
    for t, v in resampled(rows, rate):
        u = [sum(matrix[i][j] * v[j] for j in range(3)) for i in range(3)]
        if clip is not None:
            u = [max(-clip, min(clip, x)) for x in u]
        lines.append(f"{t - t0:.6f},{u[0]:.6g},{u[1]:.6g},{u[2]:.6g}")
    return lines


def main():
    args = sys.argv[1:]
    activities = []
    while "--activity" in args:
        i = args.index("--activity")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        activities.append(args[i + 1])
        del args[i:i + 2]
    copies = COPIES
    if "--rate" in args:
        i = args.index("--rate")
        if i + 1 >= len(args):
            sys.exit(__doc__)
        try:
            rate = float(args[i + 1])
        except ValueError:
            rate = math.nan
        if not math.isfinite(rate) or rate <= 0:
            sys.exit(f"--rate: expected a rate in Hz above 0, got {args[i + 1]}")
        copies = ((f"r{rate:g}", turn((1, 0, 0), 0), rate, None),)
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    manifest, out = args
    base = os.path.dirname(os.path.abspath(manifest))
    with open(manifest, newline="") as f:
        rows = [r for r in csv.DictReader(f) if not activities or r.get("activity") in activities]
    if not rows:
        sys.exit(f"{manifest}: no rows to copy")
    os.makedirs(out, exist_ok=True)
    lines = ["trace,events,source,position,activity"]
    for row in rows:
        if not row["trace"].endswith(".csv"):
            sys.exit(f"{manifest}: {row['trace']} is not a CSV trace (accelkit convert makes one)")
        readings = read(os.path.join(base, row["trace"]))
        with open(os.path.join(base, row["events"])) as f:
            events = f.read()
        stem = row["trace"][:-4].replace("/", "-")
        for name, matrix, rate, clip in copies:
            target = f"{stem}-{name}"
            with open(os.path.join(out, target + ".csv"), "w") as f:
                f.write("t,x,y,z\n" + "".join(line + "\n" for line in copy(readings, matrix, rate, clip)))
            with open(os.path.join(out, target + ".events.csv"), "w") as f:
                f.write(events)
            lines.append(f"{target}.csv,{target}.events.csv,{row.get('source', '')},"
                         f"{row.get('position', '')},{row.get('activity', '')}")
    with open(os.path.join(out, "manifest.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(rows)} traces, {len(rows) * len(copies)} copies in {out}")


if __name__ == "__main__":
    main()
