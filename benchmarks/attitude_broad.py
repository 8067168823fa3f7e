#!/usr/bin/env python3
"""Attitude accuracy on BROAD's trials: accelkit beside the Python filters people use.

    python3 benchmarks/attitude_broad.py [--data DIR] [--out notebooks-out/attitude-broad.csv]

For every trial in DIR (default datasets/real/broad, the gzip CSVs with t_s, acc_*_mps2,
gyr_*_rps, mag_*_uT and the optical truth opt_q*), runs `accelkit attitude` (release build) with
each method, with the magnetometer (9D) and without (6D), and on the same arrays: the `vqf`
package (VQF, C++ core, default parameters), `ahrs` Madgwick and Mahony (default gains) and
`imufusion` (x-io Fusion, default settings). Prints, per trial and method:
  - inclination RMSE (6D): the angle between the estimated and the true world z axis seen in the
    sensor frame, in degrees;
  - heading RMSE (9D): the difference of the yaw angles (z-y-x decomposition) after removing one
    constant offset (their circular mean), in degrees, wrapped to (-180, 180];
over the samples with optical truth, skipping the first 5 s (the convention of the figures in the
README in datasets/real, which this script reproduces for the vqf package to 0.01 degree).
Installs vqf, ahrs, imufusion and pandas with pip when missing.
"""
import argparse
import csv
import glob
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def ensure(modules):
    missing = []
    for module, package in modules:
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    if missing:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q"] + missing)


ensure([("numpy", "numpy"), ("pandas", "pandas"), ("vqf", "vqf"), ("ahrs", "ahrs"), ("imufusion", "imufusion")])
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

TO_ENU = np.array([np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)])  # north-west-up to east-north-up


def qmul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1*w2 - x1*x2 - y1*y2 - z1*z2, w1*x2 + x1*w2 + y1*z2 - z1*y2,
                     w1*y2 - x1*z2 + y1*w2 + z1*x2, w1*z2 + x1*y2 - y1*x2 + z1*w2], 1)


def up(q):
    w, x, y, z = q.T
    return np.stack([2*(x*z - w*y), 2*(w*x + y*z), 1 - 2*(x*x + y*y)], 1)


def yaw(q):
    w, x, y, z = q.T
    return np.arctan2(2*(w*z + x*y), 1 - 2*(y*y + z*z))


def inclination_rmse(est, ref, mask):
    a, b = up(est[mask]), up(ref[mask])
    c = np.sum(a*b, 1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    return float(np.sqrt(np.mean(np.degrees(np.arccos(np.clip(c, -1, 1)))**2)))


def heading_rmse(est, ref, mask):
    d = np.angle(np.exp(1j * (yaw(est[mask]) - yaw(ref[mask]))))
    offset = np.arctan2(np.mean(np.sin(d)), np.mean(np.cos(d)))
    return float(np.sqrt(np.mean(np.degrees(np.angle(np.exp(1j * (d - offset))))**2)))


def accelkit_run(binary, path, method, mag, work):
    out = os.path.join(work, "att.npy")
    argv = [binary, "attitude", path, "-o", out, "--mag", "on" if mag else "off"]
    if method == "vqf --offline":
        argv += ["--offline"]
    elif method:
        argv += ["--method", method]
    subprocess.check_call(argv)
    a = np.load(out)
    return np.stack([a["qw"], a["qx"], a["qy"], a["qz"]], 1)


def peers(gyr, acc, mag, rate):
    """Each peer's (6D, 9D) quaternions, sensor to an ENU-like world."""
    from vqf import VQF, offlineVQF
    from ahrs.filters import Madgwick, Mahony
    import imufusion
    out = {}
    r = VQF(1 / rate).updateBatch(gyr, acc, mag)
    out["vqf (python package)"] = (r["quat6D"], r["quat9D"])
    out["vqf offlineVQF (python package)"] = (offlineVQF(gyr, acc, None, 1 / rate)["quat6D"],
                                              offlineVQF(gyr, acc, mag, 1 / rate)["quat9D"])
    out["ahrs Madgwick"] = (Madgwick(gyr=gyr, acc=acc, frequency=rate).Q,
                            qmul(np.tile(TO_ENU, (len(gyr), 1)), Madgwick(gyr=gyr, acc=acc, mag=mag, frequency=rate).Q))
    out["ahrs Mahony"] = (Mahony(gyr=gyr, acc=acc, frequency=rate).Q, Mahony(gyr=gyr, acc=acc, mag=mag, frequency=rate).Q)

    def fusion(use_mag):
        ahrs = imufusion.Ahrs()
        settings = imufusion.AhrsSettings()
        settings.sample_rate = rate
        ahrs.set_settings(settings)
        q = np.zeros((len(gyr), 4))
        g, a = np.degrees(gyr), acc / 9.80665
        for i in range(len(gyr)):
            if use_mag:
                ahrs.update(g[i], a[i], mag[i])
            else:
                ahrs.update_no_magnetometer(g[i], a[i])
            q[i] = ahrs.get_quaternion()
        return q if not use_mag else qmul(np.tile(TO_ENU, (len(gyr), 1)), q)
    out["imufusion (x-io Fusion)"] = (fusion(False), fusion(True))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.path.join(ROOT, "datasets", "real", "broad"))
    parser.add_argument("--out", default=os.path.join(ROOT, "notebooks-out", "attitude-broad.csv"))
    parser.add_argument("--no-peers", action="store_true", help="accelkit only")
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        subprocess.check_call(["swift", "build", "-c", "release", "--product", "accelkit"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, ".build", "release", "accelkit")
    trials = sorted(glob.glob(os.path.join(args.data, "*.csv.gz")))
    if not trials:
        sys.exit("no BROAD trials in %s" % args.data)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for path in trials:
            trial = os.path.basename(path).split("_")[0]
            d = pd.read_csv(path)
            ref = d[["opt_qw", "opt_qx", "opt_qy", "opt_qz"]].to_numpy()
            mask = np.isfinite(ref).all(1) & (d["t_s"].to_numpy() >= 5)
            rate = 1 / np.median(np.diff(d["t_s"].to_numpy()))
            results = {}
            for method in ("vqf", "vqf --offline", "madgwick", "mahony", "complementary", "accel"):
                results["accelkit " + method] = (accelkit_run(binary, path, method, False, work),
                                                 accelkit_run(binary, path, method, True, work))
            if not args.no_peers:
                gyr = np.ascontiguousarray(d[["gyr_x_rps", "gyr_y_rps", "gyr_z_rps"]].to_numpy())
                acc = np.ascontiguousarray(d[["acc_x_mps2", "acc_y_mps2", "acc_z_mps2"]].to_numpy())
                mag = np.ascontiguousarray(d[["mag_x_uT", "mag_y_uT", "mag_z_uT"]].to_numpy())
                results.update(peers(gyr, acc, mag, 285.714))
            for name, (six, nine) in results.items():
                rows.append({"trial": trial, "method": name,
                             "inclination_rmse_deg": round(inclination_rmse(six, ref, mask), 3),
                             "heading_rmse_deg": round(heading_rmse(nine, ref, mask), 3)})
            print("trial %s done (%.0f Hz, %d samples)" % (trial, rate, len(d)), file=sys.stderr)
    methods = list(dict.fromkeys(r["method"] for r in rows))
    names = list(dict.fromkeys(r["trial"] for r in rows))
    cell = {(r["trial"], r["method"]): r for r in rows}
    print("inclination RMSE (6D) / heading RMSE (9D), degrees, first 5 s skipped")
    width = max(len(m) for m in methods)
    print("method".ljust(width) + "".join(("  " + n).rjust(13) for n in names))
    for m in methods:
        print(m.ljust(width) + "".join(
            ("%.2f/%.2f" % (cell[(n, m)]["inclination_rmse_deg"], cell[(n, m)]["heading_rmse_deg"])).rjust(13) for n in names))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    print("wrote", os.path.relpath(args.out, ROOT))


if __name__ == "__main__":
    main()
