import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A Chebyshev type I low-pass design, as scipy.signal.cheby1(order, ripple, wn, output='sos'):
/// `ripple` dB of ripple in the passband, the edge `wn` relative to Nyquist (the frequency where
/// the gain leaves the ripple band).
public struct ChebyshevDesign: Sendable {
  public let order: Int
  public let ripple: Double
  public let edge: Double
  public let zpk: ZerosPolesGain
  public let sections: [Biquad]

  public init(order: Int, ripple: Double, edge wn: Double) throws {
    guard order >= 1 && order <= 64 else {
      throw AccelError.usage("order must be an integer from 1 to 64, got \(order)")
    }
    guard ripple > 0 && ripple.isFinite else { throw AccelError.usage("the ripple must be above 0 dB") }
    guard wn > 0 && wn < 1 else {
      throw AccelError.usage(
        "the edge must lie between 0 and the Nyquist frequency, got \(formatNumber(wn)) of it")
    }
    self.order = order
    self.ripple = ripple
    edge = wn
    // The analog prototype (scipy.signal.cheb1ap): poles on an ellipse, the gain normalised so
    // that the passband peaks at 1 (at 1/sqrt(1 + eps^2) at DC for an even order).
    let n = Double(order)
    let eps = (pow(10, 0.1 * ripple) - 1).squareRoot()
    let mu = asinh(1 / eps) / n
    var poles: [Complex] = stride(from: -order + 1, to: order, by: 2).map { m in
      let theta = Double.pi * Double(m) / (2 * n)
      return Complex(-sinh(mu) * cos(theta), -cosh(mu) * sin(theta))
    }
    var gain = poles.reduce(Complex(1)) { $0 * (-$1) }.re
    if order % 2 == 0 { gain /= (1 + eps * eps).squareRoot() }
    // To the edge (prewarped), then digital.
    let warped = 4 * tan(Double.pi * wn / 2)
    poles = poles.map { warped * $0 }
    gain *= pow(warped, n)
    zpk = ZerosPolesGain.bilinear(zeros: [], poles: poles, gain: gain)
    sections = zpk.secondOrderSections()
  }
}

/// Downsampling by an integer factor after an anti-alias filter, as scipy.signal.decimate with its
/// default IIR filter: cheby1(order, 0.05, 0.8 / factor), run forward and backward (zero phase,
/// `sosfiltfilt`) or forward only from rest (`sosfilt`), then every factor-th sample from the first.
public struct Decimation: Sendable {
  public let factor: Int
  public let design: ChebyshevDesign

  public init(factor: Int, order: Int = 8) throws {
    guard factor >= 2 && factor <= 1000 else {
      throw AccelError.usage("the decimation factor must be from 2 to 1000, got \(factor)")
    }
    self.factor = factor
    design = try ChebyshevDesign(order: order, ripple: 0.05, edge: 0.8 / Double(factor))
  }

  /// The decimated `x` (in memory; the command streams the same steps).
  public func apply(_ x: [Double], zeroPhase: Bool = true) -> [Double]? {
    let filtered: [Double]
    if zeroPhase {
      guard let y = ZeroPhase.filter(x, sections: design.sections) else { return nil }
      filtered = y
    } else {
      var y = x
      var filter = SOSFilter(sections: design.sections, initialization: .zero)
      filter.process(&y)
      filtered = y
    }
    return stride(from: 0, to: filtered.count, by: factor).map { filtered[$0] }
  }
}
