#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A 3-vector of Doubles.
public typealias Vector3 = SIMD3<Double>

/// A rotation as a Hamilton quaternion, scalar first. An attitude `q` maps sensor-frame vectors
/// into the world frame: `v_world = q * (0, v) * conj(q)` (`rotate`).
public struct Quaternion: Sendable, Equatable {
  public var w, x, y, z: Double

  @inlinable public init(_ w: Double, _ x: Double, _ y: Double, _ z: Double) {
    (self.w, self.x, self.y, self.z) = (w, x, y, z)
  }

  public static let identity = Quaternion(1, 0, 0, 0)

  /// The rotation by `angle` radians about the unit vector `axis`.
  @inlinable public init(angle: Double, axis: Vector3) {
    let s = sin(angle / 2)
    self.init(cos(angle / 2), s * axis.x, s * axis.y, s * axis.z)
  }

  /// The rotation by |v| radians about v (the exponential of a rotation vector).
  @inlinable public init(rotationVector v: Vector3) {
    let angle = (v * v).sum().squareRoot()
    guard angle > .ulpOfOne else {
      self = .identity
      return
    }
    let s = sin(angle / 2) / angle
    self.init(cos(angle / 2), s * v.x, s * v.y, s * v.z)
  }

  /// The rotation by `angle` radians about the world z axis (a change of heading).
  @inlinable public static func heading(_ angle: Double) -> Quaternion {
    Quaternion(cos(angle / 2), 0, 0, sin(angle / 2))
  }

  @inlinable @inline(__always) public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
    Quaternion(
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
  }

  @inlinable public var conjugate: Quaternion { Quaternion(w, -x, -y, -z) }

  @inlinable public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

  /// The unit quaternion (unchanged when the norm is 0).
  @inlinable @inline(__always) public var normalized: Quaternion {
    let n = norm
    guard n > 0 else { return self }
    let r = 1 / n
    return Quaternion(w * r, x * r, y * r, z * r)
  }

  /// `v` rotated: q (0, v) q*, for a unit q.
  @inlinable @inline(__always) public func rotate(_ v: Vector3) -> Vector3 {
    Vector3(
      (1 - 2 * y * y - 2 * z * z) * v.x + 2 * (x * y - w * z) * v.y + 2 * (w * y + x * z) * v.z,
      2 * (w * z + x * y) * v.x + (1 - 2 * x * x - 2 * z * z) * v.y + 2 * (y * z - w * x) * v.z,
      2 * (x * z - w * y) * v.x + 2 * (w * x + y * z) * v.y + (1 - 2 * x * x - 2 * y * y) * v.z)
  }

  /// `v` rotated back: q* (0, v) q, for a unit q (a world vector seen from the sensor).
  @inlinable public func rotateBack(_ v: Vector3) -> Vector3 { conjugate.rotate(v) }

  /// The world's up (z) axis seen in the sensor frame: the third row of the rotation matrix.
  @inlinable public var up: Vector3 {
    Vector3(2 * (x * z - w * y), 2 * (w * x + y * z), 1 - 2 * x * x - 2 * y * y)
  }

  /// The angle between the world z axis as seen by two attitudes, in degrees: BROAD's
  /// inclination error (heading plays no part).
  public func inclination(to o: Quaternion) -> Double {
    let a = up
    let b = o.up
    let c = (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()
    return acos(max(-1, min(1, c))) * 180 / .pi
  }

  /// The shortest rotation that takes the unit vector `from` onto the unit vector `to`.
  public static func between(_ from: Vector3, _ to: Vector3) -> Quaternion {
    let d = (from * to).sum()
    if d < -1 + 1e-12 {
      // Opposite: half a turn about any axis perpendicular to `from`.
      let axis = abs(from.x) < 0.9 ? Vector3(1, 0, 0) : Vector3(0, 1, 0)
      let c = Vector3(
        from.y * axis.z - from.z * axis.y, from.z * axis.x - from.x * axis.z,
        from.x * axis.y - from.y * axis.x)
      let n = (c * c).sum().squareRoot()
      return Quaternion(0, c.x / n, c.y / n, c.z / n)
    }
    let c = Vector3(
      from.y * to.z - from.z * to.y, from.z * to.x - from.x * to.z, from.x * to.y - from.y * to.x)
    return Quaternion(1 + d, c.x, c.y, c.z).normalized
  }

  /// The attitude whose world axes, seen from the sensor, are `east`, `north` and `up` (an
  /// orthonormal right-handed triad): the rows of its rotation matrix.
  public init(east: Vector3, north: Vector3, up: Vector3) {
    let (m00, m01, m02) = (east.x, east.y, east.z)
    let (m10, m11, m12) = (north.x, north.y, north.z)
    let (m20, m21, m22) = (up.x, up.y, up.z)
    let trace = m00 + m11 + m22
    var q: Quaternion
    if trace > 0 {
      let s = (trace + 1).squareRoot() * 2
      q = Quaternion(s / 4, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s)
    } else if m00 > m11 && m00 > m22 {
      let s = (1 + m00 - m11 - m22).squareRoot() * 2
      q = Quaternion((m21 - m12) / s, s / 4, (m01 + m10) / s, (m02 + m20) / s)
    } else if m11 > m22 {
      let s = (1 + m11 - m00 - m22).squareRoot() * 2
      q = Quaternion((m02 - m20) / s, (m01 + m10) / s, s / 4, (m12 + m21) / s)
    } else {
      let s = (1 + m22 - m00 - m11).squareRoot() * 2
      q = Quaternion((m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, s / 4)
    }
    if q.w < 0 { q = Quaternion(-q.w, -q.x, -q.y, -q.z) }
    self = q.normalized
  }
}

/// Euler angles of an attitude, in degrees, in one of two decompositions of R (sensor to a z-up
/// world):
/// - `coremotion`: R = Rz(yaw) Rx(pitch) Ry(roll), Core Motion's order and naming (pitch about x,
///   roll about y). pitch = asin(R21) in [-90, 90], roll = atan2(-R20, R22), yaw = atan2(-R01, R11):
///   the heading of the device's y axis, counterclockwise from north (world y) seen from above.
///   Roll and pitch equal those of `Attitude.roll/pitch` on the gravity -R^T e_z.
/// - `aerospace`: R = Rz(yaw) Ry(pitch_y) Rx(roll_x), the usual yaw-pitch-roll order. roll_x =
///   atan2(R21, R22), pitch_y = asin(-R20), yaw = atan2(R10, R00): the heading of the device's x
///   axis, counterclockwise from world x (east with a magnetometer). Roll and pitch equal AN3461's
///   on the specific force R^T e_z.
/// Near pitch +-90 roll and yaw trade off (gimbal lock); the quaternion stays exact there.
public enum EulerAngles {
  public static func angles(_ q: Quaternion, aerospace: Bool) -> (roll: Double, pitch: Double, yaw: Double) {
    let (w, x, y, z) = (q.w, q.x, q.y, q.z)
    let r20 = 2 * (x * z - w * y)
    let r21 = 2 * (w * x + y * z)
    let r22 = 1 - 2 * (x * x + y * y)
    let k = Attitude.degreesPerRadian
    if aerospace {
      let r10 = 2 * (w * z + x * y)
      let r00 = 1 - 2 * (y * y + z * z)
      return (
        Attitude.halfOpen(atan2(r21, r22) * k), asin(max(-1, min(1, 0 - r20))) * k,
        Attitude.halfOpen(atan2(r10, r00) * k)
      )
    }
    let r01 = 2 * (x * y - w * z)
    let r11 = 1 - 2 * (x * x + z * z)
    return (
      Attitude.halfOpen(atan2(0 - r20, r22) * k), asin(max(-1, min(1, r21))) * k,
      Attitude.halfOpen(atan2(0 - r01, r11) * k)
    )
  }

  /// The yaw in radians (the same decomposition), for heading offsets.
  public static func yawRadians(_ q: Quaternion, aerospace: Bool) -> Double {
    let (w, x, y, z) = (q.w, q.x, q.y, q.z)
    return aerospace
      ? atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
      : atan2(0 - 2 * (x * y - w * z), 1 - 2 * (x * x + z * z))
  }
}
