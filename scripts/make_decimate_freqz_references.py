#!/usr/bin/env python3
"""Reference vectors for accelkit's decimation and frequency responses, computed with scipy.signal.

Writes Tests/Fixtures/filters/decimate_freqz.json: cheby1(n, 0.05, 0.8/q, output='sos') (the
anti-alias filter of scipy.signal.decimate's default IIR), decimate(x, q) zero-phase and causal on
a seeded trace, and sosfreqz(sos, worN=512, fs=rate) of Butterworth and Chebyshev designs (gain
and unwrapped phase). The scipy and numpy versions are written into the file. Run from the
repository root:
    python3 scripts/make_decimate_freqz_references.py
"""
import json
import os

import numpy as np
import scipy
from scipy import signal


def exact(values):
    """Numbers as their shortest round-trip text."""
    return [exact(v) for v in values] if isinstance(values, (list, tuple)) else repr(float(values))


out = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "filters")
os.makedirs(out, exist_ok=True)

designs = []
for order in (2, 4, 8):
    for q in (2, 3, 4, 5, 8, 10, 13):
        sos = signal.cheby1(order, 0.05, 0.8 / q, output="sos")
        designs.append({"order": order, "factor": q, "sos": exact(sos.tolist())})

rng = np.random.default_rng(20261123)
n = 3001
rate = 200.0
t = np.arange(n) / rate
x = -1.0 + 0.4 * np.sin(2 * np.pi * 2.0 * t) + 0.3 * np.sin(2 * np.pi * 31.0 * t) + rng.normal(0, 0.05, n)
decimated = []
for q in (2, 3, 5, 10):
    decimated.append({
        "factor": q,
        "zero_phase": exact(signal.decimate(x, q).tolist()),
        "causal": exact(signal.decimate(x, q, zero_phase=False).tolist()),
    })

responses = []
for kind, sos, rate in (
    ("butter low 4 5 Hz", signal.butter(4, 5.0, fs=100.0, output="sos"), 100.0),
    ("butter high 2 0.5 Hz", signal.butter(2, 0.5, btype="high", fs=100.0, output="sos"), 100.0),
    ("butter bandpass 3 0.5-3 Hz", signal.butter(3, [0.5, 3.0], btype="bandpass", fs=50.0, output="sos"), 50.0),
    ("cheby1 8 q=4", signal.cheby1(8, 0.05, 0.8 / 4, output="sos"), 200.0),
):
    f, h = signal.sosfreqz(sos, worN=512, fs=rate)
    responses.append({
        "name": kind, "rate": rate, "sos": exact(sos.tolist()), "frequency": exact(f.tolist()),
        "gain": exact(np.abs(h).tolist()), "phase": exact(np.unwrap(np.angle(h)).tolist()),
    })

with open(os.path.join(out, "decimate_freqz.json"), "w") as f:
    json.dump({
        "versions": {"scipy": scipy.__version__, "numpy": np.__version__},
        "cheby1": designs, "signal": {"rate": rate, "x": exact(x.tolist())}, "decimate": decimated,
        "sosfreqz": responses,
    }, f)
