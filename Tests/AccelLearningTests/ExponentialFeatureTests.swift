import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelLearning

#if canImport(Glibc)
  import Glibc
#endif

/// Exponential features: the averages worked by hand, the bands' filters against scipy's
/// Butterworth designs, the rows' properties (chunking, missing gyroscope, gaps) and the JSON.
@Suite struct ExponentialFeatureTests {
  /// The update's kernel built for AVX2 (where this processor has it) and for the baseline give
  /// the same bits: ten signals, five widths and five bands (vectors partly filled), attitude
  /// averages, values of every size with missing ones, 20,000 samples, every row compared.
  @Test func theKernelsBuildsAgreeBitForBit() throws {
    var spec = Self.spec(
      widths: [0.25, 1, 2, 4, 16], gyroscope: true, attitude: true, shape: true, swing: true)
    spec.bands.append(FeatureSpec.FrequencyBand(16, 20))
    var wide = ExponentialFeatures(spec: spec)
    var narrow = ExponentialFeatures(spec: spec)
    narrow.baseline = true
    var random = SeededRandom(seed: 5)
    var rows = (
      [Double](repeating: 0, count: spec.names.count), [Double](repeating: 0, count: spec.names.count)
    )
    var compared = 0
    for k in 0..<20_000 {
      let scale = pow(10, random.uniform(-3, 1))
      let values = (0..<16).map { j -> Double in
        random.chance(0.01) ? .nan : (j >= 10 ? random.uniform(-1, 1) : scale * random.normal())
      }
      values.withUnsafeBufferPointer {
        wide.update($0, first: k % 5000 == 0)
        narrow.update($0, first: k % 5000 == 0)
      }
      guard k % 7 == 0 else { continue }
      wide.write(into: &rows.0, hasGyroscope: true)
      narrow.write(into: &rows.1, hasGyroscope: true)
      #expect(zip(rows.0, rows.1).allSatisfy { $0.bitPattern == $1.bitPattern }, "sample \(k)")
      compared += 1
    }
    #expect(compared > 2800)
  }

  static func spec(
    widths: [Double] = [1, 4], gyroscope: Bool = false, attitude: Bool = false, shape: Bool = false,
    swing: Bool = false
  ) -> FeatureSpec {
    var spec = FeatureSpec()
    spec.kind = .exponential
    spec.widthsSeconds = widths
    spec.gyroscope = gyroscope
    spec.attitude = attitude
    spec.shape = shape
    spec.swing = swing
    return spec
  }

  /// The band-pass of a band from `low` is scipy's `butter(1, [low, high], 'bandpass', fs=rate)`
  /// and the low-pass of a band from 0 its `butter(2, high, fs=rate)`, to rounding
  /// (Tests/Fixtures/filters/butter_sos.json, scripts/make_filter_references.py).
  @Test func bandFiltersAreScipysButterworthDesigns() throws {
    let data = try #require(FileManager.default.contents(atPath: Paths.fixture("filters/butter_sos.json")))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let designs = try #require(root["designs"] as? [[String: Any]])
    var compared = 0
    for d in designs {
      let order = d["order"] as! Int
      let kind = d["band"] as! String
      let rate = d["rate"] as! Double
      let cutoff = d["cutoff"] as! Double
      var spec = FeatureSpec()
      spec.rateHz = rate
      if kind == "bandpass" && order == 1 {
        spec.bands = [FeatureSpec.FrequencyBand(cutoff, d["cutoff_high"] as! Double)]
      } else if kind == "low" && order == 2 {
        spec.bands = [FeatureSpec.FrequencyBand(0, cutoff)]
      } else {
        continue
      }
      let sos = (d["sos"] as! [[String]]).map { $0.map { Double($0)! } }
      #expect(sos.count == 1 && sos[0][3] == 1)
      let f = spec.bandFilters[0]
      for (ours, theirs) in zip(
        [f.b0, f.b1, f.b2, f.a1, f.a2], [sos[0][0], sos[0][1], sos[0][2], sos[0][4], sos[0][5]])
      {
        #expect(
          abs(ours - theirs) <= 1e-12 * max(1, abs(theirs)), "\(d["band"]!) \(cutoff) \(rate): \(f) vs \(sos)"
        )
      }
      compared += 1
    }
    #expect(compared == 20)
  }

  /// Two values fed by hand (1 then 3, weight a): mean 1 + 2a, variance (1 - a) a 4, energy
  /// 1 + 8a, envelope and maximum 3, minimum the first value decayed, 1 - a, jerk ratio
  /// sqrt(a 4 / variance); a third value far below the mean is a crossing: rate a * 50.
  @Test func theAveragesWorkedByHand() {
    let spec = Self.spec(widths: [1])
    var state = ExponentialFeatures(spec: spec)
    let a = spec.exponentialWeights[0]
    #expect(abs(a - (1 - exp(-0.02 / 0.5))) < 1e-15)
    func feed(_ v: Double, first: Bool = false) {
      let values = [Double](repeating: v, count: 6)
      values.withUnsafeBufferPointer { state.update($0, first: first) }
    }
    func row() -> [Double] {
      var row = [Double](repeating: 0, count: spec.names.count)
      state.write(into: &row, hasGyroscope: false)
      return row
    }
    func value(_ row: [Double], _ name: String) -> Double { row[spec.names.firstIndex(of: name)!] }
    feed(1, first: true)
    feed(3)
    var r = row()
    #expect(abs(value(r, "e1_x_mean") - (1 + 2 * a)) < 1e-15)
    #expect(abs(value(r, "e1_x_variance") - (1 - a) * a * 4) < 1e-15)
    #expect(abs(value(r, "e1_x_energy") - (1 + 8 * a)) < 1e-14)
    #expect(value(r, "e1_x_envelope") == 3)
    #expect(value(r, "e1_x_maximum") == 3 && value(r, "e1_x_minimum") == 1 - a)
    // The steps' energy a 2^2 over the variance (1 - a) a 4.
    #expect(abs(value(r, "e1_x_jerk_ratio") - (1 / (1 - a)).squareRoot()) < 1e-12)
    #expect(value(r, "e1_x_crossing_rate") == 0)
    // Every axis moved alike: covariance equals variance, correlation 1, one line.
    #expect(abs(value(r, "e1_correlation_xy") - 1) < 1e-12)
    #expect(abs(value(r, "e1_linearity") - 1) < 1e-12)
    feed(-5)
    r = row()
    #expect(abs(value(r, "e1_x_crossing_rate") - a * 50) < 1e-12)
    #expect(value(r, "e1_x_envelope") == 5)
  }

  /// A 4 Hz back-and-forth of amplitude A along x, worked by hand: variance and energy A^2/2, a
  /// mean that ripples by A / (2 pi 4 tau) at most (tau = 2 s), 8 crossings a second, a jerk ratio
  /// of 2 sin(pi 4 / rate), extremes of +-A decayed for at most a period, an envelope
  /// between A exp(-1 / (8 tau)) and A (tau = 0.5 s, a peak every 1/8 s), each band's share its
  /// filter's power gain at 4 Hz, one line.
  @Test func aSineHasTheFeaturesWorkedByHand() throws {
    let amplitude = 1.5
    let spec = Self.spec()
    let block = makeTrace(seconds: 20, rate: 100) { amplitude * sin(2 * .pi * 4 * $0) }
    let last = try rows(spec, block).last!.2
    func value(_ name: String) -> Double { last[spec.names.firstIndex(of: name)!] }
    let power = amplitude * amplitude / 2
    #expect(abs(value("e4_x_variance") - power) < 0.05 * power)
    #expect(abs(value("e4_x_energy") - power) < 0.05 * power)
    #expect(abs(value("e4_x_mean")) <= amplitude / (2 * .pi * 4 * 2))
    #expect(abs(value("e4_x_crossing_rate") - 8) <= 0.3)
    #expect(abs(value("e4_x_jerk_ratio") - 2 * sin(.pi * 4 / spec.rateHz)) < 0.02)
    // An extreme comes once a period (1/4 s) and decays by exp(-1/2) until the next.
    let (high, low) = (value("e1_x_maximum"), value("e1_x_minimum"))
    #expect(high >= amplitude * exp(-0.5) && high <= amplitude + 1e-9)
    #expect(low <= -amplitude * exp(-0.5) && low >= -amplitude - 1e-9)
    let envelope = value("e1_x_envelope")
    #expect(envelope >= amplitude * exp(-1 / (8 * 0.5)) && envelope <= amplitude + 1e-9)
    let omega = 2 * Double.pi * 4 / spec.rateHz
    for (band, f) in zip(spec.bands, spec.bandFilters) {
      // |H(e^{i w})|^2 of b0 + b1 z^-1 + b2 z^-2 over 1 + a1 z^-1 + a2 z^-2.
      func squared(_ c0: Double, _ c1: Double, _ c2: Double) -> Double {
        let re = c0 + c1 * cos(omega) + c2 * cos(2 * omega)
        let im = -c1 * sin(omega) - c2 * sin(2 * omega)
        return re * re + im * im
      }
      let gain = squared(f.b0, f.b1, f.b2) / squared(1, f.a1, f.a2)
      let name = "e4_x_band_\(formatNumber(band.low))_\(formatNumber(band.high))_hz"
      #expect(abs(value(name) - gain) < 0.05, "\(name): \(value(name)) against a gain of \(gain)")
    }
    // 4 Hz is where both of its bands give half the power.
    #expect(value("e4_x_band_2_4_hz") > 0.45 && value("e4_x_band_4_8_hz") > 0.45)
    #expect(value("e4_linearity") > 0.999)
    #expect(value("e4_vert_variance") < 1e-3)
  }

  /// Block boundaries change nothing, and a trace without a gyroscope has its features missing
  /// (its shape features too).
  @Test(arguments: [[1], [7, 3, 50], [1000, 1]])
  func chunkedEqualsOneShot(chunks: [Int]) throws {
    let spec = Self.spec(widths: [0.5, 2], gyroscope: true, attitude: true, shape: true, swing: true)
    let block = makeTrace(seconds: 12, rate: 97, jitter: 0.2, gyro: true) { 0.8 * sin(2 * .pi * 4 * $0) }
    let whole = try rows(spec, block)
    let pieces = try rows(spec, block, chunks: chunks)
    #expect(whole.count == pieces.count && whole.count > 100)
    for (a, b) in zip(whole, pieces) {
      #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2)
    }
    let without = try rows(spec, makeTrace(seconds: 5, rate: 50) { 0.2 * sin($0) })
    for (k, name) in spec.names.enumerated() {
      let gyroscope = ["_gx_", "_gy_", "_gz_", "_gnorm_"].contains { name.contains($0) }
      #expect(without.allSatisfy { gyroscope ? $0.2[k].isNaN : $0.2[k].isFinite }, "\(name)")
    }
  }

  /// Widths and bands are kept four to a vector: five of each (two vectors, the second padded)
  /// give every width the values it has alone, bit for bit, the bands and attitude included.
  @Test func eachWidthIsWhatItIsAlone() throws {
    let widths = [0.25, 0.5, 1, 2, 4]
    var spec = Self.spec(widths: widths, gyroscope: true, attitude: true, shape: true, swing: true)
    spec.bands = [
      FeatureSpec.FrequencyBand(0, 1), FeatureSpec.FrequencyBand(1, 2), FeatureSpec.FrequencyBand(2, 4),
      FeatureSpec.FrequencyBand(4, 8), FeatureSpec.FrequencyBand(8, 16),
    ]
    var together = ExponentialFeatures(spec: spec)
    var alone = widths.map { width -> (FeatureSpec, ExponentialFeatures) in
      var one = spec
      one.widthsSeconds = [width]
      return (one, ExponentialFeatures(spec: one))
    }
    var generator = SeededGenerator(seed: 5)
    var row = [Double](repeating: 0, count: spec.names.count)
    let columns = Dictionary(uniqueKeysWithValues: spec.names.enumerated().map { ($1, $0) })
    var differing: [String] = []
    for n in 0..<600 {
      // Ten signals of noise and a sine, then six directions' components; one value in 50
      // missing, as a gap in the gyroscope is, and a direction now and then.
      let values = (0..<16).map { s -> Double in
        if n % 50 == 7 && (s == 8 || s == 13) { return .nan }
        return sin(Double(n * (s + 1)) * 0.05) + Double.random(in: -0.5...0.5, using: &generator)
      }
      values.withUnsafeBufferPointer { v in
        together.update(v, first: n == 0)
        for k in alone.indices { alone[k].1.update(v, first: n == 0) }
      }
      guard n % 7 == 0 else { continue }
      together.write(into: &row, hasGyroscope: true)
      for (one, state) in alone {
        var single = [Double](repeating: 0, count: one.names.count)
        state.write(into: &single, hasGyroscope: true)
        for (k, name) in one.names.enumerated() where row[columns[name]!] != single[k] {
          differing.append("\(name) after \(n) samples: \(row[columns[name]!]) against \(single[k])")
        }
      }
    }
    let count = differing.count
    #expect(count == 0, "\(count) values differ, first \(differing.first ?? "")")
  }

  /// The attitude features worked by hand: user acceleration along gravity has a vertical share
  /// near 1, across it near 0; a reading that points one way has no direction spread, one that
  /// turns between two perpendicular directions a spread of 1 - sqrt(1/2) (its average direction
  /// halfway between); a device tilted back and forth by 60 degrees spreads gravity's direction,
  /// one held still does not.
  @Test func theAttitudeFeaturesWorkedByHand() throws {
    let spec = Self.spec(widths: [1, 16], attitude: true)
    func last(_ t: (Double) -> (Double, Double, Double)) throws -> (String) -> Double {
      var block = SampleBlock(capacity: 1500)
      for n in 0..<1500 {
        let time = Double(n) / 50
        let (x, y, z) = t(time)
        block.append(t: time, x: x, y: y, z: z)
      }
      let row = try rows(spec, block).last!.2
      return { row[spec.names.firstIndex(of: $0)!] }
    }
    let shake = { (t: Double) in 0.5 * sin(2 * Double.pi * 3 * t) }
    let along = try last { (0, 0, -1 + shake($0)) }
    let across = try last { (shake($0), 0, -1) }
    #expect(along("e1_vertical_share") > 0.95 && across("e1_vertical_share") < 0.05)
    let still = try last { _ in (0.1, 0.2, -0.97) }
    #expect(still("e16_direction_spread") < 1e-15 && still("e16_attitude_spread") < 1e-15)
    #expect(still("e16_vertical_share") == 0)
    let turning = try last { t in Int(t * 50 + 0.5) % 2 == 0 ? (1, 0, 0) : (0, 1, 0) }
    #expect(abs(turning("e16_direction_spread") - (1 - 0.5.squareRoot())) < 0.01)
    let tilting = try last { t in
      let angle = Double.pi / 3 * sin(2 * Double.pi * 0.2 * t)
      return (sin(angle), 0, -cos(angle))
    }
    #expect(
      tilting("e16_attitude_spread") > 0.05 && tilting("e1_attitude_spread") < tilting("e16_attitude_spread"))
  }

  /// The shape features worked by hand: after the readings 1 then 3, the crest factor is the
  /// envelope 3 over the root of the energy 1 + 8a, the asymmetry (3 + (1 - a) - 2 (1 + 2a)) /
  /// (3 - (1 - a)); a steady sine has a crest factor near sqrt(2) and no asymmetry; spikes
  /// between quiet (a clap, a landing) have a crest factor past 2.5 and an asymmetry toward 1, or
  /// toward -1 upside down; a constant has neither; and a stronger copy has the same.
  @Test func theShapeFeaturesWorkedByHand() throws {
    let two = Self.spec(widths: [1], shape: true)
    var state = ExponentialFeatures(spec: two)
    for (v, first) in [(1.0, true), (3.0, false)] {
      let values = [Double](repeating: v, count: 6)
      values.withUnsafeBufferPointer { state.update($0, first: first) }
    }
    var row = [Double](repeating: 0, count: two.names.count)
    state.write(into: &row, hasGyroscope: false)
    let a = two.exponentialWeights[0]
    let crest = row[two.names.firstIndex(of: "e1_x_crest")!]
    let asymmetry = row[two.names.firstIndex(of: "e1_x_asymmetry")!]
    #expect(abs(crest - 3 / (1 + 8 * a).squareRoot()) < 1e-12)
    #expect(abs(asymmetry - (2 - 5 * a) / (2 + a)) < 1e-12)
    #expect(two.names.suffix(2) == ["e1_horiz_crest", "e1_horiz_asymmetry"])

    let spec = Self.spec(widths: [1, 4], shape: true)
    func last(_ motion: @escaping (Double) -> Double) throws -> (String) -> Double {
      let row = try rows(spec, makeTrace(seconds: 20, rate: 100, shake: motion)).last!.2
      return { row[spec.names.firstIndex(of: $0)!] }
    }
    let sine = try last { 1.5 * sin(2 * .pi * 4 * $0) }
    #expect(abs(sine("e4_x_crest") - 2.0.squareRoot()) < 0.1, "\(sine("e4_x_crest"))")
    #expect(abs(sine("e4_x_asymmetry")) < 0.05, "\(sine("e4_x_asymmetry"))")
    // A 20 ms spike of 2 g every half second.
    let spike = { (t: Double) in t.truncatingRemainder(dividingBy: 0.5) < 0.02 ? 2.0 : 0 }
    let spikes = try last(spike)
    #expect(spikes("e4_x_crest") > 2.5 && spikes("e4_x_asymmetry") > 0.7, "\(spikes("e4_x_crest"))")
    let down = try last { -spike($0) }
    #expect(abs(down("e4_x_crest") - spikes("e4_x_crest")) < 1e-9)
    #expect(abs(down("e4_x_asymmetry") + spikes("e4_x_asymmetry")) < 1e-9)
    let still = try last { _ in 0 }
    #expect(still("e4_x_crest") == 0 && still("e4_x_asymmetry") == 0)
    let stronger = try last { 3 * sin(2 * .pi * 4 * $0) }
    #expect(abs(stronger("e4_x_crest") - sine("e4_x_crest")) < 1e-6)
    #expect(abs(stronger("e4_x_asymmetry") - sine("e4_x_asymmetry")) < 1e-6)
  }

  /// The swing features worked by hand: a shake of 1.5 g at 3 Hz along any direction has six
  /// counted half-swings a second (the 4 s width's rate within a tenth of it after 14 s of
  /// shaking, the 16 s width's within 0.15 after 40 s) and its peaks are as large each way (a
  /// balance past 0.9); the same at 0.9 g (past the rule's 0.7 g); under 0.7 g, or at 0.8 Hz (half-swings of 0.625 s, longer than the
  /// rule's 0.5 s), none counts; gait's strides (a sharp landing, then a long shallow phase)
  /// count one way only (a balance under 0.1); at rest there is nothing; and a gap of two
  /// seconds starts them afresh (the rows after it, at rest, have none).
  @Test func theSwingFeaturesWorkedByHand() throws {
    let spec = Self.spec(widths: [1, 4, 16], swing: true)
    // A counted half-swing's samples: at 50 Hz 3 (0.06 s, the first past 1/24 s) to 25 (0.5 s);
    // at any rate the fewest and most whose duration on the grid is within the bounds.
    #expect(spec.swingSampleBounds == (3, 25))
    for rate in stride(from: 4.0, through: 2000, by: 0.5) {
      var other = spec
      other.rateHz = rate
      let (shortest, longest) = other.swingSampleBounds
      let step = other.step
      #expect(Double(shortest) * step >= 1 / 24.0 && Double(shortest - 1) * step < 1 / 24.0, "\(rate)")
      #expect(Double(longest) * step <= 0.5 && Double(longest + 1) * step > 0.5, "\(rate)")
    }
    // The motion along a direction, gravity on z, at 100 Hz from `start`.
    func trace(
      seconds: Double, start: Double = 0, _ motion: (Double) -> Double, along axis: (Double, Double, Double)
    ) -> SampleBlock {
      var block = SampleBlock(capacity: Int(seconds * 100))
      for i in 0..<Int(seconds * 100) {
        let t = Double(i) / 100
        let m = motion(t)
        block.append(t: start + t, x: axis.0 * m, y: axis.1 * m, z: 1 + axis.2 * m)
      }
      return block
    }
    func last(seconds: Double = 14, _ motion: (Double) -> Double, along axis: (Double, Double, Double))
      throws -> (String) -> Double
    {
      let row = try rows(spec, trace(seconds: seconds, motion, along: axis)).last!.2
      return { row[spec.names.firstIndex(of: $0)!] }
    }
    let root3 = 1 / 3.0.squareRoot()
    for axis in [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (root3, root3, root3)] {
      for strength in [1.5, 0.9] {
        let shake = try last({ strength * sin(2 * .pi * 3 * $0) }, along: axis)
        #expect(abs(shake("e4_swing_rate") - 6) < 0.6, "\(axis) \(strength): \(shake("e4_swing_rate"))")
        #expect(shake("e4_swing_balance") > 0.9, "\(axis) \(strength): \(shake("e4_swing_balance"))")
        #expect(shake("e16_swing_rate") < shake("e4_swing_rate"))
      }
    }
    let long = try last(seconds: 40, { 1.5 * sin(2 * .pi * 3 * $0) }, along: (1, 0, 0))
    #expect(abs(long("e16_swing_rate") - 6) < 0.15, "\(long("e16_swing_rate"))")
    let gentle = try last({ 0.6 * sin(2 * .pi * 3 * $0) }, along: (1, 0, 0))
    #expect(gentle("e4_swing_rate") == 0 && gentle("e4_swing_balance") == 0)
    let slow = try last({ 1.5 * sin(2 * .pi * 0.8 * $0) }, along: (1, 0, 0))
    #expect(slow("e16_swing_rate") == 0)
    // Two strides a second: a landing of 2.5 g for a tenth of a second, then -0.28 g (the mean 0).
    let gait = try last(
      { t in t.truncatingRemainder(dividingBy: 0.5) < 0.05 ? 2.5 : -0.28 }, along: (0, 0, 1))
    #expect(gait("e4_swing_rate") > 1 && gait("e4_swing_balance") < 0.1, "\(gait("e4_swing_balance"))")
    let still = try last({ _ in 0 }, along: (1, 0, 0))
    #expect(still("e1_swing_rate") == 0 && still("e16_swing_balance") == 0)
    // A gap of two seconds after shaking: the next segment's rows are a fresh trace's.
    var joined = trace(seconds: 10, { 1.5 * sin(2 * .pi * 3 * $0) }, along: (1, 0, 0))
    let calm = trace(seconds: 6, start: 12, { _ in 0 }, along: (1, 0, 0))
    for i in 0..<calm.count { joined.append(t: calm.t[i], x: calm.x[i], y: calm.y[i], z: calm.z[i]) }
    let after = try rows(spec, joined).filter { $0.1 > 12 }
    #expect(after.count == (try rows(spec, calm)).count && !after.isEmpty)
    let swingColumns = spec.names.indices.filter { spec.names[$0].contains("swing") }
    #expect(swingColumns.count == 6)
    for row in after { #expect(swingColumns.allSatisfy { row.2[$0] == 0 }) }
  }

  /// A constant axis has no variance, no band power and no crossing, exactly; a gap longer than
  /// a second starts the averages afresh: the first row after it comes a width later, as in a
  /// fresh trace, and is close to a fresh trace's.
  @Test func constantAxesAndGaps() throws {
    let spec = Self.spec()
    let still = try rows(spec, makeTrace(seconds: 10, rate: 50) { _ in 0 })
    for name in ["e4_x_variance", "e4_z_variance", "e4_z_band_2_4_hz", "e4_x_crossing_rate", "e1_z_energy"] {
      let k = spec.names.firstIndex(of: name)!
      #expect(still.allSatisfy { $0.2[k] == 0 }, "\(name)")
    }
    let motion: (Double) -> Double = { 0.3 * sin(9 * $0) }
    var block = makeTrace(seconds: 5, rate: 50, shake: motion)
    let later = makeTrace(seconds: 5, rate: 50, shake: motion)
    block.append(contentsOf: SampleBlock(t: later.t.map { $0 + 20 }, x: later.x, y: later.y, z: later.z))
    let joined = try rows(spec, block)
    let fresh = try rows(spec, later)
    #expect(!joined.contains { $0.0 < 10 && $0.1 > 10 })
    let after = try #require(joined.firstIndex { $0.0 >= 20 })
    #expect(abs(joined[after].0 - 20) < 1e-9 && abs(fresh[0].0) < 1e-9)
    // The averages start afresh; gravity carries on, which moves the user acceleration a little.
    let k = spec.names.firstIndex(of: "e4_x_variance")!
    #expect(abs(joined[after].2[k] - fresh[0].2[k]) < 0.05 * fresh[0].2[k])
  }

  /// `kind` is written only for exponential features; a specification without it is windows;
  /// an unknown kind or a band at the filter's Nyquist limit is refused.
  @Test func theKindInJSON() throws {
    let spec = Self.spec()
    #expect(spec.json.contains("\"kind\": \"exponential\""))
    #expect(!FeatureSpec().json.contains("\"kind\""))
    let back = try FeatureSpec(json: try JSONDocument(Array(spec.json.utf8), file: "d.json"))
    #expect(back == spec)
    #expect(spec.names.first == "e1_x_mean" && spec.names.last == "e4_principal_g")
    let unknown = spec.json.replacingOccurrences(of: "\"exponential\"", with: "\"fourier\"")
    #expect(throws: AccelError.self) {
      try FeatureSpec(json: try JSONDocument(Array(unknown.utf8), file: "d.json"))
    }
    // Attitude features: written only when set, read back, refused for windows.
    #expect(!spec.json.contains("attitude"))
    var attitude = spec
    attitude.attitude = true
    #expect(attitude.json.contains("\"attitude\": true"))
    #expect(attitude.names.last == "e4_attitude_spread" && attitude.names.count == spec.names.count + 6)
    let read = try FeatureSpec(json: try JSONDocument(Array(attitude.json.utf8), file: "d.json"))
    #expect(read == attitude)
    // A flag that is not true or false is refused, naming the field and where its value is.
    let odd = attitude.json.replacingOccurrences(of: "\"attitude\": true", with: "\"attitude\": 1")
    let lines = odd.split(separator: "\n", omittingEmptySubsequences: false)
    let line = try #require(lines.firstIndex { $0.contains("\"attitude\": 1") })
    let column = lines[line].distance(from: lines[line].startIndex, to: lines[line].firstIndex(of: "1")!)
    do {
      _ = try FeatureSpec(json: try JSONDocument(Array(odd.utf8), file: "d.json"))
      Issue.record("an attitude of 1 was read")
    } catch let error as AccelError {
      #expect(error.message.hasPrefix("d.json:\(line + 1):\(column + 1): "), "\(error.message)")
      #expect(error.message.contains("\"attitude\""), "\(error.message)")
    }
    // A width that is not a number is refused where it is (it was dropped).
    let widths = try #require(attitude.json.range(of: "\"widths_s\": [1, 4]"))
    let oddWidth = attitude.json.replacingCharacters(in: widths, with: "\"widths_s\": [1, \"4\"]")
    let widthLine = attitude.json[..<widths.lowerBound].filter { $0 == "\n" }.count + 1
    let widthError = #expect(throws: AccelError.self) {
      try FeatureSpec(json: try JSONDocument(Array(oddWidth.utf8), file: "d.json"))
    }
    let widthColumn =
      attitude.json[..<widths.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).last!.count
      + 17
    #expect(
      widthError?.message.hasPrefix(
        "d.json:\(widthLine):\(widthColumn): the feature specification has a width")
        == true, "\(widthError?.message ?? "")")
    attitude.kind = .windows
    #expect(throws: AccelError.self) { try attitude.validate() }
    // Shape features likewise, after the attitude features.
    #expect(!spec.json.contains("shape"))
    var shape = Self.spec(attitude: true, shape: true)
    #expect(shape.json.contains("\"shape\": true"))
    #expect(shape.names.count == spec.names.count + 6 + 2 * 6 * 2)
    #expect(shape.names.last == "e4_horiz_asymmetry")
    #expect(shape.widthsPhrase == "exponential widths of 1, 4 s with attitude and shape features")
    #expect(shape.names.firstIndex(of: "e1_x_crest") == shape.names.firstIndex(of: "e1_attitude_spread")! + 1)
    #expect(
      try FeatureSpec(json: try JSONDocument(Array(shape.json.utf8), file: "d.json"))
        == shape)
    let oddShape = shape.json.replacingOccurrences(of: "\"shape\": true", with: "\"shape\": \"yes\"")
    #expect(throws: AccelError.self) {
      try FeatureSpec(json: try JSONDocument(Array(oddShape.utf8), file: "d.json"))
    }
    shape.kind = .windows
    #expect(throws: AccelError.self) { try shape.validate() }
    // Swing features likewise, after the shape features.
    #expect(!spec.json.contains("swing"))
    var swing = Self.spec(attitude: true, shape: true, swing: true)
    #expect(swing.json.contains("\"swing\": true"))
    #expect(swing.names.count == spec.names.count + 6 + 2 * 6 * 2 + 2 * 2)
    #expect(swing.names.suffix(2) == ["e4_swing_rate", "e4_swing_balance"])
    #expect(
      swing.names.firstIndex(of: "e1_swing_rate") == swing.names.firstIndex(of: "e1_horiz_asymmetry")! + 1)
    #expect(swing.widthsPhrase == "exponential widths of 1, 4 s with attitude, shape and swing features")
    #expect(
      try FeatureSpec(json: try JSONDocument(Array(swing.json.utf8), file: "d.json"))
        == swing)
    let oddSwing = swing.json.replacingOccurrences(of: "\"swing\": true", with: "\"swing\": 1")
    #expect(oddSwing != swing.json)
    #expect(throws: AccelError.self) {
      try FeatureSpec(json: try JSONDocument(Array(oddSwing.utf8), file: "d.json"))
    }
    swing.kind = .windows
    #expect(throws: AccelError.self) { try swing.validate() }
    var nyquist = spec
    nyquist.bands = [FeatureSpec.FrequencyBand(8, 25)]
    #expect(throws: AccelError.self) { try nyquist.validate() }
    nyquist.kind = .windows
    try nyquist.validate()
  }

  /// A span longer than the shortest width describes more of the trace: each row has the same
  /// features, its start is its end minus the span, and a segment's first row waits for the span.
  /// The span is written only when set, read back, and refused beyond the longest width.
  @Test func aSpanPutsTheRowsCentreFurtherBack() throws {
    let plain = Self.spec(widths: [0.5, 2])
    var spanned = plain
    spanned.spanSeconds = 1
    let block = makeTrace(seconds: 6, rate: 50) { 0.5 * sin(2 * .pi * 3 * $0) }
    let a = try rows(plain, block)
    let b = try rows(spanned, block)
    // Rows come every 0.1 s (5 grid samples): the first once 25 samples have come, with the
    // span once 50 have; the span drops the rows before that and changes nothing else.
    #expect(a.count == b.count + 5 && b.count > 40)
    for (x, y) in zip(a.suffix(b.count), b) {
      #expect(x.1 == y.1 && x.2 == y.2)
      #expect(abs((x.1 - x.0) - 0.48) < 1e-9 && abs((y.1 - y.0) - 0.98) < 1e-9)
    }
    #expect(spanned.halfSpanSeconds == 0.49 && plain.halfSpanSeconds == 0.24)
    #expect(spanned.json.contains("\"span_s\": 1,") && !plain.json.contains("span_s"))
    let back = try FeatureSpec(json: try JSONDocument(Array(spanned.json.utf8), file: "d.json"))
    #expect(back == spanned)
    for bad in ["\"span_s\": \"1\",", "\"span_s\": 9,"] {
      let text = spanned.json.replacingOccurrences(of: "\"span_s\": 1,", with: bad)
      #expect(throws: AccelError.self, "\(bad)") {
        try FeatureSpec(json: try JSONDocument(Array(text.utf8), file: "d.json"))
      }
    }
    for bad in [2.5, 0, -1, Double.nan] {
      var wrong = plain
      wrong.spanSeconds = bad
      #expect(throws: AccelError.self) { try wrong.validate() }
    }
  }
}
