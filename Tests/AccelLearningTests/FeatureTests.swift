import AccelCore
import AccelSpectral
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
    // [[1,1,0],[1,1,0],[0,0,2]]: 2, 2 and 0, the two largest equal (r = -1, where cos(acos(r) / 3)
    // has its steepest slope); [[1,1,1],[1,1,1],[1,1,1]]: 3, 0, 0 (r = 1).
    #expect(abs(FeatureExtractor.largestEigenvalue((1, 1, 2, 1, 0, 0)) - 2) < 1e-12)
    #expect(abs(FeatureExtractor.largestEigenvalue((1, 1, 1, 1, 1, 1)) - 3) < 1e-12)
    // A multiple of the identity; a zero matrix.
    #expect(FeatureExtractor.largestEigenvalue((0.5, 0.5, 0.5, 0, 0, 0)) == 0.5)
    #expect(FeatureExtractor.largestEigenvalue((0, 0, 0, 0, 0, 0)) == 0)
  }

  /// The solution without trigonometric functions against the trigonometric one and against
  /// Jacobi's rotations (another method): 2,000 random covariances of every shape, from nearly
  /// isotropic to nearly rank one, agree to 1e-13 of the matrix's size.
  @Test func largestEigenvalueAgreesWithJacobiRotations() {
    var random = SeededRandom(seed: 11)
    func jacobi(_ c: (Double, Double, Double, Double, Double, Double)) -> Double {
      var a = [[c.0, c.3, c.4], [c.3, c.1, c.5], [c.4, c.5, c.2]]
      for _ in 0..<50 {
        for (p, q) in [(0, 1), (0, 2), (1, 2)] where abs(a[p][q]) > 1e-300 {
          let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
          let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
          let (cs, sn) = (1 / (t * t + 1).squareRoot(), t / (t * t + 1).squareRoot())
          for k in 0..<3 {
            let (x, y) = (a[k][p], a[k][q])
            (a[k][p], a[k][q]) = (cs * x - sn * y, sn * x + cs * y)
          }
          for k in 0..<3 {
            let (x, y) = (a[p][k], a[q][k])
            (a[p][k], a[q][k]) = (cs * x - sn * y, sn * x + cs * y)
          }
        }
      }
      return max(a[0][0], a[1][1], a[2][2])
    }
    func trigonometric(_ c: (Double, Double, Double, Double, Double, Double)) -> Double {
      let q = (c.0 + c.1 + c.2) / 3
      let p1 = c.3 * c.3 + c.4 * c.4 + c.5 * c.5
      let p = (((c.0 - q) * (c.0 - q) + (c.1 - q) * (c.1 - q) + (c.2 - q) * (c.2 - q) + 2 * p1) / 6)
        .squareRoot()
      let b = ((c.0 - q) / p, (c.1 - q) / p, (c.2 - q) / p, c.3 / p, c.4 / p, c.5 / p)
      let det = b.0 * (b.1 * b.2 - b.5 * b.5) - b.3 * (b.3 * b.2 - b.5 * b.4) + b.4 * (b.3 * b.5 - b.1 * b.4)
      return q + 2 * p * cos(acos(max(-1, min(1, det / 2))) / 3)
    }
    var worst = (jacobi: 0.0, trigonometric: 0.0)
    for k in 0..<2000 {
      // A random direction's outer product scaled, plus noise of a random size: from rank one to
      // isotropic.
      let u = (random.normal(), random.normal(), random.normal())
      let (s, e) = (random.uniform(0, 4), pow(10, random.uniform(-6, 0)) * (k % 2 == 0 ? 1 : 0))
      let n = (0..<6).map { _ in e * random.normal() }
      let c = (
        s * u.0 * u.0 + abs(n[0]) + e, s * u.1 * u.1 + abs(n[1]) + e, s * u.2 * u.2 + abs(n[2]) + e,
        s * u.0 * u.1 + 0.1 * n[3], s * u.0 * u.2 + 0.1 * n[4], s * u.1 * u.2 + 0.1 * n[5]
      )
      let size = c.0 + c.1 + c.2
      guard size > 1e-9 else { continue }
      let largest = FeatureExtractor.largestEigenvalue(c)
      worst.jacobi = max(worst.jacobi, abs(largest - jacobi(c)) / size)
      worst.trigonometric = max(worst.trigonometric, abs(largest - trigonometric(c)) / size)
    }
    #expect(worst.jacobi < 1e-13 && worst.trigonometric < 1e-13, "\(worst)")
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

  /// The same with a sustained classifier's q beside p.
  func decode(_ p: [Double], _ q: [Double], _ c: ProbabilityDecoder.Configuration) -> [ProbabilityDecoder
    .Event]
  {
    var decoder = ProbabilityDecoder(configuration: c)
    var events: [ProbabilityDecoder.Event] = []
    for i in p.indices {
      if let e = decoder.add(center: Double(i), end: Double(i) + 0.5, probability: p[i], sustained: q[i]) {
        events.append(e)
      }
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

  @Test func sustainedProbabilityBeginsAnEventWorkedByHand() {
    var c = ProbabilityDecoder.Configuration()
    c.on = 0.99
    c.off = 0.5
    c.mergeGapSeconds = 0
    let held = [0.1, 0.9, 0.95, 0.9, 0.92, 0.6, 0.1]
    // Without the hold path nothing reaches on.
    #expect(decode(held, c).isEmpty)
    // Held at >= 0.9 from 1 to 4: at 3 (held 2 s) the event begins, back at 1; it goes on while
    // >= off (to 5), reported at the end of the window where it began.
    c.hold = 0.9
    c.holdSeconds = 2
    #expect(
      decode(held, c) == [.init(start: 1, end: 5, reported: 3.5, peak: 0.95, windows: 5, cancelled: false)])
    // A window below hold breaks the run: 1-2 and 4-5 never hold 2 s.
    #expect(decode([0.1, 0.9, 0.9, 0.8, 0.9, 0.9, 0.1], c).isEmpty)
    // A gap of more than runBreakSeconds between windows breaks it too.
    var decoder = ProbabilityDecoder(configuration: c)
    var events: [ProbabilityDecoder.Event] = []
    for (t, p) in [(0.0, 0.9), (1.0, 0.9), (5.0, 0.9), (6.0, 0.1)] {
      if let e = decoder.add(center: t, end: t + 0.5, probability: p) { events.append(e) }
    }
    #expect((events + decoder.finish()).isEmpty)
    // Within the merge gap of an event that ended, a held run continues it.
    c.mergeGapSeconds = 3
    let after = decode([0.995, 0.1, 0.9, 0.9, 0.9, 0.1], c)
    #expect(after == [.init(start: 0, end: 4, reported: 0.5, peak: 0.995, windows: 4, cancelled: false)])
    // Unset, the hold path is what it was before it existed: the same events as the plain decoding.
    var plain = ProbabilityDecoder.Configuration()
    plain.on = 0.9
    plain.off = 0.5
    var unset = plain
    unset.hold = 0.2
    let p = [0.1, 0.3, 0.95, 0.6, 0.3, 0.2, 0.92, 0.1]
    #expect(decode(p, unset) == decode(p, plain) && decode(p, plain).count == 2)
  }

  /// A sustained classifier's q beside p: an event begins where either path begins one and goes
  /// on while either holds; the run toward hold_s reads q alone.
  @Test func aSustainedClassifierBeginsAndKeepsEventsWorkedByHand() {
    var c = ProbabilityDecoder.Configuration()
    c.on = 0.98
    c.off = 0.98
    c.mergeGapSeconds = 0
    c.sustainedOn = 0.999
    c.sustainedOff = 0.5
    // p alone: 2-3. q begins nothing here (never 0.999) but keeps it going while >= 0.5 (to 5).
    let p = [0.1, 0.1, 0.99, 0.99, 0.1, 0.1, 0.1, 0.1]
    let q = [0.1, 0.1, 0.1, 0.1, 0.6, 0.7, 0.2, 0.1]
    #expect(
      decode(p, q, c) == [.init(start: 2, end: 5, reported: 2.5, peak: 0.99, windows: 4, cancelled: false)])
    // q begins one at 0.999 where p is low, and p's 0.98 keeps it after q falls.
    let q2 = [0.1, 0.9995, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1]
    let p2 = [0.1, 0.1, 0.985, 0.1, 0.1, 0.1, 0.1, 0.1]
    #expect(
      decode(p2, q2, c) == [
        .init(start: 1, end: 2, reported: 1.5, peak: 0.9995, windows: 2, cancelled: false)
      ])
    // The hold path reads q: held at >= 0.9 from 1 to 3 begins at 1, though p never reaches 0.9.
    c.hold = 0.9
    c.holdSeconds = 2
    let q3 = [0.1, 0.95, 0.9, 0.92, 0.6, 0.1, 0.1, 0.1]
    let low = [Double](repeating: 0.3, count: 8)
    #expect(
      decode(low, q3, c) == [.init(start: 1, end: 4, reported: 3.5, peak: 0.95, windows: 4, cancelled: false)]
    )
    // And p held as long begins nothing: the run is q's.
    #expect(decode(q3, low, c).isEmpty)
    // Without q (a label with no sustained classifier) q is p, and thresholds of 1 change nothing.
    var plain = ProbabilityDecoder.Configuration()
    plain.on = 0.9
    plain.off = 0.5
    var decoder = ProbabilityDecoder(configuration: plain)
    var same = decoder
    for (i, v) in [0.1, 0.95, 0.6, 0.2, 0.92, 0.1].enumerated() {
      #expect(
        decoder.add(center: Double(i), end: Double(i), probability: v)
          == same.add(center: Double(i), end: Double(i), probability: v, sustained: v))
    }
    #expect(decoder.finish() == same.finish())
  }

  /// extend: a qualified event goes on at a lower probability and reaches back to where it rose
  /// to it; one that never qualified does not, and nothing begins at it.
  @Test func aQualifiedEventIsExtendedWorkedByHand() {
    var c = ProbabilityDecoder.Configuration()
    c.on = 0.9
    c.off = 0.9
    c.mergeGapSeconds = 0
    c.minDurationSeconds = 1
    // 1-2 at 0.95 (1 s: qualified at 2), then 0.6 and 0.7 until 4, 0.2 at 5.
    let p = [0.1, 0.95, 0.95, 0.6, 0.7, 0.2, 0.1]
    #expect(
      decode(p, c) == [.init(start: 1, end: 2, reported: 2.5, peak: 0.95, windows: 2, cancelled: false)])
    c.extend = 0.5
    #expect(
      decode(p, c) == [.init(start: 1, end: 4, reported: 2.5, peak: 0.95, windows: 4, cancelled: false)])
    // It reaches back to where the windows first stayed at extend: 0.6 at 2 leads up to 3, where
    // it began; it still qualifies (and is reported) a second after 3.
    #expect(
      decode([0.1, 0.4, 0.6, 0.95, 0.95, 0.6, 0.1], c) == [
        .init(start: 2, end: 5, reported: 4.5, peak: 0.95, windows: 3, cancelled: false)
      ])
    // A blip at on for less than min_duration_s is not extended: still too short, dropped.
    #expect(decode([0.1, 0.95, 0.6, 0.7, 0.6, 0.1], c).isEmpty)
    // And a run at extend alone begins nothing.
    #expect(decode([0.1, 0.6, 0.7, 0.8, 0.6, 0.1], c).isEmpty)
    // q extends too, once the event has qualified by p.
    #expect(
      decode([0.95, 0.95, 0.1, 0.1, 0.1], [0.1, 0.1, 0.55, 0.1, 0.1], c) == [
        .init(start: 0, end: 2, reported: 1.5, peak: 0.95, windows: 3, cancelled: false)
      ])
    // Its floor: what the trees must still tell apart.
    #expect(c.floor == 0.5 && c.primaryFloor == 0.5 && c.sustainedFloor == 0.5)
  }

  /// q's exponential average begins an event where it reaches smoothed_on: with a time constant of
  /// 1 / ln 2 s, each window a second on moves it half way to the window's q.
  @Test func theSustainedAverageBeginsAnEventWorkedByHand() {
    var c = ProbabilityDecoder.Configuration()
    c.on = 1
    c.off = 1
    c.sustainedOff = 0.5
    c.mergeGapSeconds = 0
    c.smoothing = 1 / log(2.0)
    c.smoothedOn = 0.9
    let p = [Double](repeating: 0, count: 7)
    // The average: 0, 0.495, 0.7425, 0.866, 0.928 (at smoothed_on), 0.464, ...; q goes on at
    // 0.99 (below sustained_on, 1) until 4.
    let q = [0.0, 0.99, 0.99, 0.99, 0.99, 0, 0]
    #expect(
      decode(p, q, c) == [.init(start: 4, end: 4, reported: 4.5, peak: 0.99, windows: 1, cancelled: false)])
    c.smoothedOn = 0.86
    #expect(
      decode(p, q, c) == [.init(start: 3, end: 4, reported: 3.5, peak: 0.99, windows: 2, cancelled: false)])
    // Without smooth_s the average begins nothing: q at 0.95 throughout is below every threshold.
    let steady = [Double](repeating: 0.95, count: 7)
    #expect(decode(p, steady, c).count == 1)
    c.smoothing = 0
    #expect(decode(p, steady, c).isEmpty)
    // A gap over a second starts the average afresh: 0 then 0.99 a second on is 0.495; 0.99 two
    // seconds later would take it to 0.866, but after the gap it is 0.99 and begins an event.
    c.smoothing = 1 / log(2.0)
    c.smoothedOn = 0.9
    var decoder = ProbabilityDecoder(configuration: c)
    let events = [(0.0, 0.0), (1, 0.99), (3, 0.99), (4, 0)].compactMap { center, value in
      decoder.add(center: center, end: center + 0.5, probability: 0, sustained: value)
    }
    #expect(
      events + decoder.finish() == [
        .init(start: 3, end: 3, reported: 3.5, peak: 0.99, windows: 1, cancelled: false)
      ])
    // Every q counts in the average, so the trees must give each exactly.
    #expect(c.sustainedFloor == 0 && c.floor == 0)
  }

  /// What train writes: the hold keys only with hold_s set, so a model without the hold path is
  /// written as before it existed.
  @Test func theHoldKeysAreWrittenOnlyWhenSet() {
    var c = ProbabilityDecoder.Configuration()
    let without = LearnedModel.descriptionJSON(
      spec: FeatureSpec(), labels: ["shake"], decoding: [c], training: "{}")
    c.hold = 0.95
    c.holdSeconds = 3
    let with = LearnedModel.descriptionJSON(
      spec: FeatureSpec(), labels: ["shake"], decoding: [c], training: "{}")
    #expect(!without.contains("hold") && with.contains("\"hold\": 0.95, \"hold_s\": 3}"), "\(with)")
    #expect(!without.contains("extend") && !with.contains("extend"))
    #expect(!with.contains("sustained"))
    c.sustainedOn = 0.999
    c.sustainedOff = 0.5
    let sustained = LearnedModel.descriptionJSON(
      spec: FeatureSpec(), labels: ["shake"], decoding: [c], training: "{}", sustained: ["shake"])
    #expect(
      sustained.contains("\"sustained\": {\"shake\": \"shake.sustained.xgb.json\"}")
        && sustained.contains("\"hold_s\": 3, \"sustained_on\": 0.999, \"sustained_off\": 0.5}"),
      "\(sustained)")
    c.extend = 0.7
    let extended = LearnedModel.descriptionJSON(
      spec: FeatureSpec(), labels: ["shake"], decoding: [c], training: "{}", sustained: ["shake"])
    #expect(extended.contains("\"sustained_off\": 0.5, \"extend\": 0.7}"), "\(extended)")
  }

  @Test func contradictoryDecodingsAreRefused() {
    var c = ProbabilityDecoder.Configuration()
    c.on = 0.3
    c.off = 0.5
    #expect(throws: AccelError.self) { try c.validate(owner: "model") }
    // The hold path needs off <= hold, or an event would close inside the run that began it.
    c = ProbabilityDecoder.Configuration()
    c.on = 0.99
    c.off = 0.8
    c.hold = 0.7
    #expect(throws: Never.self) { try c.validate(owner: "model") }
    c.holdSeconds = 1
    #expect(throws: AccelError.self) { try c.validate(owner: "model") }
    // With a sustained classifier the run reads q, which only sustained_off keeps going.
    c.off = 0.5
    #expect(throws: Never.self) { try c.validate(owner: "model") }
    #expect(throws: AccelError.self) { try c.validate(owner: "model", sustained: true) }
    c.sustainedOn = 0.99
    c.sustainedOff = 0.6
    #expect(throws: Never.self) { try c.validate(owner: "model", sustained: true) }
    c.sustainedOn = 0.5
    #expect(throws: AccelError.self) { try c.validate(owner: "model", sustained: true) }
  }
}

/// Every feature of a row computed literally from its window, as docs/LEARNING.md defines it:
/// the extractor's faster arithmetic (lanes, bit masks, counts kept as samples arrive, two
/// spectra to a transform) must agree with it.
@Suite struct FeatureDefinitionTests {
  /// Crossings of `level` with hysteresis h, one sample at a time.
  static func crossings(_ x: [Double], _ level: Double) -> Int {
    let h = FeatureExtractor.crossingHysteresis
    var side = 0
    var count = 0
    for v in x {
      let d = v - level
      let now = d > h ? 1 : (d < -h ? -1 : 0)
      if now != 0 {
        if side != 0 && now != side { count += 1 }
        side = now
      }
    }
    return count
  }

  /// One signal's features over its window `x` of a width of `full` samples.
  static func features(_ x: [Double], full: Int, signed: Bool, spec: FeatureSpec) -> [Double] {
    let n = Double(x.count)
    let seconds = n / spec.rateHz
    var sum = 0.0
    var squares = 0.0
    for v in x {
      sum += v
      squares += v * v
    }
    let mean = sum / n
    var m2 = 0.0
    var m3 = 0.0
    for v in x {
      let d = v - mean
      m2 += d * d
      m3 += d * d * d
    }
    let variance = m2 / n
    let sd = variance.squareRoot()
    var peaks = 0
    if x.count >= 3 {
      for j in 1..<(x.count - 1) {
        let v = x[j]
        if v > mean + 0.5 * sd && v > x[j - 1] && v >= x[j + 1] { peaks += 1 }
      }
    }
    let low = x.min()!
    let high = x.max()!
    let skewness = variance > 1e-12 ? (m3 / n) / (variance * sd) : 0
    let meanRate = Double(crossings(x, mean)) / seconds
    let peakRate = Double(peaks) / seconds
    var out: [Double] = [mean, variance, low, high, high - low, squares / n, meanRate, peakRate, skewness]
    if signed { out.append(Double(crossings(x, 0)) / seconds) }
    // The spectrum of the Hann-tapered, mean-removed window, zero-padded to a power of two of at
    // least twice the width (a young window is shorter); DC left out.
    var size = 1
    while size < 2 * full { size *= 2 }
    let m = x.count
    var taper = [Double](repeating: 0, count: size)
    for j in 0..<m {
      let hann = m > 1 ? 0.5 - 0.5 * cos(2 * Double.pi * Double(j) / Double(m - 1)) : 1
      taper[j] = hann * (x[j] - mean)
    }
    var power: [Double] = RealFFT(size: size).transform(taper).map { $0.re * $0.re + $0.im * $0.im }
    power[0] = 0
    var total = 0.0
    var best = 1
    for k in power.indices {
      total += power[k]
      if k >= 1 && power[k] > power[best] { best = k }
    }
    let resolution = spec.rateHz / Double(size)
    guard total > 1e-18 else { return out + [Double](repeating: 0, count: 2 + spec.bands.count) }
    out += [Double(best) * resolution, power[best] / total]
    for band in spec.bands {
      var share = 0.0
      for k in 1..<power.count {
        let f = Double(k) * resolution
        if f >= band.low && f < band.high { share += power[k] }
      }
      out.append(share / total)
    }
    return out
  }

  static func joint(_ x: [Double], _ y: [Double], _ z: [Double]) -> [Double] {
    let n = Double(x.count)
    let mx = x.reduce(0, +) / n
    let my = y.reduce(0, +) / n
    let mz = z.reduce(0, +) / n
    func cov(_ a: [Double], _ ma: Double, _ b: [Double], _ mb: Double) -> Double {
      zip(a, b).map { ($0 - ma) * ($1 - mb) }.reduce(0, +) / n
    }
    let c = (
      cov(x, mx, x, mx), cov(y, my, y, my), cov(z, mz, z, mz), cov(x, mx, y, my), cov(x, mx, z, mz),
      cov(y, my, z, mz)
    )
    func correlation(_ v: Double, _ a: Double, _ b: Double) -> Double {
      a > 1e-12 && b > 1e-12 ? max(-1, min(1, v / (a * b).squareRoot())) : 0
    }
    let largest = FeatureExtractor.largestEigenvalue(c)
    let trace = c.0 + c.1 + c.2
    return [
      correlation(c.3, c.0, c.1), correlation(c.4, c.0, c.2), correlation(c.5, c.1, c.2),
      trace > 1e-12 ? min(1, largest / trace) : 1.0 / 3, max(0, largest).squareRoot(),
    ]
  }

  /// A noisy trace (with a quiet stretch, a gap and a gyroscope) fed one sample at a time; after
  /// each row, the row against the literal computation over the extractor's own windows.
  @Test func everyRowMatchesTheDefinitions() throws {
    var spec = FeatureSpec()
    spec.gyroscope = true
    var random = SeededRandom(seed: 7)
    var block = makeTrace(seconds: 14, rate: 97, jitter: 0.2, gyro: true) { t in
      t > 6 && t < 8 ? 0.005 * sin(40 * t) : 0.7 * sin(2 * .pi * 3.3 * t) + 0.4 * sin(2 * .pi * 7 * t)
    }
    block.x = block.x.map { $0 + 0.05 * Double.random(in: -1...1, using: &random) }
    var later = makeTrace(seconds: 6, rate: 97, gyro: true) { 0.5 * sin(2 * .pi * 5 * $0) }
    later.t = later.t.map { $0 + 20 }
    block.append(contentsOf: later)
    var extractor = try FeatureExtractor(spec: spec)
    let signals = spec.signals
    let widths = spec.windowSamples
    var checked = 0
    for i in 0..<block.count {
      var produced: [Double]?
      extractor.process(block.slice(i..<(i + 1))) { _, _, values in produced = Array(values) }
      guard let row = produced else { continue }
      var expected: [Double] = []
      for width in widths {
        let n = min(width, extractor.segmentSamples)
        for (s, signal) in signals.enumerated() {
          expected += Self.features(
            extractor.recent(signal: s, count: n), full: width,
            signed: FeatureSpec.signedSignals.contains(signal),
            spec: spec)
        }
        expected += Self.joint(
          extractor.recent(signal: 0, count: n), extractor.recent(signal: 1, count: n),
          extractor.recent(signal: 2, count: n))
      }
      #expect(expected.count == row.count)
      for (k, (a, b)) in zip(row, expected).enumerated() {
        let close = abs(a - b) <= 1e-9 * max(1, abs(b))
        #expect(close, "row \(checked) \(spec.names[k]): \(a) against \(b)")
        if !close { return }
      }
      checked += 1
    }
    #expect(checked > 150)
  }

  /// The bit-mask crossings against the one-sample-at-a-time count: random levels and lengths
  /// across the 64-sample words, values on the hysteresis' edges.
  @Test func crossingsMatchTheStateMachine() {
    var random = SeededRandom(seed: 3)
    let h = FeatureExtractor.crossingHysteresis
    for n in [1, 2, 3, 4, 5, 63, 64, 65, 127, 128, 129, 200, 250] {
      for _ in 0..<40 {
        let spread = [0.01, 0.03, 0.5].randomElement(using: &random)!
        let x = (0..<n).map { _ -> Double in
          switch Int.random(in: 0..<6, using: &random) {
          case 0: return h
          case 1: return -h
          case 2: return 0
          default: return Double.random(in: -spread...spread, using: &random)
          }
        }
        for level in [0, 0.004, -0.01] {
          let fast = x.withUnsafeBufferPointer {
            FeatureExtractor.crossings($0.baseAddress!, n: n, level: level)
          }
          #expect(fast == Self.crossings(x, level), "n \(n) level \(level)")
        }
      }
    }
  }
}

/// Trees worked by hand: the walk over the flattened nodes (a leaf at the root, uneven depths,
/// a missing value sent the default way) and the split counts read from them.
@Suite struct TreeWalkTests {
  static let model = """
    {"learner": {"objective": {"name": "binary:logistic"}, "feature_names": ["a", "b", "c"],
     "learner_model_param": {"base_score": "5E-1"},
     "gradient_booster": {"name": "gbtree", "model": {"trees": [
       {"left_children": [1, -1, 3, -1, -1], "right_children": [2, -1, 4, -1, -1],
        "split_indices": [0, 0, 1, 0, 0], "split_conditions": [0.5, -1, 2, 0.25, 4],
        "default_left": [0, 0, 1, 0, 0]},
       {"left_children": [-1], "right_children": [-1], "split_indices": [0],
        "split_conditions": [0.125], "default_left": [0]}]}}}}
    """

  @Test func leavesAndSplitCountsWorkedByHand() throws {
    let trees = try TreeEnsemble(json: Array(Self.model.utf8), file: "m.json")
    func margin(_ row: [Double]) -> Float { row.withUnsafeBufferPointer { trees.margin($0) } }
    #expect(margin([0, 9, 9]) == -1 + 0.125)  // a < 0.5: the first leaf
    #expect(margin([1, 1, 9]) == 0.25 + 0.125)  // a >= 0.5, b < 2
    #expect(margin([1, 3, 9]) == 4 + 0.125)  // b >= 2
    #expect(margin([1, .nan, 9]) == 0.25 + 0.125)  // b missing: left by default
    #expect(margin([.nan, 0, 9]) == 0.25 + 0.125)  // a missing: right, then b < 2
    #expect(trees.splitCounts == [1, 1, 0])
  }
}

/// A hostile or damaged model is refused with its actual fault named: a loop, a child past the
/// tree's end, a feature the model does not have.
@Suite struct TreeFaultTests {
  static func model(left: [Int], right: [Int], features: [Int]) -> [UInt8] {
    let n = left.count
    let text = """
      {"learner": {"objective": {"name": "binary:logistic"}, "feature_names": ["a", "b"],
       "learner_model_param": {"base_score": "5E-1"},
       "gradient_booster": {"name": "gbtree", "model": {"trees": [
         {"left_children": [-1], "right_children": [-1], "split_indices": [0],
          "split_conditions": [0.5], "default_left": [0]},
         {"left_children": \(left), "right_children": \(right), "split_indices": \(features),
          "split_conditions": \([Double](repeating: 0.5, count: n)), "default_left": \([Int](repeating: 0, count: n))}]}}}}
      """
    return Array(text.utf8)
  }

  @Test func eachFaultIsNamed() throws {
    // Each with where the value at fault is: the child or the feature index.
    let cases: [([Int], [Int], [Int], String)] = [
      (
        [0, -1, -1], [2, -1, -1], [0, 0, 0],
        "6:23: tree 1, node 0: its left child is the node itself (a loop)"
      ),
      ([1, -1, 1], [2, -1, 1], [0, 0, 1], "6:30: tree 1, node 2: its left child 1 comes before it"),
      (
        [1, -1, -1], [7, -1, -1], [0, 0, 0],
        "6:54: tree 1, node 0: its right child 7 is outside the tree's 3 nodes"
      ),
      (
        [1, -1, -1], [2, -1, -1], [5, 0, 0],
        "6:84: tree 1, node 0 splits on feature 5, but the model has 2 features (0 to 1)"
      ),
    ]
    for (left, right, features, message) in cases {
      do {
        _ = try TreeEnsemble(json: Self.model(left: left, right: right, features: features), file: "m.json")
        Issue.record("accepted: \(message)")
      } catch let error as AccelError {
        let (at, fault) = (message.prefix { $0 != " " }, message.drop { $0 != " " }.dropFirst())
        #expect(error.message.hasPrefix("m.json:\(at) ") && error.message.contains(fault), "\(error.message)")
        #expect(!error.message.contains("points outside it"))
      }
    }
  }
}
