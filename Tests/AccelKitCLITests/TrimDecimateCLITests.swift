import Foundation
import TestSupport
import Testing

/// trim, decimate and filter --describe --plot from the command line: the streamed decimation
/// equals scipy.signal.decimate (the reference vectors of the filter tests), trimming is
/// half-open and chunk-proof.
@Suite struct TrimDecimateCLITests {
  static func fixture() throws -> [String: Any] {
    let data = try #require(
      FileManager.default.contents(atPath: Paths.fixture("filters/decimate_freqz.json")))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  static func column(_ csv: String, _ index: Int) -> [Double] {
    csv.split(separator: "\n").dropFirst().map { Double($0.split(separator: ",")[index])! }
  }

  @Test(arguments: [2, 3, 5, 10])
  func decimateStreamsWhatScipyComputes(factor: Int) throws {
    let fixture = try Self.fixture()
    let signal = try #require(fixture["signal"] as? [String: Any])
    let x = (signal["x"] as! [String]).map { Double($0)! }
    let cases = try #require(fixture["decimate"] as? [[String: Any]])
    let expected = try #require(cases.first { $0["factor"] as? Int == factor })
    // x on every axis of a 200 Hz trace, written with shortest round-trip text.
    var text = "t,x,y,z\n"
    for (i, v) in x.enumerated() { text += "\(Double(i) / 200),\(v),\(v),\(v)\n" }
    let dir = Paths.temporaryDirectory()
    writeFile(dir + "/x.csv", text)
    for (causal, key) in [(false, "zero_phase"), (true, "causal")] {
      let r = try accelkit(
        ["decimate", "--factor", "\(factor)", dir + "/x.csv", "-o", "-"] + (causal ? ["--causal"] : []))
      #expect(r.status == 0, "\(r.stderr)")
      let ours = Self.column(r.stdout, 1)
      let scipy = (expected[key] as! [String]).map { Double($0)! }
      #expect(ours.count == scipy.count)
      #expect(zip(ours, scipy).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) }, "q=\(factor) \(key)")
      let times = Self.column(r.stdout, 0)
      #expect(times.enumerated().allSatisfy { abs($1 - Double($0 * factor) / 200) < 1e-12 })
    }
  }

  @Test func trimKeepsAHalfOpenWindow() throws {
    let dir = Paths.temporaryDirectory()
    var text = "t,x,y,z\n"
    for i in 0..<100_000 { text += "\(Double(i) / 100 + 1000),0,0,-1\n" }
    writeFile(dir + "/t.csv", text)
    let a = try accelkit(["trim", dir + "/t.csv", "--from", "1010", "--to", "1020", "-o", dir + "/a.csv"])
    let b = try accelkit([
      "trim", dir + "/t.csv", "--relative", "--from", "20", "--to", "30", "-o", dir + "/b.npy",
    ])
    #expect(a.status == 0 && b.status == 0, "\(a.stderr)\(b.stderr)")
    let times = Self.column(String(decoding: readFile(dir + "/a.csv")!, as: UTF8.self), 0)
    #expect(times.count == 1000 && times.first == 1010 && times.last == 1019.99)
    let back = try accelkit(["convert", dir + "/b.npy", "-o", "-"])
    let relative = Self.column(back.stdout, 0)
    #expect(relative.count == 1000 && relative.first == 1020 && relative.last == 1029.99)
    // Nothing in the window: an error, and no output.
    let none = try accelkit(["trim", dir + "/t.csv", "--from", "5", "--to", "6", "-o", dir + "/none.csv"])
    #expect(none.status == 65 && !fileExists(dir + "/none.csv") && none.stderr.contains("--relative"))
    #expect(
      try accelkit(["trim", dir + "/t.csv", "--from", "6", "--to", "5", "-o", dir + "/x.csv"]).status == 64)
  }

  @Test func describePlotsTheFrequencyResponse() throws {
    let dir = Paths.temporaryDirectory()
    let r = try accelkit(
      [
        "filter", "butterworth", "--order", "4", "--cutoff", "5", "--rate", "100", "--describe", "--plot",
        dir + "/r.svg",
      ])
    #expect(r.status == 0, "\(r.stderr)")
    let svg = String(decoding: readFile(dir + "/r.svg") ?? [], as: UTF8.self)
    #expect(svg.contains("gain (dB)") && svg.contains("phase (degrees)") && svg.contains("-3 dB"))
    let adaptive = try accelkit(
      ["filter", "adaptive-lowpass", "--cutoff", "5", "--rate", "60", "--describe", "--plot", dir + "/a.svg"])
    #expect(adaptive.status == 64 && !fileExists(dir + "/a.svg"))
    #expect(try accelkit(["filter", "lowpass", "--rate", "100", "--plot", dir + "/b.svg"]).status == 64)
  }
}

/// spectrum --csd and --coherence from the command line, within a trace and between two traces,
/// against scipy.signal.csd and coherence (the reference vectors of the spectral tests).
@Suite struct CrossSpectrumCLITests {
  @Test func csdAndCoherenceFromTheCommandLine() throws {
    let data = try #require(FileManager.default.contents(atPath: Paths.fixture("spectral/cross.json")))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let x = (root["x"] as! [String]).map { Double($0)! }
    let y = (root["y"] as! [String]).map { Double($0)! }
    let defaults = try #require(
      (root["cases"] as! [[String: Any]]).first { $0["name"] as? String == "defaults" })
    let dir = Paths.temporaryDirectory()
    var one = "t,x,y,z\n"
    var first = "t,x,y,z\n"
    var second = "t,x,y,z\n"
    for i in x.indices {
      let t = Double(i) / 100
      one += "\(t),\(x[i]),\(y[i]),-1\n"
      first += "\(t),\(x[i]),0,-1\n"
      second += "\(t),0,\(y[i]),-1\n"
    }
    writeFile(dir + "/one.csv", one)
    writeFile(dir + "/a.csv", first)
    writeFile(dir + "/b.csv", second)
    let within = try accelkit(["spectrum", "--csd", "x,y", "--coherence", "x,y", dir + "/one.csv", "-o", "-"])
    let between = try accelkit([
      "spectrum", "--csd", "x,y", "--coherence", "x,y", dir + "/a.csv", "--with", dir + "/b.csv",
    ])
    #expect(within.status == 0 && between.status == 0, "\(within.stderr)\(between.stderr)")
    #expect(
      within.stdout == between.stdout
        && within.stdout.hasPrefix("frequency,csd_re,csd_im,csd_abs,csd_phase,coherence\n"))
    let rows = within.stdout.split(separator: "\n").dropFirst().map {
      $0.split(separator: ",").map { Double($0)! }
    }
    let re = (defaults["re"] as! [String]).map { Double($0)! }
    let coherence = (defaults["coherence"] as! [String]).map { Double($0)! }
    #expect(rows.count == re.count)
    let scale = re.map(abs).max()!
    #expect(zip(rows, re).allSatisfy { abs($0[1] - $1) <= 1e-9 * scale })
    #expect(zip(rows, coherence).allSatisfy { abs($0[5] - $1) <= 1e-9 })
    // Usage errors: one channel, unknown channel, --with alone, --summary with --csd.
    for arguments in [
      ["--csd", "x"], ["--coherence", "x,q"], ["--with", dir + "/b.csv"], ["--csd", "x,y", "--summary"],
    ] {
      let r = try accelkit(["spectrum"] + arguments + [dir + "/one.csv"])
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
    }
  }
}

/// --precision rounds the numbers of CSV output to significant digits, never the time column,
/// and leaves binary output exact.
@Suite struct PrecisionCLITests {
  /// The significant digits of a number's text (leading zeros and the exponent aside).
  static func digits(_ field: Substring) -> Int {
    let mantissa = field.split(separator: "e").first ?? field
    let kept = mantissa.filter(\.isNumber).drop { $0 == "0" }
    return max(1, kept.count)
  }

  @Test(arguments: [
    ["convert"], ["filter", "butterworth", "--order", "2", "--cutoff", "5"], ["spectrum"],
    ["trim", "--from", "2"],
    ["decimate", "--factor", "2"],
  ])
  func csvNumbersHaveTheDigitsAskedFor(command: [String]) throws {
    let trace = Paths.packageRoot + "/datasets/test/000.csv"
    let full = try accelkit(command + [trace, "-o", "-"])
    let rounded = try accelkit(command + ["--precision", "3", trace, "-o", "-"])
    #expect(full.status == 0 && rounded.status == 0, "\(rounded.stderr)")
    let a = full.stdout.split(separator: "\n").dropFirst().map {
      $0.split(separator: ",", omittingEmptySubsequences: false)
    }
    let b = rounded.stdout.split(separator: "\n").dropFirst().map {
      $0.split(separator: ",", omittingEmptySubsequences: false)
    }
    #expect(a.count == b.count && a.count > 10)
    let timeFirst = full.stdout.hasPrefix("t,")
    for (rowA, rowB) in zip(a, b) {
      for (k, (x, y)) in zip(rowA, rowB).enumerated() {
        if k == 0 && timeFirst {
          #expect(x == y, "time is not rounded")
          continue
        }
        let exact = Double(x)!
        let shown = Double(y)!
        #expect(Self.digits(y) <= 3, "\(command): \(y)")
        #expect(abs(shown - exact) <= 5e-3 * abs(exact) + 1e-300, "\(command): \(x) -> \(y)")
      }
    }
  }

  @Test func binaryOutputKeepsEveryBit() throws {
    let dir = Paths.temporaryDirectory()
    let trace = Paths.packageRoot + "/datasets/test/000.csv"
    #expect(try accelkit(["convert", trace, "-o", dir + "/a.npy"]).status == 0)
    #expect(try accelkit(["convert", "--precision", "2", trace, "-o", dir + "/b.npy"]).status == 0)
    #expect(readFile(dir + "/a.npy") == readFile(dir + "/b.npy"))
    #expect(try accelkit(["convert", "--precision", "18", trace, "-o", "-"]).status == 64)
  }
}
