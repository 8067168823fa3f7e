import AccelCore

/// Writes a trace as a structured NPY array with fields t, x, y, z (little-endian f8, or f4 with
/// `.float32`), so that `numpy.load(path)["x"]` gives a column back.
///
/// The row count is not known until the end, so the header is written with room for any count and
/// patched by `finish()`.
public final class NPYTraceWriter: TraceSink {
  private let output: OutputFile
  private let precision: SamplePrecision
  private var rows = 0
  private let headerLength: Int
  private static let names = ["t", "x", "y", "z"]

  public init(output: OutputFile, precision: SamplePrecision = .float64) throws {
    self.output = output
    self.precision = precision
    let header = NPYHeader.render(
      fieldNames: Self.names, typeCode: Self.typeCode(precision), rows: 0, minimumLength: 0)
    let roomy = NPYHeader.render(
      fieldNames: Self.names, typeCode: Self.typeCode(precision), rows: Int.max,
      minimumLength: header.count - 10)
    headerLength = roomy.count - 10
    try output.write(
      NPYHeader.render(
        fieldNames: Self.names, typeCode: Self.typeCode(precision), rows: 0, minimumLength: headerLength))
  }

  static func typeCode(_ precision: SamplePrecision) -> String { precision == .float32 ? "<f4" : "<f8" }

  public func write(_ block: SampleBlock) throws {
    try writeInterleaved(block, includeTime: true, precision: precision, to: output)
    rows += block.count
  }

  public func finish() throws {
    let header = NPYHeader.render(
      fieldNames: Self.names, typeCode: Self.typeCode(precision), rows: rows, minimumLength: headerLength)
    try output.overwrite(at: 0, with: header)
    try output.commit()
  }
}

/// Writes a block as interleaved little-endian f8 or f4 records: `t x y z`, or `x y z` without
/// time.
func writeInterleaved(
  _ block: SampleBlock, includeTime: Bool, precision: SamplePrecision, to output: OutputFile
) throws {
  try block.t.withUnsafeBufferPointer { t in
    try block.x.withUnsafeBufferPointer { x in
      try block.y.withUnsafeBufferPointer { y in
        try block.z.withUnsafeBufferPointer { z in
          let columns = includeTime ? [t, x, y, z] : [x, y, z]
          try writeInterleaved(columns.map { $0.baseAddress! }, count: block.count, precision: precision, to: output)
        }
      }
    }
  }
}

private func writeInterleaved(
  _ columns: [UnsafePointer<Double>], count: Int, precision: SamplePrecision, to output: OutputFile
) throws {
  let width = precision == .float32 ? 4 : 8
  let recordSize = width * columns.count
  let perChunk = max(1, (1 << 16) / recordSize)
  var i = 0
  while i < count {
    let n = min(perChunk, count - i)
    try output.withSpace(n * recordSize) { out in
      let raw = UnsafeMutableRawPointer(out)
      for (c, column) in columns.enumerated() {
        let source = column + i
        let base = raw + c * width
        if width == 8 {
          for r in 0..<n {
            base.storeBytes(of: source[r].bitPattern.littleEndian, toByteOffset: r * recordSize, as: UInt64.self)
          }
        } else {
          for r in 0..<n {
            base.storeBytes(of: Float(source[r]).bitPattern.littleEndian, toByteOffset: r * recordSize, as: UInt32.self)
          }
        }
      }
      return n * recordSize
    }
    i += n
  }
}
