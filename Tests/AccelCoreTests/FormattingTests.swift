import TestSupport
import Testing

@testable import AccelCore

@Suite struct FormattingTests {
  @Test func cFormatMatchesTheCLibrary() {
    #expect(cFormat("%.3f", 1.23456) == "1.235")
    #expect(cFormat("%.4g Hz", 0.000123456) == "0.0001235 Hz")
    #expect(cFormat("%03ld", 7) == "007")
    #expect(cFormat("#%02lx%02lx%02lx", 68, 1, 255) == "#4401ff")
    #expect(cFormat("%.*f", Int32(2), -0.004) == "-0.00")
    #expect(cFormat("%.1f%%", 12.34) == "12.3%")
    #expect(cFormat("plain") == "plain")
  }

  @Test func cFormatGrowsForLongText() {
    let long = cFormat("%.100f", 1.0)
    #expect(long.count == 102)
    #expect(long.hasPrefix("1.000") && long.hasSuffix("0"))
  }

  @Test func trimmingAndPadding() {
    #expect(" \t a b \t".trimmingBlanks() == "a b")
    #expect("".trimmingBlanks() == "")
    #expect("ab".padded(to: 4) == "ab  ")
    #expect("abcdef".padded(to: 4) == "abcdef")
  }
}

/// Messages quote only the field at fault, bounded and printable.
@Suite struct QuotedFieldTests {
  @Test func fieldsAreQuotedBoundedAndPrintable() {
    #expect(quotedField("n/a") == "\"n/a\"")
    #expect(
      quotedField(String(repeating: "a", count: 40)) == "\"" + String(repeating: "a", count: 32) + "...\"")
    #expect(quotedField("a\u{1}b\nc") == "\"a?b?c\"")
    #expect(quotedField(String(decoding: [0x61, 0xff, 0x62] as [UInt8], as: UTF8.self)) == "\"a?b\"")
    #expect(quotedFields(["t", "x"]) == "\"t\", \"x\"")
    #expect(quotedFields((0..<14).map(String.init)).hasSuffix("\"11\" and 2 more"))
  }
}

@Suite struct SHA256Tests {
  func digest(_ bytes: [UInt8], chunk: Int, hardware: Bool = SHA256.hardwareAvailable) -> String {
    var h = SHA256()
    h.usesHardware = hardware
    var i = 0
    while i < bytes.count {
      let n = min(chunk, bytes.count - i)
      bytes[i..<i + n].withUnsafeBytes { h.update($0) }
      i += n
    }
    return h.hexDigest()
  }

  @Test func knownVectorsInAnyChunking() {
    #expect(digest([], chunk: 1) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      digest(Array("abc".utf8), chunk: 1)
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let two = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
    for chunk in [1, 7, 55, 56, 64, 1000] {
      #expect(digest(two, chunk: chunk) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
    let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    for hardware in Set([false, SHA256.hardwareAvailable]) {
      #expect(
        digest(million, chunk: 4099, hardware: hardware)
          == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
  }

  /// The processor's SHA instructions and the portable compression give the same digests, for
  /// every length about the block size and in any chunking.
  @Test func theHardwareAndThePortableCompressionAgree() {
    var random = SeededRandom(seed: 11)
    for length in [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 4096, 10_007] {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      let portable = digest(bytes, chunk: 1 + length / 3, hardware: false)
      #expect(digest(bytes, chunk: 64, hardware: SHA256.hardwareAvailable) == portable, "\(length) bytes")
      #expect(
        digest(bytes, chunk: 100_000, hardware: SHA256.hardwareAvailable) == portable, "\(length) bytes")
    }
  }
}

@Suite struct HumanNumberTests {
  @Test func significantDigits() {
    let cases: [(Double?, Int, String)] = [
      (0.37872300000000003, 4, "0.3787"), (1, 4, "1"), (0, 4, "0"), (570.239, 4, "570.2"), (190.08, 2, "190"),
      (12345.6, 4, "12346"), (0.000012345, 3, "1.23e-05"), (-0.04999, 2, "-0.05"), (nil, 4, "-"),
      (.nan, 4, "-"),
      (999.96, 4, "1000"), (0.1, 17, "0.10000000000000001"), (-0.00001, 1, "-1e-05"), (-0.0000, 3, "0"),
    ]
    for (v, d, expected) in cases {
      #expect(formatSignificant(v, digits: d) == expected, "\(String(describing: v)) to \(d)")
    }
  }

  @Test func durations() {
    #expect(formatDuration(0) == "0 s")
    #expect(formatDuration(42.5) == "42.5 s")
    #expect(formatDuration(1.23456) == "1.235 s")
    #expect(formatDuration(303) == "5 min 3 s")
    #expect(formatDuration(359.9) == "6 min 0 s")
    #expect(formatDuration(7500) == "2 h 5 min")
    #expect(formatDuration(300_000) == "83 h 20 min")
  }
}

/// trim's window: half-open, relative to the first sample when asked, the same whatever the
/// blocks, and only "past" when time has only increased.
@Suite struct TimeWindowTests {
  static func block(_ t: [Double]) -> SampleBlock {
    SampleBlock(t: t, x: t.map { $0 * 10 }, y: t, z: t)
  }

  @Test func aHalfOpenWindowAcrossBlocks() {
    let times = (0..<100).map { Double($0) / 10 }
    var whole = TimeWindow(from: 2, to: 5)
    let one = whole.process(Self.block(times))
    var split = TimeWindow(from: 2, to: 5)
    var parts: [Double] = []
    for range in [0..<7, 7..<33, 33..<41, 41..<100] {
      parts += split.process(Self.block(Array(times[range]))).t
    }
    #expect(one.t.first == 2 && one.t.last == 4.9 && one.count == 30 && parts == one.t)
    #expect(one.x == one.t.map { $0 * 10 })
    #expect(whole.isPast)
    var relative = TimeWindow(from: 1, relative: true)
    #expect(relative.process(Self.block(times.map { $0 + 100 })).t.first == 101)
  }

  /// Times that go back: samples in the window are kept wherever they are, and the window never
  /// claims to be past.
  @Test func timesThatGoBack() {
    var window = TimeWindow(from: 1, to: 2)
    let kept = window.process(Self.block([0, 1.5, 3, 1.2, 0.5, 1.9]))
    #expect(kept.t == [1.5, 1.2, 1.9] && kept.x == [15, 12, 19])
    #expect(!window.isPast)
  }
}
