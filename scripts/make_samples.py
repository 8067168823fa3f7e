#!/usr/bin/env python3
"""Writes the small demonstration traces in datasets/samples/ (seeded, byte-identical on every run).

They are synthetic (a simple motion and sensor model written here), so the repository carries no
third-party data. Run from the repository root: python3 scripts/make_samples.py"""
import math
import os
import random

out = os.path.join(os.path.dirname(__file__), "..", "datasets", "samples")
os.makedirs(out, exist_ok=True)


def write(name, rows, header="t,x,y,z"):
    with open(os.path.join(out, name), "w", newline="\n") as f:
        f.write(header + "\n")
        for row in rows:
            f.write(",".join(row) + "\n")


rng = random.Random(20261121)

# 1. A phone at rest, face up on a table, 100 Hz, 20 s: reads (0, 0, -1) g plus noise and bias.
rows = []
for i in range(2000):
    t = i / 100
    rows.append(("%.6f" % t, "%.4f" % (0.004 + rng.gauss(0, 0.003)), "%.4f" % (-0.006 + rng.gauss(0, 0.003)),
                 "%.4f" % (-1.0 + rng.gauss(0, 0.004))))
write("table-rest.csv", rows)

# 2. Held in portrait, shaken side to side at 4 Hz (about 1.5 g) from 5 s to 7 s, 100 Hz with
#    timestamp jitter, 12 s. Gravity is along -y in Apple's convention (portrait upright).
rows = []
t = 0.0
for i in range(1200):
    shake = 1.5 * math.sin(2 * math.pi * 4 * (t - 5)) if 5 <= t < 7 else 0.0
    tremor = 0.02 * math.sin(2 * math.pi * 9 * t)
    x = shake + tremor + rng.gauss(0, 0.01)
    y = -0.98 + 0.05 * math.sin(2 * math.pi * 0.3 * t) + rng.gauss(0, 0.01)
    z = -0.17 + rng.gauss(0, 0.01)
    rows.append(("%.6f" % t, "%.4f" % x, "%.4f" % y, "%.4f" % z))
    t += 0.01 + rng.uniform(-0.0008, 0.0008)
write("portrait-shake.csv", rows)

# 3. The same motion as an Android app would log it: nanosecond timestamps, m/s^2, specific force.
rows = []
for i in range(600):
    t = i / 50
    g = 9.80665
    x = 0.3 * math.sin(2 * math.pi * 1.5 * t) + rng.gauss(0, 0.05)
    y = 0.2 + rng.gauss(0, 0.05)
    z = g + 0.5 * math.sin(2 * math.pi * 1.5 * t + 1) + rng.gauss(0, 0.05)
    rows.append(("%d" % round(t * 1e9), "%.5f" % x, "%.5f" % y, "%.5f" % z))
os.makedirs(os.path.join(out, "android"), exist_ok=True)
write(os.path.join("android", "walk.csv"), rows)
