import AccelCore
import AccelFilters
import AccelIO
import AccelOrientation
import Foundation
import TestSupport
import Testing

func gravity(upAngle u: Double, tilt: Double = 90) -> (Double, Double, Double) {
  // Apple's convention: g = (-cos u, sin u) in the screen plane scaled by sin(tilt), z = -cos(tilt).
  let s = sin(tilt * .pi / 180)
  return (-cos(u) * s, sin(u) * s, -cos(tilt * .pi / 180))
}

@Suite struct AttitudeTests {
  @Test func coreMotionAnglesByHand() throws {
    #expect(Attitude.pitch(0, 0, -1) == 0 && Attitude.roll(0, 0, -1) == 0)  // face up
    #expect(Attitude.pitch(0, -1, 0) == 90)  // portrait upright
    #expect(Attitude.roll(0, -1, 0) == nil)  // the pole: no direction for roll
    #expect(Attitude.pitch(0, 1, 0) == -90)
    let r = 30.0 * .pi / 180
    #expect(abs(try #require(Attitude.roll(sin(r), 0, -cos(r))) - 30) < 1e-12)
    #expect(Attitude.roll(0, 0, 1) == 180)  // face down: roll 180, in (-180, 180]
    #expect(Attitude.roll(-0.0, 0, 1) == 180)
    #expect(
      Attitude.tilt(0, 0, -1) == 0 && Attitude.tilt(0, 0, 1) == 180
        && abs(Attitude.tilt(1, 0, 0) - 90) < 1e-12)
    #expect(Attitude.upAngle(0, -1) == -Double.pi / 2)
  }

  @Test func aerospaceAnglesByHand() throws {
    let flat = Attitude.aerospace(0, 0, -1)  // specific force (0, 0, 1)
    #expect(flat.roll == 0 && flat.pitch == 0)
    let down = Attitude.aerospace(0, 0, 1)
    #expect(down.roll == 180 && down.pitch == 0)
    let nose = Attitude.aerospace(-1, 0, 0)  // f = (1, 0, 0): pitch_y = -90
    #expect(nose.pitch == -90 && nose.roll == nil)
    let r = 20.0 * .pi / 180
    let rolled = Attitude.aerospace(0, -sin(r), -cos(r))  // f = (0, sin, cos): roll_x = 20
    #expect(abs(try #require(rolled.roll) - 20) < 1e-12)
  }
}

@Suite struct ClassifierTests {
  @Test func indexIsThePositionInAllCases() {
    #expect(DeviceOrientation.allCases.enumerated().allSatisfy { $0.element.index == $0.offset })
  }

  let c = OrientationClassifier(flatAngle: 25, accelerationTolerance: 0.2, hysteresis: 10)

  @Test func everyClassBoundary() {
    func cls(_ u: Double) -> DeviceOrientation { c.classify(gravity: gravity(upAngle: u), magnitude: 1) }
    #expect(cls(-2.25) == .portrait && cls(-0.75) == .portrait)
    #expect(
      cls(-0.75 + 1e-9) == .landscapeRight && cls(0.75 - 1e-9) == .landscapeRight && cls(0) == .landscapeRight
    )
    #expect(cls(0.75) == .portraitUpsideDown && cls(2.25) == .portraitUpsideDown)
    #expect(
      cls(2.25 + 1e-9) == .landscapeLeft && cls(-2.25 - 1e-9) == .landscapeLeft
        && cls(Double.pi) == .landscapeLeft)
    #expect(cls(-Double.pi / 2) == .portrait && cls(Double.pi / 2) == .portraitUpsideDown)
  }

  @Test func flatAndAccelerating() {
    #expect(c.classify(gravity: gravity(upAngle: 0, tilt: 24.9), magnitude: 1) == .faceUp)
    #expect(c.classify(gravity: gravity(upAngle: 0, tilt: 25.1), magnitude: 1) == .landscapeRight)
    #expect(c.classify(gravity: gravity(upAngle: 0, tilt: 155.1), magnitude: 1) == .faceDown)
    #expect(c.classify(gravity: (0, 0, -1), magnitude: 1.21) == .unknown)
    #expect(c.classify(gravity: (0, 0, -1), magnitude: 0.79) == .unknown)
    #expect(c.classify(gravity: (0, 0, -1), magnitude: 1.19) == .faceUp)
  }

  @Test func hysteresisKeepsTheCurrentClass() {
    let deg = Double.pi / 180
    // Past the portrait / landscape-right boundary by 5 degrees: kept with hysteresis 10.
    #expect(
      c.classify(gravity: gravity(upAngle: -0.75 + 5 * deg), magnitude: 1, current: .portrait) == .portrait)
    #expect(
      c.classify(gravity: gravity(upAngle: -0.75 + 11 * deg), magnitude: 1, current: .portrait)
        == .landscapeRight)
    #expect(c.classify(gravity: gravity(upAngle: 0, tilt: 30), magnitude: 1, current: .faceUp) == .faceUp)
    #expect(
      c.classify(gravity: gravity(upAngle: 0, tilt: 36), magnitude: 1, current: .faceUp) == .landscapeRight)
    // Entering face-up from upright needs tilt below 25 - 10.
    #expect(
      c.classify(gravity: gravity(upAngle: 0, tilt: 20), magnitude: 1, current: .landscapeRight)
        == .landscapeRight)
    #expect(
      c.classify(gravity: gravity(upAngle: 0, tilt: 14), magnitude: 1, current: .landscapeRight) == .faceUp)
  }
}

@Suite struct AnnouncerTests {
  /// Turns through all six orientations; at every change the reading wobbles back and forth
  /// across the boundary (within the hysteresis) before settling.
  static func turningTrace() -> [(Double, Double, Double)] {
    let rate = 100.0
    var samples: [(Double, Double, Double)] = []
    var rng = SeededRandom(seed: 2)
    func hold(_ g: (Double, Double, Double), seconds: Double) {
      for _ in 0..<Int(seconds * rate) {
        samples.append(
          (
            g.0 + Double.random(in: -0.01...0.01, using: &rng),
            g.1 + Double.random(in: -0.01...0.01, using: &rng), g.2
          ))
      }
    }
    func wobble(aroundUpAngle u: Double, tilt: Double = 90) {
      for k in 0..<60 {  // 0.6 s of +-6 degrees around the boundary
        let d = (k % 20 < 10 ? 1.0 : -1.0) * 6 * .pi / 180 * Double.random(in: 0.2...1, using: &rng)
        samples.append(gravity(upAngle: u + d, tilt: tilt))
      }
    }
    hold(gravity(upAngle: -Double.pi / 2), seconds: 1)  // portrait
    wobble(aroundUpAngle: -0.75)
    hold(gravity(upAngle: 0), seconds: 1)  // landscape-right
    wobble(aroundUpAngle: 0.75)
    hold(gravity(upAngle: Double.pi / 2), seconds: 1)  // portrait-upside-down
    wobble(aroundUpAngle: 2.25)
    hold(gravity(upAngle: Double.pi), seconds: 1)  // landscape-left
    for k in 0..<60 {  // tilt wobbling around the flat boundary
      let tilt = 25 + (k % 20 < 10 ? 6.0 : -6.0) * Double.random(in: 0.2...1, using: &rng)
      samples.append(gravity(upAngle: Double.pi, tilt: tilt))
    }
    hold((0, 0, -1), seconds: 1)  // face-up
    for _ in 0..<50 { samples.append((0, 0, -1.6)) }  // a shake: accelerating, nothing announced
    hold((0, 0, 1), seconds: 1)  // face-down
    return samples
  }

  static func events(settle: Double, hysteresis: Double) -> [OrientationEvent] {
    var announcer = OrientationAnnouncer(
      classifier: OrientationClassifier(hysteresis: hysteresis), settle: settle)
    var events: [OrientationEvent] = []
    for (i, g) in turningTrace().enumerated() {
      let m = (g.0 * g.0 + g.1 * g.1 + g.2 * g.2).squareRoot()
      if let e = announcer.add(t: Double(i) / 100, gravity: g, magnitude: m) { events.append(e) }
    }
    return events
  }

  @Test func sixOrientationsGiveExactlyTheExpectedEvents() {
    let events = Self.events(
      settle: OrientationAnnouncer.defaultSettle, hysteresis: OrientationClassifier.defaultHysteresis)
    #expect(
      events.map(\.to) == [
        .portrait, .landscapeRight, .portraitUpsideDown, .landscapeLeft, .faceUp, .faceDown,
      ])
    #expect(
      events.map(\.from) == [
        .unknown, .portrait, .landscapeRight, .portraitUpsideDown, .landscapeLeft, .faceUp,
      ])
    #expect(abs(events[0].t - 0.3) < 1e-9)
  }

  /// Without hysteresis and settle time the same wobbles flap; either alone suppresses them here.
  @Test func withoutHysteresisAndSettleTheWobblesFlap() {
    #expect(Self.events(settle: 0, hysteresis: 0).count == 28)
    #expect(Self.events(settle: 0, hysteresis: 4).count == 28)
    #expect(Self.events(settle: 0, hysteresis: 7).count == 6)
    #expect(Self.events(settle: 0.1, hysteresis: 0).count == 6)
  }
}

@Suite struct RealRecordingTests {
  func read(_ path: String, columns: String, allowNonFinite: Bool = false) throws -> SampleBlock {
    var settings = TraceReadSettings()
    settings.columns = try ColumnSpec(parsing: columns)
    settings.units = .fixed(.g)
    settings.allowNonFinite = allowNonFinite
    // Some reads put another column (a quaternion's w, a flag) where the time goes.
    settings.timeOrder = .report
    let (source, _) = try TraceOpener.open(path: path, settings: settings)
    return try source.readAll()
  }

  /// Core Motion's own pitch and roll, from its attitude quaternion with the ZXY decomposition:
  /// R = Rz(yaw) Rx(pitch) Ry(roll), so pitch = asin(R32) and roll = atan2(-R31, R33).
  @Test func rollAndPitchEqualCoreMotionsAttitude() throws {
    for name in ["walk_data", "balance_data", "rest_tremor_data", "kinetic_tremor_data"] {
      let path = Paths.real("coremotion/\(name).csv")
      let g = try read(path, columns: "t=t_s,x=gravity_x_g,y=gravity_y_g,z=gravity_z_g")
      let q = try read(path, columns: "t=att_qw,x=att_qx,y=att_qy,z=att_qz")
      var worst = 0.0
      var compared = 0
      for i in 0..<g.count {
        let (w, x, y, z) = (q.t[i], q.x[i], q.y[i], q.z[i])
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        let (qw, qx, qy, qz) = (w / n, x / n, y / n, z / n)
        let r31 = 2 * (qx * qz - qw * qy)
        let r32 = 2 * (qy * qz + qw * qx)
        let r33 = 1 - 2 * (qx * qx + qy * qy)
        let pitch = asin(max(-1, min(1, r32))) * 180 / .pi
        guard abs(pitch) < 85 else { continue }  // roll is ill-conditioned near the poles
        let roll = atan2(-r31, r33) * 180 / .pi
        let ours = try #require(Attitude.roll(g.x[i], g.y[i], g.z[i]))
        var d = abs(ours - roll)
        if d > 180 { d = 360 - d }
        worst = max(worst, d, abs(Attitude.pitch(g.x[i], g.y[i], g.z[i]) - pitch))
        compared += 1
      }
      #expect(compared > 800, "\(name)")
      #expect(worst < 0.01, "\(name): worst difference \(worst) degrees")
    }
  }

  /// BROAD: aerospace tilt from the accelerometer (through the default gravity low-pass) against the
  /// optical truth. Prints the figures reported in the docs.
  @Test func broadTiltAgainstOpticalTruth() throws {
    let path = Paths.real("broad-tilt/02_undisturbed_slow_rotation_B.csv.gz")
    var settings = TraceReadSettings()
    settings.columns = try ColumnSpec(parsing: "t=t_s,x=acc_x_mps2,y=acc_y_mps2,z=acc_z_mps2")
    settings.units = .fixed(.metersPerSecondSquared)
    settings.convention = .specificForce
    let acc = try TraceOpener.open(path: path, settings: settings).0.readAll()
    let up = try read(path, columns: "t=movement,x=up_x,y=up_y,z=up_z", allowNonFinite: true)
    let truth = try read(
      path, columns: "t=t_s,x=roll_true_deg,y=pitch_true_deg,z=movement", allowNonFinite: true)
    let rate = 285.7142857142857
    var gx = acc.x
    var gy = acc.y
    var gz = acc.z
    var low = ExponentialLowpass3(
      alpha: try ExponentialDesign.alpha(cutoff: 1 / (2 * Double.pi * 0.2), rate: rate),
      initialization: .steady)
    low.process(&gx, &gy, &gz)
    var rest: [Double] = []
    var moving: [Double] = []
    var restRollPitch: [Double] = []
    for i in 0..<acc.count where up.x[i].isFinite {
      // The inclination error: the angle between the estimated and the true "up".
      let f = (-gx[i], -gy[i], -gz[i])
      let nf = (f.0 * f.0 + f.1 * f.1 + f.2 * f.2).squareRoot()
      let dot = (f.0 * up.x[i] + f.1 * up.y[i] + f.2 * up.z[i]) / nf
      let error = acos(max(-1, min(1, dot))) * 180 / .pi
      if truth.z[i] == 1 { moving.append(error) } else { rest.append(error) }
      if truth.z[i] != 1, truth.x[i].isFinite {
        let a = Attitude.aerospace(gx[i], gy[i], gz[i])
        if let roll = a.roll {
          var d = abs(roll - truth.x[i])
          if d > 180 { d = 360 - d }
          restRollPitch.append(max(d, abs(a.pitch - truth.y[i])))
        }
      }
    }
    func median(_ v: [Double]) -> Double {
      let s = v.sorted()
      return s[s.count / 2]
    }
    print(
      "BROAD inclination error: at rest median \(median(rest)) deg (n=\(rest.count)), moving median \(median(moving)) deg (n=\(moving.count)); at rest max(|d roll|, |d pitch|) median \(median(restRollPitch))"
    )
    #expect(rest.count > 1000 && moving.count > 1000)
    #expect(median(rest) < 0.5)
    #expect(median(restRollPitch) < 0.5)
  }
}
