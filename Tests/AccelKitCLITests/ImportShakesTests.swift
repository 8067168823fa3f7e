import Foundation
import TestSupport
import Testing

/// scripts/import_shakes.py on a small export written in MotionSense-ESP's exact format (Edge
/// Impulse JSON windows in DataSet/training.zip and testing.zip): units, axis convention, the
/// placement of shakes between rests with their events, hard negatives without events, and joins
/// that add no step; then `evaluate` reads the result.
@Suite struct ImportShakesTests {
  /// Runs `maker` (Python that writes a checkout in the source's format into its first
  /// argument) into ROOT/checkout, then scripts/import_shakes.py SOURCE on it into `out`.
  static func importing(_ source: String, maker: String, root: String, out: String, options: String = "") throws
    -> CLIResult
  {
    let python = try #require(Tools.path("python3"), Comment(rawValue: Tools.missing("python3", package: "python3")))
    try #require(try accelkit([], shell: "'\(python)' - '\(root)/checkout' <<'EOF'\n\(maker)\nEOF").status == 0)
    let script = "'\(Paths.packageRoot)/scripts/import_shakes.py'"
    return try accelkit([], shell: "'\(python)' \(script) \(source) '\(root)/checkout' '\(out)' \(options)")
  }

  @Test func motionSenseESPWindowsBecomeTracesWithEvents() throws {
    let root = Paths.temporaryDirectory()
    let out = root + "/out"
    // Windows of 62 samples 16 ms apart, m/s^2, flat at rest reading +9.8 on z; one without a
    // payload (as the export holds) is skipped.
    let maker = """
      import io, json, math, os, sys, zipfile
      root = sys.argv[1]
      os.makedirs(os.path.join(root, 'DataSet'), exist_ok=True)
      def window(label, k):
          values = []
          for i in range(62):
              if label == 'shake':
                  values.append([25 * math.sin(2 * math.pi * 5 * i * 0.016 + k), 3.0, 9.8])
              elif label == 'fall':
                  values.append([0.1, 0.2, 9.8 if i < 30 else 30.0])
              else:
                  values.append([0.5, -0.2, 9.7])
          # Ingested 2 s apart in the reverse of name order (the bout follows ingestion); the
          # testing part's shake comes much later, a run of its own.
          stamp = 100 + 2 * (8 - k) if label == 'shake' and k < 9 else 1000 + k
          return {'protected': {'ver': 'v1', 'iat': stamp}, 'signature': '0', 'payload': {'device_name': 'phone',
              'device_type': 'MOBILE_CLIENT', 'interval_ms': 16, 'sensors': [{'name': 'accX', 'units': 'm/s2'}, {'name': 'accY',
              'units': 'm/s2'}, {'name': 'accZ', 'units': 'm/s2'}], 'values': values}}
      for part, counts in (('training', {'shake': 9, 'idle': 6, 'fall': 2}), ('testing', {'shake': 1, 'idle': 2})):
          with zipfile.ZipFile(os.path.join(root, 'DataSet', part + '.zip'), 'w') as z:
              for label, n in counts.items():
                  for k in range(n):
                      shift = 9 if part == 'testing' else 0
                      z.writestr(f'{part}/{label}.{k:08d}.ingestion-1.json', json.dumps(window(label, k + shift)))
              z.writestr(f'{part}/shake.broken.ingestion-1.json', json.dumps({'protected': {}}))
      """
    let run = try Self.importing("motionsense-esp", maker: maker, root: root, out: out)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("shake           1 traces    10 shakes"), "\(run.stdout)")
    #expect(run.stdout.contains("sustained       1 traces     1 shakes"), "\(run.stdout)")
    let manifest = String(decoding: readFile(out + "/manifest.csv") ?? [], as: UTF8.self)
    #expect(manifest.contains("motionsense-esp/shake-001.csv,motionsense-esp/shake-001.events.csv,motionsense-esp,hand,shake"))
    #expect(manifest.contains("motionsense-esp/fall-001.csv,motionsense-esp/fall-001.events.csv,motionsense-esp,hand,fall"))
    // Four rest windows, then each shake and four rests: the events are the shake windows.
    let events = String(decoding: readFile(out + "/motionsense-esp/shake-001.events.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect(events.count == 10)
    let first: [Double] = [Double(4 * 62) * 0.016, Double(5 * 62 - 1) * 0.016]
    #expect(events.first.map { zip($0, first).allSatisfy { abs($0 - $1) < 1e-9 } } == true, "\(events)")
    #expect(String(decoding: readFile(out + "/motionsense-esp/fall-001.events.csv") ?? [], as: UTF8.self) == "start,end,label\n")
    // g, Apple's convention: rest reads z = -9.7 / g; the joins between rests add no step.
    let rows = String(decoding: readFile(out + "/motionsense-esp/shake-001.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect(abs(rows[0][3] + 9.7 / 9.80665) < 1e-6 && abs(rows[0][1] + 0.5 / 9.80665) < 1e-6, "\(rows[0])")
    #expect(abs(rows[1][0] - 0.016) < 1e-9)
    let shakeEnd = Int((events[0][1] / 0.016).rounded())
    let afterShake = rows[shakeEnd + 1]
    // The (constant) rest after a shake starts at the mean of the shake's last quarter second.
    let tail = rows[(shakeEnd - 15)...shakeEnd].map { $0[1] }.reduce(0, +) / 16
    #expect(abs(afterShake[1] - tail) < 1e-5, "the rest after a shake continues it: \(tail) \(afterShake)")
    // The nine training shakes, ingested 2 s apart, are one sustained bout in ingestion order
    // (window 8 first), one event over all of it between rests; the later one is not joined.
    let bout = String(decoding: readFile(out + "/motionsense-esp/bout-001.events.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    let whole: [Double] = [Double(4 * 62) * 0.016, Double(13 * 62 - 1) * 0.016]
    #expect(bout.count == 1 && zip(bout[0], whole).allSatisfy { abs($0 - $1) < 1e-9 }, "\(bout)")
    let boutRows = String(decoding: readFile(out + "/motionsense-esp/bout-001.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect(abs(boutRows[4 * 62][1] + 25 * sin(8.0) / 9.80665) < 1e-5, "\(boutRows[4 * 62])")
    #expect(abs(boutRows[5 * 62][1] + 25 * sin(7.0) / 9.80665) < 1e-5, "\(boutRows[5 * 62])")
    #expect(!FileManager.default.fileExists(atPath: out + "/motionsense-esp/bout-002.csv"))
    let r = try accelkit(["evaluate", out, "--rule", "seismic", "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
  }

  /// OpenUAT's motionauth recordings in their exact format (gzipped lines of a time and eight
  /// 8-bit PWM readings, written when one changes): the grid, the calibration from the boxes that
  /// begin at rest, the axis convention, and one event per box over its shaking.
  @Test func openUATRecordingsBecomeOneTracePerBox() throws {
    let root = Paths.temporaryDirectory()
    let out = root + "/out"
    // Box a rests on +x (128 + 40 counts: 40 counts a g) for 2 s, then is shaken along y at 5 Hz
    // (+-80 counts: 2 g) for 3 s, then rests again for 1 s; box b rests flat (z) throughout.
    // A line is written every 5 ms (the event stamps), with channels 3 and 7 unused.
    let maker = """
      import gzip, math, os, sys
      root = sys.argv[1]
      for part in ('positive', 'negative'):
          os.makedirs(os.path.join(root, 'tests', 'motionauth', part), exist_ok=True)
      def write(path, t0):
          with gzip.open(path, 'wt') as f:
              f.write(f'{t0:.6f} 0 0 0 0 0 0 0 0 \\n')
              for i in range(1200):
                  t = i * 0.005
                  y = 128 + (round(80 * math.sin(2 * math.pi * 5 * t)) if 2 <= t < 5 else 0)
                  f.write(f'{t0 + 0.001 + t:.6f} 168 {y} 128 1 128 128 168 1 \\n')
      write(os.path.join(root, 'tests', 'motionauth', 'positive', '1.gz'), 1147272852.3)
      write(os.path.join(root, 'tests', 'motionauth', 'negative', '3.gz-DISABLED'), 1147272900.0)
      """
    let run = try Self.importing("openuat", maker: maker, root: root, out: out)
    #expect(run.status == 0, "\(run.stderr)")
    // Box b never moves: no trace. Box a of both recordings: one event each.
    let words = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.hasPrefix("openuat shake 2 traces 2 shakes"), "\(run.stdout)")
    let manifest = String(decoding: readFile(out + "/manifest.csv") ?? [], as: UTF8.self)
    #expect(manifest.contains("openuat/positive-1-a.csv,openuat/positive-1-a.events.csv,openuat,hand,shake"), "\(manifest)")
    #expect(manifest.contains("openuat/negative-3-a.csv"))
    let rows = String(decoding: readFile(out + "/openuat/positive-1-a.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    // 100 Hz; 40 counts a g; +x at rest reads -1 g in accelkit's convention.
    #expect(abs(rows[1][0] - 0.01) < 1e-9)
    #expect(abs(rows[0][1] + 1) < 1e-6 && abs(rows[0][2]) < 1e-6 && abs(rows[0][3]) < 1e-6, "\(rows[0])")
    let peak = rows.map { abs($0[2]) }.max() ?? 0
    #expect(abs(peak - 2) < 0.01, "the shake's peak is 80 counts: 2 g, got \(peak)")
    // The recording (6 s) is placed between 4 s of the source's own rest on either side (box a's
    // rest before its shaking, in pieces of half a second): the event covers the shaking (2-5 s
    // of the recording) to within the quarter-second measure, 4 s later.
    let events = String(decoding: readFile(out + "/openuat/positive-1-a.events.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect(events.count == 1)
    #expect(events.first.map { abs($0[0] - 6) <= 0.3 && abs($0[1] - 9) <= 0.3 } == true, "\(events)")
    #expect(abs((rows.last?[0] ?? 0) - 14) < 0.05, "\(rows.last ?? [])")
    for part in [rows.prefix(400), rows.suffix(400)] {
      let still = part.allSatisfy { abs($0[1] + 1) < 1e-3 && abs($0[2]) < 1e-3 && abs($0[3]) < 1e-3 }
      #expect(still, "rest: \(part.first!)")
    }
    let r = try accelkit(["evaluate", out, "--rule", "swing", "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
  }

  /// The UNITN Arduino sketch's logs in their exact format (a header, lines of ax,ay,az in g and
  /// gx,gy,gz in deg/s with the label, `# DONE` at the end; windows of 50 samples at 50 Hz):
  /// shake windows joined into bouts of 20 between rests, one event each; other gestures without
  /// events; the axis convention.
  @Test func unitnWindowsBecomeBoutsBetweenRests() throws {
    let root = Paths.temporaryDirectory()
    let out = root + "/out"
    // Rest lies flat (+0.98 g on z) with a short window left over; 21 shake windows (a bout of 20
    // and one of 1); two circle windows.
    let maker = """
      import math, os, sys
      folder = os.path.join(sys.argv[1], 'data')
      os.makedirs(folder, exist_ok=True)
      def write(label, n, sample):
          with open(os.path.join(folder, label + '.csv'), 'w') as f:
              f.write('ax,ay,az,gx,gy,gz,label\\n')
              for i in range(n):
                  x, y, z = sample(i)
                  f.write(f'{x:.4f},{y:.4f},{z:.4f},1.0000,2.0000,3.0000,{label}\\n')
              f.write('# DONE\\n')
      write('rest', 130, lambda i: (0.01, -0.02, 0.98))
      write('shake', 21 * 50, lambda i: (0.6 * math.sin(2 * math.pi * 4 * i / 50), 0.0, 0.98))
      write('circle', 100, lambda i: (0.3 * math.cos(i / 8), 0.3 * math.sin(i / 8), 0.98))
      """
    let run = try Self.importing("unitn", maker: maker, root: root, out: out)
    #expect(run.status == 0, "\(run.stderr)")
    let words = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("unitn shake 2 traces 2 shakes"), "\(run.stdout)")
    #expect(words.contains("unitn circle 1 traces 0 shakes"), "\(run.stdout)")
    let manifest = String(decoding: readFile(out + "/manifest.csv") ?? [], as: UTF8.self)
    #expect(manifest.contains("unitn/shake-001.csv,unitn/shake-001.events.csv,unitn,hand,shake"), "\(manifest)")
    #expect(manifest.contains("unitn/circle-001.csv,unitn/circle-001.events.csv,unitn,hand,circle"), "\(manifest)")
    func table(_ name: String) -> [[Double]] {
      String(decoding: readFile(out + "/unitn/" + name) ?? [], as: UTF8.self)
        .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    }
    // Four rest windows (4 s), then the bout: 20 windows, 1000 samples at 50 Hz.
    #expect(table("shake-001.events.csv") == [[4, 23.98]], "\(table("shake-001.events.csv"))")
    #expect(table("shake-002.events.csv") == [[4, 4.98]], "\(table("shake-002.events.csv"))")
    #expect(table("circle-001.events.csv").isEmpty)
    let rows = table("shake-001.csv")
    #expect(rows.count == 4 * 50 + 1000 + 4 * 50)
    #expect(abs(rows[1][0] - 0.02) < 1e-9)
    #expect(abs(rows[0][3] + 0.98) < 1e-9 && abs(rows[0][1] + 0.01) < 1e-9, "Apple's convention: \(rows[0])")
    let r = try accelkit(["evaluate", out, "--rule", "swing", "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
  }

  /// nodeconfeu's clips in their exact format (`NAME(n), x,y,z,...`, 64 counts a g, 12.5 Hz),
  /// spliced into an everyday dataset's wrist recordings: which lines and which context traces
  /// are used, the resampling, the turn that carries the wearer's attitude into the clip (worked
  /// by hand), the shift that carries the clip's end into what follows, and the events.
  @Test func nodeconfeuClipsAreSplicedIntoEverydayWristRecordings() throws {
    let root = Paths.temporaryDirectory()
    let out = root + "/out"
    // Clips of 4 samples: three at rest along -z, then one along +x. Context: a wrist trace at
    // 50 Hz pointing (0.6, 0, -0.8) for 12 s; before it in name order a wrist trace with gravity
    // removed, a short one, one with a gap of 1.2 s, one at 10 Hz (slower than the clips), a fall's
    // and a hip trace, none of which may be used.
    let maker = """
      import os, sys
      root = sys.argv[1]
      def clips(folder, name, lines):
          os.makedirs(os.path.join(root, 'data', folder), exist_ok=True)
          with open(os.path.join(root, 'data', folder, name), 'w') as f:
              f.write('\\n'.join(lines) + '\\n')
      clip = '0,0,-64,0,0,-64,0,0,-64,64,0,0'
      clips('ann-v2', 'wraggle.txt', [f'waggle(4), {clip}', f'waggle(4), {clip}', '>', '', 'waggle(5), 1,2,3',
          'waggle(4), 0,0,-64,0,0,-64,0,0,-64,0,64,0'])
      clips('ann-v2', 'clap2.txt', [f'clap2(4), {clip}'])
      clips('bob-v1', 'snap.txt', [f'Snap(4), {clip}', f'wave(4), {clip}'])
      everyday = os.path.join(root, '..', 'everyday')
      os.makedirs(everyday, exist_ok=True)
      def trace(name, seconds, sample, gap=None, rate=50):
          with open(os.path.join(everyday, name), 'w') as f:
              f.write('t,x,y,z\\n')
              for i in range(int(seconds * rate)):
                  if gap is None or not gap[0] <= i / rate < gap[1]:
                      f.write('%.6f,%.6f,%.6f,%.6f\\n' % ((i / rate,) + sample))
      trace('a-linear.csv', 12, (0.1, 0.0, 0.0))
      trace('b-short.csv', 5, (0.0, 0.0, -1.0))
      trace('b-gap.csv', 12, (0.0, 0.0, -1.0), gap=(3, 4.2))
      trace('b-slow.csv', 12, (0.0, 0.0, -1.0), rate=10)
      trace('c-fall.csv', 12, (0.0, 0.0, -1.0))
      trace('d-hip.csv', 12, (0.0, 0.0, -1.0))
      trace('e-wrist.csv', 12, (0.6, 0.0, -0.8))
      with open(os.path.join(everyday, 'none.events.csv'), 'w') as f:
          f.write('start,end,label\\n')
      with open(os.path.join(everyday, 'manifest.csv'), 'w') as f:
          f.write('trace,events,source,position,activity\\n')
          for name, source, position in (('a-linear', 'a', 'wrist'), ('b-short', 'a', 'wrist'),
                  ('b-gap', 'a', 'wrist'), ('b-slow', 'a', 'wrist'),
                  ('c-fall', 'a-falls', 'wrist'), ('d-hip', 'a', 'hip'), ('e-wrist', 'a', 'wrist')):
              f.write(f'{name}.csv,none.events.csv,{source},{position},walking\\n')
      """
    let missing = try Self.importing("nodeconfeu", maker: maker, root: root, out: out)
    #expect(missing.status != 0 && missing.stderr.contains("--context"), "\(missing.stderr)")
    let run = try Self.importing(
      "nodeconfeu", maker: maker, root: root, out: out, options: "--context '\(root)/everyday/manifest.csv'")
    #expect(run.status == 0, "\(run.stderr)")
    let words = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("nodeconfeu waggle 2 traces 2 shakes"), "one of three waggles is a repeat: \(run.stdout)")
    #expect(words.contains("nodeconfeu clap 1 traces 0 shakes"), "\(run.stdout)")
    #expect(words.contains("nodeconfeu snap 1 traces 0 shakes"), "\(run.stdout)")
    let manifest = String(decoding: readFile(out + "/manifest.csv") ?? [], as: UTF8.self)
    #expect(
      manifest.contains("nodeconfeu/ann-waggle-001.csv,nodeconfeu/ann-waggle-001.events.csv,nodeconfeu,wrist,waggle"))
    #expect(manifest.contains("nodeconfeu/bob-snap-001.csv,nodeconfeu/bob-snap-001.events.csv,nodeconfeu,wrist,snap"))
    func table(_ name: String) -> [[Double]] {
      String(decoding: readFile(out + "/nodeconfeu/" + name) ?? [], as: UTF8.self)
        .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    }
    // 4 s of context (50 samples at 12.5 Hz), the clip's 4 samples (one event), 4 s of context.
    #expect(table("ann-waggle-001.events.csv") == [[4, 4.24]], "\(table("ann-waggle-001.events.csv"))")
    #expect(table("bob-snap-001.events.csv").isEmpty)
    let rows = table("ann-waggle-001.csv")
    #expect(rows.count == 104 && abs(rows[1][0] - 0.08) < 1e-9, "\(rows.count)")
    func near(_ row: [Double], _ xyz: [Double]) -> Bool { zip(row.dropFirst(), xyz).allSatisfy { abs($0 - $1) < 1e-5 } }
    // The context used is the one whole wrist trace with gravity in it; the clip's rest is turned onto
    // its direction, a turn about y by asin(0.6) that takes +x to (0.8, 0, 0.6).
    #expect(near(rows[0], [0.6, 0, -0.8]) && near(rows[49], [0.6, 0, -0.8]), "\(rows[0])")
    for name in ["ann-clap-001", "ann-waggle-002", "bob-snap-001"] {
      let first = table(name + ".csv").first ?? []
      #expect(near(first, [0.6, 0, -0.8]), "\(name): \(first)")
    }
    #expect(near(rows[50], [0.6, 0, -0.8]) && near(rows[52], [0.6, 0, -0.8]), "\(rows[50])")
    #expect(near(rows[53], [0.8, 0, 0.6]), "\(rows[53])")
    // What follows starts at the mean of the clip's last quarter second (3 samples).
    #expect(near(rows[54], [2.0 / 3, 0, -1.0 / 3]), "\(rows[54])")
    #expect(near(rows[103], [0.6, 0, -0.8]), "\(rows[103])")
    let r = try accelkit(["evaluate", out, "--rule", "swing", "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
  }

  /// scripts/augment_positives.py: five copies of each chosen row, turned (worked by hand), on
  /// their own rates (a box mean falling, linear interpolation rising, a gap kept), clipped
  /// where the table says, with the original's events, source, position and activity.
  @Test func augmentedCopiesAreTurnedResampledAndKeepTheirSource() throws {
    let python = try #require(Tools.path("python3"), Comment(rawValue: Tools.missing("python3", package: "python3")))
    let root = Paths.temporaryDirectory()
    // square: 100 Hz, x alternating +-1 each reading (50 Hz) on -1 g along z, 3 g on x for
    // 1.0-1.3 s; ramp: 10 Hz, x = t, with no reading between 1 s and 3 s; rest: not chosen.
    let maker = """
      import os, sys
      d = sys.argv[1]
      os.makedirs(d, exist_ok=True)
      def write(name, rows):
          with open(os.path.join(d, name + '.csv'), 'w') as f:
              f.write('t,x,y,z\\n' + ''.join('%.6f,%.6f,0,-1\\n' % r for r in rows))
          with open(os.path.join(d, name + '.events.csv'), 'w') as f:
              f.write('start,end,label\\n0.5,1.5,shake\\n')
      write('square', [(i / 100, 3.0 if 100 <= i < 130 else (1.0 if i % 2 else -1.0)) for i in range(200)])
      write('ramp', [(i / 10, i / 10) for i in list(range(11)) + list(range(30, 41))])
      write('rest', [(i / 10, 0.0) for i in range(20)])
      with open(os.path.join(d, 'manifest.csv'), 'w') as f:
          f.write('trace,events,source,position,activity\\nsquare.csv,square.events.csv,s,hand,shake\\n'
              'ramp.csv,ramp.events.csv,s,wrist,sustained\\nrest.csv,rest.events.csv,s,hand,rest\\n')
      """
    try #require(try accelkit([], shell: "'\(python)' - '\(root)/in' <<'EOF'\n\(maker)\nEOF").status == 0)
    let run = try accelkit(
      [],
      shell: "'\(python)' '\(Paths.packageRoot)/scripts/augment_positives.py' '\(root)/in/manifest.csv' '\(root)/out' "
        + "--activity shake --activity sustained")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("2 traces, 10 copies"), "\(run.stdout)")
    let manifest = String(decoding: readFile(root + "/out/manifest.csv") ?? [], as: UTF8.self)
    #expect(manifest.split(separator: "\n").count == 11 && !manifest.contains("rest"), "\(manifest)")
    #expect(manifest.contains("square-t1.csv,square-t1.events.csv,s,hand,shake\n"), "\(manifest)")
    #expect(manifest.contains("ramp-t5.csv,ramp-t5.events.csv,s,wrist,sustained\n"), "\(manifest)")
    #expect(readFile(root + "/out/ramp-t3.events.csv") == readFile(root + "/in/ramp.events.csv"))
    func table(_ name: String) -> [[Double]] {
      String(decoding: readFile(root + "/out/" + name) ?? [], as: UTF8.self)
        .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    }
    // t1: 25 Hz, 90 degrees about x, which takes (x, y, z) to (x, -z, y). Every 25 Hz sample
    // averages the 50 Hz alternation away (a reading picked would be +-1); the 3 g stays.
    let t1 = table("square-t1.csv")
    #expect(t1.count == 50 && abs(t1[1][0] - 0.04) < 1e-9, "\(t1.count)")
    let quiet = t1.filter { $0[0] < 0.97 || $0[0] > 1.33 }
    #expect(quiet.allSatisfy { abs($0[1]) <= 0.34 && abs($0[2] - 1) < 1e-9 && abs($0[3]) < 1e-9 }, "\(quiet)")
    #expect(abs(t1[28][1] - 3) < 1e-9 && abs(t1[28][2] - 1) < 1e-9, "\(t1[28])")
    // t2: 50 Hz, 90 degrees about y, (x, y, z) to (z, y, -x), clipped at 2 g: the 3 g reads -2.
    let t2 = table("square-t2.csv")
    #expect(t2.count == 100 && abs(t2[56][1] + 1) < 1e-9 && abs(t2[56][3] + 2) < 1e-9, "\(t2[56])")
    // The ramp at 50 Hz: exact where interpolated (x = t, so z = -t, clipped at -2 g), and nothing
    // in the gap.
    let ramp = table("ramp-t2.csv")
    #expect(ramp.allSatisfy { abs($0[3] - max(-2, -$0[0])) < 1e-6 && abs($0[1] + 1) < 1e-9 }, "\(ramp)")
    let steps = zip(ramp.dropFirst(), ramp).map { $0[0] - $1[0] }
    #expect(steps.filter { $0 > 1.9 }.count == 1 && steps.filter { $0 <= 1.9 }.allSatisfy { abs($0 - 0.02) < 1e-6 })
    #expect(ramp.count == 51 + 51, "\(ramp.count)")
    // --rate: one copy a trace at that rate, as read (not turned, not clipped): the 50 Hz
    // alternation averaged away, the 3 g kept, gravity still along z.
    func augmenting(_ out: String, _ options: String) throws -> CLIResult {
      try accelkit(
        [],
        shell: "'\(python)' '\(Paths.packageRoot)/scripts/augment_positives.py' '\(root)/in/manifest.csv' "
          + "'\(root)/\(out)' \(options)")
    }
    let rated = try augmenting("rated", "--activity shake --rate 25")
    #expect(rated.status == 0 && rated.stdout.contains("1 traces, 1 copies"), "\(rated.stdout)\(rated.stderr)")
    let ratedManifest = String(decoding: readFile(root + "/rated/manifest.csv") ?? [], as: UTF8.self)
    #expect(ratedManifest.hasSuffix("\nsquare-r25.csv,square-r25.events.csv,s,hand,shake\n"), "\(ratedManifest)")
    let r25 = String(decoding: readFile(root + "/rated/square-r25.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect(r25.count == 50 && abs(r25[1][0] - 0.04) < 1e-9, "\(r25.count)")
    #expect(abs(r25[28][1] - 3) < 1e-9 && r25[28][2] == 0 && abs(r25[28][3] + 1) < 1e-9, "\(r25[28])")
    #expect(r25.filter { $0[0] < 0.97 || $0[0] > 1.33 }.allSatisfy { abs($0[1]) <= 0.34 && abs($0[3] + 1) < 1e-9 })
    for bad in ["0", "fast"] {
      let refused = try augmenting("none", "--rate \(bad)")
      #expect(refused.status != 0 && refused.stderr.contains("--rate: expected"), "\(refused.stderr)")
    }
  }
}
