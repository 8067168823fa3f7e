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
  @usableFromInline
  static let powersOfTen: [Double] = (0...22).map { e in
    var p = 1.0
    for _ in 0..<e { p *= 10 }
    return p
  }

  @inline(__always)
  static func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

  /// Parses a number starting at `p`. Returns the value and the position after the number, or nil
  /// when the fast path does not apply (the caller then uses `slowParse` on the whole field).
  @inline(__always)
  static func fastParse(_ start: UnsafePointer<UInt8>) -> (Double, UnsafePointer<UInt8>)? {
    var p = start
    var negative = false
    if p.pointee == UInt8(ascii: "-") {
      negative = true
      p += 1
    } else if p.pointee == UInt8(ascii: "+") {
      p += 1
    }
    var mantissa: UInt64 = 0
    var significant = 0
    var exponent = 0
    var anyDigit = false
    // Integer part.
    while isDigit(p.pointee) {
      let d = UInt64(p.pointee &- 0x30)
      anyDigit = true
      if mantissa != 0 || d != 0 { significant += 1 }
      mantissa = mantissa &* 10 &+ d
      p += 1
    }
    if p.pointee == UInt8(ascii: ".") {
      p += 1
      while isDigit(p.pointee) {
        let d = UInt64(p.pointee &- 0x30)
        anyDigit = true
        if mantissa != 0 || d != 0 { significant += 1 }
        mantissa = mantissa &* 10 &+ d
        exponent -= 1
        p += 1
      }
    }
    guard anyDigit, significant <= 19 else { return nil }
    let e = p.pointee | 0x20
    if e == UInt8(ascii: "e") {
      var q = p + 1
      var expNegative = false
      if q.pointee == UInt8(ascii: "-") {
        expNegative = true
        q += 1
      } else if q.pointee == UInt8(ascii: "+") {
        q += 1
      }
      guard isDigit(q.pointee) else { return nil }
      var value = 0
      while isDigit(q.pointee) {
        if value < 100_000 { value = value * 10 + Int(q.pointee &- 0x30) }
        q += 1
      }
      exponent += expNegative ? -value : value
      p = q
    }
    if mantissa == 0 { return (negative ? -0.0 : 0.0, p) }
    guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
    var value = Double(mantissa)
    if exponent >= 0 {
      value *= powersOfTen[exponent]
    } else {
      value /= powersOfTen[-exponent]
    }
    return (negative ? -value : value, p)
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
      if let (value, end) = fastParse(base), end - base == bytes.count - 1 { return value }
      return slowParse(UnsafeBufferPointer(rebasing: buffer[0..<(bytes.count - 1)]))
    }
  }
}

/// Parses a decimal number exactly as `strtod` would, or returns nil when `text` is not a number.
public func parseDecimal(_ text: Substring) -> Double? { _FloatParser.parse(text) }
