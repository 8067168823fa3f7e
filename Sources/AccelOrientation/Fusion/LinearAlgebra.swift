#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A 3x3 matrix of Doubles, by rows: the small linear algebra of the attitude filters.
@usableFromInline struct Matrix3: Sendable {
  @usableFromInline var r0, r1, r2: Vector3

  @inlinable init(_ r0: Vector3, _ r1: Vector3, _ r2: Vector3) { (self.r0, self.r1, self.r2) = (r0, r1, r2) }

  @inlinable static func diagonal(_ d: Vector3) -> Matrix3 {
    Matrix3(Vector3(d.x, 0, 0), Vector3(0, d.y, 0), Vector3(0, 0, d.z))
  }

  @inlinable static var identity: Matrix3 { diagonal(Vector3(1, 1, 1)) }

  /// The rotation matrix of a unit quaternion (sensor to world).
  @inlinable init(rotation q: Quaternion) {
    let (w, x, y, z) = (q.w, q.x, q.y, q.z)
    self.init(
      Vector3(1 - 2 * y * y - 2 * z * z, 2 * (y * x - w * z), 2 * (w * y + z * x)),
      Vector3(2 * (w * z + y * x), 1 - 2 * x * x - 2 * z * z, 2 * (y * z - x * w)),
      Vector3(2 * (z * x - w * y), 2 * (w * x + z * y), 1 - 2 * x * x - 2 * y * y))
  }

  @inlinable var transposed: Matrix3 {
    Matrix3(Vector3(r0.x, r1.x, r2.x), Vector3(r0.y, r1.y, r2.y), Vector3(r0.z, r1.z, r2.z))
  }

  @inlinable static func * (m: Matrix3, v: Vector3) -> Vector3 {
    Vector3((m.r0 * v).sum(), (m.r1 * v).sum(), (m.r2 * v).sum())
  }

  @inlinable static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
    Matrix3(
      b.r0 * a.r0.x + b.r1 * a.r0.y + b.r2 * a.r0.z,
      b.r0 * a.r1.x + b.r1 * a.r1.y + b.r2 * a.r1.z,
      b.r0 * a.r2.x + b.r1 * a.r2.y + b.r2 * a.r2.z)
  }

  @inlinable static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
    Matrix3(a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2)
  }
  @inlinable static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
    Matrix3(a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2)
  }

  /// The inverse by the adjugate (the matrices inverted here are symmetric positive definite).
  @inlinable var inverse: Matrix3 {
    let c0 = cross(r1, r2)
    let c1 = cross(r2, r0)
    let c2 = cross(r0, r1)
    let det = (r0 * c0).sum()
    return Matrix3(c0 / det, c1 / det, c2 / det).transposed
  }
}

@inlinable func cross(_ a: Vector3, _ b: Vector3) -> Vector3 {
  Vector3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inlinable func dot(_ a: Vector3, _ b: Vector3) -> Double { (a * b).sum() }

@inlinable func length(_ a: Vector3) -> Double { (a * a).sum().squareRoot() }

/// The gain of a first-order low-pass with time constant `tau` at interval `dt`: 1 - exp(-dt/tau);
/// 0 disables (negative tau), 1 passes through (tau 0).
@inlinable func gain(tau: Double, interval dt: Double) -> Double {
  if tau < 0 { return 0 }
  if tau == 0 { return 1 }
  return 1 - exp(-dt / tau)
}
