@testable import AccelCore
import TestSupport
import Testing
import Foundation

@Suite struct TraceSummaryTests {
  func summary(_ block: SampleBlock, blockSize: Int = 3) throws -> TraceSummary {
    var s = TraceSummary()
    let source = MemoryTraceSource(block, metadata: TraceMetadata(name: "m"), blockSize: blockSize)
    while let b = try source.next() { s.add(b) }
    return s
  }

  @Test func timingFromAHandWorkedTrace() throws {
    // Intervals: 0.01 x 4, 0.05 (a gap), 0.01, then a repeat (0) and a step back (-0.02).
    let t = [0, 0.01, 0.02, 0.03, 0.04, 0.09, 0.10, 0.10, 0.08]
    let n = t.count
    let s = try summary(SampleBlock(t: t, x: Array(repeating: 0, count: n), y: Array(repeating: 0, count: n), z: Array(repeating: -1, count: n)))
    #expect(s.rows == 9)
    #expect(s.duration == 0.08)
    #expect(s.nonIncreasing == 2)
    #expect(s.firstNonIncreasingSample == 8)
    #expect(isClose(try #require(s.medianInterval), 0.01, relative: 1e-9))
    #expect(isClose(try #require(s.estimatedRate), 100, relative: 1e-9))
    #expect(s.gapCount == 1)
    #expect(s.largestGaps.count == 1)
    #expect(isClose(s.largestGaps[0].interval, 0.05, relative: 1e-12) && s.largestGaps[0].start == 0.04)
  }

  @Test func axisStatisticsMatchTwoPassFormulasInAnyBlocking() throws {
    var rng = SeededRandom(seed: 11)
    let n = 1000
    let x = (0..<n).map { _ in Double.random(in: -2...2, using: &rng) }
    let block = SampleBlock(t: (0..<n).map { Double($0) / 50 }, x: x, y: x.map { $0 * 2 }, z: x.map { _ in 2.3 })
    let mean = x.reduce(0, +) / Double(n)
    let std = (x.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(n)).squareRoot()
    for blockSize in [1, 7, 1000] {
      let s = try summary(block, blockSize: blockSize)
      #expect(isClose(s.x.mean, mean, relative: 1e-12))
      #expect(isClose(s.x.std, std, relative: 1e-12))
      #expect(s.x.min == x.min()! && s.x.max == x.max()!)
      #expect(s.x.countAtMin == 1 && s.x.countAtMax == 1)
      #expect(s.z.countAtMax == n && s.z.countAtMin == n)
      #expect(isClose(try #require(s.estimatedRate), 50, relative: 1e-9))
      #expect(s.gapCount == 0 && s.nonIncreasing == 0)
    }
  }

  /// Rails repeated in one block and across blocks, a new extreme resetting its count.
  @Test func countsAtTheExtremes() throws {
    let x: [Double] = [1, 3, 3, -2, 0, 3, -2, -2, 5, -3, 5]
    let n = x.count
    let block = SampleBlock(t: (0..<n).map { Double($0) }, x: x, y: x, z: x)
    for blockSize in [1, 4, n] {
      let s = try summary(block, blockSize: blockSize)
      #expect(s.x.min == -3 && s.x.countAtMin == 1)
      #expect(s.x.max == 5 && s.x.countAtMax == 2)
    }
    let s = try summary(SampleBlock(t: [0, 1, 2, 3], x: [3, 3, -2, -2], y: [0, 0, 0, 0], z: [0, 0, 0, 0]))
    #expect(s.x.countAtMin == 2 && s.x.countAtMax == 2 && s.y.countAtMin == 4)
  }

  /// More distinct intervals than the histogram keeps bins for (it coarsens): the median, the
  /// gap count and the longest gaps against sorting every interval.
  @Test func manyDistinctIntervalsAgainstBruteForce() throws {
    var rng = SeededRandom(seed: 5)
    var t: [Double] = [0]
    for i in 1..<250_000 {
      let gap = i % 997 == 0 ? Double.random(in: 0.05...2, using: &rng) : Double.random(in: 0.009...0.011, using: &rng)
      t.append(t[i - 1] + gap)
    }
    let n = t.count
    let s = try summary(SampleBlock(t: t, x: t, y: t, z: t), blockSize: 4096)
    let intervals = (1..<n).map { t[$0] - t[$0 - 1] }
    let sorted = intervals.sorted()
    let median = sorted[(sorted.count + 1) / 2 - 1]
    // Bins are ~2^-28 wide after coarsening once: the median is a bin's mean.
    let estimated = try #require(s.medianInterval)
    #expect(isClose(estimated, median, relative: 1e-7))
    #expect(s.gapCount == intervals.filter { $0 > 1.5 * estimated }.count)
    let longest = (1..<n).sorted { intervals[$0 - 1] > intervals[$1 - 1] }.prefix(5)
    #expect(s.largestGaps.map(\.interval) == longest.map { intervals[$0 - 1] })
    #expect(s.largestGaps.map(\.start) == longest.map { t[$0 - 1] })
  }
}

@Suite struct BinTableTests {
  /// The histogram's hash table against a dictionary: random keys (many colliding in their top
  /// bits), counts and sums, through several growths.
  @Test func agreesWithADictionary() {
    var rng = SeededRandom(seed: 3)
    var table = _BinTable()
    var reference: [UInt64: (count: Int, sum: Double)] = [:]
    for _ in 0..<200_000 {
      let key = UInt64.random(in: 0..<5000, using: &rng) << UInt64.random(in: 0...50, using: &rng)
      let value = Double.random(in: 0...1, using: &rng)
      table.add(key, value)
      reference[key, default: (0, 0)].count += 1
      reference[key]!.sum += value
    }
    #expect(table.count == reference.count)
    let bins = table.sortedByKey()
    #expect(bins.map(\.key) == reference.keys.sorted())
    for bin in bins {
      #expect(bin.count == reference[bin.key]!.count && bin.sum == reference[bin.key]!.sum)
    }
  }
}

@Suite struct LinearResamplerTests {
  @Test func handWorkedInterpolation() throws {
    var r = LinearResampler(rate: 10, name: "m")
    let block = SampleBlock(t: [0, 0.25, 0.3], x: [0, 1, 2], y: [1, 1, 1], z: [0, -2.5, -3])
    let out = try r.process(block)
    #expect(out.t == [0, 0.1, 0.2, 0.3])
    #expect(out.x[0] == 0 && isClose(out.x[1], 0.4, relative: 1e-15) && isClose(out.x[2], 0.8, relative: 1e-15))
    #expect(out.x[3] == 2)
    #expect(isClose(out.z[2], -2, relative: 1e-15))
  }

  @Test func chunkedEqualsOneShot() throws {
    var rng = SeededRandom(seed: 5)
    var t = 0.0
    var times: [Double] = []
    for _ in 0..<500 {
      times.append(t)
      t += Double.random(in: 0.005...0.02, using: &rng)
    }
    let xs = times.map { sin($0 * 7) }
    let block = SampleBlock(t: times, x: xs, y: xs, z: xs)
    var whole = LinearResampler(rate: 100, name: "m")
    let expected = try whole.process(block)
    for size in [1, 3, 64] {
      var chunked = LinearResampler(rate: 100, name: "m")
      var out = SampleBlock()
      let source = MemoryTraceSource(block, metadata: TraceMetadata(name: "m"), blockSize: size)
      while let b = try source.next() { out.append(contentsOf: try chunked.process(b)) }
      #expect(out == expected)
    }
    #expect(expected.count == Int(((times.last! - times[0]) * 100).rounded(.down)) + 1)
  }

  @Test func decreasingTimeIsADataError() {
    var r = LinearResampler(rate: 10, name: "walk.csv")
    #expect(throws: AccelError.self) {
      _ = try r.process(SampleBlock(t: [0, 0.2, 0.1], x: [0, 0, 0], y: [0, 0, 0], z: [0, 0, 0]))
    }
  }
}

@Suite struct ErrorTests {
  @Test func exitCodesAndDiagnostics() {
    let data = AccelError.data(DataLocation(file: "walk.csv", line: 812, column: 3), "expected a number in column \"z\", got \"n/a\"", hint: "fix it")
    #expect(data.diagnostic == "Error: walk.csv:812:3: expected a number in column \"z\", got \"n/a\"\nHint: fix it")
    #expect(data.exitCode == 65)
    #expect(AccelError.usage("bad").exitCode == 64)
    #expect(AccelError.cannotOpen(path: "a", reason: "b").exitCode == 66)
    #expect(AccelError.io(path: "a", reason: "b").exitCode == 74)
    #expect(AccelError.failure("gate").exitCode == 1)
    #expect(DataLocation(file: "a.npy", byteOffset: 10).description == "a.npy: byte 10")
  }
}

@Suite struct ResamplerBoundsTests {
  @Test func aTimeJumpIsADataErrorNotAnEndlessGrid() throws {
    var resampler = LinearResampler(rate: 100, name: "jump.csv")
    let block = SampleBlock(t: [0, 0.01, 1e300], x: [0, 0, 0], y: [0, 0, 0], z: [-1, -1, -1])
    #expect(throws: AccelError.self) { _ = try resampler.process(block) }
    // Gaps up to the limit are filled (here 5 s at 100 Hz: 500 points).
    var ok = LinearResampler(rate: 100, name: "gap.csv")
    let gap = try ok.process(SampleBlock(t: [0, 5], x: [0, 1], y: [0, 0], z: [-1, -1]))
    #expect(gap.count == 501 && gap.x[250] == 0.5)
  }

  @Test func chunkedEqualsOneShotForEveryChannel() throws {
    var rng = SeededGenerator(seed: 4)
    let n = 500
    var t = [0.0]
    for _ in 1..<n { t.append(t.last! + Double.random(in: 0.004...0.016, using: &rng)) }
    func column() -> [Double] { (0..<n).map { _ in Double.random(in: -2...2, using: &rng) } }
    let block = SampleBlock(
      t: t, x: column(), y: column(), z: column(), gyroscope: AxisColumns(x: column(), y: column(), z: column()),
      magnetometer: AxisColumns(x: column(), y: column(), z: column()), extras: [column()])
    var whole = LinearResampler(rate: 100, name: "w")
    let expected = try whole.process(block)
    for _ in 0..<10 {
      var chunked = LinearResampler(rate: 100, name: "c")
      var out = SampleBlock()
      var start = 0
      while start < n {
        let end = min(n, start + Int.random(in: 1...60, using: &rng))
        out.append(contentsOf: try chunked.process(block.slice(start..<end)))
        start = end
      }
      #expect(out == expected)
    }
  }

  @Test func everyChannelIsInterpolated() throws {
    var resampler = LinearResampler(rate: 2, name: "imu.csv")
    let block = SampleBlock(
      t: [0, 1], x: [0, 2], y: [0, 0], z: [-1, -1], gyroscope: AxisColumns(x: [1, 3], y: [0, 0], z: [0, 0]),
      magnetometer: AxisColumns(x: [20, 40], y: [0, 0], z: [0, 0]), extras: [[5, 7]])
    let out = try resampler.process(block)
    #expect(out.t == [0, 0.5, 1] && out.x == [0, 1, 2])
    #expect(out.gyroscope?.x == [1, 2, 3] && out.magnetometer?.x == [20, 30, 40] && out.extras == [[5, 6, 7]])
  }
}
