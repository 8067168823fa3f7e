import AccelCore
import Foundation
import TestSupport
import Testing

/// The number writer against Swift's own `description`, digit for digit.
///
/// `description` is the specification: the fewest digits that read back, the closest of them to
/// the binary value. The writer's layout differs in two documented ways (no trailing `.0`; values
/// from 1e-5 to 1e-4 with at most 8 decimals in fixed point), which `expected` applies to the
/// description. How many random values each family gets comes from ACCELKIT_FORMATTER_VALUES
/// (default 10^6 in all; the 10^8 run: `ACCELKIT_FORMATTER_VALUES=100000000 swift test -c release
/// --filter ShortestFormatter`).
@Suite struct ShortestFormatterTests {
  static var count: Int {
    ProcessInfo.processInfo.environment["ACCELKIT_FORMATTER_VALUES"].flatMap { Int($0) } ?? 1_000_000
  }

  static func expected(_ value: Double) -> String {
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    if let e = text.firstIndex(of: "e"), text[e...] == "e-05" {
      let negative = text.hasPrefix("-")
      let mantissa = text[text.index(text.startIndex, offsetBy: negative ? 1 : 0)..<e].filter { $0 != "." }
      if mantissa.count <= 4 { return (negative ? "-" : "") + "0.0000" + mantissa }
    }
    return text
  }

  /// Checks `values`, stopping at the first few mismatches (returns them). Also checks that no
  /// write reaches past the 25 bytes the writer may use (the guard bytes after them stay as set).
  static func mismatches(_ values: some Sequence<Double>) -> [String] {
    var found: [String] = []
    let guardByte: UInt8 = 0xA5
    var buffer = [UInt8](repeating: guardByte, count: 48)
    for value in values {
      let n = buffer.withUnsafeMutableBufferPointer { _NumberFormatter.write(value, to: $0.baseAddress!) }
      let written = String(decoding: buffer[0..<n], as: UTF8.self)
      let reference = expected(value)
      if written != reference {
        found.append("\(value.bitPattern): \(written) != \(reference)")
      } else if buffer[25...].contains(where: { $0 != guardByte }) {
        found.append("\(value.bitPattern): written past 25 bytes")
      }
      if found.count >= 10 { break }
    }
    return found
  }

  @Test func edgeCases() {
    var values: [Double] = [
      0, -0.0, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
      .leastNormalMagnitude, .leastNonzeroMagnitude, 1, -1, 0.1, 0.3, 0.1 + 0.2, 1e-4, 1e-5, 2e-5, 9.5e-5,
      1.2345e-5, 1.23456e-5, 9_007_199_254_740_992, 9_007_199_254_740_994, 9_007_199_254_740_996, 1e15, 1e16,
      1e22, 1e23,
    ]
    var p = Double.leastNonzeroMagnitude
    while p.isFinite {  // every power of two and its neighbours
      values += [p, p.nextUp, p.nextDown, -p]
      p *= 2
    }
    for e in -325...309 {  // every power of ten (as read) and its neighbours
      let v = Double("1e\(e)")!
      values += [v, v.nextUp, v.nextDown, v * 3, v * 7]
    }
    for t: UInt64 in 1...20_000 {  // the smallest subnormals and the integers
      values += [Double(bitPattern: t), Double(t), Double(t) / 1e4, Double(bitPattern: (1 << 52) - t)]
    }
    for t: UInt64 in 0..<4_000 {  // integers around 2^53 and 10^15, 10^16
      values += [
        Double(9_007_199_254_740_992 - 2_000 + t), Double(1_000_000_000_000_000 - 2_000 + t),
        1e16 + Double(t) * 2,
      ]
    }
    #expect(Self.mismatches(values) == [])
    #expect(formatNumber(.leastNonzeroMagnitude) == "5e-324")
    #expect(formatNumber(-1.7976931348623157e308) == "-1.7976931348623157e+308")
    #expect(formatNumber(0.00002) == "0.00002")
    #expect(formatNumber(0.000012345) == "1.2345e-05")
    #expect(formatNumber(1e16) == "1e+16")
    #expect(formatNumber(9_007_199_254_740_992) == "9007199254740992")
  }

  @Test func randomBitPatterns() {
    var rng = SeededRandom(seed: 2020)
    let values = (0..<Self.count / 4).lazy.map { _ in Double(bitPattern: rng.next()) }
    #expect(Self.mismatches(values) == [])
  }

  @Test func randomValuesOfSensorMagnitudes() {
    var rng = SeededRandom(seed: 17)
    let values = (0..<Self.count / 4).lazy.map { i -> Double in
      let v = Double.random(in: -20...20, using: &rng)
      return i % 2 == 0 ? v : v * 1e-3
    }
    #expect(Self.mismatches(values) == [])
  }

  /// Values as loggers write them, 0 to 9 decimals, and their sums (the fixed-point cases).
  @Test func randomShortDecimals() {
    var rng = SeededRandom(seed: 5)
    let values = (0..<Self.count / 4).lazy.map { _ -> Double in
      let decimals = Int.random(in: 0...9, using: &rng)
      let digits = Double(Int64.random(in: -99_999_999...99_999_999, using: &rng))
      return digits / exactPowerOfTen(decimals)
    }
    #expect(Self.mismatches(values) == [])
  }

  @Test func randomValuesAtEveryScale() {
    var rng = SeededRandom(seed: 99)
    let values = (0..<Self.count / 4).lazy.map { _ -> Double in
      let e = Int.random(in: -30...30, using: &rng)
      return Double.random(in: 1..<10, using: &rng) * pow(10, Double(e))
    }
    #expect(Self.mismatches(values) == [])
  }
}
