import AccelCore
import AccelOrientation
import Foundation
import TestSupport
import Testing

/// Reference attitudes from scripts/make_attitude_references.py (the vqf and ahrs packages; their
/// versions are inside the file) on a synthetic 30 s IMU recording at 100 Hz.
enum AttitudeReferences {
  nonisolated(unsafe) static let document: [String: Any] = {
    let data = FileManager.default.contents(atPath: Paths.fixture("attitude/references.json"))!
    return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
  }()

  static func rows(_ value: Any?) -> [[Double]] { (value as! [[String]]).map { $0.map { Double($0)! } } }
  static func vectors(_ key: String) -> [Vector3] { rows(document[key]).map { Vector3($0[0], $0[1], $0[2]) } }
  static func output(_ key: String) -> [[Double]] {
    let outputs = document["outputs"] as! [String: Any]
    if let flat = outputs[key] as? [String] { return flat.map { [Double($0)!] } }
    return rows(outputs[key])
  }
  static func quaternions(_ key: String) -> [Quaternion] {
    output(key).map { Quaternion($0[0], $0[1], $0[2], $0[3]) }
  }

  static let rate = Double(document["rate"] as! String)!
  static let gyroscope = vectors("gyroscope")
  static let force = vectors("specific_force")
  static let field = vectors("magnetometer")

  /// Runs `filter` over the recording at the fixed interval, returning the attitude after each sample.
  static func run<F: AttitudeFilter>(
    _ filter: inout F, magnetometer: Bool, read: (F) -> Quaternion = { $0.attitude }
  ) -> [Quaternion] {
    var out: [Quaternion] = []
    for i in gyroscope.indices {
      filter.update(
        AttitudeSample(
          gyroscope: gyroscope[i], specificForce: force[i], magnetometer: magnetometer ? field[i] : nil,
          interval: 1 / rate))
      out.append(read(filter))
    }
    return out
  }

  /// The recording as one block in accelkit's units (g, Apple's convention; rad/s; µT).
  static func block() -> SampleBlock {
    var all = SampleBlock(
      layout: TraceLayout(hasGyroscope: true, hasMagnetometer: true), capacity: gyroscope.count)
    var g = AxisColumns(x: [], y: [], z: [])
    var m = g
    for i in gyroscope.indices {
      all.t.append(Double(i) / rate)
      all.x.append(-force[i].x / 9.80665)
      all.y.append(-force[i].y / 9.80665)
      all.z.append(-force[i].z / 9.80665)
      g.x.append(gyroscope[i].x)
      g.y.append(gyroscope[i].y)
      g.z.append(gyroscope[i].z)
      m.x.append(field[i].x)
      m.y.append(field[i].y)
      m.z.append(field[i].z)
    }
    all.gyroscope = g
    all.magnetometer = m
    return all
  }

  /// The largest component difference, the quaternions' signs aligned.
  static func worst(_ a: [Quaternion], _ b: [Quaternion]) -> Double {
    zip(a, b).map { p, q in
      let d1 = max(abs(p.w - q.w), abs(p.x - q.x), abs(p.y - q.y), abs(p.z - q.z))
      let d2 = max(abs(p.w + q.w), abs(p.x + q.x), abs(p.y + q.y), abs(p.z + q.z))
      return min(d1, d2)
    }.max()!
  }
}

@Suite struct AttitudeReferenceTests {
  typealias R = AttitudeReferences

  @Test func theRecordingIsWhatTheScriptWrote() {
    #expect(R.gyroscope.count == 3000 && R.force.count == 3000 && R.field.count == 3000)
    #expect(R.rate == 100)
  }

  /// VQF against the `vqf` package (its C++ core), every sample, with and without the magnetometer,
  /// and its bias estimate, rest and disturbance flags. The arithmetic is the same; what differs
  /// is rounding (the 3x3 inverse by the adjugate rather than LU); measured: below 1e-16 over the
  /// 3000 samples. Madgwick and Mahony agree with ahrs to about 2e-15.
  @Test func vqfMatchesTheVqfPackage() {
    var filter = VQFFilter(interval: 1 / R.rate, configuration: VQFConfiguration())
    var sixD: [Quaternion] = []
    var nineD: [Quaternion] = []
    var bias: [Vector3] = []
    var rest: [Bool] = []
    var disturbed: [Bool] = []
    for i in R.gyroscope.indices {
      filter.update(
        AttitudeSample(
          gyroscope: R.gyroscope[i], specificForce: R.force[i], magnetometer: R.field[i], interval: 1 / R.rate
        ))
      sixD.append(filter.attitude6D)
      nineD.append(filter.attitude)
      bias.append(filter.gyroscopeBias)
      rest.append(filter.isAtRest)
      disturbed.append(filter.isMagneticallyDisturbed)
    }
    let worst6 = R.worst(sixD, R.quaternions("vqf_6d"))
    let worst9 = R.worst(nineD, R.quaternions("vqf_9d"))
    #expect(worst6 < 1e-13, "6D: \(worst6)")
    #expect(worst9 < 1e-13, "9D: \(worst9)")
    let theirBias = R.output("vqf_bias")
    let worstBias = zip(bias, theirBias).map { max(abs($0.x - $1[0]), abs($0.y - $1[1]), abs($0.z - $1[2])) }
      .max()!
    #expect(worstBias < 1e-15, "bias: \(worstBias)")
    #expect(rest == R.output("vqf_rest").map { $0[0] != 0 })
    #expect(disturbed == R.output("vqf_mag_disturbed").map { $0[0] != 0 })
    // The recording has rest, so the filter must have found it and the injected bias.
    #expect(rest.contains(true) && disturbed.contains(true))
    let last = bias.last!
    #expect(
      abs(last.x - 0.011) < 0.002 && abs(last.y + 0.007) < 0.002 && abs(last.z - 0.004) < 0.002, "\(last)")
  }

  @Test func madgwickMatchesAhrs() {
    var six = MadgwickFilter(interval: 1 / R.rate, configuration: MadgwickConfiguration())
    let w6 = R.worst(R.run(&six, magnetometer: false), R.quaternions("madgwick_6d"))
    var nine = MadgwickFilter(interval: 1 / R.rate, configuration: MadgwickConfiguration())
    let w9 = R.worst(R.run(&nine, magnetometer: true), R.quaternions("madgwick_9d"))
    #expect(w6 < 1e-12, "IMU: \(w6)")
    #expect(w9 < 1e-12, "MARG: \(w9)")
  }

  @Test func mahonyMatchesAhrs() {
    var six = MahonyFilter(interval: 1 / R.rate, configuration: MahonyConfiguration())
    let w6 = R.worst(R.run(&six, magnetometer: false), R.quaternions("mahony_6d"))
    var nine = MahonyFilter(interval: 1 / R.rate, configuration: MahonyConfiguration())
    let w9 = R.worst(R.run(&nine, magnetometer: true), R.quaternions("mahony_9d"))
    #expect(w6 < 1e-12, "IMU: \(w6)")
    #expect(w9 < 1e-12, "MARG: \(w9)")
  }
}

@Suite struct OfflineVQFReferenceTests {
  typealias R = AttitudeReferences

  /// The fixture recording as blocks of `size` samples.
  static func blocks(size: Int) -> [SampleBlock] {
    let all = R.block()
    return stride(from: 0, to: all.count, by: size).map { all.slice($0..<min(all.count, $0 + size)) }
  }

  static func run(magnetometer: Bool, blockSize: Int, chunk: Int) throws -> [Quaternion] {
    let offline = OfflineVQF(
      configuration: VQFConfiguration(), interval: 1 / R.rate, magnetometer: magnetometer, chunk: chunk)
    var pending = blocks(size: blockSize)[...]
    var out: [Quaternion] = []
    try offline.run(store: MemoryStore(), next: { pending.popFirst() }) { _, qs in out += qs }
    return out
  }

  /// The offline variant against the `vqf` package's offlineVQF, 9D and 6D: the same passes, the
  /// same arithmetic up to rounding (and the input's round trip through g); measured 1.2e-14.
  @Test func offlineMatchesTheVqfPackage() throws {
    let nine = try Self.run(magnetometer: true, blockSize: 3000, chunk: 8192)
    let six = try Self.run(magnetometer: false, blockSize: 3000, chunk: 8192)
    #expect(nine.count == 3000 && six.count == 3000)
    let w9 = R.worst(nine, R.quaternions("offline_vqf_9d"))
    let w6 = R.worst(six, R.quaternions("offline_vqf_6d_no_mag"))
    #expect(w9 < 1e-12, "9D: \(w9)")
    #expect(w6 < 1e-12, "6D: \(w6)")
  }

  /// Blocks and store chunks of any size give the same bits (chunks of 700 and 1 records cross
  /// every pass's chunk boundary in both directions).
  @Test func chunkSizesDoNotMatter() throws {
    let reference = try Self.run(magnetometer: true, blockSize: 3000, chunk: 8192)
    #expect(try Self.run(magnetometer: true, blockSize: 97, chunk: 700) == reference)
    #expect(try Self.run(magnetometer: true, blockSize: 1000, chunk: 1) == reference)
  }
}
