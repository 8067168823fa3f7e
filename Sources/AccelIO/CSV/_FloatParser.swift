import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Decimal text to Double, correctly rounded (bit-identical to `strtod`).
///
/// The fast path is Clinger's: a decimal with at most 19 significant digits whose value `m` fits
/// in 53 bits and whose power of ten `10^e` has |e| <= 22 is exactly `Double(m) * 10^e` or
/// `Double(m) / 10^-e`, one correctly rounded operation on exact operands. Everything else (more
/// digits, large exponents, `nan`, `inf`, hex) goes to `strtod` on a NUL-terminated copy.
@usableFromInline
enum _FloatParser {
  /// 10^e for 0 <= e <= 22, exactly (each is a Double without rounding error).
  @inline(__always)
  static func power(_ e: Int) -> Double { exactPowerOfTen(e) }

  @inline(__always)
  static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

  /// Appends the decimal digits at `q` to `mantissa` (wrapping past 19 digits; callers count
  /// them) and moves `q` past them.
  @_transparent
  static func readDigits(_ q: inout UnsafePointer<UInt8>, into mantissa: inout UInt64) {
    var d = q.pointee &- 0x30
    while d < 10 {
      mantissa = mantissa &* 10 &+ UInt64(d)
      q += 1
      d = q.pointee &- 0x30
    }
  }

  /// Parses a number starting at `p`. On success stores the value, advances `p` past the number
  /// and returns true; returns false (leaving `p` alone) when the fast path does not apply (the
  /// caller then uses `slowParse` on the whole field).
  @_transparent
  static func fastParse(_ p: inout UnsafePointer<UInt8>, _ result: inout Double) -> Bool {
    var q = p
    let negative = q.pointee == UInt8(ascii: "-")
    if negative || q.pointee == UInt8(ascii: "+") { q += 1 }
    var mantissa: UInt64 = 0
    let digitsStart = q
    readDigits(&q, into: &mantissa)
    var digitCount = digitsStart.distance(to: q)
    var exponent = 0
    if q.pointee == UInt8(ascii: ".") {
      q += 1
      let fractionStart = q
      readDigits(&q, into: &mantissa)
      let fractionDigits = fractionStart.distance(to: q)
      exponent = -fractionDigits
      digitCount += fractionDigits
    }
    guard digitCount > 0 else { return false }
    if digitCount > 19 {
      // Leading zeros do not count against the 19 digits a UInt64 holds.
      var significant = 0
      var r = digitsStart
      var seenNonZero = false
      while r < q {
        let c = r.pointee
        if c != UInt8(ascii: ".") {
          if c != UInt8(ascii: "0") { seenNonZero = true }
          if seenNonZero { significant += 1 }
        }
        r += 1
      }
      guard significant <= 19 else { return false }
    }
    if q.pointee | 0x20 == UInt8(ascii: "e") {
      var r = q + 1
      let expNegative = r.pointee == UInt8(ascii: "-")
      if expNegative || r.pointee == UInt8(ascii: "+") { r += 1 }
      guard isDigit(r.pointee) else { return false }
      var value = 0
      while isDigit(r.pointee) {
        if value < 100_000 { value = value * 10 + Int(r.pointee &- 0x30) }
        r += 1
      }
      exponent += expNegative ? -value : value
      q = r
    }
    if mantissa == 0 {
      result = negative ? -0.0 : 0.0
      p = q
      return true
    }
    guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return false }
    var value = Double(mantissa)
    if exponent >= 0 {
      value *= power(exponent)
    } else {
      value /= power(-exponent)
    }
    result = negative ? -value : value
    p = q
    return true
  }

  /// Parses the whole of `bytes` (already trimmed) with `strtod`; nil when it is not a number.
  static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    guard !bytes.isEmpty, bytes.count < 512 else { return nil }
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
      for i in 0..<bytes.count { buffer[i] = CChar(bitPattern: bytes[i]) }
      buffer[bytes.count] = 0
      var end: UnsafeMutablePointer<CChar>? = nil
      let value = strtod(buffer.baseAddress!, &end)
      guard let end, end - buffer.baseAddress! == bytes.count else { return nil }
      return value
    }
  }

  /// Parses a whole field of text (for headers, options and tests).
  public static func parse(_ text: Substring) -> Double? {
    var bytes = Array(text.utf8)
    bytes.append(0)
    return bytes.withUnsafeBufferPointer { buffer -> Double? in
      let base = buffer.baseAddress!
      var end = base
      var value = 0.0
      if fastParse(&end, &value), end - base == bytes.count - 1 { return value }
      return slowParse(UnsafeBufferPointer(rebasing: buffer[0..<(bytes.count - 1)]))
    }
  }
}

/// Parses a decimal number exactly as `strtod` would, or returns nil when `text` is not a number.
public func parseDecimal(_ text: Substring) -> Double? { _FloatParser.parse(text) }
