/// One second-order section (biquad):
/// ```
///          b0 + b1 z^-1 + b2 z^-2
/// H(z) = --------------------------
///          1 + a1 z^-1 + a2 z^-2
/// ```
/// with a0 = 1, in scipy's `sos` row order `[b0, b1, b2, 1, a1, a2]`.
public struct Biquad: Equatable, Sendable {
  public var b0, b1, b2, a1, a2: Double

  public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
    self.b0 = b0
    self.b1 = b1
    self.b2 = b2
    self.a1 = a1
    self.a2 = a2
  }

  /// The six coefficients as scipy prints a row of `sos`.
  public var row: [Double] { [b0, b1, b2, 1, a1, a2] }

  /// H(1), the gain at 0 Hz.
  public var dcGain: Double { (b0 + b1 + b2) / (1 + a1 + a2) }

  /// The steady-state transposed direct form II state for a constant input of 1 (scipy's
  /// `lfilter_zi` for this section): the state that makes a constant input give a constant output.
  ///
  /// Solves (I - A^T) zi = B with A the companion matrix of [1, a1, a2] and
  /// B = [b1 - a1 b0, b2 - a2 b0].
  public var steadyState: (Double, Double) {
    let r0 = b1 - a1 * b0
    let r1 = b2 - a2 * b0
    // [[1 + a1, -1], [a2, 1]] zi = [r0, r1]
    let det = (1 + a1) + a2
    let z0 = (r0 + r1) / det
    let z1 = r1 - a2 * z0
    return (z0, z1)
  }
}

/// Zeros, poles and gain of a digital filter.
public struct ZerosPolesGain: Equatable, Sendable {
  /// The digital filter of an analog one (frequencies relative to Nyquist: prewarped with
  /// 2 fs tan(pi w / fs), fs = 2), by the bilinear transform, as scipy.signal.bilinear_zpk:
  /// zeros at infinity go to -1.
  public static func bilinear(zeros: [Complex], poles: [Complex], gain: Double) -> ZerosPolesGain {
    let fs2 = Complex(4)
    func product(_ values: [Complex]) -> Complex { values.reduce(Complex(1)) { $0 * $1 } }
    let relativeDegree = poles.count - zeros.count
    let digitalGain = gain * (product(zeros.map { fs2 - $0 }) / product(poles.map { fs2 - $0 })).re
    let digitalZeros = zeros.map { (fs2 + $0) / (fs2 - $0) } + Array(repeating: Complex(-1), count: relativeDegree)
    let digitalPoles = poles.map { (fs2 + $0) / (fs2 - $0) }
    return ZerosPolesGain(zeros: digitalZeros, poles: digitalPoles, gain: digitalGain)
  }

  public var zeros: [Complex]
  public var poles: [Complex]
  public var gain: Double

  /// Second-order sections, paired and ordered as scipy.signal.zpk2sos does for a digital filter
  /// (pairing "nearest"): the pole nearest the unit circle goes last, each pole is paired with the
  /// nearest zero, and the overall gain goes into the first section.
  public func secondOrderSections() -> [Biquad] {
    var z = zeros
    var p = poles
    if z.isEmpty && p.isEmpty {
      return [Biquad(b0: gain, b1: 0, b2: 0, a1: 0, a2: 0)]
    }
    // Same number of poles and zeros (padding with the origin), and an even count.
    while p.count < z.count { p.append(Complex(0)) }
    while z.count < p.count { z.append(Complex(0)) }
    let sectionCount = (p.count + 1) / 2
    if p.count % 2 == 1 {
      p.append(Complex(0))
      z.append(Complex(0))
    }
    z = Self.conjugatePairsThenReals(z)
    p = Self.conjugatePairsThenReals(p)

    func worst(_ candidates: [Complex], among indices: [Int]? = nil) -> Int {
      let pool = indices ?? Array(candidates.indices)
      var best = pool[0]
      var bestDistance = abs(1 - candidates[best].magnitude)
      for i in pool.dropFirst() {
        let d = abs(1 - candidates[i].magnitude)
        if d < bestDistance {
          best = i
          bestDistance = d
        }
      }
      return best
    }
    func nearest(_ from: [Complex], to target: Complex, real: Bool?) -> Int {
      // Stable order by distance; then the first of the wanted kind.
      let order = from.indices.sorted {
        let a = (from[$0] - target).magnitude
        let b = (from[$1] - target).magnitude
        return a != b ? a < b : $0 < $1
      }
      guard let real else { return order[0] }
      return order.first { from[$0].isReal == real }!
    }

    var sections = [Biquad](repeating: Biquad(b0: 0, b1: 0, b2: 0, a1: 0, a2: 0), count: sectionCount)
    for si in stride(from: sectionCount - 1, through: 0, by: -1) {
      let p1 = p.remove(at: worst(p))
      let realPolesLeft = p.filter(\.isReal).count
      if p1.isReal && realPolesLeft == 0 {
        // The last real pole: pair it with the nearest real zero.
        let z1 = z.remove(at: nearest(z, to: p1, real: true))
        sections[si] = Self.section(zeros: [z1, Complex(0)], poles: [p1, Complex(0)])
      } else if p.count + 1 == z.count && !p1.isReal && realPolesLeft == 1
        && z.filter(\.isReal).count == 1
      {
        // One real pole and one real zero left: this complex pole must take a complex zero.
        let z1 = z.remove(at: nearest(z, to: p1, real: false))
        sections[si] = Self.section(zeros: [z1, z1.conjugate], poles: [p1, p1.conjugate])
      } else {
        let p2: Complex
        if p1.isReal {
          let realIndices = p.indices.filter { p[$0].isReal }
          p2 = p.remove(at: worst(p, among: realIndices))
        } else {
          p2 = p1.conjugate
        }
        if !z.isEmpty {
          let z1 = z.remove(at: nearest(z, to: p1, real: nil))
          if !z1.isReal {
            sections[si] = Self.section(zeros: [z1, z1.conjugate], poles: [p1, p2])
          } else if !z.isEmpty {
            let z2 = z.remove(at: nearest(z, to: p1, real: true))
            sections[si] = Self.section(zeros: [z1, z2], poles: [p1, p2])
          } else {
            sections[si] = Self.section(zeros: [z1], poles: [p1, p2])
          }
        } else {
          sections[si] = Self.section(zeros: [], poles: [p1, p2])
        }
      }
    }
    sections[0].b0 *= gain
    sections[0].b1 *= gain
    sections[0].b2 *= gain
    return sections
  }

  /// One value of each conjugate pair (positive imaginary part, averaged with its partner), sorted
  /// by real part then |imaginary part|, followed by the real values sorted: scipy's `_cplxreal`.
  /// Sections are then built from a pole and its conjugate.
  static func conjugatePairsThenReals(_ values: [Complex]) -> [Complex] {
    let tolerance = 100 * Double.ulpOfOne
    let sorted = values.sorted { ($0.re, abs($0.im)) < ($1.re, abs($1.im)) }
    var reals: [Double] = []
    var positive: [Complex] = []
    var negative: [Complex] = []
    for v in sorted {
      if abs(v.im) <= tolerance * v.magnitude {
        reals.append(v.re)
      } else if v.im > 0 {
        positive.append(v)
      } else {
        negative.append(v)
      }
    }
    precondition(positive.count == negative.count, "complex values without conjugates")
    let pairs = zip(positive, negative).map { Complex(($0.re + $1.re) / 2, ($0.im - $1.im) / 2) }
    return pairs + reals.map { Complex($0) }
  }

  /// A section from up to two zeros and two poles, leading coefficients aligned right as scipy
  /// does (a first-order numerator becomes [0, 1, -z]).
  static func section(zeros: [Complex], poles: [Complex]) -> Biquad {
    let b = realPolynomial(zeros)
    let a = realPolynomial(poles)
    var bb = [0.0, 0, 0]
    var aa = [0.0, 0, 0]
    for (i, c) in b.enumerated() { bb[3 - b.count + i] = c }
    for (i, c) in a.enumerated() { aa[3 - a.count + i] = c }
    precondition(aa[0] == 1)
    return Biquad(b0: bb[0], b1: bb[1], b2: bb[2], a1: aa[1], a2: aa[2])
  }

  /// Coefficients of prod (x - r), highest power first, as real numbers.
  static func realPolynomial(_ roots: [Complex]) -> [Double] {
    var c = [Complex(1)]
    for r in roots {
      var next = c + [Complex(0)]
      for i in 0..<c.count { next[i + 1] = next[i + 1] - r * c[i] }
      c = next
    }
    return c.map(\.re)
  }
}
