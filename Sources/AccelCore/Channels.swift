/// The sensors a trace can carry beside time. The accelerometer is always there; the gyroscope
/// and the magnetometer are optional, and each comes as three axes or not at all.
public enum SensorGroup: String, CaseIterable, Sendable, Comparable {
  /// Acceleration in g, Apple's sign convention (face up at rest reads z = -1 g).
  case accelerometer
  /// Angular rate in rad/s about the accelerometer's axes, right-handed.
  case gyroscope
  /// Magnetic field in µT along the accelerometer's axes.
  case magnetometer

  /// The three channels of this group, x, y, z.
  public var channels: [Channel] {
    switch self {
    case .accelerometer: [.x, .y, .z]
    case .gyroscope: [.gx, .gy, .gz]
    case .magnetometer: [.mx, .my, .mz]
    }
  }

  /// Parses `acc,gyro,mag` (any of them); the accelerometer is always included.
  public static func parseList(_ text: String) throws -> Set<SensorGroup> {
    var groups: Set<SensorGroup> = [.accelerometer]
    for part in text.split(separator: ",") {
      guard let g = SensorGroup(name: String(part).filter { $0 != " " }) else {
        throw AccelError.usage("unknown sensor group \"\(part)\"; the groups are acc, gyro and mag")
      }
      groups.insert(g)
    }
    return groups
  }

  public static func < (a: SensorGroup, b: SensorGroup) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }

  /// Reads `acc`/`accel`/`accelerometer`, `gyro`/`gyroscope`, `mag`/`magnetometer`.
  public init?(name: String) {
    switch name.lowercased() {
    case "acc", "accel", "accelerometer": self = .accelerometer
    case "gyro", "gyr", "gyroscope": self = .gyroscope
    case "mag", "magnetometer": self = .magnetometer
    default: return nil
    }
  }
}

/// What a column of a trace holds: time, or one axis of one sensor. The names are those of the
/// files accelkit writes (`t,x,y,z,gx,gy,gz,mx,my,mz`).
public enum Channel: Int, CaseIterable, Sendable, CustomStringConvertible {
  case t = 0, x, y, z, gx, gy, gz, mx, my, mz

  public var description: String { name }

  public var name: String {
    switch self {
    case .t: "t"
    case .x: "x"
    case .y: "y"
    case .z: "z"
    case .gx: "gx"
    case .gy: "gy"
    case .gz: "gz"
    case .mx: "mx"
    case .my: "my"
    case .mz: "mz"
    }
  }

  /// The sensor this channel belongs to; nil for time.
  public var group: SensorGroup? {
    switch self {
    case .t: nil
    case .x, .y, .z: .accelerometer
    case .gx, .gy, .gz: .gyroscope
    case .mx, .my, .mz: .magnetometer
    }
  }

  /// Reads a channel name (case-insensitive).
  public init?(name: String) {
    guard let c = Channel.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
    self = c
  }
}

/// Which columns a trace has, in the order accelkit stores and writes them: `t`, the
/// accelerometer, the gyroscope and the magnetometer when present, then the kept extra columns
/// by name.
public struct TraceLayout: Equatable, Hashable, Sendable {
  public var hasGyroscope: Bool
  public var hasMagnetometer: Bool
  /// Extra numeric columns kept by name (`--keep`), written after the sensors.
  public var extras: [String]

  public init(hasGyroscope: Bool = false, hasMagnetometer: Bool = false, extras: [String] = []) {
    self.hasGyroscope = hasGyroscope
    self.hasMagnetometer = hasMagnetometer
    self.extras = extras
  }

  /// A trace of time and acceleration alone.
  public static let accelerometer = TraceLayout()

  /// The sensor groups present, accelerometer first.
  public var groups: [SensorGroup] {
    [.accelerometer] + (hasGyroscope ? [.gyroscope] : []) + (hasMagnetometer ? [.magnetometer] : [])
  }

  public func has(_ group: SensorGroup) -> Bool {
    switch group {
    case .accelerometer: true
    case .gyroscope: hasGyroscope
    case .magnetometer: hasMagnetometer
    }
  }

  /// The sensor channels present, `t` first.
  public var channels: [Channel] { [.t] + groups.flatMap(\.channels) }

  /// Every column name in storage order: the channels, then the extras.
  public var columnNames: [String] { channels.map(\.name) + extras }

  public var columnCount: Int { 4 + (hasGyroscope ? 3 : 0) + (hasMagnetometer ? 3 : 0) + extras.count }

  /// The storage position of `channel`, or nil when the layout does not have it.
  public func index(of channel: Channel) -> Int? {
    guard let group = channel.group else { return 0 }
    guard has(group) else { return nil }
    var base = 1
    for g in groups {
      if g == group { return base + (channel.rawValue - 1) % 3 }
      base += 3
    }
    return nil
  }

  /// This layout with only the groups in `kept` (the accelerometer always stays) and, when
  /// `keepExtras` is false, without the extra columns.
  public func restricted(to kept: Set<SensorGroup>, keepExtras: Bool = true) -> TraceLayout {
    TraceLayout(
      hasGyroscope: hasGyroscope && kept.contains(.gyroscope),
      hasMagnetometer: hasMagnetometer && kept.contains(.magnetometer),
      extras: keepExtras ? extras : [])
  }
}

/// The three axes of one sensor, as columns of equal length.
public struct AxisColumns: Equatable, Sendable {
  public var x: [Double]
  public var y: [Double]
  public var z: [Double]

  public init(x: [Double], y: [Double], z: [Double]) {
    precondition(x.count == y.count && y.count == z.count)
    self.x = x
    self.y = y
    self.z = z
  }

  public var count: Int { x.count }
}
