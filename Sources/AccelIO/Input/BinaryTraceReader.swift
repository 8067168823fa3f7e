import AccelCore

/// Reads fixed-size little-endian records (NPY data, raw interleaved binary) in blocks.
public final class BinaryTraceReader: TraceSource {
  public private(set) var metadata: TraceMetadata
  /// A mapped field: byte offset in the record, 4 or 8 bytes, and what it feeds.
  struct FieldMap {
    var offset: Int
    var isFloat32: Bool
    /// The storage slot it feeds (`TraceLayout.columnNames`), and whether it adds to an earlier
    /// field of the same slot (a sum) rather than assigning.
    var slot: Int
    var adds: Bool
    var name: String
  }

  private let input: ByteInput
  private let recordSize: Int
  private let fields: [FieldMap]
  private let expectedRows: Int?
  private let dataOffset: Int
  private let settings: TraceReadSettings
  private var conversion: SampleConversion
  private let blockSize: Int
  private var rowsRead = 0
  private var rowsEmitted = 0
  private var done = false
  /// The own record buffer (reads without read-ahead, and records that straddle chunks).
  private let raw: UnsafeMutableRawPointer
  /// The records of the current block: in `raw`, or in place in a chunk lent by the input.
  private var records: UnsafeRawPointer
  /// With read-ahead: the unread bytes of the chunk held (`chunkStart..<chunkEnd`).
  private var inChunks = false
  private var holdingChunk = false
  private var chunkStart: UnsafeMutableRawPointer?
  private var chunkEnd: UnsafeMutableRawPointer?
  private let columns: UnsafeMutablePointer<Double>
  private let columnCount: Int
  public private(set) var skippedRows = 0
  public private(set) var firstSkippedError: AccelError?
  /// Times that do not advance: rejected, skipped (with `skipBadRows`) or reported.
  public private(set) var timeOrder: TimeOrderCheck
  /// The input rows skipped (non-finite values) while filling the current block, ascending.
  private var skippedInBlock: [Int] = []
  private let hasTime: Bool
  private let formatName: String

  init(
    input: ByteInput, settings: TraceReadSettings, recordSize: Int, fields: [FieldMap],
    expectedRows: Int?, dataOffset: Int, hasTime: Bool, layout: TraceLayout, units: ResolvedUnits,
    formatName: String
  ) throws {
    self.input = input
    self.settings = settings
    self.recordSize = recordSize
    self.fields = fields
    self.expectedRows = expectedRows
    self.dataOffset = dataOffset
    self.formatName = formatName
    self.hasTime = hasTime
    timeOrder = TimeOrderCheck(policy: settings.timeOrderPolicy)
    blockSize = max(1, settings.blockSize)
    conversion = SampleConversion(settings: settings, units: units, layout: layout, hasTime: hasTime)
    let single = fields.allSatisfy(\.isFloat32)
    metadata = units.metadata(
      name: input.name, settings: settings, layout: layout, hasTime: hasTime,
      precision: single ? .float32 : .float64)
    columnCount = layout.columnCount
    if let expectedRows {
      // A header may promise any number of rows: the product must not overflow, and (for a file)
      // the data must be there.
      let (needed, overflow) = expectedRows.multipliedReportingOverflow(by: recordSize)
      if overflow || needed > Int.max - dataOffset {
        throw AccelError.data(
          DataLocation(file: input.name, byteOffset: 10),
          "the \(formatName) header promises \(expectedRows) rows of \(recordSize) bytes, more data than any file holds",
          hint: "the header is damaged; write the file again")
      }
    }
    if let size = input.regularFileSize {
      let dataBytes = size - dataOffset
      if let expectedRows {
        let needed = expectedRows * recordSize
        if dataBytes < needed {
          throw AccelError.data(
            DataLocation(file: input.name, byteOffset: size),
            "the \(formatName) file is truncated: its header promises \(expectedRows) rows "
              + "(\(needed) bytes of data) but it holds \(dataBytes) bytes "
              + "(\(dataBytes / recordSize) whole rows)",
            hint: "the file was cut short; write it again")
        }
      } else if dataBytes % recordSize != 0 {
        throw AccelError.data(
          DataLocation(file: input.name, byteOffset: size - dataBytes % recordSize),
          "the \(formatName) file ends with a partial record: \(dataBytes) bytes is not a multiple "
            + "of the \(recordSize)-byte record",
          hint: "check --layout and the value type (f32 or f64); the file may be cut short")
      }
    }
    raw = .allocate(byteCount: recordSize * blockSize, alignment: 16)
    records = UnsafeRawPointer(raw)
    columns = .allocate(capacity: columnCount * blockSize)
    columns.initialize(repeating: 0, count: columnCount * blockSize)
    input.startReadAhead(chunkSize: settings.readBufferSize)
    // Lent chunks need room in front for a record cut by the chunk's end.
    inChunks = input.readsInChunks && input.chunkReserve >= recordSize
  }

  deinit {
    raw.deallocate()
    columns.deallocate()
  }

  public func next() throws -> SampleBlock? {
    while true {
      let firstRow = rowsRead
      guard let block = try nextRows() else { return nil }
      guard hasTime else { return block }
      let timeOffset = fields.first(where: { $0.slot == 0 })?.offset ?? 0
      let skippedBefore = skippedInBlock
      let kept = try timeOrder.filter(block, skipped: &skippedRows, firstSkipped: &firstSkippedError) { i in
        // The block's row i is input row firstRow + i plus the rows skipped before it.
        var row = firstRow + i
        for skipped in skippedBefore where skipped <= row { row += 1 }
        return DataLocation(
          file: input.name, byteOffset: dataOffset + row * recordSize + timeOffset, row: row + 1)
      }
      if let kept { return kept }
    }
  }

  private func nextRows() throws -> SampleBlock? {
    guard !done else { return nil }
    let cap = blockSize
    var n = 0
    skippedInBlock.removeAll(keepingCapacity: true)
    // Fill the block from as many pieces as it takes (chunks lent by the read-ahead end anywhere).
    while n < cap {
      var want = cap - n
      if let expectedRows { want = min(want, expectedRows - rowsRead) }
      if want == 0 { break }
      let (got, atEnd) = try nextRecords(upTo: want)
      let rows = got / recordSize
      if got % recordSize != 0 || (expectedRows != nil && atEnd && rows < want) {
        let offset = dataOffset + (rowsRead + rows) * recordSize
        if expectedRows != nil {
          throw AccelError.data(
            DataLocation(file: input.name, byteOffset: dataOffset + rowsRead * recordSize + got),
            "the \(formatName) file is truncated: its header promises \(expectedRows!) rows but "
              + "the data ends after \(rowsRead + rows)",
            hint: "the file was cut short; write it again")
        }
        throw AccelError.data(
          DataLocation(file: input.name, byteOffset: offset),
          "the \(formatName) input ends with a partial record of \(got % recordSize) bytes "
            + "(records are \(recordSize) bytes)",
          hint: "check --layout and the value type (f32 or f64); the input may be cut short")
      }
      if rows == 0 { break }
      if gatherRecords(rows: rows, into: n, capacity: cap) || settings.allowNonFinite {
        n += rows
      } else {
        // The slow path: reject (or skip) the rows holding NaN or infinity.
        rowLoop: for r in 0..<rows {
          if let field = nonFiniteField(row: r) {
            let error = AccelError.data(
              DataLocation(file: input.name, byteOffset: dataOffset + (rowsRead + r) * recordSize + field.offset),
              "row \(rowsRead + r + 1), field \"\(field.name)\" is \(value(row: r, field: field)), not a finite number",
              hint: "pass --allow-nonfinite to keep NaN and infinite values, or --skip-bad-rows to drop the row")
            guard settings.skipBadRows else { throw error }
            skippedInBlock.append(rowsRead + r)
            skippedRows += 1
            if firstSkippedError == nil { firstSkippedError = error }
            continue rowLoop
          }
          gather(row: r, into: n, capacity: cap)
          n += 1
        }
      }
      rowsRead += rows
      if atEnd { break }
    }
    if n == 0 {
      done = true
      return try finishEmpty()
    }
    let firstTime = columns[0]
    let block = conversion.makeBlock(columns, capacity: cap, count: n, firstIndex: rowsEmitted)
    if rowsEmitted == 0 { noteFirstBlock(block, first: firstTime, conversion: conversion, hasTime: hasTime, in: &metadata) }
    rowsEmitted += n
    return block
  }

  /// Copies `rows` records from `records` into the columns from slot `n` on; returns whether
  /// every value read is finite.
  private func gatherRecords(rows: Int, into n: Int, capacity cap: Int) -> Bool {
    if fields.count == 4 && columnCount == 4 && metadata.layout.extras.isEmpty && fields.allSatisfy({ !$0.isFloat32 && !$0.adds }) {
      // Four doubles (t, x, y, z in any order): row by row, records read in order, and the
      // finiteness test (all exponent bits set) folded in as integer work.
      let (f0, f1, f2, f3) = (fields[0], fields[1], fields[2], fields[3])
      let (c0, c1, c2, c3) = (
        columns + f0.slot * cap + n, columns + f1.slot * cap + n,
        columns + f2.slot * cap + n, columns + f3.slot * cap + n
      )
      let (o0, o1, o2, o3) = (f0.offset, f1.offset, f2.offset, f3.offset)
      let exponent: UInt64 = 0x7FF0_0000_0000_0000
      var nonFinite: UInt64 = 0
      var record = records
      for r in 0..<rows {
        let b0 = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: o0, as: UInt64.self))
        let b1 = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: o1, as: UInt64.self))
        let b2 = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: o2, as: UInt64.self))
        let b3 = UInt64(littleEndian: record.loadUnaligned(fromByteOffset: o3, as: UInt64.self))
        c0[r] = Double(bitPattern: b0)
        c1[r] = Double(bitPattern: b1)
        c2[r] = Double(bitPattern: b2)
        c3[r] = Double(bitPattern: b3)
        nonFinite |= (b0 & exponent == exponent ? 1 : 0) | (b1 & exponent == exponent ? 1 : 0)
          | (b2 & exponent == exponent ? 1 : 0) | (b3 & exponent == exponent ? 1 : 0)
        record += recordSize
      }
      return nonFinite == 0
    }
    // Any other record: one strided gather per field over the whole block.
    for field in fields {
      let column = columns + field.slot * cap + n
      let adds = field.adds
      let base = records + field.offset
      let stride = recordSize
      if field.isFloat32 {
        for r in 0..<rows {
          let v = Double(Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: r * stride, as: UInt32.self))))
          column[r] = adds ? column[r] + v : v
        }
      } else if adds {
        for r in 0..<rows {
          column[r] += Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: r * stride, as: UInt64.self)))
        }
      } else {
        for r in 0..<rows {
          column[r] = Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: r * stride, as: UInt64.self)))
        }
      }
    }
    return allFinite(rows: rows, from: n, capacity: cap)
  }

  @inline(__always)
  private func value(row r: Int, field: FieldMap) -> Double {
    let at = r * recordSize + field.offset
    return field.isFloat32
      ? Double(Float(bitPattern: UInt32(littleEndian: records.loadUnaligned(fromByteOffset: at, as: UInt32.self))))
      : Double(bitPattern: UInt64(littleEndian: records.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
  }

  /// Whether the gathered columns are all finite: v * 0 is NaN exactly for NaN and infinity
  /// (four accumulators, so the sum is not one long dependency chain).
  private func allFinite(rows: Int, from n: Int, capacity cap: Int) -> Bool {
    var p0 = 0.0, p1 = 0.0, p2 = 0.0, p3 = 0.0
    // Kept extra columns may hold NaN (a truth column with holes): only the sensors are checked.
    for k in 0..<metadata.layout.channels.count {
      let column = columns + k * cap + n
      var r = 0
      while r + 4 <= rows {
        p0 += column[r] * 0
        p1 += column[r + 1] * 0
        p2 += column[r + 2] * 0
        p3 += column[r + 3] * 0
        r += 4
      }
      while r < rows {
        p0 += column[r] * 0
        r += 1
      }
    }
    return !(p0 + p1 + p2 + p3).isNaN
  }

  private func nonFiniteField(row r: Int) -> FieldMap? {
    fields.first { $0.slot < metadata.layout.channels.count && !value(row: r, field: $0).isFinite }
  }

  /// Points `records` at 1 to `want` whole records and returns their byte count, or, at the end
  /// of the input (`atEnd`), at what is left: possibly fewer records and a partial one's bytes
  /// (the caller reports those). With read-ahead the records are read in place from the lent
  /// chunk (as many as it holds); a record cut by a chunk's end is completed in the reserve in
  /// front of the next chunk.
  private func nextRecords(upTo want: Int) throws -> (bytes: Int, atEnd: Bool) {
    guard inChunks else {
      records = UnsafeRawPointer(raw)
      let got = try input.readFully(into: raw, count: want * recordSize)
      return (got, got < want * recordSize)
    }
    while true {
      if let start = chunkStart, let end = chunkEnd {
        let available = start.distance(to: end)
        if available >= recordSize {
          let bytes = min(want, available / recordSize) * recordSize
          records = UnsafeRawPointer(start)
          chunkStart = start + bytes
          return (bytes, false)
        }
      }
      // Fewer than one record left: carry it in front of the next chunk.
      let leftover = chunkStart.map { $0.distance(to: chunkEnd!) } ?? 0
      let chunk = try input.takeChunk()
      if chunk.isEmpty {
        records = UnsafeRawPointer(chunkStart ?? raw)
        chunkStart = chunkEnd
        return (leftover, true)
      }
      let data = chunk.baseAddress!
      if leftover > 0 { (data - leftover).copyMemory(from: chunkStart!, byteCount: leftover) }
      if holdingChunk { input.releaseChunk() }
      holdingChunk = true
      chunkStart = data - leftover
      chunkEnd = data + chunk.count
    }
  }

  /// Copies row `r` of `raw` into slot `n` of the column buffers (fields in record order, the
  /// leftmost of a sum assigning).
  private func gather(row r: Int, into n: Int, capacity cap: Int) {
    for field in fields {
      let column = columns + field.slot * cap
      let v = value(row: r, field: field)
      column[n] = field.adds ? column[n] + v : v
    }
  }

  private func finishEmpty() throws -> SampleBlock? {
    if rowsEmitted == 0 {
      throw AccelError.data(
        DataLocation(file: input.name, byteOffset: dataOffset),
        skippedRows > 0 ? "no valid rows: all \(skippedRows) rows were bad" : "the \(formatName) input holds no samples",
        hint: "a trace needs at least one sample")
    }
    return nil
  }

  /// Opens an NPY file: a structured array with fields t, x, y, z (or mapped with `--columns`),
  /// or a plain 2-D float array of 3 (x y z) or 4 (t x y z) columns.
  public static func npy(input: ByteInput, settings: TraceReadSettings) throws -> BinaryTraceReader {
    let (header, _) = try NPYHeader.parse(input)
    let name = input.name
    let rows: Int
    var names: [String]? = nil
    var layoutFields: [NPYHeader.Field]
    let recordSize: Int
    if header.isPlain {
      guard header.shape.count == 2 else {
        throw AccelError.data(
          DataLocation(file: name, byteOffset: 10),
          "the NPY array has shape \(header.shape); accelkit reads a structured array with fields "
            + "t, x, y, z or a 2-D array of 3 or 4 columns")
      }
      guard !header.fortranOrder else {
        throw AccelError.data(
          DataLocation(file: name, byteOffset: 10),
          "the NPY array is in Fortran (column-major) order, which accelkit does not stream",
          hint: "save it with numpy.ascontiguousarray(a) first")
      }
      rows = header.shape[0]
      let f = header.fields[0]
      let (size, overflow) = f.size.multipliedReportingOverflow(by: header.shape[1])
      guard !overflow, size > 0, size <= NPYHeader.maximumRecordSize else {
        throw AccelError.data(
          DataLocation(file: name, byteOffset: 10),
          "the NPY array has shape \(header.shape): rows of \(header.shape[1]) columns, which accelkit does not read "
            + "(it reads 3 or 4 columns, and rows of up to \(NPYHeader.maximumRecordSize) bytes)")
      }
      layoutFields = (0..<header.shape[1]).map {
        NPYHeader.Field(name: "column \($0 + 1)", typeCode: f.typeCode, offset: $0 * f.size, size: f.size)
      }
      recordSize = size
    } else {
      guard header.shape.count == 1 else {
        throw AccelError.data(
          DataLocation(file: name, byteOffset: 10),
          "the structured NPY array has shape \(header.shape); accelkit reads 1-D record arrays")
      }
      rows = header.shape[0]
      layoutFields = header.fields
      names = header.fields.map(\.name)
      recordSize = header.itemSize
    }
    let resolved = try ResolvedColumns.resolve(
      spec: settings.columns, keep: settings.keep, header: names, fieldCount: layoutFields.count, file: name)
    var maps: [FieldMap] = []
    for (i, target) in resolved.targets.enumerated() {
      guard let target else { continue }
      let field = layoutFields[i]
      let code = field.typeCode
      let kind = code.drop { "<>|=".contains($0) }
      guard kind == "f8" || kind == "f4" else {
        throw AccelError.data(
          DataLocation(file: name, byteOffset: 10),
          "field \"\(resolved.fieldNames[i])\" has type '\(code)'; accelkit reads float fields (f8 or f4)")
      }
      guard !code.hasPrefix(">") else {
        throw AccelError.data(
          DataLocation(file: name, byteOffset: 10),
          "field \"\(resolved.fieldNames[i])\" is big-endian ('\(code)'); accelkit reads little-endian data",
          hint: "convert with a.astype(a.dtype.newbyteorder('<')) first")
      }
      maps.append(
        FieldMap(
          offset: field.offset, isFloat32: kind == "f4", slot: target, adds: resolved.adds[i],
          name: resolved.fieldNames[i]))
    }
    if !resolved.hasTime && settings.rate == nil {
      throw AccelError.usage(
        "\(name) has no time field; give the sample rate with --rate HZ",
        hint: "or map a time field with --columns t=NAME")
    }
    let units = try ResolvedUnits(
      settings: settings, layout: resolved.layout, names: names == nil ? [:] : resolved.groupNames, file: name)
    return try BinaryTraceReader(
      input: input, settings: settings, recordSize: recordSize, fields: maps, expectedRows: rows,
      dataOffset: header.dataOffset, hasTime: resolved.hasTime, layout: resolved.layout, units: units,
      formatName: "NPY")
  }

  /// Opens raw interleaved little-endian binary: records of the channels of `settings.rawLayout`
  /// (`txyz` by default), f8 or f4.
  public static func raw(input: ByteInput, settings: TraceReadSettings) throws -> BinaryTraceReader {
    let width = settings.rawPrecision == .float32 ? 4 : 8
    let raw = settings.rawLayout
    if !raw.hasTime && settings.rate == nil {
      throw AccelError.usage(
        "raw input with --layout \(raw) has no time field; give the sample rate with --rate HZ")
    }
    let layout = raw.traceLayout
    let maps = raw.channels.enumerated().map { i, channel in
      FieldMap(offset: i * width, isFloat32: width == 4, slot: layout.index(of: channel)!, adds: false, name: channel.name)
    }
    let units = try ResolvedUnits(settings: settings, layout: layout, names: [:], file: input.name)
    return try BinaryTraceReader(
      input: input, settings: settings, recordSize: width * raw.fieldCount, fields: maps, expectedRows: nil,
      dataOffset: 0, hasTime: raw.hasTime, layout: layout, units: units, formatName: "raw")
  }
}
