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
