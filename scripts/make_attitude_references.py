#!/usr/bin/env python3
"""Reference attitudes for accelkit's attitude filters, from the Python packages users run.

Makes a seeded synthetic IMU recording (100 Hz, 30 s: rest, slow and fast rotations, linear
accelerations, a constant gyroscope bias, noise, a magnetic disturbance) and runs on it:
  - vqf.VQF (the C++ core of the `vqf` package) with default parameters, 6D and 9D, and
    vqf.PyVQF (its pure-Python twin) as a cross-check; vqf.offlineVQF (its offline variant);
  - ahrs.filters.Madgwick.updateIMU / updateMARG and ahrs.filters.Mahony.updateIMU / updateMARG
    with their default gains, started from the attitude at rest of the first sample (computed
    here, independently of accelkit) and stepped with dt = 1 / rate.
Writes Tests/Fixtures/attitude/references.json: the inputs (specific force in m/s^2, gyroscope
in rad/s, magnetometer in uT), each output quaternion (scalar first, sensor to world; Madgwick's
north-west-up world turned to east-north-up), and the package versions. Run from the root:
    python3 scripts/make_attitude_references.py
"""
import json
import os
from importlib.metadata import version

import numpy as np
from ahrs.filters import Madgwick, Mahony
from vqf import VQF, PyVQF, offlineVQF

RATE = 100.0
TS = 1.0 / RATE
N = 3000
rng = np.random.default_rng(20261123)


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1*w2 - x1*x2 - y1*y2 - z1*z2, w1*x2 + x1*w2 + y1*z2 - z1*y2,
                     w1*y2 - x1*z2 + y1*w2 + z1*x2, w1*z2 + x1*y2 - y1*x2 + z1*w2])


def rotmat(q):
    w, x, y, z = q
    return np.array([[1 - 2*(y*y + z*z), 2*(x*y - w*z), 2*(x*z + w*y)],
                     [2*(x*y + w*z), 1 - 2*(x*x + z*z), 2*(y*z - w*x)],
                     [2*(x*z - w*y), 2*(y*z + w*x), 1 - 2*(x*x + y*y)]])


def from_matrix(m):
    """Unit quaternion (w >= 0) of a rotation matrix (Shepperd's method)."""
    tr = np.trace(m)
    if tr > 0:
        s = np.sqrt(tr + 1) * 2
        q = [s/4, (m[2, 1] - m[1, 2])/s, (m[0, 2] - m[2, 0])/s, (m[1, 0] - m[0, 1])/s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = np.sqrt(1 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = [(m[2, 1] - m[1, 2])/s, s/4, (m[0, 1] + m[1, 0])/s, (m[0, 2] + m[2, 0])/s]
    elif m[1, 1] > m[2, 2]:
        s = np.sqrt(1 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = [(m[0, 2] - m[2, 0])/s, (m[0, 1] + m[1, 0])/s, s/4, (m[1, 2] + m[2, 1])/s]
    else:
        s = np.sqrt(1 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = [(m[1, 0] - m[0, 1])/s, (m[0, 2] + m[2, 0])/s, (m[1, 2] + m[2, 1])/s, s/4]
    q = np.array(q)
    q = -q if q[0] < 0 else q
    return q / np.linalg.norm(q)


def at_rest(f, m=None):
    """Up along f; north along m's horizontal part (east-north-up); without m the shortest turn."""
    up = f / np.linalg.norm(f)
    if m is not None:
        east = np.cross(m, up)
        east /= np.linalg.norm(east)
        return from_matrix(np.array([east, np.cross(up, east), up]))
    d = up[2]
    c = np.cross(up, [0.0, 0.0, 1.0])
    q = np.array([1 + d, *c])
    return q / np.linalg.norm(q)


# The true motion: rest (0-3 s), rotations about every axis with varying rates, rest (12-15 s),
# fast rotations with linear accelerations (15-26 s, the field disturbed at 20-23 s), rest again.
t = np.arange(N) * TS
omega = np.zeros((N, 3))
moving = ((t >= 3) & (t < 12)) | ((t >= 15) & (t < 26))
for k, (f, a) in enumerate([(0.21, 1.1), (0.37, 0.8), (0.13, 0.6)]):
    omega[:, k] = a * np.sin(2*np.pi*f*t + k)
fast = (t >= 15) & (t < 26)
omega[fast] += 2.5 * np.sin(2*np.pi*1.3*t[fast, None] + np.array([0.0, 1.0, 2.0]))
omega[~moving] = 0.0
q = at_rest(np.array([0.3, -0.2, 9.7]))
truth = np.zeros((N, 4))
for i in range(N):
    truth[i] = q
    w = omega[i]
    angle = np.linalg.norm(w) * TS
    if angle > 0:
        axis = w / np.linalg.norm(w)
        q = qmul(q, np.array([np.cos(angle/2), *(np.sin(angle/2) * axis)]))
        q /= np.linalg.norm(q)

linear = np.zeros((N, 3))
linear[fast] = 3.0 * np.sin(2*np.pi*2.1*t[fast, None] + np.array([0.5, 1.5, 2.5]))
field = np.array([0.0, 19.0, -45.0])  # east-north-up, uT
bias = np.array([0.011, -0.007, 0.004])  # rad/s
acc = np.zeros((N, 3))
mag = np.zeros((N, 3))
for i in range(N):
    r = rotmat(truth[i])
    acc[i] = r.T @ (np.array([0.0, 0.0, 9.81]) + linear[i])
    disturbance = np.array([25.0, -10.0, 5.0]) if 20 <= t[i] < 23 else np.zeros(3)
    mag[i] = r.T @ (field + disturbance)
gyr = omega + bias + rng.normal(0, 0.004, (N, 3))
acc += rng.normal(0, 0.03, (N, 3))
mag += rng.normal(0, 0.3, (N, 3))

outputs = {}
v = VQF(TS)
r9 = v.updateBatch(np.ascontiguousarray(gyr), np.ascontiguousarray(acc), np.ascontiguousarray(mag))
outputs["vqf_6d"] = r9["quat6D"]
outputs["vqf_9d"] = r9["quat9D"]
outputs["vqf_bias"] = r9["bias"]
outputs["vqf_rest"] = r9["restDetected"].astype(float)
outputs["vqf_mag_disturbed"] = r9["magDistDetected"].astype(float)
off = offlineVQF(np.ascontiguousarray(gyr), np.ascontiguousarray(acc), np.ascontiguousarray(mag), TS)
outputs["offline_vqf_6d"] = off["quat6D"]
outputs["offline_vqf_9d"] = off["quat9D"]
outputs["offline_vqf_6d_no_mag"] = offlineVQF(np.ascontiguousarray(gyr), np.ascontiguousarray(acc), None, TS)["quat6D"]
py = PyVQF(TS).updateBatch(gyr, acc, mag)
assert np.max(np.abs(py["quat9D"] - r9["quat9D"])) < 1e-9, "PyVQF and VQF disagree"


def run(filter_, step, q0, inputs):
    out = [q0]
    q = q0
    for i in range(1, N):
        q = step(filter_, q, *[x[i] for x in inputs])
        out.append(q)
    return np.array(out)


to_enu = np.array([np.cos(np.pi/4), 0, 0, np.sin(np.pi/4)])
to_nwu = to_enu * np.array([1, -1, -1, -1])
madgwick = Madgwick(frequency=RATE)
outputs["madgwick_6d"] = run(madgwick, lambda f, q, g, a: f.updateIMU(q, g, a, dt=TS), at_rest(acc[0]), [gyr, acc])
madgwick = Madgwick(frequency=RATE, gain=Madgwick().gain_marg)
nwu = run(madgwick, lambda f, q, g, a, m: f.updateMARG(q, g, a, m, dt=TS), qmul(to_nwu, at_rest(acc[0], mag[0])), [gyr, acc, mag])
outputs["madgwick_9d"] = np.array([qmul(to_enu, q) for q in nwu])
outputs["mahony_6d"] = run(Mahony(frequency=RATE), lambda f, q, g, a: f.updateIMU(q, g, a, dt=TS), at_rest(acc[0]), [gyr, acc])
outputs["mahony_9d"] = run(Mahony(frequency=RATE), lambda f, q, g, a, m: f.updateMARG(q, g, a, m, dt=TS),
                           at_rest(acc[0], mag[0]), [gyr, acc, mag])


def exact(a):
    return [[repr(float(x)) for x in row] for row in np.atleast_2d(np.asarray(a).T).T] if np.ndim(a) > 1 \
        else [repr(float(x)) for x in a]


doc = {
    "versions": {p: version(p) for p in ("vqf", "ahrs", "numpy")},
    "rate": repr(RATE),
    "gyroscope": exact(gyr), "specific_force": exact(acc), "magnetometer": exact(mag),
    "outputs": {k: exact(v) for k, v in outputs.items()},
}
out = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "attitude")
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "references.json"), "w") as f:
    json.dump(doc, f, separators=(",", ":"))
print("wrote", os.path.join(out, "references.json"), {k: v.shape for k, v in outputs.items()})
