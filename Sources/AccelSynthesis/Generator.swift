import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
  /// The gyroscope beside it, if there is one.
  public var gyroscope: GyroscopeModel?

  /// The iPhone's LIS302DL of the seed material: 100 Hz nominal, +-2.3 g, 0.018 g steps.
  public static func lis302dl(_ rng: inout SeededGenerator) -> SensorModel {
    SensorModel(
      name: "LIS302DL", rate: 100, range: 2.3, resolution: 0.018, noise: rng.uniform(0.008, 0.015),
      bias: (rng.uniform(-0.04, 0.04), rng.uniform(-0.04, 0.04), rng.uniform(-0.04, 0.04)),
      scale: (1 + rng.uniform(-0.03, 0.03), 1 + rng.uniform(-0.03, 0.03), 1 + rng.uniform(-0.03, 0.03)),
      jitter: rng.uniform(0.01, 0.05), dropProbability: rng.uniform(0, 0.005), gyroscope: nil)
  }

  /// A modern phone, watch or IMU board accelerometer: 16-bit readings over +-2, 4, 8 or 16 g, at
  /// 25 to 400 Hz.
  public static func modern(_ rng: inout SeededGenerator) -> SensorModel {
    let range = rng.pick([2.0, 4, 8, 8, 16])
    return SensorModel(
      name: "modern", rate: rng.pick([25.0, 30, 50, 60, 100, 100, 200, 400]), range: range,
      resolution: range / 32768,
      noise: rng.uniform(0.002, 0.006),
      bias: (rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02)),
      scale: (1 + rng.uniform(-0.01, 0.01), 1 + rng.uniform(-0.01, 0.01), 1 + rng.uniform(-0.01, 0.01)),
      jitter: rng.uniform(0.002, 0.05), dropProbability: rng.uniform(0, 0.003), gyroscope: nil)
  }
}

/// A MEMS gyroscope: +-2000 degrees/s (34.9 rad/s) in 16 bits, white noise and a per-axis bias,
/// in rad/s.
public struct GyroscopeModel: Sendable {
  public var range = 2000 * Double.pi / 180
  public var noise: Double
  public var bias: (Double, Double, Double)

  public static func typical(_ rng: inout SeededGenerator) -> GyroscopeModel {
    GyroscopeModel(
      noise: rng.uniform(0.003, 0.01),
      bias: (rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01)))
  }

  /// The reading of the true rate `w` (rad/s) with noise `n` (standard normal).
  func sense(_ w: Double, _ bias: Double, _ n: Double) -> Double {
    let resolution = range / 32768
    let clipped = max(-range, min(range, w + bias + noise * n))
    return (clipped / resolution).rounded() * resolution
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
  /// Sustained shaking as people do it when asked to shake a device: 8-60 s of vigorous shaking
  /// at 1.2-5 Hz (1.5-6 g, less below 2 Hz, clipped by the sensor's range) in bursts of 2-8 s
  /// with pauses under a second, the hand tracing an ellipse and the wrist turning, one event from
  /// the first burst's start to the last one's end, in traces of 90 s.
  case sustained
  /// Hard negatives, no shakes: an arm chopping with the device in the hand (the forearm swung
  /// down about the elbow and stopped, again and again) and the device rocked like a steering
  /// wheel in both hands (turned back and forth about its screen's normal), between everyday
  /// stretches.
  case hardNegatives = "hard-negatives"

  /// How long each trace lasts, in seconds.
  public var traceSeconds: Double { self == .sustained ? 90 : 30 }
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
  /// `shakeModels`: the motion models shakes are drawn from (all four by default).
  public static func trace(
    seed: UInt64, index: Int, scenario: Scenario, duration: Double = 30,
    shakeModels: [MotionSegment.ShakeStyle] = MotionSegment.ShakeStyle.allCases
  ) -> GeneratedTrace {
    // Each trace's generator starts from a hash of (seed, index): trace i is not trace 0 shifted
    // by i draws (SplitMix64's own increment must not be the index's multiplier).
    var mixer = SeededGenerator(seed: seed &* 0x100_0000_01B3 ^ (UInt64(index) &+ 1) &* 0xD1B5_4A32_D192_ED03)
    var rng = SeededGenerator(seed: mixer.next())
    var sensor = rng.chance(0.25) ? SensorModel.lis302dl(&rng) : SensorModel.modern(&rng)
    // The gyroscope draws from its own stream, so that the accelerometer's data do not depend on
    // whether there is one: 80% of modern sensors have one, the iPhone's LIS302DL had none.
    var gyroRng = SeededGenerator(seed: mixer.next())
    if sensor.name != "LIS302DL" && gyroRng.chance(0.8) { sensor.gyroscope = .typical(&gyroRng) }
    let segments = timeline(&rng, scenario: scenario, duration: duration, shakeModels: shakeModels)
    // Some recordings lose a stretch of samples (a busy phone, a radio link).
    var gaps: [(Double, Double)] = []
    if rng.chance(0.3) {
      for _ in 0..<rng.integer(1, 2) {
        let start = rng.uniform(1, duration - 2)
        gaps.append((start, start + rng.uniform(0.1, 0.6)))
      }
    }
    var block = SampleBlock()
    var rates = (x: [Double](), y: [Double](), z: [Double]())
    var gravity: [(Double, Double, Double)] = []
    let dt = 1 / sensor.rate
    let count = Int(duration * sensor.rate)
    var segmentIndex = 0
    for k in 0..<count {
      let nominal = Double(k) * dt
      let t = max(0, nominal + sensor.jitter * dt * max(-3, min(3, rng.normal())))
      let noise = (rng.normal(), rng.normal(), rng.normal())
      if k > 0 && rng.chance(sensor.dropProbability) { continue }
      if k > 0 && gaps.contains(where: { t >= $0.0 && t < $0.1 }) { continue }
      while segmentIndex + 1 < segments.count && t >= segments[segmentIndex].end { segmentIndex += 1 }
      let state = segments[segmentIndex].state(at: t)
      let r = state.reading
      func sense(_ v: Double, _ scale: Double, _ bias: Double, _ n: Double) -> Double {
        let raw = v * scale + bias + sensor.noise * n
        let clipped = max(-sensor.range, min(sensor.range, raw))
        return (clipped / sensor.resolution).rounded() * sensor.resolution
      }
      block.append(
        t: t, x: sense(r.0, sensor.scale.0, sensor.bias.0, noise.0),
        y: sense(r.1, sensor.scale.1, sensor.bias.1, noise.1),
        z: sense(r.2, sensor.scale.2, sensor.bias.2, noise.2))
      gravity.append(state.attitude.gravity)
      if let gyro = sensor.gyroscope {
        // The body rate from the attitude a moment later (or earlier, at a segment's end).
        let h = 1e-4
        let segment = segments[segmentIndex]
        let w =
          t + h <= segment.end
          ? state.attitude.angularVelocity(to: segment.state(at: t + h).attitude, dt: h)
          : segment.state(at: t - h).attitude.angularVelocity(to: state.attitude, dt: h)
        rates.x.append(gyro.sense(w.0, gyro.bias.0, gyroRng.normal()))
        rates.y.append(gyro.sense(w.1, gyro.bias.1, gyroRng.normal()))
        rates.z.append(gyro.sense(w.2, gyro.bias.2, gyroRng.normal()))
      }
    }
    if sensor.gyroscope != nil {
      block.gyroscope = AxisColumns(x: rates.x, y: rates.y, z: rates.z)
    }
    // Jitter may reorder neighbours by a hair; timestamps stay increasing.
    for i in 1..<block.count where block.t[i] <= block.t[i - 1] { block.t[i] = block.t[i - 1] + dt * 0.05 }
    return GeneratedTrace(samples: block, segments: segments, gravity: gravity, sensor: sensor)
  }

  static let uprights: [Attitude3] = [
    Attitude3(pitch: 1.2, roll: 0.05), Attitude3(pitch: 0.9, roll: -0.1), Attitude3(pitch: 0.15, roll: 1.4),
    Attitude3(pitch: 0.1, roll: -1.45), Attitude3(pitch: 0.7, roll: 0.3),
  ]

  /// A hand holding the phone in front of its user at some attitude: mostly upright, sometimes
  /// nearly flat, sometimes anyhow.
  static func holding(_ rng: inout SeededGenerator) -> Attitude3 {
    let u = rng.uniform(0, 1)
    if u < 0.6 { return rng.pick(uprights) }
    if u < 0.85 { return Attitude3(pitch: rng.uniform(0.1, 0.5), roll: rng.uniform(-0.3, 0.3)) }
    return Attitude3(pitch: rng.uniform(-1.4, 1.4), roll: rng.uniform(-.pi, .pi))
  }

  /// A direction in the device frame for a shake: along x (side to side) 40%, y (up and down the
  /// screen) 25%, z (in and out of the screen) 15%, any diagonal 20%.
  static func shakeDirection(_ rng: inout SeededGenerator) -> (Double, Double, Double) {
    let u = rng.uniform(0, 1)
    let sign: Double = rng.chance(0.5) ? 1 : -1
    if u < 0.4 { return (sign, 0, 0) }
    if u < 0.65 { return (0, sign, 0) }
    if u < 0.8 { return (0, 0, sign) }
    var v = (rng.normal(), rng.normal(), rng.normal())
    var n = (v.0 * v.0 + v.1 * v.1 + v.2 * v.2).squareRoot()
    if n < 1e-6 { (v, n) = ((1, 1, 0), 2.0.squareRoot()) }
    return (v.0 / n, v.1 / n, v.2 / n)
  }

  static func timeline(
    _ rng: inout SeededGenerator, scenario: Scenario, duration: Double,
    shakeModels: [MotionSegment.ShakeStyle] = MotionSegment.ShakeStyle.allCases
  ) -> [MotionSegment] {
    var segments: [MotionSegment] = []
    var t = 0.0
    var attitude = rng.chance(0.5) ? Attitude3.faceUp : rng.pick(uprights)
    func add(_ kind: MotionSegment.Kind, _ length: Double, to next: Attitude3, _ p: [String: Double] = [:]) {
      let length = min(length, duration - t)
      guard length > 0 else { return }
      segments.append(
        MotionSegment(kind: kind, start: t, duration: length, from: attitude, to: next, parameters: p))
      t += length
      attitude = next
    }
    func gait(_ kind: MotionSegment.Kind) {
      // Carried in the hand, a trouser pocket (upright or upside down, any way round) or a bag
      // or on a belt (any attitude).
      let carry = rng.pick([0, 1, 1, 2])
      let at: Attitude3 =
        carry == 0
        ? rng.pick(uprights)
        : carry == 1
          ? Attitude3(pitch: rng.pick([1.35, -1.35]) + rng.uniform(-0.2, 0.2), roll: rng.uniform(-0.6, 0.6))
          : Attitude3(pitch: rng.uniform(-1.4, 1.4), roll: rng.uniform(-.pi, .pi))
      let running = kind == .run
      let impact =
        running ? rng.uniform(1.5, 3.5) : carry == 0 ? rng.uniform(0.4, 1.0) : rng.uniform(0.7, 1.8)
      add(
        kind, running ? rng.uniform(4, 10) : rng.uniform(5, 12), to: at,
        [
          "step_hz": running ? rng.uniform(2.4, 3.2) : rng.uniform(1.6, 2.2), "impact_g": impact,
          "width_s": running ? rng.uniform(0.02, 0.035) : rng.uniform(0.025, 0.05), "carry": Double(carry),
          "phase_s": rng.uniform(0, 0.5),
        ])
    }
    let shakeChance = scenario == .negatives ? 0 : scenario == .shakes || scenario == .sustained ? 0.8 : 0.45
    while t < duration - 1e-9 {
      // A background stretch.
      switch rng.pick(["rest", "hold", "hold", "walk", "walk", "run", "vehicle", "bike", "typing"]) {
      case "rest":
        add(.rest, rng.uniform(2, 5), to: rng.chance(0.7) ? .faceUp : .faceDown)
      case "hold":
        add(
          .hold, rng.uniform(2, 6), to: holding(&rng),
          ["tremor_hz": rng.uniform(8, 12), "tremor_g": rng.uniform(0.005, 0.02)])
      case "walk":
        gait(.walk)
      case "run":
        gait(.run)
      case "bike":
        add(
          .bike, rng.uniform(5, 10),
          to: Attitude3(pitch: rng.uniform(-1.4, 1.4), roll: rng.uniform(-.pi, .pi)),
          [
            "vibration_g": rng.uniform(0.05, 0.3), "cadence_hz": rng.uniform(1, 1.5),
          ])
      case "typing":
        add(
          .typing, rng.uniform(3, 8),
          to: Attitude3(pitch: rng.uniform(0.2, 0.6), roll: rng.uniform(-0.2, 0.2)),
          [
            "rate_hz": rng.uniform(3, 6), "tap_g": rng.uniform(0.1, 0.4),
          ])
      default:
        add(.vehicle, rng.uniform(4, 8), to: attitude, ["vibration_g": rng.uniform(0.03, 0.15)])
      }
      // Hard negatives (the scenario's own draws, so that the other scenarios' traces do not
      // change): after most stretches a run of chops or a spell of steering.
      if scenario == .hardNegatives {
        guard rng.chance(0.8) else { continue }
        let side: Double = rng.chance(0.5) ? 1 : -1
        if rng.chance(0.5) {
          // The device in the hand, its top along the forearm and its screen facing sideways
          // (roll a quarter turn), the forearm raised 0.3-1.2 rad; each chop swings it down by
          // 0.6-1.3 rad about the elbow, 25-40 cm away, in 0.2-0.35 s, holds, and lifts it back.
          let top = Attitude3(pitch: rng.uniform(0.3, 1.2), roll: side * .pi / 2 + rng.uniform(-0.3, 0.3))
          add(.turn, rng.uniform(0.6, 1.2), to: top)
          add(
            .chop, rng.uniform(3, 10), to: top,
            [
              "drop_rad": rng.uniform(0.6, 1.3), "radius_m": rng.uniform(0.25, 0.4),
              "down_s": rng.uniform(0.2, 0.35), "hold_s": rng.uniform(0.05, 0.2),
              "up_s": rng.uniform(0.3, 0.7), "pause_s": rng.uniform(0.05, 0.4),
            ])
        } else {
          // Held in landscape in both hands, upright or tilted back, turned like a wheel by
          // 0.3-1 rad each way at 0.4-1.5 Hz, the hands carrying it a little (0-0.15 g).
          let level = Attitude3(
            pitch: rng.uniform(-0.2, 0.2), roll: side * (.pi / 2 + rng.uniform(-0.6, 0.2)))
          add(.turn, rng.uniform(0.6, 1.2), to: level)
          add(
            .steer, rng.uniform(3, 12), to: level,
            [
              "angle_rad": rng.uniform(0.3, 1), "hz": rng.uniform(0.4, 1.5), "sway_g": rng.uniform(0, 0.15),
              "seed": rng.uniform(0, 6.28),
            ])
        }
        add(.hold, rng.uniform(0.8, 1.5), to: holding(&rng), ["tremor_hz": 10, "tremor_g": 0.01])
        continue
      }
      // Then perhaps an event.
      let u = rng.uniform(0, 1)
      if u < shakeChance {
        // A person's shake, as docs/GESTURES.md defines it: 2-12 cycles at 2-8 Hz (a third of
        // them quick flicks of 2-3 cycles at 3-8 Hz, what "shake to undo" reacts to), the hand
        // moving 3-15 cm each way (peak acceleration A (2 pi f)^2, kept within 0.5-4 g; flicks
        // 0.7-3 g), in one of four motion models drawn per shake (see MotionSegment.ShakeStyle).
        let flick = rng.chance(1.0 / 3)
        var hz = flick ? rng.uniform(3, 8) : rng.uniform(2, 7)
        let cycles = flick ? rng.uniform(2, 3) : rng.uniform(3, 12)
        var length = max(2 / hz, min(6, cycles / hz))
        let travel = rng.uniform(0.03, 0.15)
        var peak =
          flick
          ? rng.uniform(0.7, 3)
          : max(0.5, min(4, travel * pow(2 * .pi * hz, 2) / AccelerationUnit.standardGravity))
        // Sustained shaking (the scenario's own draws, after the shared ones, so that the other
        // scenarios' traces do not change): longer, harder, in bursts, and as slow as 1.2 Hz (the
        // whole arm pumping, as real bouts often are: docs/GESTURES.md). The hand travels at most
        // 40 cm each way, which keeps a slow shake's peak within 0.4 (2 pi f)^2 (2.3 g at 1.2 Hz).
        var bursts: [String: Double] = [:]
        if scenario == .sustained {
          hz = rng.uniform(1.2, 5)
          length = rng.uniform(8, 60)
          peak = min(rng.uniform(1.5, 6), 0.4 * pow(2 * .pi * hz, 2) / AccelerationUnit.standardGravity)
          let burst = rng.uniform(2, 8)
          let pause = rng.uniform(0.2, 0.9)
          // Whole bursts: the shaking ends with a burst, not in a pause.
          length = max(1, ((length + pause) / (burst + pause)).rounded()) * (burst + pause) - pause
          bursts = [
            "burst_s": burst, "pause_s": pause, "ellipse": rng.uniform(0.2, 0.8), "ellipse_phase": rng.uniform(0, 1.6),
            "wrist_pitch_rad": rng.uniform(0.2, 1), "harmonic": rng.uniform(0.4, 1),
            "harmonic_phase": rng.uniform(0, 6.28),
          ]
        }
        let style = rng.pick(shakeModels)
        let direction = shakeDirection(&rng)
        let holdAt = holding(&rng)
        let before = rng.uniform(0.8, 1.5)
        // A shake is annotated whole: one that the end of the trace would cut is not begun.
        guard t + before + length < duration else {
          add(.hold, duration - t, to: holdAt, ["tremor_hz": 10, "tremor_g": 0.01])
          continue
        }
        add(.hold, before, to: holdAt, ["tremor_hz": 10, "tremor_g": 0.01])
        add(
          .shake, length, to: holdAt,
          [
            "hz": hz, "peak_g": peak, "dx": direction.0, "dy": direction.1, "dz": direction.2,
            "wrist_rad": rng.uniform(0, 0.6), "seed": rng.uniform(0, 6.28), "style": Double(style.rawValue),
            "sharpness": rng.uniform(0.5, 3), "strokes_seed": Double(rng.integer(0, 1 << 30)),
            "twist_rad": rng.uniform(0.3, 1.0), "radius_m": rng.uniform(0.05, 0.15),
            "step_hz": rng.uniform(1.6, 2.2), "impact_g": rng.uniform(0.4, 1.0), "width_s": rng.uniform(0.025, 0.05),
          ].merging(bursts) { a, _ in a })
        add(.hold, rng.uniform(0.8, 1.5), to: holdAt, ["tremor_hz": 10, "tremor_g": 0.01])
      } else if u < shakeChance + 0.08 {
        // A jiggle: one back-and-forth or one stroke, not a shake.
        let hz = rng.uniform(3, 7)
        let direction = shakeDirection(&rng)
        let holdAt = holding(&rng)
        add(.hold, rng.uniform(0.8, 1.5), to: holdAt, ["tremor_hz": 10, "tremor_g": 0.01])
        add(
          .jiggle, Double(rng.integer(1, 2)) / (2 * hz), to: holdAt,
          [
            "hz": hz, "peak_g": rng.uniform(0.5, 2.5), "dx": direction.0, "dy": direction.1,
            "dz": direction.2,
            "wrist_rad": rng.uniform(0, 0.3), "seed": 0,
          ])
        add(.hold, rng.uniform(0.8, 1.5), to: holdAt, ["tremor_hz": 10, "tremor_g": 0.01])
      } else if u < shakeChance + 0.18 {
        add(.rest, rng.uniform(0.5, 1), to: .faceUp)
        add(.tap, rng.uniform(0.01, 0.03), to: .faceUp, ["peak_g": rng.uniform(1, 3)])
        add(.rest, rng.uniform(0.5, 1), to: .faceUp)
      } else if u < shakeChance + 0.23 {
        let land = rng.chance(0.5) ? Attitude3.faceUp : Attitude3.faceDown
        add(
          .drop, rng.uniform(0.2, 0.4) + 0.3, to: land,
          ["fall_s": rng.uniform(0.2, 0.4), "impact_g": rng.uniform(3, 6)])
        add(.rest, rng.uniform(1, 2), to: land)
      } else if u < shakeChance + 0.3 {
        let over = attitude.roll.magnitude < 1 ? Attitude3.faceDown : Attitude3.faceUp
        add(.turn, rng.uniform(0.8, 1.5), to: over)
      } else if u < shakeChance + 0.35 {
        let flight = rng.uniform(0.3, 0.5)
        add(
          .jump, 0.25 + flight + 1, to: attitude,
          [
            "flight_s": flight, "push_g": rng.uniform(1, 1.8), "landing_g": rng.uniform(2.5, 6),
          ])
      } else if u < shakeChance + 0.4 {
        let descent = rng.uniform(0.3, 0.6)
        add(.sit, descent + 1, to: attitude, ["descent_s": descent, "impact_g": rng.uniform(1, 3)])
      }
    }
    return segments
  }

  /// Writes `count` traces of a set into `directory`: NNN.csv (t,x,y,z), NNN.events.csv
  /// (start,end,label), NNN.truth.csv (t,gravity_x,gravity_y,gravity_z,roll,pitch), manifest.csv and README.md.
  public static func writeDataset(
    directory: String, count: Int, seed: UInt64, scenario: Scenario, split: String, command: String,
    shakeModels: [MotionSegment.ShakeStyle] = MotionSegment.ShakeStyle.allCases,
    write: (String, String) throws -> Void
  ) throws {
    var manifest = "trace,events,truth,rate,sensor,split,source,position\n"
    // The source names the shakes' motion models, so that training and evaluation can hold one out.
    let source =
      shakeModels == MotionSegment.ShakeStyle.allCases
      ? "generated" : "generated-" + shakeModels.map(\.name).joined(separator: "+")
    var shakes = 0
    var totalDuration = 0.0
    for i in 0..<count {
      let g = trace(
        seed: seed, index: i, scenario: scenario, duration: scenario.traceSeconds, shakeModels: shakeModels)
      let name = cFormat("%03ld", i)
      var csv = g.samples.gyroscope == nil ? "t,x,y,z\n" : "t,x,y,z,gx,gy,gz\n"
      var truth = "t,gravity_x,gravity_y,gravity_z,roll,pitch\n"
      for k in 0..<g.samples.count {
        csv += cFormat("%.5f,%.4f,%.4f,%.4f", g.samples.t[k], g.samples.x[k], g.samples.y[k], g.samples.z[k])
        if let r = g.samples.gyroscope { csv += cFormat(",%.4f,%.4f,%.4f", r.x[k], r.y[k], r.z[k]) }
        csv += "\n"
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
      manifest +=
        "\(name).csv,\(name).events.csv,\(name).truth.csv,\(formatRate(g.sensor.rate)),\(g.sensor.name),\(split),\(source),hand\n"
    }
    try write("manifest.csv", manifest)
    try write(
      "README.md",
      readme(
        count: count, seed: seed, scenario: scenario, split: split, command: command, shakes: shakes,
        duration: totalDuration))
  }

  static func formatRate(_ r: Double) -> String { r == r.rounded() ? String(Int(r)) : String(r) }

  /// The hard-negatives scenario's own paragraph of the README (the other scenarios' READMEs are
  /// what they were).
  static let hardNegativesText = """


    Hard negatives (this scenario, no shakes): after most stretches, a run of chops (the device in
    the hand, its top along the forearm and its screen facing sideways; each chop swings the forearm
    down by 0.6-1.3 rad about the elbow, 25-40 cm away, in 0.2-0.35 s, holds it 0.05-0.2 s and
    lifts it back in 0.3-0.7 s; whole chops for 3-10 s) or a spell of steering (held in landscape
    in both hands and turned like a wheel by 0.3-1 rad each way at 0.4-1.5 Hz for 3-12 s, the
    hands swaying it by up to 0.15 g).
    """

  static func readme(
    count: Int, seed: UInt64, scenario: Scenario, split: String, command: String, shakes: Int,
    duration: Double
  ) -> String {
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
    A trace is a timeline of stretches: at rest on a table (face up or down), held with hand tremor
    (8-12 Hz, 0.005-0.02 g; mostly upright, sometimes nearly flat, sometimes at any attitude),
    walking (1.6-2.2 steps/s) and running (2.4-3.2 steps/s) with the phone in a hand, a trouser
    pocket (swinging with the thigh) or a bag or belt, riding a vehicle (13-31 Hz vibration) or a
    bike (road vibration, pedalling sway), typing (3-6 taps/s of 0.1-0.4 g). Gait is lopsided as
    real gait is: each step a short heel strike or landing (walking 0.4-1.8 g, running 1.5-3.5 g,
    20-50 ms wide) and a long shallow phase that balances it (never below free fall), with the
    fore-aft push and the side-to-side sway. Between stretches the device settles into the next
    attitude. Events: shakes as docs/GESTURES.md defines them (2-12 cycles at 2-8 Hz, 0.25-6 s: a
    third are quick flicks of 2-3 cycles at 3-8 Hz and 0.7-3 g, the rest 3-12 cycles at 2-7 Hz, the
    hand travelling 3-15 cm each way so the peak is 0.5-4 g; along the device's x 40%, y 25%, z 15%
    or any diagonal 20%; ramped over a quarter cycle), each in one of four motion models drawn
    with equal odds: a sine whose rate drifts 8% and size 15% as a person's do, the wrist turning
    up to 0.6 rad; strokes of uneven length (+-25%) and size (+-30%) with soft or sharp reversals;
    a wrist twist of 0.3-1 rad about a device axis, the device 5-15 cm off the axis; a sine shake
    by a walking hand, the steps going on underneath. Also jiggles (one back-and-forth or one stroke
    at 3-7 Hz, 0.5-2.5 g: not shakes), taps (1-3 g, 10-30 ms), drops (0.2-0.4 s of free fall, then
    a 3-6 g impact), jumps (push-off, 0.3-0.5 s of flight, a 2.5-6 g landing), sitting down hard (a
    1-3 g seat impact) and turning over (0.8-1.5 s).\(scenario == .hardNegatives ? hardNegativesText : "")

    ## Sensor model
    25% of traces: the iPhone LIS302DL of the seed material (100 Hz nominal, +-2.3 g clipping,
    0.018 g steps, 0.008-0.015 g noise); the rest a 16-bit sensor of +-2, 4, 8 or 16 g at 25, 30,
    50, 60, 100, 200 or 400 Hz (0.002-0.006 g noise). Per trace: per-axis bias and scale error,
    timestamp jitter, dropped samples, and in 30% of traces one or two gaps of 0.1-0.6 s. 80% of
    the 16-bit sensors have a gyroscope beside them (+-2000 degrees/s in 16 bits, 0.003-0.01 rad/s
    noise, a per-axis bias up to 0.01 rad/s): columns gx, gy, gz in rad/s, the body rate of the
    modelled attitude in the device frame.

    ## Labelling rule
    Every intentional shake is annotated `shake` from its true start to its true end (the whole
    ramped stretch). Jiggles, taps and drops are annotated `jiggle`, `tap` and `drop` (a shake
    detector firing on them raises a false alarm); nothing else is annotated.
    """
  }
}
