/// Units of acceleration an input may use. Inside accelkit everything is in g
/// (1 g = 9.80665 m/s^2, the standard gravity).
public enum AccelerationUnit: String, CaseIterable, Sendable {
  case g
  case mg
  case metersPerSecondSquared = "m/s2"

  /// Standard gravity in m/s^2.
  public static let standardGravity = 9.80665

  /// The divisor that turns a value in this unit into g. Division (not multiplication by a
  /// reciprocal) keeps the conversion correctly rounded.
  public var divisorToG: Double {
    switch self {
    case .g: 1
    case .mg: 1000
    case .metersPerSecondSquared: AccelerationUnit.standardGravity
    }
  }

  /// Reads the names users write: `g`, `mg`, `m/s2`, `m/s^2`, `mps2`, `ms2`.
  public init?(name: String) {
    switch name.lowercased() {
    case "g": self = .g
    case "mg": self = .mg
    case "m/s2", "m/s^2", "mps2", "ms2", "m/s²": self = .metersPerSecondSquared
    default: return nil
    }
  }
}

/// Axis sign conventions.
///
/// - `apple`: Apple's, used inside accelkit: a device lying face up at rest reads (0, 0, -1) g
///   (the reading points along gravity).
/// - `specificForce`: Android's and most IMUs': face up at rest reads (0, 0, +1) g. Converted to
///   Apple's on the way in by negating all three accelerometer axes.
///
/// The two conventions differ in the sign of the quantity the accelerometer reports (the
/// acceleration of gravity, or the specific force that holds the device up), not in its axes:
/// Apple's and Android's devices both use x to the right, y up the screen and z out of it,
/// right-handed. So the gyroscope and the magnetometer are never negated: their axes are the
/// accelerometer's in either convention. (Even read as a point reflection of the axes, a rotation
/// rate is an axial vector and would keep its sign.) Checked on Core Motion recordings, where
/// integrating `rotationRate` follows the attitude quaternion, and on BROAD, where the gyroscope
/// turns the accelerometer's gravity direction the way it is measured to turn.
public enum AxisConvention: String, CaseIterable, Sendable {
  case apple
  case specificForce = "specific-force"
}

/// Units of a time column. Inside accelkit time is in seconds.
public enum TimeUnit: String, CaseIterable, Sendable {
  case s, ms, us, ns

  /// The divisor that turns a value in this unit into seconds.
  public var divisorToSeconds: Double {
    switch self {
    case .s: 1
    case .ms: 1e3
    case .us: 1e6
    case .ns: 1e9
    }
  }

  /// The unit in which `value` is a time since the Unix epoch between the years 2000 and 2100,
  /// other than seconds (ms, us or ns), or nil: how a time column of epoch timestamps is
  /// recognised when no unit is given.
  public static func epoch(_ value: Double) -> TimeUnit? {
    [TimeUnit.ms, .us, .ns].first { unit in
      let seconds = value / unit.divisorToSeconds
      return seconds >= 946_684_800 && seconds < 4_102_444_800
    }
  }
}

/// The precision a trace was stored in; writers use it to print the shortest text that reads back
/// to the stored value.
public enum SamplePrecision: String, Sendable {
  case float64 = "f64"
  case float32 = "f32"
}

/// What is known about a trace besides its samples.
public struct TraceMetadata: Sendable, Equatable {
  /// A name for messages: the path as given, or `<stdin>`.
  public var name: String
  /// The nominal sample rate in Hz when it was given (`--rate`) or is known from the format.
  public var nominalRate: Double?
  /// Whether the time column was generated from `nominalRate` (no time column in the input).
  public var timeFromRate: Bool
  /// The precision of the stored values.
  public var precision: SamplePrecision
  /// The units the input was in, before conversion to g.
  public var sourceUnits: AccelerationUnit
  /// The convention the input was in, before conversion to Apple's.
  public var sourceConvention: AxisConvention
  /// The columns the trace has besides time and acceleration.
  public var layout: TraceLayout
  /// The unit the gyroscope was in, when there is one.
  public var sourceGyroscopeUnits: AngularRateUnit?
  /// The unit the magnetometer was in, when there is one.
  public var sourceMagnetometerUnits: MagneticFieldUnit?
  /// The known recorder the input was recognised as (a preset's name), when it was recognised
  /// from its header rather than named with `--preset`.
  public var recognisedAs: String?
  /// What the reader chose by itself that the user should know (an epoch time unit, a decimal
  /// comma), one sentence each.
  public var notes: [String] = []

  public init(
    name: String, nominalRate: Double? = nil, timeFromRate: Bool = false,
    precision: SamplePrecision = .float64, sourceUnits: AccelerationUnit = .g,
    sourceConvention: AxisConvention = .apple, layout: TraceLayout = .accelerometer,
    sourceGyroscopeUnits: AngularRateUnit? = nil, sourceMagnetometerUnits: MagneticFieldUnit? = nil,
    recognisedAs: String? = nil
  ) {
    self.name = name
    self.nominalRate = nominalRate
    self.timeFromRate = timeFromRate
    self.precision = precision
    self.sourceUnits = sourceUnits
    self.sourceConvention = sourceConvention
    self.layout = layout
    self.sourceGyroscopeUnits = sourceGyroscopeUnits
    self.sourceMagnetometerUnits = sourceMagnetometerUnits
    self.recognisedAs = recognisedAs
  }
}
