/// A block of consecutive samples in columnar form: time in seconds, acceleration in g in Apple's
/// axis convention (see `TraceMetadata`), and, when the recording has them, the gyroscope in rad/s,
/// the magnetometer in µT and extra columns kept by name.
///
/// Readers yield blocks of a fixed maximum size, so memory stays constant however long a trace is.
/// Every column has the same length. Which optional groups a block holds is the trace's
/// `TraceLayout`; `columns(in:)` and `init(columns:layout:)` convert to and from storage order.
public struct SampleBlock: Equatable, Sendable {
  public var t: [Double]
  public var x: [Double]
  public var y: [Double]
  public var z: [Double]
  /// Angular rate in rad/s, or nil when the trace has no gyroscope.
  public var gyroscope: AxisColumns?
  /// Magnetic field in µT, or nil when the trace has no magnetometer.
  public var magnetometer: AxisColumns?
  /// Extra columns kept by name, in the order of the layout's `extras`.
  public var extras: [[Double]]

  public init(
    t: [Double] = [], x: [Double] = [], y: [Double] = [], z: [Double] = [],
    gyroscope: AxisColumns? = nil, magnetometer: AxisColumns? = nil, extras: [[Double]] = []
  ) {
    precondition(t.count == x.count && x.count == y.count && y.count == z.count)
    precondition(gyroscope.map { $0.count == t.count } ?? true)
    precondition(magnetometer.map { $0.count == t.count } ?? true)
    precondition(extras.allSatisfy { $0.count == t.count })
    self.t = t
    self.x = x
    self.y = y
    self.z = z
    self.gyroscope = gyroscope
    self.magnetometer = magnetometer
    self.extras = extras
  }

  /// An empty block of `layout`'s columns with room for `capacity` samples.
  public init(layout: TraceLayout = .accelerometer, capacity: Int) {
    t = []
    x = []
    y = []
    z = []
    gyroscope = layout.hasGyroscope ? AxisColumns(x: [], y: [], z: []) : nil
    magnetometer = layout.hasMagnetometer ? AxisColumns(x: [], y: [], z: []) : nil
    extras = Array(repeating: [], count: layout.extras.count)
    reserveCapacity(capacity)
  }

  /// A block from columns in `layout`'s storage order (`layout.columnNames`).
  public init(columns: [[Double]], layout: TraceLayout) {
    precondition(columns.count == layout.columnCount)
    var k = 4
    func group(_ present: Bool) -> AxisColumns? {
      guard present else { return nil }
      defer { k += 3 }
      return AxisColumns(x: columns[k], y: columns[k + 1], z: columns[k + 2])
    }
    let gyro = group(layout.hasGyroscope)
    let mag = group(layout.hasMagnetometer)
    self.init(
      t: columns[0], x: columns[1], y: columns[2], z: columns[3], gyroscope: gyro, magnetometer: mag,
      extras: Array(columns[k...]))
  }

  public var count: Int { t.count }
  public var isEmpty: Bool { t.isEmpty }

  /// The layout this block's columns fill (extra columns named by `extraNames`).
  public func layout(extraNames: [String]) -> TraceLayout {
    TraceLayout(hasGyroscope: gyroscope != nil, hasMagnetometer: magnetometer != nil, extras: extraNames)
  }

  /// The columns of `layout` in storage order. Groups the layout has and the block lacks are a
  /// programming error; groups the block has and the layout lacks are left out.
  public func columns(in layout: TraceLayout) -> [[Double]] {
    var out = [t, x, y, z]
    if layout.hasGyroscope { out += [gyroscope!.x, gyroscope!.y, gyroscope!.z] }
    if layout.hasMagnetometer { out += [magnetometer!.x, magnetometer!.y, magnetometer!.z] }
    precondition(layout.extras.count <= extras.count)
    out += extras.prefix(layout.extras.count)
    return out
  }

  /// Every column the block holds, `t` first, in storage order.
  public var allColumns: [[Double]] {
    var out = [t, x, y, z]
    if let g = gyroscope { out += [g.x, g.y, g.z] }
    if let m = magnetometer { out += [m.x, m.y, m.z] }
    return out + extras
  }

  /// The block without its gyroscope, magnetometer and extras.
  public var accelerometerOnly: SampleBlock { SampleBlock(t: t, x: x, y: y, z: z) }

  public mutating func reserveCapacity(_ n: Int) {
    t.reserveCapacity(n)
    x.reserveCapacity(n)
    y.reserveCapacity(n)
    z.reserveCapacity(n)
    gyroscope?.x.reserveCapacity(n)
    gyroscope?.y.reserveCapacity(n)
    gyroscope?.z.reserveCapacity(n)
    magnetometer?.x.reserveCapacity(n)
    magnetometer?.y.reserveCapacity(n)
    magnetometer?.z.reserveCapacity(n)
    for k in extras.indices { extras[k].reserveCapacity(n) }
  }

  /// Appends one sample of time and acceleration (for blocks without other groups).
  @inlinable
  public mutating func append(t tv: Double, x xv: Double, y yv: Double, z zv: Double) {
    t.append(tv)
    x.append(xv)
    y.append(yv)
    z.append(zv)
  }

  /// Appends one sample given in `allColumns` order.
  public mutating func append(row: [Double]) {
    t.append(row[0])
    x.append(row[1])
    y.append(row[2])
    z.append(row[3])
    var k = 4
    if gyroscope != nil {
      gyroscope!.x.append(row[k])
      gyroscope!.y.append(row[k + 1])
      gyroscope!.z.append(row[k + 2])
      k += 3
    }
    if magnetometer != nil {
      magnetometer!.x.append(row[k])
      magnetometer!.y.append(row[k + 1])
      magnetometer!.z.append(row[k + 2])
      k += 3
    }
    for e in extras.indices { extras[e].append(row[k + e]) }
  }

  /// Appends another block. Both must hold the same groups (an empty block takes the other's).
  public mutating func append(contentsOf other: SampleBlock) {
    if isEmpty && gyroscope == nil && magnetometer == nil && extras.isEmpty {
      if other.gyroscope != nil { gyroscope = AxisColumns(x: [], y: [], z: []) }
      if other.magnetometer != nil { magnetometer = AxisColumns(x: [], y: [], z: []) }
      extras = Array(repeating: [], count: other.extras.count)
    }
    precondition((gyroscope == nil) == (other.gyroscope == nil))
    precondition((magnetometer == nil) == (other.magnetometer == nil))
    precondition(extras.count == other.extras.count)
    t.append(contentsOf: other.t)
    x.append(contentsOf: other.x)
    y.append(contentsOf: other.y)
    z.append(contentsOf: other.z)
    if let g = other.gyroscope {
      gyroscope!.x.append(contentsOf: g.x)
      gyroscope!.y.append(contentsOf: g.y)
      gyroscope!.z.append(contentsOf: g.z)
    }
    if let m = other.magnetometer {
      magnetometer!.x.append(contentsOf: m.x)
      magnetometer!.y.append(contentsOf: m.y)
      magnetometer!.z.append(contentsOf: m.z)
    }
    for e in extras.indices { extras[e].append(contentsOf: other.extras[e]) }
  }

  public mutating func removeAll(keepingCapacity: Bool = true) {
    t.removeAll(keepingCapacity: keepingCapacity)
    x.removeAll(keepingCapacity: keepingCapacity)
    y.removeAll(keepingCapacity: keepingCapacity)
    z.removeAll(keepingCapacity: keepingCapacity)
    gyroscope?.x.removeAll(keepingCapacity: keepingCapacity)
    gyroscope?.y.removeAll(keepingCapacity: keepingCapacity)
    gyroscope?.z.removeAll(keepingCapacity: keepingCapacity)
    magnetometer?.x.removeAll(keepingCapacity: keepingCapacity)
    magnetometer?.y.removeAll(keepingCapacity: keepingCapacity)
    magnetometer?.z.removeAll(keepingCapacity: keepingCapacity)
    for e in extras.indices { extras[e].removeAll(keepingCapacity: keepingCapacity) }
  }

  /// The samples in `range`, as a new block with the same groups.
  public func slice(_ range: Range<Int>) -> SampleBlock {
    func cut(_ a: AxisColumns?) -> AxisColumns? {
      a.map { AxisColumns(x: Array($0.x[range]), y: Array($0.y[range]), z: Array($0.z[range])) }
    }
    return SampleBlock(
      t: Array(t[range]), x: Array(x[range]), y: Array(y[range]), z: Array(z[range]),
      gyroscope: cut(gyroscope), magnetometer: cut(magnetometer), extras: extras.map { Array($0[range]) })
  }
}
