// An experiment, not part of accelkit: does a SIMD structural index (simdcsv's way) with
// word-at-a-time digit conversion parse accelkit's plain CSV rows faster than the byte loop the
// reader ships?
//
//     swiftc -O benchmarks/experiments/csv_index.swift -o /tmp/csv-index
//     /tmp/csv-index benchmarks/work/trace_10000000.csv
//
// The file is any `t,x,y,z` CSV with a header, for example one of `benchmarks/run.py`'s traces. It
// is read into memory first; then each parser turns every row into four columns of 8192-row blocks,
// in one thread, five times, the two alternating. The program prints each parser's best time per row
// and a hash of every value parsed; it exits 1 when the hashes differ. x86-64 only (SSE2).
//
// - `byteLoopRows` is the loop of the reader's plain-row fast path (`CSVTraceReader.plainRows`)
//   for rows whose four fields are all read, LF only: one pass over the bytes, each digit folded
//   into the mantissa as it is read.
// - `indexedRows` first finds every delimiter and line break of a stretch of 16 KB, 64 bytes at a
//   time (four 16-byte compares and a move-mask), and writes their positions to an array. Each field
//   is then converted on its own: its 16 bytes are checked in one vector compare (digits, and at
//   most one point), and the digits before and after the point are converted eight at a time (three
//   multiplications). A stretch holding a quote or a CR stops the index there; the byte loop goes on.
// Both give `Double(mantissa) / 10^k` for at most 15 digits, the value `strtod` gives.

#if arch(x86_64)
  import Foundation
  import _Builtin_intrinsics.intel

  let powersOfTen: [Double] = (0...22).map { e in (0..<e).reduce(1.0) { a, _ in a * 10 } }
  let integerPowers: [UInt64] = (0...19).map { e in (0..<e).reduce(UInt64(1)) { a, _ in a * 10 } }

  @inline(__always)
  func readDigits(_ q: inout UnsafePointer<UInt8>, into mantissa: inout UInt64) {
    var d = q.pointee &- 0x30
    while d < 10 {
      mantissa = mantissa &* 10 &+ UInt64(d)
      q += 1
      d = q.pointee &- 0x30
    }
  }

  /// The shipped fast path: rows from `from` while they start before `limit`; stops at the first
  /// row that is not plain. Returns where it stopped and the row count.
  @inline(never)
  func byteLoopRows(
    base: UnsafePointer<UInt8>, from: Int, limit: Int, fields: Int, columns: UnsafeMutablePointer<Double>,
    block: Int, first: Int, powers: UnsafePointer<Double>
  ) -> (position: Int, count: Int) {
    let end = base + limit
    var row = base + from
    var count = first
    rows: while count < block && row < end {
      var q = row
      for f in 0..<fields {
        let negative = q.pointee == UInt8(ascii: "-")
        q += negative ? 1 : 0
        let digitsStart = q
        var mantissa: UInt64 = 0
        readDigits(&q, into: &mantissa)
        var fraction = 0
        var dot = 0
        if q.pointee == UInt8(ascii: ".") {
          dot = 1
          q += 1
          let fractionStart = q
          readDigits(&q, into: &mantissa)
          fraction = fractionStart.distance(to: q)
        }
        let digits = digitsStart.distance(to: q) &- dot
        guard digits > 0 && digits <= 15 else { break rows }
        let value = Double(mantissa) / powers[fraction]
        columns[f * block + count] = negative ? -value : value
        let c = q.pointee
        if f < fields - 1 {
          guard c == UInt8(ascii: ",") else { break rows }
        } else {
          guard c == UInt8(ascii: "\n") else { break rows }
        }
        q += 1
      }
      row = q
      count += 1
    }
    return (base.distance(to: row), count)
  }

  @inline(__always)
  func vector(_ p: UnsafePointer<UInt8>) -> __m128i {
    _mm_loadu_si128(UnsafeRawPointer(p).assumingMemoryBound(to: __m128i.self))
  }

  /// The value of the `count` (0...8) decimal digits at `p`, already checked.
  @inline(__always)
  func eightDigits(_ p: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
    let word = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
    var d = (word &- 0x3030_3030_3030_3030) << UInt64((8 &- count) &* 8)
    d = (d &* 2561) >> 8
    d = ((d & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
    return ((d & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
  }

  @inline(__always)
  func digitValue(_ p: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
    if count <= 8 { return eightDigits(p, count) }
    return eightDigits(p, count &- 8) &* 100_000_000 &+ eightDigits(p + (count &- 8), 8)
  }

  /// Positions of the commas and line breaks in `from..<to` (a whole number of 64-byte windows)
  /// into `positions`; stops at the first quote or CR. Returns the count and where it stopped.
  @inline(__always)
  func structuralIndex(
    _ base: UnsafePointer<UInt8>, from: Int, to: Int, into positions: UnsafeMutablePointer<Int32>
  ) -> (count: Int, stop: Int) {
    let comma = _mm_set1_epi8(0x2C)
    let newline = _mm_set1_epi8(0x0A)
    let quote = _mm_set1_epi8(0x22)
    let carriageReturn = _mm_set1_epi8(0x0D)
    var n = 0
    var w = from
    while w < to {
      var separators: UInt64 = 0
      var specials: UInt64 = 0
      for i in 0..<4 {
        let v = vector(base + w + 16 * i)
        let s = _mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, newline))
        let x = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, carriageReturn))
        separators |= UInt64(UInt32(bitPattern: _mm_movemask_epi8(s))) << UInt64(16 * i)
        specials |= UInt64(UInt32(bitPattern: _mm_movemask_epi8(x))) << UInt64(16 * i)
      }
      if specials != 0 { separators &= (1 << UInt64(specials.trailingZeroBitCount)) &- 1 }
      let found = separators.nonzeroBitCount
      let out = positions + n
      let window = Int32(truncatingIfNeeded: w)
      var i = 0
      repeat {
        // Eight at a time without a branch per position; the extra ones are overwritten.
        for j in 0..<8 {
          out[i + j] = window &+ Int32(truncatingIfNeeded: separators.trailingZeroBitCount)
          separators &= separators &- 1
        }
        i += 8
      } while i < found
      n += found
      if specials != 0 { return (n, w + specials.trailingZeroBitCount) }
      w += 64
    }
    return (n, to)
  }

  /// The indexed parser: the same rows and values as `byteLoopRows` up to the first quote or CR.
  @inline(never)
  func indexedRows(
    base: UnsafePointer<UInt8>, from: Int, end: Int, fields: Int, columns: UnsafeMutablePointer<Double>,
    block: Int, powers: UnsafePointer<Double>, integerPowers: UnsafePointer<UInt64>,
    positions: UnsafeMutablePointer<Int32>
  ) -> (position: Int, count: Int) {
    let zero = _mm_set1_epi8(0x30)
    let nine = _mm_set1_epi8(9)
    var row = from
    var count = 0
    stretches: while count < block {
      let stretchEnd = min(row + 16_384, end - 64)
      guard stretchEnd - row >= 64 else { break }
      let to = row + (stretchEnd - row) / 64 * 64
      let (n, stop) = structuralIndex(base, from: row, to: to, into: positions)
      var k = 0
      let before = count
      while count < block && k + fields <= n {
        var start = row
        for f in 0..<fields {
          let fieldEnd = Int(positions[k + f])
          guard base[fieldEnd] == (f == fields - 1 ? 0x0A : 0x2C) else { break stretches }
          let negative = base[start] == UInt8(ascii: "-")
          let digitsStart = start + (negative ? 1 : 0)
          let length = fieldEnd - digitsStart
          guard length <= 16 else { break stretches }
          let t = _mm_sub_epi8(vector(base + digitsStart), zero)
          let digitMask = UInt32(bitPattern: _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, nine), t)))
          let other = ~digitMask & ((1 << UInt32(length)) &- 1)
          let integerDigits = other == 0 ? length : other.trailingZeroBitCount
          let fraction = other == 0 ? 0 : length &- integerDigits &- 1
          let digits = integerDigits + fraction
          guard digits > 0 && digits <= 15 && other & (other &- 1) == 0,
            other == 0 || base[digitsStart + integerDigits] == UInt8(ascii: ".")
          else { break stretches }
          let mantissa =
            digitValue(base + digitsStart, integerDigits) &* integerPowers[fraction]
            &+ digitValue(base + digitsStart + integerDigits + 1, fraction)
          let value = Double(mantissa) / powers[fraction]
          columns[f * block + count] = negative ? -value : value
          start = fieldEnd + 1
        }
        k += fields
        row = start
        count += 1
      }
      if stop < to || count == before { break }
    }
    return (row, count)
  }

  func hashBlock(
    _ columns: UnsafeMutablePointer<Double>, block: Int, fields: Int, rows: Int, into h: inout UInt64
  ) {
    for f in 0..<fields {
      for r in 0..<rows { h = (h ^ columns[f * block + r].bitPattern) &* 0x100_0000_01B3 }
    }
  }

  func run(indexed: Bool, bytes: UnsafeMutablePointer<UInt8>, size: Int, start: Int) -> (
    seconds: Double, rows: Int, indexedRows: Int, hash: UInt64
  ) {
    let block = 8192
    let fields = 4
    let columns = UnsafeMutablePointer<Double>.allocate(capacity: fields * block)
    let positions = UnsafeMutablePointer<Int32>.allocate(capacity: 16_384 + 64)
    defer {
      columns.deallocate()
      positions.deallocate()
    }
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    var rows = 0
    var byIndex = 0
    var parseTime = 0.0
    var p = start
    powersOfTen.withUnsafeBufferPointer { powers in
      integerPowers.withUnsafeBufferPointer { integers in
        while p < size {
          let t0 = DispatchTime.now().uptimeNanoseconds
          var n = 0
          if indexed {
            (p, n) = indexedRows(
              base: bytes, from: p, end: size, fields: fields, columns: columns, block: block,
              powers: powers.baseAddress!, integerPowers: integers.baseAddress!, positions: positions)
            byIndex += n
          }
          if n < block {
            (p, n) = byteLoopRows(
              base: bytes, from: p, limit: size, fields: fields, columns: columns, block: block, first: n,
              powers: powers.baseAddress!)
          }
          parseTime += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
          guard n > 0 else {
            print("a row at byte \(p) is not a plain t,x,y,z row")
            exit(2)
          }
          hashBlock(columns, block: block, fields: fields, rows: n, into: &hash)
          rows += n
        }
      }
    }
    return (parseTime, rows, byIndex, hash)
  }

  guard CommandLine.arguments.count == 2,
    let data = FileManager.default.contents(atPath: CommandLine.arguments[1])
  else {
    print("usage: csv-index FILE.csv (a t,x,y,z CSV with a header)")
    exit(64)
  }
  let size = data.count
  let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: size + 128)
  data.copyBytes(to: bytes, count: size)
  (bytes + size).initialize(repeating: 0, count: 128)
  bytes[size] = 0x0A
  var start = 0
  while start < size && bytes[start] != 0x0A { start += 1 }
  start += 1

  var best: [Bool: Double] = [:]
  var hashes: [Bool: UInt64] = [:]
  var rowCount = 0
  var indexedCount = 0
  for _ in 0..<5 {
    for indexed in [false, true] {
      let r = run(indexed: indexed, bytes: bytes, size: size, start: start)
      best[indexed] = min(best[indexed] ?? .infinity, r.seconds)
      hashes[indexed] = r.hash
      rowCount = r.rows
      if indexed { indexedCount = r.indexedRows }
    }
  }
  for indexed in [false, true] {
    let name = indexed ? "structural index + eight-digit words" : "byte loop (shipped)"
    let perRow = best[indexed]! / Double(rowCount) * 1e9
    print(
      "\(name): \(String(format: "%.1f", perRow)) ns a row, best of 5 (\(rowCount) rows), hash \(String(hashes[indexed]!, radix: 16))"
    )
  }
  print("rows the structural index parsed: \(indexedCount) (the rest: the byte loop)")
  if hashes[false] != hashes[true] {
    print("the two parsers disagree")
    exit(1)
  }
#else
  print("this experiment uses SSE2 and runs on x86-64 only")
#endif
