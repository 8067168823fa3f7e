import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one-pole exponential smoothing filter of the seed material,
/// ```
/// y[n] = a * x[n] + (1 - a) * y[n-1]
/// ```
/// with `a` the "filtering factor" (kFilteringFactor, 0.1 in the seeds).
public enum ExponentialDesign {
  /// The default filtering factor of the seed material.
  public static let defaultAlpha = 0.1

  /// `a = dt / (RC + dt)` with `RC = 1 / (2*pi*fc)` and `dt = 1 / rate`: the discretised RC
  /// low-pass with time constant RC.
  public static func alpha(cutoff: Double, rate: Double) throws -> Double {
    try checkCutoff(cutoff, rate: rate)
    let dt = 1 / rate
    let rc = 1 / (2 * Double.pi * cutoff)
    return dt / (rc + dt)
  }

  /// Throws unless 0 < alpha <= 1.
  public static func check(alpha: Double) throws {
    guard alpha > 0 && alpha <= 1 else {
      throw AccelError.usage("alpha must be in (0, 1], got \(alpha)", hint: "0.1 is the seeds' kFilteringFactor")
    }
  }

  /// The frequency in Hz where the low-pass with factor `a` is 3 dB down (|H|^2 = 1/2), from
  /// |H(w)|^2 = a^2 / (1 - 2(1-a)cos w + (1-a)^2); nil when it never drops that far below Nyquist.
  public static func minus3dB(alpha a: Double, rate: Double) -> Double? {
    guard a < 1 else { return nil }
    let c = 1 - a * a / (2 * (1 - a))
    guard c >= -1 && c <= 1 else { return nil }
    return acos(c) * rate / (2 * Double.pi)
  }

  /// The frequency in Hz where the high-pass `x - lowpass(x)` is 3 dB down:
  /// |1 - H|^2 = (1-a)^2 |1 - e^{-iw}|^2 / |1 - (1-a)e^{-iw}|^2 = 1/2.
  public static func highpassMinus3dB(alpha a: Double, rate: Double) -> Double? {
    let b = 1 - a
    // 2 b^2 (2 - 2c) = 1 - 2 b c + b^2  =>  c (2 b - 4 b^2) = 1 + b^2 - 4 b^2
    let denominator = 2 * b - 4 * b * b
    guard denominator != 0 else { return nil }
    let c = (1 - 3 * b * b) / denominator
    guard c >= -1 && c <= 1 else { return nil }
    return acos(c) * rate / (2 * Double.pi)
  }
}

/// Apple's AccelerometerGraph filter constants (the sample code's LowpassFilter and
/// HighpassFilter).
///
/// Apple uses `RC = 1 / fc` (not `1 / (2*pi*fc)`), so the filter's true -3 dB point is about
/// `fc / (2*pi)`: a "5 Hz" Apple low-pass at 60 Hz is 3 dB down near 0.8 Hz.
/// ```
/// low-pass:  k = dt / (dt + RC)      high-pass: k = RC / (dt + RC)
/// ```
public enum AppleFilterDesign {
  /// kAccelerometerMinStep: changes in |a| below this are treated as noise (g).
  public static let minStep = 0.02
  /// kAccelerometerNoiseAttenuation: how much slower the filter follows noise.
  public static let noiseAttenuation = 3.0

  public static func lowpassConstant(cutoff: Double, rate: Double) throws -> Double {
    try checkCutoff(cutoff, rate: rate)
    let dt = 1.0 / rate
    let rc = 1.0 / cutoff
    return dt / (dt + rc)
  }

  public static func highpassConstant(cutoff: Double, rate: Double) throws -> Double {
    try checkCutoff(cutoff, rate: rate)
    let dt = 1.0 / rate
    let rc = 1.0 / cutoff
    return rc / (dt + rc)
  }
}
