/// The principal axis of a three-axis signal, followed sample by sample: the swing rule's swing
/// axis and the swing features' (one description for both).
///
/// Each sample updates the exponentially weighted covariance c += b (u u' - c). The axis v
/// starts again from the device axis of the largest variance when that is more than twice
/// v' c v (power iteration cannot leave a vector orthogonal to the new principal axis: exact data
/// at rest, then motion along another axis); then two steps of power iteration v = c v / |c v|
/// (stopped while |c v| is at most 1e-12); v keeps the sign of the last axis, so that u's
/// projection on it does not flip with it.
public struct PrincipalAxis: Sendable {
  /// The covariance: xx, yy, zz, xy, xz, yz.
  public var covariance = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
  /// The axis, a unit vector (x to begin with).
  public var axis = (1.0, 0.0, 0.0)

  public init() {}

  /// Reads one sample u with the covariance's weight b; returns the new axis.
  @inlinable
  public mutating func update(_ u: (Double, Double, Double), weight b: Double) -> (Double, Double, Double) {
    var cov = covariance
    cov.0 += b * (u.0 * u.0 - cov.0)
    cov.1 += b * (u.1 * u.1 - cov.1)
    cov.2 += b * (u.2 * u.2 - cov.2)
    cov.3 += b * (u.0 * u.1 - cov.3)
    cov.4 += b * (u.0 * u.2 - cov.4)
    cov.5 += b * (u.1 * u.2 - cov.5)
    covariance = cov
    var v = axis
    let along =
      v.0 * (cov.0 * v.0 + cov.3 * v.1 + cov.4 * v.2) + v.1 * (cov.3 * v.0 + cov.1 * v.1 + cov.5 * v.2)
      + v.2 * (cov.4 * v.0 + cov.5 * v.1 + cov.2 * v.2)
    let largest = max(cov.0, cov.1, cov.2)
    if largest > 2 * along { v = cov.0 == largest ? (1, 0, 0) : cov.1 == largest ? (0, 1, 0) : (0, 0, 1) }
    for _ in 0..<2 {
      let w = (
        cov.0 * v.0 + cov.3 * v.1 + cov.4 * v.2, cov.3 * v.0 + cov.1 * v.1 + cov.5 * v.2,
        cov.4 * v.0 + cov.5 * v.1 + cov.2 * v.2
      )
      let n = (w.0 * w.0 + w.1 * w.1 + w.2 * w.2).squareRoot()
      guard n > 1e-12 else { break }
      v = (w.0 / n, w.1 / n, w.2 / n)
    }
    if v.0 * axis.0 + v.1 * axis.1 + v.2 * axis.2 < 0 { v = (-v.0, -v.1, -v.2) }
    axis = v
    return v
  }
}
