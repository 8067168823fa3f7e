import AccelCore
import TestSupport
import Testing

@testable import AccelLearning

#if canImport(Glibc)
  import Glibc
#endif

/// A trace: gravity on -z, `shake(t)` g along x, optional gyroscope, timestamps with jitter.
func makeTrace(
  seconds: Double, rate: Double, jitter: Double = 0, seed: UInt64 = 1, gyro: Bool = false,
  shake: (Double) -> Double
) -> SampleBlock {
  var random = SeededRandom(seed: seed)
  let n = Int(seconds * rate)
  var block = SampleBlock(capacity: n)
  var t = 0.0
  for _ in 0..<n {
    block.append(t: t, x: shake(t), y: 0.01 * sin(7 * t), z: -1)
    t += (1 + jitter * (Double.random(in: -1...1, using: &random))) / rate
  }
  if gyro {
    block.gyroscope = AxisColumns(
      x: block.t.map { 0.5 * sin(3 * $0) }, y: block.t.map { _ in 0 }, z: block.t.map { _ in 0.1 })
  }
  return block
}

func rows(_ spec: FeatureSpec, _ block: SampleBlock, chunks: [Int]? = nil) throws -> [(
  Double, Double, [Double]
)] {
  var extractor = try FeatureExtractor(spec: spec)
  var out: [(Double, Double, [Double])] = []
  var i = 0
  var k = 0
  while i < block.count {
    let size = chunks.map { $0[k % $0.count] } ?? block.count
    let piece = block.slice(i..<min(block.count, i + size))
    extractor.process(piece) { start, end, values in out.append((start, end, Array(values))) }
    i += size
    k += 1
  }
  return out
}

@Suite struct FeatureTests {
  @Test func largestEigenvalueOfDiagonalAndRotated() {
    #expect(abs(FeatureExtractor.largestEigenvalue((3, 1, 2, 0, 0, 0)) - 3) < 1e-12)
    // [[2,1,0],[1,2,0],[0,0,1]] has eigenvalues 3, 1, 1.
    #expect(abs(FeatureExtractor.largestEigenvalue((2, 2, 1, 1, 0, 0)) - 3) < 1e-12)
  }

  /// Block boundaries change nothing: any chunking gives the same rows, bit for bit.
  @Test(arguments: [[1], [7, 3, 50], [333], [1000, 1]])
  func chunkedEqualsOneShot(chunks: [Int]) throws {
    var spec = FeatureSpec()
    spec.gyroscope = true
    let block = makeTrace(seconds: 12, rate: 97, jitter: 0.2, gyro: true) { 0.8 * sin(2 * .pi * 4 * $0) }
    let whole = try rows(spec, block)
    let pieces = try rows(spec, block, chunks: chunks)
    #expect(whole.count == pieces.count && whole.count > 100)
    for (a, b) in zip(whole, pieces) {
      #expect(a.0 == b.0 && a.1 == b.1)
      #expect(a.2.elementsEqual(b.2) { $0 == $1 || ($0.isNaN && $1.isNaN) })
    }
  }

  /// A 4 Hz back-and-forth of amplitude A along x, worked by hand: variance A^2/2, mean
  /// crossings 8 a second, the dominant frequency 4 Hz (to the bin), the power in 2-4 or 4-8 Hz,
  /// linearity 1, principal axis sqrt(A^2/2).
  @Test func aSineHasTheFeaturesWorkedByHand() throws {
    let a = 1.5
    let spec = FeatureSpec()
    let block = makeTrace(seconds: 20, rate: 100) { a * sin(2 * .pi * 4 * $0) }
    let names = spec.names
    let last = try rows(spec, block).last!.2
    func value(_ name: String) -> Double { last[names.firstIndex(of: name)!] }
    #expect(abs(value("w4_x_variance") - a * a / 2) < 0.02 * a * a)
    #expect(abs(value("w4_x_mean")) < 0.01)
    #expect(abs(value("w4_x_mean_crossing_rate") - 8) <= 0.3)
    #expect(abs(value("w4_x_zero_crossing_rate") - 8) <= 0.3)
    #expect(abs(value("w4_x_dominant_hz") - 4) <= 50.0 / 512)
    #expect(value("w4_x_band_2_4_hz") + value("w4_x_band_4_8_hz") > 0.95)
    #expect(value("w4_linearity") > 0.999)
    #expect(abs(value("w4_principal_g") - (a * a / 2).squareRoot()) < 0.02 * a)
    #expect(abs(value("w1_x_peak_to_peak") - 2 * a) < 0.05 * a)
    #expect(abs(value("w1_x_energy") - a * a / 2) < 0.05 * a * a)
    #expect(abs(value("w4_x_skewness")) < 0.05)
    // Across gravity: horiz is |x|, vert nearly nothing.
    #expect(value("w4_vert_variance") < 1e-3)
    // No gyroscope asked for: none of its features.
    #expect(!names.contains { $0.contains("_gx_") })
  }

  /// The features depend on time, not on the recorder's rate: 100 Hz and 400 Hz agree.
  @Test func theRateDoesNotMatter() throws {
    let spec = FeatureSpec()
    let motion: (Double) -> Double = { 0.9 * sin(2 * .pi * 3 * $0) + 0.3 * sin(2 * .pi * 1.1 * $0) }
    let slow = try rows(spec, makeTrace(seconds: 10, rate: 100, shake: motion))
    let fast = try rows(spec, makeTrace(seconds: 10, rate: 400, shake: motion))
    let names = spec.names
    let k = names.firstIndex(of: "w1_x_variance")!
    let d = names.firstIndex(of: "w1_x_dominant_hz")!
    let last = min(slow.count, fast.count) - 1
    #expect(abs(slow[last].1 - fast[last].1) < 1e-9)
    #expect(abs(slow[last].2[k] - fast[last].2[k]) < 1e-3)
    #expect(slow[last].2[d] == fast[last].2[d])
  }

  /// Without a gyroscope its features are missing (NaN), not zero; every other is finite.
  @Test func missingGyroscopeIsMissing() throws {
    var spec = FeatureSpec()
    spec.gyroscope = true
    let out = try rows(spec, makeTrace(seconds: 5, rate: 50) { 0.2 * sin($0) })
    let names = spec.names
    for (k, name) in names.enumerated() {
      if name.contains("_g")
        && (name.contains("_gx_") || name.contains("_gy_") || name.contains("_gz_")
          || name.contains("_gnorm_"))
      {
        #expect(out.allSatisfy { $0.2[k].isNaN }, "\(name)")
      } else {
        #expect(out.allSatisfy { $0.2[k].isFinite }, "\(name)")
      }
    }
  }

  /// A gap longer than a second starts the windows afresh: no row spans it.
  @Test func aGapRestartsTheWindows() throws {
    var block = makeTrace(seconds: 5, rate: 50) { 0.3 * sin(9 * $0) }
    let later = makeTrace(seconds: 5, rate: 50) { 0.3 * sin(9 * $0) }
    block.append(contentsOf: SampleBlock(t: later.t.map { $0 + 20 }, x: later.x, y: later.y, z: later.z))
    let out = try rows(FeatureSpec(), block)
    #expect(!out.contains { $0.0 < 10 && $0.1 > 10 })
    #expect(out.contains { $0.0 >= 20 })
    #expect(out.allSatisfy { $0.1 - $0.0 < 1 + 1e-9 })
  }

  @Test func badSpecificationsAreRefused() {
    var spec = FeatureSpec()
    spec.widthsSeconds = [0.01]
    #expect(throws: AccelError.self) { try spec.validate() }
    spec = FeatureSpec()
    spec.bands = [FeatureSpec.FrequencyBand(4, 30)]
    #expect(throws: AccelError.self) { try spec.validate() }
    spec = FeatureSpec()
    spec.widthsSeconds = [1, 1]
    #expect(throws: AccelError.self) { try spec.validate() }
  }
}

@Suite struct DecoderTests {
  func decode(_ p: [Double], _ c: ProbabilityDecoder.Configuration) -> [ProbabilityDecoder.Event] {
    var decoder = ProbabilityDecoder(configuration: c)
    var events: [ProbabilityDecoder.Event] = []
    for (i, v) in p.enumerated() {
      if let e = decoder.add(center: Double(i), end: Double(i) + 0.5, probability: v) { events.append(e) }
    }
    return events + decoder.finish()
  }

  @Test func hysteresisMergeAndDurationsWorkedByHand() {
    var c = ProbabilityDecoder.Configuration()
    c.on = 0.8
    c.off = 0.4
    c.mergeGapSeconds = 0
    // Begins at 2 (0.9), goes on while >= 0.4 (to 4), ends at 5.
    let one = decode([0, 0.5, 0.9, 0.5, 0.4, 0.1, 0], c)
    #expect(one == [.init(start: 2, end: 4, reported: 2.5, peak: 0.9, windows: 3, cancelled: false)])
    // Never reaching on: nothing.
    #expect(decode([0.5, 0.7, 0.79], c).isEmpty)
    // Two bursts 2 s apart: two events, or one with a merge gap of 2.
    let bursts = [0.9, 0.1, 0.1, 0.9]
    #expect(decode(bursts, c).count == 2)
    c.mergeGapSeconds = 3
    #expect(
      decode(bursts, c) == [.init(start: 0, end: 3, reported: 0.5, peak: 0.9, windows: 2, cancelled: false)])
    // Too short: dropped; too long: cancelled; reported once long enough.
    c.mergeGapSeconds = 0
    c.minDurationSeconds = 2
    #expect(decode([0.9, 0.9, 0.1], c).isEmpty)
    let long = decode([0.9, 0.9, 0.9, 0.9, 0.1], c)
    #expect(long.count == 1 && long[0].reported == 2.5 && !long[0].cancelled)
    c.maxDurationSeconds = 2.5
    #expect(decode([0.9, 0.9, 0.9, 0.9, 0.1], c).first?.cancelled == true)
    // Open at the end of the trace: reported by finish.
    c = ProbabilityDecoder.Configuration()
    #expect(decode([0.1, 0.9, 0.9], c).count == 1)
  }

  @Test func contradictoryDecodingsAreRefused() {
    var c = ProbabilityDecoder.Configuration()
    c.on = 0.3
    c.off = 0.5
    #expect(throws: AccelError.self) { try c.validate(owner: "model") }
  }
}
