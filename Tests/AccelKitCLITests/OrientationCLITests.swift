import Foundation
import TestSupport
import Testing

@Suite struct OrientationCLITests {
  /// 1 s face up, then 2 s portrait upright, at 50 Hz (Apple's convention).
  let trace: String = {
    var text = "t,x,y,z\n"
    for i in 0..<150 {
      let t = Double(i) / 50
      text += i < 50 ? "\(t),0,0,-1\n" : "\(t),0,-1,0\n"
    }
    return temporaryCSV(text)
  }()

  @Test func perSampleColumns() throws {
    let result = try accelkit(["orientation", "--raw", trace, "-o", "-"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n")
    #expect(lines[0] == "t,roll,pitch,tilt,up_angle,orientation")
    #expect(lines[1] == "0,0,0,0,0,face-up")
    #expect(lines[60].hasSuffix(",0,90,90,-1.5707963267948966,portrait"))  // roll held at the pole
    let aero = try accelkit(["orientation", "--raw", "--angles", "aerospace", trace, "-o", "-"])
    #expect(aero.stdout.hasPrefix("t,roll_x,pitch_y,tilt,up_angle,orientation\n0,0,0,0,0,face-up\n"))
  }

  @Test func events() throws {
    let result = try accelkit(["orientation", "--events", trace, "-o", "-"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[0] == "t,from,to")
    #expect(lines[1] == "0.3,unknown,face-up")
    #expect(lines[2].hasSuffix(",face-up,portrait"))
  }

  @Test func validation() throws {
    #expect(try accelkit(["orientation", "--flat-angle", "95", trace]).status == 64)
    #expect(try accelkit(["orientation", "--raw", "--cutoff", "2", trace]).status == 64)
    #expect(try accelkit(["orientation", "--cutoff", "30", trace]).status == 64)  // at Nyquist of 50 Hz
    let events = try accelkit(["orientation", "--events", "--to", "npy", trace])
    #expect(events.status == 64)
    #expect(events.stderr.hasPrefix("Error: --events writes CSV (t,from,to), not npy"))
    #expect(try accelkit(["orientation", "--events", "--precision", "3", trace]).status == 64)
  }

  /// NPY (from --to or the extension) and raw carry the CSV's rows exactly, the class as its code.
  @Test func binaryRowsEqualTheCSV() throws {
    let csv = try accelkit(["orientation", trace, "-o", "-"]).stdout.split(separator: "\n").dropFirst()
    let names = ["portrait", "portrait-upside-down", "landscape-left", "landscape-right", "face-up", "face-down", "unknown"]
    let expected = csv.map { line -> [Double] in
      let fields = line.split(separator: ",")
      return fields.dropLast().map { Double($0)! } + [Double(names.firstIndex(of: String(fields.last!))!)]
    }
    let npy = Paths.temporaryDirectory() + "/o.npy"
    #expect(try accelkit(["orientation", trace, "-o", npy]).status == 0)
    let bytes = readFile(npy)!
    let headerEnd = 10 + Int(bytes[8]) + Int(bytes[9]) << 8
    let header = String(decoding: bytes[10..<headerEnd], as: UTF8.self)
    #expect(header.hasPrefix("{'descr': [('t', '<f8'), ('roll', '<f8'), ('pitch', '<f8'), ('tilt', '<f8'), ('up_angle', '<f8'), ('orientation_code', '<f8')], 'fortran_order': False, 'shape': (150,), }"))
    let rawPath = Paths.temporaryDirectory() + "/o.bin"
    #expect(try accelkit(["orientation", "--to", "raw", trace, "-o", rawPath]).status == 0)
    let raw = readFile(rawPath)!
    #expect(Array(bytes[headerEnd...]) == raw)
    let values = raw.withUnsafeBytes { buffer in
      (0..<raw.count / 8).map { Double(bitPattern: UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))) }
    }
    #expect(values == expected.flatMap { $0 })
    // TSV with rounded numbers; the time column is never rounded.
    let tsv = try accelkit(["orientation", "--raw", "--to", "tsv", "--precision", "3", trace, "-o", "-"]).stdout
    #expect(tsv.split(separator: "\n")[61] == "1.2\t0\t90\t90\t-1.57\tportrait")
  }
}

/// accelkit orientation on the generated test set against the generator's truth: where the
/// reading is within 0.05 g of 1 g and away from the poles, median roll and pitch errors stay
/// within a few degrees (sensor bias, scale error and the low-pass lag through turns).
@Suite struct OrientationTruthTests {
  func columns(_ path: String) -> [String: [Double]] {
    let text = String(decoding: readFile(path)!, as: UTF8.self)
    let lines = text.split(separator: "\n")
    let header = lines[0].split(separator: ",").map(String.init)
    var out: [String: [Double]] = [:]
    for line in lines.dropFirst() {
      for (k, field) in line.split(separator: ",").enumerated() where k < header.count {
        out[header[k], default: []].append(Double(field) ?? .nan)
      }
    }
    return out
  }

  @Test func generatedTracesAgreeWithTheirTruth() throws {
    var rollErrors: [Double] = []
    var pitchErrors: [Double] = []
    for i in 0..<12 {
      let name = String(format: "%03d", i)
      let trace = Paths.packageRoot + "/datasets/test/\(name).csv"
      let out = Paths.temporaryDirectory() + "/o.csv"
      #expect(try accelkit(["orientation", trace, "-o", out]).status == 0)
      let ours = columns(out), truth = columns(Paths.packageRoot + "/datasets/test/\(name).truth.csv"), raw = columns(trace)
      for k in 0..<min(ours["roll"]!.count, truth["roll"]!.count) {
        let m = (raw["x"]![k] * raw["x"]![k] + raw["y"]![k] * raw["y"]![k] + raw["z"]![k] * raw["z"]![k]).squareRoot()
        guard abs(m - 1) < 0.05, abs(truth["pitch"]![k]) < 80 else { continue }
        var d = abs(ours["roll"]![k] - truth["roll"]![k]).truncatingRemainder(dividingBy: 360)
        if d > 180 { d = 360 - d }
        rollErrors.append(d)
        pitchErrors.append(abs(ours["pitch"]![k] - truth["pitch"]![k]))
      }
    }
    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    #expect(rollErrors.count > 10_000)
    #expect(median(rollErrors) < 4, "median roll error \(median(rollErrors))")
    #expect(median(pitchErrors) < 4, "median pitch error \(median(pitchErrors))")
  }
}
