import AccelCore

/// Trace writers: a table of t, x, y, z in each format.
public enum TraceWriters {
  /// Opens a trace sink writing `format` to `output`; raw output follows `layout`.
  public static func make(
    format: TraceFormat, output: OutputFile, precision: SamplePrecision, layout: RawLayout = .txyz
  ) throws -> TraceSink {
    let table = try TableFormat(format).makeWriter(output: output, names: ["t", "x", "y", "z"], precision: precision)
    return TraceTableSink(table, includeTime: format != .raw || layout == .txyz)
  }
}
