#!/usr/bin/env python3
"""Imports public recordings of everyday activity (and falls) as accelkit datasets of real
negatives: nobody shakes the device in them, so every shake a detector reports is a false alarm.

    scripts/import_everyday.py SOURCE CHECKOUT OUT
    accelkit evaluate OUT --rule swing          # false alarms per hour per source and position

SOURCE is one of the names below; CHECKOUT a checkout of its public repository (git clone it
yourself: accelkit carries importers, not the data). Each source goes to OUT/SOURCE/ (falls to
OUT/SOURCE-falls/, a source of their own, so that their false alarms show separately) with a
manifest whose `source`, `position` and `activity` columns the reports group by; OUT/manifest.csv
is rewritten to list every source imported into OUT so far. Traces are written as t,x,y,z: seconds
from the recording's first sample, acceleration in g in accelkit's (Apple's) convention (a
specific-force reading, +1 g up at rest, is negated). Rows whose time does not advance are
dropped and counted.

  oxford       Oxford-step-counter/DataSet (CC BY 4.0): walking with an Android phone in the hand,
               a front or back trouser pocket, a neck pouch, a bag or purse, an armband; ~100 Hz.
  umafall      UMAFall (Casilari, Santoyo-Ramón, Cano-García, Universidad de Málaga; the
               per-recording CSVs of DevMGcode/Umafall_Algorithm, scripts/extracted_files): ADLs
               (walking, jogging, stairs, hopping, sitting, bending, lying down, clapping, calls...)
               and falls, with a phone in the right trouser pocket (~200 Hz) and SensorTags at the
               waist, wrist, chest and ankle (~20 Hz), all at once.
  smartfallmm  txst-cs-smartfall/SmartFallMM-Dataset: ADLs (drinking, picking up, jacket, stepping
               up, sweeping, washing hands, waving, walking / TUG, sit-stand) and falls of young and
               old participants; a phone and a MetaMotion sensor at the hip, a watch and a
               MetaMotion sensor at the wrist. A few MetaMotion files hold something else (a
               gyroscope's deg/s, an epoch in the z column, a constant -1.68e12); a recording,
               or a piece of one saved after a gap, whose median |a| is over 4 g is refused and
               named.
  wedafall     joaojtmarques/WEDA-FALL: a Fitbit Sense at the wrist, 50 Hz (dataset/50Hz), ADLs
               D01-D11 (walking, jogging, stairs, sitting, crouching, stumbling, jumping, hitting a
               table, clapping, doors) and falls F01-F08, young and elderly participants.
  assist       ASSIST-IoT-SRIPAS/multimodal-fall-detection-dataset (CC BY 4.0): slow and fast
               stairs with a tag on a belt (~125 Hz) and watches on both wrists (the `stairs` set;
               the larger `lab` files are read when present). The watches (~10 Hz) record in an
               undocumented unit: gravity reads about 0.13 in it (ASSIST_WATCH_SCALE, below), so
               they are multiplied by 7.6 into g.
  ipol         CyrilVoisard/ipol_dataset_1: healthy gait (stand, walk 10 m, turn, walk back) with
               an Xsens MTw at the lower back, 100 Hz.

Licences differ (see each repository); where none is stated, the data is read in place for
evaluation and never redistributed.
"""
import csv
import datetime
import glob
import os
import re
import sys

G = 9.80665


class Writer:
    """Writes one source's traces and manifest."""

    def __init__(self, out, source):
        self.out = out
        self.source = source
        self.rows = {}  # folder name -> manifest rows
        self.seconds = {}  # (source, position) -> seconds
        self.dropped = 0
        self.refused = []  # recordings or pieces whose readings are not accelerations in g

    def trace(self, name, times, xyz, position, activity, falls=False, specific_force=True):
        """Writes a recording: times in seconds (any origin), xyz in g. Samples delivered in a
        burst under one stamp are spread evenly up to the next stamp. A recording with gaps or
        jumps back (over 1 s and 20 median intervals: pieces of a session cut out and saved
        together) is written as one trace per piece, so that the hours counted are hours
        recorded; rows whose time goes back by less are dropped and counted."""
        source = self.source + ("-falls" if falls else "")
        if not plausible(xyz):
            self.refused.append(name)
            return
        times = spread_bursts(times)
        steps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
        if not steps:
            return
        gap = max(1.0, 20 * steps[len(steps) // 2])
        pieces = [[]]
        for t, (x, y, z) in zip(times, xyz):
            piece = pieces[-1]
            if piece and not t > piece[-1][0]:
                if piece[-1][0] - t > gap:
                    pieces.append([(t, x, y, z)])  # a jump back: another piece saved after this one
                else:
                    self.dropped += 1
                continue
            if piece and t - piece[-1][0] > gap:
                pieces.append([])
            pieces[-1].append((t, x, y, z))
        pieces = [p for p in pieces if len(p) >= 2 and p[-1][0] - p[0][0] >= 1.0]
        folder = os.path.join(self.out, source)
        os.makedirs(folder, exist_ok=True)
        sign = -1.0 if specific_force else 1.0
        for k, piece in enumerate(pieces):
            t0 = piece[0][0]
            suffix = f"-part{k + 1}" if len(pieces) > 1 else ""
            # A piece is judged on its own as well: a recording saved from several takes may hold
            # one whose readings are something else (SmartFallMM's constant -1.68e12 g).
            if not plausible([r[1:] for r in piece]):
                self.refused.append(name + suffix)
                continue
            file = re.sub(r"[^A-Za-z0-9._-]+", "_", name + suffix) + ".csv"
            with open(os.path.join(folder, file), "w") as f:
                f.write("t,x,y,z\n")
                written = None
                for t, x, y, z in piece:
                    text = f"{t - t0:.6f}"
                    if written is not None and not float(text) > written:
                        self.dropped += 1  # closer than a microsecond to the row before
                        continue
                    written = float(text)
                    f.write(f"{text},{sign * x:.6g},{sign * y:.6g},{sign * z:.6g}\n")
            self.rows.setdefault(source, []).append((file, source, position, activity))
            key = (source, position)
            self.seconds[key] = self.seconds.get(key, 0.0) + piece[-1][0] - t0

    def finish(self):
        for source, rows in self.rows.items():
            folder = os.path.join(self.out, source)
            with open(os.path.join(folder, "none.events.csv"), "w") as f:
                f.write("start,end,label\n")
            with open(os.path.join(folder, "manifest.csv"), "w") as f:
                f.write("trace,events,source,position,activity\n")
                for file, src, position, activity in sorted(rows):
                    f.write(f"{file},none.events.csv,{src},{position},{activity}\n")
        combine(self.out)
        for (source, position), seconds in sorted(self.seconds.items()):
            print(f"{source:18s} {position:14s} {seconds / 3600:7.2f} h")
        if self.dropped:
            print(f"dropped {self.dropped} rows whose time did not advance")
        if self.refused:
            print(f"refused {len(self.refused)} recordings whose median |a| is over {MAX_MEDIAN_G:g} g "
                  f"(not accelerations in g): {', '.join(self.refused)}")


MAX_MEDIAN_G = 4.0


def plausible(xyz):
    """Whether a recording reads like acceleration in g: a worn device spends most of its time
    near 1 g, so a median |a| over MAX_MEDIAN_G g means the file holds something else (some of
    SmartFallMM's MetaMotion files hold a gyroscope's deg/s, or a timestamp in the z column)."""
    if not xyz:
        return False
    sizes = sorted(x * x + y * y + z * z for x, y, z in xyz)
    return sizes[len(sizes) // 2] <= MAX_MEDIAN_G * MAX_MEDIAN_G


def spread_bursts(times):
    """Runs of equal stamps spread evenly up to the next larger stamp (the last run by the
    median interval)."""
    times = list(times)
    steps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
    step = steps[len(steps) // 2] if steps else 0.0
    i = 0
    while i < len(times):
        j = i + 1
        while j < len(times) and times[j] == times[i]:
            j += 1
        if j - i > 1:
            end = times[j] if j < len(times) and times[j] > times[i] else times[i] + step * (j - i)
            for k in range(i + 1, j):
                times[k] = times[i] + (end - times[i]) * (k - i) / (j - i)
        i = j
    return times


def combine(out):
    """OUT/manifest.csv: every OUT/*/manifest.csv, paths made relative to OUT."""
    lines = ["trace,events,source,position,activity"]
    for manifest in sorted(glob.glob(os.path.join(out, "*", "manifest.csv"))):
        folder = os.path.basename(os.path.dirname(manifest))
        with open(manifest) as f:
            reader = csv.reader(f)
            next(reader)
            for trace, events, source, position, activity in reader:
                lines.append(f"{folder}/{trace},{folder}/{events},{source},{position},{activity}")
    with open(os.path.join(out, "manifest.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")


def read_lines(path):
    with open(path, errors="replace") as f:
        return [line.rstrip("\r\n") for line in f]


def numbers(fields):
    try:
        return [float(v) for v in fields]
    except ValueError:
        return None


# -- Oxford step counter -------------------------------------------------------------------

OXFORD_POSITIONS = {
    "inhand": "hand", "hand": "hand", "swingingarm": "hand", "frontpocket": "trouser-pocket",
    "backpocket": "back-pocket", "neckpouch": "neck", "purse": "bag", "bag": "bag", "armband": "upper-arm",
}


def oxford(root, w):
    files = glob.glob(os.path.join(root, "optimisation", "data", "*", "accelerometer.csv"))
    files += glob.glob(os.path.join(root, "validation", "user*.csv"))
    for path in sorted(files):
        if path.endswith("accelerometer.csv"):
            name = os.path.basename(os.path.dirname(path))
            place = name.split("_")[-2].lower()
            # timestamp (ns since boot), sensor type, x, y, z (m/s^2)
            pick = lambda f: (f[0], f[2:5]) if len(f) >= 5 else None
        else:
            name = os.path.basename(path)[:-4]
            place = name.split("_")[1].lower()
            # timestamp (ns since boot), x, y, z (m/s^2), step counts
            pick = lambda f: (f[0], f[1:4]) if len(f) >= 4 else None
        position = OXFORD_POSITIONS.get(place)
        if position is None:
            continue  # the "Patient" recordings: no position given (and empty here)
        times, xyz = [], []
        for line in read_lines(path):
            p = pick(line.split(","))
            v = p and numbers([p[0]] + p[1])
            if not v:
                continue
            if v[1:] == [0.0, 0.0, 0.0]:
                continue  # the logger's first row before the sensor delivers
            times.append(v[0] / 1e9)
            xyz.append([c / G for c in v[1:]])
        w.trace("oxford-" + name, times, xyz, position, "walking")


# -- UMAFall --------------------------------------------------------------------------------

UMAFALL_POSITIONS = {"RIGHTPOCKET": "trouser-pocket", "WAIST": "waist", "WRIST": "wrist", "CHEST": "chest", "ANKLE": "ankle"}


def umafall(root, w):
    folder = os.path.join(root, "scripts", "extracted_files")
    for path in sorted(glob.glob(os.path.join(folder, "UMAFall_Subject_*.csv"))):
        name = os.path.basename(path)[:-4]
        m = re.match(r"UMAFall_Subject_(\d+)_(ADL|Fall)_([A-Za-z]+)_(\d+)", name)
        if not m:
            continue
        falls = m.group(2) == "Fall"
        activity = m.group(3).lower()
        positions = {}
        streams = {}
        for line in read_lines(path):
            if line.startswith("%"):
                # %MAC; Sensor_ID; Position; Device Model
                parts = [p.strip() for p in line[1:].split(";")]
                if len(parts) == 4 and parts[1].isdigit() and parts[2] in UMAFALL_POSITIONS:
                    positions[int(parts[1])] = UMAFALL_POSITIONS[parts[2]]
                continue
            v = numbers([p for p in line.split(";") if p.strip() != ""])
            # TimeStamp (ms); Sample No; X; Y; Z (g); Sensor Type (0: accelerometer); Sensor ID
            if not v or len(v) < 7 or int(v[5]) != 0:
                continue
            streams.setdefault(int(v[6]), []).append((v[0], v[2:5]))
        for sensor, samples in sorted(streams.items()):
            if sensor not in positions or len(samples) < 2:
                continue
            times = [s[0] / 1000 for s in samples]
            w.trace(f"umafall-{name}-{positions[sensor]}", times, [s[1] for s in samples], positions[sensor],
                    activity, falls=falls)


# -- SmartFallMM ----------------------------------------------------------------------------

SMARTFALL_ACTIVITIES = {
    1: "drinking", 2: "picking-up", 3: "jacket", 4: "stepping-up", 5: "sweeping", 6: "washing-hands",
    7: "waving", 8: "walking", 9: "sit-stand", 10: "fall-back", 11: "fall-front", 12: "fall-left",
    13: "fall-right", 14: "fall-rotate",
}
# device folder -> (position, units per g, reads specific force)
SMARTFALL_DEVICES = {"phone": ("hip", G), "meta_hip": ("hip", 1.0), "watch": ("wrist", G), "meta_wrist": ("wrist", 1.0)}


def smartfall_time(text):
    text = text.strip()
    try:
        value = float(text)
        return value / 1000 if value > 1e11 else value  # epoch ms
    except ValueError:
        return datetime.datetime.fromisoformat(text).timestamp()


def smartfallmm(root, w):
    for group in ("young", "old"):
        for device, (position, scale) in SMARTFALL_DEVICES.items():
            for path in sorted(glob.glob(os.path.join(root, group, "accelerometer", device, "*.csv"))):
                name = os.path.basename(path)[:-4]
                m = re.match(r"S(\d+)A(\d+)T(\d+)", name)
                if not m:
                    continue
                activity = int(m.group(2))
                times, xyz = [], []
                for line in read_lines(path):
                    fields = line.split(",")
                    if len(fields) == 6:
                        # epoch (ms), time, elapsed (s), x, y, z (g): the epoch column was rounded
                        # by a spreadsheet in some files (1.65844E+12), the elapsed one was not.
                        fields = [fields[2]] + fields[3:]
                    if len(fields) != 4:
                        continue
                    v = numbers(fields[1:])
                    if v is None:
                        continue
                    try:
                        t = smartfall_time(fields[0])
                    except ValueError:
                        continue
                    times.append(t)
                    xyz.append([c / scale for c in v])
                w.trace(f"smartfallmm-{group}-{device}-{name}", times, xyz, position,
                        SMARTFALL_ACTIVITIES.get(activity, str(activity)), falls=activity >= 10)


# -- WEDA-FALL ------------------------------------------------------------------------------

WEDA_ACTIVITIES = {
    "D01": "walking", "D02": "jogging", "D03": "stairs", "D04": "sitting", "D05": "sit-collapse",
    "D06": "crouching", "D07": "stumbling", "D08": "jumping", "D09": "hitting-table", "D10": "clapping",
    "D11": "doors",
}


def wedafall(root, w):
    for path in sorted(glob.glob(os.path.join(root, "dataset", "50Hz", "*", "*_accel.csv"))):
        if path.endswith("_vertical_accel.csv"):
            continue
        code = os.path.basename(os.path.dirname(path))
        name = code + "_" + os.path.basename(path)[: -len("_accel.csv")]
        times, xyz = [], []
        for line in read_lines(path)[1:]:  # accel_time_list (s), accel_x_list, ... (m/s^2)
            v = numbers(line.split(","))
            if v and len(v) == 4:
                times.append(v[0])
                xyz.append([c / G for c in v[1:]])
        w.trace("wedafall-" + name, times, xyz, "wrist", WEDA_ACTIVITIES.get(code, "fall"), falls=code.startswith("F"))


# -- ASSIST-IoT -----------------------------------------------------------------------------

ASSIST_POSITIONS = {"TAG": "waist", "WATCH_L": "wrist", "WATCH_R": "wrist"}
# The watches' unit is not documented. Their readings follow the wrist's attitude (along the
# forearm while the arm hangs, one sign on the left wrist and the other on the right), so they hold
# gravity, scaled: the median |a| of each watch's stairs recordings is 0.127-0.138, 0.132 over all
# of them (48,129 readings). They are multiplied by its inverse, rounded (the tag records g).
ASSIST_WATCH_SCALE = 7.6


def assist(root, w):
    for path in sorted(glob.glob(os.path.join(root, "data", "full_acceleration", "*", "*", "acceleration.csv"))):
        with open(path) as f:
            if f.read(3) != "SET":
                continue  # a large-file pointer, not the data
        streams = {}
        for line in read_lines(path)[1:]:
            # SET|PARTICIPANT|TIMESTAMP|SOURCE|X|Y|Z|TYPE|ACTIVITY|IS_FALL (g)
            f = line.split("|")
            if len(f) != 10 or f[3] not in ASSIST_POSITIONS:
                continue
            v = numbers(f[4:7])
            if v is None:
                continue
            if f[3] != "TAG":
                v = [x * ASSIST_WATCH_SCALE for x in v]
            t = datetime.datetime.fromisoformat(f[2]).timestamp()
            key = (f[0], f[1], f[3], f[8], f[9] == "1")
            streams.setdefault(key, []).append((t, v))
        for (kind, participant, device, activity, falls), samples in sorted(streams.items()):
            what = {"5": "stairs-slow", "6": "stairs-fast"}.get(activity, f"activity-{activity}") if kind == "stairs" else f"{kind}-{activity}"
            w.trace(f"assist-{kind}-{participant}-{device}-{activity}", [s[0] for s in samples],
                    [s[1] for s in samples], ASSIST_POSITIONS[device], what, falls=falls)


# -- IPOL gait -------------------------------------------------------------------------------

def ipol(root, w):
    for path in sorted(glob.glob(os.path.join(root, "GaitData", "*_lb.txt"))):
        lines = read_lines(path)
        rate = 100.0
        m = re.search(r"([0-9.]+) *Hz", lines[0]) if lines else None
        if m:
            rate = float(m.group(1))
        times, xyz = [], []
        for line in lines[2:]:  # PacketCounter, Acc_X, Acc_Y, Acc_Z (m/s^2), Gyr..., Mag...
            v = numbers(line.split("\t")[:4])
            if v and len(v) == 4:
                times.append(len(times) / rate)
                xyz.append([c / G for c in v[1:]])
        w.trace("ipol-" + os.path.basename(path)[:-4], times, xyz, "lower-back", "walking")


SOURCES = {"oxford": oxford, "umafall": umafall, "smartfallmm": smartfallmm, "wedafall": wedafall,
           "assist": assist, "ipol": ipol}


def run(sources, writer, usage):
    """The command line of an importer: SOURCE CHECKOUT OUT, SOURCE one of `sources` (name ->
    function of the checkout and a writer), `writer(out, source)` making the writer."""
    if len(sys.argv) != 4 or sys.argv[1] not in sources:
        sys.exit(usage)
    source, root, out = sys.argv[1:]
    if not os.path.isdir(root):
        sys.exit(f"{root}: not a folder (a checkout of the source's repository)")
    w = writer(out, source)
    sources[source](root, w)
    if not w.rows:
        sys.exit(f"{root}: no recordings of {source} found there")
    w.finish()


def main():
    run(SOURCES, Writer, __doc__)


if __name__ == "__main__":
    main()
