#!/usr/bin/env python3
"""The throughput of every exported detector (accelkit export + Examples/firmware/bench.c) on the
benchmark trace, beside detect-shakes on the same trace as a whole process.

    python3 benchmarks/export_throughput.py [--rows N] [--precision double|float] [--model DIR ...]
                                            [--define NAME ...]

The trace is benchmarks/run.py's (100 Hz walking with shakes, under benchmarks/work/); bench.c holds it in memory and
times push over it for at least a second, so the figure is the detector's alone (no parsing).
Gravity from the fused attitude (swing with gyro=1, orientation-change with its default gyro=1) is
timed through push_gyro on run.py's IMU recording (a smooth rotation at 100 Hz), as a CSV.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run  # noqa: E402  (the benchmark's trace generator and the binary's path)

# (name, rule, parameters, with the gyroscope)
RULES = [(rule, rule, [], False) for rule in
         ["three-peak", "angular-change", "seismic", "swing", "orientation-change", "learned-shake"]] + [
    ("swing gyro=1", "swing", ["--param", "gyro=1"], True),
    ("orientation-change", "orientation-change", [], True),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--precision", choices=["double", "float"], default="double")
    parser.add_argument("--model", action="append", default=[],
                        help="a model directory accelkit train wrote, timed after the rules (repeatable)")
    parser.add_argument("--define", action="append", default=[],
                        help="a macro the headers are compiled with, e.g. AK_DETECTOR_TREE_TABLE or AK_DETECTOR_ALL_TREES (repeatable)")
    args = parser.parse_args()
    detectors = [(name, ["--rule", rule] + params, gyroscope) for name, rule, params, gyroscope in RULES]
    detectors += [("model " + os.path.basename(os.path.normpath(m)), ["--model", os.path.abspath(m)], False)
                  for m in args.model]
    # As benchmarks/run.py builds it (the Swift runtime linked in).
    subprocess.check_call(["swift", "build", "-c", "release", "--static-swift-stdlib", "--scratch-path",
                           os.path.join(ROOT, ".build-static"), "--product", "accelkit"], cwd=ROOT,
                          stdout=subprocess.DEVNULL)
    accelkit = os.path.join(ROOT, ".build-static", "release", "accelkit")
    trace, _ = run.generate(args.rows)
    with tempfile.TemporaryDirectory() as work:
        imu = os.path.join(work, "imu.csv")
        subprocess.run([accelkit, "convert", "--channels", "acc,gyro", run.generate_imu(args.rows), "-o", imu],
                       check=True)
        defines = ["-D" + name for name in args.define]
        print(f"{args.rows} samples at 100 Hz, {args.precision}; cc -std=c99 -O2 {' '.join(defines)}".rstrip())
        print(f"{'rule':28} {'exported (samples/s)':>22} {'detect-shakes (samples/s)':>26}")
        for k, (name, detector, gyroscope) in enumerate(detectors):
            out = os.path.join(work, str(k))
            trace_k = imu if gyroscope else trace
            subprocess.run([accelkit, "export", "--rate", "100", "--precision", args.precision, "-o", out]
                           + detector, check=True, stderr=subprocess.DEVNULL)
            subprocess.run(["cc", "-std=c99", "-O2"] + defines
                           + ["-I", out, os.path.join(ROOT, "Examples/firmware/bench.c"), "-o", os.path.join(out, "bench"),
                              "-lm"], check=True)
            line = subprocess.run([os.path.join(out, "bench"), trace_k], check=True, capture_output=True,
                                  text=True).stdout.strip()
            exported = float(line.split(": ")[1].split(" ")[0])
            start = time.perf_counter()
            subprocess.run([accelkit, "detect-shakes"] + detector + [trace_k, "-o", os.path.join(work, "e.csv")],
                           check=True)
            whole = args.rows / (time.perf_counter() - start)
            label = name + (" (gyroscope)" if gyroscope else "")
            print(f"{label:28} {exported:>22.3g} {whole:>26.3g}")


if __name__ == "__main__":
    main()
