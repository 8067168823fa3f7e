#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One window's statistics: its start, its samples, and per axis (x, y, z) the mean, the sample
/// standard deviation (n - 1 in the denominator, as pandas, polars and SQL's stddev_samp; NaN
/// below 2 values), the minimum and the maximum. NaN samples (missing values) are left out of an
/// axis' statistics; an axis with no value has NaN throughout.
public struct WindowRow: Sendable, Equatable {
  public var start: Double
  public var count: Int
  public var mean: (Double, Double, Double)
  public var std: (Double, Double, Double)
  public var min: (Double, Double, Double)
  public var max: (Double, Double, Double)

  public static func == (a: WindowRow, b: WindowRow) -> Bool {
    func same(_ p: (Double, Double, Double), _ q: (Double, Double, Double)) -> Bool {
      [p.0, p.1, p.2].elementsEqual([q.0, q.1, q.2]) { $0 == $1 || ($0.isNaN && $1.isNaN) }
    }
    return a.start == b.start && a.count == b.count && same(a.mean, b.mean) && same(a.std, b.std)
      && same(a.min, b.min) && same(a.max, b.max)
  }

  /// The column names of `columns`, in that order.
  public static let columnNames =
    ["t", "n"]
    + ["x", "y", "z"].flatMap { axis in
      ["mean", "std", "min", "max"].map { "\(axis)_\($0)" }
    }

  /// t (the window's start), n, then mean, std, min, max of x, y and z.
  public var values: [Double] {
    [
      start, Double(count), mean.0, std.0, min.0, max.0, mean.1, std.1, min.1, max.1, mean.2, std.2, min.2,
      max.2,
    ]
  }
}

/// Statistics of fixed windows of time, streaming (the "group by time" of data frames): sample i
/// belongs to window k = floor(t_i / width), which starts at k * width, so windows line up with
/// multiples of the width whatever the first time is (as polars' group_by_dynamic and SQL's
/// GROUP BY floor(t / w) do). A window is a run of consecutive samples with the same k: it ends
/// when k changes (times that go back start a new window). Means and deviations use Welford's
/// updates, which stay accurate for large offsets (a constant 9.81 g, epoch times).
public struct WindowStatistics: Sendable {
  public let width: Double
  private var key: Double?
  private var start = 0.0
  private var count = 0
  private var n = (0, 0, 0)
  private var mean = (0.0, 0.0, 0.0)
  private var m2 = (0.0, 0.0, 0.0)
  private var low = (Double.nan, Double.nan, Double.nan)
  private var high = (Double.nan, Double.nan, Double.nan)

  /// `width` in seconds (positive and finite).
  public init(width: Double) {
    precondition(width > 0 && width.isFinite, "a window needs a positive width")
    self.width = width
  }

  /// Adds `block`'s samples; returns the windows they completed.
  public mutating func process(_ block: SampleBlock) -> [WindowRow] {
    var rows: [WindowRow] = []
    block.t.withUnsafeBufferPointer { t in
      block.x.withUnsafeBufferPointer { x in
        block.y.withUnsafeBufferPointer { y in
          block.z.withUnsafeBufferPointer { z in
            for i in 0..<t.count {
              let k = (t[i] / width).rounded(.down)
              if k != key {
                if let row = finish() { rows.append(row) }
                key = k
                start = k * width
              }
              count += 1
              Self.add(x[i], &n.0, &mean.0, &m2.0, &low.0, &high.0)
              Self.add(y[i], &n.1, &mean.1, &m2.1, &low.1, &high.1)
              Self.add(z[i], &n.2, &mean.2, &m2.2, &low.2, &high.2)
            }
          }
        }
      }
    }
    return rows
  }

  /// The last window (nil when no sample came since the last one finished).
  public mutating func finish() -> WindowRow? {
    guard count > 0 else { return nil }
    func std(_ n: Int, _ m2: Double) -> Double { n > 1 ? (m2 / Double(n - 1)).squareRoot() : .nan }
    func average(_ n: Int, _ m: Double) -> Double { n > 0 ? m : .nan }
    let row = WindowRow(
      start: start, count: count, mean: (average(n.0, mean.0), average(n.1, mean.1), average(n.2, mean.2)),
      std: (std(n.0, m2.0), std(n.1, m2.1), std(n.2, m2.2)), min: low, max: high)
    count = 0
    n = (0, 0, 0)
    mean = (0, 0, 0)
    m2 = (0, 0, 0)
    low = (.nan, .nan, .nan)
    high = (.nan, .nan, .nan)
    return row
  }

  @inline(__always)
  private static func add(
    _ v: Double, _ n: inout Int, _ mean: inout Double, _ m2: inout Double, _ low: inout Double,
    _ high: inout Double
  ) {
    guard !v.isNaN else { return }
    n += 1
    let delta = v - mean
    mean += delta / Double(n)
    m2 += delta * (v - mean)
    if n == 1 {
      low = v
      high = v
    } else {
      if v < low { low = v }
      if v > high { high = v }
    }
  }
}
