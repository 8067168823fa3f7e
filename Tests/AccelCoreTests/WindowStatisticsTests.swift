import AccelCore
import Foundation
import TestSupport
import Testing

@Suite struct WindowStatisticsTests {
  func block(_ t: [Double], _ x: [Double], _ y: [Double]? = nil, _ z: [Double]? = nil) -> SampleBlock {
    SampleBlock(t: t, x: x, y: y ?? x, z: z ?? x)
  }

  func all(_ stats: inout WindowStatistics, _ blocks: [SampleBlock]) -> [WindowRow] {
    blocks.flatMap { stats.process($0) } + (stats.finish().map { [$0] } ?? [])
  }

  /// Worked by hand: windows of 1 s over t = 0, 0.5, 1, 1.5, 2.
  @Test func handWorkedWindows() {
    var stats = WindowStatistics(width: 1)
    let rows = all(&stats, [block([0, 0.5, 1, 1.5, 2], [1, 2, 3, 5, 7], [0, 0, -1, 1, .nan])])
    #expect(rows.map(\.start) == [0, 1, 2])
    #expect(rows.map(\.count) == [2, 2, 1])
    #expect(
      rows[0].mean.0 == 1.5 && rows[0].std.0 == 0.5.squareRoot() && rows[0].min.0 == 1 && rows[0].max.0 == 2)
    #expect(
      rows[1].mean.0 == 4 && rows[1].std.0 == 2.squareRoot() && rows[1].min.0 == 3 && rows[1].max.0 == 5)
    #expect(rows[1].mean.1 == 0 && rows[1].std.1 == 2.squareRoot())
    #expect(rows[2].mean.0 == 7 && rows[2].std.0.isNaN && rows[2].min.0 == 7)  // one value: no deviation
    #expect(rows[2].mean.1.isNaN && rows[2].min.1.isNaN && rows[2].max.1.isNaN)  // only a missing value
  }

  /// Windows line up with multiples of the width, negative times included; times that go back
  /// start a new window.
  @Test func alignmentAndTimesThatGoBack() {
    var stats = WindowStatistics(width: 0.25)
    let rows = all(&stats, [block([-0.3, -0.1, 0.1, 0.26, 0.2], [1, 2, 3, 4, 5])])
    #expect(rows.map(\.start) == [-0.5, -0.25, 0, 0.25, 0])
    #expect(rows.map(\.count) == [1, 1, 1, 1, 1])
  }

  /// Any cut into blocks gives the same rows as one block; the values agree with the two-pass
  /// formulas, also around a large offset.
  @Test func chunkedEqualsOneShotAndTwoPass() {
    var rng = SeededRandom(seed: 12)
    let n = 5_000
    let t = (0..<n).map { Double($0) / 100 }
    let x = t.map { _ in 1e6 + Double.random(in: -1...1, using: &rng) }
    let y = t.map { sin($0) }
    let z = t.map { _ in Double.random(in: -2...2, using: &rng) }
    var one = WindowStatistics(width: 0.7)
    let expected = all(&one, [block(t, x, y, z)])
    for _ in 0..<20 {
      var cuts =
        (0..<Int.random(in: 1...12, using: &rng)).map { _ in Int.random(in: 0...n, using: &rng) } + [0, n]
      cuts.sort()
      var chunked = WindowStatistics(width: 0.7)
      let blocks = zip(cuts, cuts.dropFirst()).map { a, b in
        block(Array(t[a..<b]), Array(x[a..<b]), Array(y[a..<b]), Array(z[a..<b]))
      }
      #expect(all(&chunked, blocks) == expected)
    }
    var i = 0
    for row in expected {
      let values = Array(x[i..<(i + row.count)])
      let mean = values.reduce(0, +) / Double(values.count)
      let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)
      #expect(abs(row.mean.0 - mean) <= 1e-15 * abs(mean))
      #expect(abs(row.std.0 - variance.squareRoot()) <= 1e-9 * variance.squareRoot())
      #expect(row.min.0 == values.min()! && row.max.0 == values.max()!)
      #expect(row.start == (t[i] / 0.7).rounded(.down) * 0.7)
      i += row.count
    }
    #expect(i == n)
  }
}
