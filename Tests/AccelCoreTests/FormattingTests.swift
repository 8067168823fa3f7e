import AccelCore
import Testing

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
    #expect(quotedField(String(repeating: "a", count: 40)) == "\"" + String(repeating: "a", count: 32) + "...\"")
    #expect(quotedField("a\u{1}b\nc") == "\"a?b?c\"")
    #expect(quotedField(String(decoding: [0x61, 0xff, 0x62] as [UInt8], as: UTF8.self)) == "\"a?b\"")
    #expect(quotedFields(["t", "x"]) == "\"t\", \"x\"")
    #expect(quotedFields((0..<14).map(String.init)).hasSuffix("\"11\" and 2 more"))
  }
}
