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
  public mutating func process(_ block: SampleBlock) throws -> SampleBlock {
    let columns = block.allColumns
    let width = columns.count
    var out = SampleBlock(
      layout: block.layout(extraNames: block.extras.map { _ in "" }),
      capacity: Int(Double(block.count) * 1.1) + 4)
    var current = [Double](repeating: 0, count: width)
    var row = [Double](repeating: 0, count: width)
    for i in 0..<block.count {
      for c in 0..<width { current[c] = columns[c][i] }
      samplesSeen += 1
      guard let origin, !previous.isEmpty else {
        origin = current[0]
        previous = current
        out.append(row: current)
        k = 1
        continue
      }
      let (t0, t1) = (previous[0], current[0])
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
        let g = origin + Double(k) / rate
        if g > t1 { break }
        if g == t1 {
          row = current
          row[0] = g
        } else {
          let w = (g - t0) / (t1 - t0)
          row[0] = g
          for c in 1..<width { row[c] = previous[c] + w * (current[c] - previous[c]) }
        }
        out.append(row: row)
        k += 1
      }
      swap(&previous, &current)
    }
    return out
  }
}
