import Foundation
import TestSupport
import Testing

/// Rules as typed configurations on the command line, a second gesture kind through the same
/// evaluation, and outputs left alone when a trace fails.
@Suite struct GestureKindsCLITests {
  /// Face up for 2 s, portrait for 3 s, landscape for 3 s, at 50 Hz: two orientation changes.
  func turningTrace() -> (trace: String, events: String) {
    var text = "t,x,y,z\n"
    for i in 0..<400 {
      let t = Double(i) / 50
      let g: (Double, Double, Double) = t < 2 ? (0, 0, -1) : t < 5 ? (0, -1, 0) : (-1, 0, 0)
      text += "\(t),\(g.0),\(g.1),\(g.2)\n"
    }
    let trace = temporaryCSV(text, name: "turning.csv")
    let events = temporaryCSV("start,end,label\n2,2.4,orientation-change\n5,5.4,orientation-change\n", name: "turning.events.csv")
    return (trace, events)
  }

  @Test func orientationChangesGoThroughEvaluateByTheirLabel() throws {
    let (trace, events) = turningTrace()
    let result = try accelkit(["evaluate", trace, "--labels", events, "--format", "csv"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 2)  // the one rule that emits orientation-change; no shake rule
    #expect(lines[1].hasPrefix("orientation-change,,2,0,0,1,1,1,"))
    let detections = try accelkit(["detect-shakes", "--rule", "orientation-change", trace])
    #expect(detections.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[2] } == ["orientation-change", "orientation-change"])
    #expect(detections.stdout.contains(",orientation-change,orientation-change,"))
  }

  @Test func parametersAreTypedAndChecked() throws {
    let path = temporaryCSV(sampleCSV)
    let list = try accelkit(["detect-shakes", "--list-params"])
    #expect(list.stdout.contains("three-peak: alternating swings"))
    #expect(list.stdout.contains("  min_moves            3 movements     registered movements a shake needs"))
    #expect(list.stdout.contains("orientation-change: "))
    let fraction = try accelkit(["detect-shakes", "--rule", "three-peak", "--param", "min_moves=2.5", path])
    #expect(fraction.status == 64)
    #expect(fraction.stderr.hasPrefix("Error: three-peak.min_moves must be a whole number of movements, got 2.5"))
    let range = try accelkit(["detect-shakes", "--rule", "seismic", "--param", "strict=2", path])
    #expect(range.status == 64 && range.stderr.hasPrefix("Error: seismic.strict must be in [0, 1] flag, got 2"))
    let unknown = try accelkit(["evaluate", makeDataset(), "--param", "seismic.nope=1"])
    #expect(unknown.status == 64 && unknown.stderr.contains("seismic has no parameter \"nope\""))
    let huge = try accelkit(["evaluate", makeDataset(), "--sweep", "three-peak.peak_g=0:100:0.000001"])
    #expect(huge.status == 64 && huge.stderr.contains("points; at most 10000 per parameter"))
  }

  @Test func aFailingTraceLeavesTheOutputUntouched() throws {
    let good = temporaryCSV(sampleCSV)
    let bad = temporaryCSV("t,x,y,z\n0,1,2,3\n0.01,1,2,n/a\n", name: "bad.csv")
    let out = Paths.temporaryDirectory() + "/events.csv"
    writeFile(out, "precious\n")
    let result = try accelkit(["detect-shakes", "--rule", "seismic", good, bad, "-o", out])
    #expect(result.status == 65)
    #expect(String(decoding: readFile(out)!, as: UTF8.self) == "precious\n")
  }
}
