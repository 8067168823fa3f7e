import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Analysis windows, periodic (the DFT-even form scipy.signal.get_window returns for spectral
/// analysis): a symmetric window of length N + 1 without its last point.
public enum WindowKind: Equatable, Sendable {
  case boxcar
  case hann
  case hamming
  case blackman
  /// Tukey (tapered cosine) with the fraction `alpha` of the window inside the taper
  /// (0: boxcar, 1: Hann).
  case tukey(alpha: Double)

  public var name: String {
    switch self {
    case .boxcar: "boxcar"
    case .hann: "hann"
    case .hamming: "hamming"
    case .blackman: "blackman"
    case .tukey(let a): "tukey(\(a))"
    }
  }

  /// The window's N values.
  public func values(count n: Int) -> [Double] {
    precondition(n >= 1)
    if n == 1 { return [1] }
    let m = n + 1  // symmetric length, last point dropped
    switch self {
    case .boxcar:
      return Array(repeating: 1, count: n)
    case .hann:
      return Self.generalCosine(n, m, [0.5, 0.5])
    case .hamming:
      return Self.generalCosine(n, m, [0.54, 0.46])
    case .blackman:
      return Self.generalCosine(n, m, [0.42, 0.50, 0.08])
    case .tukey(let alpha):
      if alpha <= 0 { return Array(repeating: 1, count: n) }
      if alpha >= 1 { return WindowKind.hann.values(count: n) }
      let width = Int((alpha * Double(m - 1) / 2).rounded(.down))
      return (0..<n).map { i -> Double in
        let x = Double(i)
        if i <= width {
          return 0.5 * (1 + cos(Double.pi * (-1 + 2 * x / alpha / Double(m - 1))))
        } else if i < m - width - 1 {
          return 1
        } else {
          return 0.5 * (1 + cos(Double.pi * (-2 / alpha + 1 + 2 * x / alpha / Double(m - 1))))
        }
      }
    }
  }

  /// sum_k (-1)^k a_k cos(k * phi), phi spanning [-pi, pi] over the symmetric length m.
  static func generalCosine(_ n: Int, _ m: Int, _ a: [Double]) -> [Double] {
    (0..<n).map { i in
      let phi = -Double.pi + 2 * Double.pi * Double(i) / Double(m - 1)
      var w = 0.0
      for (k, c) in a.enumerated() { w += c * cos(Double(k) * phi) }
      return w
    }
  }
}

/// What to remove from each segment before windowing.
public enum Detrend: String, CaseIterable, Sendable {
  case constant, linear, none
}

/// The units of a spectrum.
public enum SpectralScaling: String, CaseIterable, Sendable {
  /// Power spectral density, g^2/Hz: scaled by 1 / (fs * sum(w^2)).
  case density
  /// Power spectrum, g^2: scaled by 1 / sum(w)^2 (a sine of amplitude A peaks at A^2 / 2).
  case spectrum
}
