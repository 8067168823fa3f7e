import Foundation
import TestSupport
import Testing

/// No command replaces one of its inputs or writes two outputs to one file: exit 64 naming both,
/// and the files are as they were (same bytes), however the output names them (the same path,
/// a symbolic link, a hard link).
@Suite struct OutputSafetyCLITests {
  func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  func setUp() throws -> (dir: String, trace: String, events: String) {
    let dir = Paths.temporaryDirectory()
    let trace = dir + "/t.csv"
    try FileManager.default.copyItem(
      atPath: Paths.packageRoot + "/datasets/samples/portrait-shake.csv", toPath: trace)
    let events = dir + "/ev.csv"
    #expect(try accelkit(["detect-shakes", "--rule", "three-peak", trace, "-o", events]).status == 0)
    return (dir, trace, events)
  }

  @Test func anOutputThatIsAnInputIsRefused() throws {
    let (dir, trace, events) = try setUp()
    let traceBytes = bytes(trace)
    let eventsBytes = bytes(events)
    try FileManager.default.createSymbolicLink(atPath: dir + "/link.csv", withDestinationPath: trace)
    try FileManager.default.linkItem(atPath: trace, toPath: dir + "/hard.csv")
    let cases: [[String]] = [
      ["plot", "trace", trace, "--events", events, "-o", events],
      ["spectrum", "--wisdom", trace, trace, "-o", dir + "/s.csv"],
      ["convert", trace, "-o", dir + "/link.csv"],
      ["filter", "lowpass", trace, "-o", dir + "/hard.csv"],
      ["attitude", trace, "-o", dir + "/hard.csv"],
    ]
    for arguments in cases {
      let r = try accelkit(arguments)
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
      #expect(
        r.stderr.contains("refusing to write") && r.stderr.contains("t.csv") || r.stderr.contains("ev.csv"),
        "\(r.stderr)")
    }
    #expect(bytes(trace) == traceBytes)
    #expect(bytes(events) == eventsBytes)
    #expect(!FileManager.default.fileExists(atPath: dir + "/s.csv"), "nothing written before the refusal")
  }

  @Test func twoOutputsInOneFileAreRefusedBeforeEitherIsWritten() throws {
    let (dir, trace, _) = try setUp()
    let r = try accelkit(["simulate", "ball", trace, "-o", dir + "/x.svg", "--svg", dir + "/x.svg"])
    #expect(r.status == 64 && r.stderr.contains("twice"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/x.svg"))
  }

  /// The regression gate's baseline inside the report directory is read, never replaced.
  @Test func aBaselineInTheOutputDirectoryIsNotReplaced() throws {
    let dir = Paths.temporaryDirectory()
    let dataset = Paths.packageRoot + "/datasets/test"
    #expect(try accelkit(["evaluate", dataset, "-o", dir, "--format", "csv"]).status == 0)
    let before = bytes(dir + "/summary.csv")
    let r = try accelkit([
      "evaluate", dataset, "-o", dir, "--baseline", dir + "/summary.csv", "--fail-on-regression",
    ])
    #expect(r.status == 64 && r.stderr.contains("summary.csv"), "\(r.stderr)")
    #expect(bytes(dir + "/summary.csv") == before)
  }

  /// A report that cannot be written whole (here a file size limit, as a full disk) leaves every
  /// file of the previous report as it was, and no temporary file: exit 74.
  @Test func aReportIsReplacedWholeOrNotAtAll() throws {
    let dir = Paths.temporaryDirectory()
    let dataset = Paths.packageRoot + "/datasets/test"
    #expect(try accelkit(["evaluate", dataset, "-o", dir, "--format", "csv"]).status == 0)
    let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    let before = names.map { bytes(dir + "/" + $0) }
    let r = try accelkit(
      [], shell: "ulimit -f 8; ACCELKIT evaluate \(dataset) --rule seismic -o \(dir) --format csv")
    #expect(r.status == 74, "\(r.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == names)
    #expect(names.map { bytes(dir + "/" + $0) } == before)
  }

  /// Wisdom is read and saved back over itself (atomically), run after run.
  @Test func wisdomIsUpdatedInPlace() throws {
    let (dir, trace, _) = try setUp()
    for _ in 0..<2 {
      #expect(
        try accelkit(["spectrum", "--wisdom", dir + "/w.dat", trace, "-o", dir + "/s.csv"]).status == 0)
    }
    let text = String(decoding: bytes(dir + "/w.dat") ?? Data(), as: UTF8.self)
    #expect(text.hasPrefix("(fftw-3"))
  }
}

/// Interrupted, a command removes its unfinished output and exits 128 + the signal; inputs whose
/// timestamps give an implausible rate are warned about, with the time unit that fits.
@Suite struct InterruptionAndRateCLITests {
  @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
  func aSignalRemovesTheUnfinishedOutput(signal: Int32, code: Int32) throws {
    let dir = Paths.temporaryDirectory()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: accelkitPath)
    process.arguments = ["convert", "-", "-o", dir + "/out.csv"]
    let input = Pipe()
    process.standardInput = input
    process.standardError = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data("t,x,y,z\n0,0,0,1\n0.01,0,0,1\n".utf8))
    // Wait until the output's temporary file exists (the command is writing), then interrupt.
    var waited = 0
    while (try FileManager.default.contentsOfDirectory(atPath: dir)).isEmpty && waited < 200 {
      usleep(50_000)
      waited += 1
    }
    #expect(!(try FileManager.default.contentsOfDirectory(atPath: dir)).isEmpty, "no temporary file appeared")
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    try? input.fileHandleForWriting.close()
    #expect(process.terminationStatus == code)
    let left = try FileManager.default.contentsOfDirectory(atPath: dir)
    #expect(left.isEmpty, "left behind: \(left)")
  }

  /// Timestamps that do not advance are bad data (65) in every command that needs a rate, and no
  /// output is created.
  @Test func timestampsThatDoNotAdvanceAreBadData() throws {
    let path = temporaryCSV("t,x,y,z\n0,0,0,1\n0,0,0,1\n0,0,0,1\n", name: "stuck.csv")
    let dir = Paths.temporaryDirectory()
    for command in [["filter", "lowpass"], ["orientation"], ["attitude"], ["spectrum"], ["detect-shakes", "--rule", "seismic"]] {
      let r = try accelkit(command + [path, "-o", dir + "/out.csv"])
      #expect(
        r.status == 65 && r.stderr.contains("stuck.csv:3:1: the time stamp 0 s repeats the time before it"),
        "\(command): \(r.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
  }

  @Test func nanosecondTimestampsAreWarnedAbout() throws {
    // Epoch nanoseconds are recognised, and the unit chosen is said.
    var text = "time,x,y,z\n"
    for i in 0..<300 { text += "\(1_700_000_000_000_000_000 + i * 10_000_000),0,0,-1\n" }
    let path = temporaryCSV(text, name: "ns.csv")
    let r = try accelkit(["filter", "lowpass", path, "-o", "/dev/null"])
    #expect(r.status == 0 && r.stderr.contains("Unix epoch times in ns") && !r.stderr.contains("Hz"), "\(r.stderr)")
    let info = try accelkit(["info", "--format", "table", path])
    #expect(info.stdout.contains("read as ns; --time-unit chooses another unit") && info.stdout.contains("100 Hz"))
    // Nanoseconds since boot are no epoch time: the implausible rate is warned about, with the unit that fits.
    var boot = "time,x,y,z\n"
    for i in 0..<300 { boot += "\(10_800_000_000_000 + i * 10_000_000),0,0,-1\n" }
    let bootPath = temporaryCSV(boot, name: "boot.csv")
    let b = try accelkit(["filter", "lowpass", bootPath, "-o", "/dev/null"])
    #expect(b.stderr.contains("if they are in ns, give --time-unit ns (100 Hz)"), "\(b.stderr)")
    let fixed = try accelkit(["filter", "lowpass", "--time-unit", "ns", bootPath, "-o", "/dev/null"])
    #expect(fixed.status == 0 && fixed.stderr.isEmpty, "\(fixed.stderr)")
  }
}
