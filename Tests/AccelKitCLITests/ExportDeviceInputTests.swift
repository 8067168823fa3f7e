import AccelCore
import AccelGestures
import Foundation
import TestSupport
import Testing

/// What a device feeds an exported detector: every detector of the registry, in double and in
/// float, built with the address and undefined-behaviour sanitizers, fed NaN and infinite
/// readings, repeated times, a timer reset, a constant axis and times after days of uptime. It
/// must not crash, must recover, and must give detect-shakes' events wherever the input is valid.
@Suite struct ExportDeviceInputTests {
  static func lines(_ path: String) -> [String] {
    String(decoding: readFile(path) ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// Writes `rows` (t,x,y,z text rows) with a header.
  static func write(_ path: String, _ rows: [String]) { writeFile(path, (["t,x,y,z"] + rows).joined(separator: "\n") + "\n") }

  /// The events (start and end) of an events CSV, without its header.
  static func spans(_ lines: [String]) -> [(Double, Double)] {
    lines.dropFirst().map { line in
      let f = line.split(separator: ",", omittingEmptySubsequences: false)
      return (Double(f[0]) ?? .nan, Double(f[1]) ?? .nan)
    }
  }

  /// Trace 005 of the test set: with its z axis held at -1 g, float's window statistics once
  /// found one of its two shakes where double found both.
  @Test func exportedDetectorsSurviveWhatADeviceFeedsThem() throws {
    let cc = try ExportCLITests.compiler("cc")
    let dir = Paths.temporaryDirectory()
    let (base, rate) = try ExportCLITests.plainCopies([Paths.packageRoot + "/datasets/test/005.csv"], in: dir)[0]
    let rows = Array(Self.lines(base).dropFirst())
    let fields = rows.map { $0.split(separator: ",").map(String.init) }
    // Bad readings between valid rows (their own times in between, or none).
    var glitches: [String] = []
    for (i, row) in rows.enumerated() {
      glitches.append(row)
      if i % 500 == 250, i + 1 < rows.count {
        let t = (Double(fields[i][0])! + Double(fields[i + 1][0])!) / 2
        glitches += ["\(formatNumber(t)),nan,0,-1", "nan,0,0,-1", "\(formatNumber(t)),0,inf,-1", "\(formatNumber(t)),0,0,-inf"]
      }
      if i % 700 == 100 { glitches.append("\(fields[i][0]),3,3,3") }  // a repeated time
    }
    Self.write(dir + "/glitches.csv", glitches)
    Self.write(dir + "/reset.csv", rows + rows)  // the timer starts again from the first time
    Self.write(dir + "/constant.csv", fields.map { "\($0[0]),\($0[1]),\($0[2]),-1" })
    Self.write(dir + "/constant-base.csv", fields.map { "\($0[0]),\($0[1]),\($0[2]),-1" })
    Self.write(dir + "/days.csv", fields.map { "\(formatNumber(Double($0[0])! + 259_200)),\($0[1]),\($0[2]),\($0[3])" })
    let sanitize = "-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"
    // Every registered detector, and a model of exponential features (its own code in the export).
    let trained = try accelkit([
      "train", Paths.packageRoot + "/datasets/train", "--label", "shake", "--exponential", "--rounds", "40",
      "--folds", "2", "--quiet", "-o", dir + "/exponential",
    ])
    try #require(trained.status == 0, "\(trained.stderr)")
    let detectors = Detectors.names.map { ($0, "--rule \($0)") } + [("exponential", "--model '\(dir)/exponential'")]
    for (name, detector) in detectors {
      for precision in ["double", "float"] {
        let out = "\(dir)/\(name)-\(precision)"
        var script = "set -e\n"
        script += "ACCELKIT export \(detector) --rate \(rate) --precision \(precision) -o '\(out)' 2>/dev/null\n"
        script += "'\(cc)' -std=c99 \(sanitize) -I '\(out)' '\(ExportCLITests.replay)' -o '\(out)/replay' -lm\n"
        for input in ["glitches", "reset", "constant", "days"] {
          script += "'\(out)/replay' < '\(dir)/\(input).csv' > '\(out)/\(input).c.csv'\n"
        }
        for input in ["base", "constant-base", "days"] where precision == "double" {
          let path = input == "base" ? base : "\(dir)/\(input).csv"
          script += "ACCELKIT detect-shakes \(detector) --rate \(rate) '\(path)' > '\(dir)/\(name)-\(input).swift.csv'\n"
        }
        let run = try accelkit([], shell: script)
        try #require(run.status == 0, "\(name) \(precision): \(run.stderr)")
      }
      let expected = Self.lines("\(dir)/\(name)-base.swift.csv")
      let double = "\(dir)/\(name)-double"
      // Glitches are skipped: the events of the clean trace, byte for byte.
      #expect(Self.lines(double + "/glitches.c.csv") == expected, "\(name): glitches")
      // A timer reset starts a new recording: the second copy gives every event again.
      let reset = Self.lines(double + "/reset.c.csv")
      let events = Array(expected.dropFirst())
      #expect(Array(reset.suffix(events.count)) == events, "\(name): after the reset")
      #expect(reset.dropFirst().dropLast(events.count).allSatisfy(events.contains), "\(name): before the reset")
      // Times after three days of uptime, in double: detect-shakes' events on the same times.
      #expect(Self.lines(double + "/days.c.csv") == Self.lines("\(dir)/\(name)-days.swift.csv"), "\(name): days")
      // A constant axis: double gives detect-shakes' events, float the same events within 0.25 s.
      let constant = Self.lines("\(dir)/\(name)-constant-base.swift.csv")
      #expect(Self.lines(double + "/constant.c.csv") == constant, "\(name): constant axis")
      let float = Self.spans(Self.lines("\(dir)/\(name)-float/constant.c.csv"))
      let wanted = Self.spans(constant)
      #expect(float.count == wanted.count, "\(name): float on a constant axis \(float) against \(wanted)")
      for (a, b) in zip(float, wanted) {
        #expect(abs(a.0 - b.0) <= 0.25 && abs(a.1 - b.1) <= 0.25, "\(name): float \(a) against \(b)")
      }
    }
  }
}
