/// Writes Doubles as the shortest decimal text that reads back to the same value.
///
/// For ordinary magnitudes (1e-5 <= |v| < 1e15) it looks for the fewest fraction digits k (0...8)
/// such that `round(v * 10^k) / 10^k` reads back exactly (checked with the same correctly rounded
/// operation a reader uses), and prints that fixed-point number: `0.0123`, `-1.5`, `100`. Other
/// values, and the rare case where no such k is found, use Swift's own shortest form
/// (`1e-07`, `1.2345e+20`). Either way the text reads back to exactly the same Double.
public enum _NumberFormatter {
  @inlinable @inline(__always)
  static func power(_ k: Int) -> Double { exactPowerOfTen(k) }

  /// Writes `value` at `out` and returns the number of bytes (at most 32).
  @inlinable @inline(__always)
  public static func write(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
    let magnitude = abs(value)
    if magnitude >= 1e-5 && magnitude < 1e15 {
      // Values with up to 8 decimals (what loggers write) print in fixed point; longer ones go
      // to Swift's shortest form below, which is the same text for them in this range.
      // First the quick refusal of full-precision values (computed angles, filter outputs): below
      // 2^51, v * 10^8 is within 0.5 of the 8-decimal integer of any k <= 8 that would work, so
      // if 8 decimals do not read back, no fewer do.
      let product8 = magnitude * 1e8
      if product8 < 2_251_799_813_685_248 && Double(Int64(product8 + 0.5)) / 1e8 != magnitude {
        return writeShortest(value, to: out)
      }
      var k = 0
      while k <= 8 {
        let product = magnitude * power(k)
        if product >= 9_007_199_254_740_992 { break }
        let scaled = Double(Int64(product + 0.5))
        if scaled / power(k) == magnitude {
          return writeFixed(UInt64(scaled), fractionDigits: k, negative: value < 0, to: out)
        }
        k += 1
      }
    } else if value == 0 {
      if value.sign == .minus {
        out[0] = UInt8(ascii: "-")
        out[1] = UInt8(ascii: "0")
        return 2
      }
      out[0] = UInt8(ascii: "0")
      return 1
    }
    return writeShortest(value, to: out)
  }

  /// Writes a Float-precision value as the shortest text that reads back to the same Float.
  public static func write(float value: Float, to out: UnsafeMutablePointer<UInt8>) -> Int {
    writeShortest(value, to: out)
  }

  /// Swift's shortest round-trip text (its `description`), written straight into `out` through
  /// the text-stream interface (no String is made), without a trailing `.0`.
  @usableFromInline @inline(never)
  static func writeShortest<F: BinaryFloatingPoint & TextOutputStreamable>(
    _ value: F, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    var sink = ByteSink(out: out)
    value.write(to: &sink)
    var n = sink.count
    if n >= 2 && out[n - 2] == UInt8(ascii: ".") && out[n - 1] == UInt8(ascii: "0") { n -= 2 }
    return n
  }

  /// A text stream into a byte buffer; floating-point values hand it their ASCII bytes directly.
  struct ByteSink: TextOutputStream {
    let out: UnsafeMutablePointer<UInt8>
    var count = 0

    mutating func write(_ text: String) {
      var text = text
      text.withUTF8 { bytes in
        (out + count).update(from: bytes.baseAddress!, count: bytes.count)
        count += bytes.count
      }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
      (out + count).update(from: buffer.baseAddress!, count: buffer.count)
      count += buffer.count
    }
  }

  @inlinable @inline(__always)
  static func writeFixed(
    _ mantissa: UInt64, fractionDigits k: Int, negative: Bool, to out: UnsafeMutablePointer<UInt8>
  ) -> Int {
    var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes of scratch
    return withUnsafeMutableBytes(of: &digits) { raw -> Int in
      let scratch = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      var m = mantissa
      var n = 0
      repeat {
        scratch[n] = UInt8(truncatingIfNeeded: m % 10) &+ 0x30
        m /= 10
        n += 1
      } while m > 0
      while n <= k {  // leading zeros so there is one digit before the point
        scratch[n] = 0x30
        n += 1
      }
      var fraction = k
      var skip = 0
      while fraction > 0 && scratch[skip] == 0x30 {  // drop trailing zeros of the fraction
        skip += 1
        fraction -= 1
      }
      var w = 0
      if negative {
        out[w] = UInt8(ascii: "-")
        w += 1
      }
      var i = n - 1
      while i >= k {
        out[w] = scratch[i]
        w += 1
        i -= 1
      }
      if fraction > 0 {
        out[w] = UInt8(ascii: ".")
        w += 1
        var j = k - 1
        while j >= skip {
          out[w] = scratch[j]
          w += 1
          j -= 1
        }
      }
      return w
    }
  }
}

/// The text accelkit writes for a Double: the shortest that reads back to the same value.
public func formatNumber(_ value: Double) -> String {
  withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
    let n = _NumberFormatter.write(value, to: buffer.baseAddress!)
    return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<n]), as: UTF8.self)
  }
}

/// Writes the shortest round-trip text of `value` at `out` (at most 32 bytes) and returns its
/// length: for writers that format straight into an `OutputFile.withSpace` buffer.
@inline(__always)
public func writeNumber(_ value: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
  _NumberFormatter.write(value, to: out)
}

/// 10^e for 0 <= e <= 22, exactly (each is a Double without rounding error); 10^22 above. A
/// switch rather than a global table, so an inlined call in another module has no lazy-init check.
@inlinable @inline(__always)
public func exactPowerOfTen(_ e: Int) -> Double {
  switch e {
  case 0: 1
  case 1: 1e1
  case 2: 1e2
  case 3: 1e3
  case 4: 1e4
  case 5: 1e5
  case 6: 1e6
  case 7: 1e7
  case 8: 1e8
  case 9: 1e9
  case 10: 1e10
  case 11: 1e11
  case 12: 1e12
  case 13: 1e13
  case 14: 1e14
  case 15: 1e15
  case 16: 1e16
  case 17: 1e17
  case 18: 1e18
  case 19: 1e19
  case 20: 1e20
  case 21: 1e21
  default: 1e22
  }
}
