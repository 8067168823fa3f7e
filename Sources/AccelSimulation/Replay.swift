import AccelCore

/// The path a toy took, for drawing: every position, and the points to mark (the ball's bounces).
public struct ToyPath: Sendable {
  public var points: [(x: Double, y: Double)] = []
  public var marks: [(x: Double, y: Double)] = []
  public init() {}
}

extension BouncingBall {
  /// The columns `replay` writes.
  public static let columns = ["t", "x", "y", "vx", "vy", "bounce"]

  /// Steps once per reading of `block`; returns the rows t, x, y, vx, vy, bounce as columns and,
  /// when `path` is given, adds the positions (bounces marked) to it.
  public mutating func replay(_ block: SampleBlock, path: inout ToyPath?) -> [[Double]] {
    var columns = [[Double]](repeating: [], count: 6)
    for i in 0..<block.count {
      let bounces = step(ax: block.x[i], ay: block.y[i])
      for (k, v) in [block.t[i], x, y, vx, vy, Double(bounces)].enumerated() { columns[k].append(v) }
      path?.points.append((x, y))
      if bounces > 0 { path?.marks.append((x, y)) }
    }
    return columns
  }
}

extension SlidingObject {
  /// The columns `replay` writes.
  public static let columns = ["t", "x", "y", "vx", "vy", "angle"]

  /// Applies each reading of `block`; returns the rows t, x, y, vx, vy, angle as columns and, when
  /// `path` is given, adds the positions to it.
  public mutating func replay(_ block: SampleBlock, path: inout ToyPath?) -> [[Double]] {
    var columns = [[Double]](repeating: [], count: 6)
    for i in 0..<block.count {
      reading(t: block.t[i], ax: block.x[i], ay: block.y[i])
      for (k, v) in [block.t[i], x, y, vx, vy, angle].enumerated() { columns[k].append(v) }
      path?.points.append((x, y))
    }
    return columns
  }
}
