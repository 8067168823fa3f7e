import Foundation
import TestSupport
import Testing

/// Every command that reads a trace, against a corpus of bad inputs: no crash (no signal exit),
/// the documented exit code (64 usage, 65 bad data, 66 cannot open), a message naming the file,
/// and an existing output left exactly as it was.
@Suite struct BadInputSuiteCLITests {
  static let commands: [[String]] = [
    ["convert"], ["filter", "lowpass"], ["filter", "butterworth", "--cutoff", "5", "--zero-phase"],
    ["spectrum"], ["spectrogram"], ["orientation"], ["attitude"], ["detect-shakes", "--rule", "three-peak"],
    ["plot", "trace"], ["simulate", "ball"], ["filter", "gravity", "--method", "fusion"],
    ["attitude", "--offline"],
  ]

  /// Bad inputs by name, with the exit code each must give.
  static func corpus(in dir: String) throws -> [(path: String, code: Int32)] {
    var random = SeededRandom(seed: 99)
    var garbage = [UInt8](repeating: 0, count: 4096)
    for i in garbage.indices { garbage[i] = UInt8.random(in: 0...255, using: &random) }
    let files: [(String, [UInt8], Int32)] = [
      ("empty.csv", [], 65),
      ("garbage.csv", garbage, 65),
      ("garbage.npy", garbage, 65),
      ("garbage.csv.gz", [0x1f, 0x8b] + garbage, 65),
      ("nan.csv", Array("t,x,y,z\n0,0,0,1\n0.01,nan,0,1\n".utf8), 65),
      ("text.npy", Array("t,x,y,z\n0,0,0,1\n".utf8), 65),
      (
        "truncated.npy",
        Array("\u{93}NUMPY\u{01}\u{00}".utf8) + [118, 0]
          + Array("{'descr': '<f8', 'fortran_order': False, 'shape': (100, 4), }".utf8)
          + [UInt8](repeating: 32, count: 55) + [10] + [UInt8](repeating: 0, count: 64), 65
      ),
      ("letters.csv", Array("t,x,y,z\n0,a,b,c\n".utf8), 65),
      ("short.csv", Array("t,x,y,z\n0,0,0\n".utf8), 65),
      ("shifted.csv", Array("t,x,y,z\n0,0,0,1\n0.01,0,0,1,3\n".utf8), 65),
      ("joined.csv", Array("t,x,y,z\n0,0,0,1\n0.01,0,0,1\n0.02,0,0,1\n0.01,0,0,1\n0.03,0,0,1\n".utf8), 65),
      ("decreasing.csv", Array("t,x,y,z\n3,0,0,1\n2,0,0,1\n1,0,0,1\n".utf8), 65),
      ("repeated.csv", Array("t,x,y,z\n0,0,0,1\n0,0,0,1\n".utf8), 65),
    ]
    var out: [(String, Int32)] = []
    for (name, bytes, code) in files {
      _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data(bytes))
      out.append((dir + "/" + name, code))
    }
    try FileManager.default.createDirectory(atPath: dir + "/folder.csv", withIntermediateDirectories: true)
    out.append((dir + "/folder.csv", 66))
    out.append((dir + "/missing.csv", 66))
    return out
  }

  @Test(arguments: commands)
  func badInputsGiveTheirCodeAndLeaveOutputsAlone(command: [String]) throws {
    let dir = Paths.temporaryDirectory()
    let inputs = try Self.corpus(in: dir)
    let output = dir + "/out" + (command.first == "plot" ? ".svg" : ".csv")
    for (path, code) in inputs {
      writeFile(output, "precious")
      let r = try accelkit(command + [path, "-o", output])
      let name = URL(fileURLWithPath: path).lastPathComponent
      #expect(r.status == code, "\(command) \(name): exit \(r.status), \(r.stderr.prefix(300))")
      #expect(r.stderr.contains(name), "\(command) \(name): \(r.stderr.prefix(300))")
      #expect(
        String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self) == "precious",
        "\(command) \(name)")
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("accelkit-") }
    #expect(left.isEmpty, "temporary files left: \(left)")
  }
}
