/// The state of the swing features (`FeatureSpec.swingFeatures`): u's covariance and principal
/// axis, the half-swing in progress, and per width the averages of the counted half-swings.
/// Every grid sample updates it in constant time, in this order (the exported C's too):
///
/// 1. The covariance c += b (u u' - c), b = 1 - exp(-step / `swingAxisTauSeconds`). The axis v
///    starts again from the device axis of the largest variance when that is more than twice
///    v' c v; then two steps of power iteration (v = c v / |c v|, skipped while |c v| is at most
///    1e-12); v keeps the sign of the last axis. s = u . v.
/// 2. When s is nonzero and its sign differs from the last one's, the sample is the last zero
///    crossing (the first sign only sets the sign).
/// 3. The direction (1 past `swingHysteresisG`, -1 below minus it, else 0) turning from the
///    half-swing's: a half-swing in progress ends at the last zero crossing, and counts when its
///    peak reached `swingG` and it lasted between 1 / (2 `swingMaxHz`) and 1 / (2 `swingMinHz`);
///    the next begins at that crossing with a peak of 0.
/// 4. In a half-swing, the peak is the largest |s|; one lasting longer than 1 / (2 `swingMinHz`)
///    is dropped (no half-swing is in progress until the direction turns again).
/// 5. Each width's weight a: rate += a (r - rate), with r the grid's rate when a half-swing
///    counted at this sample, else 0; up += a (p - up) with p the counted peak when it went up,
///    else 0; down likewise.
///
/// A segment's first sample starts everything at 0 (the axis at x, no sign, no half-swing) and
/// is then read as any other. Times are counted in grid samples from the segment's start, and
/// durations compared as counts (`FeatureSpec.swingSampleBounds`).
struct SwingFeatureState {
  private let weights: [Double]
  private let rate: Double
  private let bounds: (shortest: Int, longest: Int)
  private let axisWeight: Double
  private var cov = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  // xx, yy, zz, xy, xz, yz
  private var axis = (1.0, 0.0, 0.0)
  private var lastSign = 0
  private var direction = 0
  private var sample = 0
  private var lastZero = 0
  private var halfStart = 0
  private var halfPeak = 0.0
  /// Per width the rate and the two directions' peaks (up, then down).
  private var rates: [Double]
  private var ups: [Double]
  private var downs: [Double]

  init(spec: FeatureSpec) {
    weights = spec.exponentialWeights
    rate = spec.rateHz
    bounds = spec.swingSampleBounds
    axisWeight = spec.swingAxisWeight
    rates = [Double](repeating: 0, count: weights.count)
    ups = rates
    downs = rates
  }

  /// One grid sample's user acceleration; `first` when it begins a segment.
  mutating func update(ux: Double, uy: Double, uz: Double, first: Bool) {
    if first {
      cov = (0, 0, 0, 0, 0, 0)
      axis = (1, 0, 0)
      (lastSign, direction, sample, lastZero, halfStart, halfPeak) = (0, 0, 0, 0, 0, 0)
      for i in weights.indices { (rates[i], ups[i], downs[i]) = (0, 0, 0) }
    }
    let b = axisWeight
    cov.0 += b * (ux * ux - cov.0)
    cov.1 += b * (uy * uy - cov.1)
    cov.2 += b * (uz * uz - cov.2)
    cov.3 += b * (ux * uy - cov.3)
    cov.4 += b * (ux * uz - cov.4)
    cov.5 += b * (uy * uz - cov.5)
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
    let s = ux * v.0 + uy * v.1 + uz * v.2
    let sign = s > 0 ? 1 : s < 0 ? -1 : 0
    if sign != 0 && sign != lastSign {
      if lastSign != 0 { lastZero = sample }
      lastSign = sign
    }
    let h = FeatureSpec.swingHysteresisG
    let now = s > h ? 1 : s < -h ? -1 : 0
    var counted = 0
    var peak = 0.0
    if now != 0 && now != direction {
      let duration = lastZero - halfStart
      if direction != 0 && halfPeak >= FeatureSpec.swingG && duration >= bounds.shortest
        && duration <= bounds.longest
      {
        (counted, peak) = (direction, halfPeak)
      }
      (direction, halfStart, halfPeak) = (now, lastZero, 0)
    }
    if direction != 0 {
      halfPeak = max(halfPeak, abs(s))
      if sample - halfStart > bounds.longest { direction = 0 }
    }
    let (r, up, down) = (counted != 0 ? rate : 0, counted > 0 ? peak : 0, counted < 0 ? peak : 0)
    for i in weights.indices {
      let a = weights[i]
      rates[i] += a * (r - rates[i])
      ups[i] += a * (up - ups[i])
      downs[i] += a * (down - downs[i])
    }
    sample += 1
  }

  /// Width `i`'s features: the rate, and the balance of the two directions' peaks.
  func features(width i: Int) -> (rate: Double, balance: Double) {
    let larger = max(ups[i], downs[i])
    return (rates[i], larger > 1e-12 ? min(ups[i], downs[i]) / larger : 0)
  }
}
