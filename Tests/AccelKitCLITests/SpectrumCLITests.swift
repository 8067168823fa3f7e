import Foundation
import TestSupport
import Testing

@Suite struct SpectrumCLITests {
  /// 20 s at 50 Hz: x a 4 Hz sine of amplitude 0.5, z gravity, starting at t = 10 s.
  let trace: String = {
    var text = "t,x,y,z\n"
    for i in 0..<1000 {
      let t = Double(i) / 50
      text += "\(10 + t),\(0.5 * sin(2 * .pi * 4 * t)),0,-1\n"
    }
    return temporaryCSV(text)
  }()

  func table(_ csv: String) -> [[String]] {
    csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  @Test func welchSpectrumColumnsAndPeak() throws {
    let result = try accelkit(["spectrum", "--scaling", "spectrum", trace, "-o", "-"])
    #expect(result.status == 0)
    let rows = table(result.stdout)
    #expect(rows[0] == ["frequency", "x", "y", "z", "norm"])
    #expect(rows.count == 1 + 129)
    let peak = rows.dropFirst().max { Double($0[1])! < Double($1[1])! }!
    #expect(Double(peak[0])! == 4.1015625 || abs(Double(peak[0])! - 4) < 0.2)
    let axes = try accelkit(["spectrum", "--axes", "x,norm", trace, "-o", "-"])
    #expect(table(axes.stdout)[0] == ["frequency", "x", "norm"])
  }

  @Test func summaryAsCSV() throws {
    let result = try accelkit(["spectrum", "--summary", "--format", "csv", "--bands", "3-5,10-20", trace])
    #expect(result.status == 0)
    let rows = table(result.stdout)
    #expect(rows[0] == ["axis", "dominant_hz", "dominant_power", "total_power", "band_3-5_hz", "band_10-20_hz"])
    let x = rows[1]
    #expect(x[0] == "x" && abs(Double(x[1])! - 4) < 0.05)
    #expect(abs(Double(x[3])! - 0.125) < 0.005)  // the variance of a sine of amplitude 0.5
  }

  @Test func periodogramAndShortTraces() throws {
    let result = try accelkit(["spectrum", "--method", "periodogram", "--axes", "x", trace, "-o", "-"])
    #expect(result.status == 0)
    #expect(table(result.stdout).count == 1 + 501)
    let short = temporaryCSV("t,x,y,z\n" + (0..<100).map { "\(Double($0) / 50),\(sin(Double($0))),0,-1" }.joined(separator: "\n") + "\n")
    let shortResult = try accelkit(["spectrum", short, "-o", "-"])
    #expect(shortResult.status == 0)
    #expect(shortResult.stderr.contains("fewer than the 256-sample segment: using one segment of 100 samples (as scipy)"))
    #expect(table(shortResult.stdout).count == 1 + 51)
  }

  @Test func badOptionsAreUsageErrors() throws {
    #expect(try accelkit(["spectrum", "--overlap", "1", trace]).status == 64)
    #expect(try accelkit(["spectrum", "--axes", "w", trace]).status == 64)
    #expect(try accelkit(["spectrum", "--nfft", "100", trace]).status == 64)
    #expect(try accelkit(["spectrum", "--summary", "--bands", "5-3", trace]).status == 64)
  }

  @Test func spectrogramRowsAndTimes() throws {
    let result = try accelkit(["spectrogram", "--segment", "100", "--overlap", "0.5", "--axes", "x", trace, "-o", "-"])
    #expect(result.status == 0)
    let rows = table(result.stdout)
    #expect(rows[0] == ["time", "frequency", "x"])
    // (1000 - 50) / 50 = 19 segments of 51 bins; the first centred 50 samples (1 s) after t = 10 s.
    #expect(rows.count == 1 + 19 * 51)
    #expect(Double(rows[1][0])! == 11)
    #expect(Double(rows[52][0])! == 12)
  }

  @Test func wisdomIsSavedAndReused() throws {
    let directory = Paths.temporaryDirectory()
    let wisdom = directory + "/fftw.wisdom"
    #expect(try accelkit(["spectrum", "--wisdom", wisdom, trace, "-o", directory + "/a.csv"]).status == 0)
    #expect(fileExists(wisdom))
    let again = try accelkit(["spectrum", "--wisdom", wisdom, trace, "-o", directory + "/b.csv"])
    #expect(again.status == 0 && again.stderr.isEmpty)
    #expect(readFile(directory + "/a.csv") == readFile(directory + "/b.csv"))
  }
}
