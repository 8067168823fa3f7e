import AccelCore
import AccelSimulation
import Testing

@Suite struct BouncingBallTests {
  @Test func stepsByHand() {
    var ball = BouncingBall()
    #expect(ball.x == 160 && ball.y == 230)
    #expect(ball.step(ax: 1, ay: 0.5) == 0)
    #expect(ball.vx == 1 && ball.vy == -0.5 && ball.x == 161 && ball.y == 229.5)
    #expect(ball.step(ax: 1, ay: 0.5) == 0)
    #expect(ball.vx == 2 && ball.x == 163 && ball.y == 228.5)
  }

  @Test func speedIsCapped() {
    var ball = BouncingBall()
    for _ in 0..<10 { _ = ball.step(ax: 10, ay: -10) }
    #expect(ball.vx <= 32 && ball.vy <= 32)
  }

  @Test func bounceReflectsAndDamps() {
    // Push right until the ball passes x = 312 (320 - 8).
    var ball = BouncingBall(width: 320, height: 460)
    var bounced = false
    var before = (x: 0.0, v: 0.0)
    for _ in 0..<100 {
      before = (ball.x, ball.vx)
      let vx = min(32, ball.vx + 5)
      let b = ball.step(ax: 5, ay: 0)
      if b > 0 {
        let overshoot = before.x + vx - 312
        #expect(abs(ball.x - (312 - overshoot)) < 1e-9)
        #expect(abs(ball.vx - (-0.75 * vx)) < 1e-12)
        bounced = true
        break
      }
    }
    #expect(bounced)
  }

  @Test func aCornerCountsTwoBounces() {
    var ball = BouncingBall(width: 40, height: 40, margin: 8, damping: 0.5, cap: 32)
    // From (20, 20), one step of (+16, -16) reaches (36, 36): past 32 on both axes.
    #expect(ball.step(ax: 16, ay: -16) == 2)
    #expect(ball.x == 28 && ball.y == 28 && ball.vx == -8 && ball.vy == -8)
  }
}

@Suite struct SlidingObjectTests {
  @Test func velocityAndFactorByHand() {
    var s = SlidingObject()
    // First reading at t = 0: xx = -0.5, yy = 0.25; velocity was 0, so no growth.
    s.reading(t: 0, ax: 0.5, ay: 0.25)
    #expect(s.vx == -2 * -0.5 && s.vy == -2 * 0.25)
    #expect(abs(s.heading - atan2(0.25, -0.5)) < 1e-15)
    // Velocity is now (+1, -0.5). The same tilt: xx < 0 agrees with -sign(vx) < 0, so the x factor
    // grows to 2.85; yy > 0 agrees with -sign(vy) > 0, so the y factor grows too.
    s.reading(t: 0.01, ax: 0.5, ay: 0.25)
    #expect(s.factorX == 2.85 && s.factorY == 2.85)
    #expect(abs(s.vx - 2.85 * 0.5) < 1e-15)
  }

  @Test func theTimerMovesEachAxisAndRefusesLeavingTheView() {
    var s = SlidingObject(width: 100, height: 100, tick: 0.03)
    s.reading(t: 0, ax: -10, ay: 0)  // xx = 10: vx = -20
    #expect(s.x == 50)
    s.reading(t: 0.03, ax: -10, ay: 0)  // one tick: x = 30
    #expect(s.x == 30)
    #expect(abs(s.angle - (s.heading + Double.pi / 2)) < 1e-15 || s.angle == Double.pi / 2)
    s.reading(t: 0.06, ax: 0, ay: 0)  // x = 30 - 20*factor... the move to below 0 is refused
    s.reading(t: 0.09, ax: 0, ay: 0)
    #expect(s.x >= 0)
  }
}

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct ReplayBoundsTests {
  /// A timestamp that jumps to 1e300 is run in closed form: the object advances by whole steps
  /// until the next would leave the view, then stays; the work is bounded by the readings.
  @Test func aHugeTimeJumpFinishesAndMatchesTheTickByTickResult() {
    var jumping = SlidingObject()
    jumping.reading(t: 0, ax: 0.1, ay: 0.2)
    jumping.reading(t: 0.01, ax: 0.1, ay: 0.2)
    jumping.reading(t: 1e300, ax: 0.3, ay: 0.1)
    // 160 + k * 0.285 stays in [0, 320] for k <= 561; 230 - k * 0.57 in [0, 460] for k <= 403.
    #expect(jumping.x == 160 + 561 * 0.28500000000000003)
    #expect(abs(jumping.y - (230 - 403 * 0.5700000000000001)) < 1e-9)
    // The same gap at a length the tick loop still runs gives the same place (to rounding).
    var looping = SlidingObject()
    looping.reading(t: 0, ax: 0.1, ay: 0.2)
    looping.reading(t: 0.01, ax: 0.1, ay: 0.2)
    looping.reading(t: 2000, ax: 0.3, ay: 0.1)
    #expect(abs(looping.x - jumping.x) < 1e-9 && abs(looping.y - jumping.y) < 1e-9)
  }

  @Test func replayWritesOneRowPerReading() {
    var ball = BouncingBall()
    var path: ToyPath? = ToyPath()
    let block = SampleBlock(t: [0, 0.01, 0.02], x: [1, 1, 1], y: [0, 0, 0], z: [-1, -1, -1])
    let columns = ball.replay(block, path: &path)
    #expect(columns.count == BouncingBall.columns.count && columns[0] == [0, 0.01, 0.02])
    #expect(columns[1] == [161, 163, 166] && path?.points.count == 3)
  }

  /// A path of any length is drawn from at most `limit` points (every 2^k-th) and its last one.
  @Test func aLongPathIsThinnedToItsLimit() {
    var path = ToyPath(limit: 100)
    for i in 0..<100_001 { path.append((Double(i), 0)) }
    for i in 0..<1000 { path.mark((Double(i), 1)) }
    #expect(path.points.count <= 100 && path.points.count > 50)
    #expect(path.points.first!.x == 0 && path.drawnPoints.last!.x == 100_000)
    let steps = Set(zip(path.points, path.points.dropFirst()).map { $1.x - $0.x })
    #expect(steps.count == 1)  // evenly spaced
    #expect(path.marks.count <= 100)
  }
}
