/// A spectrogram reduced to at most `maxColumns` × `maxRows` cells as its frames arrive, for a
/// heat map of bounded size from a trace of any length: frequency bins are averaged in fixed
/// groups of `ceil(bins / maxRows)`, and time columns start one frame wide, merging in pairs (mean
/// power) whenever there would be more than `maxColumns`. A cell's value is the mean power
/// density over the frames and bins it covers.
public struct SpectrogramRaster: Sendable {
  public static let defaultColumns = 512
  public static let defaultRows = 128

  /// The frequencies of the original bins.
  public let frequencies: [Double]
  public let maxColumns: Int
  /// Bins averaged into one row.
  public let binsPerRow: Int
  public let rowCount: Int
  /// Frames per column (a power of two).
  public private(set) var framesPerColumn = 1
  /// The time spacing of frames (the hop), once two frames are seen.
  public private(set) var frameStep: Double?
  private var columns: [(start: Double, end: Double, frames: Int, power: [Double])] = []

  public init(frequencies: [Double], maxColumns: Int = defaultColumns, maxRows: Int = defaultRows) {
    precondition(maxColumns >= 2 && maxColumns % 2 == 0 && maxRows >= 1)
    self.frequencies = frequencies
    self.maxColumns = maxColumns
    binsPerRow = max(1, (frequencies.count + maxRows - 1) / maxRows)
    rowCount = (frequencies.count + binsPerRow - 1) / max(1, binsPerRow)
  }

  /// Adds the frame at `time` with one power value per bin.
  public mutating func add(time: Double, power: [Double]) {
    precondition(power.count == frequencies.count)
    if let last = columns.last, frameStep == nil { frameStep = time - last.start }
    var rows = [Double](repeating: 0, count: rowCount)
    for (k, p) in power.enumerated() { rows[k / binsPerRow] += p }
    for r in 0..<rowCount {
      let count = min(binsPerRow, frequencies.count - r * binsPerRow)
      rows[r] /= Double(count)
    }
    if let last = columns.last, last.frames < framesPerColumn {
      let n = Double(last.frames)
      let merged = zip(last.power, rows).map { ($0 * n + $1) / (n + 1) }
      columns[columns.count - 1] = (last.start, time, last.frames + 1, merged)
    } else {
      columns.append((time, time, 1, rows))
    }
    if columns.count > maxColumns { mergePairs() }
  }

  private mutating func mergePairs() {
    var merged: [(start: Double, end: Double, frames: Int, power: [Double])] = []
    merged.reserveCapacity(maxColumns)
    var i = 0
    while i < columns.count {
      if i + 1 < columns.count {
        let a = columns[i]
        let b = columns[i + 1]
        let na = Double(a.frames)
        let nb = Double(b.frames)
        let power = zip(a.power, b.power).map { ($0 * na + $1 * nb) / (na + nb) }
        merged.append((a.start, b.end, a.frames + b.frames, power))
      } else {
        merged.append(columns[i])
      }
      i += 2
    }
    columns = merged
    framesPerColumn *= 2
  }

  /// The cells: each column's time span (first to last frame time) and its rows' mean power.
  public var cells: [(start: Double, end: Double, power: [Double])] {
    columns.map { ($0.start, $0.end, $0.power) }
  }

  /// Row r covers bins r * binsPerRow ..< min((r + 1) * binsPerRow, bins): its lowest and highest
  /// bin frequency.
  public func rowSpan(_ r: Int) -> (low: Double, high: Double) {
    let first = r * binsPerRow
    let last = min((r + 1) * binsPerRow, frequencies.count) - 1
    return (frequencies[first], frequencies[last])
  }
}
