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
    try writeInterleaved(block, fields: [block.t, block.x, block.y, block.z], precision: precision, to: output)
    rows += block.count
  }

  public func finish() throws {
    let header = NPYHeader.render(
      fieldNames: Self.names, typeCode: Self.typeCode(precision), rows: rows, minimumLength: headerLength)
    try output.overwrite(at: 0, with: header)
    try output.commit()
  }
}

/// Writes columns interleaved as little-endian f8 or f4 records.
func writeInterleaved(
  _ block: SampleBlock, fields: [[Double]], precision: SamplePrecision, to output: OutputFile
) throws {
  let width = precision == .float32 ? 4 : 8
  let recordSize = width * fields.count
  let perChunk = max(1, (1 << 16) / recordSize)
  var i = 0
  while i < block.count {
    let n = min(perChunk, block.count - i)
    try output.withSpace(n * recordSize) { out in
      let raw = UnsafeMutableRawPointer(out)
      for r in 0..<n {
        for (k, column) in fields.enumerated() {
          let offset = r * recordSize + k * width
          if width == 8 {
            raw.storeBytes(of: column[i + r].bitPattern.littleEndian, toByteOffset: offset, as: UInt64.self)
          } else {
            raw.storeBytes(
              of: Float(column[i + r]).bitPattern.littleEndian, toByteOffset: offset, as: UInt32.self)
          }
        }
      }
      return n * recordSize
    }
    i += n
  }
}
