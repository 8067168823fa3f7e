/// The seed's bouncing ball, one step per reading.
///
/// On a view of `width` x `height` points the ball starts at the centre at rest. Each reading
/// (g, Apple's convention) adds (a_x, -a_y) to the velocity, each component capped to [-cap, cap];
/// the position moves by the velocity. Passing an edge of the inner rectangle
/// [margin, width - margin] x [margin, height - margin] reflects the position about that edge and
/// multiplies the velocity on that axis by -damping (0.75): that is when the phone vibrates.
public struct BouncingBall: Sendable {
  public var width = 320.0
  public var height = 460.0
  public var margin = 8.0
  public var damping = 0.75
  public var cap = 32.0
  public private(set) var x: Double
  public private(set) var y: Double
  public private(set) var vx = 0.0
  public private(set) var vy = 0.0

  public init(width: Double = 320, height: Double = 460, margin: Double = 8, damping: Double = 0.75, cap: Double = 32) {
    self.width = width
    self.height = height
    self.margin = margin
    self.damping = damping
    self.cap = cap
    x = width / 2
    y = height / 2
  }

  /// One step; returns how many edges the ball bounced off (0, 1 or 2).
  public mutating func step(ax: Double, ay: Double) -> Int {
    vx = min(cap, max(-cap, vx + ax))
    vy = min(cap, max(-cap, vy - ay))
    x += vx
    y += vy
    var bounces = 0
    func reflect(_ p: inout Double, _ v: inout Double, _ low: Double, _ high: Double) {
      if p < low {
        p = low + (low - p)
        v = -damping * v
        bounces += 1
      } else if p > high {
        p = high - (p - high)
        v = -damping * v
        bounces += 1
      }
      p = min(high, max(low, p))  // a step longer than the box cannot leave it
    }
    reflect(&x, &vx, margin, width - margin)
    reflect(&y, &vy, margin, height - margin)
    return bounces
  }
}
