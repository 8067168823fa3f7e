#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A 3x3 matrix of Doubles (m[row][column] as mRC): the small linear algebra of the attitude
/// filters, written out in scalars (the compiler keeps them in registers).
@usableFromInline struct Matrix3: Sendable {
  @usableFromInline var m00, m01, m02, m10, m11, m12, m20, m21, m22: Double

  @inlinable @inline(__always) init(
    _ m00: Double, _ m01: Double, _ m02: Double, _ m10: Double, _ m11: Double, _ m12: Double,
    _ m20: Double, _ m21: Double, _ m22: Double
  ) {
    (self.m00, self.m01, self.m02) = (m00, m01, m02)
    (self.m10, self.m11, self.m12) = (m10, m11, m12)
    (self.m20, self.m21, self.m22) = (m20, m21, m22)
  }

  @inlinable @inline(__always) static func diagonal(_ d: Vector3) -> Matrix3 {
    Matrix3(d.x, 0, 0, 0, d.y, 0, 0, 0, d.z)
  }

  @inlinable static var identity: Matrix3 { diagonal(Vector3(1, 1, 1)) }

  /// The rotation matrix of a unit quaternion (sensor to world).
  @inlinable @inline(__always) init(rotation q: Quaternion) {
    let (w, x, y, z) = (q.w, q.x, q.y, q.z)
    self.init(
      1 - 2 * y * y - 2 * z * z, 2 * (y * x - w * z), 2 * (w * y + z * x),
      2 * (w * z + y * x), 1 - 2 * x * x - 2 * z * z, 2 * (y * z - x * w),
      2 * (z * x - w * y), 2 * (w * x + z * y), 1 - 2 * x * x - 2 * y * y)
  }

  @inlinable @inline(__always) var transposed: Matrix3 {
    Matrix3(m00, m10, m20, m01, m11, m21, m02, m12, m22)
  }

  /// Row `i` times `v`.
  @inlinable @inline(__always) func row(_ i: Int, _ v: Vector3) -> Double {
    switch i {
    case 0: return m00 * v.x + m01 * v.y + m02 * v.z
    case 1: return m10 * v.x + m11 * v.y + m12 * v.z
    default: return m20 * v.x + m21 * v.y + m22 * v.z
    }
  }

  @inlinable @inline(__always) static func * (m: Matrix3, v: Vector3) -> Vector3 {
    Vector3(m.row(0, v), m.row(1, v), m.row(2, v))
  }

  @inlinable @inline(__always) static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
    Matrix3(
      a.m00 * b.m00 + a.m01 * b.m10 + a.m02 * b.m20, a.m00 * b.m01 + a.m01 * b.m11 + a.m02 * b.m21,
      a.m00 * b.m02 + a.m01 * b.m12 + a.m02 * b.m22,
      a.m10 * b.m00 + a.m11 * b.m10 + a.m12 * b.m20, a.m10 * b.m01 + a.m11 * b.m11 + a.m12 * b.m21,
      a.m10 * b.m02 + a.m11 * b.m12 + a.m12 * b.m22,
      a.m20 * b.m00 + a.m21 * b.m10 + a.m22 * b.m20, a.m20 * b.m01 + a.m21 * b.m11 + a.m22 * b.m21,
      a.m20 * b.m02 + a.m21 * b.m12 + a.m22 * b.m22)
  }
}

/// A symmetric 3x3 matrix by its upper triangle: a covariance. Products that are symmetric in
/// exact arithmetic are formed as such, so the matrix stays symmetric in rounding too.
@usableFromInline struct SymmetricMatrix3: Sendable {
  @usableFromInline var m00, m01, m02, m11, m12, m22: Double

  @inlinable @inline(__always) init(
    _ m00: Double, _ m01: Double, _ m02: Double, _ m11: Double, _ m12: Double, _ m22: Double
  ) {
    (self.m00, self.m01, self.m02, self.m11, self.m12, self.m22) = (m00, m01, m02, m11, m12, m22)
  }

  @inlinable @inline(__always) static func diagonal(_ d: Vector3) -> SymmetricMatrix3 {
    SymmetricMatrix3(d.x, 0, 0, d.y, 0, d.z)
  }

  @inlinable @inline(__always) var full: Matrix3 {
    Matrix3(m00, m01, m02, m01, m11, m12, m02, m12, m22)
  }

  @inlinable @inline(__always) static func + (a: SymmetricMatrix3, b: SymmetricMatrix3) -> SymmetricMatrix3 {
    SymmetricMatrix3(a.m00 + b.m00, a.m01 + b.m01, a.m02 + b.m02, a.m11 + b.m11, a.m12 + b.m12, a.m22 + b.m22)
  }

  @inlinable @inline(__always) static func - (a: SymmetricMatrix3, b: SymmetricMatrix3) -> SymmetricMatrix3 {
    SymmetricMatrix3(a.m00 - b.m00, a.m01 - b.m01, a.m02 - b.m02, a.m11 - b.m11, a.m12 - b.m12, a.m22 - b.m22)
  }

  @inlinable @inline(__always) static func * (m: SymmetricMatrix3, v: Vector3) -> Vector3 {
    Vector3(
      m.m00 * v.x + m.m01 * v.y + m.m02 * v.z, m.m01 * v.x + m.m11 * v.y + m.m12 * v.z,
      m.m02 * v.x + m.m12 * v.y + m.m22 * v.z)
  }

  /// The inverse by the adjugate (for the positive definite matrices inverted here).
  @inlinable @inline(__always) var inverse: SymmetricMatrix3 {
    let c00 = m11 * m22 - m12 * m12
    let c01 = m12 * m02 - m01 * m22
    let c02 = m01 * m12 - m11 * m02
    let d = 1 / (m00 * c00 + m01 * c01 + m02 * c02)
    return SymmetricMatrix3(
      c00 * d, c01 * d, c02 * d, (m00 * m22 - m02 * m02) * d, (m02 * m01 - m00 * m12) * d,
      (m00 * m11 - m01 * m01) * d)
  }

  /// `a` times `b` transposed, for a product known to be symmetric (only its upper triangle is
  /// formed).
  @inlinable @inline(__always) static func symmetricProduct(_ a: Matrix3, _ b: Matrix3) -> SymmetricMatrix3 {
    SymmetricMatrix3(
      a.m00 * b.m00 + a.m01 * b.m01 + a.m02 * b.m02, a.m00 * b.m10 + a.m01 * b.m11 + a.m02 * b.m12,
      a.m00 * b.m20 + a.m01 * b.m21 + a.m02 * b.m22, a.m10 * b.m10 + a.m11 * b.m11 + a.m12 * b.m12,
      a.m10 * b.m20 + a.m11 * b.m21 + a.m12 * b.m22, a.m20 * b.m20 + a.m21 * b.m21 + a.m22 * b.m22)
  }
}

@inlinable @inline(__always) func cross(_ a: Vector3, _ b: Vector3) -> Vector3 {
  Vector3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inlinable @inline(__always) func dot(_ a: Vector3, _ b: Vector3) -> Double {
  a.x * b.x + a.y * b.y + a.z * b.z
}

@inlinable @inline(__always) func length(_ a: Vector3) -> Double { dot(a, a).squareRoot() }

/// The gain of a first-order low-pass with time constant `tau` at interval `dt`: 1 - exp(-dt/tau);
/// 0 disables (negative tau), 1 passes through (tau 0).
@inlinable @inline(__always) func gain(tau: Double, interval dt: Double) -> Double {
  if tau < 0 { return 0 }
  if tau == 0 { return 1 }
  return 1 - exp(-dt / tau)
}

/// cos(angle / 2) and sin(angle / 2). Gyroscope steps are small angles: below 0.2 rad the Taylor
/// series to the x^10 term (x = angle / 2 < 0.1, next term below 1e-18 relative, under half an ulp)
/// gives libm's values without its cost; larger angles call libm.
@inlinable @inline(__always) func halfAngleCosineAndSine(_ angle: Double) -> (Double, Double) {
  let x = angle / 2
  guard abs(x) < 0.1 else { return (cos(x), sin(x)) }
  let x2 = x * x
  let c =
    1 - x2 * 0.5
    * (1 - x2 * (1.0 / 12) * (1 - x2 * (1.0 / 30) * (1 - x2 * (1.0 / 56) * (1 - x2 * (1.0 / 90)))))
  let s =
    x
    * (1 - x2 * (1.0 / 6)
      * (1 - x2 * (1.0 / 20) * (1 - x2 * (1.0 / 42) * (1 - x2 * (1.0 / 72) * (1 - x2 * (1.0 / 110))))))
  return (c, s)
}

/// `v` with each component clipped to [-limit, limit].
@inlinable @inline(__always) func clip(_ v: Vector3, _ limit: Double) -> Vector3 {
  Vector3(min(max(v.x, -limit), limit), min(max(v.y, -limit), limit), min(max(v.z, -limit), limit))
}
