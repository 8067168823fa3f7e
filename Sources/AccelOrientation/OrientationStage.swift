import AccelCore
import AccelFilters

/// How `OrientationStage` gets gravity and which angles it reports: the typed configuration
/// behind `accelkit orientation`.
public struct OrientationSettings: Sendable, Equatable {
  /// Where gravity comes from.
  public enum Gravity: Sendable, Equatable {
    /// The readings are gravity already (Core Motion's gravity, say).
    case raw
    /// The exponential low-pass of the readings.
    case lowpass(ExponentialSetting)
  }

  /// Which pair of angles.
  public enum Angles: String, CaseIterable, Sendable {
    /// Core Motion's roll and pitch from gravity.
    case coremotion
    /// AN3461's roll_x and pitch_y from the specific force.
    case aerospace
  }

  /// 0.8 Hz: a time constant of 0.2 s (Android's), whatever the rate.
  public static let defaultCutoff = 1 / (2 * Double.pi * 0.2)

  public var gravity = Gravity.lowpass(.cutoff(defaultCutoff))
  /// Whether a gyroscope, when the trace has one, replaces the low-pass: gravity is then the
  /// world's down seen through the fused attitude (`fusion`), which follows rotations at once and
  /// ignores the accelerations of shakes and translations. No effect with `.raw` gravity.
  public var gyroscope = GyroscopeUse.auto
  /// The attitude filter used with a gyroscope (VQF without the magnetometer by default: gravity
  /// needs no heading).
  public var fusion: AttitudeSettings = {
    var s = AttitudeSettings()
    s.magnetometer = .off
    return s
  }()
  public var angles = Angles.coremotion
  public var classifier = OrientationClassifier()
  /// How long a new orientation must hold before it is announced, in seconds.
  public var settle = OrientationAnnouncer.defaultSettle

  public init() {}

  /// The CSV header of per-sample rows.
  public var header: [String] {
    angles == .coremotion
      ? ["t", "roll", "pitch", "tilt", "up_angle", "orientation"]
      : ["t", "roll_x", "pitch_y", "tilt", "up_angle", "orientation"]
  }

  /// The columns of per-sample rows in binary formats (NPY, raw), where every field is a number:
  /// the class is `orientation_code`, its `DeviceOrientation.index` (0 portrait,
  /// 1 portrait-upside-down, 2 landscape-left, 3 landscape-right, 4 face-up, 5 face-down,
  /// 6 unknown).
  public var binaryHeader: [String] {
    header.dropLast() + ["orientation_code"]
  }
}

/// Whether gravity comes from fusing the gyroscope when the trace has one.
public enum GyroscopeUse: String, CaseIterable, Sendable {
  case auto
  case off
}

/// Per-sample attitude angles and orientation classes of a block: columns t, roll (or roll_x),
/// pitch (or pitch_y), tilt in degrees, the up angle in radians, and the class of each sample.
public struct OrientationRows: Sendable {
  public var t: [Double]
  public var first: [Double]
  public var second: [Double]
  public var tilt: [Double]
  public var upAngle: [Double]
  public var orientation: [DeviceOrientation]

  public var count: Int { t.count }

  /// The classes as numbers (`DeviceOrientation.index`), for binary tables.
  public var orientationCodes: [Double] { orientation.map { Double($0.index) } }
}

/// Roll, pitch, tilt, up angle and device orientation of every sample, streaming: gravity is
/// estimated with the exponential low-pass (its state carried across blocks), from the fused
/// attitude when the blocks carry a gyroscope (and `gyroscope` is `.auto`), or taken as is.
/// Within 0.5 degrees of pitch +-90 roll has no direction, so the previous roll is held (0 at the
/// start).
public struct OrientationStage: Sendable {
  public let settings: OrientationSettings
  private var gravityFilter: ExponentialLowpass3?
  private let rate: Double
  /// The fused attitude, made at the first block when it carries a gyroscope.
  private var fusion: AttitudeStage?
  private var decided = false
  private var lastRoll = 0.0
  private var announcer: OrientationAnnouncer

  /// - Parameter rate: the sample rate in Hz, for a low-pass given by its cutoff.
  public init(_ settings: OrientationSettings, rate: Double) throws {
    self.settings = settings
    self.rate = rate
    if case .lowpass(let setting) = settings.gravity {
      gravityFilter = ExponentialLowpass3(alpha: try setting.alpha(rate: rate), initialization: .steady)
    }
    announcer = OrientationAnnouncer(classifier: settings.classifier, settle: settings.settle)
  }

  /// The gravity estimate of each sample of `block`, and |a|.
  private mutating func gravity(_ block: SampleBlock) -> (gx: [Double], gy: [Double], gz: [Double], magnitude: [Double]) {
    if !decided {
      decided = true
      if gravityFilter != nil && settings.gyroscope == .auto, let g = block.gyroscope {
        let layout = TraceLayout(hasGyroscope: true, hasMagnetometer: block.magnetometer != nil && g.count == block.count)
        fusion = try? AttitudeStage(settings.fusion, rate: rate, layout: layout)
      }
    }
    var gx: [Double], gy: [Double], gz: [Double]
    if fusion != nil {
      (gx, gy, gz) = fusion!.gravity(block)
    } else {
      (gx, gy, gz) = (block.x, block.y, block.z)
      gravityFilter?.process(&gx, &gy, &gz)
    }
    // With a fused attitude gravity is trustworthy while the device accelerates: the acceleration
    // tolerance (meant for a low-pass, which accelerations fool) does not apply.
    var magnitude = [Double](repeating: 1, count: block.count)
    if fusion == nil {
      for i in 0..<block.count {
        let (x, y, z) = (block.x[i], block.y[i], block.z[i])
        magnitude[i] = (x * x + y * y + z * z).squareRoot()
      }
    }
    return (gx, gy, gz, magnitude)
  }

  /// Whether gravity comes from the fused attitude (known after the first block).
  public var usesGyroscope: Bool { fusion != nil }

  /// The angles and classes of every sample of `block`.
  public mutating func rows(_ block: SampleBlock) -> OrientationRows {
    let g = gravity(block)
    let n = block.count
    var rows = OrientationRows(
      t: block.t, first: [], second: [], tilt: [], upAngle: [], orientation: [])
    rows.first.reserveCapacity(n)
    rows.second.reserveCapacity(n)
    rows.tilt.reserveCapacity(n)
    rows.upAngle.reserveCapacity(n)
    rows.orientation.reserveCapacity(n)
    for i in 0..<n {
      let (x, y, z) = (g.gx[i], g.gy[i], g.gz[i])
      if settings.angles == .coremotion {
        let roll = Attitude.roll(x, y, z) ?? lastRoll
        lastRoll = roll
        rows.first.append(roll)
        rows.second.append(Attitude.pitch(x, y, z))
      } else {
        let pair = Attitude.aerospace(x, y, z)
        let roll = pair.roll ?? lastRoll
        lastRoll = roll
        rows.first.append(roll)
        rows.second.append(pair.pitch)
      }
      let tilt = Attitude.tilt(x, y, z)
      let up = Attitude.upAngle(x, y)
      rows.tilt.append(tilt)
      rows.upAngle.append(up)
      // The class from the tilt and up angle just computed (classify(gravity:) would compute both
      // again: an acos and an atan2 per sample).
      rows.orientation.append(settings.classifier.classify(tilt: tilt, upAngle: up, magnitude: g.magnitude[i]))
    }
    return rows
  }

  /// The orientation changes announced within `block` (a new orientation held for `settle`
  /// seconds, with hysteresis; nothing while |a| is far from 1 g).
  public mutating func events(_ block: SampleBlock) -> [OrientationEvent] {
    let g = gravity(block)
    var events: [OrientationEvent] = []
    for i in 0..<block.count {
      if let e = announcer.add(t: block.t[i], gravity: (g.gx[i], g.gy[i], g.gz[i]), magnitude: g.magnitude[i]) {
        events.append(e)
      }
    }
    return events
  }
}
