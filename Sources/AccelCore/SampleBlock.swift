/// A block of consecutive samples in columnar form: time in seconds and acceleration in g, in
/// Apple's axis convention (see `TraceMetadata`).
///
/// Readers yield blocks of a fixed maximum size, so memory stays constant however long a trace is.
/// The four columns always have the same length.
public struct SampleBlock: Equatable, Sendable {
  public var t: [Double]
  public var x: [Double]
  public var y: [Double]
  public var z: [Double]

  public init(t: [Double] = [], x: [Double] = [], y: [Double] = [], z: [Double] = []) {
    precondition(t.count == x.count && x.count == y.count && y.count == z.count)
    self.t = t
    self.x = x
    self.y = y
    self.z = z
  }

  /// An empty block with room for `capacity` samples.
  public init(capacity: Int) {
    t = []
    x = []
    y = []
    z = []
    reserveCapacity(capacity)
  }

  public var count: Int { t.count }
  public var isEmpty: Bool { t.isEmpty }

  public mutating func reserveCapacity(_ n: Int) {
    t.reserveCapacity(n)
    x.reserveCapacity(n)
    y.reserveCapacity(n)
    z.reserveCapacity(n)
  }

  @inlinable
  public mutating func append(t tv: Double, x xv: Double, y yv: Double, z zv: Double) {
    t.append(tv)
    x.append(xv)
    y.append(yv)
    z.append(zv)
  }

  public mutating func append(contentsOf other: SampleBlock) {
    t.append(contentsOf: other.t)
    x.append(contentsOf: other.x)
    y.append(contentsOf: other.y)
    z.append(contentsOf: other.z)
  }

  public mutating func removeAll(keepingCapacity: Bool = true) {
    t.removeAll(keepingCapacity: keepingCapacity)
    x.removeAll(keepingCapacity: keepingCapacity)
    y.removeAll(keepingCapacity: keepingCapacity)
    z.removeAll(keepingCapacity: keepingCapacity)
  }

  /// The samples in `range`, as a new block.
  public func slice(_ range: Range<Int>) -> SampleBlock {
    SampleBlock(t: Array(t[range]), x: Array(x[range]), y: Array(y[range]), z: Array(z[range]))
  }
}
