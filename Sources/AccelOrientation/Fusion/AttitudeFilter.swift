import AccelCore

/// One sample as the attitude filters take it: the gyroscope in rad/s, the specific force in m/s^2
/// (at rest it points up: the negated Apple-convention reading), the magnetometer in µT or nil when
/// it is not used, and the interval since the previous sample in seconds.
public struct AttitudeSample: Sendable {
  public var gyroscope: Vector3
  public var specificForce: Vector3
  public var magnetometer: Vector3?
  public var interval: Double

  @inlinable public init(gyroscope: Vector3, specificForce: Vector3, magnetometer: Vector3?, interval: Double)
  {
    self.gyroscope = gyroscope
    self.specificForce = specificForce
    self.magnetometer = magnetometer
    self.interval = interval
  }
}

extension AttitudeSample {
  /// Sample `i` of `block` (g, Apple's convention; rad/s; µT): the specific force is the negated
  /// reading in m/s^2; no gyroscope reads 0; the magnetometer only when `magnetometer` is set.
  @inlinable @inline(__always) public init(
    _ block: SampleBlock, _ i: Int, magnetometer: Bool, interval: Double
  ) {
    self.init(
      gyroscope: block.gyroscope.map { Vector3($0.x[i], $0.y[i], $0.z[i]) } ?? Vector3(),
      specificForce: Vector3(block.x[i], block.y[i], block.z[i]) * -AccelerationUnit.standardGravity,
      magnetometer: magnetometer ? block.magnetometer.map { Vector3($0.x[i], $0.y[i], $0.z[i]) } : nil,
      interval: interval)
  }
}

/// The interval each sample is integrated over: the time since the previous sample (0 when time
/// does not advance), or the nominal interval for the first sample and after a gap of more than
/// ten nominal intervals (the rotation over a gap is unknown). `backward` walks time in reverse.
@usableFromInline struct IntervalClock: Sendable {
  @usableFromInline let nominal: Double
  @usableFromInline let backward: Bool
  @usableFromInline var last: Double?

  @usableFromInline init(nominal: Double, backward: Bool = false, last: Double? = nil) {
    self.nominal = nominal
    self.backward = backward
    self.last = last
  }

  @inlinable @inline(__always) mutating func interval(at t: Double) -> Double {
    defer { last = t }
    guard let last else { return nominal }
    let d = backward ? last - t : t - last
    return d <= 10 * nominal ? max(d, 0) : nominal
  }
}

/// The attitude filters, by name.
public enum AttitudeMethod: String, CaseIterable, Sendable {
  /// Laidig and Seel's VQF (2023): bias estimation, rest detection, magnetic disturbance rejection.
  case vqf
  /// Madgwick's gradient-descent filter (2010), as the `ahrs` package implements it.
  case madgwick
  /// Mahony's nonlinear complementary filter with integral bias (2008), as `ahrs` implements it.
  case mahony
  /// A plain complementary filter: gyroscope integration nudged towards the accelerometer's
  /// vertical and the magnetometer's north with first-order time constants.
  case complementary
  /// The accelerometer alone (low-passed): tilt only, heading from the magnetometer when used.
  case accel

  public var needsGyroscope: Bool { self != .accel }

  public var summary: String {
    switch self {
    case .vqf:
      return
        "VQF (Laidig & Seel 2023): gyroscope integration, low-passed accelerometer correction, rest detection and bias estimation, magnetic disturbance rejection"
    case .madgwick: return "Madgwick (2010) gradient descent, as the ahrs package implements it"
    case .mahony:
      return "Mahony (2008) complementary filter with integral bias, as the ahrs package implements it"
    case .complementary:
      return "gyroscope integration pulled towards the accelerometer's vertical and the magnetometer's north"
    case .accel:
      return "the low-passed accelerometer alone: tilt only (heading from the magnetometer when used)"
    }
  }
}

/// An attitude filter: a state fed sample by sample, made from the nominal sample interval and
/// its typed configuration. `attitude` maps sensor-frame vectors into a world frame with z up
/// (east-north-up when magnetometer samples are given).
public protocol AttitudeFilter: Sendable {
  associatedtype Configuration: TunableConfiguration
  init(interval: Double, configuration: Configuration)
  mutating func update(_ sample: AttitudeSample)
  var attitude: Quaternion { get }
  /// Feeds every sample of `block` (g, Apple's convention; rad/s; µT), appending the attitude after
  /// each to `out`. `lastT` carries the previous sample's time across blocks; `nominal` is the
  /// nominal interval. Given by an extension: a requirement so that each filter's loop is
  /// specialised.
  mutating func run(
    _ block: SampleBlock, nominal: Double, lastT: inout Double?, magnetometer: Bool,
    into out: inout [Quaternion])
}

/// The attitude of a sensor at rest measuring the specific force `f` (and the field `m`): up along
/// f; with a field, north along its horizontal part (east-north-up); without, the shortest
/// rotation from f to world z.
public func attitudeAtRest(specificForce f: Vector3, magnetometer m: Vector3?) -> Quaternion {
  let n = length(f)
  guard n > 0 else { return .identity }
  let up = f / n
  if let m {
    let east = cross(m, up)
    let e = length(east)
    if e > 0 {
      let eastUnit = east / e
      return Quaternion(east: eastUnit, north: cross(up, eastUnit), up: up)
    }
  }
  return Quaternion.between(up, Vector3(0, 0, 1))
}
