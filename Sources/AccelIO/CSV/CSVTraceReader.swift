import AccelCore
import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads CSV/TSV traces in fixed-size blocks, straight from bytes.
///
/// Accepts comma, tab or semicolon delimiters (detected from the first line unless given), a header
/// row (or none), quoted fields (with `""` escapes and line breaks inside), CRLF line ends, a UTF-8
/// byte-order mark, spaces around fields, blank lines and trailing delimiters. Numbers are parsed
/// exactly as `strtod` would. Memory is bounded by the block size and the longest row.
public final class CSVTraceReader: TraceSource {
  public private(set) var metadata: TraceMetadata
  public let columns: ResolvedColumns
  public let delimiter: UInt8
  /// Rows skipped with `skipBadRows`, and the first such row's error.
  public private(set) var skippedRows = 0
  public private(set) var firstSkippedError: AccelError?
  /// Times that do not advance: rejected, skipped (with `skipBadRows`) or reported.
  public private(set) var timeOrder: TimeOrderCheck
  /// Where the rows of the block being filled start: (row, line) at each row whose line does not
  /// follow from the mark before (rows are one a line in between), for naming a row's line.
  private var lineMarks: [(row: Int, line: Int)] = []

  private let input: ByteInput
  private let settings: TraceReadSettings
  private var conversion: SampleConversion
  /// The bytes being parsed: `ownBuffer`, or a chunk lent by the input's read-ahead.
  private var buffer: UnsafeMutablePointer<UInt8>
  private var ownBuffer: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// Whether refills take the input's chunks in place, and whether one is held.
  private var inChunks = false
  private var holdingChunk = false
  private var start = 0
  private var end = 0
  private var limit = 0
  private var eof = false
  private var line = 1
  private var rowsEmitted = 0
  private var finished = false
  private let columnBuffers: UnsafeMutablePointer<Double>
  private let blockSize: Int
  /// Per field: the storage slot it feeds, with `addFlag` set when it adds to an earlier field
  /// (a sum); -1 when the field is not read.
  private let codePointer: UnsafeMutablePointer<Int32>
  static let addFlag: Int32 = 1 << 16
  private let codeCount: Int
  /// For the plain-row fast path: each field's offset into `columnBuffers` (-1: not read); nil
  /// when a column is a sum (those rows take the general path).
  private let plainOffsets: UnsafeMutablePointer<Int>?
  private var plainEnabled: Bool
  /// 10^0 ... 10^22, for the fast path (a table load rather than a jump).
  private let powersOfTen: UnsafeMutablePointer<Double>
  private var plainRows = 0
  private var plainBytes = 0
  /// Calls of the fast path to let pass before two threads are tried again, and the current wait.
  private var parallelCooldown = 0
  private var parallelBackoff = 0
  /// Rows the second thread parsed (for tests).
  private(set) var helperRows = 0
  private var plainMisses = 0
  /// The second thread of the plain-row fast path (nil: one thread).
  private let parallelHelper: PlainRowHelper?
  /// The error of the row being parsed, set by the slow paths.
  private var pendingError: AccelError?
  /// Whether the time column held an ISO 8601 date-time.
  private var readsDateTimes = false
  /// Whether commas in the data are decimal points.
  private let decimalComma: Bool

  /// Opens a CSV trace: reads the header (or the first row when there is none), resolves the
  /// columns and units. Throws data errors for an empty file or a header without the needed columns.
  public init(input: ByteInput, settings requested: TraceReadSettings) throws {
    var settings = requested
    timeOrder = TimeOrderCheck(policy: requested.timeOrderPolicy)
    let blockSize = max(1, settings.blockSize)
    var capacity = max(16, settings.readBufferSize)
    var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + Self.padding)
    var start = 0
    var end = 0
    var eof = false
    var line = 1
    var ok = false
    defer { if !ok { buffer.deallocate() } }

    // Fill until the first non-blank line is complete.
    var firstLine: Range<Int>? = nil
    var bomChecked = false
    while firstLine == nil {
      if !eof {
        try Self.readMore(
          input: input, buffer: &buffer, capacity: &capacity, start: &start, end: &end, eof: &eof)
      }
      if !bomChecked && (end - start >= 3 || eof) {
        bomChecked = true
        if end - start >= 3 && buffer[start] == 0xEF && buffer[start + 1] == 0xBB
          && buffer[start + 2] == 0xBF
        {
          start += 3
        }
      }
      // Skip blank lines.
      var p = start
      while p < end {
        if buffer[p] == UInt8(ascii: "\n") {
          p += 1
          line += 1
          start = p
        } else if CSVDialect.isBlank(buffer[p]) {
          p += 1
        } else {
          break
        }
      }
      if let nl = Self.firstNewline(buffer, from: start, to: end) {
        firstLine = start..<nl
      } else if eof {
        if p < end {
          firstLine = start..<end
        } else {
          throw AccelError.data(
            DataLocation(file: input.name), "the file is empty: no header and no rows",
            hint: "check the path; accelkit needs a header line and at least one row")
        }
      }
    }
    var lineBytes = Array(UnsafeBufferPointer(start: buffer + firstLine!.lowerBound, count: firstLine!.count))
    if lineBytes.last == UInt8(ascii: "\r") { lineBytes.removeLast() }
    let delimiter = settings.delimiter ?? CSVDialect.detectDelimiter(in: lineBytes)
    let firstFields = CSVDialect.split(lineBytes, delimiter: delimiter)
    var header: [String]? = nil
    if settings.hasHeader {
      header = firstFields
      let nonEmpty = firstFields.filter { !$0.isEmpty }
      let numeric = nonEmpty.filter { parseDecimal(Substring($0)) != nil }
      if !nonEmpty.isEmpty && numeric.count == nonEmpty.count && settings.columns == nil {
        throw AccelError.data(
          DataLocation(file: input.name, line: line),
          "the first line looks like data, not a header: \(ResolvedColumns.quotedList(firstFields))",
          hint: "pass --no-header (and --rate HZ if there is no time column), or a --preset")
      }
      start = min(firstLine!.upperBound + 1, end)
      line += 1
    }
    if let options = settings.recogniseWith, let header, let preset = Preset.recognising(header: header) {
      settings = try options.settings(recognised: preset, over: settings)
    }
    // A decimal comma: asked for, or seen in the first row's fields when the delimiter is not a
    // comma. The data is then read with each comma as a decimal point (the delimiter is not one).
    var decimalComma = settings.decimalComma ?? false
    if decimalComma && delimiter == UInt8(ascii: ",") {
      throw AccelError.usage(
        "--decimal-comma needs a delimiter other than a comma (\(input.name) is delimited by commas)",
        hint: "give the delimiter with --delimiter ';' or --delimiter tab")
    }
    if settings.decimalComma == nil && delimiter != UInt8(ascii: ",") {
      var row = firstFields
      if settings.hasHeader, let nl = Self.firstNewline(buffer, from: start, to: end) {
        var bytes = Array(UnsafeBufferPointer(start: buffer + start, count: nl - start))
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        row = CSVDialect.split(bytes, delimiter: delimiter)
      } else if settings.hasHeader {
        row = []
      }
      decimalComma = row.contains(where: Self.looksLikeDecimalComma)
    }
    let columns = try ResolvedColumns.resolve(
      spec: settings.columns, keep: settings.keep, header: header, fieldCount: firstFields.count,
      file: input.name)
    self.columns = columns
    // Everything that can throw comes before the allocations below (a throwing initialiser does
    // not run deinit, so they would leak).
    let units = try ResolvedUnits(
      settings: settings, layout: columns.layout, names: header == nil ? [:] : columns.groupNames,
      file: input.name)
    if !columns.hasTime && settings.rate == nil {
      throw AccelError.usage(
        "\(input.name) has no time column; give the sample rate with --rate HZ",
        hint: "or map a time column with --columns t=NAME (and --time-unit if it is not seconds)")
    }
    var codes = [Int32](repeating: -1, count: columns.targets.count)
    for (i, target) in columns.targets.enumerated() {
      if let target { codes[i] = Int32(target) | (columns.adds[i] ? Self.addFlag : 0) }
    }
    codePointer = .allocate(capacity: max(1, codes.count))
    codePointer.initialize(from: codes, count: codes.count)
    codeCount = codes.count
    powersOfTen = .allocate(capacity: 23)
    for e in 0...22 { powersOfTen[e] = _FloatParser.power(e) }
    if codes.contains(where: { $0 >= Self.addFlag }) {
      plainOffsets = nil
      plainEnabled = false
    } else {
      let offsets = UnsafeMutablePointer<Int>.allocate(capacity: max(1, codes.count))
      for (i, code) in codes.enumerated() { offsets[i] = code < 0 ? -1 : Int(code) * blockSize }
      plainOffsets = offsets
      plainEnabled = true
    }
    parallelHelper =
      plainOffsets != nil && settings.parseThreads > 1 && sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
      ? PlainRowHelper(doubles: columns.layout.columnCount * blockSize, rows: blockSize) : nil

    self.input = input
    self.settings = settings
    self.blockSize = blockSize
    self.delimiter = delimiter
    self.buffer = buffer
    self.ownBuffer = buffer
    self.capacity = capacity
    self.start = start
    self.end = end
    self.eof = eof
    self.line = line
    columnBuffers = .allocate(capacity: columns.layout.columnCount * blockSize)
    conversion = SampleConversion(
      settings: settings, units: units, layout: columns.layout, hasTime: columns.hasTime)
    metadata = units.metadata(
      name: input.name, settings: settings, layout: columns.layout, hasTime: columns.hasTime,
      precision: .float64)
    self.decimalComma = decimalComma
    if decimalComma {
      Self.translateCommas(buffer, from: start, to: end)
      metadata.notes.append("numbers have a decimal comma (1,5): read with the comma as the decimal point")
    }
    computeLimit()
    if !eof {
      input.startReadAhead(chunkSize: settings.readBufferSize)
      inChunks = input.readsInChunks
    }
    ok = true
  }

  deinit {
    ownBuffer.deallocate()
    columnBuffers.deallocate()
    codePointer.deallocate()
    plainOffsets?.deallocate()
    powersOfTen.deallocate()
  }

  public func next() throws -> SampleBlock? {
    while true {
      guard let block = try nextRows() else { return nil }
      guard columns.hasTime else { return block }
      let timeColumn = (columns.targets.firstIndex(of: 0) ?? 0) + 1
      let kept = try timeOrder.filter(block, skipped: &skippedRows, firstSkipped: &firstSkippedError) {
        DataLocation(file: input.name, line: line(ofRow: $0), column: timeColumn)
      }
      if let kept { return kept }
    }
  }

  /// The line of row `row` of the block just filled.
  private func line(ofRow row: Int) -> Int {
    let mark = lineMarks.last(where: { $0.row <= row }) ?? (row: 0, line: line)
    return mark.line + (row - mark.row)
  }

  /// Notes that row `row` of the block is on line `line`.
  @inline(__always)
  private func mark(row: Int, line: Int) {
    if let last = lineMarks.last, line - row == last.line - last.row { return }
    lineMarks.append((row, line))
  }

  private func nextRows() throws -> SampleBlock? {
    guard !finished else { return nil }
    var n = 0
    lineMarks.removeAll(keepingCapacity: true)
    while n < blockSize {
      if start >= limit {
        if eof { break }
        try refill()
        continue
      }
      let needMore = try parseRows(count: &n)
      if needMore {
        if eof {
          throw AccelError.data(
            DataLocation(file: input.name, line: line),
            "a quoted field is not closed before the end of the file",
            hint: "check the quotes on this row")
        }
        try refill()
      }
    }
    if n == 0 {
      finished = true
      if rowsEmitted == 0 {
        throw AccelError.data(
          DataLocation(file: input.name, line: line),
          skippedRows > 0
            ? "no valid rows: all \(skippedRows) rows were bad" : "the file has a header but no rows",
          hint: skippedRows > 0 ? firstSkippedError?.message : "a trace needs at least one sample")
      }
      return nil
    }
    if readsDateTimes, let unit = settings.timeUnit, unit != .s {
      throw AccelError.usage(
        "--time-unit \(unit.rawValue) does not apply to \(input.name): its time column holds ISO 8601 date-times",
        hint: "leave --time-unit out: date-times are read as seconds since the epoch")
    }
    let firstTime = columnBuffers[0]
    let block = conversion.makeBlock(columnBuffers, capacity: blockSize, count: n, firstIndex: rowsEmitted)
    if rowsEmitted == 0 { noteFirstBlock(block, first: firstTime, conversion: conversion, hasTime: columns.hasTime, in: &metadata) }
    rowsEmitted += n
    return block
  }

  // MARK: - Buffering

  private func refill() throws {
    let kept = end - start
    if inChunks {
      try takeChunk()
    } else {
      try Self.readMore(
        input: input, buffer: &ownBuffer, capacity: &capacity, start: &start, end: &end, eof: &eof)
      buffer = ownBuffer
    }
    // The bytes kept from before come first (at `start`), then the new ones.
    if decimalComma { Self.translateCommas(buffer, from: start + kept, to: end) }
    computeLimit()
  }

  /// Whether a field reads like a number with a decimal comma: `-12,5`, `1,5E-3`.
  static func looksLikeDecimalComma(_ field: String) -> Bool {
    var bytes = Array(field.utf8)[...]
    if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
    guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else { return false }
    let whole = bytes[..<comma]
    var rest = bytes[(comma + 1)...]
    if let e = rest.firstIndex(where: { $0 | 0x20 == UInt8(ascii: "e") }) {
      var exponent = rest[(e + 1)...]
      if exponent.first == UInt8(ascii: "-") || exponent.first == UInt8(ascii: "+") {
        exponent = exponent.dropFirst()
      }
      guard !exponent.isEmpty, exponent.allSatisfy(Self.isDigit) else { return false }
      rest = rest[..<e]
    }
    return !whole.isEmpty && !rest.isEmpty && whole.allSatisfy(Self.isDigit) && rest.allSatisfy(Self.isDigit)
  }

  static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

  /// Turns every comma in `from..<to` into a decimal point.
  static func translateCommas(_ buffer: UnsafeMutablePointer<UInt8>, from: Int, to: Int) {
    var p = from
    while p < to, let found = memchr(buffer + p, Int32(UInt8(ascii: ",")), to - p) {
      let at = buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
      buffer[at] = UInt8(ascii: ".")
      p = at + 1
    }
  }

  /// Moves the unparsed bytes in front of the input's next chunk (into its reserve) and parses
  /// there: no copy of the chunk itself. A row longer than the reserve goes back to the own,
  /// growing buffer for the rest of the input.
  private func takeChunk() throws {
    let leftover = end - start
    guard leftover <= input.chunkReserve else {
      if leftover >= capacity {
        capacity = leftover * 2
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + Self.padding)
        bigger.update(from: buffer + start, count: leftover)
        ownBuffer.deallocate()
        ownBuffer = bigger
      } else if leftover > 0 {
        memmove(ownBuffer, buffer + start, leftover)
      }
      if holdingChunk { input.releaseChunk() }
      holdingChunk = false
      inChunks = false
      buffer = ownBuffer
      start = 0
      end = leftover
      try Self.readMore(
        input: input, buffer: &ownBuffer, capacity: &capacity, start: &start, end: &end, eof: &eof)
      buffer = ownBuffer
      return
    }
    let chunk = try input.takeChunk()
    if chunk.isEmpty {
      eof = true
      return
    }
    let data = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
    let newStart = data - leftover
    newStart.update(from: buffer + start, count: leftover)
    if holdingChunk { input.releaseChunk() }
    holdingChunk = true
    buffer = newStart
    start = 0
    end = leftover + chunk.count
    buffer[end] = UInt8(ascii: "\n")
    (buffer + end + 1).initialize(repeating: 0, count: Self.padding - 1)
  }

  /// Bytes allocated past the buffer's capacity: the sentinel and room for 8-byte loads. Lent
  /// chunks have `ByteInput.chunkPadding` (more) bytes behind them for the same use.
  static let padding = 24

  /// Compacts the buffer, grows it when it is full, and reads more. Leaves a `\n` sentinel at
  /// `buffer[end]` followed by zero bytes (the number parser reads 8 bytes at a time).
  private static func readMore(
    input: ByteInput, buffer: inout UnsafeMutablePointer<UInt8>, capacity: inout Int,
    start: inout Int, end: inout Int, eof: inout Bool
  ) throws {
    if start > 0 {
      let remaining = end - start
      if remaining > 0 { memmove(buffer, buffer + start, remaining) }
      end = remaining
      start = 0
    }
    if end == capacity {
      let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2 + Self.padding)
      bigger.update(from: buffer, count: end)
      buffer.deallocate()
      buffer = bigger
      capacity *= 2
    }
    let n = try input.read(into: buffer + end, count: capacity - end)
    if n == 0 { eof = true }
    end += n
    buffer[end] = UInt8(ascii: "\n")
    (buffer + end + 1).initialize(repeating: 0, count: padding - 1)
  }

  private func computeLimit() {
    buffer[end] = UInt8(ascii: "\n")
    if eof {
      limit = (end > start && buffer[end - 1] != UInt8(ascii: "\n")) ? end + 1 : end
      return
    }
    var p = end
    while p > start {
      if buffer[p - 1] == UInt8(ascii: "\n") { break }
      p -= 1
    }
    limit = p
  }

  static func firstNewline(_ buffer: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int? {
    guard from < to else { return nil }
    guard let found = memchr(buffer + from, Int32(UInt8(ascii: "\n")), to - from) else { return nil }
    return buffer.distance(to: found.assumingMemoryBound(to: UInt8.self))
  }

  // MARK: - Parsing

  /// Parses complete rows in `start..<limit` into the column buffers. Returns true when a quoted
  /// field runs past the data read so far (more input is needed to finish the row).
  private func parseRows(count n: inout Int) throws -> Bool {
    let buf = buffer
    let delim = delimiter
    let newline = UInt8(ascii: "\n")
    let cr = UInt8(ascii: "\r")
    let space = UInt8(ascii: " ")
    let tab = UInt8(ascii: "\t")
    let quote = UInt8(ascii: "\"")
    let skipTab = delim != tab
    let required = columns.requiredFieldCount
    let cap = blockSize
    var p = start
    let lim = limit
    var line = self.line
    defer {
      start = p
      self.line = line
    }

    do {
      let codes = codePointer
      let mapped = codeCount
      rows: while n < cap && p < lim {
        if plainEnabled {
          parsePlainRows(from: &p, count: &n, line: &line)
          if n >= cap || p >= lim { break rows }
          plainMisses += 1
          if plainMisses > 64 && plainMisses > plainRows { plainEnabled = false }
        }
        let c0 = buf[p]
        if c0 == newline {
          p += 1
          line += 1
          continue
        }
        if c0 == cr && buf[p + 1] == newline {
          p += 2
          line += 1
          continue
        }
        let rowStart = p
        var extraLines = 0
        var q = p
        var f = 0
        var failed = false
        var sawQuote = false
        var extraContent = false  // text in a field beyond the header's
        fields: while true {
          let code: Int32 = f < mapped ? codes[f] : -1
          while buf[q] == space || (buf[q] == tab && skipTab) { q += 1 }
          if buf[q] == quote {
            // Quoted field: the slow path.
            sawQuote = true
            var text: [UInt8] = []
            var r = q + 1
            while true {
              if r >= end {
                if !eof { return true }
                p = rowStart
                throw AccelError.data(
                  DataLocation(file: input.name, line: line, column: f + 1),
                  "a quoted field is not closed before the end of the file",
                  hint: "check the quotes on this row")
              }
              let c = buf[r]
              if c == quote {
                if r + 1 < end && buf[r + 1] == quote {
                  text.append(quote)
                  r += 2
                  continue
                }
                if r + 1 >= end && !eof { return true }
                r += 1
                break
              }
              if c == newline { extraLines += 1 }
              text.append(c)
              r += 1
            }
            while buf[r] == space || buf[r] == cr || (buf[r] == tab && skipTab) { r += 1 }
            if buf[r] != delim && buf[r] != newline {
              pendingError = dataError(
                line: line + extraLines, field: f,
                "unexpected text after the closing quote in column \(columnName(f))")
              failed = true
              break fields
            }
            q = r
            if f >= mapped { extraContent = true }
            if code >= 0 {
              var trimmed = text[...]
              while let l = trimmed.last, CSVDialect.isBlank(l) { trimmed = trimmed.dropLast() }
              while let l = trimmed.first, CSVDialect.isBlank(l) { trimmed = trimmed.dropFirst() }
              let parsed = trimmed.withUnsafeBufferPointer { parseSlow($0, field: f) }
              guard let value = checked(parsed, text: trimmed, field: f, line: line + extraLines)
              else {
                failed = true
                break fields
              }
              store(value, code: code, at: n)
            }
          } else if code >= 0 {
            var e = UnsafePointer(buf + q)
            var value = 0.0
            var clean = false
            if _FloatParser.fastParse(&e, &value) {
              var r = UnsafePointer(buf).distance(to: e)
              while buf[r] == space || buf[r] == cr || (buf[r] == tab && skipTab) { r += 1 }
              if buf[r] == delim || buf[r] == newline {
                clean = true
                q = r
              }
            }
            if !clean {
              // Not a plain number, or text follows it: the whole field goes to strtod.
              guard let slow = slowField(from: q, field: f, line: line) else {
                failed = true
                break fields
              }
              value = slow.0
              q = slow.1
            }
            store(value, code: code, at: n)
          } else {
            while buf[q] != delim && buf[q] != newline {
              if f >= mapped && buf[q] != space && buf[q] != cr && buf[q] != tab { extraContent = true }
              q += 1
            }
          }
          if buf[q] == delim {
            q += 1
            f += 1
            continue
          }
          break
        }
        if sawQuote && !eof && (failed ? !rowEndsBefore(lim, from: rowStart) : q >= lim) {
          // The row ends beyond the complete lines read so far (a quoted line break).
          p = rowStart
          return true
        }
        if !failed && extraContent && mapped > 0 {
          // More fields than the header: a shifted or merged row; nothing is dropped silently.
          failed = true
          pendingError = dataError(
            line: line + extraLines, field: mapped,
            "the row has \(f + 1) fields, the \(settings.hasHeader ? "header" : "first row") \(mapped): "
              + "column \(mapped + 1) has no name",
            hint: "fix the row (a stray delimiter?), or pass --skip-bad-rows to skip such rows")
        }
        if !failed && f + 1 < required {
          let missing = f + 1
          failed = true
          pendingError = dataError(
            line: line + extraLines, field: missing,
            "missing field for column \(columnName(missing)): the row has only \(f + 1) "
              + (f == 0 ? "field" : "fields"))
        }
        if failed {
          let failure = pendingError!
          guard settings.skipBadRows else {
            p = rowStart
            throw failure
          }
          skippedRows += 1
          if firstSkippedError == nil { firstSkippedError = failure }
          var r = rowStart
          while buf[r] != newline { r += 1 }
          if r >= lim && !eof {
            p = rowStart
            return true
          }
          line += 1 + extraLines
          p = min(r + 1, lim)
          continue rows
        }
        mark(row: n, line: line)
        n += 1
        line += 1 + extraLines
        p = q + 1
      }
      return false
    }
  }

  /// The fast path for the common row: every field read is a plain decimal (an optional `-`,
  /// digits, an optional fraction; 1 to 15 digits in all), fields not read hold no quote, no
  /// spaces, exactly as many fields as the header, LF or CRLF. Parses such rows from `p` until one
  /// is not of that shape (left for the general parser, which also reports errors), the block is
  /// full or `limit` is reached.
  ///
  /// The plain-row fast path from `p` (see `plainRows`), on two threads when a large stretch of
  /// plain rows is waiting.
  @inline(__always)
  private func parsePlainRows(from p: inout Int, count n: inout Int, line: inout Int) {
    guard let offsets = plainOffsets else { return }
    let first = n
    mark(row: n, line: line)
    if parallelCooldown > 0 { parallelCooldown -= 1 }
    if let helper = parallelHelper, parallelCooldown == 0, plainRows >= 1_000, blockSize - n >= 2_048,
      limit - p >= 65_536
    {
      parallelPlainRows(from: &p, count: &n, offsets: offsets, helper: helper)
    } else {
      let before = p
      (p, n) = Self.plainRows(
        base: buffer, from: p, limit: limit, offsets: offsets, fields: codeCount, columns: columnBuffers,
        first: n,
        cap: blockSize, delimiter: delimiter, powers: powersOfTen, rowEnds: nil)
      plainBytes += p - before
    }
    line += n - first
    plainRows += n - first
  }

  /// The plain rows of one call split between this thread and a helper: this thread parses up to
  /// a line break near the middle of the rows still wanted, the helper (into buffers of its own)
  /// from there. When this thread's part ended exactly at the line break, all its rows were plain
  /// (no quote, so the break ends a row) and the helper's rows follow; otherwise the helper's work
  /// is dropped and the general parser goes on from where this thread stopped. Either way the
  /// values are those one thread finds.
  private func parallelPlainRows(
    from p: inout Int, count n: inout Int, offsets: UnsafeMutablePointer<Int>, helper: PlainRowHelper
  ) {
    let wanted = blockSize - n
    let bytesPerRow = max(1, plainBytes / max(1, plainRows))
    var split = min(limit - 1, p + bytesPerRow * (wanted * 9 / 16))
    guard let newline = Self.firstNewline(buffer, from: split, to: limit - 1) else {
      (p, n) = Self.plainRows(
        base: buffer, from: p, limit: limit, offsets: offsets, fields: codeCount, columns: columnBuffers,
        first: n,
        cap: blockSize, delimiter: delimiter, powers: powersOfTen, rowEnds: nil)
      return
    }
    split = newline + 1
    let helperCap = min(blockSize, wanted - wanted * 9 / 16 + wanted / 8)
    helper.start(
      PlainRowHelper.Job(
        base: buffer, from: split, limit: limit, offsets: offsets, fields: codeCount, cap: helperCap,
        delimiter: delimiter, powers: powersOfTen))
    let startedAt = p
    (p, n) = Self.plainRows(
      base: buffer, from: p, limit: split, offsets: offsets, fields: codeCount, columns: columnBuffers,
      first: n,
      cap: blockSize, delimiter: delimiter, powers: powersOfTen, rowEnds: nil)
    helper.wait()
    plainBytes += p - startedAt
    guard p == split && n < blockSize && helper.count > 0 else {
      // A row other than a plain one stopped this thread: try two threads again after a while
      // (waiting longer each time), so that a file with a few quoted rows does not pay for the
      // helper. (A block filled before the line break is no reason to wait.)
      if p < split && n < blockSize {
        parallelBackoff = min(4_096, max(8, parallelBackoff * 2))
        parallelCooldown = parallelBackoff
      }
      return
    }
    parallelBackoff = 0
    let accepted = min(helper.count, blockSize - n)
    for f in 0..<codeCount where offsets[f] >= 0 {
      (columnBuffers + offsets[f] + n).update(from: helper.columns + offsets[f], count: accepted)
    }
    n += accepted
    helperRows += accepted
    p = helper.rowEnds[accepted - 1]
    plainBytes += p - split
  }

  /// With at most 15 digits the mantissa is below 2^53 and the fraction at most 10^15, so
  /// `Double(m) / 10^k` is one correctly rounded operation on exact operands (Clinger's fast
  /// path): the same value the general parser and `strtod` give. Parses plain rows from `from`
  /// while they start before `limit`, into `columns` (slot offsets `offsets`) from row `first`
  /// up to `cap` rows; records where each row ends when `rowEnds` is given. Returns where it
  /// stopped and the row count.
  @inline(__always)
  static func plainRows(
    base: UnsafePointer<UInt8>, from: Int, limit: Int, offsets: UnsafePointer<Int>, fields: Int,
    columns: UnsafeMutablePointer<Double>, first: Int, cap: Int, delimiter delim: UInt8,
    powers: UnsafePointer<Double>, rowEnds: UnsafeMutablePointer<Int>?
  ) -> (position: Int, count: Int) {
    let end = base + limit
    let newline = UInt8(ascii: "\n")
    var row = base + from
    var count = first
    rows: while count < cap && row < end {
      var q = row
      var f = 0
      while true {
        let offset = offsets[f]
        if offset >= 0 {
          let negative = q.pointee == UInt8(ascii: "-")
          q += negative ? 1 : 0
          let digitsStart = q
          var mantissa: UInt64 = 0
          _FloatParser.readDigits(&q, into: &mantissa)
          var fraction = 0
          var dot = 0
          if q.pointee == UInt8(ascii: ".") {
            dot = 1
            q += 1
            let fractionStart = q
            _FloatParser.readDigits(&q, into: &mantissa)
            fraction = fractionStart.distance(to: q)
          }
          let digits = digitsStart.distance(to: q) &- dot
          guard digits > 0 && digits <= 15 else { break rows }
          let value = Double(mantissa) / powers[fraction]
          (columns + offset + count).pointee = negative ? -value : value
        } else {
          while q.pointee != delim && q.pointee != newline {
            if q.pointee == UInt8(ascii: "\"") { break rows }
            q += 1
          }
        }
        f += 1
        let c = q.pointee
        if f < fields {
          guard c == delim else { break rows }
          q += 1
        } else {
          if c == newline {
            q += 1
          } else if c == UInt8(ascii: "\r") && q[1] == newline {
            q += 2
          } else {
            break rows
          }
          break
        }
      }
      row = q
      if let rowEnds { rowEnds[count - first] = base.distance(to: row) }
      count += 1
    }
    return (base.distance(to: row), count)
  }

  /// Whether the row starting at `rowStart` (quotes respected) ends before `limit`.
  private func rowEndsBefore(_ limit: Int, from rowStart: Int) -> Bool {
    var quoted = false
    var r = rowStart
    while r < limit {
      let c = buffer[r]
      if c == UInt8(ascii: "\"") { quoted.toggle() }
      if c == UInt8(ascii: "\n") && !quoted { return true }
      r += 1
    }
    return false
  }

  /// Writes a field's value into its column at row `n`: the code's slot is assigned, or added to
  /// with `addFlag` (the later columns of a sum; the leftmost assigned first, as rows are read
  /// left to right).
  @inline(__always)
  private func store(_ value: Double, code: Int32, at n: Int) {
    let slot = columnBuffers + Int(code & (Self.addFlag - 1)) * blockSize + n
    slot.pointee = code >= Self.addFlag ? slot.pointee + value : value
  }

  /// Parses an unquoted field that the fast path did not take, with `strtod`.
  @inline(never)
  private func slowField(from q: Int, field f: Int, line: Int) -> (Double, Int)? {
    var r = q
    while buffer[r] != delimiter && buffer[r] != UInt8(ascii: "\n") { r += 1 }
    var e = r
    while e > q && CSVDialect.isBlank(buffer[e - 1]) { e -= 1 }
    let bytes = UnsafeBufferPointer(start: buffer + q, count: e - q)
    let parsed = parseSlow(bytes, field: f)
    guard let value = checked(parsed, text: bytes[...], field: f, line: line) else {
      return nil
    }
    return (value, r)
  }

  /// A field that is not a plain number: any number `strtod` reads, or in the time column an
  /// ISO 8601 date-time (seconds since the epoch; noted in the metadata the first time).
  @inline(never)
  private func parseSlow(_ bytes: UnsafeBufferPointer<UInt8>, field f: Int) -> Double? {
    if let v = _FloatParser.slowParse(bytes) { return v }
    guard columns.hasTime, f < codeCount, codePointer[f] == 0, let t = Timestamp.parse(bytes) else {
      return nil
    }
    if !readsDateTimes {
      readsDateTimes = true
      metadata.notes.append(
        "the time column holds ISO 8601 date-times (the first is \(quotedField(String(decoding: bytes, as: UTF8.self)))): read as seconds since 1970-01-01 UTC (times without a zone as UTC)"
      )
    }
    return t
  }

  /// Validates a parsed value (nil: not a number; non-finite: refused unless allowed).
  @inline(never)
  private func checked<C: Collection>(
    _ parsed: Double?, text: C, field f: Int, line: Int
  ) -> Double? where C.Element == UInt8 {
    // Kept extra columns (a truth column with holes) read empty fields as NaN and keep NaN.
    let lenient = settings.allowNonFinite || isExtra(field: f)
    if text.isEmpty {
      if lenient { return .nan }
      pendingError = dataError(
        line: line, field: f, "expected a number in column \(columnName(f)), got an empty field",
        hint: "fill in the value, or pass --skip-bad-rows to skip rows that do not parse "
          + "(--allow-nonfinite reads empty fields as NaN)")
      return nil
    }
    guard let value = parsed else {
      pendingError = dataError(
        line: line, field: f,
        "expected a number in column \(columnName(f)), got \(quotedField(String(decoding: text.prefix(256), as: UTF8.self)))",
        hint: "fix or remove the row, or pass --skip-bad-rows to skip rows that do not parse")
      return nil
    }
    if !value.isFinite && !lenient {
      pendingError = dataError(
        line: line, field: f,
        "column \(columnName(f)) holds \(quotedField(String(decoding: text.prefix(256), as: UTF8.self))), which is not a finite number",
        hint: "pass --allow-nonfinite to keep NaN and infinite values, or --skip-bad-rows to drop the row")
      return nil
    }
    return value
  }

  private func isExtra(field: Int) -> Bool {
    field < columns.targets.count && (columns.targets[field] ?? -1) >= columns.layout.channels.count
  }

  private func columnName(_ field: Int) -> String {
    if field < columns.fieldNames.count {
      let name = columns.fieldNames[field]
      if settings.hasHeader { return quotedField(name) }
      if let target = columns.targets[field] { return "\(field + 1) (\(columns.layout.columnNames[target]))" }
    }
    return "\(field + 1)"
  }

  private func dataError(line: Int, field: Int, _ text: String, hint: String? = nil) -> AccelError {
    .data(DataLocation(file: input.name, line: line, column: field + 1), text, hint: hint)
  }
}

/// The second thread of the plain-row fast path: a column buffer and row ends of its own, and
/// one job at a time.
final class PlainRowHelper: @unchecked Sendable {
  let columns: UnsafeMutablePointer<Double>
  let rowEnds: UnsafeMutablePointer<Int>
  var count = 0
  private let done = DispatchSemaphore(value: 0)
  private let queue = DispatchQueue(label: "accelkit.csv-plain-rows")

  init(doubles: Int, rows: Int) {
    columns = .allocate(capacity: max(1, doubles))
    rowEnds = .allocate(capacity: max(1, rows))
  }

  deinit {
    columns.deallocate()
    rowEnds.deallocate()
  }

  /// What to parse: `CSVTraceReader.plainRows`' arguments other than the helper's own buffers.
  struct Job: @unchecked Sendable {
    var base: UnsafePointer<UInt8>
    var from: Int
    var limit: Int
    var offsets: UnsafePointer<Int>
    var fields: Int
    var cap: Int
    var delimiter: UInt8
    var powers: UnsafePointer<Double>
  }

  /// Starts `job` on the helper's thread; `wait` returns once it has finished (`count` rows).
  func start(_ job: Job) {
    count = 0
    queue.async {
      self.count =
        CSVTraceReader.plainRows(
          base: job.base, from: job.from, limit: job.limit, offsets: job.offsets, fields: job.fields,
          columns: self.columns, first: 0, cap: job.cap, delimiter: job.delimiter, powers: job.powers,
          rowEnds: self.rowEnds
        ).count
      self.done.signal()
    }
  }

  func wait() { done.wait() }
}
