import AccelCore

/// An opened input, optionally resampled onto a uniform grid, with its sample rate worked out:
/// the `--rate` given, the `resample` rate, or 1 / the median interval of the first block.
public final class TraceStream {
  public let source: TraceSource
  public let input: ByteInput
  public private(set) var rate = 0.0
  public let resampled: Bool
  /// What people should know about how the trace was read: the reader's notes (a time unit or a
  /// decimal comma it told by itself, an implausible rate from its first time stamps).
  public var warnings: [String] {
    source.metadata.notes.map { "\(name): \($0)" }
  }
  private var resampler: LinearResampler?
  private var first: SampleBlock?
  private var firstTaken = false

  /// - Parameter resample: the rate in Hz of a uniform grid to put the trace on, > 0; nil to
  ///   read it as it is.
  public init(path: String, settings: TraceReadSettings, resample: Double?) throws {
    if let resample, !(resample > 0 && resample.isFinite) {
      throw AccelError.usage("--resample must be a positive number of Hz, got \(formatNumber(resample))")
    }
    let (opened, input) = try TraceOpener.open(path: path, settings: settings)
    source = opened
    self.input = input
    resampler = resample.map { LinearResampler(rate: $0, name: opened.metadata.name) }
    resampled = resample != nil
    first = try pull()
    if let handler = ReaderNotes.handler { for text in warnings { handler(text) } }
    if let r = resample ?? source.metadata.nominalRate {
      rate = r
    } else if let block = first, let estimated = estimateRate(block.t) {
      rate = estimated
    } else {
      // Bad data, not a bad command line (as in evaluate): the timestamps do not advance.
      throw AccelError.data(
        DataLocation(file: source.metadata.name),
        "cannot tell the sample rate of \(source.metadata.name): its first samples have fewer than two increasing timestamps, or intervals too long to measure",
        hint: "check the time column (and --time-unit), or give the rate with --rate HZ")
    }
  }

  public var name: String { source.metadata.name }

  /// The warning for a rate worked out from timestamps, or nil when it is plausible: with the
  /// time unit that would make it plausible (Sensor Logger and many loggers write nanoseconds).
  public static func implausibleRate(_ rate: Double) -> String? {
    guard !(rate >= 0.1 && rate <= 100_000) else { return nil }
    var text = "its timestamps give a sample rate of \(cFormat("%.4g", rate)) Hz"
    if let (unit, factor) = [("ms", 1e3), ("us", 1e6), ("ns", 1e9)].first(where: { rate * $0.1 >= 0.1 && rate * $0.1 <= 100_000 }) {
      text += "; if they are in \(unit), give --time-unit \(unit) (\(cFormat("%.4g", rate * factor)) Hz)"
    } else {
      text += "; check the time column and --time-unit"
    }
    return text
  }

  /// The next block (never empty), or nil at the end.
  public func next() throws -> SampleBlock? {
    if !firstTaken {
      firstTaken = true
      return first
    }
    return try pull()
  }

  private func pull() throws -> SampleBlock? {
    while let block = try source.next() {
      guard resampler != nil else { return block }
      let out = try resampler!.process(block)
      if !out.isEmpty { return out }
    }
    return nil
  }
}

/// Where the notes of every trace opened as a `TraceStream` go as soon as its first block is read
/// (a command sets it once, before it reads anything, to show them to people); nil keeps them in
/// `TraceStream.warnings` only.
public enum ReaderNotes {
  nonisolated(unsafe) public static var handler: (@Sendable (String) -> Void)?
}

/// The notes a reader adds once it has its first block: the time unit it told by itself, units
/// whose magnitude at rest is not about 1 g (`UnitsCheck`), and a sample rate from the first time
/// stamps that no sensor has (outside 0.1 Hz-100 kHz: most often nanoseconds since boot, or another
/// unit, read as seconds). Every command shows them the same way.
func noteFirstBlock(
  _ block: SampleBlock, first: Double, conversion: SampleConversion, hasTime: Bool, in metadata: inout TraceMetadata
) {
  if let note = conversion.timeUnitNote(first: first) { metadata.notes.append(note) }
  if let note = UnitsCheck.note(block, readAs: metadata.sourceUnits) { metadata.notes.append(note) }
  if hasTime, metadata.nominalRate == nil, let rate = estimateRate(block.t), let text = TraceStream.implausibleRate(rate) {
    metadata.notes.append(text)
  }
}
