import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Madgwick's gain (the `ahrs` package's defaults: 0.033 without, 0.041 with the magnetometer).
public struct MadgwickConfiguration: TunableConfiguration {
  public var gain = 0.033
  public var gainWithMagnetometer = 0.041
  public init() {}
  public static let parameters: [TunableParameter<MadgwickConfiguration>] = [
    TunableParameter(
      "gain", \.gain, unit: "rad/s", range: 0...100, meaning: "beta: gradient step without the magnetometer"),
    TunableParameter(
      "gain_mag", \.gainWithMagnetometer, unit: "rad/s", range: 0...100,
      meaning: "beta: gradient step with the magnetometer"),
  ]
}

/// Madgwick's filter (S. Madgwick, "An efficient orientation filter for inertial and
/// inertial/magnetic sensor arrays", 2010): the quaternion derivative of the gyroscope minus beta
/// times the normalised gradient of the accelerometer (and magnetometer) error, integrated with
/// Euler's method and renormalised: the `ahrs` package's updateIMU and updateMARG step for step.
/// The first sample sets the attitude at rest. With the magnetometer the gradient's reference
/// field is (b_x, 0, b_z) (x north, z up: north-west-up), so the attitude is turned a quarter turn
/// about z to east-north-up; the two are the same filter (left multiplication commutes with it).
public struct MadgwickFilter: AttitudeFilter {
  public let configuration: MadgwickConfiguration
  /// North-west-up when the magnetometer is used, else the world of the first sample.
  @usableFromInline var q = Quaternion.identity
  @usableFromInline var started = false
  @usableFromInline var magnetic = false
  /// A quarter turn about z: north-west-up to east-north-up.
  @usableFromInline static let toENU = Quaternion.heading(.pi / 2)

  public init(interval: Double, configuration: MadgwickConfiguration) { self.configuration = configuration }

  @inlinable public var attitude: Quaternion { magnetic ? Self.toENU * q : q }

  @inlinable public mutating func update(_ s: AttitudeSample) {
    if !started {
      started = true
      magnetic = s.magnetometer != nil
      let rest = attitudeAtRest(specificForce: s.specificForce, magnetometer: s.magnetometer)
      q = magnetic ? Self.toENU.conjugate * rest : rest
      return
    }
    let g = s.gyroscope
    var qDot = q * Quaternion(0, g.x, g.y, g.z)
    qDot = Quaternion(0.5 * qDot.w, 0.5 * qDot.x, 0.5 * qDot.y, 0.5 * qDot.z)
    let an = length(s.specificForce)
    if an > 0 {
      let a = s.specificForce / an
      let (qw, qx, qy, qz) = (q.w, q.x, q.y, q.z)
      let f0 = 2 * (qx * qz - qw * qy) - a.x
      let f1 = 2 * (qw * qx + qy * qz) - a.y
      let f2 = 2 * (0.5 - qx * qx - qy * qy) - a.z
      // The gradient J^T f, column by column of J.
      var grad = SIMD4<Double>(
        -2 * qy * f0 + 2 * qx * f1,
        2 * qz * f0 + 2 * qw * f1 - 4 * qx * f2,
        -2 * qw * f0 + 2 * qz * f1 - 4 * qy * f2,
        2 * qx * f0 + 2 * qy * f1)
      var beta = configuration.gain
      var fNonZero = f0 != 0 || f1 != 0 || f2 != 0
      if let mag = s.magnetometer, mag != Vector3() {
        beta = configuration.gainWithMagnetometer
        let m = mag / length(mag)
        let h = q.rotate(m)
        let bx = (h.x * h.x + h.y * h.y).squareRoot()
        let bz = h.z
        let f3 = 2 * bx * (0.5 - qy * qy - qz * qz) + 2 * bz * (qx * qz - qw * qy) - m.x
        let f4 = 2 * bx * (qx * qy - qw * qz) + 2 * bz * (qw * qx + qy * qz) - m.y
        let f5 = 2 * bx * (qw * qy + qx * qz) + 2 * bz * (0.5 - qx * qx - qy * qy) - m.z
        grad += SIMD4<Double>(
          -2 * bz * qy * f3 + (-2 * bx * qz + 2 * bz * qx) * f4 + 2 * bx * qy * f5,
          2 * bz * qz * f3 + (2 * bx * qy + 2 * bz * qw) * f4 + (2 * bx * qz - 4 * bz * qx) * f5,
          (-4 * bx * qy - 2 * bz * qw) * f3 + (2 * bx * qx + 2 * bz * qz) * f4 + (2 * bx * qw - 4 * bz * qy)
            * f5,
          (-4 * bx * qz + 2 * bz * qx) * f3 + (-2 * bx * qw + 2 * bz * qy) * f4 + 2 * bx * qx * f5)
        fNonZero = fNonZero || f3 != 0 || f4 != 0 || f5 != 0
      }
      let gn = (grad * grad).sum().squareRoot()
      if fNonZero && gn > 0 {
        grad /= gn
        qDot = Quaternion(
          qDot.w - beta * grad[0], qDot.x - beta * grad[1], qDot.y - beta * grad[2], qDot.z - beta * grad[3])
      }
    }
    let dt = s.interval
    q = Quaternion(q.w + qDot.w * dt, q.x + qDot.x * dt, q.y + qDot.y * dt, q.z + qDot.z * dt).normalized
  }
}

/// Mahony's gains (the `ahrs` package's defaults).
public struct MahonyConfiguration: TunableConfiguration {
  public var proportional = 1.0
  public var integral = 0.3
  public init() {}
  public static let parameters: [TunableParameter<MahonyConfiguration>] = [
    TunableParameter(
      "k_p", \.proportional, unit: "1/s", range: 0...1000, meaning: "proportional gain of the correction"),
    TunableParameter(
      "k_i", \.integral, unit: "1/s^2", range: 0...1000, meaning: "integral gain (gyroscope bias)"),
  ]
}

/// Mahony's explicit complementary filter (R. Mahony, T. Hamel, J.-M. Pflimlin, "Nonlinear
/// complementary filters on the special orthogonal group", IEEE TAC 53(5), 2008): the rate
/// corrected by k_P e plus the integral of k_I e, where e = a x v_a (+ m x v_m) compares measured
/// and expected directions; Euler integration and renormalisation, as the `ahrs` package does it.
/// Its magnetometer reference lies in the y-z plane, so the world is east-north-up.
public struct MahonyFilter: AttitudeFilter {
  public let configuration: MahonyConfiguration
  @usableFromInline var q = Quaternion.identity
  @usableFromInline var bias = Vector3()
  @usableFromInline var started = false

  public init(interval: Double, configuration: MahonyConfiguration) { self.configuration = configuration }

  @inlinable public var attitude: Quaternion { q }

  @inlinable public mutating func update(_ s: AttitudeSample) {
    if !started {
      started = true
      q = attitudeAtRest(specificForce: s.specificForce, magnetometer: s.magnetometer)
      return
    }
    let dt = s.interval
    var omega = s.gyroscope
    let an = length(s.specificForce)
    if an > 0 {
      let a = s.specificForce / an
      var e = cross(a, q.up)
      if let mag = s.magnetometer, mag != Vector3() {
        let m = mag / length(mag)
        let h = q.rotate(m)
        var vm = q.rotateBack(Vector3(0, (h.x * h.x + h.y * h.y).squareRoot(), h.z))
        vm /= length(vm)
        e += cross(m, vm)
      }
      bias += -configuration.integral * e * dt
      omega = omega - bias + configuration.proportional * e
    }
    let qDot = q * Quaternion(0, omega.x, omega.y, omega.z)
    q =
      Quaternion(
        q.w + 0.5 * qDot.w * dt, q.x + 0.5 * qDot.x * dt, q.y + 0.5 * qDot.y * dt, q.z + 0.5 * qDot.z * dt
      ).normalized
  }
}

/// The complementary filter's time constants.
public struct ComplementaryConfiguration: TunableConfiguration {
  public var tauAcc = 1.0
  public var tauMag = 5.0
  public init() {}
  public static let parameters: [TunableParameter<ComplementaryConfiguration>] = [
    TunableParameter(
      "tau_acc", \.tauAcc, unit: "s", range: 0...1e6,
      meaning: "time constant of the pull towards the accelerometer's vertical"),
    TunableParameter(
      "tau_mag", \.tauMag, unit: "s", range: 0...1e6,
      meaning: "time constant of the pull towards the magnetometer's north"),
  ]
}

/// A complementary filter: the gyroscope integrated exactly (the rotation vector over each
/// interval), then the inclination turned towards the measured vertical by the fraction
/// 1 - exp(-dt / tau_acc) of the angle between them, and the heading towards magnetic north by
/// 1 - exp(-dt / tau_mag). No bias estimation: a bias b leaves a tilt error of about b * tau_acc.
public struct ComplementaryFilter: AttitudeFilter {
  public let configuration: ComplementaryConfiguration
  @usableFromInline var q = Quaternion.identity
  @usableFromInline var started = false

  public init(interval: Double, configuration: ComplementaryConfiguration) {
    self.configuration = configuration
  }

  @inlinable public var attitude: Quaternion { q }

  @inlinable public mutating func update(_ s: AttitudeSample) {
    if !started {
      started = true
      q = attitudeAtRest(specificForce: s.specificForce, magnetometer: s.magnetometer)
      return
    }
    q = (q * Quaternion(rotationVector: s.gyroscope * s.interval)).normalized
    let an = length(s.specificForce)
    if an > 0 {
      let up = q.rotate(s.specificForce / an)
      let axis = Vector3(up.y, -up.x, 0)  // up x z
      let sine = length(axis)
      if sine > 0 {
        let angle = atan2(sine, up.z) * gain(tau: configuration.tauAcc, interval: s.interval)
        q = (Quaternion(angle: angle, axis: axis / sine) * q).normalized
      }
    }
    if let m = s.magnetometer, m != Vector3() {
      let field = q.rotate(m)
      if field.x != 0 || field.y != 0 {
        let error = atan2(field.x, field.y)
        q = (Quaternion.heading(error * gain(tau: configuration.tauMag, interval: s.interval)) * q).normalized
      }
    }
  }
}

/// The accelerometer-only estimate's time constant.
public struct AccelTiltConfiguration: TunableConfiguration {
  public var tau = 0.2
  public init() {}
  public static let parameters: [TunableParameter<AccelTiltConfiguration>] = [
    TunableParameter(
      "tau", \.tau, unit: "s", range: 0...1e6,
      meaning: "time constant of the low-pass on the accelerometer (and magnetometer)")
  ]
}

/// Tilt from the accelerometer alone: the specific force (and the field) low-passed with a
/// first-order time constant (0.2 s, as `orientation` does), up along it, north along the field's
/// horizontal part when a magnetometer is used. Wrong whenever the sensor accelerates.
public struct AccelTiltFilter: AttitudeFilter {
  public let configuration: AccelTiltConfiguration
  @usableFromInline var force = Vector3()
  @usableFromInline var field = Vector3()
  @usableFromInline var started = false

  public init(interval: Double, configuration: AccelTiltConfiguration) { self.configuration = configuration }

  public var attitude: Quaternion {
    attitudeAtRest(specificForce: force, magnetometer: field == Vector3() ? nil : field)
  }

  @inlinable public mutating func update(_ s: AttitudeSample) {
    let m = s.magnetometer ?? Vector3()
    if !started {
      started = true
      force = s.specificForce
      field = m
      return
    }
    let k = gain(tau: configuration.tau, interval: s.interval)
    force += k * (s.specificForce - force)
    field += k * (m - field)
  }
}
