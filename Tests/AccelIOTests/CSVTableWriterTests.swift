import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelIO

/// The CSV table writer gives the same bytes on one core, on two, and on a background thread, and
/// a write that fails on the background thread is reported, not lost.
@Suite struct CSVTableWriterTests {
  func write(to path: String, jobs: Int, pipelined: Bool, blocks: [[[Double]]], labels: [[Int]]) throws {
    let file = try OutputFile(path: path)
    let table = try CSVTableWriter(
      output: file, names: ["t", "a", "b", "class"], significantDigits: nil, jobs: jobs, pipelined: pipelined)
    for (block, codes) in zip(blocks, labels) {
      try table.write(columns: block, labels: CategoricalColumn(names: ["up", "face-down"], codes: codes))
    }
    try table.finish()
  }

  @Test func sameBytesOnOneCoreTwoCoresAndInTheBackground() throws {
    var rng = SeededRandom(seed: 3)
    var blocks: [[[Double]]] = []
    var labels: [[Int]] = []
    for size in [1, 2_047, 2_048, 5_000, 70_000, 3] {
      let t = (0..<size).map { Double($0) / 100 }
      let a = (0..<size).map { _ in Double.random(in: -2...2, using: &rng) }
      let b = (0..<size).map { i in
        i % 7 == 0 ? Double.nan : (Double.random(in: -2...2, using: &rng) * 1e4).rounded() / 1e4
      }
      blocks.append([t, a, b])
      labels.append((0..<size).map { _ in Int.random(in: 0...1, using: &rng) })
    }
    let directory = Paths.temporaryDirectory()
    var outputs: [[UInt8]] = []
    for (jobs, pipelined) in [(1, false), (2, false), (2, true)] {
      let path = directory + "/table-\(jobs)-\(pipelined).csv"
      try write(to: path, jobs: jobs, pipelined: pipelined, blocks: blocks, labels: labels)
      outputs.append(try #require(readFile(path)))
    }
    #expect(outputs[0] == outputs[1] && outputs[0] == outputs[2])
    let lines = String(decoding: outputs[0], as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 1 + blocks.map { $0[0].count }.reduce(0, +) + 1)
    #expect(lines[0] == "t,a,b,class")
    #expect(lines[1].hasPrefix("0,") && lines[1].contains(",,"))  // row 0: b is NaN, an empty field
  }

  @Test func aFailedBackgroundWriteIsThrown() throws {
    let rows = 200_000
    let column = (0..<rows).map { Double($0) / 3 }
    let failed = accelError {
      let table = try CSVTableWriter(
        output: try OutputFile(path: "/dev/full"), names: ["t", "a"], pipelined: true)
      for _ in 0..<4 { try table.write(columns: [column, column]) }
      try table.finish()
    }
    #expect(failed?.diagnostic.contains("/dev/full") == true, "\(failed?.diagnostic ?? "no error")")
  }
}
