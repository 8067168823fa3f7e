import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether the magnetometer corrects the heading.
public enum MagnetometerUse: String, CaseIterable, Sendable {
  /// When the trace has magnetometer channels.
  case auto
  case on
  case off
}

/// How `AttitudeStage` estimates the attitude: the typed configuration behind `accelkit attitude`
/// (and the fused gravity of `orientation` and `filter gravity --method fusion`).
public struct AttitudeSettings: Sendable, Equatable {
  /// The filter; nil chooses VQF when the trace has a gyroscope and the accelerometer alone when not.
  public var method: AttitudeMethod?
  public var magnetometer = MagnetometerUse.auto
  public var angles = OrientationSettings.Angles.coremotion
  /// Parameters of the method set by name (checked against its configuration when the stage is made).
  public var parameters: [Assignment] = []

  public struct Assignment: Sendable, Equatable {
    public var name: String
    public var value: Double
    public init(name: String, value: Double) {
      self.name = name
      self.value = value
    }
  }

  public init() {}

  /// The method for a trace with (or without) a gyroscope.
  public func method(hasGyroscope: Bool) -> AttitudeMethod { method ?? (hasGyroscope ? .vqf : .accel) }

  /// The CSV header of per-sample rows.
  public var header: [String] {
    angles == .coremotion
      ? ["t", "qw", "qx", "qy", "qz", "roll", "pitch", "yaw"]
      : ["t", "qw", "qx", "qy", "qz", "roll_x", "pitch_y", "yaw_z"]
  }

  /// Every method's parameters with unit, default and meaning, as `--list-params` prints them.
  public static var parameterList: String {
    parameterListing(AttitudeMethod.allCases.map { ($0.rawValue, $0.summary, Self.rows($0)) })
  }

  private static func rows(_ method: AttitudeMethod) -> [(
    name: String, unit: String, defaultValue: Double, meaning: String, range: ClosedRange<Double>
  )] {
    switch method {
    case .vqf: return VQFConfiguration.parameterRows
    case .madgwick: return MadgwickConfiguration.parameterRows
    case .mahony: return MahonyConfiguration.parameterRows
    case .complementary: return ComplementaryConfiguration.parameterRows
    case .accel: return AccelTiltConfiguration.parameterRows
    }
  }
}

/// Per-sample attitudes of a block: the quaternion (sensor to world) and its Euler angles in
/// degrees; yaw is NaN where there is no heading (the accelerometer alone without a magnetometer).
public struct AttitudeRows: Sendable {
  public var t: [Double] = []
  public var quaternions: [Quaternion] = []
  public var roll: [Double] = []
  public var pitch: [Double] = []
  public var yaw: [Double] = []
  public var count: Int { t.count }

  public init() {}

  /// The rows of attitudes `quaternions` at times `t`: their Euler angles in the decomposition
  /// `angles`; yaw NaN when `hasHeading` is false. Pure: may run on any thread.
  public init(t: [Double], quaternions: [Quaternion], angles: OrientationSettings.Angles, hasHeading: Bool) {
    self.t = t
    self.quaternions = quaternions
    roll.reserveCapacity(quaternions.count)
    pitch.reserveCapacity(quaternions.count)
    yaw.reserveCapacity(quaternions.count)
    let aerospace = angles == .aerospace
    for q in quaternions {
      let a = EulerAngles.angles(q, aerospace: aerospace)
      roll.append(a.roll)
      pitch.append(a.pitch)
      yaw.append(hasHeading ? a.yaw : .nan)
    }
  }

  /// The columns t, qw, qx, qy, qz, roll, pitch, yaw (a signed zero written as 0).
  public var columns: [[Double]] {
    [
      t, quaternions.map { $0.w + 0 }, quaternions.map { $0.x + 0 }, quaternions.map { $0.y + 0 },
      quaternions.map { $0.z + 0 }, roll, pitch, yaw,
    ]
  }
}

/// The attitude of every sample of a trace, streaming in constant memory (block by block equals
/// all at once). Without a magnetometer the heading is relative: the output is turned about the
/// vertical so that the first sample's yaw is 0.
///
/// Timing: the filters' coefficients are made for the nominal rate; the gyroscope is integrated
/// over each sample's own interval (the first sample's is the nominal one), so jittery and
/// irregular timestamps are handled. An interval longer than ten nominal ones is a gap in the
/// recording: the rotation over it is unknown and only one nominal interval is integrated.
public struct AttitudeStage: Sendable {
  public let settings: AttitudeSettings
  public let method: AttitudeMethod
  public let usesMagnetometer: Bool
  /// Whether yaw means anything: false for the accelerometer alone without a magnetometer.
  public let hasHeading: Bool
  fileprivate(set) var filter: any AttitudeFilter
  let nominal: Double
  private var lastT: Double?
  private var headingOffset: Quaternion?

  /// - Parameters:
  ///   - rate: the nominal sample rate in Hz.
  ///   - layout: the trace's channels (a gyroscope is needed by every method but `accel`).
  public init(_ settings: AttitudeSettings, rate: Double, layout: TraceLayout) throws {
    self.settings = settings
    let method = settings.method(hasGyroscope: layout.hasGyroscope)
    self.method = method
    if method.needsGyroscope && !layout.hasGyroscope {
      throw AccelError.usage(
        "the \(method.rawValue) attitude filter needs a gyroscope and the trace has none",
        hint:
          "map its gyroscope columns with --columns gx=...,gy=...,gz=...; without one, use attitude --method accel or filter gravity --method lowpass"
      )
    }
    switch settings.magnetometer {
    case .auto: usesMagnetometer = layout.hasMagnetometer
    case .off: usesMagnetometer = false
    case .on:
      guard layout.hasMagnetometer else {
        throw AccelError.usage(
          "--mag on needs magnetometer channels and the trace has none",
          hint: "map them with --columns mx=...,my=...,mz=..., or use --mag off")
      }
      usesMagnetometer = true
    }
    guard rate > 0 && rate.isFinite else {
      throw AccelError.usage("the sample rate must be positive, got \(formatNumber(rate))")
    }
    nominal = 1 / rate
    hasHeading = usesMagnetometer || method != .accel
    let assignments = settings.parameters.map { ($0.name, $0.value) }
    switch method {
    case .vqf:
      filter = VQFFilter(
        interval: nominal, configuration: try Self.configure(VQFConfiguration(), assignments, method))
    case .madgwick:
      filter = MadgwickFilter(
        interval: nominal, configuration: try Self.configure(MadgwickConfiguration(), assignments, method))
    case .mahony:
      filter = MahonyFilter(
        interval: nominal, configuration: try Self.configure(MahonyConfiguration(), assignments, method))
    case .complementary:
      filter = ComplementaryFilter(
        interval: nominal,
        configuration: try Self.configure(ComplementaryConfiguration(), assignments, method))
    case .accel:
      filter = AccelTiltFilter(
        interval: nominal, configuration: try Self.configure(AccelTiltConfiguration(), assignments, method))
    }
    if usesMagnetometer || !hasHeading { headingOffset = .identity }
  }

  private static func configure<C: TunableConfiguration>(
    _ c: C, _ assignments: [(String, Double)], _ method: AttitudeMethod
  ) throws -> C {
    var c = c
    for (name, value) in assignments { try c.set(name, to: value, owner: method.rawValue) }
    return c
  }

  /// The VQF filter's derived constants (`VQFFilter.derivedConstants`) when the method is VQF.
  public var vqfConstants: [(name: String, value: Double)]? { (filter as? VQFFilter)?.derivedConstants }

  /// The attitude after each sample of `block` (sensor to world).
  public mutating func attitudes(_ block: SampleBlock) -> [Quaternion] {
    var out: [Quaternion] = []
    out.reserveCapacity(block.count)
    filter.run(block, nominal: nominal, lastT: &lastT, magnetometer: usesMagnetometer, into: &out)
    applyHeadingOffset(&out)
    return out
  }

  /// Without a heading reference, turns attitudes about the vertical so that the first yaw is 0
  /// (the turn fixed by the first attitude seen).
  mutating func applyHeadingOffset(_ attitudes: inout [Quaternion]) {
    if headingOffset == nil, let first = attitudes.first {
      headingOffset = Quaternion.heading(
        -EulerAngles.yawRadians(first, aerospace: settings.angles == .aerospace))
    }
    if let offset = headingOffset, offset != .identity {
      for i in attitudes.indices { attitudes[i] = offset * attitudes[i] }
    }
  }

  /// The attitude and angles of every sample of `block`.
  public mutating func rows(_ block: SampleBlock) -> AttitudeRows {
    AttitudeRows(t: block.t, quaternions: attitudes(block), angles: settings.angles, hasHeading: hasHeading)
  }

  /// Gravity of every sample of `block` in g, Apple's convention (face up reads (0, 0, -1)):
  /// the world's down seen from the sensor, 1 g long.
  public mutating func gravity(_ block: SampleBlock) -> (x: [Double], y: [Double], z: [Double]) {
    let qs = attitudes(block)
    var gx = [Double](repeating: 0, count: qs.count)
    var gy = gx
    var gz = gx
    for (i, q) in qs.enumerated() {
      let up = q.up
      (gx[i], gy[i], gz[i]) = (0 - up.x, 0 - up.y, 0 - up.z)
    }
    return (gx, gy, gz)
  }
}

extension AttitudeFilter {
  public mutating func run(
    _ block: SampleBlock, nominal: Double, lastT: inout Double?, magnetometer: Bool,
    into out: inout [Quaternion]
  ) {
    // The state is worked on as a local and stored back once per block.
    var filter = self
    var clock = IntervalClock(nominal: nominal, last: lastT)
    out.reserveCapacity(out.count + block.count)
    for i in 0..<block.count {
      filter.update(
        AttitudeSample(block, i, magnetometer: magnetometer, interval: clock.interval(at: block.t[i])))
      out.append(filter.attitude)
    }
    lastT = clock.last
    self = filter
  }
}

/// Gravity and user acceleration of every sample from the fused attitude: gravity is the world's
/// down seen from the sensor (1 g), user acceleration the reading minus gravity, like Core Motion's
/// gravity and userAcceleration. Unlike a low-pass it follows rotations at once. Columns t,
/// gravity_x, gravity_y, gravity_z, user_x, user_y, user_z (g, Apple's convention).
public struct FusedGravitySplit: Sendable {
  public static let columns = ["t", "gravity_x", "gravity_y", "gravity_z", "user_x", "user_y", "user_z"]
  private var stage: AttitudeStage

  /// - Parameter settings: the attitude filter (its magnetometer use plays no part in gravity).
  public init(_ settings: AttitudeSettings, rate: Double, layout: TraceLayout) throws {
    var s = settings
    s.magnetometer = .off
    stage = try AttitudeStage(s, rate: rate, layout: layout)
  }

  public var method: AttitudeMethod { stage.method }

  public mutating func process(_ block: SampleBlock) -> [[Double]] {
    let g = stage.gravity(block)
    var ux = block.x
    var uy = block.y
    var uz = block.z
    for i in 0..<block.count {
      ux[i] -= g.x[i]
      uy[i] -= g.y[i]
      uz[i] -= g.z[i]
    }
    return [block.t, g.x, g.y, g.z, ux, uy, uz]
  }
}

extension AttitudeStage {
  /// The whole trace at once with VQF's offline variant (`OfflineVQF`: future samples used too),
  /// through `store`; rows handed to `emit` in order. The same settings, conventions and heading
  /// offset as the streaming stage; only VQF has an offline variant.
  public static func offline(
    _ settings: AttitudeSettings, rate: Double, layout: TraceLayout, store: RandomAccessStore,
    next: () throws -> SampleBlock?, emit: (AttitudeRows) throws -> Void
  ) throws {
    var stage = try AttitudeStage(settings, rate: rate, layout: layout)
    guard let vqf = stage.filter as? VQFFilter else {
      throw AccelError.usage(
        "--offline is VQF's offline variant; --method \(stage.method.rawValue) has none",
        hint: "use --method vqf (the default with a gyroscope)")
    }
    let offline = OfflineVQF(
      configuration: vqf.configuration, interval: stage.nominal, magnetometer: stage.usesMagnetometer)
    try offline.run(store: store, next: next) { t, qs in
      var qs = qs
      stage.applyHeadingOffset(&qs)
      try emit(AttitudeRows(t: t, quaternions: qs, angles: settings.angles, hasHeading: stage.hasHeading))
    }
  }
}
