import AccelCore
import AccelFilters
import AccelIO
import Foundation
import TestSupport
import Testing

@Suite struct FilterCLITests {
  let trace: String = {
    var text = "t,x,y,z\n"
    for i in 0..<400 {
      let t = Double(i) / 100
      text += "\(t),\(0.3 * sin(2 * .pi * 1.5 * t)),\(-0.98 + 0.2 * sin(2 * .pi * 12 * t)),-0.1\n"
    }
    return temporaryCSV(text)
  }()

  func rows(_ csv: String) -> [[Double]] {
    csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map { Double(String($0))! } }
  }

  @Test func validationErrorsNameTheAllowedRange() throws {
    let nyquist = try accelkit(["filter", "butterworth", "--cutoff", "60", trace, "-o", "-"])
    #expect(nyquist.status == 64)
    #expect(nyquist.stderr.hasPrefix("Error: cutoff must be in (0, 50) Hz for a 100 Hz trace, got 60 Hz\n"))
    #expect(try accelkit(["filter", "butterworth", "--cutoff", "5", "--order", "0", trace]).status == 64)
    #expect(try accelkit(["filter", "lowpass", "--alpha", "1.5", trace]).status == 64)
    #expect(try accelkit(["filter", "lowpass", "--alpha", "0", trace]).status == 64)
    let band = try accelkit(["filter", "butterworth", "--band", "bandpass", "--cutoff", "5", "--cutoff-high", "4", trace])
    #expect(band.status == 64)
    #expect(band.stderr.contains("cutoff-high must be above cutoff (5 Hz), got 4 Hz"))
    #expect(try accelkit(["filter", "adaptive-lowpass", "--cutoff", "50", trace]).status == 64)
  }

  @Test func describeWithoutATrace() throws {
    let result = try accelkit(["filter", "adaptive-lowpass", "--cutoff", "5", "--rate", "60", "--describe"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("k = dt / (dt + RC) = 0.07692307692307691"))
    let butter = try accelkit(["filter", "butterworth", "--order", "2", "--cutoff", "5", "--rate", "100", "--describe"])
    #expect(butter.stdout.contains("sections (b0 b1 b2 a0 a1 a2):"))
    #expect(butter.stdout.contains("DC gain: 1"))
  }

  @Test func lowpassKeepsColumnsAndSteadyStartIsFlat() throws {
    let result = try accelkit(["filter", "lowpass", "--alpha", "0.1", trace, "-o", "-"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("t,x,y,z\n"))
    let out = rows(result.stdout)
    #expect(out.count == 400)
    #expect(out[0] == [0, 0, -0.98, -0.1])
    #expect(out.allSatisfy { $0[3] == -0.1 })
    let zero = rows(try accelkit(["filter", "lowpass", "--alpha", "0.1", "--init", "zero", trace, "-o", "-"]).stdout)
    #expect(zero[0][2] == -0.98 * 0.1)
  }

  @Test func highpassIsTheTraceMinusTheLowpass() throws {
    let input = rows("t,x,y,z\n" + String(decoding: readFile(trace)!, as: UTF8.self).split(separator: "\n").dropFirst().joined(separator: "\n"))
    let low = rows(try accelkit(["filter", "lowpass", "--alpha", "0.2", trace, "-o", "-"]).stdout)
    let high = rows(try accelkit(["filter", "highpass", "--alpha", "0.2", trace, "-o", "-"]).stdout)
    #expect(high.count == input.count)
    for i in input.indices {
      for k in 1...3 { #expect(high[i][k] == input[i][k] - low[i][k]) }
    }
  }

  @Test func gravityWritesSevenColumns() throws {
    let result = try accelkit(["filter", "gravity", "--cutoff", "0.5", trace, "-o", "-"])
    #expect(result.stdout.hasPrefix("t,gravity_x,gravity_y,gravity_z,user_x,user_y,user_z\n"))
    for row in rows(result.stdout) {
      #expect(abs(row[1] + row[4] - (row[1] + row[4])) == 0)
      #expect(row[3] + row[6] == -0.1 || abs(row[3] + row[6] + 0.1) < 1e-15)
    }
  }

  @Test func zeroPhaseStreamsThroughAScratchFileWithTheInMemoryValues() throws {
    // 20 000 rows: the backward pass reads the scratch file back in three blocks from its end.
    var text = "t,x,y,z\n"
    var rng = SeededRandom(seed: 8)
    for i in 0..<20_000 {
      let t = Double(i) / 100
      let noise = { Double(Int.random(in: -500...500, using: &rng)) / 10_000 }
      text += "\(t),\(0.3 * sin(2 * .pi * 1.5 * t) + noise()),\(-0.98 + noise()),\(0.1 * cos(t) + noise())\n"
    }
    let csv = temporaryCSV(text)
    let directory = Paths.temporaryDirectory()
    let result = try accelkit(["filter", "butterworth", "--order", "4", "--cutoff", "5", "--zero-phase", csv, "-o", directory + "/zp.npy"])
    #expect(result.status == 0, "\(result.stderr)")
    let input = try TraceOpener.open(path: csv, settings: TraceReadSettings()).0.readAll()
    let output = try TraceOpener.open(path: directory + "/zp.npy", settings: TraceReadSettings()).0.readAll()
    let design = try ButterworthDesign(order: 4, cutoff: 5, band: .low, rate: 100)
    let expected = try #require(ZeroPhase.filter3(input.x, input.y, input.z, sections: design.sections))
    #expect(output.t == input.t)
    #expect(output.x == expected[0] && output.y == expected[1] && output.z == expected[2])

    // No folder for the scratch file: cannot create (73), naming where, and no output.
    let failed = try accelkit([], shell: "TMPDIR=/nonexistent/dir ACCELKIT filter butterworth --cutoff 5 --zero-phase \(csv) -o \(directory)/none.csv")
    #expect(failed.status == 73)
    #expect(failed.stderr.hasPrefix("Error: cannot create a temporary file in /nonexistent/dir: No such file or directory"), "\(failed.stderr)")
    #expect(!fileExists(directory + "/none.csv"))
  }

  @Test func zeroPhaseAndItsShortTraceError() throws {
    let directory = Paths.temporaryDirectory()
    let result = try accelkit(["filter", "butterworth", "--order", "2", "--cutoff", "3", "--zero-phase", trace, "-o", directory + "/zp.npy"])
    #expect(result.status == 0)
    let short = temporaryCSV("t,x,y,z\n0,0,0,1\n0.01,0,0,1\n0.02,0,0,1\n")
    let failed = try accelkit(["filter", "butterworth", "--order", "4", "--cutoff", "3", "--zero-phase", short, "-o", directory + "/short.csv"])
    #expect(failed.status == 65)
    #expect(failed.stderr.contains("zero-phase filtering with this design needs more than 15"))
    #expect(!fileExists(directory + "/short.csv"))
  }

  @Test func jitteryTracesWarnAndResampleFixesIt() throws {
    var text = "t,x,y,z\n"
    var t = 0.0
    var rng = SeededRandom(seed: 4)
    for _ in 0..<300 {
      text += "\(t),0,0,-1\n"
      t += 0.01 * Double.random(in: 0.8...1.2, using: &rng)
    }
    t += 0.2
    text += "\(t),0,0,-1\n"
    let path = temporaryCSV(text)
    let warned = try accelkit(["filter", "lowpass", "--rate", "100", path, "-o", "/dev/null"])
    #expect(warned.status == 0)
    #expect(warned.stderr.contains("jitter by"))
    #expect(warned.stderr.contains("1 gap"))
    #expect(warned.stderr.contains("use --resample 100"))
    let resampled = try accelkit(["filter", "lowpass", "--resample", "100", path, "-o", "-"])
    #expect(resampled.status == 0 && resampled.stderr.isEmpty)
    let times = rows(resampled.stdout).map { $0[0] }
    #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.01) < 1e-9 })
  }
}
