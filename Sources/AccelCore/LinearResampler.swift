/// Puts a trace on a uniform time grid by linear interpolation, block by block.
///
/// The grid starts at the first sample's time `t0` and has points `t0 + k / rate` for
/// k = 0, 1, ... up to the last sample's time. A grid point that falls exactly on a sample takes
/// that sample's values; otherwise
/// ```
/// v(g) = v0 + (g - t0) / (t1 - t0) * (v1 - v0)
/// ```
/// between the samples (t0, v0) and (t1, v1) around it. Timestamps must increase strictly.
public struct LinearResampler: Sendable {
  public let rate: Double
  private var origin: Double?
  private var k: Int = 0
  /// The previous sample in `SampleBlock.allColumns` order (time first).
  private var previous: [Double] = []
  private var samplesSeen = 0
  private let name: String

  /// The most grid points between two successive samples (10^7: 28 hours at 100 Hz); a longer
  /// interval is a broken timestamp or a gap no interpolation should fill, and is a data error.
  public static let maximumPointsPerInterval = 10_000_000.0

  /// - Parameters:
  ///   - rate: the output rate in Hz, > 0 and finite (the command-line options check it).
  ///   - name: the trace's name, for error messages.
  public init(rate: Double, name: String) {
    precondition(rate > 0 && rate.isFinite)
    self.rate = rate
    self.name = name
  }

  /// Resamples one block (every channel it holds); the result may be empty.
  ///
  /// Two passes: the grid points falling in the block (each with the sample after it and its
  /// weight, or "exactly on the sample"), then every column interpolated in one tight loop.
  public mutating func process(_ block: SampleBlock) throws -> SampleBlock {
    let columns = block.allColumns
    let t = block.t
    var times: [Double] = []
    var after: [Int] = []  // the sample at or after each grid point
    var weights: [Double] = []  // NaN: the point is exactly on that sample
    let expected = Int(Double(block.count) * 1.1) + 4
    times.reserveCapacity(expected)
    after.reserveCapacity(expected)
    weights.reserveCapacity(expected)
    var startIndex = 0
    if origin == nil, block.count > 0 {
      origin = t[0]
      times.append(t[0])
      after.append(0)
      weights.append(.nan)
      k = 1
      startIndex = 1
      samplesSeen += 1
    }
    var t0 = previous.first ?? (block.count > 0 ? t[0] : 0)
    for i in startIndex..<block.count {
      let t1 = t[i]
      samplesSeen += 1
      guard t1 > t0 else {
        throw AccelError.data(
          DataLocation(file: name),
          "sample \(samplesSeen) (t = \(t1) s) does not come after the previous one "
            + "(t = \(t0) s); resampling needs increasing timestamps",
          hint: "run `accelkit info \(name)` to see where the timestamps go wrong")
      }
      // A broken timestamp (a jump to 1e300) would make the grid between two samples endless.
      let points = (t1 - t0) * rate
      guard points <= Self.maximumPointsPerInterval else {
        throw AccelError.data(
          DataLocation(file: name),
          "sample \(samplesSeen) (t = \(formatNumber(t1)) s) comes \(formatNumber(t1 - t0)) s after the previous one: "
            + "resampling at \(formatHz(rate)) Hz would fill the gap with \(formatNumber(points.rounded(.down))) points",
          hint: "check the timestamps (`accelkit info \(name)`), or split the trace at the gap")
      }
      while true {
        let g = origin! + Double(k) / rate
        if g > t1 { break }
        times.append(g)
        after.append(i)
        weights.append(g == t1 ? .nan : (g - t0) / (t1 - t0))
        k += 1
      }
      t0 = t1
    }
    // Every column: the value before sample i is sample i - 1, or the carried previous sample.
    var out: [[Double]] = [times]
    out.reserveCapacity(columns.count)
    for c in 1..<columns.count {
      let column = columns[c]
      let carried = previous.isEmpty ? 0 : previous[c]
      let values = [Double](unsafeUninitializedCapacity: times.count) { buffer, count in
        for j in 0..<times.count {
          let i = after[j]
          let w = weights[j]
          let v1 = column[i]
          if w.isNaN {
            buffer[j] = v1
          } else {
            let v0 = i > 0 ? column[i - 1] : carried
            buffer[j] = v0 + w * (v1 - v0)
          }
        }
        count = times.count
      }
      out.append(values)
    }
    if block.count > 0 { previous = columns.map { $0[block.count - 1] } }
    return SampleBlock(columns: out, layout: block.layout(extraNames: block.extras.map { _ in "" }))
  }
}
