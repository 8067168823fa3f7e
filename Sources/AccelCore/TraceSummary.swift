/// Streaming statistics of a trace, for `accelkit info`: timing (rate, jitter, gaps, timestamps that
/// do not increase) and per-axis values. Memory is bounded whatever the length of the trace.
public struct TraceSummary: Sendable {
  public struct AxisStats: Sendable, Equatable {
    public var min = Double.infinity
    public var max = -Double.infinity
    /// Samples equal to `min` / `max` (a sensor at its rail repeats its extreme value).
    public var countAtMin = 0
    public var countAtMax = 0
    public var mean = 0.0
    var m2 = 0.0
    public var count = 0

    /// Population standard deviation.
    public var std: Double { count > 0 ? (m2 / Double(count)).squareRoot() : .nan }

    mutating func add(_ values: [Double]) {
      guard !values.isEmpty else { return }
      var bMin = Double.infinity
      var bMax = -Double.infinity
      var sum = 0.0
      for v in values {
        bMin = Swift.min(bMin, v)
        bMax = Swift.max(bMax, v)
        sum += v
      }
      let n = Double(values.count)
      let bMean = sum / n
      var bM2 = 0.0
      for v in values {
        let d = v - bMean
        bM2 += d * d
      }
      var atMin = 0
      var atMax = 0
      for v in values {
        if v == bMin { atMin += 1 }
        if v == bMax { atMax += 1 }
      }
      if bMin < min {
        min = bMin
        countAtMin = atMin
      } else if bMin == min {
        countAtMin += atMin
      }
      if bMax > max {
        max = bMax
        countAtMax = atMax
      } else if bMax == max {
        countAtMax += atMax
      }
      // Chan et al.'s pairwise update of mean and sum of squared deviations.
      let total = Double(count) + n
      let delta = bMean - mean
      mean += delta * n / total
      m2 += bM2 + delta * delta * Double(count) * n / total
      count += values.count
    }
  }

  /// A long interval between two samples.
  public struct Gap: Sendable, Equatable {
    /// Time of the sample before the gap, in seconds.
    public var start: Double
    /// Length of the interval, in seconds.
    public var interval: Double
  }

  /// Statistics of one sensor group: each axis and the norm (finite samples only).
  public struct GroupStats: Sendable, Equatable {
    public var x = AxisStats()
    public var y = AxisStats()
    public var z = AxisStats()
    public var magnitude = AxisStats()
    /// Samples of this group with a NaN or infinite value.
    public var nonFinite = 0

    public init() {}

    /// The three axes with their names.
    public var axes: [(name: String, stats: AxisStats)] { [("x", x), ("y", y), ("z", z)] }

    mutating func add(_ a: [Double], _ b: [Double], _ c: [Double]) {
      var norms: [Double] = []
      norms.reserveCapacity(a.count)
      var bad = 0
      for i in 0..<a.count {
        let m = (a[i] * a[i] + b[i] * b[i] + c[i] * c[i]).squareRoot()
        if m.isFinite { norms.append(m) } else { bad += 1 }
      }
      if bad == 0 {
        x.add(a)
        y.add(b)
        z.add(c)
      } else {
        x.add(a.filter(\.isFinite))
        y.add(b.filter(\.isFinite))
        z.add(c.filter(\.isFinite))
      }
      nonFinite += bad
      magnitude.add(norms)
    }
  }

  public private(set) var rows = 0
  public private(set) var firstTime: Double?
  public private(set) var lastTime: Double?
  /// The accelerometer (g), and the gyroscope (rad/s) and magnetometer (µT) when the trace has them.
  public private(set) var accelerometer = GroupStats()
  public private(set) var gyroscope: GroupStats?
  public private(set) var magnetometer: GroupStats?
  public var x: AxisStats { accelerometer.x }
  public var y: AxisStats { accelerometer.y }
  public var z: AxisStats { accelerometer.z }
  public var magnitude: AxisStats { accelerometer.magnitude }

  /// The statistics of `group`, when the trace has it.
  public func stats(_ group: SensorGroup) -> GroupStats? {
    switch group {
    case .accelerometer: accelerometer
    case .gyroscope: gyroscope
    case .magnetometer: magnetometer
    }
  }
  /// Intervals <= 0: timestamps that repeat or go backwards.
  public private(set) var nonIncreasing = 0
  /// 1-based index of the first sample whose timestamp does not increase.
  public private(set) var firstNonIncreasingSample: Int?
  /// Samples with a NaN or infinite acceleration (only possible when such values are allowed).
  public private(set) var nonFinite = 0

  private var histogram = IntervalHistogram()
  private var intervalStats = AxisStats()
  /// The longest intervals seen, longest first (at most `gapListLength`).
  public private(set) var longestIntervals: [Gap] = []
  private static let gapListLength = 5

  public init() {}

  public mutating func add(_ block: SampleBlock) {
    guard !block.isEmpty else { return }
    var intervals: [Double] = []
    intervals.reserveCapacity(block.count)
    var previous = lastTime
    for i in 0..<block.count {
      let t = block.t[i]
      if let p = previous {
        let d = t - p
        if d > 0 {
          intervals.append(d)
          histogram.add(d)
          noteInterval(start: p, interval: d)
        } else {
          nonIncreasing += 1
          if firstNonIncreasingSample == nil { firstNonIncreasingSample = rows + i + 1 }
        }
      }
      previous = t
    }
    if firstTime == nil { firstTime = block.t[0] }
    lastTime = block.t[block.count - 1]
    rows += block.count
    intervalStats.add(intervals)
    accelerometer.add(block.x, block.y, block.z)
    nonFinite = accelerometer.nonFinite
    if let g = block.gyroscope {
      if gyroscope == nil { gyroscope = GroupStats() }
      gyroscope!.add(g.x, g.y, g.z)
    }
    if let m = block.magnetometer {
      if magnetometer == nil { magnetometer = GroupStats() }
      magnetometer!.add(m.x, m.y, m.z)
    }
  }

  private mutating func noteInterval(start: Double, interval: Double) {
    if longestIntervals.count == Self.gapListLength,
      let last = longestIntervals.last, interval <= last.interval
    {
      return
    }
    let gap = Gap(start: start, interval: interval)
    let index = longestIntervals.firstIndex { $0.interval < interval } ?? longestIntervals.endIndex
    longestIntervals.insert(gap, at: index)
    if longestIntervals.count > Self.gapListLength { longestIntervals.removeLast() }
  }

  /// last - first timestamp, in seconds.
  public var duration: Double {
    guard let firstTime, let lastTime else { return 0 }
    return lastTime - firstTime
  }

  /// The median positive interval in seconds (to about 1e-9 relative), or nil with fewer than 2
  /// samples.
  public var medianInterval: Double? { histogram.median }

  /// 1 / median interval, in Hz.
  public var estimatedRate: Double? { medianInterval.map { 1 / $0 } }

  /// Standard deviation of the positive intervals, in seconds.
  public var intervalStd: Double? { intervalStats.count > 1 ? intervalStats.std : nil }

  /// Standard deviation of the intervals relative to the median (0.05 = 5%).
  public var relativeJitter: Double? {
    guard let std = intervalStd, let median = medianInterval else { return nil }
    return std / median
  }

  /// Intervals longer than 1.5 times the median.
  public var gapCount: Int {
    guard let median = medianInterval else { return 0 }
    return histogram.count(above: 1.5 * median)
  }

  /// The gaps (intervals over 1.5x the median) among the longest intervals seen, longest first.
  public var largestGaps: [Gap] {
    guard let median = medianInterval else { return [] }
    return longestIntervals.filter { $0.interval > 1.5 * median }
  }
}

/// Counts of positive intervals in bins of relative width ~2^-32 (coarsened if there are very many
/// distinct values), with the sum of the values per bin so the median is a true interval value.
struct IntervalHistogram: Sendable {
  private var bins: [UInt64: (count: Int, sum: Double)] = [:]
  private var droppedBits: UInt64 = 20
  private static let maxBins = 100_000

  mutating func add(_ value: Double) {
    let key = value.bitPattern >> droppedBits
    bins[key, default: (0, 0)].count += 1
    bins[key]!.sum += value
    if bins.count > Self.maxBins { coarsen() }
  }

  private mutating func coarsen() {
    droppedBits += 4
    var merged: [UInt64: (count: Int, sum: Double)] = [:]
    for key in bins.keys.sorted() {  // sorted: the float sums must not depend on hash order
      let bin = bins[key]!
      let k = key >> 4
      let old = merged[k, default: (0, 0)]
      merged[k] = (old.count + bin.count, old.sum + bin.sum)
    }
    bins = merged
  }

  var median: Double? {
    let total = bins.values.reduce(0) { $0 + $1.count }
    guard total > 0 else { return nil }
    let half = (total + 1) / 2
    var seen = 0
    for key in bins.keys.sorted() {
      let bin = bins[key]!
      seen += bin.count
      if seen >= half { return bin.sum / Double(bin.count) }
    }
    return nil
  }

  func count(above threshold: Double) -> Int {
    var n = 0
    for bin in bins.values where bin.sum / Double(bin.count) > threshold { n += bin.count }
    return n
  }
}

/// 1 / the median interval of `t`, rounded to 9 significant digits (timestamps written as text
/// make 1 / interval come out as 49.99999999999 for 50 Hz), or nil with fewer than two increasing
/// timestamps.
public func estimateRate(_ t: [Double]) -> Double? {
  var intervals: [Double] = []
  for i in 1..<max(1, t.count) where t[i] > t[i - 1] { intervals.append(t[i] - t[i - 1]) }
  guard !intervals.isEmpty else { return nil }
  intervals.sort()
  return roundedToSignificant(1 / intervals[intervals.count / 2], digits: 9)
}
