#!/usr/bin/env python3
"""Imports the WHARF data set (Bruno, Mastrogiovanni, Sgorbissa: "A Public Domain Dataset for ADL
Recognition Using Wrist-placed Accelerometers", RO-MAN 2014; github.com/fulviomas/WHARF) as an
accelkit dataset of real negatives: daily activities with a wrist-worn accelerometer (brushing
teeth, combing hair, climbing and descending stairs, drinking, eating, pouring, getting up, lying
down, sitting down, standing up, using a telephone, walking), none of them a shake.

    scripts/import_wharf.py PATH/TO/WHARF OUT
    accelkit evaluate OUT --rule swing

WHARF's licence lets users use and modify it for research but not redistribute it, so accelkit
carries this importer, not the data: fetch the repository yourself. Each trial file holds lines
"x y z" of 6-bit codes at 32 Hz, [0, 63] = [-1.5 g, +1.5 g], the sensor reading specific force
(at rest it points up); written here as t,x,y,z in g in accelkit's (Apple's) convention, the
reading negated. The sensor's axes: x toward the hand, y to the left, z out of the back of the
hand. The MODELS folder (trials cut to equal length) is skipped: its recordings repeat others.
"""
import os
import sys

RATE = 32.0


def decode(code):
    return -1.5 + 3.0 * int(code) / 63.0


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, out = sys.argv[1], sys.argv[2]
    data = os.path.join(root, "WHARF Data Set", "Data")
    if not os.path.isdir(data):
        sys.exit(f"no 'WHARF Data Set/Data' folder in {root}")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "none.events.csv"), "w") as f:
        f.write("start,end,label\n")
    rows = []
    total = 0.0
    for activity in sorted(os.listdir(data)):
        folder = os.path.join(data, activity)
        if activity == "MODELS" or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".txt"):
                continue
            with open(os.path.join(folder, name)) as f:
                samples = [line.split() for line in f if line.strip()]
            samples = [s for s in samples if len(s) == 3]
            if len(samples) < 2:
                continue
            trace = f"{activity}-{name[:-4]}.csv".replace(" ", "_")
            with open(os.path.join(out, trace), "w") as f:
                f.write("t,x,y,z\n")
                for k, (x, y, z) in enumerate(samples):
                    # Specific force to Apple's convention: the reading negated.
                    f.write(f"{k / RATE:.5f},{-decode(x):.6f},{-decode(y):.6f},{-decode(z):.6f}\n")
            total += (len(samples) - 1) / RATE
            rows.append((trace, activity.lower()))
    with open(os.path.join(out, "manifest.csv"), "w") as f:
        f.write("trace,events,rate,split\n")
        for trace, activity in rows:
            f.write(f"{trace},none.events.csv,32,{activity}\n")
    print(f"{len(rows)} trials, {total / 3600:.2f} h, written to {out}")


if __name__ == "__main__":
    main()
