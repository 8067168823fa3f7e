#!/usr/bin/env python3
"""accelkit against the Python stack, side by side, on the same generated workload, every program
timed as a whole process.

    python3 benchmarks/run.py --rows 1000000,30000000 --repeat 3 --markdown notebooks-out/benchmark.md
                                              # the published run: every task at both sizes
    python3 benchmarks/run.py                 # 10^6 rows, 5 runs per measurement
    python3 benchmarks/run.py --tasks attitude  # the attitude filters against vqf, ahrs and imufusion

It builds accelkit in release mode, writes a deterministic accelerometer-like trace (100 Hz,
columns t,x,y,z with 6/4 decimals) as CSV and NPY, and an IMU recording as NPY, under
benchmarks/work/, and times each task with accelkit and with the ways a competent Python user would
do it, alternating, taking the median of --repeat runs. Every program is timed as a whole process,
as a user runs it: interpreter start, imports, reading the input and writing the result. Python
peers also print the time of their work alone (imports excluded), shown beside for information.
Peak memory is each process's maximum resident set size (from wait4). Each task's ratio is the
fastest peer's whole-process time over accelkit's; its floor is `cat FILE > /dev/null` (a whole
process) for CSV input and a memory copy of the file's size for NPY input.

Results go to stdout and to notebooks-out/benchmark.csv (a run with --tasks writes its own CSV),
with the machine in a -machine.txt beside it; --markdown writes the tables docs/PERFORMANCE.md
shows. Installs the Python peers with pip when they are missing.
"""
import argparse
import csv
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
WORK = os.path.join(ROOT, "benchmarks", "work")


def ensure_python_peers():
    missing = []
    for module in ("numpy", "pandas", "pyarrow", "vqf", "ahrs", "imufusion", "polars", "duckdb", "xgboost"):
        try:
            __import__(module)
        except ImportError:
            missing.append("xgboost-cpu" if module == "xgboost" else module)
    if missing:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q"] + missing)


def generate(rows, need_csv=True):
    """Writes trace_ROWS.csv and .npy (seeded; the same bytes every time). Returns the paths."""
    import numpy as np
    os.makedirs(WORK, exist_ok=True)
    csv_path = os.path.join(WORK, "trace_%d.csv" % rows)
    npy_path = os.path.join(WORK, "trace_%d.npy" % rows)
    if os.path.exists(npy_path) and (os.path.exists(csv_path) or not need_csv):
        return csv_path, npy_path
    rng = np.random.default_rng(12345)
    chunk = 1_000_000
    rec = np.zeros(rows, dtype=[("t", "<f8"), ("x", "<f8"), ("y", "<f8"), ("z", "<f8")])
    with open(csv_path + ".tmp", "w") as f:
        f.write("t,x,y,z\n")
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            i = np.arange(start, start + n)
            t = i / 100.0
            # Walking-like motion, occasional shakes, sensor noise; rounded as a logger would.
            x = 0.2 * np.sin(2 * np.pi * 1.8 * t) + rng.normal(0, 0.02, n)
            y = -0.95 + 0.1 * np.sin(2 * np.pi * 3.6 * t) + rng.normal(0, 0.02, n)
            z = -0.3 + 0.05 * np.cos(2 * np.pi * 1.8 * t) + rng.normal(0, 0.02, n)
            burst = (t % 60) < 2
            x = x + burst * 1.5 * np.sin(2 * np.pi * 4 * t)
            block = np.stack([np.round(t, 6), np.round(x, 4), np.round(y, 4), np.round(z, 4)], axis=1)
            if need_csv:
                np.savetxt(f, block, fmt=["%.6f", "%.4f", "%.4f", "%.4f"], delimiter=",")
            for k, name in enumerate("txyz"):
                rec[name][start:start + n] = block[:, k]
    if need_csv:
        os.replace(csv_path + ".tmp", csv_path)
    else:
        os.remove(csv_path + ".tmp")
    np.save(npy_path, rec)
    return csv_path, npy_path


def generate_imu(rows):
    """Writes imu_v2_ROWS.npy (deterministic): t, x, y, z in g (Apple's convention), gx, gy, gz in
    rad/s, mx, my, mz in uT, for a smooth rotation at 100 Hz (Euler angles of a few sines) with
    sensor noise and a gyroscope bias. Computed in chunks with array operations. Returns the path."""
    import numpy as np
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "imu_v2_%d.npy" % rows)
    if os.path.exists(path):
        return path
    rng = np.random.default_rng(54321)
    dt = 0.01

    def attitude(t):
        """Unit quaternions (w, x, y, z), sensor to world: yaw about z, then pitch, then roll."""
        yaw = 1.2 * np.sin(2 * np.pi * 0.05 * t) + 0.3 * np.sin(2 * np.pi * 0.31 * t)
        pitch = 0.6 * np.sin(2 * np.pi * 0.17 * t + 1.0)
        roll = 0.8 * np.sin(2 * np.pi * 0.23 * t + 2.0)
        cy, sy, cp, sp, cr, sr = (f(a / 2) for a in (yaw, pitch, roll) for f in (np.cos, np.sin))
        return np.stack([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                         cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy], 1)

    rec = np.lib.format.open_memmap(path + ".tmp.npy", mode="w+", shape=(rows,),
                                    dtype=[(n, "<f8") for n in ("t", "x", "y", "z", "gx", "gy", "gz", "mx", "my", "mz")])
    chunk = 1_000_000
    for start in range(0, rows, chunk):
        n = min(chunk, rows - start)
        t = np.arange(start, start + n + 1) * dt
        q = attitude(t)
        a, b = q[:-1], q[1:]
        # The body rate over each interval: 2 log(conj(q_i) q_(i+1)) / dt.
        w = np.einsum("ij,ij->i", a, b)
        v = a[:, :1] * b[:, 1:] - b[:, :1] * a[:, 1:] - np.cross(a[:, 1:], b[:, 1:])
        norm = np.linalg.norm(v, axis=1)
        angle = 2 * np.arctan2(norm, w)
        gyr = v * (angle / np.maximum(norm, 1e-300) / dt)[:, None]
        qw, qx, qy, qz = a.T
        up = np.stack([2 * (qx * qz - qw * qy), 2 * (qw * qx + qy * qz), 1 - 2 * (qx * qx + qy * qy)], 1)
        north = np.stack([2 * (qx * qy + qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qw * qx)], 1)
        block = rec[start:start + n]
        block["t"] = t[:-1]
        acc = -up + rng.normal(0, 0.01, (n, 3))  # g, Apple's convention: -specific force
        mag = 20 * north - 40 * up + rng.normal(0, 0.3, (n, 3))
        gyr = gyr + 0.002 + rng.normal(0, 0.005, (n, 3))
        for k, c in enumerate("xyz"):
            block[c] = acc[:, k]
            block["g" + c] = gyr[:, k]
            block["m" + c] = mag[:, k]
    rec.flush()
    del rec
    os.replace(path + ".tmp.npy", path)
    return path


def run_process(argv):
    """Runs argv (stdin from /dev/null); returns (wall seconds, peak RSS in MB,
    stdout). The page cache's dirty data is written out first, so that no run pays for the files
    the previous one wrote (the kernel throttles a writer while it flushes hundreds of megabytes
    another process left behind). The peak RSS comes from GNU time, which starts the program from
    its own small process (a child forked from this script would report this script's memory)."""
    import tempfile
    if not os.path.exists("/usr/bin/time"):
        sys.exit("benchmarks/run.py needs GNU time: sudo apt-get install time")
    os.sync()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as peak:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak.name] + argv, stdin=subprocess.DEVNULL, stdout=out,
                              stderr=err)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError("%s failed: %s" % (" ".join(argv), err.read().decode()[-500:]))
        return wall, int(peak.read().split()[-1]) / 1024, out.read().decode()


def measure(argv):
    """Runs argv as a whole process: returns (wall seconds, seconds of the work alone or None,
    peak MB). Python peers print the time of their work (imports excluded) as 'SECONDS <s>'."""
    wall, peak, out = run_process(argv)
    inner = next((float(line.split()[1]) for line in out.splitlines() if line.startswith("SECONDS ")), None)
    return wall, inner, peak


PY_PREFIX = "import sys, time\n"


def python_task(code):
    """A Python peer: `code` reads sys.argv[1] and must assign `result`; only it is timed."""
    setup, _, body = code.partition("#--\n")
    program = PY_PREFIX + setup + "\nstart = time.perf_counter()\n" + body + \
        "\nprint('SECONDS %.9f' % (time.perf_counter() - start))\n"
    return [sys.executable, "-c", program]


# A peer whose first run takes longer than this runs once per size (pure Python loops over every
# sample, or minutes of array work at 3*10^7 rows); accelkit always runs --repeat times.
SLOW_SECONDS = 20.0

# Peers not run above a size: ahrs' Madgwick is a Python loop of numpy calls per sample (25 s for
# 10^6 samples, over 12 minutes for 3*10^7), and imufusion, also in the table, is faster.
NOT_ABOVE = {"ahrs.filters.Madgwick": 1_000_000}


ANGLES = (
    "a = np.load(sys.argv[1])\n"
    "al = 0.01 / (0.2 + 0.01); b, c = [al], [1.0, al - 1.0]\n"
    "g = [signal.lfilter(b, c, a[k], zi=signal.lfilter_zi(b, c) * a[k][0])[0] for k in 'xyz']\n"
    "pitch = np.degrees(np.arctan2(-g[1], np.hypot(g[0], g[2]))); roll = np.degrees(np.arctan2(g[0], -g[2]))\n"
    "tilt = np.degrees(np.arccos(np.clip(-g[2] / np.sqrt(g[0]**2 + g[1]**2 + g[2]**2), -1, 1)))\n"
    "up = np.arctan2(g[1], -g[0])\n"
    "out = os.path.join(os.path.dirname(sys.argv[1]), 'orientation_py.csv')\n")


IMU_LOAD = (
    "import numpy as np\n#--\n"
    "d = np.load(sys.argv[1])\n"
    "gyr = np.ascontiguousarray(np.stack([d['gx'], d['gy'], d['gz']], 1))\n"
    "acc = np.ascontiguousarray(np.stack([d['x'], d['y'], d['z']], 1) * -9.80665)\n"
    "mag = np.ascontiguousarray(np.stack([d['mx'], d['my'], d['mz']], 1))\n"
    "Ts = float(np.median(np.diff(d['t'][:1000])))\n"
    "out = os.path.join(os.path.dirname(sys.argv[1]), 'att_py.npy')\n")


def attitude_tasks(accelkit, imu_path):
    """The attitude filters on an IMU recording, NPY in, quaternions out to NPY."""
    out = os.path.join(WORK, "att.npy")
    def peer(code):
        setup, _, body = IMU_LOAD.partition("#--\n")
        return python_task("import os\n" + setup + code[0] + "#--\n" + body + code[1])
    return [
        ("attitude VQF 6D (NPY to NPY)", [accelkit, "attitude", "--mag", "off", imu_path, "-o", out], [
            ("vqf.VQF.updateBatch (C++) + numpy.save", peer((
                "from vqf import VQF\n",
                "r = VQF(Ts).updateBatch(gyr, acc)\nnp.save(out, r['quat6D'])\n"))),
        ], imu_path),
        ("attitude VQF 9D (NPY to NPY)", [accelkit, "attitude", imu_path, "-o", out], [
            ("vqf.VQF.updateBatch (C++) + numpy.save", peer((
                "from vqf import VQF\n",
                "r = VQF(Ts).updateBatch(gyr, acc, mag)\nnp.save(out, r['quat9D'])\n"))),
        ], imu_path),
        ("attitude Madgwick 6D (NPY to NPY)", [accelkit, "attitude", "--method", "madgwick", "--mag", "off", imu_path, "-o", out], [
            ("ahrs.filters.Madgwick + numpy.save", peer((
                "from ahrs.filters import Madgwick\n",
                "np.save(out, Madgwick(gyr=gyr, acc=acc, frequency=1 / Ts).Q)\n"))),
            # Fusion's revised Madgwick filter (C), fed sample by sample as its Python API takes it.
            ("imufusion.Ahrs (C, a Python loop) + numpy.save", peer((
                "import imufusion\n",
                "f = imufusion.Ahrs(); f.set_sample_period(Ts)\n"
                "gd = np.degrees(gyr); ag = acc / 9.80665; q = np.empty((len(gd), 4))\n"
                "for i in range(len(gd)):\n"
                "    f.update_no_magnetometer(gd[i], ag[i]); q[i] = f.get_quaternion()\n"
                "np.save(out, q)\n"))),
        ], imu_path),
    ]


def tasks(accelkit, csv_path, npy_path, replay="replay"):
    """(task, accelkit argv, [(peer name, peer argv)], input path). `replay` is
    Examples/firmware/replay.c built against `accelkit export --rule three-peak`'s header."""
    null = "/dev/null"
    return [
        ("load CSV", [accelkit, "convert", csv_path, "--to", "raw", "-o", null], [
            ("pandas.read_csv (C engine)", python_task("import pandas as pd\n#--\nresult = pd.read_csv(sys.argv[1], engine='c')\n")),
            ("pandas.read_csv (pyarrow)", python_task("import pandas as pd\n#--\nresult = pd.read_csv(sys.argv[1], engine='pyarrow')\n")),
            ("numpy.loadtxt", python_task("import numpy as np\n#--\nresult = np.loadtxt(sys.argv[1], delimiter=',', skiprows=1)\n")),
            ("pyarrow.csv.read_csv", python_task("import pyarrow.csv\n#--\nresult = pyarrow.csv.read_csv(sys.argv[1])\n")),
            ("polars.read_csv", python_task("import polars as pl\n#--\nresult = pl.read_csv(sys.argv[1])\n")),
            ("DuckDB read_csv", python_task(
                "import duckdb\n#--\nresult = duckdb.sql(\"SELECT * FROM read_csv('%s')\" % sys.argv[1]).fetchnumpy()\n")),
            ("DuckDB count(*) of read_csv", python_task(
                "import duckdb\n#--\nresult = duckdb.sql(\"SELECT count(*) FROM read_csv('%s')\" % sys.argv[1]).fetchall()\n")),
        ], csv_path),
        ("load NPY", [accelkit, "convert", npy_path, "--to", "raw", "-o", null], [
            ("numpy.load", python_task("import numpy as np\n#--\nresult = np.load(sys.argv[1]); s = float(result['x'].sum())\n")),
        ], npy_path),
        ("exponential low-pass (from NPY)", [accelkit, "filter", "lowpass", "--alpha", "0.1", npy_path, "--to", "raw", "-o", null], [
            ("numpy.load + scipy.signal.lfilter", python_task(
                "import numpy as np\nfrom scipy import signal\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "result = [signal.lfilter([0.1], [1.0, -0.9], a[c]) for c in 'xyz']\n")),
        ], npy_path),
        ("Butterworth order 4 (from NPY)", [accelkit, "filter", "butterworth", "--order", "4", "--cutoff", "5", npy_path, "--to", "raw", "-o", null], [
            ("numpy.load + scipy.signal.sosfilt", python_task(
                "import numpy as np\nfrom scipy import signal\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "sos = signal.butter(4, 5, fs=100, output='sos')\n"
                "result = [signal.sosfilt(sos, a[c]) for c in 'xyz']\n")),
        ], npy_path),
        ("zero-phase Butterworth 4 (from NPY)", [accelkit, "filter", "butterworth", "--order", "4", "--cutoff", "5", "--zero-phase", npy_path, "--to", "raw", "-o", null], [
            ("numpy.load + scipy.signal.sosfiltfilt", python_task(
                "import numpy as np\nfrom scipy import signal\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "sos = signal.butter(4, 5, fs=100, output='sos')\n"
                "result = [signal.sosfiltfilt(sos, a[c]) for c in 'xyz']\n")),
        ], npy_path),
        ("Welch PSD x,y,z (from NPY)", [accelkit, "spectrum", "--axes", "x,y,z", npy_path, "-o", null], [
            ("numpy.load + scipy.signal.welch", python_task(
                "import numpy as np\nfrom scipy import signal\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "result = [signal.welch(a[c], fs=100, nperseg=256) for c in 'xyz']\n")),
        ], npy_path),
        ("roll/pitch/orientation, CSV out (from NPY)", [accelkit, "orientation", npy_path, "-o", os.path.join(WORK, "orientation.csv")], [
            ("numpy.load + lfilter + numpy angles + numpy.savetxt('%.17g')", python_task(
                "import numpy as np, os\nfrom scipy import signal\n#--\n" + ANGLES +
                "np.savetxt(out, np.stack([a['t'], roll, pitch, tilt, up], 1), fmt='%.17g', delimiter=',',"
                " header='t,roll,pitch,tilt,up_angle', comments='')\n")),
            ("the same + pandas.DataFrame.to_csv", python_task(
                "import numpy as np, pandas as pd, os\nfrom scipy import signal\n#--\n" + ANGLES +
                "pd.DataFrame({'t': a['t'], 'roll': roll, 'pitch': pitch, 'tilt': tilt, 'up_angle': up}).to_csv(out, index=False)\n")),
        ], npy_path),
        ("roll/pitch/orientation, NPY out", [accelkit, "orientation", npy_path, "-o", os.path.join(WORK, "orientation.npy")], [
            ("numpy.load + lfilter + numpy angles + numpy.save", python_task(
                "import numpy as np, os\nfrom scipy import signal\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "al = 0.01 / (0.2 + 0.01); b, c = [al], [1.0, al - 1.0]\n"
                "g = [signal.lfilter(b, c, a[k], zi=signal.lfilter_zi(b, c) * a[k][0])[0] for k in 'xyz']\n"
                "out = np.empty(len(a), dtype=[(n, '<f8') for n in ('t', 'roll', 'pitch', 'tilt', 'up_angle')])\n"
                "out['t'] = a['t']; out['pitch'] = np.degrees(np.arctan2(-g[1], np.hypot(g[0], g[2])))\n"
                "out['roll'] = np.degrees(np.arctan2(g[0], -g[2]))\n"
                "out['tilt'] = np.degrees(np.arccos(np.clip(-g[2] / np.sqrt(g[0]**2 + g[1]**2 + g[2]**2), -1, 1)))\n"
                "out['up_angle'] = np.arctan2(g[1], -g[0])\n"
                "np.save(os.path.join(os.path.dirname(sys.argv[1]), 'orientation_py.npy'), out)\n")),
        ], npy_path),
        ] + [
        ("shake rule %s (from NPY)" % rule, [accelkit, "detect-shakes", "--rule", rule, npy_path, "-o", null], [
            ("numpy/scipy + Python state machine", python_task(
                "import numpy as np, os\nsys.path.insert(0, %r)\nfrom shake_rules import %s as rule\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "result = rule(a['t'], a['x'], a['y'], a['z'])\n" % (os.path.join(ROOT, "benchmarks", "peers"), fn))),
        ], npy_path) for rule, fn in (("three-peak", "three_peak"), ("angular-change", "angular_change"), ("seismic", "seismic"))
    ] + [
        ("detect-shakes learned-shake (from NPY)", [accelkit, "detect-shakes", npy_path, "-o", null], [
            ("numpy/scipy %s features + xgboost" % built_in_features(), [
                sys.executable, os.path.join(ROOT, "benchmarks", "peers", "learned_shake.py"),
                "--events", os.path.join(WORK, "learned_py.csv")]),
        ], npy_path),
        ("detect-shakes three-peak (from CSV)", [accelkit, "detect-shakes", "--rule", "three-peak", csv_path, "-o", null], [
            ("pandas.read_csv + numpy/scipy + Python state machine", python_task(
                "import numpy as np, pandas as pd\nsys.path.insert(0, %r)\nfrom shake_rules import three_peak\n#--\n"
                "d = pd.read_csv(sys.argv[1])\n"
                "result = three_peak(*(d[c].to_numpy() for c in 'txyz'))\n" % os.path.join(ROOT, "benchmarks", "peers"))),
        ], csv_path),
        ("three-peak exported to C (replay.c, CSV on stdin)", ["sh", "-c", 'exec "$0" < "$1"', replay, csv_path], [
            ("pandas.read_csv + numpy/scipy + Python state machine", python_task(
                "import numpy as np, pandas as pd\nsys.path.insert(0, %r)\nfrom shake_rules import three_peak\n#--\n"
                "d = pd.read_csv(sys.argv[1])\n"
                "result = three_peak(*(d[c].to_numpy() for c in 'txyz'))\n" % os.path.join(ROOT, "benchmarks", "peers"))),
        ], csv_path),
        ("CSV to NPY", [accelkit, "convert", csv_path, "-o", os.path.join(WORK, "out.npy")], [
            ("pandas.read_csv + numpy.save", python_task(
                "import pandas as pd, numpy as np, os\n#--\n"
                "d = pd.read_csv(sys.argv[1], engine='c')\n"
                "np.save(os.path.join(os.path.dirname(sys.argv[1]), 'out_py.npy'), d.to_records(index=False))\n")),
            ("polars CSV to Parquet", python_task(
                "import polars as pl, os\n#--\n"
                "pl.read_csv(sys.argv[1]).write_parquet(os.path.join(os.path.dirname(sys.argv[1]), 'out_pl.parquet'))\n")),
            ("DuckDB CSV to Parquet", python_task(
                "import duckdb, os\n#--\n"
                "out = os.path.join(os.path.dirname(sys.argv[1]), 'out_dd.parquet')\n"
                "duckdb.sql(\"COPY (SELECT * FROM read_csv('%s')) TO '%s' (FORMAT parquet)\" % (sys.argv[1], out))\n")),
        ], csv_path),
        ("windowed statistics 1 s (from CSV)", [accelkit, "windows", "--width", "1", csv_path, "-o", os.path.join(WORK, "win.csv")], [
            ("pandas.read_csv + groupby(floor(t)).agg + to_csv", python_task(
                "import pandas as pd, numpy as np, os\n#--\n"
                "d = pd.read_csv(sys.argv[1], engine='c')\n"
                "g = d.groupby(np.floor(d.t)).agg({c: ['size' if c == 't' else 'mean', 'std', 'min', 'max'] if c != 't' else ['size'] for c in 'txyz'})\n"
                "g.to_csv(os.path.join(os.path.dirname(sys.argv[1]), 'win_pd.csv'))\n")),
            ("polars group_by(floor(t)) + write_csv", python_task(
                "import polars as pl, os\n#--\n"
                "d = pl.read_csv(sys.argv[1])\n"
                "aggs = [pl.len().alias('n')] + [getattr(pl.col(c), f)().alias(c + '_' + f) for c in 'xyz' for f in ('mean', 'std', 'min', 'max')]\n"
                "d.group_by((pl.col('t').floor()).alias('w'), maintain_order=True).agg(aggs).write_csv(os.path.join(os.path.dirname(sys.argv[1]), 'win_pl.csv'))\n")),
            ("DuckDB GROUP BY floor(t) to CSV", python_task(
                "import duckdb, os\n#--\n"
                "cols = ', '.join('%s(%s)' % (f, c) for c in 'xyz' for f in ('avg', 'stddev_samp', 'min', 'max'))\n"
                "out = os.path.join(os.path.dirname(sys.argv[1]), 'win_dd.csv')\n"
                "duckdb.sql(\"COPY (SELECT floor(t) AS w, count(*) AS n, %s FROM read_csv('%s') GROUP BY w ORDER BY w) TO '%s' (HEADER)\" % (cols, sys.argv[1], out))\n")),
        ], csv_path),
        ("summary statistics (from CSV)", [accelkit, "info", "--format", "csv", csv_path], [
            ("polars min/max/mean/std per axis", python_task(
                "import polars as pl\n#--\n"
                "d = pl.read_csv(sys.argv[1])\n"
                "result = d.select([getattr(pl.col(c), f)().alias(c + f) for c in 'xyz' for f in ('min', 'max', 'mean', 'std')])\n")),
            ("DuckDB min/max/mean/std per axis", python_task(
                "import duckdb\n#--\n"
                "cols = ', '.join('%s(%s)' % (f, c) for c in 'xyz' for f in ('min', 'max', 'avg', 'stddev_samp'))\n"
                "result = duckdb.sql(\"SELECT %s FROM read_csv('%s')\" % (cols, sys.argv[1])).fetchall()\n")),
        ], csv_path),
    ]


def floor_seconds(path):
    """The machine's floor for reading `path`: `cat FILE > /dev/null` as a whole process for CSV,
    a memory copy of the file's size for anything else (the best of 3)."""
    if path.endswith(".csv"):
        return min(run_process(["sh", "-c", 'exec cat "$0" > /dev/null', path])[0] for _ in range(3))
    import numpy as np
    buf = np.ones(os.path.getsize(path) // 8, dtype=np.float64)
    dst = np.empty_like(buf)
    copies = []
    for _ in range(3):
        start = time.perf_counter()
        np.copyto(dst, buf)
        copies.append(time.perf_counter() - start)
    return min(copies)


def check_windows():
    """accelkit's windows against DuckDB's and polars' (the last run's files): the same windows and
    counts; prints the largest relative difference of the statistics."""
    import numpy as np
    ours = np.genfromtxt(os.path.join(WORK, "win.csv"), delimiter=",", skip_header=1)
    for name in ("win_dd.csv", "win_pl.csv"):
        path = os.path.join(WORK, name)
        if not os.path.exists(path):
            continue
        theirs = np.genfromtxt(path, delimiter=",", skip_header=1)
        if theirs.shape != ours.shape:
            print("windows: %s has shape %s, accelkit %s" % (name, theirs.shape, ours.shape))
            continue
        # Relative to the value, or to the column's size for values near zero (a mean of 1e-17
        # is a cancellation whose digits mean nothing).
        scale = np.maximum(np.abs(ours), 1e-9 * np.nanmax(np.abs(ours), axis=0))
        worst = np.nanmax(np.abs(theirs - ours) / scale)
        print("windows: accelkit and %s agree to %.1e (relative)" % (name, worst))


def built_in_features():
    """The built-in model's kind of features (windows or exponential), for the peer's name."""
    with open(os.path.join(ROOT, "models", "shake", "detector.json")) as f:
        return json.load(f)["features"].get("kind", "windows")


def check_learned(accelkit, npy_path):
    """accelkit's learned-shake events against the numpy/xgboost peer's (its last run's file): the
    same events, and the largest difference of their times."""
    ours_path = os.path.join(WORK, "learned.csv")
    theirs_path = os.path.join(WORK, "learned_py.csv")
    if not os.path.exists(theirs_path):
        return
    subprocess.check_call([accelkit, "detect-shakes", npy_path, "-o", ours_path])
    with open(ours_path) as f:
        ours = list(csv.DictReader(f))
    with open(theirs_path) as f:
        theirs = list(csv.DictReader(f))
    if len(ours) != len(theirs):
        print("learned-shake: accelkit %d events, the peer %d" % (len(ours), len(theirs)))
        return
    worst = max([abs(float(a[k]) - float(b[k])) for a, b in zip(ours, theirs) for k in ("start", "end", "reported")],
                default=0.0)
    print("learned-shake: accelkit and the numpy/xgboost peer find the same %d events (times within %.1e s)" % (
        len(ours), worst))


def machine():
    lines = ["platform: " + platform.platform(), "python: " + sys.version.split()[0]]
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
        lines.append("cpu: %s, %d cores" % (model, os.cpu_count()))
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            lines.append("memory: " + f.readline().split(":", 1)[1].strip())
    except OSError:
        pass
    from importlib import metadata
    for name in ("numpy", "pandas", "pyarrow", "scipy", "polars", "duckdb", "vqf", "AHRS", "imufusion", "xgboost-cpu"):
        try:
            lines.append("%s: %s" % (name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    if swift:
        lines.append("swift: " + swift[0])
    return lines


def build_replay(accelkit):
    """Exports three-peak and builds Examples/firmware/replay.c against it; returns the binary."""
    out = os.path.join(WORK, "export-three-peak")
    subprocess.check_call([accelkit, "export", "--rule", "three-peak", "--rate", "100", "-o", out],
                          stderr=subprocess.DEVNULL)
    binary = os.path.join(out, "replay")
    subprocess.check_call(["cc", "-std=c99", "-O2", "-I", out, os.path.join(ROOT, "Examples", "firmware", "replay.c"),
                           "-o", binary, "-lm"])
    return binary


def run_size(accelkit, replay, rows, words, repeat):
    """Every chosen task at `rows` rows: one result per (task, peer)."""
    def wanted(name):
        return not words or any(w in name for w in words)
    chosen = [t for t in tasks(accelkit, "x.csv", "x.npy") if wanted(t[0])]
    csv_path, npy_path = generate(rows, need_csv=any(t[3].endswith(".csv") for t in chosen))
    chosen = [t for t in tasks(accelkit, csv_path, npy_path, replay) if wanted(t[0])]
    if any(wanted(t[0]) for t in attitude_tasks("", "")):
        chosen += [t for t in attitude_tasks(accelkit, generate_imu(rows)) if wanted(t[0])]
    floors = {}
    results = []
    for task, ours, peers, path in chosen:
        print("%d rows: %s" % (rows, task), file=sys.stderr)
        size_mb = os.path.getsize(path) / 1e6
        if path not in floors:
            floors[path] = floor_seconds(path)
        peers = [(name, argv) for name, argv in peers if rows <= NOT_ABOVE.get(name.split(" ")[0], rows)]
        ours_runs = []
        peer_runs = {name: [] for name, _ in peers}
        for _ in range(repeat):  # alternate: ours, then each peer
            ours_runs.append(measure(ours))
            for name, argv in peers:
                if peer_runs[name] and peer_runs[name][0][0] > SLOW_SECONDS:
                    continue
                peer_runs[name].append(measure(argv + [path]))
        ours_s = statistics.median(r[0] for r in ours_runs)
        ours_mb = max(r[2] for r in ours_runs)
        for name, _ in peers:
            runs = peer_runs[name]
            peer_s = statistics.median(r[0] for r in runs)
            inner = [r[1] for r in runs if r[1] is not None]
            results.append({
                "rows": rows, "task": task, "input_mb": round(size_mb, 1), "accelkit_s": round(ours_s, 4),
                "peer": name, "peer_s": round(peer_s, 4),
                "peer_in_process_s": round(statistics.median(inner), 4) if inner else "",
                "peer_runs": len(runs), "ratio": round(peer_s / ours_s, 2),
                "floor": "cat" if path.endswith(".csv") else "memory copy",
                "floor_s": round(floors[path], 4), "accelkit_over_floor": round(ours_s / floors[path], 1),
                "accelkit_peak_mb": round(ours_mb, 1), "peer_peak_mb": round(max(r[2] for r in runs), 1),
                "accelkit_rows_per_s": int(rows / ours_s), "accelkit_mb_per_s": round(size_mb / ours_s, 1),
            })
    if any(r["task"].startswith("windowed statistics") for r in results):
        check_windows()
    if any(r["task"].startswith("detect-shakes learned-shake") for r in results):
        check_learned(accelkit, npy_path)
    return results


def seconds(x):
    return "%.3f s" % x if x >= 0.01 else "%.2f ms" % (1000 * x)


def markdown(results):
    """One table per size: each task against its fastest peer (whole processes), the others beside."""
    lines = []
    for rows in dict.fromkeys(r["rows"] for r in results):
        at = [r for r in results if r["rows"] == rows]
        lines += ["### %s rows" % ("{:,}".format(rows).replace(",", " ")), "",
                  "| task | accelkit | fastest peer (whole process) | its time (work alone) | ratio | floor | "
                  "accelkit / floor | other peers: whole process (work alone) | accelkit RSS | peer RSS |",
                  "| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
        for task in dict.fromkeys(r["task"] for r in at):
            peers = sorted((r for r in at if r["task"] == task), key=lambda r: r["peer_s"])
            best = peers[0]

            def timing(r):
                inner = " (%s)" % seconds(r["peer_in_process_s"]) if r["peer_in_process_s"] != "" else ""
                once = ", 1 run" if r["peer_runs"] == 1 else ""
                return seconds(r["peer_s"]) + inner + once
            others = "; ".join("%s %s" % (r["peer"], timing(r)) for r in peers[1:])
            lines.append("| %s | %s | %s | %s | %.1fx | %s %s | %.1fx | %s | %.0f MB | %.0f MB |" % (
                task, seconds(best["accelkit_s"]), best["peer"], timing(best), best["ratio"], best["floor"],
                seconds(best["floor_s"]), best["accelkit_over_floor"], others, best["accelkit_peak_mb"],
                best["peer_peak_mb"]))
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", default="1000000", help="comma-separated sizes, e.g. 1000000,30000000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--tasks", default="", help="run only tasks whose name contains one of these "
                        "comma-separated words (e.g. 'NPY' or 'low-pass,Butterworth')")
    parser.add_argument("--out", default=os.path.join(ROOT, "notebooks-out", "benchmark.csv"))
    parser.add_argument("--markdown", help="also write the tables as Markdown to this file")
    args = parser.parse_args()

    ensure_python_peers()
    if not args.no_build:
        # As scripts/install builds it: the Swift runtime linked in (1.4 ms less start-up a process).
        subprocess.check_call(["swift", "build", "-c", "release", "--static-swift-stdlib", "--scratch-path",
                               os.path.join(ROOT, ".build-static"), "--product", "accelkit"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    accelkit = os.path.join(ROOT, ".build-static", "release", "accelkit")
    replay = build_replay(accelkit)
    words = [w for w in args.tasks.split(",") if w]
    sizes = [int(r) for r in args.rows.split(",")]
    results = []
    for rows in sizes:
        results += run_size(accelkit, replay, rows, words, args.repeat)

    table = markdown(results)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")

    if words and args.out == parser.get_default("out"):
        args.out = os.path.join(ROOT, "notebooks-out", "benchmark-%s-%s.csv" % ("-".join(map(str, sizes)), "-".join(
            "".join(c if c.isalnum() else "_" for c in w) for w in words)))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        writer.writeheader()
        writer.writerows(results)
    with open(os.path.splitext(args.out)[0] + "-machine.txt", "w") as f:
        f.write("\n".join(machine() + ["rows: %s" % args.rows, "repeat: %d" % args.repeat,
                                       "command: python3 benchmarks/run.py " + " ".join(sys.argv[1:])]) + "\n")
    print("wrote", os.path.relpath(args.out, ROOT))


if __name__ == "__main__":
    main()
