import Foundation
import TestSupport
import Testing

@Suite struct PlotCLITests {
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
    let converter = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first(where: fileExists)
    if let converter {
      for command in commands {
        let png = command.last!.replacingOccurrences(of: ".svg", with: ".png")
        let result = try accelkit([], shell: "'\(converter)' '\(command.last!)' -o '\(png)'")
        #expect(result.status == 0, "rsvg-convert \(command.last!): \(result.stderr)")
        #expect(readFile(png)?.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
      }
    } else {
      #expect(ProcessInfo.processInfo.environment["CI"] == nil, "CI must have rsvg-convert (librsvg2-bin)")
    }
    #expect(try accelkit(["plot", "trace", root + "/datasets/test/000.csv", "--from", "100", "-o", dir + "/none.svg"]).status == 64)
  }
}
