/// What a reader does with a time stamp that does not advance: one equal to or before the time of
/// the row kept before it (two recordings joined, a clock reset, rows out of order).
public enum TimeOrderPolicy: Sendable, Equatable {
  /// Stop with a data error naming the row (exit 65): every processing command.
  case reject
  /// Drop the row and count it (`--skip-bad-rows`).
  case skip
  /// Keep the row and remember where the first was (`info`, which describes the file as it is).
  case report
}

/// The time-order check every reader runs on its blocks, so that no command processes a trace
/// whose times go back as if nothing had happened.
///
/// A row's time must be greater than the time of the row kept before it. The check runs on the
/// block a reader is about to return, in seconds; the reader says where a row is in its input.
public struct TimeOrderCheck: Sendable {
  public let policy: TimeOrderPolicy
  /// Rows whose time did not advance (dropped with `.skip`, kept with `.report`).
  public private(set) var count = 0
  /// The first such row's error (with `.skip` and `.report`).
  public private(set) var firstError: AccelError?
  /// The time of the last row kept.
  private var last = -Double.infinity

  public init(policy: TimeOrderPolicy) { self.policy = policy }

  /// Checks the times `t` of a block about to be returned; returns the indices of the rows to
  /// drop (only with `.skip`; empty when every time advances). `locate(i)` says where row `i` of
  /// the block is in the input; it is called for the first offending row only.
  ///
  /// - Throws: `AccelError.data` at the first row whose time does not advance, with `.reject`.
  /// - Complexity: O(n), one comparison a row while the times advance.
  public mutating func check(_ t: [Double], locate: (Int) -> DataLocation) throws -> [Int] {
    let firstBad: Int? = t.withUnsafeBufferPointer { times in
      var previous = last
      for i in 0..<times.count {
        if !(times[i] > previous) { return i }
        previous = times[i]
      }
      return nil
    }
    guard let firstBad else {
      if let end = t.last { last = end }
      return []
    }
    var drop: [Int] = []
    var previous = firstBad == 0 ? last : t[firstBad - 1]
    for i in firstBad..<t.count {
      if t[i] > previous {
        previous = t[i]
        continue
      }
      if count == 0 || policy == .reject {
        let error = Self.error(time: t[i], previous: previous, at: locate(i))
        if policy == .reject { throw error }
        firstError = error
      }
      count += 1
      if policy == .skip {
        drop.append(i)
      } else {
        previous = t[i]
      }
    }
    last = previous
    return drop
  }

  /// Checks a block about to be returned (see `check`) and applies the policy: the block without
  /// the rows dropped, counted in `skipped` (and `firstSkipped`, when none came before); nil when
  /// every row was dropped (the reader reads on).
  public mutating func filter(
    _ block: SampleBlock, skipped: inout Int, firstSkipped: inout AccelError?, locate: (Int) -> DataLocation
  ) throws -> SampleBlock? {
    let drop = try check(block.t, locate: locate)
    if drop.isEmpty { return block }
    skipped += drop.count
    if firstSkipped == nil { firstSkipped = firstError }
    return drop.count < block.count ? block.removing(rows: drop) : nil
  }

  static func error(time: Double, previous: Double, at location: DataLocation) -> AccelError {
    let what = time == previous ? "repeats the time before it" : "goes back from \(formatNumber(previous)) s"
    return .data(
      location, "the time stamp \(formatNumber(time)) s \(what): times must increase",
      hint: "two recordings joined or a clock reset? Split the file there, or pass --skip-bad-rows "
        + "to drop the rows whose time does not advance")
  }
}

extension SampleBlock {
  /// The block without the rows at `indices` (ascending).
  public func removing(rows indices: [Int]) -> SampleBlock {
    guard !indices.isEmpty else { return self }
    var keep: [Int] = []
    keep.reserveCapacity(count - indices.count)
    var k = 0
    for i in 0..<count {
      if k < indices.count && indices[k] == i {
        k += 1
      } else {
        keep.append(i)
      }
    }
    func pick(_ column: [Double]) -> [Double] { keep.map { column[$0] } }
    func pick(_ group: AxisColumns?) -> AxisColumns? {
      group.map { AxisColumns(x: pick($0.x), y: pick($0.y), z: pick($0.z)) }
    }
    return SampleBlock(
      t: pick(t), x: pick(x), y: pick(y), z: pick(z), gyroscope: pick(gyroscope),
      magnetometer: pick(magnetometer), extras: extras.map(pick))
  }
}
