#!/usr/bin/env python3
"""Times two accelkit binaries on the same commands, alternating, and checks their outputs agree.

    python3 benchmarks/ab.py OLD NEW [--runs 15]

OLD and NEW are accelkit executables (for example the previous commit's and this one's, each built
with `swift build -c release --static-swift-stdlib`). Every command runs `--runs` times for each
binary, the two alternating, as a whole process writing to /dev/null; the script prints the median
wall time and the median CPU time (user + system, every thread) of each. Before timing, each
command's output is written to a file by both binaries and the files are compared byte for byte.
The inputs are `benchmarks/run.py`'s 10^6-row trace (run it once first).
"""
import argparse
import filecmp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "benchmarks", "work")
NPY = os.path.join(WORK, "trace_1000000.npy")
CSV = os.path.join(WORK, "trace_1000000.csv")

COMMANDS = [
    ("orientation, NPY to CSV", ["orientation", NPY]),
    ("Butterworth order 4, NPY to CSV", ["filter", "butterworth", "--order", "4", "--cutoff", "5", NPY]),
    ("convert NPY to CSV", ["convert", NPY, "--to", "csv"]),
    ("convert CSV to raw", ["convert", CSV, "--to", "raw"]),
]


def timed(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    for path in (NPY, CSV):
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: run `python3 benchmarks/run.py` once to make it")
    binaries = {"old": args.old, "new": args.new}
    print("| command | old wall | new wall | old CPU | new CPU |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, command in COMMANDS:
        with tempfile.TemporaryDirectory() as scratch:
            outputs = []
            for label, binary in binaries.items():
                out = os.path.join(scratch, label)
                subprocess.run([binary] + command + ["-o", out], check=True)
                outputs.append(out)
            if not filecmp.cmp(outputs[0], outputs[1], shallow=False):
                sys.exit(f"{name}: the outputs differ")
        times = {label: ([], []) for label in binaries}
        for _ in range(args.runs):
            for label, binary in binaries.items():
                wall, cpu = timed([binary] + command + ["-o", "/dev/null"])
                times[label][0].append(wall)
                times[label][1].append(cpu)
        med = {label: (statistics.median(w), statistics.median(c)) for label, (w, c) in times.items()}
        print(f"| {name} | {med['old'][0] * 1e3:.0f} ms | {med['new'][0] * 1e3:.0f} ms "
              f"| {med['old'][1] * 1e3:.0f} ms | {med['new'][1] * 1e3:.0f} ms |")


if __name__ == "__main__":
    main()
