#!/usr/bin/env python3
"""Imports public recordings of people shaking a device as accelkit datasets of real positives.

    scripts/import_shakes.py SOURCE CHECKOUT OUT [--context EVERYDAY/manifest.csv]
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

  openuat          mobilesec/openuat (LGPL-3.0): tests/motionauth, 19 recordings (8-26 s) of two
                   sensor boxes shaken in one hand or one in each hand, gzipped lines of a time
                   and 8 PWM readings (8-bit counts; box a on columns 1-3, box b on 5-7) stamped
                   when one changes. Put on a 100 Hz grid (a reading holds until the next line);
                   0 g is taken as count 128 (the middle of the range) and the scale, counts per
                   g, as the median |rest - 128| over the boxes that begin at rest (their first
                   half second varies by under 3 counts); the range clips near +-3.5 g. One trace
                   per box; its event runs from a quarter second before the first to the last
                   sample where |a| varies by more than 0.3 g (standard deviation over a quarter
                   second), pauses included. Most recordings begin already shaking and shake to
                   their last sample, so each is placed between 4 s of the source's own rest on
                   either side, as MotionSense-ESP's shakes are (below): the rest before the
                   shaking of the boxes that begin at rest for half a second or more (7 of 38),
                   cut into pieces of half a second; each side takes the next such box's pieces,
                   repeated to fill its 4 s.

  unitn            ahmedshoebq/UNITN---Low-Powered-Embedded-Sytem-Assignment-1---Ahmed-Shoeb (no
                   licence: read in place, never copied, and used to evaluate, not to train): an
                   Arduino Nano 33 BLE Sense in the hand, data/{shake,rest,background,circle,
                   updown}.csv, 40 windows each of 50 samples at 50 Hz with 0.8 s unrecorded
                   between windows, acceleration in g (flat reads +1 g on z) and the gyroscope in
                   deg/s (not imported). Shake windows (the hand shaken left and right) are joined
                   end to end into two bouts of 20 s between rest windows, one event each; the
                   background, circle and up-down windows into traces of their own without events.

  nodeconfeu       nearform/nodeconfeu-gesture-models (Apache-2.0): gestures of a Bangle.js watch
                   worn on the left wrist (the NodeConf EU 2019 badge), data/PERSON-vN/*.txt, one
                   clip a line, `NAME(n), x,y,z,...`: n samples (10-45) of 8-bit counts, 64 to a
                   g (the watch's 8192 a g with 7 bits dropped; at rest |a| reads 62-67 counts),
                   at the watch's default 12.5 Hz (its repository states neither; they are
                   Bangle.js' defaults and fit the data). `waggle` (the wrist turned back and
                   forth quickly; 188 distinct clips by two people) is the positive; clap, snap,
                   swipes, up-up and random motion are hard negatives. The clips carry no rest,
                   so each is spliced into 4 s of everyday wrist recording on either side, taken
                   from --context (an accelkit dataset such as scripts/import_everyday.py's OUT;
                   its wrist rows, falls left out), resampled to 12.5 Hz as
                   scripts/augment_positives.py resamples (each sample the mean of the readings
                   within 40 ms), clip k into the context trace k * 7919 in name order (the next
                   one with 8 s and no gap at its start, whose median |a| is within 0.8-1.25 g:
                   some watches record gravity removed). The clip is turned so that its first
                   quarter second points where the context's last quarter second before it
                   points, and the context after it is shifted to continue from the clip's end
                   (the shift fading out over half a second, as for rests below): gravity and
                   attitude carry on through both joins. One trace per clip; a waggle is one
                   event over the whole clip.

MotionSense-ESP's windows are short, so they are placed into traces of the source's own rest: each trace is
REST windows, then one shake window, then REST again, repeated; `fall` and `groundquack` windows
are placed the same way into traces of their own, with no events (hard negatives: every detection
there is a false alarm). The same shake windows also make sustained bouts (activity `sustained`):
the phone client records a second, uploads it and records the next, so one phone's windows
ingested at most 3 s apart are one person shaking on; they are joined end to end (a step between
two windows of shaking is a step inside the shaking) and cut into bouts of 24 windows, each one
event of 24 s or less between rests. Shake windows are written as recorded: a shake begins as abruptly as
the person began it. A rest window continues what came before it: it is shifted by the difference
between the mean of the last quarter second before the join and the mean of its own first quarter
second, a shift that fades out linearly over its first half second, so that joining two rests, or
a shake's end and a rest, adds no step to the gravity a detector tracks. The arrangement is fixed
(files in name order, no randomness), so the same checkout gives the same files.
"""
import csv
import functools
import glob
import io
import json
import math
import os
import re
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from import_everyday import combine, run  # noqa: E402  (the shared OUT/manifest.csv, the command line)
from augment_positives import read, resampled, turn  # noqa: E402  (traces read, put on a grid, turned)

G = 9.80665
REST = 4  # rest windows between two shakes
BOUT_GAP = 3  # seconds between two windows' ingestion that still continue one bout
BOUT = 24  # windows (seconds of shaking) in a sustained bout
BOUT_MIN = 8  # the fewest windows a bout keeps


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
        self.recording(name, rate, joined, events, position, activity)

    def recording(self, name, rate, joined, events, position, activity):
        """Writes one trace of samples (x, y, z) in g at `rate` Hz with its events (first and
        last sample of each)."""
        folder = os.path.join(self.out, self.source)
        os.makedirs(folder, exist_ok=True)
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


def rests(windows):
    """A function giving the next REST rest windows each call, as pieces, reusing them in turn."""
    used = 0

    def run():
        nonlocal used
        pieces = [(windows[(used + k) % len(windows)], False) for k in range(REST)]
        used += REST
        return pieces

    return run


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
                stamp = (payload.get("device_name", ""), document.get("protected", {}).get("iat", 0))
                windows.setdefault(label, []).append((part + "/" + os.path.basename(name), samples, stamp))
    rest = [s for _, s, _ in windows.get("idle", [])]
    if not rest or rate is None:
        return
    per_trace = 10
    rest_run = rests(rest)

    for label, activity, shake in (("shake", "shake", True), ("fall", "fall", False), ("groundquack", "ground-quake", False)):
        items = windows.get(label, [])
        for k in range(0, len(items), per_trace):
            pieces = rest_run()
            for _, samples, _ in items[k:k + per_trace]:
                pieces.append((samples, shake))
                pieces += rest_run()
            w.trace(f"{label}-{k // per_trace + 1:03d}", rate, pieces, "hand", activity)
    for n, bout in enumerate(motionsense_esp_bouts(windows.get("shake", []))):
        pieces = rest_run() + [([v for samples in bout for v in samples], True)] + rest_run()
        w.trace(f"bout-{n + 1:03d}", rate, pieces, "hand", "sustained")


def motionsense_esp_bouts(shakes):
    """Sustained shaking: runs of one phone's shake windows ingested at most BOUT_GAP seconds
    apart (the phone client records one second, uploads it and records the next, so a run is one
    person shaking on), joined end to end in ingestion order and cut into bouts of BOUT windows
    (a last piece shorter than BOUT_MIN windows joins the bout before it)."""
    by_phone = {}
    for name, samples, (phone, stamp) in shakes:
        by_phone.setdefault(phone, []).append((stamp, name, samples))
    bouts = []
    for phone in sorted(by_phone):
        run = []
        for stamp, name, samples in sorted(by_phone[phone]) + [(None, None, None)]:
            if run and (stamp is None or stamp - run[-1][0] > BOUT_GAP):
                windows = [s for _, _, s in run]
                cuts = list(range(0, len(windows), BOUT))
                if len(cuts) > 1 and len(windows) - cuts[-1] < BOUT_MIN:
                    cuts.pop()
                for i, cut in enumerate(cuts):
                    end = cuts[i + 1] if i + 1 < len(cuts) else len(windows)
                    if end - cut >= BOUT_MIN:
                        bouts.append(windows[cut:end])
                run = []
            if stamp is not None:
                run.append((stamp, name, samples))
    return bouts


# -- OpenUAT ------------------------------------------------------------------------------------

OPENUAT_RATE = 100.0  # the grid the event-stamped readings are put on (sample and hold), Hz
OPENUAT_ZERO = 128.0  # an axis' reading at 0 g: the middle of the 8-bit range
OPENUAT_ACTIVE_G = 0.3  # shaking: the standard deviation of |a| over a quarter second above this
OPENUAT_REST = 4.0  # seconds of the source's own rest placed before and after each recording
OPENUAT_PIECE = 0.5  # seconds in one piece of that rest
OPENUAT_LEAST_REST = 0.5  # the shortest rest before a box's shaking that the pool takes


def openuat_calibration(recordings):
    """Counts per g: the median of |rest - ZERO| over the boxes whose recording begins at rest
    (its first half second's readings vary by under 3 counts on every axis)."""
    scales = []
    for boxes in recordings:
        for counts in boxes:
            head = counts[:int(0.5 * OPENUAT_RATE)]
            if len(head) < 10:
                continue
            means = [sum(v[k] for v in head) / len(head) for k in range(3)]
            spread = max((sum((v[k] - means[k]) ** 2 for v in head) / len(head)) ** 0.5 for k in range(3))
            if spread < 3:
                scales.append(sum((m - OPENUAT_ZERO) ** 2 for m in means) ** 0.5)
    scales.sort()
    return scales[len(scales) // 2] if scales else None


def openuat_read(path):
    """The two boxes' readings (counts) on the grid, from the first line where every axis of both
    has reported (a reading holds until the next line changes it)."""
    import gzip
    times, values = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 8:
                continue
            v = [int(p) for p in parts[1:8]]
            if min(v[0], v[1], v[2], v[4], v[5], v[6]) <= 0:
                continue
            times.append(float(parts[0]))
            values.append(v)
    boxes = ([], [])
    if not times:
        return boxes
    k = 0
    n = int((times[-1] - times[0]) * OPENUAT_RATE) + 1
    for i in range(n):
        t = times[0] + i / OPENUAT_RATE
        while k + 1 < len(times) and times[k + 1] <= t:
            k += 1
        boxes[0].append(tuple(values[k][0:3]))
        boxes[1].append(tuple(values[k][4:7]))
    return boxes


def openuat(root, w):
    """tests/motionauth/{positive,negative}: two sensor boxes shaken in one hand (positive: together;
    negative: one in each hand, both shaken). Every file whose name contains .gz, with the test
    suite's -DISABLED switch or without."""
    folder = os.path.join(root, "tests", "motionauth")
    names = []
    for part in ("positive", "negative"):
        directory = os.path.join(folder, part)
        if os.path.isdir(directory):
            names += [(part, n) for n in sorted(os.listdir(directory)) if ".gz" in n]
    recordings = [openuat_read(os.path.join(folder, part, n)) for part, n in names]
    scale = openuat_calibration(recordings)
    if scale is None:
        return
    quarter = int(0.25 * OPENUAT_RATE)
    boxes = []  # (name, samples, first and last sample of the shaking)
    for (part, n), pair in zip(names, recordings):
        for box, counts in zip("ab", pair):
            if len(counts) < OPENUAT_RATE:
                continue
            # accelkit's convention: a reading of +1 g along an axis at rest means that axis points
            # down, so the boxes' specific force changes sign.
            samples = [tuple(-(c - OPENUAT_ZERO) / scale for c in v) for v in counts]
            norms = [sum(c * c for c in v) ** 0.5 for v in samples]
            active = []
            for i in range(len(norms)):
                window = norms[max(0, i - quarter):i + 1]
                mean = sum(window) / len(window)
                if (sum((x - mean) ** 2 for x in window) / len(window)) ** 0.5 > OPENUAT_ACTIVE_G:
                    active.append(i)
            if active:
                boxes.append((f"{part}-{n.split('.')[0]}-{box}", samples, max(0, active[0] - quarter), active[-1]))
    # The rest before a box's shaking, where it lasts OPENUAT_LEAST_REST or more, in pieces of
    # OPENUAT_PIECE: each side of a recording takes the next box's pieces in turn, repeated to
    # fill OPENUAT_REST (one box's attitude, so that the joins between pieces stay small).
    size = round(OPENUAT_PIECE * OPENUAT_RATE)
    runs = [[samples[i:i + size] for i in range(0, start - size + 1, size)]
            for _, samples, start, _ in boxes if start >= OPENUAT_LEAST_REST * OPENUAT_RATE]
    if not runs:
        sys.exit(f"{root}: no recording begins at rest for {OPENUAT_LEAST_REST:g} s: no rest to place the shaking between")
    per_side, used = round(OPENUAT_REST / OPENUAT_PIECE), 0

    def rest():
        nonlocal used
        run = runs[used % len(runs)]
        used += 1
        return [(run[k % len(run)], False) for k in range(per_side)]

    for name, samples, start, end in boxes:
        pieces = rest() + [(samples[:start], False), (samples[start:end + 1], True), (samples[end + 1:], False)] + rest()
        w.trace(name, OPENUAT_RATE, pieces, "hand", "shake")


# -- UNITN (an Arduino Nano 33 BLE Sense) --------------------------------------------------------

UNITN_RATE = 50.0  # the sketch's sampling, Hz
UNITN_WINDOW = 50  # samples in one recorded window
UNITN_BOUT = 20  # windows of shaking joined into one bout
UNITN_NEGATIVES = (("background", "background"), ("circle", "circle"), ("updown", "up-down"))


def unitn_windows(path):
    """One data/LABEL.csv: its windows of UNITN_WINDOW samples (x, y, z) in g, Apple's convention
    (the board reads +1 g on z lying flat); the gyroscope's columns and the closing `# DONE` line
    are not used, and a short last window is dropped."""
    samples = []
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) < 7:
                continue
            try:
                x, y, z = (float(v) for v in parts[:3])
            except ValueError:
                continue  # the header
            samples.append((-x, -y, -z))
    return [samples[k:k + UNITN_WINDOW] for k in range(0, len(samples) - UNITN_WINDOW + 1, UNITN_WINDOW)]


def unitn(root, w):
    """data/{shake,rest,background,circle,updown}.csv: the sketch records a window of 50 samples
    (one second), pauses 0.8 s and records the next; shake windows are joined end to end into
    bouts of UNITN_BOUT between rest windows (each bout one event), the other gestures into traces
    of their own without events."""
    folder = os.path.join(root, "data")
    rest = unitn_windows(os.path.join(folder, "rest.csv")) if os.path.exists(os.path.join(folder, "rest.csv")) else []
    if not rest:
        return
    rest_run = rests(rest)

    for label, activity in (("shake", "shake"),) + UNITN_NEGATIVES:
        path = os.path.join(folder, label + ".csv")
        if not os.path.exists(path):
            continue
        windows = unitn_windows(path)
        for n, k in enumerate(range(0, len(windows), UNITN_BOUT)):
            bout = [v for window in windows[k:k + UNITN_BOUT] for v in window]
            pieces = rest_run() + [(bout, label == "shake")] + rest_run()
            w.trace(f"{label}-{n + 1:03d}", UNITN_RATE, pieces, "hand", activity)


# -- nodeconfeu ---------------------------------------------------------------------------------

NODECONFEU_RATE = 12.5  # Bangle.js' default accelerometer poll, 80 ms
NODECONFEU_COUNTS = 64.0  # counts per g: the watch's 8192 per g, 7 bits dropped to fit an Int8
NODECONFEU_CONTEXT = 4.0  # seconds of everyday wrist recording on either side of a clip
NODECONFEU_ACTIVITIES = {
    "waggle": "waggle", "clap2": "clap", "snap": "snap", "swipeleft": "swipe", "swiperight": "swipe",
    "swipeup": "swipe", "upup": "up-up", "random": "random"}
NODECONFEU_STRIDE = 7919  # clip k takes context trace k * STRIDE (mod their number): spread over sources


def nodeconfeu_clips(root):
    """data/PERSON-vN/*.txt: lines `NAME(n), x,y,z,...` of n samples (counts); the activity from
    the name (a misspelt `swiipe` or `swipelieft` too), the person from the folder. Identical lines
    (a clip written twice) are kept once; other lines (a `>` prompt, blanks, gordon-v1's CSV of
    another layout) are skipped."""
    pattern = re.compile(r"^([A-Za-z0-9]+)\(([0-9]+)\),(.*)$")
    clips, seen = [], set()
    for path in sorted(glob.glob(os.path.join(root, "data", "*", "*.txt"))):
        person = os.path.basename(os.path.dirname(path)).split("-")[0]
        with open(path, errors="replace") as f:
            for line in f:
                match = pattern.match(line.strip())
                if not match or line.strip() in seen:
                    continue
                name = re.sub(r"i+", "i", match.group(1).lower()).replace("lieft", "left")
                activity = NODECONFEU_ACTIVITIES.get(name)
                try:
                    counts = [int(v) for v in match.group(3).split(",")]
                except ValueError:
                    continue
                n = int(match.group(2))
                if activity is None or n < 2 or len(counts) != 3 * n:
                    continue
                seen.add(line.strip())
                samples = [tuple(c / NODECONFEU_COUNTS for c in counts[3 * i:3 * i + 3]) for i in range(n)]
                clips.append((person, activity, samples))
    return clips


def context_traces(dataset, position):
    """The manifest rows of an accelkit dataset (scripts/import_everyday.py's OUT) at `position`,
    falls' sources left out, as paths in name order."""
    folder = os.path.dirname(os.path.abspath(dataset))
    with open(dataset) as f:
        rows = list(csv.DictReader(f))
    return sorted(os.path.join(folder, r["trace"]) for r in rows
                  if r.get("position") == position and not r.get("source", "").endswith("-falls"))


@functools.lru_cache(maxsize=None)
def context_piece(path):
    """The first 2 * NODECONFEU_CONTEXT seconds of a t,x,y,z trace on the watch's grid (the
    copies' resampling, scripts/augment_positives.py), or None when the trace is shorter, has a
    gap there, is recorded slower than the watch (its median interval over 1.05 of the watch's:
    ASSIST's 10 Hz watches), or holds no gravity (its median |a| outside 0.8-1.25 g). Read once per
    trace, however many clips it takes."""
    seconds, rate = 2 * NODECONFEU_CONTEXT, NODECONFEU_RATE
    rows = read(path)
    rows = [r for r in rows if r[0] <= rows[0][0] + seconds + 2] if rows else []
    if len(rows) < 2 or median([b[0] - a[0] for a, b in zip(rows, rows[1:])]) > 1.05 / rate:
        return None
    samples = resampled(rows, rate)
    n = round(seconds * rate)
    if len(samples) < n or samples[n - 1][0] - samples[0][0] > (n - 0.5) / rate:
        return None
    piece = [v for _, v in samples[:n]]
    if not 0.8 <= median([math.sqrt(sum(x * x for x in v)) for v in piece]) <= 1.25:
        return None
    return piece


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def rotation(a, b):
    """The rotation turning the direction of vector a into that of b: about a x b by the angle
    between them (half a turn about an axis across a when they are opposite)."""
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return turn((1, 0, 0), 0)
    u, v = [x / na for x in a], [x / nb for x in b]
    axis = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    sine, cosine = math.sqrt(sum(x * x for x in axis)), sum(x * y for x, y in zip(u, v))
    if sine < 1e-12:
        if cosine > 0:
            return turn((1, 0, 0), 0)
        p = (1, 0, 0) if abs(u[0]) < 0.9 else (0, 1, 0)
        axis = (u[1] * p[2] - u[2] * p[1], u[2] * p[0] - u[0] * p[2], u[0] * p[1] - u[1] * p[0])
    return turn(axis, math.degrees(math.atan2(sine, cosine)))


def spliced(before, clip, after, rate, is_shake):
    """Pieces for join(): the clip turned so that its first quarter second's mean direction is
    that of the context's last quarter second before it (the wearer's attitude carries on into
    the gesture); join() then shifts what follows to continue from the clip's end."""
    quarter = max(1, round(0.25 * rate))
    mean = lambda samples: [sum(v[k] for v in samples) / len(samples) for k in range(3)]  # noqa: E731
    r = rotation(mean(clip[:quarter]), mean(before[-quarter:]))
    turned = [tuple(sum(r[i][j] * v[j] for j in range(3)) for i in range(3)) for v in clip]
    return [(before, False), (turned, is_shake), (after, False)]


def nodeconfeu(root, w, context=None):
    """Each clip spliced into NODECONFEU_CONTEXT seconds of everyday wrist recording on either
    side (--context DATASET, resampled to the watch's rate), one trace per clip; waggles are
    events, the other gestures hard negatives without events."""
    if not context:
        sys.exit("nodeconfeu's clips are spliced into everyday wrist recordings: give "
                 "--context DATASET/manifest.csv (scripts/import_everyday.py's OUT)")
    traces = context_traces(context, "wrist")
    if not traces:
        sys.exit(f"{context}: no wrist recordings to splice nodeconfeu's clips into")
    rate, side = NODECONFEU_RATE, round(NODECONFEU_CONTEXT * NODECONFEU_RATE)
    numbered = {}
    for k, (person, activity, clip) in enumerate(nodeconfeu_clips(root)):
        piece = None
        for attempt in range(len(traces)):  # the next trace that serves
            piece = context_piece(traces[(k * NODECONFEU_STRIDE + attempt) % len(traces)])
            if piece:
                break
        if not piece:
            sys.exit(f"{context}: no wrist recording of {2 * NODECONFEU_CONTEXT:g} s or more")
        n = numbered[(person, activity)] = numbered.get((person, activity), 0) + 1
        pieces = spliced(piece[:side], clip, piece[side:], rate, activity == "waggle")
        w.trace(f"{person}-{activity}-{n:03d}", rate, pieces, "wrist", activity)


SOURCES = {"motionsense-esp": motionsense_esp, "openuat": openuat, "unitn": unitn, "nodeconfeu": nodeconfeu}


def main():
    """run(), with --context DATASET taken out of the arguments first (for nodeconfeu)."""
    if "--context" in sys.argv:
        i = sys.argv.index("--context")
        if i + 1 >= len(sys.argv):
            sys.exit(__doc__)
        context = sys.argv[i + 1]
        del sys.argv[i:i + 2]
        SOURCES["nodeconfeu"] = functools.partial(nodeconfeu, context=context)
    run(SOURCES, Writer, __doc__)


if __name__ == "__main__":
    main()
