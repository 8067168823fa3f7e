import AccelCore
import TestSupport
import Testing

@testable import AccelIO

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct FloatParserTests {
  func strtodValue(_ text: String) -> Double? {
    text.withCString { pointer in
      var end: UnsafeMutablePointer<CChar>? = nil
      let value = strtod(pointer, &end)
      return end! - UnsafeMutablePointer(mutating: pointer) == text.utf8.count ? value : nil
    }
  }

  @Test(arguments: [
    "0", "-0", "+1.5", "1e5", "1E-3", ".5", "5.", "0.010000", "-0.0123", "0.9981", "123456789012345678",
    "9007199254740993", "0.000000000000000000000000123", "3.14159265358979323846264338327950288",
    "1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "1.7976931348623157e308", "2.2250738585072011e-308",
    "-9.80665", "12345.678", "1e400", "nan", "inf", "-Infinity", "0x1p3", "00012.500",
  ])
  func matchesStrtod(_ text: String) {
    let ours = parseDecimal(Substring(text))
    let reference = strtodValue(text)
    #expect(ours?.bitPattern == reference?.bitPattern || (ours?.isNaN == true && reference?.isNaN == true), "\(text)")
  }

  @Test(arguments: ["", "-", "+", ".", "e5", "1e", "1e+", "abc", "1.2.3", "--1", "1,5"])
  func rejectsNonNumbers(_ text: String) {
    #expect(parseDecimal(Substring(text)) == nil, "\(text)")
  }

  @Test func randomDecimalsAreBitIdenticalToStrtod() {
    var rng = SeededRandom(seed: 42)
    for _ in 0..<200_000 {
      let digits = Int.random(in: 1...20, using: &rng)
      var text = Bool.random(using: &rng) ? "-" : ""
      let pointAt = Int.random(in: 0...digits, using: &rng)
      for i in 0..<digits {
        if i == pointAt { text += "." }
        text += String(Int.random(in: 0...9, using: &rng))
      }
      if Int.random(in: 0..<4, using: &rng) == 0 {
        text += "e\(Int.random(in: -30...30, using: &rng))"
      }
      if text.hasSuffix(".") || text == "-" { text += "0" }
      let ours = parseDecimal(Substring(text))
      let reference = strtodValue(text)
      #expect(ours?.bitPattern == reference?.bitPattern, "\(text)")
      if ours?.bitPattern != reference?.bitPattern { break }
    }
  }

  @Test func randomDoublesRoundTripThroughTheFormatter() {
    var rng = SeededRandom(seed: 7)
    for i in 0..<200_000 {
      let value: Double
      switch i % 3 {
      case 0: value = Double(bitPattern: rng.next())
      case 1: value = Double.random(in: -20...20, using: &rng)
      default: value = (Double.random(in: -2...2, using: &rng) * 10_000).rounded() / 10_000
      }
      guard value.isFinite else { continue }
      let text = formatNumber(value)
      #expect(parseDecimal(Substring(text))?.bitPattern == value.bitPattern, "\(value) -> \(text)")
      if parseDecimal(Substring(text))?.bitPattern != value.bitPattern { break }
    }
  }

  @Test func formatterWritesShortFixedPointText() {
    #expect(formatNumber(0.01) == "0.01")
    #expect(formatNumber(-0.0123) == "-0.0123")
    #expect(formatNumber(1) == "1")
    #expect(formatNumber(100) == "100")
    #expect(formatNumber(-0.0) == "-0")
    #expect(formatNumber(0) == "0")
    #expect(formatNumber(9.80665) == "9.80665")
    #expect(formatNumber(0.1 + 0.2) == "0.30000000000000004")
    #expect(formatNumber(1e-7) == "1e-07")
    #expect(formatNumber(1e20) == "1e+20")
    #expect(formatNumber(123456.789) == "123456.789")
  }

  /// Values a logger writes with k <= 8 decimals print with at most k, at every magnitude the
  /// fixed-point form covers (including above 2^51 / 10^8, where the quick refusal is not used),
  /// and the text reads back to the same value; full-precision values print as Swift's shortest.
  @Test func decimalsPrintWithNoMoreDigitsThanTheyHave() {
    var rng = SeededRandom(seed: 31)
    for _ in 0..<100_000 {
      let k = Int.random(in: 0...8, using: &rng)
      let integerDigits = Int.random(in: 0...(15 - k), using: &rng)
      var digits = (0..<(integerDigits + k)).map { _ in String(Int.random(in: 0...9, using: &rng)) }.joined()
      if digits.isEmpty { digits = "0" }
      let text = k == 0 ? digits : String(digits.dropLast(k)) + "." + digits.suffix(k)
      let value = parseDecimal(Substring(text))!
      let written = formatNumber(value)
      #expect(parseDecimal(Substring(written)) == value, "\(text)")
      if value >= 1e-5 {
        let fraction = written.split(separator: ".").dropFirst().first?.count ?? 0
        #expect(fraction <= k && !written.contains("e"), "\(text) -> \(written)")
      }
    }
    for _ in 0..<10_000 {
      let value = Double.random(in: -500...500, using: &rng)
      var expected = value.description
      if expected.hasSuffix(".0") { expected.removeLast(2) }
      #expect(formatNumber(value) == expected)
    }
  }
}
