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
      // Extremes, how often each occurs, and the sum in one pass (the values are finite).
      var bMin = Double.infinity
      var bMax = -Double.infinity
      var atMin = 0
      var atMax = 0
      var sum = 0.0
      for v in values {
        if v <= bMin {
          atMin = v < bMin ? 1 : atMin + 1
          bMin = v
        }
        if v >= bMax {
          atMax = v > bMax ? 1 : atMax + 1
          bMax = v
        }
        sum += v
      }
      let n = Double(values.count)
      let bMean = sum / n
      var bM2 = 0.0
      for v in values {
        let d = v - bMean
        bM2 += d * d
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
  /// Once the list is full, its shortest interval (an interval no longer is not kept); until then
  /// -infinity.
  private var shortestKeptInterval = -Double.infinity

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

  @inline(__always)
  private mutating func noteInterval(start: Double, interval: Double) {
    if interval <= shortestKeptInterval { return }
    keepInterval(start: start, interval: interval)
  }

  private mutating func keepInterval(start: Double, interval: Double) {
    let gap = Gap(start: start, interval: interval)
    let index = longestIntervals.firstIndex { $0.interval < interval } ?? longestIntervals.endIndex
    longestIntervals.insert(gap, at: index)
    if longestIntervals.count > Self.gapListLength { longestIntervals.removeLast() }
    if longestIntervals.count == Self.gapListLength { shortestKeptInterval = longestIntervals.last!.interval }
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
  public var estimatedRate: Double? {
    medianInterval.map { 1 / $0 }.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
  }

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
  private var bins = _BinTable()
  private var droppedBits: UInt64 = 20
  private static let maxBins = 100_000

  mutating func add(_ value: Double) {
    bins.add(value.bitPattern >> droppedBits, value)
    if bins.count > Self.maxBins { coarsen() }
  }

  private mutating func coarsen() {
    droppedBits += 4
    var merged = _BinTable()
    for bin in bins.sortedByKey() {  // sorted: the float sums must not depend on the table's order
      merged.add(bin.key >> 4, count: bin.count, sum: bin.sum)
    }
    bins = merged
  }

  var median: Double? {
    let sorted = bins.sortedByKey()
    let total = sorted.reduce(0) { $0 + $1.count }
    guard total > 0 else { return nil }
    let half = (total + 1) / 2
    var seen = 0
    for bin in sorted {
      seen += bin.count
      if seen >= half { return bin.sum / Double(bin.count) }
    }
    return nil
  }

  func count(above threshold: Double) -> Int {
    var n = 0
    for bin in bins.sortedByKey() where bin.sum / Double(bin.count) > threshold { n += bin.count }
    return n
  }
}

/// The histogram's bins: counts and sums by key, in an open-addressing table (linear probing, a
/// multiplicative hash). The keys are the top bits of intervals, not chosen by anyone, so the
/// standard dictionary's keyed hashing (a quarter of `accelkit info`'s time) buys nothing here.
struct _BinTable: Sendable {
  /// key + 1 in each used slot (keys are below 2^63: positive doubles' bits), 0 in free ones.
  private var slots = [UInt64](repeating: 0, count: 1024)
  private var counts = [Int](repeating: 0, count: 1024)
  private var sums = [Double](repeating: 0, count: 1024)
  private var shift: UInt64 = 54  // 64 - log2(capacity)
  private(set) var count = 0

  /// Adds `count` values summing to `sum` to the bin `key` (one value by default).
  mutating func add(_ key: UInt64, _ value: Double) { add(key, count: 1, sum: value) }

  mutating func add(_ key: UInt64, count n: Int, sum: Double) {
    let tag = key &+ 1
    let mask = slots.count - 1
    var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    while true {
      let slot = slots[i]
      if slot == tag {
        counts[i] += n
        sums[i] += sum
        return
      }
      if slot == 0 { break }
      i = (i + 1) & mask
    }
    slots[i] = tag
    counts[i] = n
    sums[i] = 0 + sum  // as a new dictionary entry (0, 0) then += sum
    count += 1
    if count * 2 > slots.count { grow() }
  }

  private mutating func grow() {
    let old = (slots, counts, sums)
    let capacity = slots.count * 2
    slots = [UInt64](repeating: 0, count: capacity)
    counts = [Int](repeating: 0, count: capacity)
    sums = [Double](repeating: 0, count: capacity)
    shift -= 1
    let mask = capacity - 1
    for j in old.0.indices where old.0[j] != 0 {
      var i = Int(truncatingIfNeeded: ((old.0[j] &- 1) &* 0x9E37_79B9_7F4A_7C15) >> shift)
      while slots[i] != 0 { i = (i + 1) & mask }
      slots[i] = old.0[j]
      counts[i] = old.1[j]
      sums[i] = old.2[j]
    }
  }

  /// Every bin, by increasing key.
  func sortedByKey() -> [(key: UInt64, count: Int, sum: Double)] {
    var out: [(key: UInt64, count: Int, sum: Double)] = []
    out.reserveCapacity(count)
    for i in slots.indices where slots[i] != 0 { out.append((slots[i] &- 1, counts[i], sums[i])) }
    out.sort { $0.key < $1.key }
    return out
  }
}

/// 1 / the median interval of `t`, rounded to 9 significant digits (timestamps written as text
/// make 1 / interval come out as 49.99999999999 for 50 Hz), or nil with fewer than two increasing
/// timestamps.
public func estimateRate(_ t: [Double]) -> Double? {
  var intervals: [Double] = []
  for i in 1..<max(1, t.count) where t[i] > t[i - 1] && (t[i] - t[i - 1]).isFinite {
    intervals.append(t[i] - t[i - 1])
  }
  guard !intervals.isEmpty else { return nil }
  intervals.sort()
  // Times near the largest Double: an interval whose inverse is 0 gives no rate.
  let rate = 1 / intervals[intervals.count / 2]
  return rate > 0 && rate.isFinite ? roundedToSignificant(rate, digits: 9) : nil
}
