import AccelCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One exit-code policy, walked through every command with one bad case of each class: 64 usage,
/// 65 bad data, 66 an input that cannot be read, 73 an output that cannot be created, 74 an output
/// that cannot be written (a file size limit of zero, as a full disk; stdout on /dev/full), 143
/// SIGTERM while reading. Each time: the code, no signal exit, an existing output unchanged, no
/// temporary file left. A FIFO as the input works and gives the same output as the file.
@Suite struct ExitCodePolicyCLITests {
  /// A command with IN and OUT where the input and the output go.
  struct Command: CustomStringConvertible, Sendable {
    var arguments: [String]
    /// evaluate reads a dataset folder and writes a folder.
    var isEvaluate: Bool { arguments.first == "evaluate" }
    /// info writes only to stdout.
    var writesStdoutOnly: Bool { arguments.first == "info" }
    var description: String {
      arguments.filter { $0 != "IN" && $0 != "OUT" && $0 != "-o" }.joined(separator: " ")
    }

    func resolved(input: String, output: String) -> [String] {
      arguments.map { $0 == "IN" ? input : $0 == "OUT" ? output : $0 }
    }
  }

  static let commands: [Command] = [
    ["info", "IN"], ["convert", "IN", "-o", "OUT"], ["filter", "lowpass", "IN", "-o", "OUT"],
    ["filter", "butterworth", "--cutoff", "5", "--zero-phase", "IN", "-o", "OUT"],
    ["filter", "gravity", "--method", "fusion", "IN", "-o", "OUT"], ["spectrum", "IN", "-o", "OUT"],
    ["spectrogram", "IN", "-o", "OUT"], ["orientation", "IN", "-o", "OUT"], ["attitude", "IN", "-o", "OUT"],
    ["attitude", "--offline", "IN", "-o", "OUT"], ["detect-shakes", "--rule", "seismic", "IN", "-o", "OUT"],
    ["simulate", "ball", "IN", "-o", "OUT"], ["plot", "trace", "IN", "-o", "OUT"],
    ["evaluate", "IN", "-o", "OUT", "--format", "csv"],
  ].map { Command(arguments: $0) }

  /// A 30 s, 100 Hz trace with a gyroscope, so that every command accepts it.
  static func imuTrace(rows: Int = 3000) -> String {
    var text = "t,x,y,z,gx,gy,gz\n"
    for i in 0..<rows {
      let t = Double(i) / 100
      text += "\(t),\(0.3 * sin(t * 9)),\(0.1 * cos(t * 7)),-1,\(0.2 * sin(t)),0.01,0.02\n"
    }
    return text
  }

  /// A dataset folder holding `trace` (made by `make`, which may make a FIFO) under the name
  /// t.csv, with its annotations.
  static func dataset(in dir: String, make: (String) -> Void) -> String {
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    writeFile(dir + "/manifest.csv", "trace,events\nt.csv,t.events.csv\n")
    writeFile(dir + "/t.events.csv", "start,end,label\n1,2,shake\n")
    make(dir + "/t.csv")
    return dir
  }

  func contents(_ path: String) -> [UInt8]? { readFile(path) }

  func temporaries(in dir: String) -> [String] {
    let all = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? []
    return all.filter { $0.contains("accelkit-") }
  }

  /// The output path (a file, or evaluate's folder) holding a file that must survive.
  func precious(in dir: String, for command: Command) -> (output: String, guarded: String) {
    if command.isEvaluate {
      let out = dir + "/report"
      try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
      writeFile(out + "/summary.csv", "precious")
      return (out, out + "/summary.csv")
    }
    let out = dir + "/out" + (command.arguments.first == "plot" ? ".svg" : ".csv")
    writeFile(out, "precious")
    return (out, out)
  }

  @Test(arguments: commands)
  func everyClassGivesItsCode(command: Command) throws {
    let dir = Paths.temporaryDirectory()
    let good: String
    let bad: String
    if command.isEvaluate {
      good = Self.dataset(in: dir + "/good") { writeFile($0, Self.imuTrace()) }
      bad = Self.dataset(in: dir + "/bad") {
        writeFile($0, "t,x,y,z,gx,gy,gz\n0,0,0,1,0,0,0\n0.01,a,0,1,0,0,0\n")
      }
    } else {
      good = dir + "/good.csv"
      writeFile(good, Self.imuTrace())
      bad = dir + "/bad.csv"
      writeFile(bad, "t,x,y,z,gx,gy,gz\n0,0,0,1,0,0,0\n0.01,a,0,1,0,0,0\n")
    }
    let (output, guarded) = precious(in: dir, for: command)
    var cases: [(String, [String], String?, Int32)] = [
      ("usage", command.resolved(input: good, output: output) + ["--no-such-option"], nil, 64),
      ("bad data", command.resolved(input: bad, output: output), nil, 65),
      ("missing input", command.resolved(input: dir + "/missing", output: output), nil, 66),
    ]
    if command.writesStdoutOnly {
      cases.append(
        (
          "stdout on a full device", [],
          "ACCELKIT \(command.resolved(input: good, output: "").joined(separator: " ")) > /dev/full", 74
        ))
    } else {
      writeFile(dir + "/a-file", "x")
      if !command.isEvaluate {  // evaluate creates its report folder and its parents, as documented
        cases.append(
          (
            "output folder missing", command.resolved(input: good, output: dir + "/no/such/folder/out.csv"),
            nil, 73
          ))
      }
      cases.append(
        ("output under a file", command.resolved(input: good, output: dir + "/a-file/out.csv"), nil, 73))
      cases.append(
        (
          "file size limit", [],
          "ulimit -f 0; ACCELKIT \(command.resolved(input: good, output: output).joined(separator: " "))", 74
        ))
      cases.append(
        (
          "stdout on a full device", [],
          "ACCELKIT \(command.resolved(input: good, output: "-").joined(separator: " ")) > /dev/full", 74
        ))
    }
    for (name, arguments, shell, code) in cases {
      if command.isEvaluate && name == "stdout on a full device" { continue }
      let r = try accelkit(arguments, shell: shell)
      #expect(r.status == code, "\(command) — \(name): exit \(r.status): \(r.stderr.prefix(300))")
      #expect(r.stderr.hasPrefix("Error: "), "\(command) — \(name): \(r.stderr.prefix(300))")
      #expect(
        contents(guarded) == Array("precious".utf8), "\(command) — \(name): the existing output changed")
    }
    #expect(
      command.isEvaluate || !fileExists(dir + "/no"), "\(command): a folder was created for a failed output")
    #expect(temporaries(in: dir).isEmpty, "\(command): temporary files left: \(temporaries(in: dir))")
  }

  /// Through a FIFO the command reads the same trace and writes the same bytes as from the file;
  /// SIGTERM while it waits for more input is exit 143, the old output intact, no temporary left.
  @Test(arguments: commands)
  func aFIFOInputWorksAndSIGTERMIsClean(command: Command) throws {
    let dir = Paths.temporaryDirectory()
    let trace = Self.imuTrace()
    let fromFile: String
    let fromFIFO: String
    let fifo: String
    if command.isEvaluate {
      fromFile = Self.dataset(in: dir + "/file") { writeFile($0, trace) }
      fromFIFO = Self.dataset(in: dir + "/fifo") { mkfifo($0, 0o600) }
      fifo = fromFIFO + "/t.csv"
    } else {
      try FileManager.default.createDirectory(atPath: dir + "/file", withIntermediateDirectories: true)
      try FileManager.default.createDirectory(atPath: dir + "/fifo", withIntermediateDirectories: true)
      fromFile = dir + "/file/t.csv"
      writeFile(fromFile, trace)
      fromFIFO = dir + "/fifo/t.csv"
      mkfifo(fromFIFO, 0o600)
      fifo = fromFIFO
    }
    let suffix = command.arguments.first == "plot" ? ".svg" : ".csv"
    func output(_ name: String) -> String {
      command.isEvaluate ? dir + "/" + name : dir + "/" + name + suffix
    }

    // Complete input through the FIFO.
    let expected = try accelkit(command.resolved(input: fromFile, output: output("a")))
    #expect(expected.status == 0, "\(command): \(expected.stderr)")
    let run = try Running(command.resolved(input: fromFIFO, output: output("b")))
    try run.feed(fifo, Data(trace.utf8), thenClose: true)
    #expect(run.wait() == 0, "\(command) from a FIFO")
    if command.writesStdoutOnly {
      #expect(run.stdout.replacingOccurrences(of: "fifo/", with: "file/") == expected.stdout, "\(command)")
    } else if command.isEvaluate {
      // The same figures; the dataset's hash differs, as a FIFO's content cannot be hashed (read twice).
      func figures(_ path: String) -> [String] {
        String(decoding: contents(path) ?? [], as: UTF8.self).split(separator: "\n").map {
          $0.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
        }
      }
      #expect(figures(output("a") + "/summary.csv") == figures(output("b") + "/summary.csv"), "\(command)")
      #expect(contents(output("a") + "/summary.csv") != contents(output("b") + "/summary.csv"))
    } else if command.arguments.first != "plot" {  // the plot's title names the file
      #expect(contents(output("a")) == contents(output("b")), "\(command): FIFO and file outputs differ")
    }

    // SIGTERM halfway through.
    let (out, guarded) = precious(in: dir, for: command)
    let interrupted = try Running(command.resolved(input: fromFIFO, output: out))
    try interrupted.feed(fifo, Data(trace.utf8.prefix(trace.utf8.count / 2)), thenClose: false)
    usleep(300_000)  // it reads what there is and waits for more
    kill(interrupted.process.processIdentifier, SIGTERM)
    #expect(
      interrupted.wait() == 143,
      "\(command): \(interrupted.process.terminationReason == .uncaughtSignal ? "killed by the signal" : "")")
    interrupted.closeFIFO()
    #expect(contents(guarded) == Array("precious".utf8), "\(command): the existing output changed")
    #expect(temporaries(in: dir).isEmpty, "\(command): temporary files left: \(temporaries(in: dir))")
  }

  /// generate writes every file whole before it renames any into place: when one cannot be
  /// written (a file size limit that some files fit under and others do not), the dataset already in the folder is left exactly as it was. Its other classes: 64, 73.
  @Test func generateReplacesADatasetWholeOrNotAtAll() throws {
    let dir = Paths.temporaryDirectory()
    #expect(try accelkit(["generate", "-o", dir + "/set", "--traces", "2", "--seed", "3"]).status == 0)
    let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/set").sorted()
    let before = names.map { readFile(dir + "/set/" + $0) }
    let r = try accelkit([], shell: "ulimit -f 50; ACCELKIT generate -o \(dir)/set --traces 4 --seed 5")
    #expect(r.status == 74 && r.stderr.contains("/set/"), "\(r.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/set").sorted() == names)
    #expect(names.map { readFile(dir + "/set/" + $0) } == before)
    writeFile(dir + "/a-file", "x")
    #expect(try accelkit(["generate", "-o", dir + "/a-file/set"]).status == 73)
    #expect(try accelkit(["generate", "-o", dir + "/set", "--traces", "0"]).status == 64)
  }

  /// No permission: reading is 66, creating an output is 73, for every command. Root reads
  /// everything, so as root the commands run as `nobody` (setpriv from util-linux).
  @Test func permissionsGiveTheirCodes() throws {
    let dir = Paths.temporaryDirectory()
    chmod(dir, 0o755)
    writeFile(dir + "/t.csv", Self.imuTrace(rows: 500))
    chmod(dir + "/t.csv", 0o600)
    writeFile(dir + "/readable.csv", Self.imuTrace(rows: 500))
    chmod(dir + "/readable.csv", 0o644)
    try FileManager.default.createDirectory(atPath: dir + "/locked", withIntermediateDirectories: false)
    chmod(dir + "/locked", 0o555)
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: fileExists)
    var prefix = "ACCELKIT "
    if geteuid() == 0 {
      guard let setpriv else {
        Issue.record("running as root without setpriv: cannot drop privileges")
        return
      }
      // A copy of the binary in a folder nobody can enter (the build folder may not be).
      try FileManager.default.copyItem(atPath: accelkitPath, toPath: dir + "/accelkit")
      chmod(dir + "/accelkit", 0o755)
      prefix = "\(setpriv) --reuid=65534 --regid=65534 --clear-groups \(dir)/accelkit "
    } else {
      chmod(dir + "/t.csv", 0o000)
    }
    for command in Self.commands where !command.isEvaluate {
      let unreadable = try accelkit(
        [],
        shell: prefix
          + command.resolved(input: dir + "/t.csv", output: "/dev/null").joined(separator: " "))
      #expect(
        unreadable.status == 66 && unreadable.stderr.contains("t.csv"), "\(command): \(unreadable.stderr)")
      if command.writesStdoutOnly { continue }
      let locked = try accelkit(
        [],
        shell: prefix
          + command.resolved(input: dir + "/readable.csv", output: dir + "/locked/out.csv").joined(
            separator: " "))
      #expect(locked.status == 73 && locked.stderr.contains("locked/out.csv"), "\(command): \(locked.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/locked").isEmpty)
  }

  /// Temporary files left by a process killed outright (SIGKILL) are removed by the next run that
  /// writes in that folder, whichever outputs they were for; a live process's, another host's and
  /// unrelated files stay.
  @Test func staleTemporariesOfAKilledRunAreRemoved() throws {
    let dir = Paths.temporaryDirectory()
    let trace = dir + "/t.csv"
    writeFile(trace, Self.imuTrace(rows: 200))
    // The process id of a process that has ended.
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/true")
    try ended.run()
    ended.waitUntilExit()
    let template = TemporaryFiles.template(directory: dir, base: "out.csv")
    let ours = String(getpid())
    let stale = template.replacingOccurrences(
      of: "accelkit-\(ours)@", with: "accelkit-\(ended.processIdentifier)@"
    )
    .replacingOccurrences(of: "XXXXXX", with: "a1b2c3")
    let live = template.replacingOccurrences(of: "XXXXXX", with: "d4e5f6")
    let otherOutput = stale.replacingOccurrences(of: ".out.csv.", with: ".other.csv.")
    let otherHost = stale.replacingOccurrences(of: "@", with: "@elsewhere")
    let unrelated = dir + "/.notes.accelkit-backup"
    for path in [stale, live, otherOutput, otherHost, unrelated] { writeFile(path, "half-written") }
    #expect(try accelkit(["convert", trace, "-o", dir + "/out.csv"]).status == 0)
    #expect(!fileExists(stale), "the stale temporary is still there")
    #expect(!fileExists(otherOutput), "another output's stale temporary is still there")
    #expect(fileExists(live), "a live process's temporary was removed")
    #expect(fileExists(otherHost), "another host's temporary was removed")
    #expect(fileExists(unrelated), "an unrelated file was removed")
  }
}

extension ExitCodePolicyCLITests.Command: ExpressibleByArrayLiteral {
  init(arrayLiteral elements: String...) { self.init(arguments: elements) }
}

/// The `accelkit` process of a test that feeds it through a FIFO.
final class Running: @unchecked Sendable {
  let process = Process()
  private let out = Pipe()
  private var fd: Int32 = -1
  private var collected = Data()
  private let reader = DispatchGroup()

  init(_ arguments: [String]) throws {
    process.executableURL = URL(fileURLWithPath: accelkitPath)
    process.arguments = arguments
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    reader.enter()
    let handle = out.fileHandleForReading
    DispatchQueue.global().async { [self] in
      collected = handle.readDataToEndOfFile()
      reader.leave()
    }
  }

  /// Opens the FIFO once the process reads it (waiting up to 10 s), writes `bytes`, and closes it
  /// when `thenClose`.
  func feed(_ fifo: String, _ bytes: Data, thenClose: Bool) throws {
    for _ in 0..<400 {
      fd = open(fifo, O_WRONLY | O_NONBLOCK)
      if fd >= 0 || !process.isRunning { break }
      usleep(25_000)
    }
    guard fd >= 0 else {
      Issue.record("the process never opened the FIFO")
      return
    }
    _ = fcntl(fd, F_SETFL, 0)
    _ = signal(SIGPIPE, SIG_IGN)
    bytes.withUnsafeBytes { raw in
      var done = 0
      while done < raw.count {
        let n = write(fd, raw.baseAddress! + done, raw.count - done)
        if n <= 0 { break }
        done += n
      }
    }
    if thenClose { closeFIFO() }
  }

  func closeFIFO() {
    if fd >= 0 { close(fd) }
    fd = -1
  }

  /// Waits for the process; its exit status (a signal's number when killed by one).
  func wait() -> Int32 {
    process.waitUntilExit()
    reader.wait()
    return process.terminationStatus
  }

  var stdout: String { String(decoding: collected, as: UTF8.self) }
}
