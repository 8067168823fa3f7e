/// Watches a trace's sample intervals against the uniform rate a stage assumes (filters,
/// spectra), and says what to do when they jitter or have gaps.
public struct RegularityCheck: Sendable {
  public let interval: Double
  @usableFromInline var count = 0
  @usableFromInline var sumSquares = 0.0
  @usableFromInline var gapCount = 0
  public var gaps: Int { gapCount }
  @usableFromInline var last: Double?

  /// - Parameter rate: the rate assumed, in Hz.
  public init(rate: Double) { interval = 1 / rate }

  @inlinable
  public mutating func add(_ t: [Double]) {
    guard let first = t.first else { return }
    // Locals instead of the optional and the stored sums on every sample (the same operations
    // in the same order).
    var previous = last ?? first
    let start = last == nil ? 1 : 0
    let interval = self.interval
    let gapLimit = 1.5 * interval
    var sum = sumSquares
    var gaps = gapCount
    t.withUnsafeBufferPointer { values in
      for i in start..<values.count {
        let d = values[i] - previous
        if d > gapLimit { gaps += 1 }
        sum += (d - interval) * (d - interval)
        previous = values[i]
      }
    }
    sumSquares = sum
    gapCount = gaps
    count += t.count - start
    last = previous
  }

  /// The RMS deviation of the intervals from the assumed one, relative to it (0.05 = 5%).
  public var jitter: Double? {
    count > 0 ? (sumSquares / Double(count)).squareRoot() / interval : nil
  }

  /// A warning for `name` when the intervals jitter by more than 5% or have gaps (intervals over
  /// 1.5 times the assumed one); nil when the trace is regular enough.
  public func warning(name: String, stage: String = "the filter") -> String? {
    guard let jitter else { return nil }
    var problems: [String] = []
    if jitter > 0.05 { problems.append(cFormat("its sample intervals jitter by %.1f%%", jitter * 100)) }
    if gaps > 0 { problems.append("it has \(gaps) gap\(gaps == 1 ? "" : "s") (intervals over 1.5x)") }
    guard !problems.isEmpty else { return nil }
    let hz = formatHz(1 / interval)
    return "\(name): \(problems.joined(separator: " and ")); \(stage) assumes a uniform \(hz) Hz rate: use --resample \(hz)"
  }
}
