#!/usr/bin/env python3
"""Reference vectors for accelkit's cross spectra, computed with scipy.signal.

Writes Tests/Fixtures/spectral/cross.json: csd(x, y) and coherence(x, y) of a seeded pair of
signals with scipy's defaults and with other segments, windows, detrending and scaling, and of a
pair shorter than a segment. The scipy and numpy versions are written into the file. Run from the
repository root:
    python3 scripts/make_cross_spectral_references.py
"""
import json
import os
import warnings

import numpy as np
import scipy
from scipy import signal


def exact(values):
    """Numbers as their shortest round-trip text."""
    return [exact(v) for v in values] if isinstance(values, (list, tuple)) else repr(float(values))


out = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "spectral")
os.makedirs(out, exist_ok=True)

rng = np.random.default_rng(1123)
rate = 100.0
n = 5000
t = np.arange(n) / rate
common = np.sin(2 * np.pi * 3.0 * t)
x = -1.0 + 0.5 * common + 0.2 * np.sin(2 * np.pi * 11.0 * t) + rng.normal(0, 0.1, n)
y = 0.3 * np.roll(common, 5) + 0.1 * t / t[-1] + rng.normal(0, 0.1, n)

cases = []
for name, length, kwargs in (
    ("defaults", n, {}),
    ("segment 100, hamming, linear, spectrum", n, {"nperseg": 100, "noverlap": 25, "window": "hamming",
                                                   "detrend": "linear", "scaling": "spectrum"}),
    ("odd nfft", n, {"nperseg": 99, "noverlap": 49, "nfft": 129}),
    ("shorter than a segment", 200, {}),
):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f, pxy = signal.csd(x[:length], y[:length], fs=rate, **kwargs)
        _, cxy = signal.coherence(x[:length], y[:length], fs=rate,
                                  **{k: v for k, v in kwargs.items() if k != "scaling"})
    cases.append({
        "name": name, "length": length, "segment": kwargs.get("nperseg", 256),
        "overlap": kwargs.get("noverlap"), "nfft": kwargs.get("nfft"), "window": kwargs.get("window", "hann"),
        "detrend": kwargs.get("detrend", "constant"), "scaling": kwargs.get("scaling", "density"),
        "frequency": exact(f.tolist()), "re": exact(pxy.real.tolist()), "im": exact(pxy.imag.tolist()),
        "coherence": exact(cxy.tolist()),
    })

with open(os.path.join(out, "cross.json"), "w") as fh:
    json.dump({"versions": {"scipy": scipy.__version__, "numpy": np.__version__}, "rate": rate,
               "x": exact(x.tolist()), "y": exact(y.tolist()), "cases": cases}, fh)
