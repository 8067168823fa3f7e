import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// VQF's parameters (Laidig and Seel, "VQF: Highly accurate IMU orientation estimation with bias
/// estimation and magnetic disturbance rejection", Information Fusion 91, 2023), with the
/// published defaults. Times in seconds, rates in degrees per second, the accelerometer threshold
/// in m/s^2. Flags are 0 or 1.
public struct VQFConfiguration: TunableConfiguration {
  public var tauAcc = 3.0
  public var tauMag = 9.0
  public var motionBiasEstimation = 1
  public var restBiasEstimation = 1
  public var magneticDisturbanceRejection = 1
  public var biasSigmaInit = 0.5
  public var biasForgettingTime = 100.0
  public var biasClip = 2.0
  public var biasSigmaMotion = 0.1
  public var biasVerticalForgettingFactor = 0.0001
  public var biasSigmaRest = 0.03
  public var restMinTime = 1.5
  public var restFilterTau = 0.5
  public var restThresholdGyroscope = 2.0
  public var restThresholdAccelerometer = 0.5
  public var magCurrentTau = 0.05
  public var magRefTau = 20.0
  public var magNormThreshold = 0.1
  public var magDipThreshold = 10.0
  public var magNewTime = 20.0
  public var magNewFirstTime = 5.0
  public var magNewMinGyroscope = 20.0
  public var magMinUndisturbedTime = 0.5
  public var magMaxRejectionTime = 60.0
  public var magRejectionFactor = 2.0

  public init() {}

  public static let parameters: [TunableParameter<VQFConfiguration>] = [
    TunableParameter(
      "tau_acc", \.tauAcc, unit: "s", range: 1e-6...1e6,
      meaning: "time constant of the accelerometer (inclination) correction"),
    TunableParameter(
      "tau_mag", \.tauMag, unit: "s", range: 0...1e6,
      meaning: "time constant of the magnetometer (heading) correction"),
    TunableParameter(
      "motion_bias_est", \.motionBiasEstimation, unit: "flag", range: 0...1,
      meaning: "1: estimate the gyroscope bias while moving"),
    TunableParameter(
      "rest_bias_est", \.restBiasEstimation, unit: "flag", range: 0...1,
      meaning: "1: detect rest and estimate the gyroscope bias there"),
    TunableParameter(
      "mag_dist_rejection", \.magneticDisturbanceRejection, unit: "flag", range: 0...1,
      meaning: "1: detect and reject magnetic disturbances"),
    TunableParameter(
      "bias_sigma_init", \.biasSigmaInit, unit: "deg/s", range: 1e-6...100,
      meaning: "uncertainty of the initial bias (0)"),
    TunableParameter(
      "bias_forgetting_time", \.biasForgettingTime, unit: "s", range: 1e-3...1e9,
      meaning: "time in which the bias uncertainty grows by 0.1 deg/s"),
    TunableParameter(
      "bias_clip", \.biasClip, unit: "deg/s", range: 0...100,
      meaning: "largest bias estimated (and rest's largest rate)"),
    TunableParameter(
      "bias_sigma_motion", \.biasSigmaMotion, unit: "deg/s", range: 1e-6...100,
      meaning: "steady-state bias uncertainty from motion"),
    TunableParameter(
      "bias_vertical_forgetting_factor", \.biasVerticalForgettingFactor, unit: "factor", range: 0...1,
      meaning: "how much weaker the vertical bias is observed in motion"),
    TunableParameter(
      "bias_sigma_rest", \.biasSigmaRest, unit: "deg/s", range: 1e-6...100,
      meaning: "steady-state bias uncertainty at rest"),
    TunableParameter(
      "rest_min_t", \.restMinTime, unit: "s", range: 0...1e6,
      meaning: "rest is detected after this long within the thresholds"),
    TunableParameter(
      "rest_filter_tau", \.restFilterTau, unit: "s", range: 1e-6...1e6,
      meaning: "time constant of rest detection's low-pass"),
    TunableParameter(
      "rest_th_gyr", \.restThresholdGyroscope, unit: "deg/s", range: 0...1e6,
      meaning: "rest: largest deviation of the rate from its low-pass"),
    TunableParameter(
      "rest_th_acc", \.restThresholdAccelerometer, unit: "m/s^2", range: 0...1e6,
      meaning: "rest: largest deviation of the acceleration from its low-pass"),
    TunableParameter(
      "mag_current_tau", \.magCurrentTau, unit: "s", range: 0...1e6,
      meaning: "low-pass of the field's norm and dip (0: none)"),
    TunableParameter(
      "mag_ref_tau", \.magRefTau, unit: "s", range: 0...1e6,
      meaning: "time constant of the reference field's norm and dip"),
    TunableParameter(
      "mag_norm_th", \.magNormThreshold, unit: "fraction", range: 0...1e6,
      meaning: "disturbed when the norm departs this much from the reference"),
    TunableParameter(
      "mag_dip_th", \.magDipThreshold, unit: "deg", range: 0...180,
      meaning: "disturbed when the dip departs this much from the reference"),
    TunableParameter(
      "mag_new_time", \.magNewTime, unit: "s", range: 0...1e6,
      meaning: "a steady new field is accepted after this much motion"),
    TunableParameter(
      "mag_new_first_time", \.magNewFirstTime, unit: "s", range: 0...1e6,
      meaning: "the same for the first field"),
    TunableParameter(
      "mag_new_min_gyr", \.magNewMinGyroscope, unit: "deg/s", range: 0...1e6,
      meaning: "motion counts towards acceptance above this rate"),
    TunableParameter(
      "mag_min_undisturbed_time", \.magMinUndisturbedTime, unit: "s", range: 0...1e6,
      meaning: "undisturbed after this long within the thresholds"),
    TunableParameter(
      "mag_max_rejection_time", \.magMaxRejectionTime, unit: "s", range: 0...1e6,
      meaning: "a disturbance is ignored entirely for at most this long"),
    TunableParameter(
      "mag_rejection_factor", \.magRejectionFactor, unit: "factor", range: 1e-6...1e6,
      meaning: "heading gain divisor after that, and recovery speed"),
  ]
}

/// VQF's second-order Butterworth low-pass, parametrised by the time constant tau (cutoff
/// sqrt(2) / (2 pi tau)), whose output during the first tau seconds is the running mean and which
/// then starts in steady state at that mean; a pass-through when tau < interval / 2.
@usableFromInline struct MeanStartLowpass<V: SIMD & Sendable>: Sendable where V.Scalar == Double {
  @usableFromInline let b0, b1, b2, a1, a2: Double
  @usableFromInline let warmUp: Double
  @usableFromInline let interval: Double
  @usableFromInline var s0 = V(), s1 = V()
  @usableFromInline var count = 0.0
  @usableFromInline var started = false

  @usableFromInline init(tau: Double, interval: Double) {
    warmUp = tau
    self.interval = interval
    if tau < interval / 2 {
      (b0, b1, b2, a1, a2) = (1, 0, 0, 0, 0)
    } else {
      let fc = 2.0.squareRoot() / (2 * Double.pi * tau)
      let c = tan(Double.pi * fc * interval)
      let d = c * c + 2.0.squareRoot() * c + 1
      b0 = c * c / d
      b1 = 2 * b0
      b2 = b0
      a1 = 2 * (c * c - 1) / d
      a2 = (1 - 2.0.squareRoot() * c + c * c) / d
    }
  }

  /// Starts in steady state at `x` (no averaging phase).
  @inlinable mutating func start(at x: V) {
    started = true
    s0 = x * (1 - b0)
    s1 = x * (b2 - a2)
  }

  @inlinable @inline(__always) mutating func step(_ x: V) -> V {
    if !started { return warmUpStep(x) }
    let y = b0 * x + s0
    s0 = b1 * x - a1 * y + s1
    s1 = b2 * x - a2 * y
    return y
  }

  /// A step of the averaging phase (kept out of line: the first tau seconds only).
  @inlinable @inline(never) mutating func warmUpStep(_ x: V) -> V {
    count += 1
    s1 += x  // the running sum until the filter starts
    let mean = s1 / count
    if count * interval >= warmUp {
      started = true
      s0 = mean * (1 - b0)
      s1 = mean * (b2 - a2)
    }
    return mean
  }
}

/// The VQF attitude filter: gyroscope strapdown integration, inclination correction from the
/// low-passed accelerometer in an almost inertial frame, rest detection, gyroscope bias
/// estimation at rest and in motion (a Kalman filter on the bias), and heading correction from the
/// magnetometer with magnetic disturbance detection and rejection. Follows the published
/// algorithm; the filters' coefficients use the nominal interval, the gyroscope is integrated over
/// each sample's own interval.
public struct VQFFilter: AttitudeFilter {
  public let configuration: VQFConfiguration

  @usableFromInline let ts: Double
  @usableFromInline let biasClip, restThGyr2, restThAcc2: Double
  @usableFromInline let kMagRef: Double
  @usableFromInline let biasP0, biasV, biasMotionW, biasVerticalW, biasRestW: Double
  @usableFromInline let restEnabled, motionEnabled, magRejection: Bool
  @usableFromInline let magNormTh, magDipTh, magNewMinGyr, magMinUndisturbed, magNewTime, magNewFirstTime,
    restMinT: Double

  @usableFromInline var gyrQuat = Quaternion.identity
  @usableFromInline var accQuat = Quaternion.identity
  @usableFromInline var delta = 0.0
  /// The rotation by `delta` about world z, kept with it.
  @usableFromInline var headingQuat = Quaternion.identity
  @usableFromInline var restDetected = false
  @usableFromInline var magDistDetected = true
  @usableFromInline var accLp: MeanStartLowpass<Vector3>
  @usableFromInline var headingGain: HeadingGain
  @usableFromInline var bias = Vector3()
  @usableFromInline var biasP: SymmetricMatrix3
  @usableFromInline var rLp: MeanStartLowpass<SIMD8<Double>>
  @usableFromInline var biasLp: MeanStartLowpass<SIMD4<Double>>
  @usableFromInline var restT = 0.0
  @usableFromInline var restGyrLp: MeanStartLowpass<Vector3>
  @usableFromInline var restAccLp: MeanStartLowpass<Vector3>
  @usableFromInline var restLastGyrLp = Vector3()
  @usableFromInline var magRefNorm = 0.0, magRefDip = 0.0
  @usableFromInline var magUndisturbedT = 0.0
  @usableFromInline var magCandidateNorm = -1.0, magCandidateDip = 0.0, magCandidateT = 0.0
  @usableFromInline var magNormDipLp: MeanStartLowpass<SIMD2<Double>>?

  public init(interval: Double, configuration c: VQFConfiguration) {
    configuration = c
    ts = interval
    let degree = Double.pi / 180
    biasClip = c.biasClip * degree
    restThGyr2 = (c.restThresholdGyroscope * degree) * (c.restThresholdGyroscope * degree)
    restThAcc2 = c.restThresholdAccelerometer * c.restThresholdAccelerometer
    kMagRef = gain(tau: c.magRefTau, interval: interval)
    // The bias covariance is kept in (0.01 deg/s)^2.
    biasP0 = (c.biasSigmaInit * 100) * (c.biasSigmaInit * 100)
    biasV = (0.1 * 100) * (0.1 * 100) * interval / c.biasForgettingTime
    let pMotion = (c.biasSigmaMotion * 100) * (c.biasSigmaMotion * 100)
    biasMotionW = pMotion * pMotion / biasV + pMotion
    biasVerticalW = biasMotionW / max(c.biasVerticalForgettingFactor, 1e-10)
    let pRest = (c.biasSigmaRest * 100) * (c.biasSigmaRest * 100)
    biasRestW = pRest * pRest / biasV + pRest
    biasP = SymmetricMatrix3.diagonal(Vector3(repeating: biasP0))
    restEnabled = c.restBiasEstimation != 0
    motionEnabled = c.motionBiasEstimation != 0
    magRejection = c.magneticDisturbanceRejection != 0
    magNormTh = c.magNormThreshold
    magDipTh = c.magDipThreshold * degree
    magNewMinGyr = c.magNewMinGyroscope * degree
    magMinUndisturbed = c.magMinUndisturbedTime
    magNewTime = c.magNewTime
    magNewFirstTime = c.magNewFirstTime
    restMinT = c.restMinTime
    headingGain = HeadingGain(configuration: c, interval: interval, rejectedFor: c.magMaxRejectionTime)
    accLp = MeanStartLowpass(tau: c.tauAcc, interval: interval)
    rLp = MeanStartLowpass(tau: c.tauAcc, interval: interval)
    biasLp = MeanStartLowpass(tau: c.tauAcc, interval: interval)
    restGyrLp = MeanStartLowpass(tau: c.restFilterTau, interval: interval)
    restAccLp = MeanStartLowpass(tau: c.restFilterTau, interval: interval)
    magNormDipLp = c.magCurrentTau > 0 ? MeanStartLowpass(tau: c.magCurrentTau, interval: interval) : nil
  }

  /// The attitude without the magnetometer: inclination right, heading relative.
  @inlinable public var attitude6D: Quaternion { accQuat * gyrQuat }

  /// The attitude with the magnetometer's heading correction (east-north-up).
  @inlinable @inline(__always) public var attitude: Quaternion { headingQuat * (accQuat * gyrQuat) }

  /// The gyroscope bias estimate in rad/s.
  public var gyroscopeBias: Vector3 { bias }
  public var isAtRest: Bool { restDetected }
  public var isMagneticallyDisturbed: Bool { magDistDetected }

  @inlinable public mutating func update(_ s: AttitudeSample) {
    updateGyroscope(s.gyroscope, interval: s.interval)
    updateAccelerometer(s.specificForce)
    if let m = s.magnetometer { updateMagnetometer(m) }
  }

  @inlinable mutating func updateGyroscope(_ gyr: Vector3, interval: Double) {
    if restEnabled || magRejection {
      let lp = restGyrLp.step(gyr)
      let deviation = gyr - lp
      let squared = dot(deviation, deviation)
      let largest = max(abs(lp.x), abs(lp.y), abs(lp.z))
      if squared >= restThGyr2 || largest > biasClip {
        restT = 0
        restDetected = false
      }
      restLastGyrLp = lp
    }
    let unbiased = gyr - bias
    let norm = length(unbiased)
    if norm > .ulpOfOne {
      let (c, s) = halfAngleCosineAndSine(norm * interval)
      let k = s / norm
      gyrQuat = (gyrQuat * Quaternion(c, k * unbiased.x, k * unbiased.y, k * unbiased.z)).normalized
    }
  }

  @inlinable mutating func updateAccelerometer(_ acc: Vector3) {
    if acc == Vector3() { return }
    if restEnabled {
      let lp = restAccLp.step(acc)
      let deviation = acc - lp
      if dot(deviation, deviation) >= restThAcc2 {
        restT = 0
        restDetected = false
      } else {
        restT += ts
        if restT >= restMinT { restDetected = true }
      }
    }
    // The acceleration in the almost inertial frame of the integrated gyroscope, low-passed, then
    // in the corrected frame: its deviation from vertical is the inclination correction.
    let accEarth = correctInclination(&accQuat, towards: accLp.step(gyrQuat.rotate(acc)))
    if motionEnabled || restEnabled { estimateBias(accEarth) }
  }

  @inlinable mutating func estimateBias(_ accEarth: Vector3) {
    let r = Matrix3(rotation: accQuat * gyrQuat)
    // R and the bias in the frame of R's first two rows are low-passed with the same filter:
    // R's first eight entries in one vector, the ninth with the two bias components in another.
    let eight = rLp.step(SIMD8(r.m00, r.m01, r.m02, r.m10, r.m11, r.m12, r.m20, r.m21))
    let rest = biasLp.step(SIMD4(r.m22, r.row(0, bias), r.row(1, bias), 0))
    let rf = Matrix3(eight[0], eight[1], eight[2], eight[3], eight[4], eight[5], eight[6], eight[7], rest[0])
    let lp = SIMD2(rest[1], rest[2])
    var e: Vector3
    var h: Matrix3
    var w: Vector3
    var measured = true
    let restStep = restDetected && restEnabled
    if restStep {
      e = restLastGyrLp - bias
      h = .identity
      w = Vector3(repeating: biasRestW)
    } else if motionEnabled {
      e = Vector3(
        -accEarth.y / ts + lp.x - rf.row(0, bias),
        accEarth.x / ts + lp.y - rf.row(1, bias),
        -rf.row(2, bias))
      h = rf
      w = Vector3(biasMotionW, biasMotionW, biasVerticalW)
    } else {
      (e, h, w) = (Vector3(), .identity, Vector3())
      measured = false
    }
    // The covariance grows while it is below its initial value (forgetting).
    if biasP.m00 < biasP0 { biasP.m00 += biasV }
    if biasP.m11 < biasP0 { biasP.m11 += biasV }
    if biasP.m22 < biasP0 { biasP.m22 += biasV }
    guard measured else { return }
    e = clip(e, biasClip)
    // K = P H^T (W + H P H^T)^-1; P -= K H P, with H P = (P H^T)^T as P is symmetric. The
    // symmetric products are formed by their upper triangles.
    let p = biasP.full
    let pht = restStep ? p : p * h.transposed
    let s = (restStep ? biasP : SymmetricMatrix3.symmetricProduct(h, pht.transposed)) + .diagonal(w)
    let k = pht * s.inverse.full
    bias += k * e
    biasP = biasP - SymmetricMatrix3.symmetricProduct(k, pht)
    bias = clip(bias, biasClip)
  }

  @inlinable mutating func updateMagnetometer(_ mag: Vector3) {
    if mag == Vector3() { return }
    let magEarth = (accQuat * gyrQuat).rotate(mag)
    if magRejection { detectDisturbance(magEarth) }
    let disagreement = wrapAngle(atan2(magEarth.x, magEarth.y) - delta)
    let k = headingGain.next(disturbed: magRejection && magDistDetected, rejection: magRejection)
    delta = wrapAngle(delta + k * disagreement)
    headingQuat = Quaternion.heading(delta)
  }

  @inlinable mutating func detectDisturbance(_ magEarth: Vector3) {
    let norm = length(magEarth)
    var normDip = SIMD2(norm, -asin(magEarth.z / norm))
    if magNormDipLp != nil { normDip = magNormDipLp!.step(normDip) }
    if abs(normDip.x - magRefNorm) < magNormTh * magRefNorm && abs(normDip.y - magRefDip) < magDipTh {
      magUndisturbedT += ts
      if magUndisturbedT >= magMinUndisturbed {
        magDistDetected = false
        magRefNorm += kMagRef * (normDip.x - magRefNorm)
        magRefDip += kMagRef * (normDip.y - magRefDip)
      }
    } else {
      magUndisturbedT = 0
      magDistDetected = true
    }
    // A new field that stays steady while the sensor moves becomes the reference.
    if abs(normDip.x - magCandidateNorm) < magNormTh * magCandidateNorm
      && abs(normDip.y - magCandidateDip) < magDipTh
    {
      if length(restLastGyrLp) >= magNewMinGyr { magCandidateT += ts }
      magCandidateNorm += kMagRef * (normDip.x - magCandidateNorm)
      magCandidateDip += kMagRef * (normDip.y - magCandidateDip)
      if magDistDetected
        && (magCandidateT >= magNewTime || (magRefNorm == 0 && magCandidateT >= magNewFirstTime))
      {
        magRefNorm = magCandidateNorm
        magRefDip = magCandidateDip
        magDistDetected = false
        magUndisturbedT = magMinUndisturbed
      }
    } else {
      magCandidateT = 0
      magCandidateNorm = normDip.x
      magCandidateDip = normDip.y
    }
  }
}

extension VQFFilter {
  /// The numbers the filter derives from its configuration and nominal interval, by name: what a
  /// copy of the filter in another language (an exported detector's fused gravity) bakes in so
  /// that its arithmetic is this filter's. The low-passes: `ACC_*` for tau_acc (the accelerometer,
  /// R and the bias), `REST_*` for rest_filter_tau, each with B0, B1, B2, A1, A2 and WARM_UP (its
  /// averaging time). Flags are 0 or 1.
  public var derivedConstants: [(name: String, value: Double)] {
    var out: [(name: String, value: Double)] = [
      ("TS", ts), ("BIAS_CLIP", biasClip), ("REST_TH_GYR2", restThGyr2), ("REST_TH_ACC2", restThAcc2),
      ("BIAS_P0", biasP0), ("BIAS_V", biasV), ("BIAS_MOTION_W", biasMotionW),
      ("BIAS_VERTICAL_W", biasVerticalW),
      ("BIAS_REST_W", biasRestW), ("REST_MIN_T", restMinT), ("REST_ENABLED", restEnabled ? 1 : 0),
      ("MOTION_ENABLED", motionEnabled ? 1 : 0), ("MAG_REJECTION", magRejection ? 1 : 0),
    ]
    for (prefix, lp) in [("ACC", accLp.coefficients), ("REST", restGyrLp.coefficients)] {
      for (name, value) in lp { out.append((prefix + "_" + name, value)) }
    }
    return out
  }
}

extension MeanStartLowpass {
  /// The coefficients by name: B0, B1, B2, A1, A2, WARM_UP.
  var coefficients: [(String, Double)] {
    [("B0", b0), ("B1", b1), ("B2", b2), ("A1", a1), ("A2", a2), ("WARM_UP", warmUp)]
  }
}

/// The gain of VQF's heading correction: that of tau_mag; 1 at the start, falling as 1/n to it
/// (fast convergence); while the field is disturbed, 0 for up to mag_max_rejection_time, then
/// divided by mag_rejection_factor (the time rejected recovers at that factor when undisturbed).
@usableFromInline struct HeadingGain: Sendable {
  @usableFromInline let kMag, interval, tauMag, maxRejection, factor: Double
  @usableFromInline var kMagInit = 1.0
  @usableFromInline var rejectedFor: Double

  @usableFromInline init(configuration c: VQFConfiguration, interval: Double, rejectedFor: Double) {
    kMag = gain(tau: c.tauMag, interval: interval)
    self.interval = interval
    tauMag = c.tauMag
    maxRejection = c.magMaxRejectionTime
    factor = c.magRejectionFactor
    self.rejectedFor = rejectedFor
  }

  /// The gain for the next sample.
  @inlinable mutating func next(disturbed: Bool, rejection: Bool) -> Double {
    var k = kMag
    if rejection {
      if disturbed {
        if rejectedFor <= maxRejection {
          rejectedFor += interval
          k = 0
        } else {
          k /= factor
        }
      } else {
        rejectedFor = max(rejectedFor - factor * interval, 0)
      }
    }
    if kMagInit != 0 {
      if k < kMagInit { k = kMagInit }
      kMagInit = kMagInit / (kMagInit + 1)
      if kMagInit * tauMag < interval { kMagInit = 0 }
    }
    return k
  }
}

/// `a` wrapped once into [-pi, pi] (inputs within one turn of it).
@inlinable @inline(__always) func wrapAngle(_ a: Double) -> Double {
  if a > .pi { return a - 2 * .pi }
  if a < -.pi { return a + 2 * .pi }
  return a
}

/// VQF's inclination correction: turns `accQuat` so that `acceleration` (in the frame before it)
/// points straight up, by the shortest rotation about a horizontal axis. Returns the acceleration's
/// unit direction before the correction.
@inlinable @inline(__always) func correctInclination(
  _ accQuat: inout Quaternion, towards acceleration: Vector3
) -> Vector3 {
  var up = accQuat.rotate(acceleration)
  let n = length(up)
  if n != 0 { up /= n }
  let qw = ((up.z + 1) / 2).squareRoot()
  let correction = qw > 1e-6 ? Quaternion(qw, 0.5 * up.y / qw, -0.5 * up.x / qw, 0) : Quaternion(0, 1, 0, 0)
  accQuat = (correction * accQuat).normalized
  return up
}
