import Foundation
import TestSupport
import Testing

/// Runs the built `accelkit` binary and captures what it prints.
struct CLIResult {
  var status: Int32
  var stdout: String
  var stderr: String
  var stdoutBytes: Int
}

let accelkitPath: String = {
  let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
  if directory.lastPathComponent == "MacOS" {  // an .xctest bundle on macOS
    directory = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  }
  return directory.appendingPathComponent("accelkit").path
}()

@discardableResult
func accelkit(_ arguments: [String], stdin: Data? = nil, shell: String? = nil) throws -> CLIResult {
  let process = Process()
  if let shell {
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", shell.replacingOccurrences(of: "ACCELKIT", with: accelkitPath)]
  } else {
    process.executableURL = URL(fileURLWithPath: accelkitPath)
    process.arguments = arguments
  }
  // The tests expect plain output even when they run under GitHub Actions.
  var environment = ProcessInfo.processInfo.environment
  environment["GITHUB_ACTIONS"] = nil
  environment["GITHUB_STEP_SUMMARY"] = nil
  process.environment = environment
  let out = Pipe()
  let err = Pipe()
  let input = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = input
  try process.run()
  if let stdin { input.fileHandleForWriting.write(stdin) }
  try input.fileHandleForWriting.close()
  final class Box: @unchecked Sendable { var data = Data() }
  let errBox = Box()
  let group = DispatchGroup()
  group.enter()
  DispatchQueue.global().async {
    errBox.data = err.fileHandleForReading.readDataToEndOfFile()
    group.leave()
  }
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  let errData = errBox.data
  process.waitUntilExit()
  return CLIResult(
    status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outData.count)
}

func temporaryCSV(_ text: String, name: String = "walk.csv") -> String {
  let path = Paths.temporaryDirectory() + "/" + name
  writeFile(path, text)
  return path
}

let sampleCSV = "t,x,y,z\n0,0.01,-0.02,-1\n0.01,0.02,0.01,-0.99\n0.02,0.03,0,-1.01\n0.05,-0.01,0.02,-1\n"

@Suite struct CLITests {
  @Test func helpListsEverySubcommandAndVersion() throws {
    let help = try accelkit(["--help"])
    #expect(help.status == 0)
    for command in ["info", "convert", "presets"] {
      #expect(help.stdout.contains("  \(command) "), "\(command) missing from --help")
    }
    let version = try accelkit(["--version"])
    #expect(version.status == 0 && version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    for command in ["info", "convert", "presets"] {
      let sub = try accelkit([command, "--help"])
      #expect(sub.status == 0 && sub.stdout.contains("Examples:"), "\(command) --help has no examples")
    }
  }

  @Test func infoAsCSVAndJSON() throws {
    let path = temporaryCSV(sampleCSV)
    let csv = try accelkit(["info", "--format", "csv", path])
    #expect(csv.status == 0)
    let lines = csv.stdout.split(separator: "\n")
    #expect(lines.count == 2)
    let header = lines[0].split(separator: ",").map(String.init)
    let values = lines[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    let row = Dictionary(uniqueKeysWithValues: zip(header, values))
    #expect(row["rows"] == "4")
    #expect(row["duration_s"] == "0.05")
    #expect(row["rate_hz"] == "100")
    #expect(row["gaps"] == "1")
    #expect(row["longest_gap_at_s"] == "0.02")
    #expect(row["x_max"] == "0.03")
    #expect(row["z_min"] == "-1.01")
    let json = try accelkit(["info", "--format", "json", path, path])
    let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
    #expect(parsed?.count == 2)
    #expect(parsed?[0]["rows"] as? Int == 4)
    #expect((parsed?[0]["warnings"] as? [String])?.contains { $0.contains("1 gap") } == true)
  }

  @Test func infoWarnsAboutUnits() throws {
    let path = temporaryCSV("t,x,y,z\n0,0,0,9.8\n0.01,0,0,9.81\n", name: "ms2.csv")
    let result = try accelkit(["info", "--format", "table", path])
    #expect(result.stdout.contains("units look like m/s^2, not g (pass --units m/s2)"))
  }

  @Test func exitCodesAndMessages() throws {
    let missing = try accelkit(["info", "/nonexistent/walk.csv"])
    #expect(missing.status == 66)
    #expect(missing.stderr == "Error: cannot open /nonexistent/walk.csv: No such file or directory\n")
    let bad = temporaryCSV("t,x,y,z\n0,1,2,3\n0.01,1,2,n/a\n")
    let data = try accelkit(["info", bad])
    #expect(data.status == 65)
    #expect(data.stderr == "Error: \(bad):3:4: expected a number in column \"z\", got \"n/a\"\n"
      + "Hint: fix or remove the row, or pass --skip-bad-rows to skip rows that do not parse\n")
    #expect(data.stdout.isEmpty)
    #expect(try accelkit(["info", "--rate", "-3", bad]).status == 64)
    #expect(try accelkit(["info", "--no-such-option", bad]).status == 64)
    #expect(try accelkit(["info", "--preset", "nope", bad]).status == 64)
    let skipped = try accelkit(["info", "--skip-bad-rows", "--format", "csv", bad])
    #expect(skipped.status == 0)
    #expect(skipped.stderr.hasPrefix("Warning: skipped 1 bad row in \(bad); the first: "))
  }

  @Test func convertRoundTripsExactly() throws {
    let directory = Paths.temporaryDirectory()
    let csv = directory + "/in.csv"
    var rng = SeededRandom(seed: 9)
    var text = "t,x,y,z\n"
    for i in 0..<2000 {
      text += String(format: "%.6f,%.4f,%.4f,%.4f\n", Double(i) / 100, Double.random(in: -2...2, using: &rng),
        Double.random(in: -2...2, using: &rng), Double.random(in: -2...2, using: &rng))
    }
    writeFile(csv, text)
    #expect(try accelkit(["convert", csv, "-o", directory + "/a.npy"]).status == 0)
    #expect(try accelkit(["convert", directory + "/a.npy", "-o", directory + "/b.csv"]).status == 0)
    #expect(try accelkit(["convert", directory + "/b.csv", "-o", directory + "/c.f32", "--dtype", "f32"]).status == 0)
    let original = try accelkit(["convert", csv, "-o", "-"]).stdout
    let back = String(decoding: readFile(directory + "/b.csv")!, as: UTF8.self)
    #expect(back == original)
    // The same numbers as the input text.
    func values(_ csv: String) -> [[Double]] {
      csv.split(separator: "\n").dropFirst().map { line -> [Double] in
        line.split(separator: ",").map { (field: Substring) -> Double in Double(String(field))! }
      }
    }
    let inputValues = values(text)
    let outputValues = values(back)
    #expect(inputValues == outputValues)
    // f32 raw keeps Float values; its CSV prints the shortest Float text.
    let f32 = try accelkit(["convert", directory + "/c.f32", "-o", "-"]).stdout
    #expect(f32.split(separator: "\n")[2] == "0.01,\(Float(inputValues[1][1])),\(Float(inputValues[1][2])),\(Float(inputValues[1][3]))")
    // Byte-identical on every run.
    #expect(try accelkit(["convert", csv, "-o", directory + "/a2.npy"]).status == 0)
    #expect(readFile(directory + "/a.npy") == readFile(directory + "/a2.npy"))
  }

  @Test func stdinAndStdout() throws {
    let result = try accelkit(["convert", "-", "-o", "-", "--to", "tsv"], stdin: Data(sampleCSV.utf8))
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("t\tx\ty\tz\n0\t0.01\t-0.02\t-1\n"))
    let npy = try accelkit(["convert", "-", "-o", "-", "--to", "npy"], stdin: Data(sampleCSV.utf8))
    #expect(npy.stdoutBytes == 192 + 4 * 32)  // a header with room for any row count, then 4 records
    let path = temporaryCSV(sampleCSV)
    let info = try accelkit([], shell: "cat \(path) | ACCELKIT info --format csv")
    #expect(info.status == 0 && info.stdout.contains("<stdin>,4,"))
  }

  @Test func closedPipeEndsQuietly() throws {
    let directory = Paths.temporaryDirectory()
    var text = "t,x,y,z\n"
    for i in 0..<200_000 { text += "\(i),0.1,0.2,-1\n" }
    writeFile(directory + "/big.csv", text)
    let result = try accelkit([], shell: "set -o pipefail; ACCELKIT convert \(directory)/big.csv -o - | head -1")
    #expect(result.status == 0)
    #expect(result.stdout == "t,x,y,z\n")
    #expect(result.stderr.isEmpty)
  }

  @Test func outputsAreAtomicAndNeverOverwriteTheInput() throws {
    let directory = Paths.temporaryDirectory()
    let input = directory + "/in.csv"
    writeFile(input, sampleCSV)
    let same = try accelkit(["convert", input, "-o", input])
    #expect(same.status == 64)
    #expect(same.stderr.contains("refusing to write \(input): it is the input \(input)"))
    #expect(readFile(input) == Array(sampleCSV.utf8))

    let bad = directory + "/bad.csv"
    writeFile(bad, sampleCSV + "0.06,1,2,oops\n")
    let output = directory + "/out.csv"
    writeFile(output, "precious")
    let failed = try accelkit(["convert", bad, "-o", output])
    #expect(failed.status == 65)
    #expect(readFile(output) == Array("precious".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["bad.csv", "in.csv", "out.csv"])
  }

  @Test func resampleOntoAUniformGrid() throws {
    let path = temporaryCSV(sampleCSV)
    let result = try accelkit(["convert", path, "--resample", "100", "-o", "-"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 7)
    #expect(lines[4] == "0.03,0.0166666666666667,0.0066666666666667,-1.0066666666666666" || lines[4].hasPrefix("0.03,"))
    #expect(lines.last!.hasPrefix("0.05,-0.01,0.02,-1"))
  }

  @Test func presetsAreListed() throws {
    let result = try accelkit(["presets"])
    #expect(result.status == 0)
    for name in ["st-mlc", "coremotion", "coremotion-gravity", "broad", "phyphox"] {
      #expect(result.stdout.contains("\n\(name) ") || result.stdout.hasPrefix("\(name) "), "\(name)")
    }
  }

  @Test
  func infoOnTheRealRecordings() throws {
    let root = Paths.real("")
    let st = try accelkit(["info", "--preset", "st-mlc", "--format", "csv", root + "st-mlc/shake.csv", root + "st-mlc/walking.txt"])
    #expect(st.status == 0)
    let rows = st.stdout.split(separator: "\n")
    #expect(rows.count == 3 && rows[1].contains(",1263,") && rows[2].contains(",4864,"))
    #expect(rows[1].contains("clipping at its rail"))
    let broad = try accelkit(["info", "--preset", "broad", "--format", "json", root + "broad-tilt/02_undisturbed_slow_rotation_B.csv.gz"])
    #expect(broad.status == 0 && broad.stdout.contains("\"rows\": 53240"))
  }
}
