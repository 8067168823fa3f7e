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
    let r11 = cy * cr - sy * sp * sr, r12 = -sy * cp, r13 = cy * sr + sy * sp * cr
    let r21 = sy * cr + cy * sp * sr, r22 = cy * cp, r23 = sy * sr - cy * sp * cr
    let r31 = -cp * sr, r32 = sp, r33 = cp * cr
    return (
      r11 * v.0 + r21 * v.1 + r31 * v.2,
      r12 * v.0 + r22 * v.1 + r32 * v.2,
      r13 * v.0 + r23 * v.1 + r33 * v.2
    )
  }

  func lerp(_ other: Attitude3, _ s: Double) -> Attitude3 {
    Attitude3(pitch: pitch + (other.pitch - pitch) * s, roll: roll + (other.roll - roll) * s, yaw: yaw + (other.yaw - yaw) * s)
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
    default: nil
    }
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
      let f = p["tremor_hz"]!, a = p["tremor_g"]!
      device = (a * sin(2 * .pi * f * local), a * 0.7 * sin(2 * .pi * f * 1.13 * local + 1), a * 0.5 * sin(2 * .pi * f * 0.91 * local + 2))
      attitude.pitch += 0.03 * sin(2 * .pi * 0.2 * local)
      attitude.roll += 0.03 * sin(2 * .pi * 0.13 * local + 1)
    case .walk, .run:
      let f = p["step_hz"]!, a = p["bounce_g"]!
      world = (0.3 * a * sin(2 * .pi * f * local + 0.5), 0.35 * a * sin(.pi * f * local), a * sin(2 * .pi * f * local))
      attitude.pitch += 0.08 * sin(.pi * f * local)
      attitude.roll += 0.06 * sin(2 * .pi * f * local + 1)
    case .vehicle:
      let a = p["vibration_g"]!
      device = (
        a * (sin(2 * .pi * 13 * local) + 0.6 * sin(2 * .pi * 27.3 * local + 1)),
        a * (0.7 * sin(2 * .pi * 17.1 * local + 2) + 0.4 * sin(2 * .pi * 23 * local)),
        a * (sin(2 * .pi * 11.7 * local + 0.3) + 0.5 * sin(2 * .pi * 31 * local))
      )
      world = (0.08 * sin(2 * .pi * 0.7 * local), 0.05 * sin(2 * .pi * 0.4 * local + 1), 0.1 * sin(2 * .pi * 1.3 * local))
    case .shake:
      // Half-cycles of a sine along a device axis, with a raised-cosine taper at both ends, and
      // the wrist turning with it.
      let f = p["hz"]!, a = p["peak_g"]!, axis = Int(p["axis"]!)
      let taper = min(1, min(local, duration - local) * f * 2)
      let v = a * max(0, taper) * sin(2 * .pi * f * local)
      let d: (Double, Double, Double) = axis == 0 ? (v, 0, 0) : axis == 1 ? (0, v, 0) : (0, 0, v)
      device = (-d.0, -d.1, -d.2)
      attitude.roll += p["wrist_rad"]! * sin(2 * .pi * f * local + 0.3)
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
