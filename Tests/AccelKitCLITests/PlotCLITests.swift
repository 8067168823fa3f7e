import Foundation
import TestSupport
import Testing

@Suite struct PlotCLITests {
  /// A long trace (10^6 samples as raw binary) gives plots of bounded size: the trace and
  /// orientation from at most 4096 buckets (two points each), the spectrogram from at most 512 x
  /// 128 cells, the simulated path from at most 20 000 points.
  @Test func plotsOfALongTraceAreBounded() throws {
    let dir = Paths.temporaryDirectory()
    let n = 1_000_000
    var values = [Double](repeating: 0, count: 4 * n)
    for i in 0..<n {
      let t = Double(i) / 100
      (values[4 * i], values[4 * i + 1], values[4 * i + 2], values[4 * i + 3]) = (t, 0.3 * sin(9 * t), 0, -1)
    }
    let bytes = values.withUnsafeBytes { Array($0) }
    writeFile(dir + "/long.bin", bytes)
    let read = ["--input-format", "raw", "--layout", "txyz"]
    let limits: [(String, Int)] = [("trace", 250_000), ("orientation", 150_000), ("spectrogram", 6_000_000)]
    for (kind, limit) in limits {
      let r = try accelkit(["plot", kind, dir + "/long.bin"] + read + ["-o", dir + "/\(kind).svg"])
      #expect(r.status == 0, "\(kind): \(r.stderr)")
      let size = readFile(dir + "/\(kind).svg")?.count ?? 0
      #expect(size > 0 && size < limit, "plot \(kind): \(size) bytes")
    }
    let svg = String(decoding: readFile(dir + "/spectrogram.svg") ?? [], as: UTF8.self)
    #expect(svg.components(separatedBy: "<rect").count - 1 <= 512 * 128 + 60)
    let ball = try accelkit(["simulate", "ball", dir + "/long.bin"] + read + ["-o", "/dev/null", "--svg", dir + "/ball.svg"])
    #expect(ball.status == 0, "\(ball.stderr)")
    let path = String(decoding: readFile(dir + "/ball.svg") ?? [], as: UTF8.self)
    let polyline = path.split(separator: "\n").first { $0.hasPrefix("<polyline") } ?? ""
    #expect(polyline.split(separator: " ").count <= 20_001 + 5)
    #expect(path.components(separatedBy: "<circle").count - 1 <= 20_001 + 1)
  }

  /// Every plot kind on fixed inputs; where rsvg-convert is there (always under CI) each SVG is
  /// rendered to PNG to prove it is valid.
  @Test func everyKindRendersAndConverts() throws {
    let root = Paths.packageRoot
    let dir = Paths.temporaryDirectory()
    let sweep = dir + "/sweep"
    #expect(try accelkit(["evaluate", root + "/datasets/train", "--rule", "three-peak", "--sweep", "three-peak.move_g=0.5:1:0.25", "-o", sweep, "--format", "csv"]).status == 0)
    let commands: [[String]] = [
      ["plot", "trace", root + "/datasets/test/000.csv", "--events", root + "/datasets/test/000.events.csv", "--from", "5", "--to", "15", "-o", dir + "/trace.svg"],
      ["plot", "spectrum", root + "/datasets/samples/portrait-shake.csv", "-o", dir + "/spectrum.svg"],
      ["plot", "spectrogram", root + "/datasets/samples/portrait-shake.csv", "-o", dir + "/spectrogram.svg"],
      ["plot", "pr", sweep + "/sweep.csv", "-o", dir + "/pr.svg"],
      ["plot", "orientation", root + "/datasets/test/001.csv", "-o", dir + "/orientation.svg"],
    ]
    for command in commands {
      let result = try accelkit(command)
      #expect(result.status == 0, "\(command): \(result.stderr)")
      let svg = String(decoding: readFile(command.last!) ?? [], as: UTF8.self)
      #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>\n"), "\(command.last!)")
    }
    let again = try accelkit(commands[0])
    #expect(again.status == 0)
    let converter = try #require(
      Tools.path("rsvg-convert"), Comment(rawValue: Tools.missing("rsvg-convert", package: "librsvg2-bin")))
    for command in commands {
      let png = command.last!.replacingOccurrences(of: ".svg", with: ".png")
      let result = try accelkit([], shell: "'\(converter)' '\(command.last!)' -o '\(png)'")
      #expect(result.status == 0, "rsvg-convert \(command.last!): \(result.stderr)")
      #expect(readFile(png)?.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
    }
    #expect(try accelkit(["plot", "trace", root + "/datasets/test/000.csv", "--from", "100", "-o", dir + "/none.svg"]).status == 64)
  }
}
