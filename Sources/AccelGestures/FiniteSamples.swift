import AccelCore

/// A detector fed only finite samples: a row whose time, acceleration or (when the block has
/// one) gyroscope reading is NaN or infinite is skipped as a gap and never enters the
/// detector's state, as the exported C's push and push_gyro skip it. Blocks without such rows
/// (every block a reader gives unless `--allow-nonfinite`) pass through untouched.
public struct FiniteSamplesOnly: Detector {
  public private(set) var inner: any Detector

  public init(_ inner: any Detector) { self.inner = inner }

  public mutating func process(_ block: SampleBlock) -> [DetectorEvent] {
    inner.process(Self.finiteRows(block))
  }

  public mutating func finish() -> [DetectorEvent] { inner.finish() }

  /// Whether row `i` of `block` can enter a detector.
  static func isFinite(_ block: SampleBlock, _ i: Int) -> Bool {
    guard block.t[i].isFinite && block.x[i].isFinite && block.y[i].isFinite && block.z[i].isFinite else {
      return false
    }
    guard let g = block.gyroscope else { return true }
    return g.x[i].isFinite && g.y[i].isFinite && g.z[i].isFinite
  }

  /// `block` without its non-finite rows (the block itself when it has none).
  public static func finiteRows(_ block: SampleBlock) -> SampleBlock {
    var i = 0
    while i < block.count && isFinite(block, i) { i += 1 }
    guard i < block.count else { return block }
    var kept = block.slice(0..<i)
    while i < block.count {
      while i < block.count && !isFinite(block, i) { i += 1 }
      let start = i
      while i < block.count && isFinite(block, i) { i += 1 }
      if i > start { kept.append(contentsOf: block.slice(start..<i)) }
    }
    return kept
  }
}
