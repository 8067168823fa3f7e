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
    for v in t {
      if let last {
        let d = v - last
        if d > 1.5 * interval { gapCount += 1 }
        sumSquares += (d - interval) * (d - interval)
        count += 1
      }
      last = v
    }
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
