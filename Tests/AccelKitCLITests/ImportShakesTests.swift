import Foundation
import TestSupport
import Testing

/// scripts/import_shakes.py on a small export written in MotionSense-ESP's exact format (Edge
/// Impulse JSON windows in DataSet/training.zip and testing.zip): units, axis convention, the
/// placement of shakes between rests with their events, hard negatives without events, and joins
/// that add no step; then `evaluate` reads the result.
@Suite struct ImportShakesTests {
  @Test func motionSenseESPWindowsBecomeTracesWithEvents() throws {
    let python = try #require(Tools.path("python3"), Comment(rawValue: Tools.missing("python3", package: "python3")))
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
          return {'protected': {'ver': 'v1'}, 'signature': '0', 'payload': {'device_name': 'phone', 'device_type':
              'MOBILE_CLIENT', 'interval_ms': 16, 'sensors': [{'name': 'accX', 'units': 'm/s2'}, {'name': 'accY',
              'units': 'm/s2'}, {'name': 'accZ', 'units': 'm/s2'}], 'values': values}}
      for part, counts in (('training', {'shake': 3, 'idle': 6, 'fall': 2}), ('testing', {'shake': 1, 'idle': 2})):
          with zipfile.ZipFile(os.path.join(root, 'DataSet', part + '.zip'), 'w') as z:
              for label, n in counts.items():
                  for k in range(n):
                      z.writestr(f'{part}/{label}.{k:08d}.ingestion-1.json', json.dumps(window(label, k)))
              z.writestr(f'{part}/shake.broken.ingestion-1.json', json.dumps({'protected': {}}))
      """
    try #require(try accelkit([], shell: "'\(python)' - '\(root)/checkout' <<'EOF'\n\(maker)\nEOF").status == 0)
    let run = try accelkit(
      [], shell: "'\(python)' '\(Paths.packageRoot)/scripts/import_shakes.py' motionsense-esp '\(root)/checkout' '\(out)'")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("shake           1 traces     4 shakes"), "\(run.stdout)")
    let manifest = String(decoding: readFile(out + "/manifest.csv") ?? [], as: UTF8.self)
    #expect(manifest.contains("motionsense-esp/shake-001.csv,motionsense-esp/shake-001.events.csv,motionsense-esp,hand,shake"))
    #expect(manifest.contains("motionsense-esp/fall-001.csv,motionsense-esp/fall-001.events.csv,motionsense-esp,hand,fall"))
    // Four rest windows, then each shake and four rests: the events are the shake windows.
    let events = String(decoding: readFile(out + "/motionsense-esp/shake-001.events.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
    #expect(events.count == 4)
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
    let r = try accelkit(["evaluate", out, "--rule", "seismic", "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
  }
}
