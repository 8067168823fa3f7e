/// What a plot of series over time needs from any number of samples, in bounded memory: for each
/// of at most `capacity` time buckets and each series, the smallest and largest finite value with
/// their times, the bucket's first and last time, and (optionally) how many samples fell in each
/// category (an orientation class). Buckets start one sample interval wide; when the trace
/// outgrows them, neighbours are merged in pairs and the width doubles, so a trace of any length
/// ends with between `capacity / 2` and `capacity` buckets. With 4096 buckets and a plot about
/// 800 pixels wide a bucket is at most a fifth of a pixel: every peak is drawn where it is, and a
/// trace of up to 4096 samples is drawn exactly from its samples.
public struct Envelope: Sendable {
  public static let defaultCapacity = 4096

  public let seriesCount: Int
  public let categoryCount: Int
  public let capacity: Int
  private var origin = Double.nan
  private var width = 0.0
  /// Buckets in use: 0..<used.
  private var used = 0
  private var firstTime: [Double]
  private var lastTime: [Double]
  /// [series * capacity + bucket]
  private var minTime: [Double], minValue: [Double], maxTime: [Double], maxValue: [Double]
  /// [bucket * categoryCount + category]
  private var counts: [UInt64]
  /// The smallest and largest finite value of every series.
  public private(set) var valueRange: (lo: Double, hi: Double)?
  /// The first and last time added.
  public private(set) var timeRange: (first: Double, last: Double)?

  public init(series: Int, categories: Int = 0, capacity: Int = Envelope.defaultCapacity) {
    precondition(series >= 1 && capacity >= 2 && capacity % 2 == 0)
    seriesCount = series
    categoryCount = categories
    self.capacity = capacity
    firstTime = Array(repeating: .nan, count: capacity)
    lastTime = Array(repeating: .nan, count: capacity)
    minTime = Array(repeating: .nan, count: series * capacity)
    minValue = Array(repeating: .infinity, count: series * capacity)
    maxTime = Array(repeating: .nan, count: series * capacity)
    maxValue = Array(repeating: -.infinity, count: series * capacity)
    counts = Array(repeating: 0, count: capacity * categories)
  }

  /// An envelope of whole series (each as long as `t`).
  public init(t: [Double], series: [[Double]], categories: [Int]? = nil, categoryCount: Int = 0) {
    self.init(series: series.count, categories: categoryCount)
    for i in t.indices {
      let b = bucket(for: t[i])
      for s in series.indices { add(series[s][i], at: t[i], bucket: b, series: s) }
      if let categories { add(category: categories[i], bucket: b) }
    }
  }

  /// The bucket of time `t` (times must not decrease), merging buckets first when `t` lies
  /// beyond the last one.
  public mutating func bucket(for t: Double) -> Int {
    if origin.isNaN {
      origin = t
      timeRange = (t, t)
    }
    timeRange!.last = t
    if width == 0 {
      if t > origin { width = t - origin } else { return note(t, in: 0) }
    }
    var b = Int(min((t - origin) / width, Double(Int.max / 4)))
    while b >= capacity {
      mergePairs()
      b = Int(min((t - origin) / width, Double(Int.max / 4)))
    }
    return note(t, in: b)
  }

  private mutating func note(_ t: Double, in b: Int) -> Int {
    if firstTime[b].isNaN { firstTime[b] = t }
    lastTime[b] = t
    used = max(used, b + 1)
    return b
  }

  /// Adds a value of series `s` at time `t`, in the bucket `bucket(for: t)` returned.
  @inline(__always)
  public mutating func add(_ v: Double, at t: Double, bucket b: Int, series s: Int) {
    guard v.isFinite else { return }
    let k = s * capacity + b
    if v < minValue[k] {
      minValue[k] = v
      minTime[k] = t
    }
    if v > maxValue[k] {
      maxValue[k] = v
      maxTime[k] = t
    }
    if let r = valueRange {
      if v < r.lo { valueRange!.lo = v } else if v > r.hi { valueRange!.hi = v }
    } else {
      valueRange = (v, v)
    }
  }

  /// Counts one sample of `category` in bucket `b`.
  public mutating func add(category c: Int, bucket b: Int) {
    counts[b * categoryCount + c] += 1
  }

  /// Halves the resolution: bucket i becomes buckets 2i and 2i + 1.
  private mutating func mergePairs() {
    let half = capacity / 2
    for i in 0..<half {
      let a = 2 * i
      let b = 2 * i + 1
      firstTime[i] = firstTime[a].isNaN ? firstTime[b] : firstTime[a]
      lastTime[i] = lastTime[b].isNaN ? lastTime[a] : lastTime[b]
      for s in 0..<seriesCount {
        let base = s * capacity
        let lowest = minValue[base + b] < minValue[base + a] ? b : a
        let highest = maxValue[base + b] > maxValue[base + a] ? b : a
        (minValue[base + i], minTime[base + i]) = (minValue[base + lowest], minTime[base + lowest])
        (maxValue[base + i], maxTime[base + i]) = (maxValue[base + highest], maxTime[base + highest])
      }
      for c in 0..<categoryCount {
        counts[i * categoryCount + c] = counts[a * categoryCount + c] + counts[b * categoryCount + c]
      }
    }
    for i in half..<capacity {
      firstTime[i] = .nan
      lastTime[i] = .nan
      for s in 0..<seriesCount {
        let k = s * capacity + i
        (minValue[k], minTime[k], maxValue[k], maxTime[k]) = (.infinity, .nan, -.infinity, .nan)
      }
      for c in 0..<categoryCount { counts[i * categoryCount + c] = 0 }
    }
    width *= 2
    used = min(used, half)
  }

  /// The kept points of series `s` in time order: each bucket's minimum and maximum.
  public func points(series s: Int) -> [(t: Double, v: Double)] {
    var out: [(t: Double, v: Double)] = []
    out.reserveCapacity(2 * used)
    for b in 0..<used {
      let k = s * capacity + b
      guard minValue[k].isFinite else { continue }
      let low = (minTime[k], minValue[k])
      let high = (maxTime[k], maxValue[k])
      if low.0 == high.0 {
        out.append(low)
      } else if low.0 < high.0 {
        out.append(low)
        out.append(high)
      } else {
        out.append(high)
        out.append(low)
      }
    }
    return out
  }

  /// Runs of buckets whose most frequent category is the same: from the run's first time to the
  /// next run's first time (the last run ends at its last time).
  public func categoryRuns() -> [(start: Double, end: Double, category: Int)] {
    var runs: [(start: Double, end: Double, category: Int)] = []
    for b in 0..<used where !firstTime[b].isNaN {
      let row = counts[(b * categoryCount)..<((b + 1) * categoryCount)]
      guard let top = row.indices.max(by: { row[$0] < row[$1] || (row[$0] == row[$1] && $0 > $1) }),
        row[top] > 0
      else { continue }
      let category = top - b * categoryCount
      if let last = runs.last, last.category == category {
        runs[runs.count - 1].end = lastTime[b]
      } else {
        if !runs.isEmpty { runs[runs.count - 1].end = firstTime[b] }
        runs.append((firstTime[b], lastTime[b], category))
      }
    }
    return runs
  }
}
