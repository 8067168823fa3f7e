#!/usr/bin/env python3
"""Reference vectors for accelkit's filters, computed with scipy.signal.

Writes Tests/Fixtures/filters/butter_sos.json (butter(N, Wn, btype, fs=rate, output='sos') for
orders 1-8, every band, several rates and cutoffs) and filter_outputs.json (sosfilt, sosfilt with
steady-state zi, sosfiltfilt and lfilter of the exponential filter on a seeded noisy trace).
The scipy and numpy versions are written into each file. Run from the repository root:
    python3 scripts/make_filter_references.py
"""
import json
import math
import os

import numpy as np
import scipy
from scipy import signal


def exact(values):
    """Numbers as their shortest round-trip text (JSON number parsers are not all exact)."""
    return [exact(v) for v in values] if isinstance(values, (list, tuple)) else repr(float(values))

out = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "filters")
os.makedirs(out, exist_ok=True)
versions = {"scipy": scipy.__version__, "numpy": np.__version__}

designs = []
for rate in (30.0, 50.0, 100.0, 285.7142857142857):
    ny = rate / 2
    for order in range(1, 9):
        for fc in (0.5, 5.0, 0.4 * rate):
            for band in ("low", "high"):
                sos = signal.butter(order, fc, btype=band, fs=rate, output="sos")
                designs.append({"order": order, "band": band, "cutoff": fc, "rate": rate, "sos": exact(sos.tolist())})
        for lo, hi in ((0.5, 3.0), (2.0, 0.45 * rate)):
            for band in ("bandpass", "bandstop"):
                sos = signal.butter(order, [lo, hi], btype=band, fs=rate, output="sos")
                designs.append({"order": order, "band": band, "cutoff": lo, "cutoff_high": hi, "rate": rate,
                                "sos": exact(sos.tolist())})
with open(os.path.join(out, "butter_sos.json"), "w") as f:
    json.dump({"versions": versions, "designs": designs}, f)

rng = np.random.default_rng(2026)
n = 2000
rate = 100.0
t = np.arange(n) / rate
x = -1.0 + 0.3 * np.sin(2 * np.pi * 1.3 * t) + 0.2 * np.sin(2 * np.pi * 9.0 * t) + rng.normal(0, 0.05, n)
cases = []
for order, wn, band in ((4, 5.0, "low"), (2, 0.5, "high"), (3, [0.5, 3.0], "bandpass"), (2, [8.0, 12.0], "bandstop"),
                        (1, 2.0, "low"), (5, 20.0, "high")):
    sos = signal.butter(order, wn, btype=band, fs=rate, output="sos")
    zi = signal.sosfilt_zi(sos) * x[0]
    cases.append({
        "order": order, "band": band, "cutoff": wn if np.isscalar(wn) else wn[0],
        "cutoff_high": None if np.isscalar(wn) else wn[1], "rate": rate,
        "sosfilt": exact(signal.sosfilt(sos, x).tolist()),
        "sosfilt_steady": exact(signal.sosfilt(sos, x, zi=zi)[0].tolist()),
        "sosfiltfilt": exact(signal.sosfiltfilt(sos, x).tolist()),
    })
exponential = []
for alpha in (0.1, (1 / rate) / (1 / (2 * math.pi * 2.0) + 1 / rate)):
    b, a = [alpha], [1.0, alpha - 1.0]
    zi = signal.lfilter_zi(b, a) * x[0]
    exponential.append({"alpha": exact(alpha), "lfilter": exact(signal.lfilter(b, a, x).tolist()),
                        "lfilter_steady": exact(signal.lfilter(b, a, x, zi=zi)[0].tolist())})
with open(os.path.join(out, "filter_outputs.json"), "w") as f:
    json.dump({"versions": versions, "rate": rate, "x": exact(x.tolist()), "butterworth": cases,
               "exponential": exponential}, f)
