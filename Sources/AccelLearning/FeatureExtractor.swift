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
  public static let crossingHysteresis = 0.02

  private let signalCount: Int
  /// Whether the exponential features include the attitude features.
  private let attitude: Bool
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
  // The last `capacity` values of every signal, each written twice (at `head` and at
  // `head + capacity`, in a stretch of 2 * capacity per signal) so that a window is always one
  // contiguous run and never copied; and how many the current segment has.
  private var ring: [Double]
  /// In the ring's layout: a sample's value where it is a local maximum (above the one before,
  /// not below the one after), minus infinity elsewhere and while the one after is unknown.
  private var maxima: [Double]
  // For the signed signals, in the ring's layout: each sample's side of zero (-1, 0 within the
  // hysteresis, 1) and how many times the side has turned over so far (the window's zero
  // crossings are a difference of two counts), with the last nonzero side and the count.
  private var sides: [Int8]
  private var turns: [Int]
  private var lastSide: [Int]
  private var turnCount: [Int]
  private let signedIndices: [Int]
  private var head = 0
  private var filled = 0
  private var sinceRow = 0
  private var rowsInSegment = 0
  /// Grid samples before a segment's first row, and the span a row describes.
  private let firstRow: Int
  private let span: Int
  private var hasGyroscope = false
  // Scratch space.
  private var row: [Double]
  /// How many features a row holds.
  var rowLength: Int { row.count }
  private let transforms: [RealFFTPair]
  /// Each signal's tapered window (capacity values per signal), then two power spectra.
  private var tapers: [Double]
  private var powers: [Double]
  /// Where each signal's spectral features go in the row (-1: the signal is missing).
  private var spectralSlots: [Int]
  /// The Hann window of the last length used (windows of one width have one length but while a
  /// trace is younger than them).
  private var hann: [[Double]]
  private let signedSignals: [Bool]
  private let bandBins: [[ClosedRange<Int>?]]
  /// Exponential features' state (nil for windows, which keep the rings instead).
  private var exponential: ExponentialFeatures?

  public init(spec: FeatureSpec) throws {
    try spec.validate()
    self.spec = spec
    signalCount = spec.signals.count
    attitude = spec.attitude
    windowSamples = spec.windowSamples
    capacity = windowSamples.max()!
    firstRow = spec.firstRowSamples
    span = spec.spanSamples
    hop = spec.hopSamples
    step = spec.step
    alpha = spec.gravityAlpha
    let windowed = spec.kind == .windows
    exponential = windowed ? nil : ExponentialFeatures(spec: spec)
    // Exponential features keep no window: the rings are empty.
    let ringCount = windowed ? signalCount * 2 * capacity : 0
    ring = [Double](repeating: 0, count: ringCount)
    maxima = [Double](repeating: -.infinity, count: ringCount)
    sides = [Int8](repeating: 0, count: ringCount)
    turns = [Int](repeating: 0, count: ringCount)
    lastSide = [Int](repeating: 0, count: signalCount)
    turnCount = [Int](repeating: 0, count: signalCount)
    row = [Double](repeating: 0, count: spec.names.count)
    transforms = windowed ? windowSamples.map { RealFFTPair(size: FeatureSpec.transformSize($0)) } : []
    tapers = [Double](repeating: 0, count: windowed ? signalCount * capacity : 0)
    powers = [Double](repeating: 0, count: windowed ? 2 * (FeatureSpec.transformSize(capacity) / 2 + 1) : 0)
    spectralSlots = [Int](repeating: -1, count: signalCount)
    hann = windowSamples.map { _ in [] }
    let signed = spec.signals.map { FeatureSpec.signedSignals.contains($0) }
    signedSignals = signed
    signedIndices = signed.indices.filter { signed[$0] }
    bandBins = windowSamples.map { spec.bandBins(windowSamples: $0) }
  }

  /// The last `count` values of signal `s` on the grid, oldest first (at most the longest
  /// window and the current segment's length): what the last row was computed from while no
  /// grid sample has come since.
  func recent(signal s: Int, count n: Int) -> [Double] {
    precondition(exponential == nil && n <= filled, "exponential features keep no window")
    let first = s * 2 * capacity + head + capacity - n
    return Array(ring[first..<(first + n)])
  }

  /// How many grid samples the current segment has had, up to the longest window.
  var segmentSamples: Int { filled }

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
    if exponential != nil {
      let gyroNorm = (gx * gx + gy * gy + gz * gz).squareRoot()
      // The signals in ten slots, then the reading's direction and gravity's (attitude features).
      var directions = (Double.nan, Double.nan, Double.nan, Double.nan, Double.nan, Double.nan)
      if attitude {
        let size = (ax * ax + ay * ay + az * az).squareRoot()
        if size > 1e-9 { (directions.0, directions.1, directions.2) = (ax / size, ay / size, az / size) }
        if gn > 1e-9 { (directions.3, directions.4, directions.5) = (g2.0 / gn, g2.1 / gn, g2.2 / gn) }
      }
      let values = (ux, uy, uz, norm, vert, horiz, gx, gy, gz, gyroNorm, directions)
      withUnsafeBytes(of: values) { raw in
        exponential!.update(
          UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: Double.self), count: 16),
          first: filled == 0)
      }
      emitRowIfDue(t, body)
      return
    }
    let stride = 2 * capacity
    ring.withUnsafeMutableBufferPointer { ring in
      func put(_ s: Int, _ v: Double) {
        ring[s * stride + head] = v
        ring[s * stride + capacity + head] = v
      }
      put(0, ux)
      put(1, uy)
      put(2, uz)
      put(3, norm)
      put(4, vert)
      put(5, horiz)
      if signalCount > 6 {
        put(6, gx)
        put(7, gy)
        put(8, gz)
        put(9, (gx * gx + gy * gy + gz * gz).squareRoot())
      }
    }
    // The sample before this one is now known to be a local maximum or not.
    let previousKnown = filled >= 2
    let position = head
    maxima.withUnsafeMutableBufferPointer { maxima in
      ring.withUnsafeBufferPointer { ring in
        for s in 0..<signalCount {
          let at = s * stride + position + capacity
          maxima[at] = -.infinity
          maxima[at - capacity] = -.infinity
          guard previousKnown else { continue }
          let v = ring[at - 1]
          let peak = v > ring[at - 2] && v >= ring[at] ? v : -.infinity
          maxima[at - 1] = peak
          if position >= 1 { maxima[at - 1 - capacity] = peak } else { maxima[at - 1 + capacity] = peak }
        }
      }
    }
    let h = Self.crossingHysteresis
    for s in signedIndices {
      let at = s * stride + head
      let v = ring[at]
      let side = (v > h ? 1 : 0) - (v < -h ? 1 : 0)
      if side != 0 {
        if side == -lastSide[s] { turnCount[s] += 1 }
        lastSide[s] = side
      }
      sides[at] = Int8(side)
      sides[at + capacity] = Int8(side)
      turns[at] = turnCount[s]
      turns[at + capacity] = turnCount[s]
    }
    head = (head + 1) % capacity
    emitRowIfDue(t, body)
  }

  /// Counts the grid sample and computes and hands out a row when one is due.
  private mutating func emitRowIfDue(
    _ t: Double, _ body: (Double, Double, UnsafeBufferPointer<Double>) -> Void
  ) {
    filled = min(filled + 1, capacity)
    sinceRow += 1
    guard filled >= firstRow, rowsInSegment == 0 || sinceRow >= hop else { return }
    sinceRow = 0
    rowsInSegment += 1
    computeRow()
    let start = t - Double(span - 1) * step
    row.withUnsafeBufferPointer { body(start, t, $0) }
  }

  // MARK: The features of one row

  private mutating func computeRow() {
    if exponential != nil {
      exponential!.write(into: &row, hasGyroscope: hasGyroscope)  // in place: no copy of the state
      return
    }
    var k = 0
    for wi in windowSamples.indices {
      let n = min(windowSamples[wi], filled)
      if hann[wi].count != n {
        hann[wi] = (0..<n).map { j in n > 1 ? 0.5 - 0.5 * cos(2 * Double.pi * Double(j) / Double(n - 1)) : 1 }
      }
      // The last n values of every signal, oldest first: the newest sample is just before
      // `head + capacity` in each signal's doubled stretch.
      let first = head + capacity - n
      let axes: (Int, Int, Int)
      (k, axes) = statistics(n: n, first: first, width: wi, from: k)
      // The spectra, two signals to a transform.
      var pending = -1
      for s in 0..<signalCount where spectralSlots[s] >= 0 {
        if pending < 0 {
          pending = s
        } else {
          spectra(pending, s, n: n, width: wi)
          pending = -1
        }
      }
      if pending >= 0 { spectra(pending, nil, n: n, width: wi) }
      k = jointFeatures(offset: first, n: n, axes: axes, into: k)
    }
    precondition(k == row.count)
  }

  /// Every signal's statistics over its window of the last n samples (from `first` in the
  /// ring's stretches), into the row from `k`, leaving the tapered windows in `tapers` and where
  /// their spectral features go in `spectralSlots`. Returns the next index and where x's, y's and
  /// z's statistics begin (their means and variances serve the joint features).
  private mutating func statistics(n: Int, first: Int, width wi: Int, from k: Int) -> (
    Int, axes: (Int, Int, Int)
  ) {
    var k = k
    var axes = (0, 0, 0)
    let rate = spec.rateHz
    let capacity = self.capacity
    let perSignal = FeatureSpec.statistics.count
    let spectral = 2 + spec.bands.count
    for s in 0..<signalCount {
      let signed = signedSignals[s]
      if s >= 6 && !hasGyroscope {
        let count = perSignal + (signed ? 1 : 0) + spectral
        for j in 0..<count { row[k + j] = .nan }
        k += count
        spectralSlots[s] = -1
        continue
      }
      switch s {
      case 0: axes.0 = k
      case 1: axes.1 = k
      case 2: axes.2 = k
      default: break
      }
      let offset = s * 2 * capacity + first
      let zeroCrossings = signed ? zeroCrossings(offset, n) : 0
      k = ring.withUnsafeBufferPointer { ring in
        maxima.withUnsafeBufferPointer { maxima in
          row.withUnsafeMutableBufferPointer { row in
            tapers.withUnsafeMutableBufferPointer { tapers in
              hann[wi].withUnsafeBufferPointer { hann in
                Self.statistics(
                  UnsafeBufferPointer(start: ring.baseAddress! + offset, count: n),
                  maxima: maxima.baseAddress! + offset, signed: signed, zeroCrossings: zeroCrossings,
                  rate: rate,
                  hann: hann, taper: tapers.baseAddress! + s * capacity, row: row, at: k)
              }
            }
          }
        }
      }
      spectralSlots[s] = k
      k += spectral
    }
    return (k, axes)
  }

  /// How often `x[0..<n]` crosses `level` with hysteresis: a sample's side is -1 below
  /// level - h, 1 above level + h, and 0 between (h = `crossingHysteresis`); the current side is
  /// the last nonzero one, and a crossing is the current side turning into its opposite.
  ///
  /// Computed 64 samples at a time on bit masks, without a branch or a chain through every
  /// sample: P marks the samples above, M those below. The current side is "above" (F) from each
  /// P through the samples that are not M, a fill done by an addition's carries
  /// (F = (Z & ~(Z + P)) | P with Z = ~M); a crossing is a change of F at a marked sample after
  /// the window's first marked sample.
  static func crossings(_ x: UnsafePointer<Double>, n: Int, level: Double) -> Int {
    let h = crossingHysteresis
    let weights = SIMD4<Int64>(1, 2, 4, 8)
    var count = 0
    var carry: UInt64 = 0
    var previousF: UInt64 = 0
    var seen = false
    var start = 0
    while start < n {
      let end = min(n, start + 64)
      var above: UInt64 = 0
      var below: UInt64 = 0
      var j = start
      while j + 4 <= end {
        let d = load4(x + j) - level
        // A comparison's lanes are -1 where true: with the weights, four bits.
        let up = (unsafeBitCast(d .> h, to: SIMD4<Int64>.self) & weights).wrappedSum()
        let down = (unsafeBitCast(d .< -h, to: SIMD4<Int64>.self) & weights).wrappedSum()
        above |= UInt64(truncatingIfNeeded: up) << UInt64(j - start)
        below |= UInt64(truncatingIfNeeded: down) << UInt64(j - start)
        j += 4
      }
      while j < end {
        let d = x[j] - level
        above |= (d > h ? 1 : 0) << UInt64(j - start)
        below |= (d < -h ? 1 : 0) << UInt64(j - start)
        j += 1
      }
      let z = ~below
      let (partial, o1) = z.addingReportingOverflow(above)
      let (sum, o2) = partial.addingReportingOverflow(carry)
      carry = o1 || o2 ? 1 : 0
      let f = (z & ~sum) | above
      let changes = f ^ ((f << 1) | previousF)
      let marked = above | below
      // Samples after the window's first marked one.
      let after: UInt64
      if seen {
        after = ~0
      } else {
        let lowest = marked & (0 &- marked)
        after = lowest == 0 ? 0 : ~((lowest << 1) &- 1)
      }
      count += (changes & marked & after).nonzeroBitCount
      previousF = f >> 63
      seen = seen || marked != 0
      start = end
    }
    return count
  }

  /// The zero crossings in the window of n samples from `offset`: the turns after its first
  /// sample off zero (before that, the window knows no side to turn from).
  private func zeroCrossings(_ offset: Int, _ n: Int) -> Int {
    let last = offset + n - 1
    guard turns[last] != turns[offset] else { return 0 }
    var first = offset
    while sides[first] == 0 { first += 1 }
    return turns[last] - turns[first]
  }

  /// The spectral features of signals `a` and `b` (if any), from their tapered windows.
  private mutating func spectra(_ a: Int, _ b: Int?, n: Int, width wi: Int) {
    let transform = transforms[wi]
    let bins = transform.binCount
    let resolution = spec.rateHz / Double(transform.size)
    let bands = bandBins[wi]
    let capacity = self.capacity
    let slots = (spectralSlots[a], b.map { spectralSlots[$0] })
    tapers.withUnsafeBufferPointer { tapers in
      powers.withUnsafeMutableBufferPointer { powers in
        row.withUnsafeMutableBufferPointer { row in
          transform.powers(
            tapers.baseAddress! + a * capacity, b.map { tapers.baseAddress! + $0 * capacity }, count: n,
            into: powers.baseAddress!)
          Self.spectralFeatures(
            powers.baseAddress!, bins: bins, resolution: resolution, bands: bands, row: row, at: slots.0,
            slots.1)
          // A constant window has no spectrum: what a transform shared with another signal leaves
          // in it is that signal's rounding (larger in float than in double).
          for (signal, slot) in [(a, slots.0), (b, slots.1)] {
            guard let signal, let slot else { continue }
            let variance = row[slot - FeatureSpec.statistics.count + 1 - (signedSignals[signal] ? 1 : 0)]
            if !(variance > 1e-12) { for j in 0..<(2 + bands.count) { row[slot + j] = 0 } }
          }
        }
      }
    }
  }

  /// One signal's statistics over the window `x`, written into `row` from `k`, and the window
  /// mean-removed and tapered into `taper`; returns the next index.
  private static func statistics(
    _ x: UnsafeBufferPointer<Double>, maxima: UnsafePointer<Double>, signed: Bool, zeroCrossings: Int,
    rate: Double, hann: UnsafeBufferPointer<Double>,
    taper: UnsafeMutablePointer<Double>, row: UnsafeMutableBufferPointer<Double>, at k: Int
  ) -> Int {
    var k = k
    let n = x.count
    let seconds = Double(n) / rate
    let base = x.baseAddress!
    // Sums run in four interleaved lanes (lane i takes j = i mod 4; the lanes are added as
    // (0 + 1) + (2 + 3) at the end): a fixed order, so the same window always gives the same
    // value, with a quarter of the additions waiting on each other that one running sum has.
    var sums = SIMD4<Double>()
    var squareSums = SIMD4<Double>()
    var lows = SIMD4<Double>(repeating: .infinity)
    var highs = SIMD4<Double>(repeating: -.infinity)
    let whole = n & ~3
    for j in stride(from: 0, to: whole, by: 4) {
      let v = load4(base + j)
      sums += v
      squareSums += v * v
      lows = lows.replacing(with: v, where: v .< lows)
      highs = highs.replacing(with: v, where: v .> highs)
    }
    for j in whole..<n {
      let v = base[j]
      sums[j - whole] += v
      squareSums[j - whole] += v * v
      lows[j - whole] = min(lows[j - whole], v)
      highs[j - whole] = max(highs[j - whole], v)
    }
    let low = -laneMax(-lows)
    let high = laneMax(highs)
    let sum = laneTotal(sums)
    let squares = laneTotal(squareSums)
    let mean = sum / Double(n)
    // The central moments and the taper, in lanes likewise.
    var m2s = SIMD4<Double>()
    var m3s = SIMD4<Double>()
    for j in stride(from: 0, to: whole, by: 4) {
      let d = load4(base + j) - mean
      store4(load4(hann.baseAddress! + j) * d, taper + j)
      let d2 = d * d
      m2s += d2
      m3s += d2 * d
    }
    for j in whole..<n {
      let d = base[j] - mean
      taper[j] = hann[j] * d
      m2s[j - whole] += d * d
      m3s[j - whole] += d * d * d
    }
    let m2 = laneTotal(m2s)
    let m3 = laneTotal(m3s)
    let meanCrossings = crossings(base, n: n, level: mean)
    let variance = m2 / Double(n)
    let sd = variance.squareRoot()
    let skewness = variance > 1e-12 ? (m3 / Double(n)) / (variance * sd) : 0
    // A window whose standard deviation is under 1e-6 (far below any sensor's resolution) is
    // constant: what is left of it after the mean is rounding, which float and double round
    // differently; it has no spectrum and no peaks.
    let constant = !(variance > 1e-12)
    if constant { taper.update(repeating: 0, count: n) }
    // Peaks: local maxima above mean + sd / 2, the window's ends excluded.
    var peaks = 0
    if n >= 3 && !constant {
      let floor = mean + 0.5 * sd
      var counts = SIMD4<Int64>()
      var j = 1
      while j + 4 <= n - 1 {
        counts &-= unsafeBitCast(load4(maxima + j) .> floor, to: SIMD4<Int64>.self)
        j += 4
      }
      peaks = Int(counts.wrappedSum())
      while j < n - 1 {
        peaks &+= maxima[j] > floor ? 1 : 0
        j += 1
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
    return k
  }

  /// The dominant frequency, its share and the bands' shares of two interleaved power spectra
  /// (of Hann-tapered, mean-removed windows, zero-padded; see `RealFFTPair`), into `row` from
  /// `k` and from `l` (if any).
  private static func spectralFeatures(
    _ powers: UnsafeMutablePointer<Double>, bins: Int, resolution: Double, bands: [ClosedRange<Int>?],
    row: UnsafeMutableBufferPointer<Double>, at k: Int, _ l: Int?
  ) {
    // DC aside (zeroed), the totals and the first bin holding the largest power, in lanes of
    // (a[j], b[j], a[j + 1], b[j + 1]): each lane keeps its largest and where it first was, then
    // the lanes compare (a running "larger than the best so far" branches unpredictably).
    powers[0] = 0
    powers[1] = 0
    var totals = SIMD4<Double>()
    var highs = SIMD4<Double>(repeating: -1)
    var at = SIMD4<Int64>()
    var index = SIMD4<Int64>(0, 0, 1, 1)
    let wholeBins = bins & ~1
    for bin in stride(from: 0, to: wholeBins, by: 2) {
      let v = load4(powers + 2 * bin)
      totals += v
      let larger = v .> highs
      highs.replace(with: v, where: larger)
      at.replace(with: index, where: larger)
      index &+= 2
    }
    var total = (totals[0] + totals[2], totals[1] + totals[3])
    func first(_ i: Int, _ j: Int) -> (Double, Int) {
      if highs[i] != highs[j] { return highs[i] > highs[j] ? (highs[i], Int(at[i])) : (highs[j], Int(at[j])) }
      return (highs[i], Int(min(at[i], at[j])))
    }
    var best = (first(0, 2), first(1, 3))
    if wholeBins < bins {
      let last = wholeBins
      total.0 += powers[2 * last]
      total.1 += powers[2 * last + 1]
      if powers[2 * last] > best.0.0 { best.0 = (powers[2 * last], last) }
      if powers[2 * last + 1] > best.1.0 { best.1 = (powers[2 * last + 1], last) }
    }
    // The bands: sums over bins lo...hi of both spectra, two bins at a time.
    func bandSums(_ range: ClosedRange<Int>) -> (Double, Double) {
      var sums = SIMD4<Double>()
      var bin = range.lowerBound
      while bin < range.upperBound {
        sums += load4(powers + 2 * bin)
        bin += 2
      }
      if bin == range.upperBound {
        sums[0] += powers[2 * bin]
        sums[1] += powers[2 * bin + 1]
      }
      return (sums[0] + sums[2], sums[1] + sums[3])
    }
    func write(_ k: Int, total: Double, best: (Double, Int)) {
      guard total > 1e-18 else {
        for j in 0..<(2 + bands.count) { row[k + j] = 0 }
        return
      }
      row[k] = Double(best.1) * resolution
      row[k + 1] = best.0 / total
    }
    write(k, total: total.0, best: best.0)
    if let l { write(l, total: total.1, best: best.1) }
    for (b, range) in bands.enumerated() {
      let sums = range.map(bandSums) ?? (0, 0)
      if total.0 > 1e-18 { row[k + 2 + b] = sums.0 / total.0 }
      if let l, total.1 > 1e-18 { row[l + 2 + b] = sums.1 / total.1 }
    }
  }

  /// Correlations between the device axes of u, and how much of u lies along one axis.
  private mutating func jointFeatures(offset: Int, n: Int, axes slots: (Int, Int, Int), into k: Int) -> Int {
    let stride = 2 * capacity
    return ring.withUnsafeBufferPointer { ring in
      row.withUnsafeMutableBufferPointer { row in
        let base = ring.baseAddress! + offset
        // The axes' means and variances are their statistics' own.
        let mean = (row[slots.0], row[slots.1], row[slots.2])
        let variance = (row[slots.0 + 1], row[slots.1 + 1], row[slots.2 + 1])
        return Self.jointFeatures(
          x: base, y: base + stride, z: base + 2 * stride, n: n, mean: mean, variance: variance, row: row,
          at: k)
      }
    }
  }

  private static func jointFeatures(
    x: UnsafePointer<Double>, y: UnsafePointer<Double>, z: UnsafePointer<Double>, n: Int,
    mean: (Double, Double, Double), variance: (Double, Double, Double),
    row: UnsafeMutableBufferPointer<Double>,
    at k: Int
  ) -> Int {
    let count = Double(n)
    let whole = n & ~3
    var xy = SIMD4<Double>()
    var xz = SIMD4<Double>()
    var yz = SIMD4<Double>()
    for j in stride(from: 0, to: whole, by: 4) {
      let dx = load4(x + j) - mean.0
      let dy = load4(y + j) - mean.1
      let dz = load4(z + j) - mean.2
      xy += dx * dy
      xz += dx * dz
      yz += dy * dz
    }
    for j in whole..<n {
      let dx = x[j] - mean.0
      let dy = y[j] - mean.1
      let dz = z[j] - mean.2
      xy[j - whole] += dx * dy
      xz[j - whole] += dx * dz
      yz[j - whole] += dy * dz
    }
    let c = (
      variance.0, variance.1, variance.2, laneTotal(xy) / count, laneTotal(xz) / count, laneTotal(yz) / count
    )
    return writeJoint(covariance: c, row: row, at: k)
  }

  /// The correlations between the axes, the linearity and the principal direction's size from
  /// the covariance (xx, yy, zz, xy, xz, yz), written into `row` from `k`; returns the next index.
  static func writeJoint(
    covariance c: (Double, Double, Double, Double, Double, Double), row: UnsafeMutableBufferPointer<Double>,
    at k: Int
  ) -> Int {
    let joint = jointFeatures(
      (
        SIMD4(repeating: c.0), SIMD4(repeating: c.1), SIMD4(repeating: c.2), SIMD4(repeating: c.3),
        SIMD4(repeating: c.4), SIMD4(repeating: c.5)
      ))
    (row[k], row[k + 1], row[k + 2], row[k + 3], row[k + 4]) = (
      joint.0[0], joint.1[0], joint.2[0], joint.3[0], joint.4[0]
    )
    return k + 5
  }

  /// The joint features of four covariances (xx, yy, zz, xy, xz, yz), one per lane: the
  /// correlations xy, xz and yz (0 unless both variances exceed 1e-12, else within [-1, 1]), the
  /// linearity (the largest eigenvalue over the trace, at most 1; a third while the trace is at
  /// most 1e-12) and the principal direction's size (the root of the largest eigenvalue, at
  /// least 0). Each lane's arithmetic is the exported C's `ak_detector_write_joint`.
  @inline(__always)
  static func jointFeatures(
    _ c: (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)
  ) -> (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>) {
    let tiny = SIMD4<Double>(repeating: 1e-12)
    @inline(__always)
    func correlation(_ cov: SIMD4<Double>, _ a: SIMD4<Double>, _ b: SIMD4<Double>) -> SIMD4<Double> {
      let r = SIMD4<Double>.zero.replacing(with: clamp(cov / (a * b).squareRoot()), where: a .> tiny)
      return SIMD4<Double>.zero.replacing(with: r, where: b .> tiny)
    }
    let largest = largestEigenvalues(c)
    let trace = c.0 + c.1 + c.2
    let linearity = SIMD4<Double>(repeating: 1.0 / 3).replacing(
      with: upTo1(largest / trace), where: trace .> tiny)
    return (
      correlation(c.3, c.0, c.1), correlation(c.4, c.0, c.2), correlation(c.5, c.1, c.2), linearity,
      SIMD4<Double>.zero.replacing(with: largest, where: largest .>= 0).squareRoot()
    )
  }

  /// Swift's min(1, v) lane by lane (v < 1 ? v : 1), as the C's AK_DETECTOR_MIN.
  @inline(__always)
  static func upTo1(_ v: SIMD4<Double>) -> SIMD4<Double> {
    SIMD4<Double>(repeating: 1).replacing(with: v, where: v .< 1)
  }

  /// Swift's max(-1, min(1, v)) lane by lane.
  @inline(__always)
  static func clamp(_ v: SIMD4<Double>) -> SIMD4<Double> {
    let m = upTo1(v)
    return m.replacing(with: -1, where: m .<= -1)
  }

  /// The largest eigenvalue of a symmetric 3x3 matrix (xx, yy, zz, xy, xz, yz).
  static func largestEigenvalue(_ c: (Double, Double, Double, Double, Double, Double)) -> Double {
    largestEigenvalues(
      (
        SIMD4(repeating: c.0), SIMD4(repeating: c.1), SIMD4(repeating: c.2), SIMD4(repeating: c.3),
        SIMD4(repeating: c.4), SIMD4(repeating: c.5)
      ))[0]
  }

  /// The largest eigenvalue of four symmetric 3x3 matrices (xx, yy, zz, xy, xz, yz), one per
  /// lane, by the trigonometric solution of the characteristic polynomial without a
  /// trigonometric function: with q the trace over 3, p the deviation's size and r the
  /// determinant of (A - q I) / p over 2 (within [-1, 1]), the eigenvalue is q + 2 p c where
  /// c = cos(acos(r) / 3), the largest root of 4 c^3 - 3 c = r. Writing c = 1/2 + s y with
  /// s = sqrt(1 + r), y is the positive root of 4 s y^3 + 6 y^2 - 1, a simple root in
  /// [0.353, 0.409] whatever r (where c's own equation has a double root at r = -1); two Halley
  /// steps from 0.40224 - 0.035484 s find it to within a unit in the last place (docs/LEARNING.md).
  /// A diagonal matrix (off-diagonal squares summing under 1e-300) gives its largest entry.
  @inline(__always)
  static func largestEigenvalues(
    _ c: (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)
  ) -> SIMD4<Double> {
    let p1 = c.3 * c.3 + c.4 * c.4 + c.5 * c.5
    let q = (c.0 + c.1 + c.2) / 3
    let p2 = (c.0 - q) * (c.0 - q) + (c.1 - q) * (c.1 - q) + (c.2 - q) * (c.2 - q) + 2 * p1
    let p = (p2 / 6).squareRoot()
    let inverse = 1 / p
    let b = (
      (c.0 - q) * inverse, (c.1 - q) * inverse, (c.2 - q) * inverse, c.3 * inverse, c.4 * inverse,
      c.5 * inverse
    )
    let det =
      b.0 * (b.1 * b.2 - b.5 * b.5) - b.3 * (b.3 * b.2 - b.5 * b.4) + b.4 * (b.3 * b.5 - b.1 * b.4)
    let r = clamp(det / 2)
    let s = (1 + r).squareRoot()
    var y = 0.40224 - 0.035484 * s
    for _ in 0..<2 {
      let y2 = y * y
      let k = 4 * s * y2 * y + 6 * y2 - 1
      let k1 = 12 * s * y2 + 12 * y
      let k2 = 24 * s * y + 12
      y = y - 2 * k * k1 / (2 * k1 * k1 - k * k2)
    }
    var largest = q + 2 * p * (0.5 + s * y)
    largest.replace(with: q, where: .!(p .> 0))
    // max(max(xx, yy), zz), Swift's max (v >= m ? v : m).
    var diagonal = c.0
    diagonal.replace(with: c.1, where: c.1 .>= diagonal)
    diagonal.replace(with: c.2, where: c.2 .>= diagonal)
    largest.replace(with: diagonal, where: p1 .< 1e-300)
    return largest
  }

  @inline(__always)
  static func load4(_ p: UnsafePointer<Double>) -> SIMD4<Double> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Double>.self)
  }

  @inline(__always)
  static func store4(_ v: SIMD4<Double>, _ p: UnsafeMutablePointer<Double>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Double>.self)
  }

  /// The largest of four lanes (none NaN).
  @inline(__always)
  static func laneMax(_ v: SIMD4<Double>) -> Double {
    let a = v[0] > v[1] ? v[0] : v[1]
    let b = v[2] > v[3] ? v[2] : v[3]
    return a > b ? a : b
  }

  /// Four lanes' sums added in the fixed order (0 + 1) + (2 + 3).
  @inline(__always)
  static func laneTotal(_ v: SIMD4<Double>) -> Double { (v[0] + v[1]) + (v[2] + v[3]) }
}
