#!/usr/bin/env python3
"""accelkit against the Python stack, side by side, on the same generated workload.

    python3 benchmarks/run.py                 # 10^6 rows, 5 runs per measurement
    python3 benchmarks/run.py --rows 30000000 # the large workload (about 1 GB of CSV)
    python3 benchmarks/run.py --rows 30000000 --tasks "from NPY" --repeat 3   # filters on 3*10^7 rows
    python3 benchmarks/run.py --tasks attitude  # the attitude filters against vqf and ahrs (IMU workload)

It builds accelkit in release mode, writes a deterministic accelerometer-like trace (100 Hz,
columns t,x,y,z with 6/4 decimals) as CSV and NPY under benchmarks/work/, and times each task
with accelkit and with the way a competent Python user would do it, alternating the two, taking
the median of --repeat runs. accelkit is timed as a whole process (start-up included); Python
peers are timed inside their process around the operation only (imports excluded; for the filter
tasks the operation includes numpy.load, as a script must load its data), which favours them. Peak memory is each process's maximum resident set size. Results go to stdout as a table
and to notebooks-out/benchmark.csv, with the machine in notebooks-out/benchmark-machine.txt (a run
with --tasks or --out writes its own CSV and a -machine.txt beside it).
Installs pandas and pyarrow with pip when they are missing.
"""
import argparse
import csv
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
    for module in ("numpy", "pandas", "pyarrow", "vqf", "ahrs", "polars", "duckdb"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
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
    """Writes imu_ROWS.npy (seeded): t, x, y, z in g (Apple's convention), gx, gy, gz in rad/s,
    mx, my, mz in uT, from a smooth random rotation at 100 Hz. Returns the path."""
    import numpy as np
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "imu_%d.npy" % rows)
    if os.path.exists(path):
        return path
    rng = np.random.default_rng(54321)
    t = np.arange(rows) / 100.0
    w = np.stack([0.8 * np.sin(2 * np.pi * f * t + p) for f, p in ((0.31, 0.0), (0.17, 1.0), (0.23, 2.0))], 1)
    # Integrate the attitude with rotation vectors (numpy, in chunks of the quaternion recursion).
    q = np.empty((rows, 4))
    cur = np.array([1.0, 0, 0, 0])
    angle = np.linalg.norm(w, axis=1) * 0.01
    axis = w / np.maximum(np.linalg.norm(w, axis=1), 1e-300)[:, None]
    dq = np.concatenate([np.cos(angle / 2)[:, None], np.sin(angle / 2)[:, None] * axis], 1)
    for i in range(rows):
        q[i] = cur
        a, b = cur, dq[i]
        cur = np.array([a[0]*b[0] - a[1]*b[1] - a[2]*b[2] - a[3]*b[3], a[0]*b[1] + a[1]*b[0] + a[2]*b[3] - a[3]*b[2],
                        a[0]*b[2] - a[1]*b[3] + a[2]*b[0] + a[3]*b[1], a[0]*b[3] + a[1]*b[2] - a[2]*b[1] + a[3]*b[0]])
    qw, qx, qy, qz = q.T
    up = np.stack([2*(qx*qz - qw*qy), 2*(qw*qx + qy*qz), 1 - 2*(qx*qx + qy*qy)], 1)
    north = np.stack([2*(qx*qy + qw*qz), 1 - 2*(qx*qx + qz*qz), 2*(qy*qz - qw*qx)], 1)
    rec = np.zeros(rows, dtype=[(n, "<f8") for n in ("t", "x", "y", "z", "gx", "gy", "gz", "mx", "my", "mz")])
    rec["t"] = t
    acc = -up + rng.normal(0, 0.01, (rows, 3))  # g, Apple's convention: -specific force
    mag = 20 * north - 40 * up + rng.normal(0, 0.3, (rows, 3))
    gyr = w + 0.002 + rng.normal(0, 0.005, (rows, 3))
    for k, c in enumerate("xyz"):
        rec[c] = acc[:, k]
        rec["g" + c] = gyr[:, k]
        rec["m" + c] = mag[:, k]
    np.save(path + ".tmp.npy", rec)
    os.replace(path + ".tmp.npy", path)
    return path


def run_process(argv):
    """Runs argv; returns (wall seconds, stdout). The page cache's dirty data is written out first,
    so that no run pays for the files the previous one wrote (the kernel throttles a writer while
    it flushes hundreds of megabytes another process left behind)."""
    os.sync()
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(argv), err.decode()[-500:]))
    return wall, out.decode()


def measure(argv):
    """Runs argv in a child and returns (seconds, peak MB, stdout). Python children print their
    own operation time on the first line of stdout as 'SECONDS <s>'."""
    wall, out = run_process(argv)
    seconds = wall
    lines = out.splitlines()
    if lines and lines[0].startswith("SECONDS "):
        seconds = float(lines[0].split()[1])
    return seconds, out


def peak_rss_mb(argv):
    """Peak RSS of one run of argv, in MB (through /usr/bin/time when available)."""
    if os.path.exists("/usr/bin/time"):
        proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, capture_output=True, text=True)
        try:
            return int(proc.stderr.strip().splitlines()[-1]) / 1024
        except (ValueError, IndexError):
            return float("nan")
    return float("nan")


PY_PREFIX = "import sys, time\n"


def python_task(code):
    """A Python peer: `code` reads sys.argv[1] and must assign `result`; only it is timed."""
    setup, _, body = code.partition("#--\n")
    program = PY_PREFIX + setup + "\nstart = time.perf_counter()\n" + body + \
        "\nprint('SECONDS %.9f' % (time.perf_counter() - start))\n"
    return [sys.executable, "-c", program]


def python_process(code):
    """A Python peer timed as a whole process, imports and start-up included (as accelkit is):
    `code` reads sys.argv[1]."""
    return [sys.executable, "-c", "import sys\n" + code]


# Peers too slow to run more than once per measurement (pure Python loops over every sample, or
# minutes of array work at 10^7 rows).
SLOW_PEERS = ("ahrs.filters.Madgwick", "numpy/scipy window features")

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
        ], imu_path),
    ]


def tasks(accelkit, csv_path, npy_path):
    """(task, accelkit argv, [(peer name, peer argv)], input path)."""
    null = "/dev/null"
    return [
        ("load CSV", [accelkit, "convert", csv_path, "--to", "raw", "-o", null], [
            ("pandas.read_csv (C engine)", python_task("import pandas as pd\n#--\nresult = pd.read_csv(sys.argv[1], engine='c')\n")),
            ("pandas.read_csv (pyarrow)", python_task("import pandas as pd\n#--\nresult = pd.read_csv(sys.argv[1], engine='pyarrow')\n")),
            ("numpy.loadtxt", python_task("import numpy as np\n#--\nresult = np.loadtxt(sys.argv[1], delimiter=',', skiprows=1)\n")),
            ("polars.read_csv (whole process)", python_process("import polars as pl\nresult = pl.read_csv(sys.argv[1])\n")),
            ("DuckDB read_csv (whole process)", python_process(
                "import duckdb\nresult = duckdb.sql(\"SELECT * FROM read_csv('%s')\" % sys.argv[1]).fetchnumpy()\n")),
        ], csv_path),
        ("load NPY", [accelkit, "convert", npy_path, "--to", "raw", "-o", null], [
            ("numpy.load", python_task("import numpy as np\n#--\nresult = np.load(sys.argv[1]); s = float(result['x'].sum())\n")),
            ("numpy.load (whole process)", python_process(
                "import numpy as np\nresult = np.load(sys.argv[1]); s = float(result['x'].sum())\n")),
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
        ("roll/pitch/orientation (from NPY)", [accelkit, "orientation", npy_path, "-o", null], [
            ("numpy.load + lfilter + numpy angles (in memory)", python_task(
                "import numpy as np\nfrom scipy import signal\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "al = 0.01 / (0.2 + 0.01); b, c = [al], [1.0, al - 1.0]\n"
                "g = [signal.lfilter(b, c, a[k], zi=signal.lfilter_zi(b, c) * a[k][0])[0] for k in 'xyz']\n"
                "pitch = np.degrees(np.arctan2(-g[1], np.hypot(g[0], g[2]))); roll = np.degrees(np.arctan2(g[0], -g[2]))\n"
                "tilt = np.degrees(np.arccos(np.clip(-g[2] / np.sqrt(g[0]**2 + g[1]**2 + g[2]**2), -1, 1)))\n"
                "result = (roll, pitch, tilt, np.arctan2(g[1], -g[0]))\n")),
            ("the same + pandas.DataFrame.to_csv", python_task(
                "import numpy as np, pandas as pd\nfrom scipy import signal\n#--\n"
                "a = np.load(sys.argv[1])\n"
                "al = 0.01 / (0.2 + 0.01); b, c = [al], [1.0, al - 1.0]\n"
                "g = [signal.lfilter(b, c, a[k], zi=signal.lfilter_zi(b, c) * a[k][0])[0] for k in 'xyz']\n"
                "pitch = np.degrees(np.arctan2(-g[1], np.hypot(g[0], g[2]))); roll = np.degrees(np.arctan2(g[0], -g[2]))\n"
                "tilt = np.degrees(np.arccos(np.clip(-g[2] / np.sqrt(g[0]**2 + g[1]**2 + g[2]**2), -1, 1)))\n"
                "pd.DataFrame({'t': a['t'], 'roll': roll, 'pitch': pitch, 'tilt': tilt, 'up_angle': np.arctan2(g[1], -g[0])}).to_csv('/dev/null', index=False)\n")),
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
            ("numpy/scipy window features + xgboost (whole process)", [
                sys.executable, os.path.join(ROOT, "benchmarks", "peers", "learned_shake.py"),
                "--events", os.path.join(WORK, "learned_py.csv")]),
        ], npy_path),
        ("detect-shakes three-peak (from CSV)", [accelkit, "detect-shakes", "--rule", "three-peak", csv_path, "-o", null], [
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
            ("polars CSV to Parquet (whole process)", python_process(
                "import polars as pl, os\n"
                "pl.read_csv(sys.argv[1]).write_parquet(os.path.join(os.path.dirname(sys.argv[1]), 'out_pl.parquet'))\n")),
            ("DuckDB CSV to Parquet (whole process)", python_process(
                "import duckdb, os\n"
                "out = os.path.join(os.path.dirname(sys.argv[1]), 'out_dd.parquet')\n"
                "duckdb.sql(\"COPY (SELECT * FROM read_csv('%s')) TO '%s' (FORMAT parquet)\" % (sys.argv[1], out))\n")),
        ], csv_path),
        ("windowed statistics 1 s (from CSV)", [accelkit, "windows", "--width", "1", csv_path, "-o", os.path.join(WORK, "win.csv")], [
            ("pandas.read_csv + groupby(floor(t)).agg + to_csv", python_task(
                "import pandas as pd, numpy as np, os\n#--\n"
                "d = pd.read_csv(sys.argv[1], engine='c')\n"
                "g = d.groupby(np.floor(d.t)).agg({c: ['size' if c == 't' else 'mean', 'std', 'min', 'max'] if c != 't' else ['size'] for c in 'txyz'})\n"
                "g.to_csv(os.path.join(os.path.dirname(sys.argv[1]), 'win_pd.csv'))\n")),
            ("polars group_by(floor(t)) + write_csv (whole process)", python_process(
                "import polars as pl, os\n"
                "d = pl.read_csv(sys.argv[1])\n"
                "aggs = [pl.len().alias('n')] + [getattr(pl.col(c), f)().alias(c + '_' + f) for c in 'xyz' for f in ('mean', 'std', 'min', 'max')]\n"
                "d.group_by((pl.col('t').floor()).alias('w'), maintain_order=True).agg(aggs).write_csv(os.path.join(os.path.dirname(sys.argv[1]), 'win_pl.csv'))\n")),
            ("DuckDB GROUP BY floor(t) to CSV (whole process)", python_process(
                "import duckdb, os\n"
                "cols = ', '.join('%s(%s)' % (f, c) for c in 'xyz' for f in ('avg', 'stddev_samp', 'min', 'max'))\n"
                "out = os.path.join(os.path.dirname(sys.argv[1]), 'win_dd.csv')\n"
                "duckdb.sql(\"COPY (SELECT floor(t) AS w, count(*) AS n, %s FROM read_csv('%s') GROUP BY w ORDER BY w) TO '%s' (HEADER)\" % (cols, sys.argv[1], out))\n")),
        ], csv_path),
        ("summary statistics (from CSV)", [accelkit, "info", "--format", "csv", csv_path], [
            ("polars min/max/mean/std per axis (whole process)", python_process(
                "import polars as pl\n"
                "d = pl.read_csv(sys.argv[1])\n"
                "result = d.select([getattr(pl.col(c), f)().alias(c + f) for c in 'xyz' for f in ('min', 'max', 'mean', 'std')])\n")),
            ("DuckDB min/max/mean/std per axis (whole process)", python_process(
                "import duckdb\n"
                "cols = ', '.join('%s(%s)' % (f, c) for c in 'xyz' for f in ('min', 'max', 'avg', 'stddev_samp'))\n"
                "result = duckdb.sql(\"SELECT %s FROM read_csv('%s')\" % (cols, sys.argv[1])).fetchall()\n")),
        ], csv_path),
    ]


def floors(csv_path):
    """Throughput of `cat FILE > /dev/null` and of a memory copy, in MB/s."""
    size = os.path.getsize(csv_path)
    cats = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run("cat '%s' > /dev/null" % csv_path, shell=True, check=True)
        cats.append(time.perf_counter() - start)
    import numpy as np
    buf = np.ones(size // 8, dtype=np.float64)
    copies = []
    for _ in range(3):
        start = time.perf_counter()
        np.copyto(np.empty_like(buf), buf)
        copies.append(time.perf_counter() - start)
    return size / min(cats) / 1e6, size / min(copies) / 1e6


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
    for module in ("numpy", "pandas", "pyarrow", "scipy", "polars", "duckdb"):
        try:
            lines.append("%s: %s" % (module, __import__(module).__version__))
        except ImportError:
            pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    if swift:
        lines.append("swift: " + swift[0])
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--tasks", default="", help="run only tasks whose name contains one of these "
                        "comma-separated words (e.g. 'NPY' or 'low-pass,Butterworth')")
    parser.add_argument("--out", default=os.path.join(ROOT, "notebooks-out", "benchmark.csv"))
    args = parser.parse_args()

    ensure_python_peers()
    if not args.no_build:
        # As scripts/install builds it: the Swift runtime linked in (1.4 ms less start-up a process).
        subprocess.check_call(["swift", "build", "-c", "release", "--static-swift-stdlib", "--scratch-path",
                               os.path.join(ROOT, ".build-static"), "--product", "accelkit"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    accelkit = os.path.join(ROOT, ".build-static", "release", "accelkit")
    words = [w for w in args.tasks.split(",") if w]
    chosen = [t for t in tasks(accelkit, "CSV", "NPY") if not words or any(w in t[0] for w in words)]
    csv_path, npy_path = generate(args.rows, need_csv=any(t[3] == "CSV" for t in chosen))
    chosen = [t for t in tasks(accelkit, csv_path, npy_path) if not words or any(w in t[0] for w in words)]
    if any(not words or any(w in t[0] for w in words) for t in attitude_tasks("", "")):
        imu_path = generate_imu(args.rows)
        chosen += [t for t in attitude_tasks(accelkit, imu_path) if not words or any(w in t[0] for w in words)]

    results = []
    for task, ours, peers, path in chosen:
        size_mb = os.path.getsize(path) / 1e6
        ours_times = []
        peer_times = {name: [] for name, _ in peers}
        for _ in range(args.repeat):  # alternate: ours, then each peer
            ours_times.append(measure(ours)[0])
            for name, argv in peers:
                if peer_times[name] and any(name.startswith(p) for p in SLOW_PEERS):
                    continue
                peer_times[name].append(measure(argv + [path])[0])
        ours_s = statistics.median(ours_times)
        ours_mb = peak_rss_mb(ours)
        for name, argv in peers:
            peer_s = statistics.median(peer_times[name])
            results.append({
                "task": task, "rows": args.rows, "input_mb": round(size_mb, 1),
                "accelkit_s": round(ours_s, 4), "peer": name, "peer_s": round(peer_s, 4),
                "ratio": round(peer_s / ours_s, 2),
                "accelkit_peak_mb": round(ours_mb, 1), "peer_peak_mb": round(peak_rss_mb(argv + [path]), 1),
                "accelkit_rows_per_s": int(args.rows / ours_s), "accelkit_mb_per_s": round(size_mb / ours_s, 1),
                "peer_mb_per_s": round(size_mb / peer_s, 1),
            })

    cat_mbs, copy_mbs = floors(csv_path if os.path.exists(csv_path) else npy_path)
    header = ["task", "accelkit s", "peer", "peer s", "ratio", "accelkit MB", "peer MB", "rows/s", "MB/s"]
    table = [header] + [[r["task"], "%.3f" % r["accelkit_s"], r["peer"], "%.3f" % r["peer_s"],
                         ("%.1fx" % r["ratio"]) + ("" if r["ratio"] >= 1 else " (slower)"),
                         "%.0f" % r["accelkit_peak_mb"], "%.0f" % r["peer_peak_mb"],
                         "%.3g" % r["accelkit_rows_per_s"], "%.0f" % r["accelkit_mb_per_s"]] for r in results]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    print()
    print("per task: accelkit against the fastest peer")
    for task in dict.fromkeys(r["task"] for r in results):
        rows = [r for r in results if r["task"] == task]
        best = min(rows, key=lambda r: r["peer_s"])
        print("  %s: %.3f s; best peer %s %.3f s: %.1fx" % (task, best["accelkit_s"], best["peer"], best["peer_s"],
                                                       best["peer_s"] / best["accelkit_s"]))
    print("floors: cat > /dev/null %.0f MB/s, memory copy %.0f MB/s" % (cat_mbs, copy_mbs))
    print("per task: accelkit's input throughput against the floors")
    for task in dict.fromkeys(r["task"] for r in results):
        r = next(r for r in results if r["task"] == task)
        print("  %s: %.0f MB/s, %.1f%% of cat, %.1f%% of a memory copy" % (
            task, r["accelkit_mb_per_s"], 100 * r["accelkit_mb_per_s"] / cat_mbs, 100 * r["accelkit_mb_per_s"] / copy_mbs))
    if any(r["task"].startswith("windowed statistics") for r in results):
        check_windows()
    if any(r["task"].startswith("detect-shakes learned-shake") for r in results):
        check_learned(accelkit, npy_path)
    for r in results:
        if r["task"] in ("load CSV", "load NPY") and r["peer"] in ("pandas.read_csv (C engine)", "numpy.load"):
            print("%s: accelkit reaches %.1f%% of cat, %.1f%% of a memory copy" % (
                r["task"], 100 * r["accelkit_mb_per_s"] / cat_mbs, 100 * r["accelkit_mb_per_s"] / copy_mbs))

    if words and args.out == parser.get_default("out"):
        args.out = os.path.join(ROOT, "notebooks-out", "benchmark-%d-%s.csv" % (args.rows, "-".join(
            "".join(c if c.isalnum() else "_" for c in w) for w in words)))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(results[0].keys()))
        writer.writeheader()
        writer.writerows(results)
    machine_path = os.path.splitext(args.out)[0] + "-machine.txt"
    if args.out == parser.get_default("out"):
        machine_path = os.path.join(os.path.dirname(args.out), "benchmark-machine.txt")
    with open(machine_path, "w") as f:
        f.write("\n".join(machine() + ["rows: %d" % args.rows, "repeat: %d" % args.repeat,
                                       "floor cat MB/s: %.0f" % cat_mbs, "floor memcpy MB/s: %.0f" % copy_mbs]) + "\n")
    print("wrote", os.path.relpath(args.out, ROOT))


if __name__ == "__main__":
    main()
