import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelIO

/// Plain CSV rows parsed on two threads give what one thread gives: the same values, the same
/// block boundaries, the same line numbers in errors and the same skipped rows, whatever mixture
/// of plain and other rows (quotes, exponents, long numbers, blank lines, CRLF) the file holds.
@Suite struct ParallelCSVTests {
  /// A file of `rows` rows, plain except where `odd` says, seeded.
  func csv(rows: Int, seed: UInt64, odd: Double, bad: Int? = nil) -> String {
    var rng = SeededRandom(seed: seed)
    var text = "t,x,y,z\n"
    for i in 0..<rows {
      let t = Double(i) / 100
      let (x, y, z) = (
        Double(Int.random(in: -20_000...20_000, using: &rng)) / 10_000,
        Double(Int.random(in: -20_000...20_000, using: &rng)) / 10_000,
        Double(Int.random(in: -20_000...20_000, using: &rng)) / 10_000
      )
      if i == bad {
        text += "\(formatNumber(t)),oops,\(formatNumber(y)),\(formatNumber(z))\n"
      } else if Double.random(in: 0..<1, using: &rng) < odd {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: text += "\(formatNumber(t)),\"\(formatNumber(x))\",\(formatNumber(y)),\(formatNumber(z))\n"
        case 1: text += "\(formatNumber(t)),\(x)e0,\(formatNumber(y)),\(formatNumber(z))\n"
        case 2: text += "\(formatNumber(t)),\(x + 1e-13),\(formatNumber(y)),\(formatNumber(z))\n"
        case 3: text += "\n\(formatNumber(t)), \(formatNumber(x)),\(formatNumber(y)),\(formatNumber(z))\n"
        case 4: text += "\(formatNumber(t)),\(formatNumber(x)),\(formatNumber(y)),\(formatNumber(z))\r\n"
        default: text += "\(formatNumber(t)),\(formatNumber(x)),\(formatNumber(y)),\(formatNumber(z))\n"
        }
      } else {
        text += "\(formatNumber(t)),\(formatNumber(x)),\(formatNumber(y)),\(formatNumber(z))\n"
      }
    }
    return text
  }

  func blocks(_ path: String, threads: Int, skipBadRows: Bool = false) throws -> ([SampleBlock], Int) {
    let (blocks, skipped, _) = try read(path, threads: threads, skipBadRows: skipBadRows)
    return (blocks, skipped)
  }

  /// The blocks, the skipped rows and the rows the second thread parsed.
  func read(_ path: String, threads: Int, skipBadRows: Bool = false) throws -> ([SampleBlock], Int, Int) {
    var settings = TraceReadSettings()
    settings.parseThreads = threads
    settings.skipBadRows = skipBadRows
    let (source, _) = try TraceOpener.open(path: path, settings: settings)
    var blocks: [SampleBlock] = []
    while let block = try source.next() { blocks.append(block) }
    let reader = source as? CSVTraceReader
    return (blocks, reader?.skippedRows ?? 0, reader?.helperRows ?? 0)
  }

  @Test(arguments: [0.0, 0.0001, 0.01, 0.3])
  func twoThreadsGiveOneThreadsBlocks(odd: Double) throws {
    let path = temporaryFile("parallel.csv", csv(rows: 120_000, seed: UInt64(odd * 1e4) + 1, odd: odd))
    let one = try read(path, threads: 1)
    let two = try read(path, threads: 2)
    #expect(
      one.2 == 0 && two.2 > (odd == 0 ? 40_000 : odd <= 0.0001 ? 10_000 : -1),
      "\(two.2) rows on the second thread")
    #expect(one.0.count == two.0.count)
    #expect(one.0 == two.0)
    #expect(one.0.map(\.count).reduce(0, +) == 120_000)
  }

  @Test func errorsAndSkippedRowsAreTheSame() throws {
    for bad in [5, 70_001, 119_999] {
      let text = csv(rows: 120_000, seed: 9, odd: 0.0005, bad: bad)
      let path = temporaryFile("bad.csv", text)
      let line = text[..<text.range(of: "oops")!.lowerBound].filter { $0 == "\n" || $0 == "\r\n" }.count + 1
      let one = accelError { _ = try blocks(path, threads: 1) }
      let two = accelError { _ = try blocks(path, threads: 2) }
      #expect(one != nil && one?.diagnostic == two?.diagnostic, "\(bad)")
      #expect(one?.diagnostic.contains(":\(line):") == true, "\(line) \(one?.diagnostic ?? "")")
      let skipping1 = try blocks(path, threads: 1, skipBadRows: true)
      let skipping2 = try blocks(path, threads: 2, skipBadRows: true)
      #expect(skipping1.0 == skipping2.0 && skipping1.1 == 1 && skipping2.1 == 1)
    }
  }
}
