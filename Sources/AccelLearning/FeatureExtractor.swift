import AccelCore
import AccelSpectral

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Computes a `FeatureSpec`'s rows from a trace, block by block, in constant memory: processing
/// in chunks gives the same rows as processing in one go.
///
/// The trace is interpolated onto the spec's grid as it arrives; an interval longer than
/// `maximumGapSeconds` between two samples starts the grid and the windows afresh at the later
/// sample (no window spans a gap it would have to invent), gravity's estimate carrying on.
public struct FeatureExtractor {
  public let spec: FeatureSpec
  /// The longest interval that is interpolated across.
  public static let maximumGapSeconds = 1.0
  /// Crossings count only once the signal has moved this far past the level (g, or rad/s).
  static let crossingHysteresis = 0.02

  private let signalCount: Int
  private let capacity: Int
  private let windowSamples: [Int]
  private let hop: Int
  private let step: Double
  // The grid: origin, next index, and the previous reading.
  private var origin: Double?
  private var nextIndex = 0
  private var previous = Reading(t: 0, x: 0, y: 0, z: 0, gx: 0, gy: 0, gz: 0)

  /// One sample: time, acceleration and rotation rate (NaN without a gyroscope).
  struct Reading {
    var t, x, y, z, gx, gy, gz: Double
  }
  // Gravity: two cascaded one-pole low-passes.
  private var g1 = (0.0, 0.0, 0.0)
  private var g2 = (0.0, 0.0, 0.0)
  private var gravityStarted = false
  private let alpha: Double
  // The last `capacity` values of every signal, and how many the current segment has.
  private var ring: [Double]
  private var head = 0
  private var filled = 0
  private var sinceRow = 0
  private var rowsInSegment = 0
  private let shortest: Int
  private var hasGyroscope = false
  // Scratch space.
  private var window: [Double]
  private var row: [Double]
  private let transforms: [RealFFT]
  private var power: [Double]
  private var taper: [Double]
  /// The Hann window of the last length used (windows of one width have one length but while a
  /// trace is younger than them).
  private var hann: [[Double]]
  private let signedSignals: [Bool]
  private let bandBins: [[ClosedRange<Int>?]]

  public init(spec: FeatureSpec) throws {
    try spec.validate()
    self.spec = spec
    signalCount = spec.signals.count
    windowSamples = spec.windowSamples
    capacity = windowSamples.max()!
    shortest = windowSamples.min()!
    hop = spec.hopSamples
    step = 1 / spec.rateHz
    alpha = 1 - exp(-step / spec.gravityTauSeconds)
    ring = [Double](repeating: 0, count: signalCount * capacity)
    window = [Double](repeating: 0, count: signalCount * capacity)
    row = [Double](repeating: 0, count: spec.names.count)
    transforms = windowSamples.map { RealFFT(size: Self.transformSize($0)) }
    power = [Double](repeating: 0, count: Self.transformSize(capacity) / 2 + 1)
    taper = [Double](repeating: 0, count: Self.transformSize(capacity))
    hann = windowSamples.map { _ in [] }
    signedSignals = spec.signals.map { FeatureSpec.signedSignals.contains($0) }
    // Each band's bins, low <= f < high, for each width's transform.
    bandBins = windowSamples.map { n in
      let size = Self.transformSize(n)
      let resolution = spec.rateHz / Double(size)
      return spec.bands.map { band in
        let bins = (1..<(size / 2 + 1)).filter {
          let f = Double($0) * resolution
          return f >= band.low && f < band.high
        }
        return bins.isEmpty ? nil : bins.first!...bins.last!
      }
    }
  }

  /// A window of n samples is zero-padded to the next power of two (at least 2n, for a finer
  /// frequency grid).
  static func transformSize(_ n: Int) -> Int {
    var size = 1
    while size < 2 * n { size <<= 1 }
    return size
  }

  /// Feeds a block; calls `body` with each completed row: its start and end (seconds, the
  /// trace's time base) and the features in `names`' order.
  public mutating func process(
    _ block: SampleBlock,
    _ body: (_ start: Double, _ end: Double, _ values: UnsafeBufferPointer<Double>) -> Void
  ) {
    let gyro = block.gyroscope
    if gyro != nil { hasGyroscope = true }
    let nan = Double.nan
    for i in 0..<block.count {
      let reading = Reading(
        t: block.t[i], x: block.x[i], y: block.y[i], z: block.z[i], gx: gyro?.x[i] ?? nan,
        gy: gyro?.y[i] ?? nan,
        gz: gyro?.z[i] ?? nan)
      add(reading, body)
    }
  }

  private mutating func add(
    _ r: Reading, _ body: (Double, Double, UnsafeBufferPointer<Double>) -> Void
  ) {
    let t = r.t
    guard t.isFinite, r.x.isFinite, r.y.isFinite, r.z.isFinite else { return }
    guard let start = origin, t - previous.t <= Self.maximumGapSeconds else {
      restart(at: r, body)
      return
    }
    let p = previous
    guard t > p.t else { return }  // the readers refuse such times; never a grid point
    // Grid points in (before, t].
    while true {
      let g = start + Double(nextIndex) * step
      if g > t { break }
      if g > p.t {
        if g == t {
          gridPoint(g, r.x, r.y, r.z, r.gx, r.gy, r.gz, body)
        } else {
          let w = (g - p.t) / (t - p.t)
          gridPoint(
            g, p.x + w * (r.x - p.x), p.y + w * (r.y - p.y), p.z + w * (r.z - p.z), p.gx + w * (r.gx - p.gx),
            p.gy + w * (r.gy - p.gy), p.gz + w * (r.gz - p.gz), body)
        }
      }
      nextIndex += 1
    }
    previous = r
  }

  private mutating func restart(at r: Reading, _ body: (Double, Double, UnsafeBufferPointer<Double>) -> Void)
  {
    origin = r.t
    previous = r
    nextIndex = 1
    filled = 0
    sinceRow = 0
    rowsInSegment = 0
    gridPoint(r.t, r.x, r.y, r.z, r.gx, r.gy, r.gz, body)
  }

  /// One sample on the grid: gravity, the signals into the ring, and a row when one is due.
  private mutating func gridPoint(
    _ t: Double, _ ax: Double, _ ay: Double, _ az: Double, _ gx: Double, _ gy: Double, _ gz: Double,
    _ body: (Double, Double, UnsafeBufferPointer<Double>) -> Void
  ) {
    if !gravityStarted {
      g1 = (ax, ay, az)
      g2 = g1
      gravityStarted = true
    } else {
      g1.0 += alpha * (ax - g1.0)
      g1.1 += alpha * (ay - g1.1)
      g1.2 += alpha * (az - g1.2)
      g2.0 += alpha * (g1.0 - g2.0)
      g2.1 += alpha * (g1.1 - g2.1)
      g2.2 += alpha * (g1.2 - g2.2)
    }
    let (ux, uy, uz) = (ax - g2.0, ay - g2.1, az - g2.2)
    let gn = (g2.0 * g2.0 + g2.1 * g2.1 + g2.2 * g2.2).squareRoot()
    let norm = (ux * ux + uy * uy + uz * uz).squareRoot()
    var vert = 0.0
    var horiz = norm
    if gn > 1e-9 {
      vert = (ux * g2.0 + uy * g2.1 + uz * g2.2) / gn
      horiz = max(0, norm * norm - vert * vert).squareRoot()
    }
    ring[head] = ux
    ring[capacity + head] = uy
    ring[2 * capacity + head] = uz
    ring[3 * capacity + head] = norm
    ring[4 * capacity + head] = vert
    ring[5 * capacity + head] = horiz
    if signalCount > 6 {
      ring[6 * capacity + head] = gx
      ring[7 * capacity + head] = gy
      ring[8 * capacity + head] = gz
      ring[9 * capacity + head] = (gx * gx + gy * gy + gz * gz).squareRoot()
    }
    head = (head + 1) % capacity
    filled = min(filled + 1, capacity)
    sinceRow += 1
    guard filled >= shortest, rowsInSegment == 0 || sinceRow >= hop else { return }
    sinceRow = 0
    rowsInSegment += 1
    computeRow()
    let start = t - Double(shortest - 1) * step
    row.withUnsafeBufferPointer { body(start, t, $0) }
  }

  // MARK: The features of one row

  private mutating func computeRow() {
    var k = 0
    for (wi, full) in windowSamples.enumerated() {
      let n = min(full, filled)
      // The last n values of every signal, oldest first.
      // The ring holds the newest sample before `head`: the window is [head - n, head), in at most
      // two pieces.
      let first = (head - n + capacity) % capacity
      let split = min(n, capacity - first)
      let capacity = self.capacity
      ring.withUnsafeBufferPointer { ring in
        window.withUnsafeMutableBufferPointer { window in
          for s in 0..<signalCount {
            let from = ring.baseAddress! + s * capacity
            let to = window.baseAddress! + s * capacity
            to.update(from: from + first, count: split)
            if split < n { (to + split).update(from: from, count: n - split) }
          }
        }
      }
      for s in 0..<signalCount {
        let missing = s >= 6 && !hasGyroscope
        k = signalFeatures(
          signal: s, offset: s * capacity, n: n, width: wi, transform: transforms[wi], into: k,
          missing: missing)
      }
      k = jointFeatures(n: n, into: k)
    }
    precondition(k == row.count)
  }

  private mutating func signalFeatures(
    signal s: Int, offset: Int, n: Int, width wi: Int, transform: RealFFT, into k: Int, missing: Bool
  ) -> Int {
    let signed = signedSignals[s]
    let count = FeatureSpec.statistics.count + (signed ? 1 : 0) + 2 + spec.bands.count
    if missing {
      for j in 0..<count { row[k + j] = .nan }
      return k + count
    }
    if hann[wi].count != n {
      hann[wi] = (0..<n).map { j in n > 1 ? 0.5 - 0.5 * cos(2 * Double.pi * Double(j) / Double(n - 1)) : 1 }
    }
    let rate = spec.rateHz
    let bands = bandBins[wi]
    return window.withUnsafeBufferPointer { all in
      let x = UnsafeBufferPointer(rebasing: all[offset..<(offset + n)])
      return row.withUnsafeMutableBufferPointer { row in
        taper.withUnsafeMutableBufferPointer { taper in
          power.withUnsafeMutableBufferPointer { power in
            hann[wi].withUnsafeBufferPointer { hann in
              Self.features(
                x, signed: signed, rate: rate, hann: hann, transform: transform, bands: bands, taper: taper,
                power: power, row: row, at: k)
            }
          }
        }
      }
    }
  }

  /// One signal's features over the window `x`, written into `row` from `k`; returns the next
  /// index.
  private static func features(
    _ x: UnsafeBufferPointer<Double>, signed: Bool, rate: Double, hann: UnsafeBufferPointer<Double>,
    transform: RealFFT, bands: [ClosedRange<Int>?], taper: UnsafeMutableBufferPointer<Double>,
    power: UnsafeMutableBufferPointer<Double>, row: UnsafeMutableBufferPointer<Double>, at k: Int
  ) -> Int {
    var k = k
    let n = x.count
    let seconds = Double(n) / rate
    var sum = 0.0
    var squares = 0.0
    var low = Double.infinity
    var high = -Double.infinity
    for v in x {
      sum += v
      squares += v * v
      low = min(low, v)
      high = max(high, v)
    }
    let mean = sum / Double(n)
    // One pass for the moments, the crossings of the mean and of zero, and the taper; the peaks
    // need the deviation, a second.
    var m2 = 0.0
    var m3 = 0.0
    let h = crossingHysteresis
    var meanSide = 0
    var meanCrossings = 0
    var zeroSide = 0
    var zeroCrossings = 0
    for j in 0..<n {
      let v = x[j]
      let d = v - mean
      m2 += d * d
      m3 += d * d * d
      let m = d > h ? 1 : (d < -h ? -1 : 0)
      if m != 0 {
        if meanSide != 0, m != meanSide { meanCrossings += 1 }
        meanSide = m
      }
      let z = v > h ? 1 : (v < -h ? -1 : 0)
      if z != 0 {
        if zeroSide != 0, z != zeroSide { zeroCrossings += 1 }
        zeroSide = z
      }
      taper[j] = hann[j] * d
    }
    let variance = m2 / Double(n)
    let sd = variance.squareRoot()
    let skewness = variance > 1e-12 ? (m3 / Double(n)) / (variance * sd) : 0
    var peaks = 0
    if n >= 3 {
      let floor = mean + 0.5 * sd
      for j in 1..<(n - 1) {
        let v = x[j]
        if v > floor, v > x[j - 1], v >= x[j + 1] { peaks += 1 }
      }
    }
    row[k] = mean
    row[k + 1] = variance
    row[k + 2] = low
    row[k + 3] = high
    row[k + 4] = high - low
    row[k + 5] = squares / Double(n)
    row[k + 6] = Double(meanCrossings) / seconds
    row[k + 7] = Double(peaks) / seconds
    row[k + 8] = skewness
    k += 9
    if signed {
      row[k] = Double(zeroCrossings) / seconds
      k += 1
    }
    // The spectrum of the Hann-tapered, mean-removed window, zero-padded.
    let size = transform.size
    for j in n..<size { taper[j] = 0 }
    transform.power(UnsafeBufferPointer(rebasing: taper[0..<size]), into: power)
    let bins = size / 2 + 1
    power[0] = 0
    var total = 0.0
    for bin in 0..<bins { total += power[bin] }
    let resolution = rate / Double(size)
    if total > 1e-18 {
      var best = 1
      for bin in 1..<bins where power[bin] > power[best] { best = bin }
      row[k] = Double(best) * resolution
      row[k + 1] = power[best] / total
      for (b, range) in bands.enumerated() {
        var share = 0.0
        if let range { for bin in range { share += power[bin] } }
        row[k + 2 + b] = share / total
      }
    } else {
      for j in 0..<(2 + bands.count) { row[k + j] = 0 }
    }
    return k + 2 + bands.count
  }

  /// Correlations between the device axes of u, and how much of u lies along one axis.
  private mutating func jointFeatures(n: Int, into k: Int) -> Int {
    var mean = (0.0, 0.0, 0.0)
    for j in 0..<n {
      mean.0 += window[j]
      mean.1 += window[capacity + j]
      mean.2 += window[2 * capacity + j]
    }
    let count = Double(n)
    mean = (mean.0 / count, mean.1 / count, mean.2 / count)
    var c = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)  // xx, yy, zz, xy, xz, yz
    for j in 0..<n {
      let dx = window[j] - mean.0
      let dy = window[capacity + j] - mean.1
      let dz = window[2 * capacity + j] - mean.2
      c.0 += dx * dx
      c.1 += dy * dy
      c.2 += dz * dz
      c.3 += dx * dy
      c.4 += dx * dz
      c.5 += dy * dz
    }
    c = (c.0 / count, c.1 / count, c.2 / count, c.3 / count, c.4 / count, c.5 / count)
    func correlation(_ cov: Double, _ a: Double, _ b: Double) -> Double {
      a > 1e-12 && b > 1e-12 ? max(-1, min(1, cov / (a * b).squareRoot())) : 0
    }
    row[k] = correlation(c.3, c.0, c.1)
    row[k + 1] = correlation(c.4, c.0, c.2)
    row[k + 2] = correlation(c.5, c.1, c.2)
    let largest = Self.largestEigenvalue(c)
    let trace = c.0 + c.1 + c.2
    row[k + 3] = trace > 1e-12 ? min(1, largest / trace) : 1.0 / 3
    row[k + 4] = max(0, largest).squareRoot()
    return k + 5
  }

  /// The largest eigenvalue of a symmetric 3x3 matrix (xx, yy, zz, xy, xz, yz), by the
  /// trigonometric solution of its characteristic polynomial.
  static func largestEigenvalue(_ c: (Double, Double, Double, Double, Double, Double)) -> Double {
    let p1 = c.3 * c.3 + c.4 * c.4 + c.5 * c.5
    let q = (c.0 + c.1 + c.2) / 3
    if p1 < 1e-300 { return max(c.0, c.1, c.2) }
    let p2 = (c.0 - q) * (c.0 - q) + (c.1 - q) * (c.1 - q) + (c.2 - q) * (c.2 - q) + 2 * p1
    let p = (p2 / 6).squareRoot()
    guard p > 0 else { return q }
    let b = ((c.0 - q) / p, (c.1 - q) / p, (c.2 - q) / p, c.3 / p, c.4 / p, c.5 / p)
    let det =
      b.0 * (b.1 * b.2 - b.5 * b.5) - b.3 * (b.3 * b.2 - b.5 * b.4) + b.4 * (b.3 * b.5 - b.1 * b.4)
    let r = max(-1, min(1, det / 2))
    return q + 2 * p * cos(acos(r) / 3)
  }
}
