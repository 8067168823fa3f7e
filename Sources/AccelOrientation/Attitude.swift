#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Angles of a device relative to gravity, from a gravity estimate in Apple's convention (a device
/// lying face up reads (0, 0, -1) g). Core Motion's naming: pitch is rotation about x, roll about y.
/// ```
/// pitch = atan2(-g_y, sqrt(g_x^2 + g_z^2))     in [-90, 90] degrees (portrait upright: +90)
/// roll  = atan2(g_x, -g_z)                     in (-180, 180] degrees (face up: 0)
/// ```
/// Negations are written `0 - v` so that a zero component gives +0, not -0 (face up reads pitch 0
/// and up angle 0, not -0 and pi). These are Core Motion's attitude pitch and roll for its ZXY Euler decomposition (yaw about z,
/// then pitch about x, then roll about y), since gravity = -R^T (0, 0, 1).
public enum Attitude {
  public static let degreesPerRadian = 180 / Double.pi

  public static func pitch(_ gx: Double, _ gy: Double, _ gz: Double) -> Double {
    atan2(0 - gy, (gx * gx + gz * gz).squareRoot()) * degreesPerRadian
  }

  /// Roll, or nil where it is ill-conditioned: within `poleDegrees` of pitch +-90 the horizontal
  /// part of gravity (g_x, g_z) is too small to give a direction.
  public static func roll(_ gx: Double, _ gy: Double, _ gz: Double, poleDegrees: Double = 0.5) -> Double? {
    let horizontal = (gx * gx + gz * gz).squareRoot()
    let norm = (horizontal * horizontal + gy * gy).squareRoot()
    guard norm > 0, horizontal > norm * poleSine(poleDegrees) else { return nil }
    return halfOpen(atan2(gx, 0 - gz) * degreesPerRadian)
  }

  /// The AN3461 pair on the specific force f = -g (aerospace convention):
  /// roll_x = atan2(f_y, f_z) in (-180, 180], pitch_y = atan2(-f_x, sqrt(f_y^2 + f_z^2)) in [-90, 90].
  /// Reference: NXP AN3461, "Tilt Sensing Using a Three-Axis Accelerometer".
  public static func aerospace(_ gx: Double, _ gy: Double, _ gz: Double, poleDegrees: Double = 0.5) -> (roll: Double?, pitch: Double) {
    let fx = 0 - gx, fy = 0 - gy, fz = 0 - gz
    let pitch = atan2(0 - fx, (fy * fy + fz * fz).squareRoot()) * degreesPerRadian
    let across = (fy * fy + fz * fz).squareRoot()
    let norm = (across * across + fx * fx).squareRoot()
    guard norm > 0, across > norm * poleSine(poleDegrees) else { return (nil, pitch) }
    return (halfOpen(atan2(fy, fz) * degreesPerRadian), pitch)
  }

  /// The angle between the device's z axis and vertical, in degrees: 0 face up, 180 face down.
  public static func tilt(_ gx: Double, _ gy: Double, _ gz: Double) -> Double {
    let norm = (gx * gx + gy * gy + gz * gz).squareRoot()
    guard norm > 0 else { return .nan }
    return acos(max(-1, min(1, -gz / norm))) * degreesPerRadian
  }

  /// The seed's "which way is up" angle, atan2(g_y, -g_x), in radians.
  public static func upAngle(_ gx: Double, _ gy: Double) -> Double { atan2(gy, 0 - gx) }

  /// sin(poleDegrees), the default's computed once (it was a sin call per sample).
  @inline(__always)
  static func poleSine(_ poleDegrees: Double) -> Double {
    poleDegrees == 0.5 ? defaultPoleSine : sin(poleDegrees / degreesPerRadian)
  }
  static let defaultPoleSine = sin(0.5 / degreesPerRadian)

  /// Maps -180 to 180 so angles lie in (-180, 180].
  static func halfOpen(_ degrees: Double) -> Double { degrees == -180 ? 180 : degrees }
}
