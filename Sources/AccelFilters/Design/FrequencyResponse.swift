#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The frequency response of second-order sections, as scipy.signal.sosfreqz(sos, worN=count,
/// fs=rate): `count` frequencies from 0 up to (not including) Nyquist, the complex response at
/// each, its gain and its phase unwrapped (as numpy.unwrap). A zero-phase (forward-backward)
/// filter's response is |H|^2 with no phase.
public struct FrequencyResponse: Sendable {
  public let frequencies: [Double]
  public let gain: [Double]
  /// Radians, unwrapped.
  public let phase: [Double]

  public init(sections: [Biquad], rate: Double, count: Int = 512, zeroPhase: Bool = false) {
    var frequencies: [Double] = []
    var gain: [Double] = []
    var phase: [Double] = []
    var raw: [Double] = []
    for k in 0..<count {
      let w = Double.pi * Double(k) / Double(count)
      // z^-1 and z^-2 on the unit circle.
      let z1 = Complex(cos(w), -sin(w))
      let z2 = Complex(cos(2 * w), -sin(2 * w))
      var h = Complex(1)
      for s in sections {
        let numerator = Complex(s.b0) + s.b1 * z1 + s.b2 * z2
        let denominator = Complex(1) + s.a1 * z1 + s.a2 * z2
        h = h * (numerator / denominator)
      }
      frequencies.append(rate / 2 * Double(k) / Double(count))
      let magnitude = h.magnitude
      gain.append(zeroPhase ? magnitude * magnitude : magnitude)
      raw.append(zeroPhase ? 0 : atan2(h.im, h.re))
    }
    // numpy.unwrap: a step of pi or more is taken as a wrap and corrected by a multiple of 2 pi.
    var correction = 0.0
    for k in raw.indices {
      if k > 0 {
        let step = raw[k] - raw[k - 1]
        if abs(step) >= Double.pi {
          var wrapped = (step + Double.pi).truncatingRemainder(dividingBy: 2 * Double.pi)
          if wrapped < 0 { wrapped += 2 * Double.pi }
          wrapped -= Double.pi
          if wrapped == -Double.pi && step > 0 { wrapped = Double.pi }
          correction += wrapped - step
        }
      }
      phase.append(raw[k] + correction)
    }
    self.frequencies = frequencies
    self.gain = gain
    self.phase = phase
  }

  /// The gain in decibels (20 log10 |H|), clamped at -300 dB.
  public var gainDecibels: [Double] { gain.map { 20 * log10(max($0, 1e-15)) } }
}
