import AccelCore
import Dispatch

/// A writer of named columns (a trace's t, x, y, z, or any other set such as gravity's
/// t, gravity_x, ..., user_z), block by block.
public protocol TableSink: AnyObject {
  /// Writes one block: one array per column, all of the same length.
  func write(columns: [[Double]]) throws
  func finish() throws
}

/// The formats a table can be written in.
public enum TableFormat: Sendable {
  case csv(delimiter: UInt8)
  case npy
  case raw

  /// The format for `format` (csv, tsv, npy or raw; HDF5 is read, not written).
  public init(_ format: TraceFormat) throws {
    switch format {
    case .csv: self = .csv(delimiter: UInt8(ascii: ","))
    case .tsv: self = .csv(delimiter: UInt8(ascii: "\t"))
    case .npy: self = .npy
    case .raw: self = .raw
    case .hdf5:
      throw AccelError.usage(
        "accelkit reads HDF5 but does not write it",
        hint: "write NPY (.npy), which h5py and numpy read, or CSV")
    }
  }

  public var needsSeek: Bool {
    if case .npy = self { return true }
    return false
  }

  /// Opens `path` (an atomic output that refuses to replace any of `inputs`) as a table of `names`
  /// in `format`, or the format its extension names, else CSV.
  public static func openWriter(
    path: String, format: TraceFormat?, inputs: [ByteInput], names: [String], precision: SamplePrecision,
    significantDigits: Int? = nil
  ) throws -> TableSink {
    let table = try TableFormat(format ?? TraceFormat(pathExtensionOf: path) ?? .csv)
    let file = try OutputFile(path: path, inputs: inputs, needsSeek: table.needsSeek)
    return try table.makeWriter(
      output: file, names: names, precision: precision, significantDigits: significantDigits)
  }

  /// Opens a writer of `names` columns to `output`.
  /// `significantDigits` rounds CSV numbers (binary formats keep every bit).
  public func makeWriter(
    output: OutputFile, names: [String], precision: SamplePrecision, significantDigits: Int? = nil
  ) throws -> TableSink {
    switch self {
    case .csv(let delimiter):
      return try CSVTableWriter(
        output: output, names: names, delimiter: delimiter, precision: precision,
        significantDigits: significantDigits, pipelined: true)
    case .npy: return try NPYTableWriter(output: output, names: names, precision: precision, pipelined: true)
    case .raw: return RawTableWriter(output: output, precision: precision, pipelined: true)
    }
  }
}

/// A text column whose value in each row is one of a few names (a device orientation, a class):
/// `codes[i]` is the index in `names` of row i's value.
public struct CategoricalColumn {
  public var names: [[UInt8]]
  public var codes: [Int]

  public init(names: [String], codes: [Int]) {
    self.names = names.map { Array($0.utf8) }
    self.codes = codes
  }
}

/// CSV with a header of column names; numbers in their shortest round-trip form (Float's for
/// `.float32`), or rounded to `significantDigits` first (`--precision`: 0.3787 rather than
/// 0.37872300000000003; the time column `t` is never rounded: significant digits of an epoch
/// time would move it by minutes); NaN, a missing value, as an empty field.
///
/// Formatting numbers is most of the cost of writing CSV, so a large block is cut in two at a row
/// and the halves are formatted on two cores into buffers of their own, then written in order: the
/// bytes are the same as formatting on one core.
public final class CSVTableWriter: TableSink {
  private let output: OutputFile
  private let formatter: BlockFormatter
  private let columnCount: Int
  private var stage: BackgroundStage<([[Double]], CategoricalColumn?)>?

  /// `jobs`: the cores used to format (1: this thread only). `exact`: the columns that
  /// `significantDigits` leaves alone (times, counts). `pipelined`: blocks are formatted and
  /// written on a background thread while the caller computes the next (the caller must not
  /// write to `output` itself until `finish`; a failure is thrown by a later `write` or `finish`).
  public init(
    output: OutputFile, names: [String], delimiter: UInt8 = UInt8(ascii: ","),
    precision: SamplePrecision = .float64, significantDigits: Int? = nil, exact: Set<String> = ["t", "time"],
    jobs: Int = 2, pipelined: Bool = false
  ) throws {
    self.output = output
    let format = RowFormat(
      delimiter: delimiter, single: precision == .float32, significantDigits: significantDigits,
      rounds: names.map { !exact.contains($0) })
    formatter = BlockFormatter(output: output, format: format, jobs: max(1, min(jobs, 2)))
    columnCount = names.count
    try output.write(names.joined(separator: String(UnicodeScalar(delimiter))) + "\n")
    if pipelined {
      let formatter = formatter
      stage = BackgroundStage(depth: 2) { (block: ([[Double]], CategoricalColumn?)) in
        try formatter.write(columns: block.0, labels: block.1)
      }
    }
  }

  /// Waits for blocks still being written, so that an output given up (an error) is removed
  /// before the process ends.
  deinit { try? stage?.finish() }

  public func write(columns: [[Double]]) throws { try write(columns: columns, labels: nil) }

  /// Writes one block: `columns` of numbers and, when given, `labels` as the last column.
  public func write(columns: [[Double]], labels: CategoricalColumn?) throws {
    precondition(columns.count + (labels == nil ? 0 : 1) == columnCount)
    if let stage { return try stage.submit((columns, labels)) }
    try formatter.write(columns: columns, labels: labels)
  }

  public func finish() throws {
    try stage?.finish()
    try output.commit()
  }
}

/// Formats blocks of rows into an output, in halves on two cores when a block is large.
private final class BlockFormatter: @unchecked Sendable {
  private let output: OutputFile
  private let format: RowFormat
  private let jobs: Int
  private var buffers: [UnsafeMutablePointer<UInt8>] = []
  private var bufferCapacity = 0
  /// Below this many rows a block is formatted on one core (the hand-over costs more).
  static let parallelRows = 2048

  init(output: OutputFile, format: RowFormat, jobs: Int) {
    self.output = output
    self.format = format
    self.jobs = jobs
  }

  deinit { for buffer in buffers { buffer.deallocate() } }

  func write(columns: [[Double]], labels: CategoricalColumn?) throws {
    let rows = columns.first?.count ?? labels?.codes.count ?? 0
    let rowBytes = columns.count * 26 + 1 + (labels.map { $0.names.map(\.count).max() ?? 0 } ?? 0) + 1
    try withExtendedLifetime((columns, labels)) {
      // Base addresses, valid while `columns` is alive and unchanged (it is not changed here).
      let bases = columns.map { $0.withUnsafeBufferPointer { $0.baseAddress! } }
      let labelBases = labels.map { $0.codes.withUnsafeBufferPointer { $0.baseAddress! } }
      let block = RowBlock(columns: bases, labels: labels?.names, codes: labelBases)
      if jobs == 1 || rows < Self.parallelRows {
        let perChunk = max(1, (1 << 19) / rowBytes)
        var start = 0
        while start < rows {
          let end = min(rows, start + perChunk)
          try output.withSpace((end - start) * rowBytes) { out in
            format.write(block, rows: start..<end, to: out)
          }
          start = end
        }
        return
      }
      // Halves of at most `chunk` rows each, formatted in parallel, written in order.
      let chunk = max(Self.parallelRows / 2, min((rows + 1) / 2, (1 << 20) / rowBytes))
      ensureBuffers(bytes: chunk * rowBytes)
      var start = 0
      while start < rows {
        let middle = min(rows, start + chunk)
        let end = min(rows, middle + chunk)
        let ranges = [start..<middle, middle..<end]
        nonisolated(unsafe) let targets = buffers
        let lengths = ParallelLengths()
        let format = format
        nonisolated(unsafe) let shared = block
        DispatchQueue.concurrentPerform(iterations: 2) { part in
          lengths.set(part, format.write(shared, rows: ranges[part], to: targets[part]))
        }
        try output.write(UnsafeRawBufferPointer(start: buffers[0], count: lengths.values.0))
        try output.write(UnsafeRawBufferPointer(start: buffers[1], count: lengths.values.1))
        start = end
      }
    }
  }

  private func ensureBuffers(bytes: Int) {
    guard bytes > bufferCapacity else { return }
    for buffer in buffers { buffer.deallocate() }
    buffers = [.allocate(capacity: bytes), .allocate(capacity: bytes)]
    bufferCapacity = bytes
  }
}

/// The two halves' byte counts, each set by its own thread.
private final class ParallelLengths: @unchecked Sendable {
  var values: (Int, Int) = (0, 0)
  func set(_ part: Int, _ n: Int) {
    if part == 0 { values.0 = n } else { values.1 = n }
  }
}

/// A block's columns as raw pointers, for formatting on more than one thread.
private struct RowBlock {
  var columns: [UnsafePointer<Double>]
  var labels: [[UInt8]]?
  var codes: UnsafePointer<Int>?
}

/// How one row is written.
private struct RowFormat: Sendable {
  var delimiter: UInt8
  var single: Bool
  var significantDigits: Int?
  var rounds: [Bool]

  /// Formats `rows` of `block` at `out`; returns the bytes written.
  func write(_ block: RowBlock, rows: Range<Int>, to out: UnsafeMutablePointer<UInt8>) -> Int {
    var w = 0
    let d = delimiter
    let columns = block.columns
    for i in rows {
      for k in 0..<columns.count {
        if k > 0 {
          out[w] = d
          w += 1
        }
        let v = columns[k][i]
        if v.isNaN { continue }
        if let digits = significantDigits, rounds[k] {
          w += _NumberFormatter.write(roundedToSignificant(v, digits: digits), to: out + w)
        } else if single {
          w += _NumberFormatter.write(float: Float(v), to: out + w)
        } else {
          w += _NumberFormatter.write(v, to: out + w)
        }
      }
      if let labels = block.labels, let codes = block.codes {
        if !columns.isEmpty {
          out[w] = d
          w += 1
        }
        for byte in labels[codes[i]] {
          out[w] = byte
          w += 1
        }
      }
      out[w] = UInt8(ascii: "\n")
      w += 1
    }
    return w
  }
}

/// A structured NPY array with one little-endian f8 (or f4) field per column.
public final class NPYTableWriter: TableSink {
  private let records: InterleavedRecords
  private let precision: SamplePrecision
  private let names: [String]
  private var rows = 0
  private let headerLength: Int

  /// `pipelined`: see `InterleavedRecords`.
  public init(output: OutputFile, names: [String], precision: SamplePrecision = .float64, pipelined: Bool = false)
    throws
  {
    self.precision = precision
    self.names = names
    let code = precision == .float32 ? "<f4" : "<f8"
    // Room for any row count, so the header can be patched in place at the end.
    headerLength = NPYHeader.render(fieldNames: names, typeCode: code, rows: Int.max).count - 10
    try output.write(
      NPYHeader.render(fieldNames: names, typeCode: code, rows: 0, minimumLength: headerLength))
    records = InterleavedRecords(output: output, precision: precision, pipelined: pipelined)
  }

  public func write(columns: [[Double]]) throws {
    try records.write(columns)
    rows += columns.first?.count ?? 0
  }

  public func finish() throws {
    try records.drain()
    let code = precision == .float32 ? "<f4" : "<f8"
    try records.output.overwrite(
      at: 0,
      with: NPYHeader.render(fieldNames: names, typeCode: code, rows: rows, minimumLength: headerLength))
    try records.output.commit()
  }
}

/// Raw interleaved little-endian f8 (or f4) records, the columns in order.
public final class RawTableWriter: TableSink {
  private let records: InterleavedRecords

  /// `pipelined`: see `InterleavedRecords`.
  public init(output: OutputFile, precision: SamplePrecision, pipelined: Bool = false) {
    records = InterleavedRecords(output: output, precision: precision, pipelined: pipelined)
  }

  public func write(columns: [[Double]]) throws { try records.write(columns) }

  public func finish() throws {
    try records.drain()
    try records.output.commit()
  }
}

/// Columns written to `output` as interleaved records, on the caller's thread or, `pipelined`, on
/// a background thread while the caller computes the next block (the caller must not write to
/// `output` itself until `drain`; a failure is thrown by a later `write` or by `drain`). Copying
/// hundreds of megabytes into the page cache costs as much as parsing them: on another core it
/// overlaps.
final class InterleavedRecords {
  let output: OutputFile
  private let precision: SamplePrecision
  private var stage: BackgroundStage<[[Double]]>?

  init(output: OutputFile, precision: SamplePrecision, pipelined: Bool) {
    self.output = output
    self.precision = precision
    if pipelined {
      stage = BackgroundStage(depth: 2) { columns in
        try writeInterleaved(columns, precision: precision, to: output)
      }
    }
  }

  /// Waits for blocks still being written, so that an output given up is removed before the
  /// process ends.
  deinit { try? stage?.finish() }

  func write(_ columns: [[Double]]) throws {
    if let stage { return try stage.submit(columns) }
    try writeInterleaved(columns, precision: precision, to: output)
  }

  /// Waits until every block is in `output`'s hands; throws the first failure.
  func drain() throws { try stage?.finish() }
}

/// A trace sink over a table writer: writes the columns of `layout` (all of them, or the fields
/// chosen by position in `layout.columnNames`).
public final class TraceTableSink: TraceSink {
  private let table: TableSink
  private let layout: TraceLayout
  private let fields: [Int]?

  public init(_ table: TableSink, layout: TraceLayout = .accelerometer, fields: [Int]? = nil) {
    self.table = table
    self.layout = layout
    self.fields = fields
  }

  public func write(_ block: SampleBlock) throws {
    let all = block.columns(in: layout)
    try table.write(columns: fields.map { $0.map { all[$0] } } ?? all)
  }

  public func finish() throws { try table.finish() }
}

/// Writes columns interleaved as little-endian f8 or f4 records.
func writeInterleaved(_ columns: [[Double]], precision: SamplePrecision, to output: OutputFile) throws {
  let width = precision == .float32 ? 4 : 8
  let recordSize = width * columns.count
  let count = columns.first?.count ?? 0
  let perChunk = max(1, (1 << 16) / recordSize)
  var i = 0
  while i < count {
    let n = min(perChunk, count - i)
    try output.withSpace(n * recordSize) { out in
      let raw = UnsafeMutableRawPointer(out)
      if width == 8 && columns.count == 4 {
        // The common t, x, y, z record: one contiguous 32-byte store group per row.
        columns[0].withUnsafeBufferPointer { c0 in
          columns[1].withUnsafeBufferPointer { c1 in
            columns[2].withUnsafeBufferPointer { c2 in
              columns[3].withUnsafeBufferPointer { c3 in
                let (a, b, c, d) = (
                  c0.baseAddress! + i, c1.baseAddress! + i, c2.baseAddress! + i, c3.baseAddress! + i
                )
                for r in 0..<n {
                  let record = raw + r * 32
                  record.storeBytes(of: a[r].bitPattern.littleEndian, as: UInt64.self)
                  record.storeBytes(of: b[r].bitPattern.littleEndian, toByteOffset: 8, as: UInt64.self)
                  record.storeBytes(of: c[r].bitPattern.littleEndian, toByteOffset: 16, as: UInt64.self)
                  record.storeBytes(of: d[r].bitPattern.littleEndian, toByteOffset: 24, as: UInt64.self)
                }
              }
            }
          }
        }
        return n * recordSize
      }
      for (c, column) in columns.enumerated() {
        column.withUnsafeBufferPointer { buffer in
          let source = buffer.baseAddress! + i
          let base = raw + c * width
          if width == 8 {
            for r in 0..<n {
              base.storeBytes(
                of: source[r].bitPattern.littleEndian, toByteOffset: r * recordSize, as: UInt64.self)
            }
          } else {
            for r in 0..<n {
              base.storeBytes(
                of: Float(source[r]).bitPattern.littleEndian, toByteOffset: r * recordSize, as: UInt32.self)
            }
          }
        }
      }
      return n * recordSize
    }
    i += n
  }
}
