"""accelkit's learned detector with its features written with numpy, scipy and Python's xgboost:
the benchmark's peer for `accelkit detect-shakes` (the built-in model) and `--model DIR`, and an
independent reading of the features' definitions in docs/LEARNING.md: window features with array
operations over windows, exponential features (the built-in model's) with scipy's lfilter for
the averages that are linear recursions and running maxima, rescaled a block at a time, for the
decaying extremes.

    python3 learned_shake.py [--model MODEL_DIR] [--events EVENTS.csv] TRACE.npy
    python3 learned_shake.py [--model MODEL_DIR] --check-features FEATURES.csv TRACE.npy|TRACE.csv

reads a structured NPY with t, x, y, z (g), computes the model's features (models/shake by default) on its grid with array
operations (window features in chunks of rows, so that memory stays bounded; exponential features
over whole arrays, about 700 bytes a sample), predicts with xgboost (a label's sustained
classifier too, when the model has one) and decodes the probabilities with the model's
hysteresis, and writes start,end,reported,peak,status rows.
With --check-features it compares its features with those `accelkit features TRACE --model
MODEL_DIR -o FEATURES.csv` wrote and exits 1 when any differs by more than 1e-9 (relative, or
absolute below 1). Shape and swing features are computed; traces with gaps longer than a second, windows
with a span_s and attitude features are not handled (exit 2: the benchmark's traces and the
built-in model have none)."""
import json
import math
import os
import sys

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy import signal

HYSTERESIS = 0.02
# More than this between two windows' centres breaks a run toward hold_s.
RUN_BREAK = 1.0
SIGNED = {"x", "y", "z", "vert"}


def grid_signals(t, x, y, z, spec):
    """The six signals on the spec's grid: user acceleration per axis, its norm, and its parts
    along and across gravity (two cascaded one-pole low-passes, started at the first sample)."""
    step = 1.0 / spec["rate_hz"]
    n = int(np.floor((t[-1] - t[0]) / step)) + 1
    g = t[0] + np.arange(n) * step
    g = g[g <= t[-1]]
    a = [np.interp(g, t, v) for v in (x, y, z)]
    alpha = 1 - np.exp(-step / spec["gravity_tau_s"])
    b, c = [alpha], [1.0, alpha - 1.0]
    gravity = []
    for v in a:
        g1 = signal.lfilter(b, c, v, zi=signal.lfilter_zi(b, c) * v[0])[0]
        gravity.append(signal.lfilter(b, c, g1, zi=signal.lfilter_zi(b, c) * g1[0])[0])
    u = [v - gv for v, gv in zip(a, gravity)]
    gn = np.sqrt(gravity[0] ** 2 + gravity[1] ** 2 + gravity[2] ** 2)
    norm = np.sqrt(u[0] ** 2 + u[1] ** 2 + u[2] ** 2)
    safe = np.where(gn > 1e-9, gn, 1.0)
    vert = np.where(gn > 1e-9, (u[0] * gravity[0] + u[1] * gravity[1] + u[2] * gravity[2]) / safe, 0.0)
    horiz = np.where(gn > 1e-9, np.sqrt(np.maximum(0, norm ** 2 - vert ** 2)), norm)
    return g, {"x": u[0], "y": u[1], "z": u[2], "norm": norm, "vert": vert, "horiz": horiz}


def crossings(w, level):
    """Crossings of `level` (one per row of w) with hysteresis: the last side off the band turning
    into its opposite."""
    d = w - level[:, None]
    side = (d > HYSTERESIS).astype(np.int8) - (d < -HYSTERESIS).astype(np.int8)
    columns = np.arange(w.shape[1])
    last = np.maximum.accumulate(np.where(side != 0, columns, -1), axis=1)
    held = np.where(last >= 0, np.take_along_axis(side, np.maximum(last, 0), axis=1), 0)
    return np.count_nonzero(held[:, 1:] * held[:, :-1] == -1, axis=1)


def window_features(w, full, signed, spec):
    """One signal's features over windows w (rows x n samples) of a width of `full` samples."""
    n = w.shape[1]
    seconds = n / spec["rate_hz"]
    mean = w.mean(axis=1)
    d = w - mean[:, None]
    variance = (d * d).mean(axis=1)
    sd = np.sqrt(variance)
    m3 = (d * d * d).mean(axis=1)
    low, high = w.min(axis=1), w.max(axis=1)
    interior = w[:, 1:-1]
    peaks = np.count_nonzero((interior > (mean + 0.5 * sd)[:, None]) & (interior > w[:, :-2]) & (interior >= w[:, 2:]),
                             axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        skewness = np.where(variance > 1e-12, m3 / (variance * sd), 0.0)
    out = [mean, variance, low, high, high - low, (w * w).mean(axis=1), crossings(w, mean) / seconds,
           peaks / seconds, skewness]
    if signed:
        out.append(crossings(w, np.zeros(len(w))) / seconds)
    size = 1
    while size < 2 * full:
        size *= 2
    hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / (n - 1)) if n > 1 else np.ones(1)
    power = np.abs(np.fft.rfft(hann * d, n=size, axis=1)) ** 2
    power[:, 0] = 0
    total = power.sum(axis=1)
    resolution = spec["rate_hz"] / size
    best = 1 + np.argmax(power[:, 1:], axis=1)
    ok = total > 1e-18
    safe = np.where(ok, total, 1.0)
    out.append(np.where(ok, best * resolution, 0.0))
    out.append(np.where(ok, power[np.arange(len(w)), best] / safe, 0.0))
    frequencies = np.arange(power.shape[1]) * resolution
    for low_hz, high_hz in spec["bands_hz"]:
        band = (frequencies >= low_hz) & (frequencies < high_hz)
        band[0] = False
        out.append(np.where(ok, power[:, band].sum(axis=1) / safe, 0.0))
    return out


def joint_features(x, y, z):
    """Correlations between the axes, linearity and the principal axis' size, per row."""
    d = [v - v.mean(axis=1)[:, None] for v in (x, y, z)]
    c = np.empty((len(x), 3, 3))
    for i in range(3):
        for j in range(3):
            c[:, i, j] = (d[i] * d[j]).mean(axis=1)
    return joint_from_covariance(c)


def joint_from_covariance(c):
    """The joint features of rows of 3x3 covariances."""
    def correlation(i, j):
        a, b = c[:, i, i], c[:, j, j]
        ok = (a > 1e-12) & (b > 1e-12)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(ok, np.clip(c[:, i, j] / np.sqrt(a * b), -1, 1), 0.0)

    largest = np.linalg.eigvalsh(c)[:, -1]
    trace = c[:, 0, 0] + c[:, 1, 1] + c[:, 2, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        linearity = np.where(trace > 1e-12, np.minimum(1, largest / trace), 1 / 3)
    return [correlation(0, 1), correlation(0, 2), correlation(1, 2), linearity, np.sqrt(np.maximum(0, largest))]


def features(t, x, y, z, spec, chunk=20000):
    """(row end times, feature matrix in the spec's name order)."""
    rate = spec["rate_hz"]
    widths = [int(round(w * rate)) for w in spec["widths_s"]]
    hop = int(round(spec["hop_s"] * rate))
    grid, signals = grid_signals(t, x, y, z, spec)
    shortest, capacity = min(widths), max(widths)
    ends = np.arange(shortest - 1, len(grid), hop)
    names = ["x", "y", "z", "norm", "vert", "horiz"]
    blocks = []
    for lo in range(0, len(ends), chunk):
        rows = ends[lo:lo + chunk]
        columns = []
        for width in widths:
            # Windows of n = min(width, samples so far): rows with the same n together.
            counts = np.minimum(width, np.minimum(rows + 1, capacity))
            per_width = [None] * len(rows)
            for n in np.unique(counts):
                chosen = np.nonzero(counts == n)[0]
                starts = rows[chosen] - n + 1
                views = {s: sliding_window_view(signals[s], n)[starts] for s in names}
                parts = []
                for s in names:
                    parts += window_features(views[s], width, s in SIGNED, spec)
                parts += joint_features(views["x"], views["y"], views["z"])
                block = np.stack(parts, axis=1)
                for k, i in enumerate(chosen):
                    per_width[i] = block[k]
            columns.append(np.stack(per_width))
        blocks.append(np.concatenate(columns, axis=1))
    return grid[ends], np.concatenate(blocks)


def decaying_extreme(v, keep, first, pick):
    """m_0 = first, m_n = pick(v_n, keep m_(n-1)) (pick: np.maximum or np.minimum), for n >= 1: a
    running extreme of v_j keep^-j, scaled back by keep^n, a block at a time (so that keep^-j
    stays finite)."""
    out = np.empty(len(v))
    out[0] = first
    block = 128
    scale = keep ** -np.arange(1, block + 1, dtype=float)
    back = keep ** np.arange(1, block + 1, dtype=float)
    accumulate = pick.accumulate
    m = first
    for lo in range(1, len(v), block):
        piece = v[lo:lo + block]
        n = len(piece)
        running = accumulate(np.concatenate(([m], piece * scale[:n])))[1:]
        out[lo:lo + n] = running * back[:n]
        m = out[lo + n - 1]
    return out


def exponential_features(t, x, y, z, spec):
    """(row end times, feature matrix in the spec's name order) of exponential features: per
    width w, a = 1 - exp(-step / (w / 2)), the updates of docs/LEARNING.md from the first grid
    sample; a row every hop once the span has passed."""
    rate = spec["rate_hz"]
    step = 1.0 / rate
    grid, signals = grid_signals(t, x, y, z, spec)
    names = ["x", "y", "z", "norm", "vert", "horiz"]
    windows = [max(4, int(round(w * rate))) for w in spec["widths_s"]]
    span = max(1, int(round(spec["span_s"] * rate))) if "span_s" in spec else min(windows)
    first_row = max(min(windows), span)
    hop = max(1, int(round(spec["hop_s"] * rate)))
    ends = np.arange(first_row - 1, len(grid), hop)
    filters = []
    for low, high in spec["bands_hz"]:
        # Each band's filter by the bilinear transform with prewarped edges (scipy's butter).
        if low == 0:
            filters.append(signal.butter(2, high, fs=rate))
        else:
            filters.append(signal.butter(1, [low, high], "bandpass", fs=rate))

    def recursion(a, keep, inputs, initial):
        """y_0 = initial, y_n = keep y_(n-1) + a inputs_n for n >= 1."""
        out = np.empty(len(inputs))
        out[0] = initial
        out[1:] = signal.lfilter([a], [1.0, -keep], inputs[1:], zi=[keep * initial])[0]
        return out

    halves = swing_halves(signals, step) if spec.get("swing", False) else None
    columns = []
    for width in spec["widths_s"]:
        a = 1 - np.exp(-step / (width / 2))
        keep = 1 - a
        deviations = {}
        variances = {}
        shapes = []
        for s in names:
            v = signals[s]
            mean = recursion(a, keep, v, v[0])
            d = np.empty(len(v))
            d[0] = 0.0
            d[1:] = v[1:] - mean[:-1]
            deviations[s] = d
            variance = recursion(keep * a, keep, d * d, 0.0)
            variances[s] = variance
            energy = recursion(a, keep, v * v, v[0] * v[0])
            envelope = decaying_extreme(np.abs(v), keep, abs(v[0]), np.maximum)
            maximum = decaying_extreme(v, keep, v[0], np.maximum)
            minimum = decaying_extreme(v, keep, v[0], np.minimum)
            change = np.concatenate(([0.0], np.diff(v)))
            jerk = recursion(a, keep, change * change, 0.0)
            # Crossings: the side of v - mean against the last nonzero side before it (none at
            # a segment's first sample).
            e = v - mean
            side = (e > HYSTERESIS).astype(np.int8) - (e < -HYSTERESIS).astype(np.int8)
            side[0] = 0
            index = np.arange(len(v))
            last = np.maximum.accumulate(np.where(side != 0, index, 0))
            held = side[last]
            before = np.concatenate(([0], held[:-1]))
            crossed = np.where(side * before < 0, rate, 0.0)
            crossing = recursion(a, keep, crossed, 0.0)
            ok = variance > 1e-12
            safe = np.where(ok, variance, 1.0)
            parts = [mean, variance, energy, envelope, maximum, minimum, crossing,
                     np.where(ok, np.sqrt(jerk / safe), 0.0)]
            for b, c in filters:
                # From rest, reading the first value (transposed direct form II, as lfilter).
                y0 = b[0] * v[0]
                zi = [b[1] * v[0] - c[1] * y0, b[2] * v[0] - c[2] * y0]
                out = np.empty(len(v))
                out[0] = y0
                out[1:] = signal.lfilter(b, c, v[1:], zi=zi)[0]
                power = recursion(a, keep, out * out, 0.0)
                parts.append(np.where(ok, power / safe, 0.0))
            columns += [p[ends] for p in parts]
            shapes.append([p[ends] for p in (mean, energy, envelope, maximum, minimum)])
        dx, dy, dz = deviations["x"], deviations["y"], deviations["z"]
        c = np.empty((len(ends), 3, 3))
        for i, s in enumerate("xyz"):
            c[:, i, i] = variances[s][ends]
        for (i, j), (p, q) in zip([(0, 1), (0, 2), (1, 2)], [(dx, dy), (dx, dz), (dy, dz)]):
            c[:, i, j] = c[:, j, i] = recursion(keep * a, keep, p * q, 0.0)[ends]
        columns += joint_from_covariance(c)
        if spec.get("shape", False):
            # Per signal the crest factor and the asymmetry about the mean (docs/LEARNING.md).
            for mean, energy, envelope, maximum, minimum in shapes:
                spread = maximum - minimum
                columns.append(np.where(energy > 1e-12, envelope / np.sqrt(np.where(energy > 1e-12, energy, 1.0)), 0.0))
                columns.append(np.where(spread > 1e-12, np.clip(
                    (maximum + minimum - 2 * mean) / np.where(spread > 1e-12, spread, 1.0), -1, 1), 0.0))
        if spec.get("swing", False):
            rate_column, balance = swing_averages(halves, rate, a, keep)
            columns += [rate_column[ends], balance[ends]]
    return grid[ends], np.stack(columns, axis=1)


# The swing rule's defaults, which the swing features use (docs/LEARNING.md).
SWING_AXIS_TAU, SWING_HYSTERESIS, SWING_G, SWING_MIN_HZ, SWING_MAX_HZ = 0.4, 0.2, 0.7, 1.0, 12.0


def swing_halves(signals, step):
    """Per grid sample the counted half-swing that ended there: its direction (1, -1, or 0 for
    none) and its peak. u on its principal axis (an exponentially weighted covariance and two
    power-iteration steps), cut at its sign changes with a hysteresis (docs/LEARNING.md)."""
    ux, uy, uz = signals["x"], signals["y"], signals["z"]
    b = 1 - math.exp(-step / SWING_AXIS_TAU)
    shortest, longest = 0.5 / SWING_MAX_HZ, 0.5 / SWING_MIN_HZ
    c = np.zeros((3, 3))
    axis = np.array([1.0, 0.0, 0.0])
    last_sign = direction = last_zero = half_start = 0
    half_peak = 0.0
    counted = np.zeros(len(ux), dtype=int)
    peaks = np.zeros(len(ux))
    for n in range(len(ux)):
        u = np.array([ux[n], uy[n], uz[n]])
        c += b * (np.outer(u, u) - c)
        v = axis.copy()
        largest = max(c[0, 0], c[1, 1], c[2, 2])
        if largest > 2 * (v @ c @ v):
            v = np.eye(3)[[c[0, 0], c[1, 1], c[2, 2]].index(largest)]
        for _ in range(2):
            w = c @ v
            size = math.sqrt(w @ w)
            if not size > 1e-12:
                break
            v = w / size
        if v @ axis < 0:
            v = -v
        axis = v
        value = float(u @ v)
        sign = (value > 0) - (value < 0)
        if sign != 0 and sign != last_sign:
            if last_sign != 0:
                last_zero = n
            last_sign = sign
        now = (value > SWING_HYSTERESIS) - (value < -SWING_HYSTERESIS)
        if now != 0 and now != direction:
            duration = (last_zero - half_start) * step
            if direction != 0 and half_peak >= SWING_G and shortest <= duration <= longest:
                counted[n], peaks[n] = direction, half_peak
            direction, half_start, half_peak = now, last_zero, 0.0
        if direction != 0:
            half_peak = max(half_peak, abs(value))
            if (n - half_start) * step > longest:
                direction = 0
    return counted, peaks


def swing_averages(halves, rate, a, keep):
    """One width's swing_rate and swing_balance at every grid sample, from swing_halves."""
    counted, peaks = halves

    def average(inputs):
        out = np.empty(len(inputs))
        out[0] = a * inputs[0]
        if len(inputs) > 1:
            out[1:] = signal.lfilter([a], [1.0, -keep], inputs[1:], zi=[keep * out[0]])[0]
        return out

    rates = average(np.where(counted != 0, rate, 0.0))
    up = average(np.where(counted > 0, peaks, 0.0))
    down = average(np.where(counted < 0, peaks, 0.0))
    larger = np.maximum(up, down)
    return rates, np.where(larger > 1e-12, np.minimum(up, down) / np.where(larger > 1e-12, larger, 1.0), 0.0)


def decode(ends, p, decoding, half_width, q=None):
    """The model's hysteresis, merge gap and durations, as accelkit's ProbabilityDecoder: with a
    sustained classifier's probabilities q, an event also begins where q reaches sustained_on and
    goes on while q stays at or above sustained_off; with hold_s, it also begins where q has stayed
    at or above hold for hold_s (centre to centre; a window below hold, or more than a second
    between two centres, breaks the run), at the run's first window. An event that has lasted
    min_duration_s also goes on while p or q stays at or above extend, and, reported, starts where
    the windows leading up to it without such a break first stayed at or above extend (a pending
    event waits while such a stretch that began within its merge gap goes on). With smooth_s, an
    event also begins where q's exponential average with that time constant (afresh after a gap
    over a second) reaches smoothed_on."""
    on, off = decoding["on"], decoding["off"]
    sustained_on, sustained_off = decoding.get("sustained_on", 1), decoding.get("sustained_off", 1)
    hold, hold_s = decoding.get("hold", 1), decoding.get("hold_s", 0)
    extend = decoding.get("extend", 1)
    q = p if q is None else q
    smooth, smoothed_on = decoding.get("smooth_s", 0), decoding.get("smoothed_on", 1)
    averages = [0.0] * len(q)
    if smooth > 0:
        # q's exponential average with time constant smooth_s, afresh after a gap over RUN_BREAK.
        last = None
        for k, (end, value) in enumerate(zip(ends, q)):
            center = end - half_width
            if last is not None and center - last[1] <= RUN_BREAK:
                value = last[0] + (1 - math.exp(-(center - last[1]) / smooth)) * (value - last[0])
            last = (value, center)
            averages[k] = value
    shortest, longest, gap = decoding["min_duration_s"], decoding["max_duration_s"], decoding["merge_gap_s"]
    events = []
    open_event = pending = run = reach = None

    def release():
        nonlocal pending
        event, pending = pending, None
        if event is None or event["reported"] is None or event["end"] - event["start"] < shortest:
            return
        if event["earliest"] is not None:
            event["start"] = min(event["start"], event["earliest"])
        event["status"] = "cancelled" if event["end"] - event["start"] > longest else "ended"
        events.append(event)

    def note(end):
        if open_event["reported"] is None and open_event["end"] - open_event["start"] >= shortest:
            open_event["reported"] = end

    for end, probability, sustained, average in zip(ends, p, q, averages):
        center = end - half_width
        if hold_s > 0:
            if sustained < hold:
                run = None
            elif run is not None and center - run[1] <= RUN_BREAK:
                run = (run[0], center, max(run[2], sustained))
            else:
                run = (center, center, sustained)
        if extend < 1:
            if max(probability, sustained) < extend:
                reach = None
            elif reach is not None and center - reach[1] <= RUN_BREAK:
                reach = (reach[0], center)
            else:
                reach = (center, center)
        if open_event is not None:
            if probability >= off or sustained >= sustained_off or (
                    open_event["reported"] is not None and max(probability, sustained) >= extend):
                open_event["end"] = center
                open_event["peak"] = max(open_event["peak"], probability, sustained)
                note(end)
                continue
            pending, open_event = open_event, None
        # A run, or a stretch at extend, that began within the merge gap may still begin an event
        # that continues the pending one: it waits.
        if pending is not None and center - pending["end"] > gap and (run is None or run[0] - pending["end"] > gap) \
                and (reach is None or reach[0] - pending["end"] > gap):
            release()
        if run is not None and center - run[0] >= hold_s:
            begin = (run[0], run[2])
        elif probability >= on or sustained >= sustained_on or (smooth > 0 and average >= smoothed_on):
            begin = (center, max(probability, sustained))
        else:
            begin = None
        if begin is not None:
            if pending is not None:
                open_event = dict(pending, end=center, peak=max(pending["peak"], begin[1]))
                pending = None
            else:
                open_event = {"start": begin[0], "end": center, "reported": None, "peak": begin[1],
                              "earliest": None if reach is None else min(reach[0], begin[0])}
            note(end)
    if open_event is not None:
        pending = open_event
    release()
    return events


def check(ends, matrix, names, path):
    """Compares the features with accelkit's CSV; returns the exit status."""
    with open(path) as f:
        header = f.readline().strip().split(",")
    theirs = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if len(theirs) != len(matrix):
        print("rows: accelkit %d, numpy %d" % (len(theirs), len(matrix)))
        return 1
    worst, where = 0.0, ""
    ours_end = theirs[:, header.index("end")]
    if np.max(np.abs(ours_end - ends), initial=0) > 1e-9:
        print("row times differ by %.3g s" % np.max(np.abs(ours_end - ends)))
        return 1
    for k, name in enumerate(names):
        a = theirs[:, header.index(name)]
        d = np.abs(a - matrix[:, k]) / np.maximum(1, np.abs(a))
        if len(d) and d.max() > worst:
            worst, where = float(d.max()), name
    print("features: %d rows x %d, largest difference %.3g (%s)" % (len(matrix), len(names), worst, where or "-"))
    return 0 if worst <= 1e-9 else 1


def main():
    import argparse
    import time
    start = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("--model", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                        "models", "shake"))
    parser.add_argument("--events")
    parser.add_argument("--check-features")
    args = parser.parse_args()
    with open(os.path.join(args.model, "detector.json")) as f:
        detector = json.load(f)
    spec = detector["features"]
    exponential = spec.get("kind", "windows") == "exponential"
    label = detector["labels"][0]
    unsupported = ("a span_s with windows" if "span_s" in spec and not exponential
                   else "attitude features" if spec.get("attitude", False) else None)
    if unsupported:
        print("learned_shake.py does not handle %s (%s)" % (unsupported, os.path.join(args.model, "detector.json")),
              file=sys.stderr)
        sys.exit(2)
    if args.trace.endswith(".csv"):
        a = np.genfromtxt(args.trace, delimiter=",", names=True)
    else:
        a = np.load(args.trace)
    compute = exponential_features if exponential else features
    ends, matrix = compute(a["t"], a["x"], a["y"], a["z"], spec)
    if args.check_features:
        sys.exit(check(ends, matrix, spec["names"], args.check_features))
    import xgboost
    booster = xgboost.Booster(model_file=os.path.join(args.model, detector["classifiers"][label]))
    rows = xgboost.DMatrix(matrix, feature_names=spec["names"])
    p = booster.predict(rows)
    q = None
    if label in detector.get("sustained", {}):
        q = xgboost.Booster(model_file=os.path.join(args.model, detector["sustained"][label])).predict(rows)
    rate = spec["rate_hz"]
    span = (max(1, int(round(spec["span_s"] * rate))) if "span_s" in spec
            else min(max(4, int(round(w * rate))) for w in spec["widths_s"]))
    half_width = (span - 1) / rate / 2
    events = decode(ends, p, detector["decoding"][label], half_width, q)
    if args.events:
        with open(args.events, "w") as f:
            f.write("start,end,reported,peak,status\n")
            for e in events:
                f.write("%.6f,%.6f,%.6f,%.6f,%s\n" % (e["start"], e["end"], e["reported"], e["peak"], e["status"]))
    # The work's time without the interpreter's start and the imports (benchmarks/run.py reads it).
    print("SECONDS %.9f" % (time.perf_counter() - start))


if __name__ == "__main__":
    main()
