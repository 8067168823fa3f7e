#!/usr/bin/env python3
"""Decodes a training's held-out probabilities again, with its own decoding or another, and
prints each source's events found and false alarms an hour: to try a decoding, or to compare two
trainings' classifiers at one decoding, without training again.

    scripts/decode_held_out.py [--by source|position|activity] MODEL [DETECTOR.json] [NAME=VALUE ...]

MODEL is a directory `accelkit train --scores` wrote (held-out-scores.csv, held-out.csv,
detector.json). The decoding is DETECTOR.json's (MODEL's own by default), with NAME=VALUE
replacing its parameters (smooth_s=5 smoothed_on=0.9). Events are decoded by the numpy peer's
`decode` (benchmarks/peers/learned_shake.py, as accelkit's ProbabilityDecoder) and matched to each
trace's annotations (TRACE.events.csv beside TRACE.csv; a trace without one has none) as accelkit
matches them (one to one, the most pairs, within the training's 0.25 s tolerance). A
trace whose annotation count differs from held-out.csv's is an error (exit 65): the events were
not found where the training read them; an unreadable file exits 66. With MODEL's own decoding the
counts are held-out.csv's. `--by position` or `--by activity` groups the traces by held-out.csv's
column of that name, as positions.csv and activities.csv do (a model trained before held-out.csv
named activities has no such column: exit 65).
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "peers"))
import numpy as np  # noqa: E402
from learned_shake import decode  # noqa: E402

TOLERANCE = 0.25


def annotations(trace, label):
    path = trace[:-4] + ".events.csv"
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [(float(r["start"]), float(r["end"])) for r in csv.DictReader(f)
                if r.get("label", label) == label]


def match(detections, events):
    """(found, false alarms, missed) by accelkit's matching (EventMatching): a maximum one-to-one
    matching of annotations and detections that overlap once both are widened by the tolerance,
    by augmenting paths, annotations tried in time order and each one's detections nearest in
    start first."""
    order = sorted(range(len(events)), key=lambda a: (events[a][0], a))
    candidates = []
    for start, end in events:
        hits = [d for d, (s, e) in enumerate(detections)
                if s - TOLERANCE <= end + TOLERANCE and start - TOLERANCE <= e + TOLERANCE]
        candidates.append(sorted(hits, key=lambda d: (abs(detections[d][0] - start), d)))
    owner = [None] * len(detections)

    def augment(a, visited):
        for d in candidates[a]:
            if visited[d]:
                continue
            visited[d] = True
            if owner[d] is None or augment(owner[d], visited):
                owner[d] = a
                return True
        return False

    for a in order:
        augment(a, [False] * len(detections))
    found = sum(o is not None for o in owner)
    return found, len(detections) - found, len(events) - found


def read(path, how):
    """how(file) on the open file; an unreadable file exits 66, as accelkit does."""
    try:
        with open(path) as f:
            return how(f)
    except OSError as error:
        print(f"{path}: {error.strerror}", file=sys.stderr)
        sys.exit(66)


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    by = "source"
    if args[0].startswith("--by"):
        option, equals, by = args.pop(0).partition("=")
        if not equals and option == "--by":
            by = args.pop(0) if args else ""
        if option != "--by" or by not in ("source", "position", "activity") or not args:
            print("--by takes source, position or activity, then MODEL", file=sys.stderr)
            sys.exit(64)
    model = args[0]
    rest = args[1:]
    detector = os.path.join(model, "detector.json")
    if rest and "=" not in rest[0]:
        detector = rest.pop(0)
    description = read(detector, json.load)
    label = description["labels"][0]
    decoding = dict(description["decoding"][label])
    for item in rest:
        name, _, value = item.partition("=")
        try:
            decoding[name] = float(value)
        except ValueError:
            print(f"{item}: give NAME=VALUE with a number", file=sys.stderr)
            sys.exit(64)
    held = {r["trace"]: r for r in read(os.path.join(model, "held-out.csv"), lambda f: list(csv.DictReader(f)))
            if r["label"] == label}
    if held and by not in next(iter(held.values())):
        print(f"{os.path.join(model, 'held-out.csv')}:1:1: no {by} column (trained before it was written)",
              file=sys.stderr)
        sys.exit(65)
    rows = {}

    def scores(f):
        for r in csv.DictReader(f):
            if r["label"] != label:
                continue
            centers, p, q = rows.setdefault(r["trace"], ([], [], []))
            centers.append(float(r["center"]))
            p.append(float(r["p"]))
            q.append(float(r["q"]) if r["q"] else float(r["p"]))

    read(os.path.join(model, "held-out-scores.csv"), scores)
    totals = {}
    for trace, (centers, p, q) in rows.items():
        h = held[trace]
        events = annotations(trace, label)
        if len(events) != int(h["tp"]) + int(h["fn"]):
            print(f"{trace}: {len(events)} annotated events, held-out.csv counts {int(h['tp']) + int(h['fn'])}",
                  file=sys.stderr)
            sys.exit(65)
        # The centres as training wrote them (decode's ends with no half width): an event of
        # exactly min_duration_s is decided by the centres' last bits.
        found = decode(np.array(centers), np.array(p), decoding, 0.0, np.array(q))
        counts = match([(e["start"], e["end"]) for e in found], events)
        t = totals.setdefault(h[by], [0, 0, 0, 0.0])
        for k in range(3):
            t[k] += counts[k]
        t[3] += float(h["seconds"])
    print(f"{by},found,events,false_alarms,hours,false_alarms_per_hour")
    for name, (tp, fp, fn, seconds) in sorted(totals.items()):
        print(f"{name},{tp},{tp + fn},{fp},{seconds / 3600:.3f},{fp / seconds * 3600:.3f}")


if __name__ == "__main__":
    main()
