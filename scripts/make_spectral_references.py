#!/usr/bin/env python3
"""Reference vectors for accelkit's spectra, computed with scipy.signal (welch, periodogram,
spectrogram) on seeded signals; numbers are stored as their shortest round-trip text, and the
scipy and numpy versions are recorded. Run from the repository root:
    python3 scripts/make_spectral_references.py
"""
import json
import os
import warnings

import numpy as np
import scipy
from scipy import signal

out = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "spectral")
os.makedirs(out, exist_ok=True)


def exact(values):
    return [exact(v) for v in values] if isinstance(values, (list, tuple)) else repr(float(values))


rng = np.random.default_rng(7)
rate = 100.0
signals = {}
for n in (1000, 777, 100):  # even, odd, shorter than one default segment
    t = np.arange(n) / rate
    signals[n] = (0.8 * np.sin(2 * np.pi * 3.3 * t) + 0.3 * np.sin(2 * np.pi * 17.0 * t) + 0.05 * t
                  + rng.normal(0, 0.1, n) - 1.0)

windows = {"hann": "hann", "hamming": "hamming", "blackman": "blackman", "boxcar": "boxcar",
           "tukey": ("tukey", 0.5)}
cases = []
for n, x in signals.items():
    for name, window in windows.items():
        for segment, overlap, nfft in ((256, 128, None), (100, 25, None), (64, 0, 128), (50, 49, None)):
            for detrend in ("constant", "linear", False):
                for scaling in ("density", "spectrum"):
                    if name != "hann" and (segment, overlap) != (100, 25):
                        continue
                    if overlap >= min(segment, n):
                        continue  # scipy refuses it (a short signal shrinks the segment, not the overlap)
                    if detrend == "linear" and scaling == "spectrum" and name != "hann":
                        continue
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        f, p = signal.welch(x, fs=rate, window=window, nperseg=segment, noverlap=overlap,
                                            nfft=nfft, detrend=detrend, scaling=scaling)
                    cases.append({"kind": "welch", "n": n, "window": name, "segment": segment, "overlap": overlap,
                                  "nfft": nfft, "detrend": detrend or "none", "scaling": scaling, "average": "mean",
                                  "frequencies": exact(f.tolist()), "power": exact(p.tolist())})
    if n < 256:
        # Shorter than the default segment: scipy uses the whole signal as one segment.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f, p = signal.welch(x, fs=rate, nperseg=256, noverlap=n // 2)
        cases.append({"kind": "welch", "n": n, "window": "hann", "segment": 256, "overlap": n // 2, "nfft": None,
                      "detrend": "constant", "scaling": "density", "average": "mean", "short": True,
                      "frequencies": exact(f.tolist()), "power": exact(p.tolist())})
    for average in ("median",):
        f, p = signal.welch(x, fs=rate, nperseg=64, noverlap=32, average=average)
        cases.append({"kind": "welch", "n": n, "window": "hann", "segment": 64, "overlap": 32, "nfft": None,
                      "detrend": "constant", "scaling": "density", "average": average,
                      "frequencies": exact(f.tolist()), "power": exact(p.tolist())})
    for name, window in (("boxcar", "boxcar"), ("hann", "hann")):
        for detrend in ("constant", "linear", False):
            for scaling in ("density", "spectrum"):
                for nfft in (None, n + 13):
                    f, p = signal.periodogram(x, fs=rate, window=window, nfft=nfft, detrend=detrend, scaling=scaling)
                    cases.append({"kind": "periodogram", "n": n, "window": name, "nfft": nfft,
                                  "detrend": detrend or "none", "scaling": scaling,
                                  "frequencies": exact(f.tolist()), "power": exact(p.tolist())})
spectrograms = []
x = signals[1000]
for window, segment, overlap in ((("tukey", 0.25), 256, 32), ("hann", 100, 50), (("tukey", 0.25), 64, 8)):
    f, t, s = signal.spectrogram(x, fs=rate, window=window, nperseg=segment, noverlap=overlap)
    spectrograms.append({"window": window if isinstance(window, str) else "tukey", "alpha": 0.25 if not isinstance(window, str) else None,
                         "segment": segment, "overlap": overlap, "frequencies": exact(f.tolist()),
                         "times": exact(t.tolist()), "power": exact(s.T.tolist())})
with open(os.path.join(out, "spectra.json"), "w") as f:
    json.dump({"versions": {"scipy": scipy.__version__, "numpy": np.__version__}, "rate": rate,
               "signals": {str(n): exact(x.tolist()) for n, x in signals.items()},
               "cases": cases, "spectrograms": spectrograms}, f)
