import Foundation
import TestSupport
import Testing

/// Time stamps that do not advance (two recordings joined, a clock reset, times that decrease
/// from the start): every command stops with exit 65 at the first such line and writes nothing;
/// `--skip-bad-rows` drops such rows and counts them; `info` describes the file and says where.
@Suite struct TimeOrderCLITests {
  /// 0-1.49 s at 100 Hz, then 1.0 s again: the first time that goes back is on line 151.
  static let joined: String = {
    var text = "t,x,y,z\n"
    for i in 0..<150 { text += "\(Double(i) / 100),0.01,0.02,-1\n" }
    for i in 100..<300 { text += "\(Double(i) / 100),0.01,0.02,-1\n" }
    return text
  }()

  /// Every command that reads a trace, with the arguments it needs and whether it writes -o.
  static let commands: [[String]] = [
    ["convert"], ["filter", "lowpass"], ["filter", "butterworth", "--cutoff", "5", "--zero-phase"],
    ["spectrum"], ["spectrogram"], ["orientation"], ["attitude"], ["detect-shakes", "--rule", "swing"],
    ["detect-shakes", "--rule", "three-peak"], ["plot", "trace"], ["simulate", "ball"], ["simulate", "slide"],
    ["windows", "--width", "1"], ["trim", "--from", "0.5"], ["decimate", "--factor", "2"],
  ]

  @Test(arguments: commands)
  func aTimeThatGoesBackStopsEveryCommandAtItsLine(command: [String]) throws {
    let dir = Paths.temporaryDirectory()
    let decreasing = "t,x,y,z\n3,0,0,-1\n2,0,0,-1\n1,0,0,-1\n"
    for (name, text, location) in [
      ("joined.csv", Self.joined, "joined.csv:152:1:"), ("decreasing.csv", decreasing, "decreasing.csv:3:1:"),
    ] {
      writeFile(dir + "/" + name, text)
      let output = dir + "/out" + (command.first == "plot" ? ".svg" : ".csv")
      let r = try accelkit(command + [dir + "/" + name, "-o", output])
      #expect(r.status == 65, "\(command) \(name): exit \(r.status) \(r.stderr)")
      #expect(r.stderr.contains(location) && r.stderr.contains("times must increase"), "\(command): \(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: output), "\(command) \(name) wrote an output")
    }
  }

  @Test func evaluateStopsAtTheLineToo() throws {
    let dir = Paths.temporaryDirectory()
    writeFile(dir + "/joined.csv", Self.joined)
    writeFile(dir + "/joined.events.csv", "start,end,label\n")
    writeFile(dir + "/manifest.csv", "trace,events\njoined.csv,joined.events.csv\n")
    let r = try accelkit(["evaluate", dir, "--rule", "seismic", "-o", dir + "/report"])
    #expect(r.status == 65 && r.stderr.contains("joined.csv:152:1:"), "\(r.stderr)")
  }

  @Test func skipBadRowsDropsTheRowsThatDoNotAdvanceAndCountsThem() throws {
    let dir = Paths.temporaryDirectory()
    writeFile(dir + "/joined.csv", Self.joined)
    let r = try accelkit(["convert", "--skip-bad-rows", dir + "/joined.csv", "-o", "-"])
    #expect(r.status == 0, "\(r.stderr)")
    let times = r.stdout.split(separator: "\n").dropFirst().map { Double($0.split(separator: ",")[0])! }
    // 1.00-1.49 came again: the 50 rows that do not advance past 1.49 are dropped.
    #expect(times.count == 300)
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    #expect(r.stderr.contains("skipped 50 bad rows") && r.stderr.contains("joined.csv:152:1:"), "\(r.stderr)")
  }

  @Test func infoDescribesTheFileAndSaysWhere() throws {
    let dir = Paths.temporaryDirectory()
    writeFile(dir + "/joined.csv", Self.joined)
    let r = try accelkit(["info", "--format", "json", dir + "/joined.csv"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("\"rows\": 350") || r.stdout.contains("\"rows\":350"), "\(r.stdout.prefix(200))")
    #expect(r.stdout.contains("1 time stamp does not advance; the first: "), "\(r.stdout)")
    #expect(r.stderr.contains("joined.csv:152:1: the time stamp 1 s goes back from 1.49 s"), "\(r.stderr)")
  }

  /// A binary input has no lines: the row and its byte offset.
  @Test func aRawInputNamesTheRow() throws {
    let dir = Paths.temporaryDirectory()
    var values: [Double] = []
    for t in [0.0, 0.01, 0.02, 0.01, 0.03] { values += [t, 0, 0, -1] }
    let bytes = values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
    writeFile(dir + "/back.f64", bytes)
    let r = try accelkit(["convert", dir + "/back.f64", "-o", dir + "/out.csv"])
    #expect(r.status == 65 && r.stderr.contains("back.f64: row 4, byte 96: the time stamp 0.01 s goes back"), "\(r.stderr)")
    let skipped = try accelkit(["convert", "--skip-bad-rows", dir + "/back.f64", "-o", "-"])
    #expect(skipped.status == 0 && skipped.stdout.split(separator: "\n").count == 5, "\(skipped.stdout)")
  }
}
