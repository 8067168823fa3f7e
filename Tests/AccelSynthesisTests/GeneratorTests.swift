#if canImport(Glibc)
  import Glibc
#endif
import AccelCore
import Testing

@testable import AccelSynthesis

/// The generator of annotated traces: deterministic, physically plausible, and labelled as its
/// documentation says.
@Suite struct GeneratorTests {
  @Test func theSameSeedAndIndexGiveTheSameTrace() {
    let a = Generator.trace(seed: 7, index: 3, scenario: .mixed)
    let b = Generator.trace(seed: 7, index: 3, scenario: .mixed)
    #expect(a.samples == b.samples)
    #expect(a.segments.map(\.kind) == b.segments.map(\.kind))
    let other = Generator.trace(seed: 7, index: 4, scenario: .mixed)
    #expect(other.samples != a.samples)
  }

  @Test func timestampsIncreaseAndReadingsStayInTheSensorsRange() {
    for index in 0..<8 {
      let g = Generator.trace(seed: 11, index: index, scenario: .mixed, duration: 20)
      let s = g.samples
      #expect(s.count > Int(0.9 * 20 * g.sensor.rate), "dropped too many samples")
      #expect(zip(s.t, s.t.dropFirst()).allSatisfy { $0 < $1 })
      for axis in [s.x, s.y, s.z] {
        // Clipped at the rail, which is itself a step of the sensor's resolution.
        let rail = (g.sensor.range / g.sensor.resolution).rounded() * g.sensor.resolution
        #expect(axis.allSatisfy { abs($0) <= rail + 1e-12 })
        // Quantised to the sensor's resolution.
        #expect(axis.allSatisfy { abs(($0 / g.sensor.resolution).rounded() * g.sensor.resolution - $0) < 1e-9 })
      }
    }
  }

  @Test func atRestTheReadingIsGravityInAppleConvention() {
    for index in 0..<10 {
      let g = Generator.trace(seed: 3, index: index, scenario: .negatives, duration: 30)
      for segment in g.segments where segment.kind == .rest && segment.duration > 1.5 {
        // The middle of the stretch: the reading points along the true gravity, |a| about 1 g.
        let inside = g.samples.t.indices.filter { g.samples.t[$0] > segment.start + 0.5 && g.samples.t[$0] < segment.end - 0.5 }
        guard !inside.isEmpty else { continue }
        var sum = (0.0, 0.0, 0.0)
        for i in inside { sum = (sum.0 + g.samples.x[i], sum.1 + g.samples.y[i], sum.2 + g.samples.z[i]) }
        let n = Double(inside.count)
        let mean = (sum.0 / n, sum.1 / n, sum.2 / n)
        let truth = g.gravity[inside[inside.count / 2]]
        let norm = (mean.0 * mean.0 + mean.1 * mean.1 + mean.2 * mean.2).squareRoot()
        #expect(abs(norm - 1) < 0.08, "|a| = \(norm) at rest")
        let cosine = (mean.0 * truth.0 + mean.1 * truth.1 + mean.2 * truth.2) / norm
        #expect(cosine > 0.995, "the reading is \(acos(min(1, cosine)) * 180 / .pi) degrees from gravity")
        let truthNorm = (truth.0 * truth.0 + truth.1 * truth.1 + truth.2 * truth.2).squareRoot()
        #expect(abs(truthNorm - 1) < 1e-12)
      }
    }
  }

  /// Sustained shaking: one event of 8-60 s made of whole bursts, still in the pauses between
  /// them (none a second long), shaking in the bursts. (GenerateCLITests proves the other
  /// scenarios' traces unchanged by its draws.)
  @Test func sustainedShakingIsOneEventOfBurstsWithShortPauses() {
    var bouts = 0
    for index in 0..<6 {
      let g = Generator.trace(seed: 5, index: index, scenario: .sustained, duration: Scenario.sustained.traceSeconds)
      for segment in g.segments where segment.label == "shake" {
        bouts += 1
        #expect(segment.duration >= 1.9 && segment.duration <= 61, "\(segment.duration) s")
        let burst = segment.parameters["burst_s"]!
        let pause = segment.parameters["pause_s"]!
        #expect(pause < 1 && burst >= 2)
        // Ends with a burst: a whole number of (burst + pause) periods less one pause.
        let periods = (segment.duration + pause) / (burst + pause)
        #expect(abs(periods - periods.rounded()) < 1e-9)
        // In a pause the hand is still; in the middle of a burst it moves.
        let f = segment.parameters["hz"]!
        if segment.duration > burst + pause {
          let still = segment.state(at: segment.start + burst + pause / 2)
          let moving = (0..<8).map { segment.state(at: segment.start + burst / 2 + Double($0) / (8 * f)) }
          #expect(abs(still.deviceAcceleration.0) + abs(still.deviceAcceleration.1) + abs(still.deviceAcceleration.2) < 1e-12)
          #expect(moving.map { abs($0.deviceAcceleration.0) + abs($0.deviceAcceleration.1) + abs($0.deviceAcceleration.2) }.max()! > 0.5)
        }
      }
    }
    #expect(bouts >= 4)
  }

  /// Sustained shaking goes as slow as 1.2 Hz, and a slow shake is gentler: the hand travels at
  /// most 40 cm each way, so the peak stays within 0.4 (2 pi f)^2 (2.3 g at 1.2 Hz; a 4 Hz shake
  /// may reach 6 g).
  @Test func slowSustainedShakingTravelsAtMostFortyCentimetres() {
    var slow = 0
    for index in 0..<60 {
      let g = Generator.trace(
        seed: 7, index: index, scenario: .sustained, duration: Scenario.sustained.traceSeconds)
      for segment in g.segments where segment.label == "shake" {
        let f = segment.parameters["hz"]!
        let peak = segment.parameters["peak_g"]!
        #expect(f >= 1.2 && f <= 5)
        #expect(peak >= 1.5 && peak <= 6)
        let cap = 0.4 * pow(2 * .pi * f, 2) / AccelerationUnit.standardGravity
        #expect(peak <= cap + 1e-12, "\(f) Hz, \(peak) g")
        if f < 2 { slow += 1 }
      }
    }
    #expect(slow >= 5, "a fifth of the draws should be below 2 Hz")
  }

  /// Hard negatives: chops and steering, nothing annotated. Worked from a chop's parameters: half
  /// way down the forearm has turned half its drop at its fastest (the elbow's pull r phi'^2 along
  /// y, no push along x); held at the bottom nothing moves; a cycle later it is back at the top.
  /// Steering turns the device about its screen's normal by angle_rad sin(2 pi f t).
  @Test func hardNegativesAreChopsAndSteeringWithoutEvents() {
    var (chops, steers) = (0, 0)
    for index in 0..<12 {
      let g = Generator.trace(
        seed: 9, index: index, scenario: .hardNegatives, duration: Scenario.hardNegatives.traceSeconds)
      #expect(!g.segments.contains { $0.label != nil || $0.kind == .shake })
      for segment in g.segments where segment.kind == .chop {
        let p = segment.parameters
        let (down, hold, drop, radius) = (p["down_s"]!, p["hold_s"]!, p["drop_rad"]!, p["radius_m"]!)
        let cycle = down + hold + p["up_s"]! + p["pause_s"]!
        // A segment the trace's end cut holds only whole chops (perhaps none); the last 0.6 s settle.
        guard segment.duration >= cycle + 0.6 else { continue }
        chops += 1
        let top = segment.state(at: segment.start)
        let mid = segment.state(at: segment.start + down / 2)
        let rate = drop * (.pi / down) / 2
        #expect(abs(top.attitude.pitch - mid.attitude.pitch - drop / 2) < 1e-9)
        #expect(abs(mid.deviceAcceleration.0) < 1e-9)
        let pull = radius * rate * rate / AccelerationUnit.standardGravity
        #expect(abs(mid.deviceAcceleration.1 - pull) < 1e-9)
        let held = segment.state(at: segment.start + down + hold / 2)
        #expect(abs(top.attitude.pitch - held.attitude.pitch - drop) < 1e-9)
        #expect(abs(held.deviceAcceleration.0) + abs(held.deviceAcceleration.1) < 1e-12)
        let again = segment.state(at: segment.start + cycle)
        #expect(abs(again.attitude.pitch - top.attitude.pitch) < 1e-9)
        // The peak of the swing: 0.6-6.5 g at the hand.
        let peak = drop * pow(.pi / down, 2) / 2 * radius / AccelerationUnit.standardGravity
        #expect(peak > 0.6 && peak < 6.5, "\(peak) g")
      }
      for segment in g.segments where segment.kind == .steer {
        let p = segment.parameters
        let at = 0.5 + 0.25 / p["hz"]!  // past the fade-in, a quarter turn of the wheel in
        guard at < segment.duration - 0.6 else { continue }
        steers += 1
        let turned = segment.state(at: segment.start + at)
        let expected = p["angle_rad"]! * sin(2 * .pi * p["hz"]! * at)
        #expect(abs(turned.attitude.pitch - segment.from.pitch - expected) < 1e-9)
      }
    }
    #expect(chops >= 3 && steers >= 3, "\(chops) chops, \(steers) spells of steering")
  }

  @Test func scenariosControlTheShakes() {
    var shakes = 0
    for index in 0..<10 {
      let negatives = Generator.trace(seed: 5, index: index, scenario: .negatives)
      #expect(!negatives.segments.contains { $0.kind == .shake })
      let labelled = Generator.trace(seed: 5, index: index, scenario: .shakes)
      shakes += labelled.segments.filter { $0.label == "shake" }.count
      // Segments tile the trace without gaps or overlaps.
      for (a, b) in zip(labelled.segments, labelled.segments.dropFirst()) { #expect(abs(a.end - b.start) < 1e-9) }
    }
    #expect(shakes >= 20, "the shakes scenario should put a shake after most stretches")
  }

  @Test(arguments: [MotionSegment.ShakeStyle.sine, .strokes])
  func aShakeIsAnOscillationAtItsFrequency(style: MotionSegment.ShakeStyle) {
    // Find a strong shake and check that the reading swings at about its frequency.
    for index in 0..<20 {
      let g = Generator.trace(seed: 9, index: index, scenario: .shakes, shakeModels: [style])
      guard let shake = g.segments.first(where: { $0.kind == .shake && $0.parameters["peak_g"]! > 1.5 && $0.duration > 0.6 }) else {
        continue
      }
      let s = g.samples
      let inside = s.t.indices.filter { s.t[$0] >= shake.start && s.t[$0] < shake.end }
      let d = [shake.parameters["dx"]!, shake.parameters["dy"]!, shake.parameters["dz"]!].map(abs)
      let axis = [s.x, s.y, s.z][d.indices.max { d[$0] < d[$1] }!]
      let values = inside.map { axis[$0] }
      let mean = values.reduce(0, +) / Double(values.count)
      var crossings = 0
      for (a, b) in zip(values, values.dropFirst()) where (a - mean) * (b - mean) < 0 { crossings += 1 }
      let expected = 2 * shake.parameters["hz"]! * shake.duration
      #expect(Double(crossings) >= expected * 0.5 && Double(crossings) <= expected * 2 + 2, "\(crossings) crossings, expected about \(expected)")
      return
    }
    Issue.record("no strong shake found in 20 traces")
  }

  /// A twist turns the device: the true gravity swings in the device frame at the shake's rate.
  @Test func aTwistTurnsTheDevice() {
    for index in 0..<20 {
      let g = Generator.trace(seed: 9, index: index, scenario: .shakes, shakeModels: [.twist])
      guard let shake = g.segments.first(where: { $0.kind == .shake && $0.duration > 0.6 }) else { continue }
      let inside = g.samples.t.indices.filter { g.samples.t[$0] >= shake.start && g.samples.t[$0] < shake.end }
      let gravity = inside.map { g.gravity[$0] }
      let spread = [\(Double, Double, Double).0, \.1, \.2].map { k in
        (gravity.map { $0[keyPath: k] }.max() ?? 0) - (gravity.map { $0[keyPath: k] }.min() ?? 0)
      }.max() ?? 0
      #expect(spread > 0.2, "gravity moved by \(spread) g during a twist of \(shake.parameters["twist_rad"]!) rad")
      return
    }
    Issue.record("no twist found in 20 traces")
  }

  /// Shakes span the definition: 2-8 Hz, from two cycles (quick flicks) to twelve, every motion
  /// model drawn.
  @Test func shakesSpanTheDefinition() {
    var styles = Set<Int>()
    var flicks = 0
    var total = 0
    for index in 0..<40 {
      for s in Generator.trace(seed: 4, index: index, scenario: .shakes).segments where s.kind == .shake {
        let hz = s.parameters["hz"]!
        let cycles = hz * s.duration
        #expect(hz >= 2 && hz <= 8)
        #expect(cycles >= 2 - 1e-9 && cycles <= 12 + 1e-9, "\(cycles) cycles")
        if cycles <= 3 { flicks += 1 }
        styles.insert(Int(s.parameters["style"]!))
        total += 1
      }
    }
    #expect(styles.count == MotionSegment.ShakeStyle.allCases.count)
    #expect(flicks * 5 >= total, "\(flicks) flicks of \(total) shakes")
  }
}

/// The generated gyroscope measures the attitude's own motion: gravity in the device frame,
/// turned by the measured rate over each interval (dg/dt = g x w), lands on the next sample's true
/// gravity, far closer than not turning it at all.
@Suite struct GeneratedGyroscopeTests {
  @Test func theRateTurnsGravityAsTheAttitudeDoes() throws {
    var checked = 0
    for index in 0..<12 {
      let g = Generator.trace(seed: 21, index: index, scenario: .mixed, duration: 20)
      guard let rate = g.samples.gyroscope else {
        #expect(g.sensor.gyroscope == nil)
        continue
      }
      #expect(rate.count == g.samples.count)
      var turned = 0.0, still = 0.0
      for k in 0..<(g.samples.count - 1) {
        let dt = g.samples.t[k + 1] - g.samples.t[k]
        guard dt < 2 / g.sensor.rate else { continue }  // not across a gap
        let a = g.gravity[k], b = g.gravity[k + 1]
        let w = (rate.x[k], rate.y[k], rate.z[k])
        let cross = (a.1 * w.2 - a.2 * w.1, a.2 * w.0 - a.0 * w.2, a.0 * w.1 - a.1 * w.0)
        let predicted = (a.0 + dt * cross.0, a.1 + dt * cross.1, a.2 + dt * cross.2)
        func distance(_ p: (Double, Double, Double), _ q: (Double, Double, Double)) -> Double {
          ((p.0 - q.0) * (p.0 - q.0) + (p.1 - q.1) * (p.1 - q.1) + (p.2 - q.2) * (p.2 - q.2)).squareRoot()
        }
        turned += distance(predicted, b)
        still += distance(a, b)
      }
      #expect(turned < 0.35 * still, "trace \(index): turned \(turned), still \(still)")
      checked += 1
    }
    #expect(checked >= 5, "too few traces with a gyroscope")
  }
}
