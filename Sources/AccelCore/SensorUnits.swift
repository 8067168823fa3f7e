/// Units of angular rate an input may use. Inside accelkit the gyroscope is in rad/s.
public enum AngularRateUnit: String, CaseIterable, Sendable {
  case radiansPerSecond = "rad/s"
  case degreesPerSecond = "deg/s"

  /// Reads `rad/s`, `rps`, `radps`, `deg/s`, `dps`, `°/s`.
  public init?(name: String) {
    switch name.lowercased() {
    case "rad/s", "rads", "rps", "radps", "rad_s", "radians/s": self = .radiansPerSecond
    case "deg/s", "dps", "degps", "°/s", "deg_s", "degrees/s": self = .degreesPerSecond
    default: return nil
    }
  }

  /// The conversion of a value in this unit to rad/s.
  public var toInternal: UnitScale {
    switch self {
    case .radiansPerSecond: .identity
    case .degreesPerSecond: .multiply(Double.pi / 180)
    }
  }

  /// Reads a unit from a column name's annotation: `G_X [dps]`, `rotRate_x_rps`,
  /// `Gyroscope x (rad/s)`, `gyr_x_degps`.
  public static func annotation(in name: String) -> AngularRateUnit? {
    let n = String(name.lowercased().filter { $0 != " " })
    for marker in ["rad/s", "[rps]", "(rps)", "_rps", "radps", "rad_s"] where n.contains(marker) {
      return .radiansPerSecond
    }
    for marker in ["dps", "deg/s", "°/s", "degps", "deg_s"] where n.contains(marker) {
      return .degreesPerSecond
    }
    return nil
  }
}

/// Units of magnetic flux density an input may use. Inside accelkit the magnetometer is in µT.
public enum MagneticFieldUnit: String, CaseIterable, Sendable {
  case microtesla = "uT"
  case nanotesla = "nT"
  case gauss
  case milligauss = "mG"

  /// Reads `uT`, `µT`, `microtesla`, `nT`, `gauss`, `G`, `mG`, `mgauss`.
  public init?(name: String) {
    switch name {
    case "uT", "ut", "µT", "μT", "microtesla": self = .microtesla
    case "nT", "nt", "nanotesla": self = .nanotesla
    case "gauss", "Gauss", "G", "Gs": self = .gauss
    case "mG", "mgauss", "milligauss", "mGs": self = .milligauss
    default: return nil
    }
  }

  /// The conversion of a value in this unit to µT (1 gauss = 100 µT).
  public var toInternal: UnitScale {
    switch self {
    case .microtesla: .identity
    case .nanotesla: .divide(1000)
    case .gauss: .multiply(100)
    case .milligauss: .divide(10)
    }
  }

  /// Reads a unit from a column name's annotation: `mag_x_uT`, `Magnetic field x (µT)`, `MX [nT]`,
  /// `mag_x_gauss`.
  public static func annotation(in name: String) -> MagneticFieldUnit? {
    let n = String(name.filter { $0 != " " })
    let lower = n.lowercased()
    if lower.contains("ut") && (lower.hasSuffix("_ut") || lower.contains("[ut]") || lower.contains("(ut)")) {
      return .microtesla
    }
    if n.contains("µT") || n.contains("μT") { return .microtesla }
    if lower.hasSuffix("_nt") || lower.contains("[nt]") || lower.contains("(nt)") { return .nanotesla }
    if lower.contains("milligauss") || n.hasSuffix("_mG") || n.contains("[mG]") || n.contains("(mG)") {
      return .milligauss
    }
    if lower.contains("gauss") || n.contains("[G]") || n.contains("(G)") { return .gauss }
    return nil
  }
}

/// How a value in an input unit becomes a value in accelkit's unit: one correctly rounded
/// operation (a division where the factor is an integer, so g and mg convert exactly as before).
public enum UnitScale: Equatable, Sendable {
  case identity
  case divide(Double)
  case multiply(Double)

  @inlinable
  public func apply(_ v: Double) -> Double {
    switch self {
    case .identity: v
    case .divide(let d): v / d
    case .multiply(let m): v * m
    }
  }
}

/// A unit an input's sensor columns may be in: named on the command line, read from column-name
/// annotations, converted to accelkit's unit for its group.
public protocol SensorUnit: Hashable, Sendable, RawRepresentable where RawValue == String {
  init?(name: String)
  /// The unit a column name's annotation names, if any.
  static func annotation(in name: String) -> Self?
  /// The unit assumed when nothing names one.
  static var fallback: Self { get }
  /// The option that sets it, for messages.
  static var optionName: String { get }
  var toInternal: UnitScale { get }
}

extension AngularRateUnit: SensorUnit {
  public static var fallback: AngularRateUnit { .radiansPerSecond }
  public static var optionName: String { "--gyro-units" }
}

extension MagneticFieldUnit: SensorUnit {
  public static var fallback: MagneticFieldUnit { .microtesla }
  public static var optionName: String { "--mag-units" }
}

extension AccelerationUnit: SensorUnit {
  public static var fallback: AccelerationUnit { .g }
  public static var optionName: String { "--units" }
  public var toInternal: UnitScale { self == .g ? .identity : .divide(divisorToG) }

  /// Reads a unit from a column name's annotation: `accX[g]`, `A_X [mg]`,
  /// `Acceleration x (m/s^2)`, `acc_x_mps2`, `userAcc_x_g`.
  public static func annotation(in name: String) -> AccelerationUnit? {
    let n = String(name.lowercased().filter { $0 != " " })
    for marker in ["m/s^2", "m/s2", "m/s²", "mps2", "_ms2"] where n.contains(marker) {
      return .metersPerSecondSquared
    }
    if n.contains("[mg]") || n.contains("(mg)") || n.hasSuffix("_mg") { return .mg }
    if n.contains("[g]") || n.contains("(g)") || n.hasSuffix("_g") { return .g }
    return nil
  }
}
