import AccelCore
import AccelFilters
import Foundation
import TestSupport
import Testing

/// `TraceFilter.run` filters a whole trace: a streaming filter block by block (the same as one
/// block), a zero-phase one forward and backward through its store (the same as the in-memory
/// filtfilt); every input time is observed once.
@Suite struct TraceFilterRunTests {
  static func trace(count: Int) -> SampleBlock {
    var generator = SeededGenerator(seed: 3)
    let t = (0..<count).map { Double($0) / 50 }
    func signal() -> [Double] { t.map { sin(7 * $0) + 0.3 * Double.random(in: -1...1, using: &generator) } }
    return SampleBlock(t: t, x: signal(), y: signal(), z: signal())
  }

  static func run(_ kind: TraceFilterKind, _ trace: SampleBlock, blockSize: Int) throws -> (
    columns: [[Double]], observed: [Double]
  ) {
    var filter = try TraceFilter(kind, rate: 50, initialization: .steady)
    var start = 0
    var columns: [[Double]] = []
    var observed: [Double] = []
    try filter.run(
      name: "trace",
      next: {
        guard start < trace.count else { return nil }
        defer { start += blockSize }
        return trace.slice(start..<min(trace.count, start + blockSize))
      }, scratch: { MemoryStore() }, observe: { observed += $0 },
      write: { block in
        if columns.isEmpty { columns = Array(repeating: [], count: block.count) }
        for k in block.indices { columns[k] += block[k] }
      })
    return (columns, observed)
  }

  @Test func aWholeTraceIsFilteredAsInOnePass() throws {
    let trace = Self.trace(count: 1000)
    let streaming = TraceFilterKind.butterworth(order: 4, cutoff: 5, cutoffHigh: nil, band: .low, zeroPhase: false)
    var once = try TraceFilter(streaming, rate: 50, initialization: .steady)
    var whole = trace
    let expected = once.process(&whole)
    let chunked = try Self.run(streaming, trace, blockSize: 77)
    #expect(chunked.columns == expected && chunked.observed == trace.t)

    let zeroPhase = TraceFilterKind.butterworth(order: 4, cutoff: 5, cutoffHigh: nil, band: .low, zeroPhase: true)
    let design = try #require(try TraceFilter(zeroPhase, rate: 50, initialization: .steady).zeroPhaseSections)
    let filtfilt = try #require(ZeroPhase.filter3(trace.x, trace.y, trace.z, sections: design))
    let offline = try Self.run(zeroPhase, trace, blockSize: 64)
    #expect(offline.columns == [trace.t] + filtfilt && offline.observed == trace.t)
  }
}
