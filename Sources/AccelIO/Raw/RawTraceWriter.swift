import AccelCore

/// Writes a trace as raw interleaved little-endian f8 or f4 records, `t x y z` or `x y z`.
public final class RawTraceWriter: TraceSink {
  private let output: OutputFile
  private let precision: SamplePrecision
  private let layout: RawLayout

  public init(output: OutputFile, layout: RawLayout, precision: SamplePrecision) {
    self.output = output
    self.layout = layout
    self.precision = precision
  }

  public func write(_ block: SampleBlock) throws {
    try writeInterleaved(block, includeTime: layout == .txyz, precision: precision, to: output)
  }

  public func finish() throws { try output.commit() }
}
