"""The shake rules as a competent numpy/scipy user would write them: vectorised where the rule
allows (gravity low-pass with lfilter, magnitudes, angles, rolling means), a Python loop for the
state machines. Used by benchmarks/run.py as the peer of `accelkit detect-shakes`."""
import numpy as np
from scipy import signal

G = 9.80665


def three_peak(t, x, y, z, alpha=0.1, move_g=0.75, peak_g=1.25, gap_s=0.25, min_moves=3):
    b, a = [alpha], [1.0, alpha - 1.0]
    gx = signal.lfilter(b, a, x, zi=signal.lfilter_zi(b, a) * x[0])[0]
    gy = signal.lfilter(b, a, y, zi=signal.lfilter_zi(b, a) * y[0])[0]
    ux, uy = x - gx, y - gy
    axis = (np.abs(uy) > np.abs(ux)).astype(np.int8)
    u = np.where(axis == 0, ux, uy)
    over = np.abs(u) >= move_g
    events = []
    last_dir = [0.0, 0.0]
    count, largest, last_reg, start, end = 0, 0.0, None, 0.0, 0.0
    swing = None
    for i in np.flatnonzero(over | np.roll(over, 1)):  # only samples where a swing can start or end
        ti = t[i]
        if last_reg is not None and ti - last_reg > gap_s:
            if count >= min_moves and largest >= peak_g:
                events.append((start, end, ti))
            last_dir, count, largest, last_reg = [0.0, 0.0], 0, 0.0, None
        if not over[i]:
            swing = None
            continue
        ax, v = axis[i], u[i]
        if swing is not None and swing[0] == ax and (v > 0) == (swing[1] > 0) and i == swing[2] + 1:
            swing = (ax, swing[1], i, swing[3])
            if swing[3]:
                largest, end = max(largest, abs(v)), ti
            continue
        sign = 1.0 if v > 0 else -1.0
        reg = last_dir[ax] == 0 or last_dir[ax] * sign < 0
        swing = (ax, sign, i, reg)
        if reg:
            if last_reg is None:
                start = ti
            last_dir[ax] = sign
            count += 1
            last_reg, largest, end = ti, max(largest, abs(v)), ti
    return events


def seismic(t, x, y, z, threshold=13 / G, window=0.5, min_queue=4):
    acc = (x * x + y * y + z * z) > threshold * threshold
    events = []
    q_t, q_a = [], []
    head, n_acc = 0, 0
    for i in range(len(t)):
        ti = t[i]
        while len(q_t) - head >= min_queue and ti - window - q_t[head] > 0:
            n_acc -= q_a[head]
            head += 1
        q_t.append(ti)
        q_a.append(bool(acc[i]))
        n_acc += bool(acc[i])
        n = len(q_t) - head
        if q_t[-1] - q_t[head] >= window / 2 and n_acc >= (n >> 1) + (n >> 2):
            events.append((q_t[head], ti))
            q_t, q_a, head, n_acc = [], [], 0, 0
    return events


def angular_change(t, x, y, z, pairs=8, begin=6.0, end=2.0, min_s=0.25, max_s=10.0, refractory_s=1.0):
    m = np.sqrt(x * x + y * y + z * z)
    dot = (x[:-1] * x[1:] + y[:-1] * y[1:] + z[:-1] * z[1:]) / (m[:-1] * m[1:])
    w = np.arccos(np.clip(dot, -1, 1)) / np.diff(t)
    change = np.abs(np.diff(w))
    activity = np.convolve(change, np.ones(pairs) / pairs, mode="valid")
    times = t[pairs + 1:]
    events, active, last_start = [], None, None
    for i in np.flatnonzero((activity >= begin) | (activity < end)):
        ti, a = times[i], activity[i]
        if active is not None:
            if ti - active > max_s:
                events.append((active, active + max_s, "cancelled"))
                active = None
            elif a < end:
                if ti - active >= min_s:
                    events.append((active, ti, "ended"))
                active = None
        elif a >= begin and (last_start is None or ti - last_start >= refractory_s):
            active = last_start = ti
    return events
