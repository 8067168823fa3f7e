import AccelCore

/// Writes a trace as CSV (`t,x,y,z`, or another delimiter), numbers in their shortest round-trip
/// form; Float-precision traces are written with Float's shortest form.
public final class CSVTraceWriter: TraceSink {
  private let output: OutputFile
  private let delimiter: UInt8
  private let precision: SamplePrecision

  public init(output: OutputFile, delimiter: UInt8 = UInt8(ascii: ","), precision: SamplePrecision = .float64) throws {
    self.output = output
    self.delimiter = delimiter
    self.precision = precision
    let d = String(UnicodeScalar(delimiter))
    try output.write(["t", "x", "y", "z"].joined(separator: d) + "\n")
  }

  public func write(_ block: SampleBlock) throws {
    let d = delimiter
    let single = precision == .float32
    for i in 0..<block.count {
      try output.withSpace(4 * 48) { out in
        var w = 0
        for (k, column) in [block.t, block.x, block.y, block.z].enumerated() {
          if k > 0 {
            out[w] = d
            w += 1
          }
          w +=
            single
            ? _NumberFormatter.write(float: Float(column[i]), to: out + w)
            : _NumberFormatter.write(column[i], to: out + w)
        }
        out[w] = UInt8(ascii: "\n")
        return w + 1
      }
    }
  }

  public func finish() throws { try output.commit() }
}
