import Foundation
import TestSupport
import Testing

@Suite struct DetectShakesCLITests {
  /// 1 s rest, 1.6 s of 5 Hz shaking at 2 g on x, 1 s rest, at 100 Hz.
  let trace: String = {
    var text = "t,x,y,z\n"
    for i in 0..<360 {
      let t = Double(i) / 100
      let x = t >= 1 && t < 2.6 ? 2 * sin(2 * .pi * 5 * (t - 1)) : 0
      text += "\(t),\(x),0,-1\n"
    }
    return temporaryCSV(text)
  }()

  @Test func oneTraceAndSeveral() throws {
    let one = try accelkit(["detect-shakes", "--rule", "three-peak", trace])
    #expect(one.status == 0)
    let lines = one.stdout.split(separator: "\n")
    #expect(lines[0] == "start,end,label,rule,reported,peak_g,count,axis,status")
    #expect(lines.count == 2)
    let fields = lines[1].split(separator: ",", omittingEmptySubsequences: false)
    #expect(fields[2] == "shake" && fields[3] == "three-peak" && fields[7] == "x" && fields[8] == "ended")
    let two = try accelkit(["detect-shakes", "--rule", "angular-change", trace, trace])
    #expect(two.stdout.hasPrefix("trace,start,end,label,rule,reported,peak_g,count,axis,status\n"))
    let rows = two.stdout.split(separator: "\n").dropFirst()
    #expect(rows.count == 2 && rows.allSatisfy { $0.hasPrefix(trace + ",") })
    #expect(rows.first!.split(separator: ",", omittingEmptySubsequences: false)[8] == "")  // no axis
  }

  @Test func parametersAndErrors() throws {
    let list = try accelkit(["detect-shakes", "--list-params"])
    #expect(list.status == 0 && list.stdout.contains("  move_g ") && list.stdout.contains("seismic:"))
    // Without --rule the recommended detector runs.
    let recommended = try accelkit(["detect-shakes", trace])
    #expect(recommended.status == 0 && recommended.stdout.hasPrefix("start,end,label,rule"), "\(recommended.stderr)")
    #expect(!recommended.stdout.contains(",swing,") && (recommended.stdout.split(separator: "\n").count == 1 || recommended.stdout.contains(",learned-shake,")))
    #expect(try accelkit(["detect-shakes", "--rule", "wobble", trace]).status == 64)
    let bad = try accelkit(["detect-shakes", "--rule", "three-peak", "--param", "moves=3", trace])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("three-peak has no parameter \"moves\""))
    let range = try accelkit(["detect-shakes", "--rule", "seismic", "--param", "seismic.strict=2", trace])
    #expect(range.status == 64 && range.stderr.contains("seismic.strict must be in [0, 1] flag, got 2"))
    let tuned = try accelkit(["detect-shakes", "--rule", "three-peak", "--param", "peak_g=5", trace])
    #expect(tuned.status == 0 && tuned.stdout.split(separator: "\n").count == 1)
  }
}
