#!/usr/bin/env python3
"""Imports public recordings of people shaking a device as accelkit datasets of real positives.

    scripts/import_shakes.py SOURCE CHECKOUT OUT
    accelkit evaluate OUT --rule swing          # recall and shaking time covered, per source

SOURCE is one of the names below; CHECKOUT a checkout of its public repository (clone it
yourself: accelkit carries importers, not the data). Each source goes to OUT/SOURCE/ with a
manifest (`source`, `position`, `activity` columns, as scripts/import_everyday.py writes them);
OUT/manifest.csv is rewritten to list every source imported into OUT so far. Traces are t,x,y,z:
seconds, acceleration in g in accelkit's (Apple's) convention; events are start,end,label with
label shake.

  motionsense-esp  TheZeroHz/MotionSense-ESP (Apache-2.0): an Edge Impulse export
                   (DataSet/training.zip and testing.zip) of one-second windows recorded with a
                   phone in the hand, 16 ms apart (62.5 Hz), m/s^2 in the specific-force
                   convention (flat at rest reads +9.8 on z): `shake`, `idle`, `fall` and
                   `groundquack` windows.

The windows are short, so they are placed into traces of the source's own rest: each trace is
REST windows, then one shake window, then REST again, repeated; `fall` and `groundquack` windows
are placed the same way into traces of their own, with no events (hard negatives: every detection
there is a false alarm). Shake windows are written as recorded: a shake begins as abruptly as
the person began it. A rest window continues what came before it: it is shifted by the difference
between the mean of the last quarter second before the join and the mean of its own first quarter
second, a shift that fades out linearly over its first half second, so that joining two rests, or
a shake's end and a rest, adds no step to the gravity a detector tracks. The arrangement is fixed
(files in name order, no randomness), so the same checkout gives the same files.
"""
import io
import json
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from import_everyday import combine, run  # noqa: E402  (the shared OUT/manifest.csv, the command line)

G = 9.80665
REST = 4  # rest windows between two shakes


class Writer:
    """Writes one source's traces, their events and its manifest."""

    def __init__(self, out, source):
        self.out = out
        self.source = source
        self.rows = []
        self.counts = {}  # activity -> (traces, events, seconds of shaking, seconds)

    def trace(self, name, rate, pieces, position, activity):
        """pieces: (samples, is_shake) in order, samples a list of (x, y, z) in g, Apple's
        convention, at `rate` Hz. Joined as the module's doc says; writes the trace and events."""
        folder = os.path.join(self.out, self.source)
        os.makedirs(folder, exist_ok=True)
        joined, events = join(pieces, rate)
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
        with open(os.path.join(folder, base + ".csv"), "w") as f:
            f.write("t,x,y,z\n")
            for i, (x, y, z) in enumerate(joined):
                f.write(f"{i / rate:.6f},{x:.6g},{y:.6g},{z:.6g}\n")
        with open(os.path.join(folder, base + ".events.csv"), "w") as f:
            f.write("start,end,label\n")
            for start, end in events:
                f.write(f"{start / rate:.6f},{end / rate:.6f},shake\n")
        self.rows.append((base + ".csv", base + ".events.csv", position, activity))
        traces, n, shaking, seconds = self.counts.get(activity, (0, 0, 0.0, 0.0))
        self.counts[activity] = (
            traces + 1, n + len(events), shaking + sum(e - s for s, e in events) / rate, seconds + len(joined) / rate)

    def finish(self):
        folder = os.path.join(self.out, self.source)
        with open(os.path.join(folder, "manifest.csv"), "w") as f:
            f.write("trace,events,source,position,activity\n")
            for trace, events, position, activity in sorted(self.rows):
                f.write(f"{trace},{events},{self.source},{position},{activity}\n")
        combine(self.out)
        for activity, (traces, n, shaking, seconds) in sorted(self.counts.items()):
            print(f"{self.source:16s} {activity:12s} {traces:4d} traces {n:5d} shakes "
                  f"{shaking / 60:7.2f} min shaking {seconds / 3600:6.3f} h")


def join(pieces, rate):
    """The pieces' samples in one list, each rest piece shifted to continue the one before (the
    shift fading out over its first half second; shakes as recorded), and the sample ranges of
    the shake pieces."""
    quarter = max(1, round(0.25 * rate))
    fade = max(1, round(0.5 * rate))
    out = []
    events = []
    for samples, is_shake in pieces:
        if not samples:
            continue
        shift = (0.0, 0.0, 0.0)
        if out and not is_shake:
            before = [sum(v[k] for v in out[-quarter:]) / len(out[-quarter:]) for k in range(3)]
            head = samples[:quarter]
            after = [sum(v[k] for v in head) / len(head) for k in range(3)]
            shift = tuple(b - a for b, a in zip(before, after))
        start = len(out)
        for i, v in enumerate(samples):
            w = max(0.0, 1.0 - i / fade)
            out.append(tuple(v[k] + w * shift[k] for k in range(3)))
        if is_shake:
            events.append((start, len(out) - 1))
    return out, events


# -- MotionSense-ESP ----------------------------------------------------------------------------


def motionsense_esp(root, w):
    """Both zips of DataSet/; traces of REST idle windows around each shake (and each fall and
    ground-quake window, in traces without events), in file-name order."""
    windows = {}  # label -> [(name, samples in g, Apple's convention)]
    rate = None
    for part in ("training", "testing"):
        path = os.path.join(root, "DataSet", part + ".zip")
        if not os.path.exists(path):
            continue
        with zipfile.ZipFile(path) as archive:
            for name in sorted(archive.namelist()):
                if not name.endswith(".json"):
                    continue
                label = os.path.basename(name).split(".")[0]
                document = json.load(io.TextIOWrapper(archive.open(name), encoding="utf-8"))
                payload = document.get("payload")
                if not payload or "values" not in payload:
                    continue
                interval = payload.get("interval_ms")
                units = [s.get("units") for s in payload.get("sensors", [])]
                if not interval or units[:3] != ["m/s2"] * 3:
                    continue
                if rate is None:
                    rate = 1000.0 / interval
                elif abs(rate - 1000.0 / interval) > 1e-9:
                    continue  # another rate: not joined with these
                samples = [(-x / G, -y / G, -z / G) for x, y, z in (v[:3] for v in payload["values"])]
                windows.setdefault(label, []).append((part + "/" + os.path.basename(name), samples))
    rest = [s for _, s in windows.get("idle", [])]
    if not rest or rate is None:
        return
    per_trace = 10
    used = 0

    def rest_run():
        nonlocal used
        run = []
        for _ in range(REST):
            run.append((rest[used % len(rest)], False))
            used += 1
        return run

    for label, activity, shake in (("shake", "shake", True), ("fall", "fall", False), ("groundquack", "ground-quake", False)):
        items = windows.get(label, [])
        for k in range(0, len(items), per_trace):
            pieces = rest_run()
            for _, samples in items[k:k + per_trace]:
                pieces.append((samples, shake))
                pieces += rest_run()
            w.trace(f"{label}-{k // per_trace + 1:03d}", rate, pieces, "hand", activity)


SOURCES = {"motionsense-esp": motionsense_esp}


def main():
    run(SOURCES, Writer, __doc__)


if __name__ == "__main__":
    main()
