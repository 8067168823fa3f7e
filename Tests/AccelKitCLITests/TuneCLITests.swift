import Foundation
import TestSupport
import Testing

/// accelkit tune end to end: it finds settings at least as good as a fine grid, its parameter file
/// reproduces its score through evaluate and detect-shakes, and it repeats itself exactly.
@Suite struct TuneCLITests {
  func f1(_ csv: String) -> Double? {
    let rows = csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
    guard let header = rows.first, let k = header.firstIndex(of: "f1"), rows.count > 1 else { return nil }
    return Double(rows[1][k])
  }

  @Test func tuneMatchesAFineGridAndItsFileReproducesItsScore() throws {
    let train = Paths.packageRoot + "/datasets/train"
    let dir = Paths.temporaryDirectory()
    // The known best: a 30 x 14 grid over seismic's two parameters.
    let grid = try accelkit([
      "evaluate", train, "--rule", "seismic", "--sweep", "seismic.threshold=1.05:2.5:0.05",
      "--sweep", "seismic.window_s=0.2:1.5:0.1", "-o", dir + "/grid", "--format", "csv",
    ])
    #expect(grid.status == 0, "\(grid.stderr)")
    let sweep = String(decoding: readFile(dir + "/grid/sweep.csv") ?? [], as: UTF8.self)
    let gridBest =
      sweep.split(separator: "\n").dropFirst().compactMap { Double($0.split(separator: ",")[4]) }.max() ?? 1
    let tuned = try accelkit([
      "tune", train, "--rule", "seismic", "--trials", "80", "--folds", "3", "-o", dir + "/tuned",
    ])
    #expect(tuned.status == 0, "\(tuned.stderr)")
    let params = String(decoding: readFile(dir + "/tuned/best.params") ?? [], as: UTF8.self)
    let reported = params.split(separator: "\n").first { $0.hasPrefix("# on every trace: f1 ") }
      .flatMap { Double($0.dropFirst("# on every trace: f1 ".count).prefix { $0 != "," }) }
    #expect((reported ?? 0) >= gridBest - 1e-12, "tune \(String(describing: reported)) vs grid \(gridBest)")
    // The file gives that score again.
    let again = try accelkit([
      "evaluate", train, "--params-file", dir + "/tuned/best.params", "--format", "csv",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(abs((f1(again.stdout) ?? -1) - (reported ?? -2)) < 1e-11, "\(again.stdout)")
    let events = try accelkit([
      "detect-shakes", "--params-file", dir + "/tuned/best.params", train + "/000.csv",
    ])
    #expect(events.status == 0 && events.stdout.hasPrefix("start,end,label,rule"), "\(events.stderr)")
    for name in ["trials.csv", "folds.csv", "pareto.svg"] { #expect(fileExists(dir + "/tuned/" + name)) }
    // Repeatable: the same command, the same trials.
    #expect(
      try accelkit([
        "tune", train, "--rule", "seismic", "--trials", "80", "--folds", "3", "-o", dir + "/again",
      ]).status == 0)
    #expect(readFile(dir + "/tuned/trials.csv") == readFile(dir + "/again/trials.csv"))
  }

  @Test func badTuningsAreRefused() throws {
    let train = Paths.packageRoot + "/datasets/train"
    for arguments in [
      ["--rule", "wobble"], ["--rule", "swing", "--space", "swing_g=2:1"],
      ["--rule", "swing", "--subject-to", "speed<=1"],
      ["--rule", "swing", "--maximize", "f1", "--minimize", "false_alarms_per_hour"],
      ["--rule", "swing", "--trials", "1"],
    ] {
      let r = try accelkit(["tune", train] + arguments)
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
    }
    let dir = Paths.temporaryDirectory()
    writeFile(dir + "/bad.params", "# fine\nswing.swing_g=0.8\nswing_g 0.8\n")
    let bad = try accelkit(["evaluate", train, "--params-file", dir + "/bad.params"])
    #expect(bad.status == 65 && bad.stderr.contains("bad.params:3:1"), "\(bad.stderr)")
  }
}

@Suite struct TuneStandardMetricsCLITests {
  /// tune aims at the standard figures too (their counts add over traces), in the right direction.
  @Test func aimsAtSegmentF1AndRefusesAWrongDirection() throws {
    let dataset = Paths.packageRoot + "/datasets/test"
    let r = try accelkit([
      "tune", dataset, "--rule", "three-peak", "--trials", "4", "--maximize", "segment_f1",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains(", segment_f1 0."), "\(r.stdout)")
    let c = try accelkit([
      "tune", dataset, "--rule", "three-peak", "--trials", "4", "--minimize", "event_onset_error_rate",
      "--subject-to", "segment_recall>=0.5",
    ])
    #expect(c.status == 0, "\(c.stderr)")
    #expect(
      try accelkit(["tune", dataset, "--rule", "three-peak", "--maximize", "segment_error_rate"]).status == 64
    )
    #expect(
      try accelkit(["tune", dataset, "--rule", "three-peak", "--minimize", "event_onset_f1"]).status == 64)
  }
}
