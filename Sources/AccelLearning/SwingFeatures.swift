import AccelCore

/// The state of the swing features (`FeatureSpec.swingFeatures`): u's covariance and principal
/// axis, the half-swing in progress, and per width the averages of the counted half-swings.
/// Every grid sample updates it in constant time, in this order (the exported C's too):
///
/// 1. u's principal axis v (`PrincipalAxis`, the swing rule's, with the covariance's weight
///    b = 1 - exp(-step / `swingAxisTauSeconds`)); s = u . v.
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
  private var principal = PrincipalAxis()
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
      principal = PrincipalAxis()
      (lastSign, direction, sample, lastZero, halfStart, halfPeak) = (0, 0, 0, 0, 0, 0)
      for i in weights.indices { (rates[i], ups[i], downs[i]) = (0, 0, 0) }
    }
    let v = principal.update((ux, uy, uz), weight: axisWeight)
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
