/// Keeps the samples in a window of time, block by block: `from <= t < to` (half-open, so that
/// consecutive windows share no sample), in the trace's own time or, with `relative`, in seconds
/// from its first sample.
public struct TimeWindow: Sendable {
  public var from: Double?
  public var to: Double?
  public var relative: Bool
  private var origin: Double?
  /// Whether every timestamp so far came after the one before (then nothing after `to` can follow).
  private var increasing = true
  private var last = -Double.infinity

  public init(from: Double? = nil, to: Double? = nil, relative: Bool = false) {
    self.from = from
    self.to = to
    self.relative = relative
  }

  /// The samples of `block` inside the window.
  public mutating func process(_ block: SampleBlock) -> SampleBlock {
    guard block.count > 0 else { return block }
    if origin == nil { origin = relative ? block.t[0] : 0 }
    let shift = origin!
    var keep: [Int] = []
    keep.reserveCapacity(block.count)
    for i in 0..<block.count {
      let t = block.t[i]
      if !(t > last) { increasing = false }
      last = t
      let s = t - shift
      if let from, !(s >= from) { continue }
      if let to, !(s < to) { continue }
      keep.append(i)
    }
    if keep.count == block.count { return block }
    // The kept samples are one run when time increases: a slice, no gather.
    if let first = keep.first, keep.last! - first + 1 == keep.count {
      return block.slice(first..<(keep.last! + 1))
    }
    var out = block.slice(0..<0)
    for i in keep { out.append(contentsOf: block.slice(i..<(i + 1))) }
    return out
  }

  /// Whether no later sample can fall in the window (time has only increased and passed `to`):
  /// a reader can stop.
  public var isPast: Bool {
    guard let to, let origin, increasing else { return false }
    return last - origin >= to
  }
}
