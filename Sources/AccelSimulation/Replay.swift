import AccelCore

/// The path a toy took, for drawing: every position, and the points to mark (the ball's bounces).
/// The path a simulation draws, in bounded memory: every position until `limit` are held, then
/// every second one, every fourth, and so on (the stride doubles each time the limit is reached),
/// so a replay of any length draws at most `limit` points plus its last position. Marks (bounces)
/// are thinned the same way on their own.
public struct ToyPath: Sendable {
  public static let defaultLimit = 20_000
  public let limit: Int
  public private(set) var points: [(x: Double, y: Double)] = []
  public private(set) var marks: [(x: Double, y: Double)] = []
  private var pointStride = 1, pointCount = 0
  private var markStride = 1, markCount = 0
  /// The latest position (always drawn).
  public private(set) var last: (x: Double, y: Double)?

  public init(limit: Int = ToyPath.defaultLimit) {
    precondition(limit >= 2)
    self.limit = limit
  }

  /// The positions to draw: the kept ones and the latest.
  public var drawnPoints: [(x: Double, y: Double)] {
    guard let last, let kept = points.last, kept != last else { return points }
    return points + [last]
  }

  public mutating func append(_ p: (x: Double, y: Double)) {
    last = p
    Self.keep(p, in: &points, count: &pointCount, stride: &pointStride, limit: limit)
  }

  public mutating func mark(_ p: (x: Double, y: Double)) {
    Self.keep(p, in: &marks, count: &markCount, stride: &markStride, limit: limit)
  }

  private static func keep(
    _ p: (x: Double, y: Double), in list: inout [(x: Double, y: Double)], count: inout Int, stride: inout Int, limit: Int
  ) {
    if count % stride == 0 {
      list.append(p)
      if list.count > limit {
        list = list.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        stride *= 2
      }
    }
    count += 1
  }
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
      path?.append((x, y))
      if bounces > 0 { path?.mark((x, y)) }
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
      path?.append((x, y))
    }
    return columns
  }
}
