import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension FeatureSpec {
  /// The statistics of every signal and width in exponential features (docs/LEARNING.md), before
  /// the bands' shares.
  public static let exponentialStatistics = [
    "mean", "variance", "energy", "envelope", "maximum", "minimum", "crossing_rate", "jerk_ratio",
  ]

  /// Each exponential width's weight of a new grid sample: a time constant of half the width.
  public var exponentialWeights: [Double] { widthsSeconds.map { 1 - exp(-step / ($0 / 2)) } }

  /// A second-order filter y = (b0 x + b1 x' + b2 x'') - a1 y' - a2 y'' (a0 = 1).
  public struct Biquad: Equatable, Sendable {
    public var b0, b1, b2, a1, a2: Double
  }

  /// Each band's filter on the grid, by the bilinear transform with its edges prewarped (so that
  /// the gain is half the power at both edges exactly): a Butterworth low-pass for a band from 0
  /// Hz, a second-order band-pass B s / (s^2 + B s + W^2) otherwise, with W^2 the product of the
  /// warped edges and B their difference.
  public var bandFilters: [Biquad] {
    bands.map { band in
      let high = tan(Double.pi * band.high / rateHz)
      if band.low == 0 {
        let w2 = high * high
        let root2 = 2.0.squareRoot()
        let a0 = 1 + root2 * high + w2
        return Biquad(
          b0: w2 / a0, b1: 2 * w2 / a0, b2: w2 / a0, a1: 2 * (w2 - 1) / a0, a2: (1 - root2 * high + w2) / a0)
      }
      let low = tan(Double.pi * band.low / rateHz)
      let w2 = low * high
      let width = high - low
      let a0 = 1 + width + w2
      return Biquad(b0: width / a0, b1: 0, b2: -width / a0, a1: 2 * (w2 - 1) / a0, a2: (1 - width + w2) / a0)
    }
  }
}

/// The state of exponential features: per signal and width a mean, a variance, an energy, an
/// envelope, a crossing rate and the bands' powers, per signal each band's filter, and per width
/// the axes' covariances. Every grid sample updates it in constant time; a row only reads it.
///
/// For a value v and a width's weight a (keep = 1 - a), in this order: d = v - mean;
/// mean += a d; variance = keep (variance + a d d); energy += a (v v - energy);
/// envelope = max(|v|, keep envelope); maximum = max(v, keep maximum); minimum likewise;
/// jerk += a (s s - jerk) with s the step from the signal's last value; the side of v - mean (1 above the hysteresis, -1 below
/// minus it, else 0) turning to the opposite of the last nonzero side is a crossing c (1, else 0):
/// crossing_rate += a (c rate - crossing_rate); each band's filter output y: power += a (y y - power).
/// Covariances: cxy = keep (cxy + a dx dy). A segment's first sample sets the mean, maximum and
/// minimum to v, the energy to v v, the envelope to |v| and everything else to 0 (the filters
/// then read it). The row's jerk_ratio is sqrt(jerk / variance): 2 sin(pi f / rate) for a sine
/// of f Hz, a frequency without a spectrum. A
/// value that is not finite (a missing gyroscope) leaves its signal's state as it is.
struct ExponentialFeatures {
  /// Statistics per signal and width, before the bands.
  static let statistics = FeatureSpec.exponentialStatistics.count
  let signals: Int
  let widths: Int
  let bandCount: Int
  let weights: [Double]
  let keeps: [Double]
  let rate: Double
  /// Each band's b0, b1, b2, a1, a2 in turn.
  let filters: [Double]
  /// The state in one run (offsets below): per signal and width (index s * widths + i) the mean,
  /// variance, energy, envelope, crossing rate, last side (-1, 0, 1), maximum, minimum and the
  /// energy of the steps; per signal, width and band ((s * widths + i) * bands + b) the band's
  /// power; per signal and band the filter's two delays (transposed direct form II); per width the
  /// axes' covariances xy, xz, yz and their deviations from the mean (scratch); per signal its
  /// last value.
  private var state: [Double]
  private let perWidth: Int
  private let meanAt = 0
  private var varianceAt: Int { perWidth }
  private var energyAt: Int { 2 * perWidth }
  private var envelopeAt: Int { 3 * perWidth }
  private var crossingAt: Int { 4 * perWidth }
  private var sideAt: Int { 5 * perWidth }
  private var maximumAt: Int { 6 * perWidth }
  private var minimumAt: Int { 7 * perWidth }
  private var jerkAt: Int { 8 * perWidth }
  private var powerAt: Int { 9 * perWidth }
  private var delayAt: Int { powerAt + perWidth * bandCount }
  private var covarianceAt: Int { delayAt + 2 * signals * bandCount }
  private var deviationAt: Int { covarianceAt + 3 * widths }
  private var previousAt: Int { deviationAt + 3 * widths }

  init(spec: FeatureSpec) {
    signals = spec.signals.count
    widths = spec.widthsSeconds.count
    bandCount = spec.bands.count
    weights = spec.exponentialWeights
    keeps = weights.map { 1 - $0 }
    rate = spec.rateHz
    filters = spec.bandFilters.flatMap { [$0.b0, $0.b1, $0.b2, $0.a1, $0.a2] }
    perWidth = signals * widths
    state = []  // the offsets read the stored properties: set them all first
    state = [Double](repeating: 0, count: previousAt + signals)
  }

  /// One grid sample's signals; `first` when it begins a segment.
  mutating func update(_ values: UnsafeBufferPointer<Double>, first: Bool) {
    if first {
      start(values)
      return
    }
    let h = FeatureExtractor.crossingHysteresis
    let (signals, widths, bands, rate) = (self.signals, self.widths, self.bandCount, self.rate)
    let (mean, variance, energy, envelope, crossing, sides) = (
      meanAt, varianceAt, energyAt, envelopeAt, crossingAt, sideAt
    )
    let (power, delay, covariance, deviation) = (powerAt, delayAt, covarianceAt, deviationAt)
    let (maximum, minimum, jerk, previous) = (maximumAt, minimumAt, jerkAt, previousAt)
    weights.withUnsafeBufferPointer { weights in
      keeps.withUnsafeBufferPointer { keeps in
        filters.withUnsafeBufferPointer { filters in
          state.withUnsafeMutableBufferPointer { x in
            for s in 0..<signals {
              let v = values[s]
              guard v.isFinite else { continue }
              let square = v * v
              let magnitude = abs(v)
              let change = v - x[previous + s]
              let changeSquare = change * change
              x[previous + s] = v
              for i in 0..<widths {
                let at = s * widths + i
                let a = weights[i]
                let keep = keeps[i]
                let d = v - x[mean + at]
                x[mean + at] += a * d
                x[variance + at] = keep * (x[variance + at] + a * d * d)
                x[energy + at] += a * (square - x[energy + at])
                x[envelope + at] = max(magnitude, keep * x[envelope + at])
                x[maximum + at] = max(v, keep * x[maximum + at])
                x[minimum + at] = min(v, keep * x[minimum + at])
                x[jerk + at] += a * (changeSquare - x[jerk + at])
                // A crossing: the side of v - mean turns to the opposite of the last nonzero one.
                let e = v - x[mean + at]
                let side: Double = e > h ? 1 : e < -h ? -1 : 0
                let last = x[sides + at]
                let crossed = side * last < 0 ? rate : 0
                x[sides + at] = side != 0 ? side : last
                x[crossing + at] += a * (crossed - x[crossing + at])
                if s < 3 { x[deviation + 3 * i + s] = d }
              }
              // The bands: each filter once, its output's power at every width.
              for b in 0..<bands {
                let k = delay + 2 * (s * bands + b)
                let f = 5 * b
                let y = filters[f] * v + x[k]
                x[k] = filters[f + 1] * v - filters[f + 3] * y + x[k + 1]
                x[k + 1] = filters[f + 2] * v - filters[f + 4] * y
                let y2 = y * y
                for i in 0..<widths {
                  let at = power + (s * widths + i) * bands + b
                  x[at] += weights[i] * (y2 - x[at])
                }
              }
            }
            for i in 0..<widths {
              let c = covariance + 3 * i
              let a = weights[i]
              let keep = keeps[i]
              let (dx, dy, dz) = (x[deviation + 3 * i], x[deviation + 3 * i + 1], x[deviation + 3 * i + 2])
              x[c] = keep * (x[c] + a * dx * dy)
              x[c + 1] = keep * (x[c + 1] + a * dx * dz)
              x[c + 2] = keep * (x[c + 2] + a * dy * dz)
            }
          }
        }
      }
    }
  }

  /// A segment's first sample: the means at the values, the energies at their squares, the
  /// envelopes at their sizes, the rest at 0; the filters start from rest and read the value.
  private mutating func start(_ values: UnsafeBufferPointer<Double>) {
    let (widths, bands) = (self.widths, self.bandCount)
    let perWidth = self.perWidth
    let (mean, energy, envelope, power, delay) = (meanAt, energyAt, envelopeAt, powerAt, delayAt)
    let (maximum, minimum, previous) = (maximumAt, minimumAt, previousAt)
    let (filters, signals) = (self.filters, self.signals)
    let (zeroFrom, zeroTo) = (covarianceAt, previousAt)
    state.withUnsafeMutableBufferPointer { x in
      for s in 0..<signals {
        let v = values[s]
        guard v.isFinite else { continue }
        for i in 0..<widths {
          let at = s * widths + i
          for field in 0..<9 { x[field * perWidth + at] = 0 }
          x[mean + at] = v
          x[energy + at] = v * v
          x[envelope + at] = abs(v)
          x[maximum + at] = v
          x[minimum + at] = v
          for b in 0..<bands { x[power + at * bands + b] = 0 }
        }
        for b in 0..<bands {
          let k = delay + 2 * (s * bands + b)
          let f = 5 * b
          let y = filters[f] * v
          x[k] = filters[f + 1] * v - filters[f + 3] * y
          x[k + 1] = filters[f + 2] * v - filters[f + 4] * y
        }
        x[previous + s] = v
      }
      for k in zeroFrom..<zeroTo { x[k] = 0 }
    }
  }

  /// The row: for each width, every signal's statistics and band shares (a band's power over the
  /// variance; 0 while the variance is at most 1e-12), missing for the gyroscope's signals without
  /// one; then the joint features from the axes' variances and covariances.
  func write(into row: UnsafeMutableBufferPointer<Double>, hasGyroscope: Bool) {
    let (widths, bands) = (self.widths, self.bandCount)
    let (mean, variance, energy, envelope, crossing) = (meanAt, varianceAt, energyAt, envelopeAt, crossingAt)
    let (power, covariance) = (powerAt, covarianceAt)
    let (maximum, minimum, jerk) = (maximumAt, minimumAt, jerkAt)
    let count = Self.statistics
    state.withUnsafeBufferPointer { x in
      var k = 0
      for i in 0..<widths {
        for s in 0..<signals {
          let at = s * widths + i
          if s >= 6 && !hasGyroscope {
            for j in 0..<(count + bands) { row[k + j] = .nan }
            k += count + bands
            continue
          }
          let v = x[variance + at]
          row[k] = x[mean + at]
          row[k + 1] = v
          row[k + 2] = x[energy + at]
          row[k + 3] = x[envelope + at]
          row[k + 4] = x[maximum + at]
          row[k + 5] = x[minimum + at]
          row[k + 6] = x[crossing + at]
          row[k + 7] = v > 1e-12 ? (x[jerk + at] / v).squareRoot() : 0
          k += count
          for b in 0..<bands {
            row[k] = v > 1e-12 ? x[power + at * bands + b] / v : 0
            k += 1
          }
        }
        let c = covariance + 3 * i
        let joint = (
          x[variance + i], x[variance + widths + i], x[variance + 2 * widths + i], x[c], x[c + 1], x[c + 2]
        )
        k = FeatureExtractor.writeJoint(covariance: joint, row: row, at: k)
      }
    }
  }
}
