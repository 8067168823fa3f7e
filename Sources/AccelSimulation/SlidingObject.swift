#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The seed's sliding butterfly.
///
/// On each reading, with xx = -a_x and yy = a_y: the heading is atan2(yy, xx); on each axis, when
/// the sign of xx (yy) agrees with minus the sign of the current velocity, that axis' acceleration
/// factor grows by 0.85 in magnitude (it starts at 2.0; the original used C's integer `abs` on these
/// floats, which truncated them; this uses the intended `fabs`); then velocity = -factor * xx
/// (and -factor * yy). A physics timer every `tick` seconds (0.03 s of trace time) moves the object
/// by its velocity on each axis separately, refusing a move that would leave the view, and turns
/// it to heading + pi/2.
public struct SlidingObject: Sendable {
  public var width: Double
  public var height: Double
  public var tick: Double
  public static let growth = 0.85
  public private(set) var x: Double
  public private(set) var y: Double
  public private(set) var vx = 0.0
  public private(set) var vy = 0.0
  public private(set) var factorX = 2.0
  public private(set) var factorY = 2.0
  public private(set) var heading = 0.0
  /// The object's drawn angle: heading + pi/2 as of the last timer tick.
  public private(set) var angle = 0.0
  private var nextTick: Double?

  public init(width: Double = 320, height: Double = 460, tick: Double = 0.03) {
    self.width = width
    self.height = height
    self.tick = tick
    x = width / 2
    y = height / 2
  }

  /// `ticks` moves of `step` from `p` within [0, limit], stopping at the first that would leave.
  static func advance(_ p: Double, by step: Double, ticks: Double, limit: Double) -> Double {
    guard step != 0 else { return p }
    let room = step > 0 ? (limit - p) / step : p / -step
    let moves = min(ticks, max(0, room.rounded(.down)))
    return min(limit, max(0, p + moves * step))
  }

  static func sign(_ v: Double) -> Double { v > 0 ? 1 : v < 0 ? -1 : 0 }

  /// Timer ticks run one by one up to this many between two readings; a longer jump in time
  /// (a gap, or a broken timestamp such as 1e300) is run in closed form, so the work is bounded by
  /// the readings, not by the time they span.
  public static let tickLoopLimit = 100_000.0

  /// Runs the timer up to time t, then applies the reading taken at t.
  public mutating func reading(t: Double, ax: Double, ay: Double) {
    if nextTick == nil { nextTick = t + tick }
    if let due = nextTick, due <= t, (t - due) / tick >= Self.tickLoopLimit {
      // Every tick until t moves by the same velocity and refuses moves that leave the view: the
      // object advances by whole steps until the next would leave, then stays.
      let ticks = ((t - due) / tick).rounded(.down) + 1
      x = Self.advance(x, by: vx, ticks: ticks, limit: width)
      y = Self.advance(y, by: vy, ticks: ticks, limit: height)
      angle = heading + Double.pi / 2
      nextTick = max(due + ticks * tick, t.nextUp)
    }
    while let due = nextTick, due <= t {
      let nx = x + vx
      if nx >= 0 && nx <= width { x = nx }
      let ny = y + vy
      if ny >= 0 && ny <= height { y = ny }
      angle = heading + Double.pi / 2
      let next = due + tick
      nextTick = next > due ? next : t.nextUp  // a tick too small to move a huge time on
    }
    let xx = -ax
    let yy = ay
    heading = atan2(yy, xx)
    if Self.sign(xx) != 0 && Self.sign(xx) == -Self.sign(vx) { factorX = Self.sign(factorX) * (abs(factorX) + Self.growth) }
    if Self.sign(yy) != 0 && Self.sign(yy) == -Self.sign(vy) { factorY = Self.sign(factorY) * (abs(factorY) + Self.growth) }
    vx = -factorX * xx
    vy = -factorY * yy
  }
}
