import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The kind of frequency band a Butterworth filter passes.
public enum FilterBand: String, CaseIterable, Sendable {
  case low, high, bandpass, bandstop
}

/// Butterworth filter design, as scipy.signal.butter(N, Wn, btype, fs=rate, output='sos').
///
/// The analog prototype has poles `-exp(i*pi*m/(2N))` for m = -N+1, -N+3, ..., N-1; it is moved to
/// the band with frequencies pre-warped as `4 * tan(pi * Wn / 2)` (Wn relative to Nyquist), mapped
/// to the z-plane with the bilinear transform, and factored into second-order sections.
///
/// Reference: S. Butterworth, "On the Theory of Filter Amplifiers", Wireless Engineer 7 (1930).
public struct ButterworthDesign: Sendable {
  public let order: Int
  public let band: FilterBand
  /// Cutoff in Hz (the lower edge for band filters).
  public let cutoff: Double
  /// The upper edge in Hz, for band filters.
  public let cutoffHigh: Double?
  public let rate: Double
  public let zpk: ZerosPolesGain
  public let sections: [Biquad]

  /// - Parameters:
  ///   - order: N >= 1.
  ///   - cutoff: Hz, in (0, rate/2).
  ///   - cutoffHigh: Hz, for bandpass and bandstop: in (cutoff, rate/2).
  ///   - rate: the sample rate in Hz.
  public init(order: Int, cutoff: Double, cutoffHigh: Double? = nil, band: FilterBand, rate: Double) throws {
    let nyquist = rate / 2
    guard order >= 1 && order <= 64 else {
      throw AccelError.usage("order must be an integer from 1 to 64, got \(order)")
    }
    try checkCutoff(cutoff, rate: rate, name: "cutoff")
    var edges = [cutoff / nyquist]
    if band == .bandpass || band == .bandstop {
      guard let high = cutoffHigh else {
        throw AccelError.usage(
          "a \(band.rawValue) filter needs --cutoff-high (the upper edge in Hz)",
          hint: "e.g. --cutoff 0.5 --cutoff-high 3")
      }
      try checkCutoff(high, rate: rate, name: "cutoff-high")
      guard high > cutoff else {
        throw AccelError.usage(
          "cutoff-high must be above cutoff (\(formatHz(cutoff)) Hz), got \(formatHz(high)) Hz")
      }
      edges.append(high / nyquist)
    } else if cutoffHigh != nil {
      throw AccelError.usage("--cutoff-high is only for bandpass and bandstop filters")
    }
    self.order = order
    self.band = band
    self.cutoff = cutoff
    self.cutoffHigh = band == .bandpass || band == .bandstop ? cutoffHigh : nil
    self.rate = rate

    // Analog prototype.
    let n = Double(order)
    var poles: [Complex] = stride(from: -order + 1, to: order, by: 2).map { m in
      -Complex.exp(Complex(0, Double.pi * Double(m) / (2 * n)))
    }
    var zeros: [Complex] = []
    var gain = 1.0
    let warped = edges.map { 2 * 2.0 * tan(Double.pi * $0 / 2.0) }
    let degree = poles.count - zeros.count
    switch band {
    case .low:
      let wo = warped[0]
      zeros = zeros.map { wo * $0 }
      poles = poles.map { wo * $0 }
      gain *= pow(wo, Double(degree))
    case .high:
      let wo = warped[0]
      gain *= (Self.product(zeros.map { -$0 }) / Self.product(poles.map { -$0 })).re
      zeros = zeros.map { Complex(wo) / $0 } + Array(repeating: Complex(0), count: degree)
      poles = poles.map { Complex(wo) / $0 }
    case .bandpass:
      let bw = warped[1] - warped[0]
      let wo = (warped[0] * warped[1]).squareRoot()
      let zl = zeros.map { (bw / 2) * $0 }
      let pl = poles.map { (bw / 2) * $0 }
      let wo2 = Complex(wo * wo)
      zeros = zl.map { $0 + ($0 * $0 - wo2).squareRoot } + zl.map { $0 - ($0 * $0 - wo2).squareRoot }
        + Array(repeating: Complex(0), count: degree)
      poles = pl.map { $0 + ($0 * $0 - wo2).squareRoot } + pl.map { $0 - ($0 * $0 - wo2).squareRoot }
      gain *= pow(bw, Double(degree))
    case .bandstop:
      let bw = warped[1] - warped[0]
      let wo = (warped[0] * warped[1]).squareRoot()
      gain *= (Self.product(zeros.map { -$0 }) / Self.product(poles.map { -$0 })).re
      let zh = zeros.map { Complex(bw / 2) / $0 }
      let ph = poles.map { Complex(bw / 2) / $0 }
      let wo2 = Complex(wo * wo)
      zeros = zh.map { $0 + ($0 * $0 - wo2).squareRoot } + zh.map { $0 - ($0 * $0 - wo2).squareRoot }
        + Array(repeating: Complex(0, wo), count: degree) + Array(repeating: Complex(0, -wo), count: degree)
      poles = ph.map { $0 + ($0 * $0 - wo2).squareRoot } + ph.map { $0 - ($0 * $0 - wo2).squareRoot }
    }
    zpk = ZerosPolesGain.bilinear(zeros: zeros, poles: poles, gain: gain)
    sections = zpk.secondOrderSections()
  }

  static func product(_ values: [Complex]) -> Complex {
    values.reduce(Complex(1)) { $0 * $1 }
  }
}

/// Throws the usage error for a cutoff outside (0, rate/2).
public func checkCutoff(_ cutoff: Double, rate: Double, name: String = "cutoff") throws {
  let nyquist = rate / 2
  guard cutoff > 0 && cutoff < nyquist && cutoff.isFinite else {
    throw AccelError.usage(
      "\(name) must be in (0, \(formatHz(nyquist))) Hz for a \(formatHz(rate)) Hz trace, got \(formatHz(cutoff)) Hz",
      hint: cutoff >= nyquist ? "frequencies at or above half the sample rate cannot be represented" : nil)
  }
}

