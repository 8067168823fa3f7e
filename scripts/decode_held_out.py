#!/usr/bin/env python3
"""Decodes a training's held-out probabilities again, with its own decoding or another, and
prints each source's events found and false alarms an hour: to try a decoding, or to compare two
trainings' classifiers at one decoding, without training again.

    scripts/decode_held_out.py [--by source|position|activity] [--gate RULE [--accelkit PATH]]
                               MODEL [DETECTOR.json] [NAME=VALUE ...]

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

`--gate RULE` tries a rule as a second way in: accelkit runs `evaluate --rule RULE` over the
held-out traces, and each of the rule's events that lasts `gate_s` seconds or more (5 by default)
and over whose windows the sustained classifier's median probability reaches `gate_on` (0.97 by
default; the label's own classifier for a model without one) joins the decoded events, pieces at
most the decoding's `merge_gap_s` apart being one event. A NAME=VALUE whose name holds a dot is
the rule's (`swing.swing_g=1.6`, given to evaluate as `--param`). accelkit is `--accelkit PATH`, or
`accelkit` on the PATH; one that cannot be run exits 66, and accelkit's failure is the script's
(its message and exit status).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

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


def rule_events(rule, parameters, accelkit, traces, label):
    """{trace: [(start, end)]}: the rule's events in each held-out trace, as `accelkit evaluate
    --rule RULE --param RULE.NAME=VALUE...` finds them (each trace read as accelkit reads a CSV by
    default)."""
    with tempfile.TemporaryDirectory() as folder:
        none = os.path.join(folder, "none.events.csv")
        with open(none, "w") as f:
            f.write("start,end,label\n")
        names = {os.path.abspath(t): t for t in traces}
        manifest = os.path.join(folder, "manifest.csv")
        with open(manifest, "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["trace", "events"])
            for path in names:
                events = path[:-4] + ".events.csv"
                out.writerow([path, events if os.path.exists(events) else none])
        try:
            run = subprocess.run([accelkit, "evaluate", manifest, "--rule", rule, "--label", label,
                                  "--allow-outside-paths", "-o", os.path.join(folder, "rule")]
                                 + [f"--param={p}" for p in parameters],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        except OSError as error:
            print(f"{accelkit}: {error.strerror} (give accelkit's path with --accelkit PATH)",
                  file=sys.stderr)
            sys.exit(66)
        if run.returncode != 0:
            print(run.stderr, end="", file=sys.stderr)
            sys.exit(run.returncode)
        found = {t: [] for t in traces}
        with open(os.path.join(folder, "rule", "detections.csv")) as f:
            for r in csv.DictReader(f):
                found[names[r["trace"]]].append((float(r["start"]), float(r["end"])))
        return found


def gated(events, centers, q, level, least):
    """The events that last `least` seconds or more and over whose windows (centres within the
    event) q's median reaches `level`."""
    kept = []
    for start, end in events:
        inside = q[(centers >= start) & (centers <= end)]
        if end - start >= least and inside.size and np.median(inside) >= level:
            kept.append((start, end))
    return kept


def merged(events, gap):
    """The events in time order, those at most `gap` apart joined into one (as the decoder joins
    pieces)."""
    joined = []
    for start, end in sorted(events):
        if joined and start - joined[-1][1] <= gap:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return joined


def usage(message):
    print(message, file=sys.stderr)
    sys.exit(64)


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
    options = {"--by": "source", "--gate": None, "--accelkit": "accelkit"}
    while args and args[0].startswith("--"):
        option, equals, value = args.pop(0).partition("=")
        if not equals:
            value = args.pop(0) if args else ""
        if option not in options or not value:
            usage(f"{option}: the options are --by, --gate and --accelkit, each with a value")
        options[option] = value
    by, rule = options["--by"], options["--gate"]
    if by not in ("source", "position", "activity") or not args:
        usage("--by takes source, position or activity, then MODEL")
    model = args[0]
    rest = args[1:]
    detector = os.path.join(model, "detector.json")
    if rest and "=" not in rest[0]:
        detector = rest.pop(0)
    description = read(detector, json.load)
    label = description["labels"][0]
    decoding = dict(description["decoding"][label])
    gate = {"gate_on": 0.97, "gate_s": 5.0}
    parameters = [item for item in rest if "." in item.partition("=")[0]]
    for item in rest:
        name, _, value = item.partition("=")
        if item in parameters:
            continue
        try:
            (gate if name in gate else decoding)[name] = float(value)
        except ValueError:
            usage(f"{item}: give NAME=VALUE with a number")
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
    if parameters and not rule:
        usage(f"{parameters[0]}: a rule's parameter needs --gate RULE")
    extra = rule_events(rule, parameters, options["--accelkit"], list(rows), label) if rule else {}
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
        centers, p, q = np.array(centers), np.array(p), np.array(q)
        found = [(e["start"], e["end"]) for e in decode(centers, p, decoding, 0.0, q)]
        if rule:
            more = gated(extra[trace], centers, q, gate["gate_on"], gate["gate_s"])
            found = merged(found + more, decoding["merge_gap_s"])
        counts = match(found, events)
        t = totals.setdefault(h[by], [0, 0, 0, 0.0])
        for k in range(3):
            t[k] += counts[k]
        t[3] += float(h["seconds"])
    print(f"{by},found,events,false_alarms,hours,false_alarms_per_hour")
    for name, (tp, fp, fn, seconds) in sorted(totals.items()):
        print(f"{name},{tp},{tp + fn},{fp},{seconds / 3600:.3f},{fp / seconds * 3600:.3f}")


if __name__ == "__main__":
    main()
