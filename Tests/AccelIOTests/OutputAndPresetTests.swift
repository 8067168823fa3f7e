import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelIO

@Suite struct OutputFileTests {
  @Test func abandonedOutputLeavesNothingAndKeepsTheOldFile() throws {
    let directory = Paths.temporaryDirectory()
    let path = directory + "/out.csv"
    do {
      let output = try OutputFile(path: path)
      try output.write("half")
    }
    #expect(!fileExists(path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    writeFile(path, "old")
    do {
      let output = try OutputFile(path: path)
      try output.write("new")
    }
    #expect(readFile(path) == Array("old".utf8))
    let output = try OutputFile(path: path)
    try output.write("new")
    try output.commit()
    #expect(readFile(path) == Array("new".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.csv"])
  }

  @Test func refusesToWriteOverAnInput() throws {
    let path = temporaryFile("in.csv", "t,x,y,z\n0,1,2,3\n")
    let input = try ByteInput(path: path)
    let error = accelError { _ = try OutputFile(path: path, inputs: [input]) }
    #expect(error?.exitCode == 64)
    #expect(error?.message == "refusing to write the output over the input \(path)")
    // The same file through another name.
    let link = path + ".link"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
    #expect(accelError { _ = try OutputFile(path: link, inputs: [input]) }?.exitCode == 64)
  }

  /// A format that seeks back (NPY) written to a pipe or a device: the bytes reach it whole, and the
  /// path stays what it was (it was once a regular file renamed over /dev/null).
  @Test func aSeekingOutputIntoAPipeIsCopiedNotRenamedOverIt() throws {
    let directory = Paths.temporaryDirectory()
    let path = directory + "/pipe"
    #expect(mkfifo(path, 0o600) == 0)
    final class Received: @unchecked Sendable { var bytes: [UInt8] = [] }
    let received = Received()
    let finished = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      // Blocks until the output opens the pipe for writing, then reads to its end.
      if let handle = FileHandle(forReadingAtPath: path) { received.bytes = Array(handle.readDataToEndOfFile()) }
      finished.signal()
    }
    let output = try OutputFile(path: path, needsSeek: true)
    try output.write("count=?;rows")
    try output.overwrite(at: 6, with: Array("2".utf8))
    try output.commit()
    #expect(finished.wait(timeout: .now() + 10) == .success)
    #expect(received.bytes == Array("count=2;rows".utf8))
    var st = stat()
    #expect(stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["pipe"])
  }

  /// A write that fails on the background thread (a full device, more than the 1 MB buffer) is
  /// reported, naming the output, by a later write or by finish.
  @Test func aFailedBackgroundWriteOfRecordsIsReported() throws {
    let columns = [[Double](repeating: 1, count: 100_000), [Double](repeating: 2, count: 100_000)]
    var writes = 0
    let error = accelError {
      let raw = RawTableWriter(output: try OutputFile(path: "/dev/full"), precision: .float64, pipelined: true)
      for _ in 0..<4 {
        try raw.write(columns: columns)
        writes += 1
      }
      try raw.finish()
    }
    // The first block fails on the background thread; with two blocks in flight the third write at
    // the latest waits for it and throws its error (not only the final flush in finish).
    #expect(writes <= 2)
    #expect(error?.exitCode == 74)
    #expect(error?.message == "cannot write /dev/full: No space left on device")
    // NPY to the same device is copied in at the end: the copy fails the same way, and the device
    // stays a device.
    let npyError = accelError {
      let npy = try NPYTableWriter(
        output: try OutputFile(path: "/dev/full", needsSeek: true), names: ["t", "x"], pipelined: true)
      try npy.write(columns: columns)
      try npy.finish()
    }
    #expect(npyError?.message == "cannot write /dev/full: No space left on device")
    var st = stat()
    #expect(stat("/dev/full", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
  }

  @Test func anOutputInAMissingFolderCannotBeCreated() {
    let error = accelError { _ = try OutputFile(path: "/nonexistent-dir/out.csv") }
    #expect(error?.exitCode == 73)
    #expect(error?.message == "cannot create /nonexistent-dir/out.csv: No such file or directory")
  }
}

@Suite struct PresetTests {
  func settings(_ preset: String) throws -> TraceReadSettings {
    let p = try #require(Preset.named(preset))
    var s = TraceReadSettings()
    s.columns = try p.columns.map(ColumnSpec.init(parsing:))
    s.rate = p.rate
    if let u = p.units { s.units = u }
    if let c = p.convention { s.convention = c }
    if let t = p.timeUnit { s.timeUnit = t }
    return s
  }


  @Test
  func stMLCInGAndMg() throws {
    let (shake, source) = try readTrace(Paths.real("st-mlc/shake.csv"), try settings("st-mlc"))
    #expect(shake.count == 1263)
    #expect(source.metadata.sourceUnits == .g)
    #expect(shake.t[3] == 3.0 / 30)
    #expect(shake.x[0] == 0.096 && shake.y[0] == -0.109 && shake.z[0] == 1.065)  // specific force, negated
    let (walk, walkSource) = try readTrace(Paths.real("st-mlc/walking.txt"), try settings("st-mlc"))
    #expect(walkSource.metadata.sourceUnits == .mg)
    #expect(walk.count == 4864)
    #expect(walk.x[0] == 412.0 / 1000 && walk.y[0] == 1652.0 / 1000 && walk.z[0] == 191.0 / 1000)
    let (head, _) = try readTrace(Paths.real("st-mlc/nod1.txt"), try settings("st-mlc"))
    #expect(head.count == 5327)
    #expect(head.x[0] == 423.096 / 1000)
  }

  @Test
  func coreMotionRawIsGravityPlusUser() throws {
    let path = Paths.real("coremotion/walk_data.csv")
    let raw = try readTrace(path, try settings("coremotion")).0
    let gravity = try readTrace(path, try settings("coremotion-gravity")).0
    let user = try readTrace(path, try settings("coremotion-user")).0
    #expect(raw.count == 2991)
    for i in [0, 1, 100, 2990] {
      #expect(raw.x[i] == gravity.x[i] + user.x[i])
      #expect(raw.z[i] == gravity.z[i] + user.z[i])
    }
    #expect(gravity.x[0] == 0.488391 && raw.t[1] == 0.009980)
  }

  @Test
  func broadIsMetersPerSecondSquaredSpecificForce() throws {
    let block = try readTrace(Paths.real("broad-tilt/02_undisturbed_slow_rotation_B.csv.gz"), try settings("broad")).0
    #expect(block.count == 53240)
    #expect(block.z[0] == -9.8503 / 9.80665)
    #expect(block.t[1] == 0.0035)
  }

  @Test func phyphoxExport() throws {
    let text = "\"Time (s)\",\"Acceleration x (m/s^2)\",\"Acceleration y (m/s^2)\",\"Acceleration z (m/s^2)\"\n"
      + "0.0e0,1.9613300000e0,0,9.80665\n1.0e-2,0,0,9.80665\n"
    let block = try readCSV(text, try settings("phyphox"))
    #expect(block == SampleBlock(t: [0, 0.01], x: [-0.2, -0.0], y: [-0.0, -0.0], z: [-1, -1]))
  }

  @Test func everyPresetParses() throws {
    for preset in Preset.all {
      #expect(try preset.columns.map(ColumnSpec.init(parsing:)) != nil || preset.columns == nil)
      #expect(!preset.summary.isEmpty && !preset.settingsDescription.isEmpty)
    }
    #expect(Set(Preset.all.map(\.name)).isSuperset(of: ["st-mlc", "coremotion", "coremotion-gravity", "broad", "phyphox"]))
  }
}

