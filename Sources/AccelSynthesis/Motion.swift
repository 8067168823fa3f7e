import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A device attitude as Core Motion's Euler angles (radians): R = Rz(yaw) Rx(pitch) Ry(roll).
public struct Attitude3: Sendable {
  public var pitch: Double
  public var roll: Double
  public var yaw: Double

  public init(pitch: Double, roll: Double, yaw: Double = 0) {
    self.pitch = pitch
    self.roll = roll
    self.yaw = yaw
  }

  public static let faceUp = Attitude3(pitch: 0, roll: 0)
  public static let faceDown = Attitude3(pitch: 0, roll: Double.pi)

  /// Gravity in the device frame, Apple's convention: (cos p sin r, -sin p, -cos p cos r).
  public var gravity: (Double, Double, Double) {
    (cos(pitch) * sin(roll), -sin(pitch), -cos(pitch) * cos(roll))
  }

  /// A world-frame vector expressed in the device frame: R^T v.
  public func toDevice(_ v: (Double, Double, Double)) -> (Double, Double, Double) {
    let (cy, sy) = (cos(yaw), sin(yaw))
    let (cp, sp) = (cos(pitch), sin(pitch))
    let (cr, sr) = (cos(roll), sin(roll))
    // R = Rz Rx Ry, rows:
    let r11 = cy * cr - sy * sp * sr
    let r12 = -sy * cp
    let r13 = cy * sr + sy * sp * cr
    let r21 = sy * cr + cy * sp * sr
    let r22 = cy * cp
    let r23 = sy * sr - cy * sp * cr
    let r31 = -cp * sr
    let r32 = sp
    let r33 = cp * cr
    return (
      r11 * v.0 + r21 * v.1 + r31 * v.2,
      r12 * v.0 + r22 * v.1 + r32 * v.2,
      r13 * v.0 + r23 * v.1 + r33 * v.2
    )
  }

  /// The rotation matrix R (device to world), row by row.
  public var matrix: [[Double]] {
    let (cy, sy) = (cos(yaw), sin(yaw))
    let (cp, sp) = (cos(pitch), sin(pitch))
    let (cr, sr) = (cos(roll), sin(roll))
    return [
      [cy * cr - sy * sp * sr, -sy * cp, cy * sr + sy * sp * cr],
      [sy * cr + cy * sp * sr, cy * cp, sy * sr - cy * sp * cr],
      [-cp * sr, sp, cp * cr],
    ]
  }

  /// The angular velocity (rad/s, device frame) that turns this attitude into `next` in `dt`
  /// seconds: R^T dR/dt is the skew matrix of the body rate.
  public func angularVelocity(to next: Attitude3, dt: Double) -> (Double, Double, Double) {
    let a = matrix
    let b = next.matrix
    // M = A^T B, about I + [w] dt.
    func m(_ i: Int, _ j: Int) -> Double { a[0][i] * b[0][j] + a[1][i] * b[1][j] + a[2][i] * b[2][j] }
    return ((m(2, 1) - m(1, 2)) / (2 * dt), (m(0, 2) - m(2, 0)) / (2 * dt), (m(1, 0) - m(0, 1)) / (2 * dt))
  }

  func lerp(_ other: Attitude3, _ s: Double) -> Attitude3 {
    Attitude3(
      pitch: pitch + (other.pitch - pitch) * s, roll: roll + (other.roll - roll) * s,
      yaw: yaw + (other.yaw - yaw) * s)
  }
}

/// The true state of the device at one instant.
public struct MotionState: Sendable {
  public var attitude: Attitude3
  /// Linear acceleration in the world frame (z up), in g.
  public var worldAcceleration: (Double, Double, Double)
  /// Acceleration added in the device frame (vibration of the sensor itself), in g.
  public var deviceAcceleration: (Double, Double, Double)

  /// The ideal accelerometer reading, Apple's convention: gravity minus the world acceleration,
  /// in the device frame (at rest face up: (0, 0, -1); in free fall: (0, 0, 0)).
  public var reading: (Double, Double, Double) {
    let w = attitude.toDevice((-worldAcceleration.0, -worldAcceleration.1, -1 - worldAcceleration.2))
    return (w.0 + deviceAcceleration.0, w.1 + deviceAcceleration.1, w.2 + deviceAcceleration.2)
  }
}

/// One stretch of a generated recording.
public struct MotionSegment: Sendable {
  public enum Kind: String, Sendable {
    case rest, hold, walk, run, vehicle, shake, tap, drop, turn
    /// One or two quick back-and-forths: not a shake (annotated `jiggle`).
    case jiggle
    /// A jump: push-off, flight (free fall) and landing.
    case jump
    /// Sitting down hard: a short descent, then the seat's impact.
    case sit
    /// Typing on the phone held in the hand: a train of small taps.
    case typing
    /// Cycling: road vibration and the pedalling sway.
    case bike
    /// Chopping: the forearm swung down about the elbow and stopped, again and again, the device
    /// in the hand (a hard negative).
    case chop
    /// Rocking the device like a steering wheel in both hands (a hard negative).
    case steer
  }
  /// How a shake moves the device: four motion models drawn per shake, so that no rule or model
  /// can fit one model's regularities.
  public enum ShakeStyle: Int, CaseIterable, Sendable {
    /// A sine whose rate drifts and whose size breathes, along a line of the device frame.
    case sine
    /// Strokes of uneven length and size, each a half-sine raised to a power (soft or sharp
    /// reversals), alternating in direction.
    case strokes
    /// The wrist turning the device back and forth about one of its axes (gravity's projection
    /// swings, and the device, held off the axis, is carried round).
    case twist
    /// A sine shake by a hand that is walking: the steps go on underneath.
    case walking

    public var name: String {
      switch self {
      case .sine: "sine"
      case .strokes: "strokes"
      case .twist: "twist"
      case .walking: "walking"
      }
    }

    public init?(name: String) {
      guard let style = Self.allCases.first(where: { $0.name == name }) else { return nil }
      self = style
    }
  }

  public var kind: Kind
  public var start: Double
  public var duration: Double
  public var from: Attitude3
  public var to: Attitude3
  /// Per-kind numbers (frequency, amplitude, axis, ...).
  public var parameters: [String: Double]

  public var end: Double { start + duration }

  /// The label of an annotated segment (shake; tap and drop are annotated with their own labels).
  public var label: String? {
    switch kind {
    case .shake: "shake"
    case .tap: "tap"
    case .drop: "drop"
    case .jiggle: "jiggle"
    default: nil
    }
  }

  /// Gait's world acceleration (g): each step a Gaussian heel strike of `impact` g, `width`
  /// seconds wide, less its mean; the fore-aft braking and push at the step rate; the
  /// side-to-side sway at the stride rate.
  static func gait(local: Double, stepHz f: Double, impact a: Double, width: Double, phase: Double) -> (
    Double, Double, Double
  ) {
    let period = 1 / f
    let at = (local + phase).truncatingRemainder(dividingBy: period) - period / 2
    let mean = a * width * (2 * Double.pi).squareRoot() / period
    let vertical = a * exp(-at * at / (2 * width * width)) - mean
    let surge = 0.25 * a * sin(2 * .pi * f * local + 0.8) * min(1, mean)
    let sway = 0.15 * sin(.pi * f * local) * min(1, a / 2)
    return (surge, sway, vertical)
  }

  /// The state at time t within the segment.
  public func state(at t: Double) -> MotionState {
    let s = max(0, min(1, (t - start) / max(duration, 1e-9)))
    let p = parameters
    var attitude = from
    var world = (0.0, 0.0, 0.0)
    var device = (0.0, 0.0, 0.0)
    let local = t - start
    switch kind {
    case .rest:
      break
    case .hold:
      // Hand tremor (8-12 Hz) and a slow sway of the attitude.
      let f = p["tremor_hz"]!
      let a = p["tremor_g"]!
      device = (
        a * sin(2 * .pi * f * local), a * 0.7 * sin(2 * .pi * f * 1.13 * local + 1),
        a * 0.5 * sin(2 * .pi * f * 0.91 * local + 2)
      )
      attitude.pitch += 0.03 * sin(2 * .pi * 0.2 * local)
      attitude.roll += 0.03 * sin(2 * .pi * 0.13 * local + 1)
    case .walk, .run:
      // Gait is lopsided: each step a short heel strike (or landing) of impact_g, a Gaussian
      // pulse width_s wide, less its mean (a long shallow phase that can go no lower than free
      // fall), plus the fore-aft braking and push at the step rate and the side-to-side sway at
      // the stride rate. Where the device is carried sets its attitude's swing: a trouser pocket
      // swings with the thigh at the stride rate, a hand sways a little, a bag or a belt barely.
      let f = p["step_hz"]!
      let a = p["impact_g"]!
      let width = p["width_s"]!
      let carry = Int(p["carry"]!)
      world = Self.gait(local: local, stepHz: f, impact: a, width: width, phase: p["phase_s"]!)
      switch carry {
      case 1:  // pocket
        attitude.pitch += 0.45 * sin(.pi * f * local)
        attitude.roll += 0.12 * sin(.pi * f * local + 1)
      case 2:  // bag or belt
        attitude.pitch += 0.03 * sin(.pi * f * local)
      default:  // hand
        attitude.pitch += 0.08 * sin(.pi * f * local)
        attitude.roll += 0.06 * sin(2 * .pi * f * local + 1)
      }
    case .bike:
      // Road vibration on the frame, and the body swaying with the pedals.
      let a = p["vibration_g"]!
      let cadence = p["cadence_hz"]!
      device = (
        a * (sin(2 * .pi * 17 * local) + 0.5 * sin(2 * .pi * 29 * local + 1)),
        a * 0.8 * sin(2 * .pi * 21 * local + 2), a * (sin(2 * .pi * 13 * local + 0.4))
      )
      world = (
        0.05 * sin(2 * .pi * 0.3 * local), 0.12 * sin(2 * .pi * cadence * local),
        0.08 * sin(4 * .pi * cadence * local)
      )
      attitude.roll += 0.1 * sin(2 * .pi * cadence * local)
    case .typing:
      // Taps of tap_g at about rate_hz, each a 20 ms push into the screen (device -z).
      let rate = p["rate_hz"]!
      let a = p["tap_g"]!
      let period = 1 / rate
      let phase = (local * (1 + 0.15 * sin(2 * .pi * 0.37 * local))).truncatingRemainder(dividingBy: period)
      let pulse = phase < 0.02 ? sin(.pi * phase / 0.02) : 0
      device = (0.1 * a * pulse, 0.2 * a * pulse, -a * pulse)
      attitude.pitch += 0.02 * sin(2 * .pi * 0.3 * local)
    case .jump:
      // Push-off (push_g for 0.25 s), flight (free fall), landing (landing_g, a 40 ms pulse that
      // rings down), then standing.
      let push = 0.25
      let flight = p["flight_s"]!
      if local < push {
        world = (0, 0, p["push_g"]! * sin(.pi * local / push))
      } else if local < push + flight {
        world = (0, 0, -1)
      } else {
        let k = local - push - flight
        world = (0, 0, p["landing_g"]! * exp(-k / 0.04) * cos(2 * .pi * 8 * k))
      }
      attitude.pitch += 0.1 * sin(2 * .pi * local / max(duration, 1e-9))
    case .sit:
      // Lowering (-0.3 g for descent_s), then the seat (impact_g, a 30 ms pulse).
      let descent = p["descent_s"]!
      if local < descent {
        world = (0.05, 0, -0.3 * sin(.pi * local / descent))
      } else {
        let k = local - descent
        world = (
          0.1 * p["impact_g"]! * exp(-k / 0.03), 0, p["impact_g"]! * exp(-k / 0.03) * cos(2 * .pi * 6 * k)
        )
      }
    case .chop:
      // The forearm's angle below its raised position: down by drop_rad in down_s (a raised
      // cosine), held, back up in up_s, paused. The hand, radius_m from the elbow, is pushed
      // along the device's x by the angular acceleration (r phi'') and pulled towards the elbow,
      // along y, by the turn (r phi'^2): the same in the device frame at every angle.
      let (down, hold, up) = (p["down_s"]!, p["hold_s"]!, p["up_s"]!)
      let cycle = down + hold + up + p["pause_s"]!
      let k = local.truncatingRemainder(dividingBy: cycle)
      let drop = p["drop_rad"]!
      var (phi, rate, acceleration) = (0.0, 0.0, 0.0)
      if k < down {
        let w = Double.pi / down
        phi = drop * (1 - cos(w * k)) / 2
        rate = drop * w * sin(w * k) / 2
        acceleration = drop * w * w * cos(w * k) / 2
      } else if k < down + hold {
        phi = drop
      } else if k < down + hold + up {
        let w = Double.pi / up
        let j = k - down - hold
        phi = drop * (1 + cos(w * j)) / 2
        rate = -drop * w * sin(w * j) / 2
        acceleration = -drop * w * w * cos(w * j) / 2
      }
      // Only whole chops: the last one is not begun if the segment would cut it.
      if local - k + cycle > duration { (phi, rate, acceleration) = (0, 0, 0) }
      attitude.pitch -= phi
      let r = p["radius_m"]! / AccelerationUnit.standardGravity
      // x's sign is the screen's side (the roll's).
      device = ((sin(from.roll) >= 0 ? -r : r) * acceleration, r * rate * rate, 0)
    case .steer:
      // Turned about the screen's normal (pitch, with the roll a quarter turn), faded in and out
      // over half a second, the hands swaying it a little at the same rate.
      let taper = min(1, local / 0.5, max(0, duration - local) / 0.5)
      let phase = 2 * .pi * p["hz"]! * local
      attitude.pitch += p["angle_rad"]! * taper * sin(phase)
      let sway = p["sway_g"]! * taper
      world = (sway * sin(phase + p["seed"]!), 0, 0.5 * sway * sin(2 * phase))
    case .vehicle:
      let a = p["vibration_g"]!
      device = (
        a * (sin(2 * .pi * 13 * local) + 0.6 * sin(2 * .pi * 27.3 * local + 1)),
        a * (0.7 * sin(2 * .pi * 17.1 * local + 2) + 0.4 * sin(2 * .pi * 23 * local)),
        a * (sin(2 * .pi * 11.7 * local + 0.3) + 0.5 * sin(2 * .pi * 31 * local))
      )
      world = (
        0.08 * sin(2 * .pi * 0.7 * local), 0.05 * sin(2 * .pi * 0.4 * local + 1),
        0.1 * sin(2 * .pi * 1.3 * local)
      )
    case .shake, .jiggle:
      let f = p["hz"]!
      let a = p["peak_g"]!
      var taper = max(0, min(1, min(local, duration - local) * f * 4))
      if let burst = p["burst_s"], let pause = p["pause_s"] {
        // Bursts of `burst` seconds with still pauses of `pause` between, each ramped in and out
        // over a quarter cycle; the last burst ends with the segment.
        let within = local.truncatingRemainder(dividingBy: burst + pause)
        taper = within >= burst ? 0 : min(taper, max(0, min(1, min(within, burst - within) * f * 4)))
      }
      let direction = (p["dx"]!, p["dy"]!, p["dz"]!)
      switch ShakeStyle(rawValue: Int(p["style"] ?? 0)) ?? .sine {
      case .sine, .walking:
        // A hand's back-and-forth along the direction of the device frame: a sine whose rate
        // drifts and whose size breathes as a person's does, ramped in and out over a quarter
        // cycle, with the wrist turning with it.
        let breathing = 1 + 0.15 * sin(2 * .pi * 0.7 * local + p["seed"]!)
        let drift = 0.08 * f / 0.5 * (1 - cos(2 * .pi * 0.5 * local)) / (2 * .pi)
        let v = a * taper * breathing * sin(2 * .pi * (f * local + drift))
        device = (-v * direction.0, -v * direction.1, -v * direction.2)
        attitude.roll += p["wrist_rad"]! * taper * sin(2 * .pi * (f * local + drift) + 0.3)
        if p["style"] == Double(ShakeStyle.walking.rawValue) {
          world = Self.gait(local: local, stepHz: p["step_hz"]!, impact: p["impact_g"]!, width: p["width_s"]!, phase: 0)
        }
      case .strokes:
        // Half-cycles of uneven length (+-25%) and size (+-30%), drawn from the shake's own seed.
        var rng = SeededGenerator(seed: UInt64(p["strokes_seed"]!))
        var t0 = 0.0
        var sign = 1.0
        var v = 0.0
        while t0 < duration {
          let half = 0.5 / f * rng.uniform(0.75, 1.25)
          let size = rng.uniform(0.7, 1.3)
          if local < t0 + half {
            let u = (local - t0) / half
            v = sign * a * size * pow(sin(.pi * u), p["sharpness"]!)
            break
          }
          t0 += half
          sign = -sign
        }
        v *= taper
        device = (-v * direction.0, -v * direction.1, -v * direction.2)
      case .twist:
        // The device turns about the axis `direction` by +-twist_rad; held radius_m off the
        // axis, it is carried round: a tangential acceleration r * (angular acceleration).
        let theta = p["twist_rad"]! * taper * sin(2 * .pi * f * local)
        let alpha = -p["twist_rad"]! * taper * pow(2 * .pi * f, 2) * sin(2 * .pi * f * local)
        let tangential = p["radius_m"]! * alpha / AccelerationUnit.standardGravity
        let (dx, dy, dz) = direction
        if abs(dz) >= max(abs(dx), abs(dy)) {
          attitude.yaw += theta
          device = (tangential, 0, 0)
        } else if abs(dx) >= abs(dy) {
          attitude.pitch += theta
          device = (0, tangential, 0)
        } else {
          attitude.roll += theta
          device = (tangential, 0, 0)
        }
      }
      if let ellipse = p["ellipse"] {
        // A person's sustained shaking (the sustained scenario): the hand traces an ellipse, not a
        // line (a perpendicular component of `ellipse` times the size, a quarter cycle apart),
        // one stroke harder than the other, and the wrist turns with every stroke, so that gravity
        // swings across the axes.
        let (dx, dy, dz) = direction
        // A unit vector across the direction: its cross product with the axis it is least along.
        let axis: (Double, Double, Double) = abs(dx) <= min(abs(dy), abs(dz)) ? (1, 0, 0) : abs(dy) <= abs(dz) ? (0, 1, 0) : (0, 0, 1)
        var across = (dy * axis.2 - dz * axis.1, dz * axis.0 - dx * axis.2, dx * axis.1 - dy * axis.0)
        let length = (across.0 * across.0 + across.1 * across.1 + across.2 * across.2).squareRoot()
        across = (across.0 / length, across.1 / length, across.2 / length)
        let w = ellipse * a * taper * cos(2 * .pi * f * local + p["ellipse_phase"]!)
        // One stroke harder than its return: a second harmonic along the direction.
        let h = p["harmonic"]! * a * taper * sin(4 * .pi * f * local + p["harmonic_phase"]!)
        device = (
          device.0 - w * across.0 - h * dx, device.1 - w * across.1 - h * dy, device.2 - w * across.2 - h * dz
        )
        attitude.pitch += p["wrist_pitch_rad"]! * taper * sin(2 * .pi * f * local + 1.1)
      }
    case .tap:
      let a = p["peak_g"]!
      let shape = sin(.pi * s)
      device = (0.2 * a * shape, 0.1 * a * shape, -a * shape)
    case .drop:
      // Free fall, then an impact that rings down.
      let fall = p["fall_s"]!
      if local < fall {
        world = (0, 0, -1)
      } else {
        let k = local - fall
        let a = p["impact_g"]! * exp(-k / 0.015) * cos(2 * .pi * 45 * k)
        world = (0.2 * a, 0.1 * a, a)
        attitude = to
      }
    case .turn:
      let eased = 0.5 - 0.5 * cos(.pi * s)
      attitude = from.lerp(to, eased)
    }
    if kind != .turn && kind != .drop {
      // Settle into the next attitude over the last 0.6 s.
      let settle = min(0.6, duration / 2)
      if local > duration - settle {
        let u = (local - (duration - settle)) / settle
        let target = to
        let eased = 0.5 - 0.5 * cos(.pi * u)
        attitude = attitude.lerp(target, eased)
      }
    }
    return MotionState(attitude: attitude, worldAcceleration: world, deviceAcceleration: device)
  }
}
