#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore

/// An accelerometer as the generator models it: rate, range, resolution, noise, per-axis bias and
/// scale error, timestamp jitter and dropped samples.
public struct SensorModel: Sendable {
  public var name: String
  public var rate: Double
  /// Readings clip at +-range g.
  public var range: Double
  /// Readings are multiples of this, in g.
  public var resolution: Double
  /// Standard deviation of white noise, in g.
  public var noise: Double
  public var bias: (Double, Double, Double)
  public var scale: (Double, Double, Double)
  /// Standard deviation of timestamp jitter, as a fraction of the interval.
  public var jitter: Double
  public var dropProbability: Double

  /// The iPhone's LIS302DL of the seed material: 100 Hz nominal, +-2.3 g, 0.018 g steps.
  public static func lis302dl(_ rng: inout SeededGenerator) -> SensorModel {
    SensorModel(
      name: "LIS302DL", rate: 100, range: 2.3, resolution: 0.018, noise: rng.uniform(0.008, 0.015),
      bias: (rng.uniform(-0.04, 0.04), rng.uniform(-0.04, 0.04), rng.uniform(-0.04, 0.04)),
      scale: (1 + rng.uniform(-0.03, 0.03), 1 + rng.uniform(-0.03, 0.03), 1 + rng.uniform(-0.03, 0.03)),
      jitter: rng.uniform(0.01, 0.05), dropProbability: rng.uniform(0, 0.005))
  }

  /// A modern phone accelerometer: +-8 g, 1/4096 g steps, at 50, 60 or 100 Hz.
  public static func modern(_ rng: inout SeededGenerator) -> SensorModel {
    SensorModel(
      name: "modern", rate: rng.pick([50.0, 60.0, 100.0]), range: 8, resolution: 1.0 / 4096, noise: rng.uniform(0.002, 0.005),
      bias: (rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01)),
      scale: (1 + rng.uniform(-0.01, 0.01), 1 + rng.uniform(-0.01, 0.01), 1 + rng.uniform(-0.01, 0.01)),
      jitter: rng.uniform(0.002, 0.02), dropProbability: rng.uniform(0, 0.002))
  }
}

/// What to put in a generated trace.
public enum Scenario: String, CaseIterable, Sendable {
  /// Everyday handling with shakes, taps, drops, turns, walking, running and vehicles.
  case mixed
  /// The same with a shake after most stretches.
  case shakes
  /// Everything but shakes: every detection is a false alarm.
  case negatives
}

/// A generated trace with its annotations and truth.
public struct GeneratedTrace: Sendable {
  public var samples: SampleBlock
  public var segments: [MotionSegment]
  /// Per sample: the true gravity direction in the device frame (Apple's convention).
  public var gravity: [(Double, Double, Double)]
  public var sensor: SensorModel
}

public enum Generator {
  /// Builds trace number `index` of a set: the same (seed, index, scenario) always gives the same
  /// trace.
  public static func trace(seed: UInt64, index: Int, scenario: Scenario, duration: Double = 30) -> GeneratedTrace {
    var rng = SeededGenerator(seed: seed &* 0x100000001B3 &+ UInt64(index) &* 0x9E3779B97F4A7C15)
    let sensor = rng.chance(0.4) ? SensorModel.lis302dl(&rng) : SensorModel.modern(&rng)
    let segments = timeline(&rng, scenario: scenario, duration: duration)
    var block = SampleBlock()
    var gravity: [(Double, Double, Double)] = []
    let dt = 1 / sensor.rate
    let count = Int(duration * sensor.rate)
    var segmentIndex = 0
    for k in 0..<count {
      let nominal = Double(k) * dt
      let t = max(0, nominal + sensor.jitter * dt * max(-3, min(3, rng.normal())))
      let noise = (rng.normal(), rng.normal(), rng.normal())
      if k > 0 && rng.chance(sensor.dropProbability) { continue }
      while segmentIndex + 1 < segments.count && t >= segments[segmentIndex].end { segmentIndex += 1 }
      let state = segments[segmentIndex].state(at: t)
      let r = state.reading
      func sense(_ v: Double, _ scale: Double, _ bias: Double, _ n: Double) -> Double {
        let raw = v * scale + bias + sensor.noise * n
        let clipped = max(-sensor.range, min(sensor.range, raw))
        return (clipped / sensor.resolution).rounded() * sensor.resolution
      }
      block.append(
        t: t, x: sense(r.0, sensor.scale.0, sensor.bias.0, noise.0), y: sense(r.1, sensor.scale.1, sensor.bias.1, noise.1),
        z: sense(r.2, sensor.scale.2, sensor.bias.2, noise.2))
      gravity.append(state.attitude.gravity)
    }
    // Jitter may reorder neighbours by a hair; timestamps stay increasing.
    for i in 1..<block.count where block.t[i] <= block.t[i - 1] { block.t[i] = block.t[i - 1] + dt * 0.05 }
    return GeneratedTrace(samples: block, segments: segments, gravity: gravity, sensor: sensor)
  }

  static let uprights: [Attitude3] = [
    Attitude3(pitch: 1.2, roll: 0.05), Attitude3(pitch: 0.9, roll: -0.1), Attitude3(pitch: 0.15, roll: 1.4),
    Attitude3(pitch: 0.1, roll: -1.45), Attitude3(pitch: 0.7, roll: 0.3),
  ]

  static func timeline(_ rng: inout SeededGenerator, scenario: Scenario, duration: Double) -> [MotionSegment] {
    var segments: [MotionSegment] = []
    var t = 0.0
    var attitude = rng.chance(0.5) ? Attitude3.faceUp : rng.pick(uprights)
    func add(_ kind: MotionSegment.Kind, _ length: Double, to next: Attitude3, _ p: [String: Double] = [:]) {
      let length = min(length, duration - t)
      guard length > 0 else { return }
      segments.append(MotionSegment(kind: kind, start: t, duration: length, from: attitude, to: next, parameters: p))
      t += length
      attitude = next
    }
    let shakeChance = scenario == .negatives ? 0 : scenario == .shakes ? 0.8 : 0.45
    while t < duration - 1e-9 {
      // A background stretch.
      let background = rng.pick(["rest", "hold", "hold", "walk", "run", "vehicle"])
      switch background {
      case "rest":
        add(.rest, rng.uniform(2, 5), to: rng.chance(0.7) ? .faceUp : .faceDown)
      case "hold":
        add(.hold, rng.uniform(2, 6), to: rng.pick(uprights), ["tremor_hz": rng.uniform(8, 12), "tremor_g": rng.uniform(0.005, 0.02)])
      case "walk":
        add(.walk, rng.uniform(4, 8), to: rng.pick(uprights), ["step_hz": rng.uniform(1.6, 2.2), "bounce_g": rng.uniform(0.15, 0.4)])
      case "run":
        add(.run, rng.uniform(3, 6), to: rng.pick(uprights), ["step_hz": rng.uniform(2.5, 3.2), "bounce_g": rng.uniform(0.6, 1.3)])
      default:
        add(.vehicle, rng.uniform(4, 8), to: attitude, ["vibration_g": rng.uniform(0.03, 0.15)])
      }
      // Then perhaps an event.
      let u = rng.uniform(0, 1)
      if u < shakeChance {
        let hz = rng.uniform(2.5, 7)
        let halfCycles = Double(rng.integer(2, 10))
        let holdAt = rng.pick(uprights)
        add(.hold, rng.uniform(0.8, 1.5), to: holdAt, ["tremor_hz": 10, "tremor_g": 0.01])
        add(.shake, halfCycles / (2 * hz), to: holdAt, [
          "hz": hz, "peak_g": rng.uniform(0.6, 3), "axis": Double(rng.pick([0, 0, 1, 2])), "wrist_rad": rng.uniform(0, 0.5),
        ])
        add(.hold, rng.uniform(0.8, 1.5), to: holdAt, ["tremor_hz": 10, "tremor_g": 0.01])
      } else if u < shakeChance + 0.15 {
        add(.rest, rng.uniform(0.5, 1), to: .faceUp)
        add(.tap, rng.uniform(0.01, 0.03), to: .faceUp, ["peak_g": rng.uniform(1, 3)])
        add(.rest, rng.uniform(0.5, 1), to: .faceUp)
      } else if u < shakeChance + 0.2 {
        let land = rng.chance(0.5) ? Attitude3.faceUp : Attitude3.faceDown
        add(.drop, rng.uniform(0.2, 0.4) + 0.3, to: land, ["fall_s": rng.uniform(0.2, 0.4), "impact_g": rng.uniform(3, 6)])
        add(.rest, rng.uniform(1, 2), to: land)
      } else if u < shakeChance + 0.3 {
        let over = attitude.roll.magnitude < 1 ? Attitude3.faceDown : Attitude3.faceUp
        add(.turn, rng.uniform(0.8, 1.5), to: over)
      }
    }
    return segments
  }

  /// Writes `count` traces of a set into `directory`: NNN.csv (t,x,y,z), NNN.events.csv
  /// (start,end,label), NNN.truth.csv (t,gravity_x,gravity_y,gravity_z,roll,pitch), manifest.csv and README.md.
  public static func writeDataset(
    directory: String, count: Int, seed: UInt64, scenario: Scenario, split: String, command: String,
    write: (String, String) throws -> Void
  ) throws {
    var manifest = "trace,events,truth,rate,sensor,split\n"
    var shakes = 0
    var totalDuration = 0.0
    for i in 0..<count {
      let g = trace(seed: seed, index: i, scenario: scenario)
      let name = cFormat("%03ld", i)
      var csv = "t,x,y,z\n"
      var truth = "t,gravity_x,gravity_y,gravity_z,roll,pitch\n"
      for k in 0..<g.samples.count {
        csv += cFormat("%.5f,%.4f,%.4f,%.4f\n", g.samples.t[k], g.samples.x[k], g.samples.y[k], g.samples.z[k])
        let (gx, gy, gz) = g.gravity[k]
        let pitch = atan2(-gy, (gx * gx + gz * gz).squareRoot()) * 180 / .pi
        let roll = atan2(gx, -gz) * 180 / .pi
        truth += cFormat("%.5f,%.4f,%.4f,%.4f,%.2f,%.2f\n", g.samples.t[k], gx, gy, gz, roll, pitch)
      }
      var events = "start,end,label\n"
      for s in g.segments {
        guard let label = s.label else { continue }
        if label == "shake" { shakes += 1 }
        events += cFormat("%.4f,%.4f,", s.start, s.end) + label + "\n"
      }
      totalDuration += (g.samples.t.last ?? 0) - (g.samples.t.first ?? 0)
      try write("\(name).csv", csv)
      try write("\(name).events.csv", events)
      try write("\(name).truth.csv", truth)
      manifest += "\(name).csv,\(name).events.csv,\(name).truth.csv,\(formatRate(g.sensor.rate)),\(g.sensor.name),\(split)\n"
    }
    try write("manifest.csv", manifest)
    try write("README.md", readme(count: count, seed: seed, scenario: scenario, split: split, command: command, shakes: shakes, duration: totalDuration))
  }

  static func formatRate(_ r: Double) -> String { r == r.rounded() ? String(Int(r)) : String(r) }

  static func readme(count: Int, seed: UInt64, scenario: Scenario, split: String, command: String, shakes: Int, duration: Double) -> String {
    """
    # Generated annotated accelerometer traces (\(split))

    \(count) traces, \(cFormat("%.1f", duration / 60)) minutes in all, \(shakes) annotated shakes; scenario
    `\(scenario.rawValue)`, seed \(seed). Written by accelkit's generator; the same command gives the same bytes:

    ```
    \(command)
    ```

    Files per trace: `NNN.csv` (t,x,y,z: seconds, g, Apple's convention), `NNN.events.csv`
    (start,end,label) and `NNN.truth.csv` (the true gravity direction in the device frame and its
    roll and pitch in degrees, per sample). `manifest.csv` lists them for `accelkit evaluate`.

    ## Motion model
    A trace is a timeline of stretches: at rest on a table (face up or down), held in portrait or
    landscape with hand tremor (8-12 Hz, 0.005-0.02 g), walking (1.6-2.2 steps/s, 0.15-0.4 g) and
    running (2.5-3.2 steps/s, 0.6-1.3 g) with body sway, riding in a vehicle (13-31 Hz vibration,
    0.03-0.15 g, slow sway); between them the device settles into the next attitude. Events:
    shakes (2.5-7 Hz, 0.6-3 g peak, 2-10 half-cycles, side-to-side on x, up-down on y or
    front-back on z, with the wrist turning up to 0.5 rad, tapered in and out), taps (1-3 g,
    10-30 ms), drops (0.2-0.4 s of free fall, then a 3-6 g impact ringing at 45 Hz) and turning
    over (0.8-1.5 s).

    ## Sensor model
    40% of traces: the iPhone LIS302DL of the seed material (100 Hz nominal, +-2.3 g clipping,
    0.018 g steps, 0.008-0.015 g noise); the rest a modern sensor (+-8 g, 1/4096 g steps, 0.002-
    0.005 g noise) at 50, 60 or 100 Hz. Per trace: per-axis bias and scale error, timestamp jitter
    and dropped samples.

    ## Labelling rule
    Every intentional shake is annotated `shake` from its true start to its true end (the whole
    tapered stretch). Taps and drops are annotated `tap` and `drop`; nothing else is annotated.
    """
  }
}
