import AccelCore
import AccelGestures
import AccelIO
import Foundation
import TestSupport
import Testing

/// A trace builder at `rate` Hz: gravity along an axis plus user acceleration u(t).
struct TraceBuilder {
  var rate = 100.0
  var gravity = (0.0, 0.0, -1.0)
  var block = SampleBlock()

  /// Appends `seconds` of user acceleration given per sample.
  mutating func add(seconds: Double, _ u: (Double) -> (Double, Double, Double)) {
    let n = Int((seconds * rate).rounded())
    for _ in 0..<n {
      let t = Double(block.count) / rate
      let a = u(t)
      block.append(t: t, x: gravity.0 + a.0, y: gravity.1 + a.1, z: gravity.2 + a.2)
    }
  }

  mutating func rest(_ seconds: Double) { add(seconds: seconds) { _ in (0, 0, 0) } }

  /// Half-cycles of a sine on x (or y) at `frequency` with the given amplitudes, one per half-cycle.
  mutating func swings(_ amplitudes: [Double], frequency: Double = 4, onY: Bool = false, sameSign: Bool = false) {
    let half = 1 / (2 * frequency)
    for (k, amplitude) in amplitudes.enumerated() {
      let sign: Double = sameSign || k % 2 == 0 ? 1 : -1
      let t0 = Double(block.count) / rate
      add(seconds: half) { t in
        let v = sign * amplitude * sin(Double.pi * (t - t0) / half)
        return onY ? (0, v, 0) : (v, 0, 0)
      }
    }
  }
}

func run(_ rule: inout some Rule, _ block: SampleBlock, blockSize: Int = 8192) -> [DetectorEvent] {
  var events: [DetectorEvent] = []
  var i = 0
  while i < block.count {
    let end = min(i + blockSize, block.count)
    events += rule.process(block.slice(i..<end))
    i = end
  }
  return events + rule.finish()
}

/// The three-peak rule with a gravity estimate so slow (alpha 0.001) that the user acceleration is
/// the built swing itself: these tests check the rule's logic on exact swing sizes.
func threePeak(_ b: TraceBuilder, _ params: [String: Double] = [:]) throws -> [DetectorEvent] {
  var rule = try make(ThreePeakRule.self, rate: b.rate, ["alpha": 0.001].merging(params) { $1 })
  return run(&rule, b.block)
}

@Suite struct ThreePeakTests {
  @Test func twoAlternatingSwingsAreNoShake() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings([1.3, 1.3])
    b.rest(1)
    #expect(try threePeak(b).isEmpty)
  }

  @Test func threeAlternatingSwingsWithOneAt1_3gAreAShake() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings([1.0, 1.3, 1.0])
    b.rest(1)
    let events = try threePeak(b)
    #expect(events.count == 1)
    let e = try #require(events.first)
    #expect(e.count == 3 && e.axis == "x")
    #expect(e.peakG! >= 1.25 && e.peakG! < 1.35)
    #expect(e.start > 1 && e.start < 1.1 && e.end < 1.4)
    #expect(abs(e.reported - (e.end + 0.25)) < 0.15)  // reported when the 0.25 s pause runs out
  }

  @Test func threeSwingsAt1gHaveNoPeak() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings([1.0, 1.0, 1.0])
    b.rest(1)
    #expect(try threePeak(b).isEmpty)
    #expect(try threePeak(b, ["peak_g": 0.9]).count == 1)
  }

  @Test func threeSameSignSwingsAreNoShake() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings([1.3, 1.3, 1.3], sameSign: true)
    b.rest(1)
    #expect(try threePeak(b).isEmpty)
  }

  @Test func aPauseSplitsTheGroup() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings([1.3, 1.3])
    b.rest(0.3)
    b.swings([1.3, 1.3])
    b.rest(1)
    #expect(try threePeak(b).isEmpty)  // two groups of two
    var c = TraceBuilder()
    c.rest(1)
    c.swings([1.3, 1.3, 1.3])
    c.rest(0.3)
    c.swings([1.3, 1.3, 1.3])
    c.rest(1)
    #expect(try threePeak(c).count == 2)
  }

  /// The book's two readings of the pause: from the last registered movement (default), or from
  /// the last sample of any movement. After the first registered swing, two swings the same way
  /// (which do not register) keep the hand moving for 0.25 s: timed from the registration the
  /// group breaks and starts again with the second of them; timed from movement it goes on.
  @Test func thePauseIsTimedEitherWay() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings([1.3])
    b.swings([1.3, 1.3], sameSign: true)
    b.swings([-1.3])
    b.swings([1.3])
    b.rest(1)
    let registered = try threePeak(b)
    let moving = try threePeak(b, ["pause_from_movement": 1])
    #expect(registered.count == 1 && moving.count == 1)
    #expect((registered.first?.start ?? 0) > 1.25, "starts again in the same-way swings: \(registered)")
    #expect((moving.first?.start ?? 9) < 1.05, "starts with the first swing: \(moving)")
  }

  @Test func swingsOnYAndGravityAlongAnyAxis() throws {
    for gravity in [(0.0, 0.0, -1.0), (0.0, -1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)] {
      var b = TraceBuilder()
      b.gravity = gravity
      b.rest(1)
      b.swings([1.3, 1.3, 1.3, 1.3], onY: true)
      b.rest(1)
      let events = try threePeak(b)
      #expect(events.count == 1, "gravity \(gravity)")
      #expect(events.first?.axis == "y" && events.first?.count == 4)
    }
  }

  /// With the default gravity low-pass (alpha 0.1 per sample) a vigorous 5 Hz shake of 2 g is found;
  /// the low-pass takes part of each swing, so gentle swings are not.
  @Test func defaultsOnARealisticShake() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings(Array(repeating: 2.0, count: 8), frequency: 5)
    b.rest(1)
    var rule = try make(ThreePeakRule.self, rate: 100, [:])
    #expect(run(&rule, b.block).count == 1)
    var gentle = TraceBuilder()
    gentle.rest(1)
    gentle.swings(Array(repeating: 0.9, count: 8), frequency: 5)
    gentle.rest(1)
    var rule2 = try make(ThreePeakRule.self, rate: 100, [:])
    #expect(run(&rule2, gentle.block).isEmpty)
  }

  @Test func chunkedEqualsOneShot() throws {
    var b = TraceBuilder()
    for _ in 0..<4 {
      b.rest(0.7)
      b.swings([1.6, 2.4, 1.8, 1.9, 2.2], frequency: 5)
    }
    b.rest(1)
    var whole = try make(ThreePeakRule.self, rate: 100, [:])
    let expected = run(&whole, b.block)
    #expect(expected.count == 4)
    for size in [1, 7, 64] {
      var rule = try make(ThreePeakRule.self, rate: 100, [:])
      #expect(run(&rule, b.block, blockSize: size) == expected)
    }
  }

  @Test func unknownParametersAndRanges() {
    #expect(throws: AccelError.self) { try make(ThreePeakRule.self, rate: 100, ["moves": 3]) }
    #expect(throws: AccelError.self) { try make(ThreePeakRule.self, rate: 100, ["alpha": 2]) }
  }
}

@Suite struct SeismicTests {
  func seismic(_ samples: [(Double, Double)], _ params: [String: Double] = [:]) throws -> [DetectorEvent] {
    // (t, |a| in g) along z.
    let block = SampleBlock(t: samples.map(\.0), x: samples.map { _ in 0 }, y: samples.map { _ in 0 }, z: samples.map(\.1))
    var rule = try make(SeismicRule.self, rate: 50, params)
    return run(&rule, block)
  }

  let high = 1.5  // 14.7 m/s^2: accelerating
  let low = 1.0

  @Test func aSingleSpikeIsNoShake() throws {
    let samples = (0..<100).map { i in (Double(i) * 0.02, i == 50 ? 3.0 : low) }
    #expect(try seismic(samples).isEmpty)
  }

  @Test func threeQuartersAcceleratingOverHalfAWindowFires() throws {
    // 50 Hz: a window of 0.5 s holds 26 samples; all accelerating from t = 1 s.
    let samples = (0..<200).map { i in (Double(i) * 0.02, i >= 50 ? high : low) }
    let events = try seismic(samples)
    #expect(!events.isEmpty)
    let first = try #require(events.first)
    // The queue spans 0.5 s with (n>>1)+(n>>2) accelerating: fires 0.25 s into the shake at the
    // earliest, and the queue is cleared, so the next fires at least 0.25 s later.
    #expect(first.reported >= 1.25 - 1e-9 && first.reported < 1.6)
    for (a, b) in zip(events, events.dropFirst()) { #expect(b.reported - a.reported >= 0.25 - 1e-9) }
  }

  @Test func halfAcceleratingDoesNotFire() throws {
    let samples = (0..<300).map { i in (Double(i) * 0.02, i % 2 == 0 ? high : low) }
    #expect(try seismic(samples).isEmpty)
  }

  @Test func theIntegerRuleVersusStrict() throws {
    // 7 quiet samples, then accelerating ones at 50 Hz: at n = 23 samples 16 accelerate, and
    // (23>>1)+(23>>2) = 16 lets 69.6% through; strict needs a true 75%, which 26 samples never reach.
    let samples = (0..<26).map { i in (Double(i) * 0.02, i < 7 ? low : high) }
    let events = try seismic(samples)
    #expect(events.count == 1)
    #expect(events.first?.count == 16 && abs(events.first!.reported - 0.44) < 1e-9)
    #expect(try seismic(samples, ["strict": 1]).isEmpty)
  }

  @Test func aSlowSensorKeepsFourSamples() throws {
    // A 300 ms sensor: a 0.5 s window would hold 2 samples, but the queue is never purged below
    // 4, so the three quiet samples are forgotten one at a time.
    let samples = [low, low, low, high, high, high, high].enumerated().map { (Double($0.offset) * 0.3, $0.element) }
    let events = try seismic(samples)
    #expect(events.count == 1)
    let e = try #require(events.first)
    #expect(abs(e.reported - 1.5) < 1e-9 && abs(e.start - 0.6) < 1e-9 && e.count == 3)
  }

  @Test func clearedAfterAShake() throws {
    // Every sample accelerating at 300 ms: after each shake the queue restarts empty, so the next
    // needs two samples again (span 0.3 s >= 0.25 s).
    let samples = (0..<8).map { i in (Double(i) * 0.3, high) }
    let events = try seismic(samples)
    #expect(events.map(\.reported).map { ($0 * 10).rounded() / 10 } == [0.3, 0.9, 1.5, 2.1])
  }

  @Test func sensitivityPresets() throws {
    let samples = (0..<200).map { i in (Double(i) * 0.02, 1.2) }  // 11.8 m/s^2
    #expect(try seismic(samples, ["sensitivity": 1]).count > 0)
    #expect(try seismic(samples, ["sensitivity": 2]).isEmpty)
  }
}

@Suite struct AngularChangeTests {
  func angular(_ b: TraceBuilder, _ params: [String: Double] = [:]) throws -> [DetectorEvent] {
    var rule = try make(AngularChangeRule.self, rate: b.rate, params)
    return run(&rule, b.block)
  }

  @Test func aHandShakeBeginsAndEnds() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings([1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2], frequency: 5)
    b.rest(1.5)
    let events = try angular(b)
    #expect(events.count == 1)
    let e = try #require(events.first)
    #expect(e.status == .ended && e.start >= 1 && e.start < 1.3 && e.end > 1.6 && e.end < 2.2)
  }

  @Test func aSlowRotationIsNoShake() throws {
    var b = TraceBuilder()
    let n = 300
    for i in 0..<n {  // turning from face up to portrait over 3 s
      let angle = Double.pi / 2 * Double(i) / Double(n)
      b.block.append(t: Double(i) / 100, x: 0, y: -sin(angle), z: -cos(angle))
    }
    #expect(try angular(b).isEmpty)
  }

  @Test func aTapIsNoShake() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.add(seconds: 0.03) { _ in (0.8, 0, 0.3) }  // a short knock
    b.rest(1)
    #expect(try angular(b).isEmpty)
  }

  @Test func aLongShakeIsCancelledAndTheRefractoryPeriodHolds() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.swings(Array(repeating: 1.2, count: 40), frequency: 5)  // 4 s of shaking
    b.rest(1.5)
    let cancelled = try angular(b, ["max_s": 2])
    #expect(cancelled.first?.status == .cancelled)
    #expect(abs(cancelled.first!.end - cancelled.first!.start - 2) < 1e-9)
    // After the cancel the shake goes on, but the next may begin only 1 s after the last start.
    if cancelled.count > 1 { #expect(cancelled[1].start - cancelled[0].start >= 1) }
  }

  /// window_s makes the averaging window a time: 0.08 s is the default 8 pairs at 100 Hz and 16
  /// pairs at 200 Hz (the activity itself, a difference of successive angular velocities, still
  /// scales with the rate).
  @Test func aWindowInSecondsIsAWindowInSeconds() throws {
    var b = TraceBuilder()
    b.rest(1)
    b.add(seconds: 1.5) { t in
      let v = 1.2 * sin(2 * .pi * 5 * (t - 1))
      return (v, 0.3 * v, 0)
    }
    b.rest(1.5)
    for (rate, pairs) in [(100.0, 8), (200.0, 16), (50.0, 4)] {
      var c = TraceBuilder(rate: rate)
      c.block = SampleBlock()
      for i in 0..<Int(4 * rate) {
        let t = Double(i) / rate
        let v = t >= 1 && t < 2.5 ? 1.2 * sin(2 * .pi * 5 * (t - 1)) : 0
        c.block.append(t: t, x: v, y: 0.3 * v, z: -1)
      }
      var counted = try make(AngularChangeRule.self, rate: rate, ["pairs": Double(pairs)])
      var timed = try make(AngularChangeRule.self, rate: rate, ["window_s": 0.08])
      #expect(run(&counted, c.block) == run(&timed, c.block), "\(rate) Hz")
    }
  }

  @Test func endAboveBeginIsRefused() {
    #expect(throws: AccelError.self) { try make(AngularChangeRule.self, rate: 100, ["begin": 2, "end": 3]) }
  }

  @Test func chunkedEqualsOneShot() throws {
    var b = TraceBuilder()
    for _ in 0..<3 {
      b.rest(1.2)
      b.swings(Array(repeating: 1.2, count: 8), frequency: 5)
    }
    b.rest(1.5)
    var whole = try make(AngularChangeRule.self, rate: 100, [:])
    let expected = run(&whole, b.block)
    #expect(expected.count == 3)
    for size in [1, 13] {
      var rule = try make(AngularChangeRule.self, rate: 100, [:])
      #expect(run(&rule, b.block, blockSize: size) == expected)
    }
  }
}

@Suite struct STLogTests {
  func events(_ rule: any Rule.Type, _ file: String) throws -> [DetectorEvent] {
    var settings = TraceReadSettings()
    settings.columns = try ColumnSpec(parsing: "x=1,y=2,z=3")
    settings.rate = 30
    settings.convention = .specificForce
    let (source, _) = try TraceOpener.open(path: Paths.real("st-mlc/") + file, settings: settings)
    var detector = try RuleSetting(rule: rule.name).detector(rate: 30)
    var out: [DetectorEvent] = []
    while let block = try source.next() { out += detector.process(block) }
    return out + detector.finish()
  }

  @Test func stationaryGivesNoneAndShakingIsMostlyCovered() throws {
    for rule in Detectors.emitting("shake") {
      for file in ["stationary.csv", "stationary_not_upright.csv", "other.txt"] {
        #expect(try events(rule, file).isEmpty, "\(rule.name) on \(file)")
      }
      let shaking = try events(rule, "shake.csv").map { ($0.start, $0.end) }.sorted { $0.0 < $1.0 }
      var covered = 0.0
      var current: (Double, Double)? = nil
      for span in shaking {
        if let c = current, span.0 <= c.1 {
          current = (c.0, max(c.1, span.1))
        } else {
          if let c = current { covered += c.1 - c.0 }
          current = span
        }
      }
      if let c = current { covered += c.1 - c.0 }
      #expect(covered / 42.07 > 0.7, "\(rule.name) covers \(covered) s of 42 s")
    }
  }
}

/// A rule made with parameters set by name on its typed configuration.
func make<R: Rule>(_ type: R.Type, rate: Double, _ parameters: [String: Double]) throws -> R {
  var configuration = R.Configuration()
  for name in parameters.keys.sorted() { try configuration.set(name, to: parameters[name]!, owner: R.name) }
  return try R(rate: rate, configuration: configuration)
}

/// The swing rule on built motions: a hand shake along any axis at any rate and through clipping,
/// against gait-like impacts, a lone jiggle and a slow turn.
@Suite struct SwingTests {
  /// `seconds` of a sine of `peak` g at `hz` along `direction` (a unit vector), tapered over a
  /// quarter cycle at each end.
  func shake(_ b: inout TraceBuilder, seconds: Double, hz: Double, peak: Double, direction: (Double, Double, Double)) {
    let t0 = Double(b.block.count) / b.rate
    b.add(seconds: seconds) { t in
      let local = t - t0
      let taper = min(1, min(local, seconds - local) * 4 * hz)
      let v = peak * max(0, taper) * sin(2 * .pi * hz * local)
      return (v * direction.0, v * direction.1, v * direction.2)
    }
  }

  func swing(_ b: TraceBuilder, _ params: [String: Double] = [:], clip: Double? = nil) throws -> [DetectorEvent] {
    var block = b.block
    if let clip {
      for i in 0..<block.count {
        block.x[i] = max(-clip, min(clip, block.x[i]))
        block.y[i] = max(-clip, min(clip, block.y[i]))
        block.z[i] = max(-clip, min(clip, block.z[i]))
      }
    }
    var rule = try make(SwingRule.self, rate: b.rate, params)
    return run(&rule, block)
  }

  /// A 2 s, 4 Hz, 1.5 g shake is found with its span, at 30, 100 and 400 Hz, along a device axis
  /// or a diagonal, with the device flat or upright, and still when the sensor clips at 2 g.
  @Test func aHandShakeIsFoundAtAnyRateAxisAndAttitude() throws {
    let diagonal = 1 / 3.0.squareRoot()
    for rate in [30.0, 100, 400] {
      for direction in [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (diagonal, diagonal, diagonal)] {
        for gravity in [(0.0, 0.0, -1.0), (0.0, -1.0, 0.0)] {
          var b = TraceBuilder(rate: rate, gravity: gravity)
          b.rest(2)
          shake(&b, seconds: 2, hz: 4, peak: 1.5, direction: direction)
          b.rest(2)
          for clip in [nil, 2.0] as [Double?] {
            let events = try swing(b, clip: clip)
            #expect(events.count == 1, "\(rate) Hz \(direction) \(gravity) clip \(String(describing: clip)): \(events)")
            guard let e = events.first else { continue }
            #expect(abs(e.start - 2) < 0.2 && abs(e.end - 4) < 0.2, "\(rate) Hz: \(e.start)...\(e.end)")
            #expect(e.reported > e.start && e.reported < 3, "reported \(e.reported)")
            #expect(e.count! >= 12 && e.peakG! > 0.8)
          }
        }
      }
    }
  }

  /// Gait: a heel strike every 0.36 s, a sharp 2.5 g upward pulse (40 ms) with the long, shallow
  /// fall that balances it (at most 1 g down), along gravity for 30 s. Lopsided: no shake.
  @Test func gaitImpactsAreNoShake() throws {
    for rate in [50.0, 200] {
      var b = TraceBuilder(rate: rate)
      let period = 0.36, width = 0.02, height = 2.5
      let mean = height * width * (2 * Double.pi).squareRoot() / period
      b.add(seconds: 30) { t in
        let phase = t.truncatingRemainder(dividingBy: period) - period / 2
        let up = height * exp(-phase * phase / (2 * width * width)) - mean
        return (0, 0, -up)  // up is -z for a device lying face up
      }
      #expect(try swing(b).isEmpty, "\(rate) Hz")
    }
  }

  /// One back-and-forth (two half-swings) is a jiggle, not a shake; nor is a slow turn of the
  /// device, nor 2 s of rest.
  @Test func aJiggleATurnAndRestAreNoShake() throws {
    var b = TraceBuilder()
    b.rest(2)
    b.swings([1.5, 1.5], frequency: 4)
    b.rest(2)
    b.add(seconds: 3) { t in
      // Gravity swinging from z to x over 3 s, as the device turns (user acceleration is small).
      let angle = Double.pi / 2 * min(1, max(0, (t - 4.5) / 3))
      return (sin(angle), 0, 1 - cos(angle))
    }
    b.rest(2)
    #expect(try swing(b).isEmpty)
  }

  /// A shake that pauses briefly goes on as one event; a long pause makes two.
  @Test func aShortPauseIsBridgedALongOneSplits() throws {
    for (pause, expected) in [(0.3, 1), (1.5, 2)] {
      var b = TraceBuilder()
      b.rest(1)
      shake(&b, seconds: 1.5, hz: 5, peak: 1.5, direction: (1, 0, 0))
      b.rest(pause)
      shake(&b, seconds: 1.5, hz: 5, peak: 1.5, direction: (1, 0, 0))
      b.rest(1)
      #expect(try swing(b).count == expected, "pause \(pause) s")
    }
  }

  @Test func chunkedEqualsOneShot() throws {
    var b = TraceBuilder(rate: 60)
    for k in 0..<3 {
      b.rest(1.3)
      shake(&b, seconds: 1.5 + Double(k) * 0.5, hz: 3 + Double(k), peak: 1.2, direction: (0, 1, 0))
    }
    b.rest(1.5)
    let expected = try swing(b)
    #expect(expected.count == 3)
    for size in [1, 7, 64] {
      var rule = try make(SwingRule.self, rate: 60, [:])
      #expect(run(&rule, b.block, blockSize: size) == expected)
    }
  }

  @Test func contradictoryParametersAreRefused() {
    #expect(throws: AccelError.self) { try make(SwingRule.self, rate: 100, ["min_hz": 9, "max_hz": 8]) }
    #expect(throws: AccelError.self) { try make(SwingRule.self, rate: 100, ["hysteresis_g": 0.7, "swing_g": 0.6]) }
  }
}

/// Every detector is fed finite rows only (`FiniteSamplesOnly`, as the exported C's input guard):
/// NaN and infinite readings or times are gaps, and the events are the clean trace's.
@Suite struct FiniteSamplesTests {
  @Test func nonFiniteRowsAreGaps() throws {
    let n = 3000
    let t = (0..<n).map { Double($0) / 100 }
    let x = t.map { $0 > 10 && $0 < 13 ? 2.5 * sin(2 * .pi * 4 * $0) : 0 }
    let clean = SampleBlock(t: t, x: x, y: t.map { _ in 0 }, z: t.map { _ in -1 })
    var dirty = SampleBlock()
    for i in 0..<n {
      dirty.append(contentsOf: clean.slice(i..<(i + 1)))
      if i % 400 == 7 {
        let between = (t[i] + (i + 1 < n ? t[i + 1] : t[i] + 0.01)) / 2
        dirty.append(contentsOf: SampleBlock(t: [between, .nan, between], x: [.nan, 0, .infinity], y: [0, 0, 0], z: [-1, -1, -1]))
      }
    }
    #expect(FiniteSamplesOnly.finiteRows(dirty) == clean)
    #expect(FiniteSamplesOnly.finiteRows(clean) == clean)
    for name in Detectors.names {
      let setting = try RuleSetting(rule: name)
      var once = [clean].makeIterator()
      let expected = try setting.detect(rate: 100) { once.next() }
      var blocks = [dirty.slice(0..<1000), dirty.slice(1000..<dirty.count)].makeIterator()
      let found = try setting.detect(rate: 100) { blocks.next() }
      #expect(found == expected, "\(name)")
    }
  }
}
