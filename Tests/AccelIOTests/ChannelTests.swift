import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelIO

/// Traces with a gyroscope, a magnetometer and kept columns: mapping, units, conventions, every
/// reader and writer, recognition of known recorders from their headers, and gzip input.
@Suite struct ChannelTests {

  func recognising() throws -> TraceReadSettings { try TraceReadOptions().settings() }

  // MARK: - Real recordings, without --columns or --preset

  @Test
  func broadTrialsReadWithEveryChannelAsTheyAre() throws {
    let (block, source) = try readTrace(
      Paths.real("broad/02_undisturbed_slow_rotation_B.csv.gz"), try recognising())
    let m = source.metadata
    #expect(m.recognisedAs == "broad")
    #expect(m.layout == TraceLayout(hasGyroscope: true, hasMagnetometer: true))
    #expect(m.sourceUnits == .metersPerSecondSquared && m.sourceConvention == .specificForce)
    #expect(m.sourceGyroscopeUnits == .radiansPerSecond && m.sourceMagnetometerUnits == .microtesla)
    #expect(block.count == 53240)
    // First row: 0.0870,0.1129,9.8503 m/s^2 | 0.00320,0.00320,0.00000 rad/s | 0.406,16.163,-42.705 uT
    #expect(block.x[0] == -0.0870 / 9.80665 && block.z[0] == -9.8503 / 9.80665)
    let g = try #require(block.gyroscope)
    let mag = try #require(block.magnetometer)
    #expect([g.x[0], g.y[0], g.z[0]] == [0.0032, 0.0032, 0])
    #expect([mag.x[0], mag.y[0], mag.z[0]] == [0.406, 16.163, -42.705])
  }

  @Test
  func coreMotionAndSTLogsReadWithTheirGyroscope() throws {
    let (walk, source) = try readTrace(Paths.real("coremotion/walk_data.csv"), try recognising())
    #expect(source.metadata.recognisedAs == "coremotion")
    #expect(walk.x[0] == 0.488391 + -0.109668)  // gravity + userAcc
    #expect(walk.gyroscope?.x[0] == 0.337713)
    let (head, headSource) = try readTrace(Paths.real("st-mlc/shake2.txt"), try recognising())
    #expect(headSource.metadata.recognisedAs == "st-mlc")
    #expect(headSource.metadata.sourceGyroscopeUnits == .degreesPerSecond)
    #expect(head.t[1] == 1.0 / 30)
    #expect(head.gyroscope?.x[0] == 1.05 * (Double.pi / 180))
    #expect(head.x[0] == 203.984 / 1000)  // -203.984 mg, specific force negated
    // A log without a gyroscope has none.
    let (shake, _) = try readTrace(Paths.real("st-mlc/shake.csv"), try recognising())
    #expect(shake.gyroscope == nil)
  }

  // MARK: - The convention rule for the gyroscope, proved on real recordings

  /// Core Motion's attitude, gravity and rotationRate are one consistent solution: integrating
  /// rotationRate as read (about the device axes, not negated) from the attitude at k follows the
  /// attitude at k + 50 (0.5 s) within about a degree; negated, it is far off.
  @Test
  func coreMotionRotationRateFollowsTheAttitudeQuaternion() throws {
    var settings = try recognising()
    settings.keep = ["att_qw", "att_qx", "att_qy", "att_qz"].map { .name($0) }
    let (walk, source) = try readTrace(Paths.real("coremotion/walk_data.csv"), settings)
    #expect(source.metadata.layout.extras == ["att_qw", "att_qx", "att_qy", "att_qz"])
    let g = try #require(walk.gyroscope)
    func q(_ k: Int) -> Quaternion { Quaternion(walk.extras[0][k], walk.extras[1][k], walk.extras[2][k], walk.extras[3][k]) }
    func medianError(sign: Double) -> Double {
      var errors: [Double] = []
      var k = 0
      while k + 50 < walk.count {
        var p = q(k)
        for j in k..<(k + 50) {
          let dt = walk.t[j + 1] - walk.t[j]
          let w = [g.x[j] + g.x[j + 1], g.y[j] + g.y[j + 1], g.z[j] + g.z[j + 1]].map { sign * $0 / 2 * dt }
          p = p * Quaternion(rotationVector: w)
        }
        errors.append(p.angle(to: q(k + 50)))
        k += 50
      }
      return errors.sorted()[errors.count / 2]
    }
    let asRead = medianError(sign: 1)
    let negated = medianError(sign: -1)
    #expect(asRead < 1.5, "median error \(asRead) degrees over 0.5 s")
    #expect(negated > 30)
  }

  /// On BROAD (specific force, negated on the way in), the gyroscope as read turns the measured
  /// gravity direction the way it is measured to turn: for a world-fixed vector seen from the
  /// sensor, dv/dt = -w x v.
  @Test
  func broadGyroscopeTurnsTheAccelerometersGravity() throws {
    let (block, _) = try readTrace(
      Paths.real("broad/02_undisturbed_slow_rotation_B.csv.gz"), try recognising())
    let g = try #require(block.gyroscope)
    func unit(_ k: Int) -> [Double] {
      let v = [block.x[k], block.y[k], block.z[k]]
      let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
      return v.map { $0 / n }
    }
    func medianError(sign: Double) -> Double {
      var errors: [Double] = []
      let span = 143  // 0.5 s at 285.7 Hz
      var k = 5000
      while k + span < block.count {
        var v = unit(k)
        for j in k..<(k + span) {
          let dt = block.t[j + 1] - block.t[j]
          let w = [g.x[j], g.y[j], g.z[j]].map { sign * $0 }
          let c = [w[1] * v[2] - w[2] * v[1], w[2] * v[0] - w[0] * v[2], w[0] * v[1] - w[1] * v[0]]
          v = (0..<3).map { v[$0] - c[$0] * dt }
        }
        let u = unit(k + span)
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
        let cosine = (v[0] * u[0] + v[1] * u[1] + v[2] * u[2]) / n
        errors.append(acos(min(1, cosine)) * 180 / .pi)
        k += span
      }
      return errors.sorted()[errors.count / 2]
    }
    let asRead = medianError(sign: 1)
    let negated = medianError(sign: -1)
    #expect(asRead < 3, "median error \(asRead) degrees over 0.5 s")
    #expect(negated > 3 * asRead, "negated: \(negated) degrees")
  }

  // MARK: - Mapping, units, kept columns

  @Test func mapsEveryGroupByNameWithUnits() throws {
    let text = """
      time,ax,ay,az,G_X [dps],G_Y [dps],G_Z [dps],mag_x_nT,mag_y_nT,mag_z_nT,truth
      0,0,0,-1,180,0,-90,1000,2000,-3000,7
      0.01,0,0,-1,0,360,0,40000,0,0,

      """
    var settings = TraceReadSettings()
    settings.keep = [.name("truth")]
    let (block, source) = try readTrace(temporaryFile("imu.csv", text), settings)
    let m = source.metadata
    #expect(m.layout.columnNames == ["t", "x", "y", "z", "gx", "gy", "gz", "mx", "my", "mz", "truth"])
    #expect(m.sourceGyroscopeUnits == .degreesPerSecond && m.sourceMagnetometerUnits == .nanotesla)
    #expect(block.gyroscope?.x == [Double.pi, 0])
    #expect(block.gyroscope?.z == [-90 * (Double.pi / 180), 0])
    #expect(block.magnetometer?.x == [1, 40])
    #expect(block.extras[0][0] == 7 && block.extras[0][1].isNaN)  // an empty kept field is NaN
  }

  @Test func gyroscopeIsNotNegatedBySpecificForce() throws {
    var settings = TraceReadSettings()
    settings.convention = .specificForce
    let block = try readCSV("t,x,y,z,gx,gy,gz,mx,my,mz\n0,0,0,1,0.5,0,0,20,0,0\n", settings)
    #expect(block.z == [-1])
    #expect(block.gyroscope?.x == [0.5])
    #expect(block.magnetometer?.x == [20])
  }

  @Test func partialGroupsAndBadMappingsAreErrors() throws {
    var settings = TraceReadSettings()
    settings.columns = try ColumnSpec(parsing: "gx=4,gy=5")
    let error = accelError { _ = try readCSV("t,x,y,z,a,b,c\n0,0,0,1,1,2,3\n", settings) }
    #expect(error?.message == "--columns maps gx, gy but not gz: the gyroscope needs all three axes")
    #expect(error?.exitCode == 64)
    // Found by default names with an axis missing: the group is left out.
    let block = try readCSV("t,x,y,z,gx,gy\n0,0,0,1,1,2\n")
    #expect(block.gyroscope == nil)
    #expect(throws: AccelError.self) { try ColumnSpec(parsing: "q=1") }
  }

  @Test func unitChoicesAndAnnotations() {
    #expect(AngularRateUnit.annotation(in: "rotRate_x_rps") == .radiansPerSecond)
    #expect(AngularRateUnit.annotation(in: "Gyroscope x (rad/s)") == .radiansPerSecond)
    #expect(AngularRateUnit.annotation(in: "G_X [dps]") == .degreesPerSecond)
    #expect(AngularRateUnit.annotation(in: "gyr_x") == nil)
    #expect(MagneticFieldUnit.annotation(in: "mag_x_uT") == .microtesla)
    #expect(MagneticFieldUnit.annotation(in: "Magnetic field x (µT)") == .microtesla)
    #expect(MagneticFieldUnit.annotation(in: "MX [nT]") == .nanotesla)
    #expect(MagneticFieldUnit.annotation(in: "mag_x_gauss") == .gauss)
    #expect(UnitChoice<MagneticFieldUnit>(name: "gauss") == .fixed(.gauss))
    #expect(MagneticFieldUnit.gauss.toInternal.apply(0.5) == 50)
    #expect(UnitChoice<AngularRateUnit>(name: "furlongs") == nil)
  }

  // MARK: - Writers and round trips

  func imuBlock(_ n: Int) -> SampleBlock {
    var rng = SeededRandom(seed: 3)
    func column() -> [Double] { (0..<n).map { _ in Double.random(in: -3...3, using: &rng) } }
    return SampleBlock(
      t: (0..<n).map { Double($0) / 100 }, x: column(), y: column(), z: column(),
      gyroscope: AxisColumns(x: column(), y: column(), z: column()),
      magnetometer: AxisColumns(x: column(), y: column(), z: column()), extras: [column()])
  }

  func write(_ block: SampleBlock, layout: TraceLayout, format: TraceFormat, raw: RawLayout? = nil, precision: SamplePrecision = .float64) throws -> String {
    let path = Paths.temporaryDirectory() + "/imu." + format.rawValue
    let output = try OutputFile(path: path, needsSeek: format == .npy)
    let sink = try TraceWriters.make(format: format, output: output, precision: precision, layout: layout, rawLayout: raw)
    try sink.write(block.slice(0..<3))
    try sink.write(block.slice(3..<block.count))
    try sink.finish()
    return path
  }

  @Test func everyFormatRoundTripsEveryChannelExactly() throws {
    let block = imuBlock(700)
    let layout = TraceLayout(hasGyroscope: true, hasMagnetometer: true, extras: ["truth"])
    var keep = TraceReadSettings()
    keep.keep = [.name("truth")]
    for format in [TraceFormat.csv, .tsv, .npy] {
      let path = try write(block, layout: layout, format: format)
      let (back, source) = try readTrace(path, keep)
      #expect(source.metadata.layout == layout, "\(format)")
      #expect(back == block, "\(format)")
    }
    var raw = TraceReadSettings()
    raw.rawLayout = try #require(RawLayout(parsing: "t,acc,gyro,mag"))
    let path = try write(block, layout: layout, format: .raw)
    let (back, _) = try readTrace(path, raw)
    #expect(back.gyroscope == block.gyroscope && back.magnetometer == block.magnetometer && back.x == block.x)
    // A raw layout that drops groups and time.
    raw.rawLayout = try #require(RawLayout(parsing: "x,y,z,gx,gy,gz"))
    raw.rate = 100
    let gyroOnly = try write(block, layout: layout, format: .raw, raw: raw.rawLayout, precision: .float32)
    raw.rawPrecision = .float32
    let (small, source) = try readTrace(gyroOnly, raw)
    #expect(source.metadata.layout == TraceLayout(hasGyroscope: true))
    #expect(small.gyroscope?.z == block.gyroscope!.z.map { Double(Float($0)) })
    #expect(small.magnetometer == nil)
  }

  @Test func rawLayoutsParseAndRefuse() {
    #expect(RawLayout(parsing: "txyz") == .txyz)
    #expect(RawLayout(parsing: "t,acc,gyro")?.channels == [.t, .x, .y, .z, .gx, .gy, .gz])
    #expect(RawLayout(parsing: "t,acc,gyro")?.description == "t,x,y,z,gx,gy,gz")
    #expect(RawLayout.problem(with: "t,x,y") == "the raw layout \"t,x,y\" needs the accelerometer's x, y and z")
    #expect(RawLayout.problem(with: "acc,gx") == "the raw layout \"acc,gx\" has only some axes of the gyroscope")
    #expect(RawLayout.problem(with: "acc,acc") == "the raw layout \"acc,acc\" names a channel twice")
    #expect(RawLayout(parsing: "t,acc,temperature") == nil)
  }

  @Test func numpyReadsNamedFieldsForEveryChannel() throws {
    let python = try #require(
      pythonWithNumpy(), Comment(rawValue: Tools.missing("python3 with numpy", package: "python3 and numpy")))
    let block = imuBlock(50)
    let path = try write(block, layout: TraceLayout(hasGyroscope: true, hasMagnetometer: true), format: .npy)
    let script = """
      import numpy as np, sys
      a = np.load(sys.argv[1])
      assert a.dtype.names == ('t', 'x', 'y', 'z', 'gx', 'gy', 'gz', 'mx', 'my', 'mz'), a.dtype
      print(','.join(repr(float(v)) for v in a['gy']))
      """
    let out = try run(python, ["-c", script, path])
    #expect(out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map { Double($0)! } == block.gyroscope!.y)
  }

  // MARK: - gzip

  func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let path = temporaryFile("plain", bytes)
    _ = try run("/bin/sh", ["-c", "gzip -c -n '\(path)' > '\(path).gz'"])
    return try #require(readFile(path + ".gz"))
  }

  @Test func gzipInputReadsLikeThePlainFile() throws {
    var text = "t,x,y,z,gx,gy,gz\n"
    for i in 0..<40_000 { text += "\(Double(i) / 100),\(i % 7),-\(i % 3).25,1e-3,\(i % 11),0.5,-0.5\n" }
    let plain = try readCSV(text)
    let compressed = try gzip(Array(text.utf8))
    for name in ["trace.csv.gz", "trace.csv"] {
      for buffer in [1 << 20, 4096] {
        var settings = TraceReadSettings()
        settings.readBufferSize = buffer  // 4096: the file is many chunks, read ahead (inflated on the second thread)
        settings.blockSize = 777
        let back = try readTrace(temporaryFile(name, compressed), settings).0
        #expect(back == plain, "\(name), \(buffer)")
      }
    }
    // Two members concatenated are one stream (as gzip -d reads them); NPY inside gzip too.
    let half = text.count / 2
    let cut = text.index(text.startIndex, offsetBy: half)
    let lineEnd = text[cut...].firstIndex(of: "\n")!
    let first = String(text[...lineEnd])
    let second = String(text[text.index(after: lineEnd)...])
    let joined = try gzip(Array(first.utf8)) + (try gzip(Array(second.utf8)))
    #expect(try readTrace(temporaryFile("two.gz", joined)).0 == plain)
  }

  @Test func corruptOrTruncatedGzipIsADataError() throws {
    let compressed = try gzip(Array(("t,x,y,z\n" + (0..<5000).map { "\($0),1,2,3\n" }.joined()).utf8))
    let cut = temporaryFile("cut.csv.gz", Array(compressed.prefix(compressed.count - 12)))
    let truncated = accelError { _ = try readTrace(cut) }
    #expect(truncated?.exitCode == 65)
    #expect(truncated?.message.hasSuffix(": the gzip data ends before the end of its stream: the file is cut short") == true)
    var damaged = compressed
    for i in 20..<40 { damaged[i] ^= 0x5A }
    let bad = accelError { _ = try readTrace(temporaryFile("bad.csv.gz", damaged)) }
    #expect(bad?.exitCode == 65)
    #expect(bad?.message.contains("bad.csv.gz: byte ") == true && bad?.message.contains(": the gzip data is corrupt (") == true, "\(bad?.message ?? "")")
    let trailing = accelError { _ = try readTrace(temporaryFile("junk.csv.gz", compressed + Array("junk".utf8))) }
    #expect(trailing?.message.hasSuffix("junk.csv.gz: byte \(compressed.count): unexpected bytes after the end of the gzip stream") == true)
    #expect(try readTrace(temporaryFile("zeros.csv.gz", compressed + [0, 0, 0])).0.count == 5000)
  }
}

/// A unit quaternion (Hamilton, scalar first), for the convention checks.
struct Quaternion {
  var w, x, y, z: Double
  init(_ w: Double, _ x: Double, _ y: Double, _ z: Double) { (self.w, self.x, self.y, self.z) = (w, x, y, z) }

  /// The rotation by |v| radians about v.
  init(rotationVector v: [Double]) {
    let angle = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot()
    guard angle > 1e-15 else {
      self.init(1, 0, 0, 0)
      return
    }
    let s = sin(angle / 2) / angle
    self.init(cos(angle / 2), v[0] * s, v[1] * s, v[2] * s)
  }

  static func * (a: Quaternion, b: Quaternion) -> Quaternion {
    Quaternion(
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
  }

  /// The angle in degrees between the rotations.
  func angle(to o: Quaternion) -> Double {
    let norm = (w * w + x * x + y * y + z * z).squareRoot() * (o.w * o.w + o.x * o.x + o.y * o.y + o.z * o.z).squareRoot()
    let d = abs(w * o.w + x * o.x + y * o.y + z * o.z) / norm
    return 2 * acos(min(1, d)) * 180 / .pi
  }
}
