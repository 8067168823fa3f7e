import Foundation
import TestSupport
import Testing

/// The README's tour runs as written: every line, in order, from a copy of the repository root
/// (the bundled datasets, nothing else), with accelkit on PATH. A line that fails names itself.
@Suite struct ReadmeTourTests {
  static func tourLines() throws -> [String] {
    let readme = String(decoding: readFile(Paths.packageRoot + "/README.md")!, as: UTF8.self)
    let start = try #require(readme.range(of: "## A tour"))
    let block = try #require(readme[start.upperBound...].range(of: "```sh\n"))
    let end = try #require(readme[block.upperBound...].range(of: "```\n"))
    return readme[block.upperBound..<end.lowerBound].split(separator: "\n").map(String.init).filter {
      !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#")
    }
  }

  @Test func everyTourLineRunsInOrder() throws {
    let lines = try Self.tourLines()
    #expect(lines.count >= 40)
    let dir = Paths.temporaryDirectory()
    // A root with the bundled data read-only-linked in: the tour must not write into datasets/.
    try FileManager.default.createSymbolicLink(
      atPath: dir + "/datasets", withDestinationPath: Paths.packageRoot + "/datasets")
    let before = try FileManager.default.subpathsOfDirectory(atPath: Paths.packageRoot + "/datasets").sorted()
    for (k, line) in lines.enumerated() {
      #expect(line.hasPrefix("accelkit "), "line \(k + 1) runs something else: \(line)")
      let run = try accelkit(
        [], shell: "cd '\(dir)' && export PATH=\"$(dirname ACCELKIT):$PATH\" && set -o pipefail && " + line)
      #expect(run.status == 0, "tour line \(k + 1): \(line)\n\(run.stderr)")
      if run.status != 0 { break }
    }
    let after = try FileManager.default.subpathsOfDirectory(atPath: Paths.packageRoot + "/datasets").sorted()
    #expect(before == after, "the tour wrote into datasets/")
    for made in [
      "notebooks-out/index.html", "sweep-out/sweep.csv", "tuned/best.params", "walk.npy", "attitude.npy",
      "walk.svg", "pr.svg",
    ] {
      #expect(fileExists(dir + "/" + made), "\(made)")
    }
  }
}
