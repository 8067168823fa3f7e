import AccelCore

/// Trace writers: a table of the trace's columns in each format.
public enum TraceWriters {
  /// Opens a trace sink writing `format` to `output`: CSV, TSV and NPY get every column of
  /// `layout` under its name (`t,x,y,z[,gx,gy,gz][,mx,my,mz][,kept...]`); raw output gets the
  /// channels of `rawLayout` (default: `t` and every group of `layout`; raw records have no
  /// names, so kept columns are not written).
  public static func make(
    format: TraceFormat, output: OutputFile, precision: SamplePrecision, layout: TraceLayout = .accelerometer,
    rawLayout: RawLayout? = nil, significantDigits: Int? = nil
  ) throws -> TraceSink {
    if format == .raw {
      let raw = rawLayout ?? RawLayout(layout)
      for channel in raw.channels where layout.index(of: channel) == nil {
        throw AccelError.usage(
          "the raw output layout \(raw) names \(channel.name), which the trace does not have",
          hint: "the trace has \(layout.channels.map(\.name).joined(separator: ","))")
      }
      let table = try TableFormat(format).makeWriter(
        output: output, names: raw.channels.map(\.name), precision: precision)
      return TraceTableSink(table, layout: layout, fields: raw.channels.map { layout.index(of: $0)! })
    }
    let table = try TableFormat(format).makeWriter(
      output: output, names: layout.columnNames, precision: precision, significantDigits: significantDigits)
    return TraceTableSink(table, layout: layout)
  }
}
