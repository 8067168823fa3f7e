#!/usr/bin/env python3
"""Reference values for accelkit's standard detection metrics, computed by the sed_eval package.

Writes Tests/Fixtures/sed_eval/references.json: cases of traces (start, duration, annotations,
detections of one label) with what sed_eval 0.2.1 gives per trace (a fresh metrics object per
trace), over all traces (one object fed every trace: sed_eval's "overall"), and the mean over
traces of the per-trace F1 (numpy.nanmean, accelkit's macro average). The cases are hand-made
edge cases, random cases (seeded), and the detections of every rule on datasets/test as
`accelkit evaluate` writes them (detections.csv, per-trace.csv), so that the tests prove the
figures accelkit reports on its own test set.

How each trace is given to sed_eval (accelkit's definitions, docs/METRICS.md):
  - times relative to the trace's first sample (t - start);
  - event-based: EventBasedMetrics(t_collar=collar, percentage_of_length=offset_fraction),
    evaluate_offset False for onset-only, event_matching_type 'optimal';
  - segment-based: SegmentBasedMetrics(time_resolution=segment), evaluated_length_seconds =
    duration, events clipped to the trace (onset max(0, t - start), offset min(end, t) - start,
    end = start + duration; events ending before the trace are dropped).

Usage (from the repository root, after `swift build -c release`):
  pip install sed_eval==0.2.1
  python3 scripts/make_sed_eval_references.py [path/to/accelkit]
"""

import csv
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy
import sed_eval

KINDS = ["event_onset", "event_onset_offset", "segment"]


def events(pairs, start, label="shake"):
    return [
        {"filename": "trace", "event_label": label, "event_onset": on - start, "event_offset": off - start}
        for on, off in pairs
    ]


def clipped(pairs, start, end, label="shake"):
    out = []
    for on, off in pairs:
        a, b = max(0.0, on - start), min(end, off) - start
        if b < 0:
            continue
        out.append({"filename": "trace", "event_label": label, "event_onset": a, "event_offset": b})
    return out


def figures(f, er):
    def clean(v):
        return None if v is None or (isinstance(v, float) and numpy.isnan(v)) else float(v)

    return {
        "precision": clean(f["precision"]),
        "recall": clean(f["recall"]),
        "f1": clean(f["f_measure"]),
        "error_rate": clean(er["error_rate"]),
    }


def metric_objects(criteria):
    c, frac, seg = criteria["collar"], criteria["offset_fraction"], criteria["segment"]
    return {
        "event_onset": sed_eval.sound_event.EventBasedMetrics(
            ["shake"], evaluate_onset=True, evaluate_offset=False, t_collar=c, percentage_of_length=frac
        ),
        "event_onset_offset": sed_eval.sound_event.EventBasedMetrics(
            ["shake"], evaluate_onset=True, evaluate_offset=True, t_collar=c, percentage_of_length=frac
        ),
        "segment": sed_eval.sound_event.SegmentBasedMetrics(["shake"], time_resolution=float(seg)),
    }


def feed(objects, trace):
    start, duration = trace["start"], trace["duration"]
    end = start + duration
    truth, found = trace["truth"], trace["detections"]
    objects["event_onset"].evaluate(events(truth, start), events(found, start))
    objects["event_onset_offset"].evaluate(events(truth, start), events(found, start))
    objects["segment"].evaluate(
        clipped(truth, start, end), clipped(found, start, end), evaluated_length_seconds=end - start
    )


def results(objects):
    out = {}
    for kind in KINDS:
        m = objects[kind]
        for name, value in figures(m.overall_f_measure(), m.overall_error_rate()).items():
            out[f"{kind}_{name}"] = value
    return out


def evaluate_case(case):
    overall = metric_objects(case["criteria"])
    for trace in case["traces"]:
        alone = metric_objects(case["criteria"])
        feed(alone, trace)
        trace["sed_eval"] = results(alone)
        feed(overall, trace)
    case["overall"] = results(overall)
    for kind in KINDS:
        values = [t["sed_eval"][f"{kind}_f1"] for t in case["traces"]]
        values = [v for v in values if v is not None]
        case["overall"][f"{kind}_f1_macro"] = float(numpy.mean(values)) if values else None
    return case


def hand_cases():
    d = {"collar": 0.2, "offset_fraction": 0.5, "segment": 1.0}
    t = lambda truth, det, start=0.0, duration=10.0: {
        "start": start, "duration": duration, "truth": truth, "detections": det}
    return [
        {"name": "empty", "criteria": d, "traces": [t([], [])]},
        {"name": "nothing detected", "criteria": d, "traces": [t([[1, 2], [5, 6.5]], [])]},
        {"name": "nothing annotated", "criteria": d, "traces": [t([], [[1, 2], [3, 3]])]},
        {"name": "exact", "criteria": d, "traces": [t([[1, 2], [5, 6.5]], [[1, 2], [5, 6.5]])]},
        {"name": "collar edges", "criteria": d,
         "traces": [t([[1, 2], [4, 5], [7, 7.5]], [[1.2, 2.2], [4.2000001, 5], [6.8, 7.9]])]},
        {"name": "points and boundaries", "criteria": d,
         "traces": [t([[2, 2], [3, 4], [9.5, 10]], [[2.5, 2.5], [3, 3], [4, 5], [9.9, 10]])]},
        {"name": "one detection, two annotations", "criteria": d, "traces": [t([[1, 2], [1.1, 3]], [[1.05, 2.5]])]},
        {"name": "optimal beats greedy", "criteria": {"collar": 0.5, "offset_fraction": 0.5, "segment": 1.0},
         "traces": [t([[1.0, 2.0], [1.6, 3.0]], [[1.3, 2.2], [0.6, 1.9]])]},
        {"name": "long events use the fraction", "criteria": d,
         "traces": [t([[10, 50]], [[10.1, 35]], duration=60.0), t([[10, 50]], [[10.1, 25]], duration=60.0)]},
        {"name": "late start and clipping", "criteria": {"collar": 0.25, "offset_fraction": 0.2, "segment": 0.5},
         "traces": [t([[1000.2, 1001.1], [1008.9, 1010.7]], [[1000.1, 1000.3], [1009.0, 1011.0]],
                      start=1000.05, duration=10.3)]},
        {"name": "overlapping detections", "criteria": d,
         "traces": [t([[2, 6]], [[2.1, 3], [2.5, 4], [5, 6.2]]), t([[1, 1.5]], [[0.9, 1.4]])]},
        {"name": "fractional segments", "criteria": {"collar": 0.1, "offset_fraction": 0.5, "segment": 0.3},
         "traces": [t([[0.29, 0.31], [0.6, 0.9]], [[0.3, 0.6], [0.61, 0.89]], duration=1.05)]},
    ]


def random_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for k in range(count):
        criteria = {
            "collar": rng.choice([0.1, 0.2, 0.25, 0.5, 1.0]),
            "offset_fraction": rng.choice([0.2, 0.5, 1.0]),
            "segment": rng.choice([0.1, 0.5, 1.0, 2.0]),
        }
        traces = []
        for _ in range(rng.randint(1, 4)):
            start = rng.choice([0.0, 0.0, 12.5, 1.7e3 + rng.random()])
            duration = rng.uniform(5, 120)

            def interval():
                on = start + rng.uniform(0, duration)
                return [on, min(start + duration, on + rng.choice([0, rng.uniform(0.1, 8)]))]

            truth = sorted(interval() for _ in range(rng.randint(0, 8)))
            # Detections near annotations (jittered) and some anywhere.
            found = []
            for on, off in truth:
                if rng.random() < 0.7:
                    a = max(start, on + rng.gauss(0, 0.3))
                    found.append([a, max(a, min(start + duration, off + rng.gauss(0, 1.0)))])
            found += [interval() for _ in range(rng.randint(0, 5))]
            traces.append({"start": start, "duration": duration, "truth": truth, "detections": sorted(found)})
        cases.append({"name": f"random {k}", "criteria": criteria, "traces": traces})
    return cases


def test_set_cases(accelkit):
    """Every rule's detections on datasets/test, as accelkit evaluate reports them."""
    out = tempfile.mkdtemp()
    subprocess.run([accelkit, "evaluate", "datasets/test", "-o", out, "--format", "csv"], check=True,
                   stdout=subprocess.DEVNULL)
    manifest = list(csv.DictReader(open("datasets/test/manifest.csv")))
    truth = {}
    for row in manifest:
        name = os.path.join("datasets/test", row["trace"])
        rows = csv.DictReader(open(os.path.join("datasets/test", row["events"])))
        truth[name] = [[float(r["start"]), float(r["end"])] for r in rows if r["label"] == "shake"]
    spans, rules = {}, []
    for r in csv.DictReader(open(os.path.join(out, "per-trace.csv"))):
        spans[r["trace"]] = (float(r["start_s"]), float(r["duration_s"]))
        if r["rule"] not in rules:
            rules.append(r["rule"])
    found = {(rule, name): [] for rule in rules for name in spans}
    for r in csv.DictReader(open(os.path.join(out, "detections.csv"))):
        found[(r["rule"], r["trace"])].append([float(r["start"]), float(r["end"])])
    cases = []
    for rule in rules:
        traces = [{"name": name, "start": s, "duration": dur, "truth": truth[name], "detections": found[(rule, name)]}
                  for name, (s, dur) in spans.items()]
        cases.append({"name": f"datasets/test {rule}", "rule": rule,
                      "criteria": {"collar": 0.2, "offset_fraction": 0.5, "segment": 1.0}, "traces": traces})
    return cases


def main():
    accelkit = sys.argv[1] if len(sys.argv) > 1 else ".build/release/accelkit"
    cases = hand_cases() + random_cases(150, seed=20261123) + test_set_cases(accelkit)
    for case in cases:
        evaluate_case(case)
    path = "Tests/Fixtures/sed_eval/references.json"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    document = {"sed_eval": sed_eval.__version__, "numpy": numpy.__version__, "cases": cases}
    with open(path, "w") as f:
        json.dump(document, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"{len(cases)} cases written to {path}")


if __name__ == "__main__":
    main()
