import AccelCore
import CAccelKernels

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
  /// The swing features' covariance's weight of a new grid sample.
  public var swingAxisWeight: Double { 1 - exp(-step / Self.swingAxisTauSeconds) }

  /// A counted half-swing's fewest and most grid samples: n samples last n `step`s (in double),
  /// at least 1 / (2 `swingMaxHz`) and at most 1 / (2 `swingMinHz`). Counts, so that the
  /// exported C decides as Swift does in either precision.
  public var swingSampleBounds: (shortest: Int, longest: Int) {
    let (low, high) = (0.5 / Self.swingMaxHz, 0.5 / Self.swingMinHz)
    var shortest = max(0, Int((low * rateHz).rounded(.down)) - 1)
    while Double(shortest) * step < low { shortest += 1 }
    var longest = Int((high * rateHz).rounded(.up)) + 1
    while Double(longest) * step > high { longest -= 1 }
    return (shortest, longest)
  }

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
///
/// With attitude features, per width the averages of the reading's direction and of gravity's
/// (each component m: m += a (v - m), a segment's first sample setting it to v; a direction
/// that is not finite, of a reading or gravity of size 1e-9 or less, leaves it as it is), and in
/// the row `FeatureSpec.attitudeFeatures`: min(1, vert's energy / norm's), max(0, 1 - |m|) of each.
/// With swing features, `SwingFeatureState` reads u's axes (the first three signals) as well.
struct ExponentialFeatures {
  /// Statistics per signal and width, before the bands.
  static let statistics = FeatureSpec.exponentialStatistics.count
  let signals: Int
  let widths: Int
  let bandCount: Int
  let rate: Double
  let attitude: Bool
  let shape: Bool
  /// With swing features, their state (nil without).
  private var swing: SwingFeatureState?
  /// The widths four at a time, one lane each, and the bands' filters likewise: every update
  /// below is the same arithmetic per lane as the exported C's per width or band (lanes past
  /// the last width have weight 0 and keep 1, past the last band a filter of zeros).
  private let chunks: Int
  private let bandChunks: Int
  /// The state in one array (one access per sample, nothing reference counted): per chunk the
  /// weights, then per chunk 1 minus them; per chunk the axes' covariances xy, xz, yz and their
  /// deviations from the mean (scratch); per band chunk the filters' b0, b1, b2, a1, a2 and their
  /// outputs' squares (scratch); per signal and band chunk the filters' two delays (transposed
  /// direct form II); per signal and chunk (signalsAt + (s * chunks + c) * block) the mean,
  /// variance, energy, envelope, crossing rate, last side (-1, 0, 1), maximum, minimum and the
  /// energy of the steps, then each band's power.
  private var lanes: [SIMD4<Double>]
  private let block: Int
  private var keepsAt: Int { layout.keeps_at }
  private var jointAt: Int { layout.joint_at }
  private var filtersAt: Int { layout.filters_at }
  private var delaysAt: Int { layout.delays_at }
  private var signalsAt: Int { layout.signals_at }
  /// With attitude features, per chunk the averages of the reading's direction (x, y, z) and of
  /// gravity's.
  private var attitudeAt: Int { layout.attitude_at }
  /// Where `update`'s values hold the reading's direction and then gravity's (after the signals'
  /// ten slots).
  static let directionsAt = 10
  /// Per signal its last value.
  private var previous: [Double]
  /// The sizes and the offsets above (set once in `init`), which the update's kernel reads too.
  private let layout: ak_exponential_layout

  init(spec: FeatureSpec) {
    signals = spec.signals.count
    widths = spec.widthsSeconds.count
    bandCount = spec.bands.count
    rate = spec.rateHz
    attitude = spec.attitude
    shape = spec.shape
    swing = spec.swing ? SwingFeatureState(spec: spec) : nil
    chunks = (widths + 3) / 4
    bandChunks = (bandCount + 3) / 4
    block = 9 + bandCount
    func vectors(_ values: [Double], _ count: Int) -> [SIMD4<Double>] {
      let padded = values + [Double](repeating: 0, count: 4 * count - values.count)
      return (0..<count).map { SIMD4(padded[4 * $0..<4 * $0 + 4]) }
    }
    let weights = vectors(spec.exponentialWeights, chunks)
    let filters = spec.bandFilters
    let coefficients = (0..<bandChunks).flatMap { c -> [SIMD4<Double>] in
      let chunk = Array(filters[(4 * c)..<min(4 * c + 4, filters.count)])
      return [\.b0, \.b1, \.b2, \.a1, \.a2].map { vectors(chunk.map($0), 1)[0] } + [.zero]
    }
    previous = [Double](repeating: 0, count: signals)
    let filtersAt = 8 * chunks
    let delaysAt = filtersAt + 6 * bandChunks
    let signalsAt = delaysAt + 2 * signals * bandChunks
    layout = ak_exponential_layout(
      signals: signals, chunks: chunks, bands: bandCount, band_chunks: bandChunks, block: block,
      keeps_at: chunks,
      joint_at: 2 * chunks, filters_at: filtersAt, delays_at: delaysAt, signals_at: signalsAt,
      attitude_at: signalsAt + signals * chunks * block, attitude: spec.attitude ? 1 : 0, rate: rate,
      hysteresis: FeatureExtractor.crossingHysteresis)
    lanes =
      weights + weights.map { 1 - $0 } + [SIMD4<Double>](repeating: .zero, count: 6 * chunks) + coefficients
      + [SIMD4<Double>](
        repeating: .zero,
        count: 2 * signals * bandChunks + signals * chunks * block + (attitude ? 6 * chunks : 0))
  }

  /// One grid sample's signals (and with attitude features, from `directionsAt`, the reading's
  /// direction and gravity's); `first` when it begins a segment. Past a segment's first sample
  /// the update is CAccelKernels' `ak_exponential_update`: the arithmetic above on this layout,
  /// four widths a vector, in AVX2 where the processor has it (the same bits either way).
  mutating func update(_ values: UnsafeBufferPointer<Double>, first: Bool) {
    swing?.update(ux: values[0], uy: values[1], uz: values[2], first: first)
    if first {
      start(values)
      return
    }
    let kernel = baseline ? ak_exponential_update_baseline : ak_exponential_update
    withUnsafePointer(to: layout) { layout in
      previous.withUnsafeMutableBufferPointer { previous in
        lanes.withUnsafeMutableBytes { lanes in
          kernel(
            lanes.baseAddress!.assumingMemoryBound(to: Double.self), previous.baseAddress!,
            values.baseAddress!,
            layout)
        }
      }
    }
  }

  /// The update's kernel compiled for the baseline whatever the processor (for the test that
  /// holds its builds to the same bits).
  var baseline = false

  /// A segment's first sample: the means at the values, the energies at their squares, the
  /// envelopes at their sizes, the rest at 0; the filters start from rest and read the value.
  private mutating func start(_ values: UnsafeBufferPointer<Double>) {
    let (chunks, block, bandChunks) = (self.chunks, self.block, self.bandChunks)
    let (joint, filters, delays, blocks) = (jointAt, filtersAt, delaysAt, signalsAt)
    for s in 0..<signals {
      let v = values[s]
      guard v.isFinite else { continue }
      let value = SIMD4(repeating: v)
      for c in 0..<chunks {
        let at = blocks + (s * chunks + c) * block
        for field in 0..<block { lanes[at + field] = .zero }
        lanes[at] = value
        lanes[at + 2] = value * value
        lanes[at + 3] = SIMD4(repeating: abs(v))
        lanes[at + 6] = value
        lanes[at + 7] = value
      }
      for c in 0..<bandChunks {
        let f = filters + 6 * c
        let z = delays + 2 * (s * bandChunks + c)
        let y = lanes[f] * value
        lanes[z] = lanes[f + 1] * value - lanes[f + 3] * y
        lanes[z + 1] = lanes[f + 2] * value - lanes[f + 4] * y
      }
      previous[s] = v
    }
    for k in joint..<joint + 6 * chunks { lanes[k] = .zero }
    guard attitude else { return }
    for j in 0..<6 {
      let v = values[Self.directionsAt + j]
      guard v.isFinite else { continue }
      for c in 0..<chunks { lanes[attitudeAt + 6 * c + j] = SIMD4(repeating: v) }
    }
  }

  /// The row: for each width, every signal's statistics and band shares (a band's power over the
  /// variance; 0 while the variance is at most 1e-12), both ratios computed as products with
  /// 1 / variance, as in the exported C; missing for the gyroscope's signals without
  /// one; then the joint features from the axes' variances and covariances, with attitude
  /// features those, and with shape features those from the signal's own fields in the row (missing
  /// for the gyroscope's signals without one), as in the exported C.
  func write(into row: inout [Double], hasGyroscope: Bool) {
    let (chunks, block, bands, widths) = (self.chunks, self.block, self.bandCount, self.widths)
    let (joint, blocks, directions, attitude) = (jointAt, signalsAt, attitudeAt, self.attitude)
    let count = Self.statistics
    let perSignal = count + bands
    let perWidth = row.count / widths
    let tiny = SIMD4<Double>(repeating: 1e-12)
    // Per signal and chunk the ratios, four widths a vector: the jerk ratio, then each band's share.
    withUnsafeTemporaryAllocation(of: SIMD4<Double>.self, capacity: 1 + bands) { ratios in
      let ratioScalars = UnsafeRawPointer(ratios.baseAddress!).assumingMemoryBound(to: Double.self)
      lanes.withUnsafeBufferPointer { lanes in
        // The lanes one double at a time: lane i of vector k is scalar 4 k + i.
        let scalars = UnsafeRawPointer(lanes.baseAddress!).assumingMemoryBound(to: Double.self)
        row.withUnsafeMutableBufferPointer { row in
          let out = row.baseAddress!
          for c in 0..<chunks {
            let first = 4 * c
            let present = min(4, widths - first)
            for s in 0..<signals {
              let base = first &* perWidth &+ s &* perSignal
              if s >= 6 && !hasGyroscope {
                for i in 0..<present {
                  (out + (base &+ i &* perWidth)).update(repeating: .nan, count: perSignal)
                }
                continue
              }
              let vector = blocks &+ (s &* chunks &+ c) &* block
              let v = lanes[vector + 1]
              let some = v .> tiny
              // One division per lane: the ratios multiply by the variance's reciprocal.
              let inverse = 1 / v
              ratios[0] = SIMD4<Double>.zero.replacing(
                with: (lanes[vector + 8] * inverse).squareRoot(), where: some)
              for b in 0..<bands {
                ratios[1 + b] = SIMD4<Double>.zero.replacing(
                  with: lanes[vector + 9 + b] * inverse, where: some)
              }
              // Each width's lane to its place in the row, a signal's fields side by side.
              for i in 0..<present {
                let o = out + (base &+ i &* perWidth)
                let lane = scalars + (4 &* vector &+ i)
                let ratio = ratioScalars + i
                o[0] = lane[0]
                o[1] = lane[4]
                o[2] = lane[8]
                o[3] = lane[12]
                o[4] = lane[24]
                o[5] = lane[28]
                o[6] = lane[16]
                o[7] = ratio[0]
                for b in 0..<bands { o[count &+ b] = ratio[4 &+ 4 &* b] }
              }
            }
            let step = chunks * block
            let variance = blocks + c * block + 1
            let j = joint + 6 * c
            // The four widths' joint features at once, lane by lane as the C's per width.
            let features = FeatureExtractor.jointFeatures(
              (
                lanes[variance], lanes[variance + step], lanes[variance + 2 * step], lanes[j], lanes[j + 1],
                lanes[j + 2]
              ))
            for i in 0..<present {
              let at = (first + i) * perWidth + signals * perSignal
              (row[at], row[at + 1], row[at + 2], row[at + 3], row[at + 4]) = (
                features.0[i], features.1[i], features.2[i], features.3[i], features.4[i]
              )
              let k = at + 5
              guard attitude else { continue }
              let (norm, vert) = (
                lanes[blocks + (3 * chunks + c) * block + 2][i],
                lanes[blocks + (4 * chunks + c) * block + 2][i]
              )
              row[k] = norm > 1e-12 ? min(1, vert / norm) : 0
              for j in 0..<2 {
                let m = directions + 6 * c + 3 * j
                let (x, y, z) = (lanes[m][i], lanes[m + 1][i], lanes[m + 2][i])
                row[k + 1 + j] = max(0, 1 - (x * x + y * y + z * z).squareRoot())
              }
            }
          }
        }
      }
    }
    let shapeAt = signals * perSignal + 5 + (attitude ? FeatureSpec.attitudeFeatures.count : 0)
    if shape {
      for w in 0..<widths {
        for s in 0..<signals {
          let field = w * perWidth + s * perSignal
          let at = w * perWidth + shapeAt + 2 * s
          (row[at], row[at + 1]) = Self.shapeFeatures(
            mean: row[field], energy: row[field + 2], envelope: row[field + 3], maximum: row[field + 4],
            minimum: row[field + 5])
        }
      }
    }
    guard let swing else { return }
    let swingAt = shapeAt + (shape ? FeatureSpec.shapeFeatures.count * signals : 0)
    for w in 0..<widths {
      let at = w * perWidth + swingAt
      (row[at], row[at + 1]) = swing.features(width: w)
    }
  }

  /// A signal's `FeatureSpec.shapeFeatures` from its mean, energy, envelope, maximum and minimum
  /// (missing where they are).
  static func shapeFeatures(mean: Double, energy: Double, envelope: Double, maximum: Double, minimum: Double)
    -> (crest: Double, asymmetry: Double)
  {
    guard !energy.isNaN else { return (.nan, .nan) }
    let range = maximum - minimum
    return (
      energy > 1e-12 ? envelope / energy.squareRoot() : 0,
      range > 1e-12 ? min(1, max(-1, (maximum + minimum - 2 * mean) / range)) : 0
    )
  }
}
