#!/usr/bin/env python3
"""Writes the NPY fixtures under Tests/Fixtures with numpy, so that the tests can check that
accelkit reads what numpy writes. Run from the repository root: python3 scripts/make_fixtures.py
The numpy version used is recorded in Tests/Fixtures/PROVENANCE.txt."""
import os
import numpy as np

out = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures")
os.makedirs(out, exist_ok=True)

t = np.arange(5) / 100.0
x = np.array([0.0123, -0.5, 1.25, -0.0, 3.0e-7])
y = np.array([0.9981, 0.1, -2.3, 1e-300, 12345.678])
z = np.array([0.0456, -1.0, 0.333333333333333314829616256247, 2.5, -9.80665])

rec = np.zeros(5, dtype=[("t", "<f8"), ("x", "<f8"), ("y", "<f8"), ("z", "<f8")])
rec["t"], rec["x"], rec["y"], rec["z"] = t, x, y, z
np.save(os.path.join(out, "numpy_structured_f8.npy"), rec)

rec32 = rec.astype([("t", "<f4"), ("x", "<f4"), ("y", "<f4"), ("z", "<f4")])
np.save(os.path.join(out, "numpy_structured_f4.npy"), rec32)

# Extra fields and a different order: accelkit maps by name and skips the rest.
extra = np.zeros(5, dtype=[("id", "<i4"), ("z", "<f8"), ("y", "<f8"), ("x", "<f8"), ("t", "<f8"), ("flag", "u1")])
extra["id"] = np.arange(5)
extra["t"], extra["x"], extra["y"], extra["z"] = t, x, y, z
extra["flag"] = 1
np.save(os.path.join(out, "numpy_structured_extra.npy"), extra)

plain = np.stack([t, x, y, z], axis=1)
np.save(os.path.join(out, "numpy_plain_txyz.npy"), plain)

with open(os.path.join(out, "PROVENANCE.txt"), "w") as f:
    f.write("numpy_*.npy written by scripts/make_fixtures.py with numpy %s\n" % np.__version__)
