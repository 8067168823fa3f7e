/// How a stateful filter starts.
public enum FilterInit: String, CaseIterable, Sendable {
  /// The state a constant input equal to the first sample would have reached: no start-up
  /// transient (scipy's `sosfilt_zi` idea).
  case steady
  /// All state zero: scipy's default and Apple's zero-initialised filters.
  case zero
}

/// A cascade of second-order sections run in transposed direct form II, like scipy.signal.sosfilt,
/// carrying its state across calls (processing in chunks equals processing in one go).
/// ```
/// y  = b0 x + z0
/// z0 = b1 x - a1 y + z1
/// z1 = b2 x - a2 y
/// ```
public struct SOSFilter: Sendable {
  public let sections: [Biquad]
  private var state: [Double]
  private var started = false
  private let initialization: FilterInit

  public init(sections: [Biquad], initialization: FilterInit) {
    self.sections = sections
    self.initialization = initialization
    state = Array(repeating: 0, count: 2 * sections.count)
  }

  /// scipy's `sosfilt_zi`: per-section steady states for a unit step, each scaled by the DC gain
  /// of the sections before it.
  public static func steadyState(_ sections: [Biquad]) -> [Double] {
    var zi: [Double] = []
    var scale = 1.0
    for s in sections {
      let (z0, z1) = s.steadyState
      zi += [scale * z0, scale * z1]
      scale *= (s.b0 + s.b1 + s.b2) / (1 + s.a1 + s.a2)
    }
    return zi
  }

  /// Sets the state to `zi * x0` (for zero-phase filtering and tests).
  public mutating func start(steadyAt x0: Double) {
    state = Self.steadyState(sections).map { $0 * x0 }
    started = true
  }

  /// Filters `x` in place.
  public mutating func process(_ x: inout [Double]) {
    guard !x.isEmpty else { return }
    if !started {
      started = true
      if initialization == .steady { start(steadyAt: x[0]) }
    }
    let count = x.count
    state.withUnsafeMutableBufferPointer { z in
      x.withUnsafeMutableBufferPointer { v in
        for (k, s) in sections.enumerated() {
          var z0 = z[2 * k]
          var z1 = z[2 * k + 1]
          let b0 = s.b0, b1 = s.b1, b2 = s.b2, a1 = s.a1, a2 = s.a2
          for i in 0..<count {
            let xi = v[i]
            let y = b0 * xi + z0
            z0 = b1 * xi - a1 * y + z1
            z1 = b2 * xi - a2 * y
            v[i] = y
          }
          z[2 * k] = z0
          z[2 * k + 1] = z1
        }
      }
    }
  }
}

/// Forward-backward filtering like scipy.signal.sosfiltfilt: odd extension of
/// `3 * (2 * sections + 1 - min(trailing-zero b2 count, trailing-zero a2 count))` samples at each
/// end (fewer for short signals is an error, as in scipy), steady-state start in both directions.
/// Holds the whole signal.
public enum ZeroPhase {
  public static func padLength(_ sections: [Biquad]) -> Int {
    let zerosB = sections.filter { $0.b2 == 0 }.count
    let zerosA = sections.filter { $0.a2 == 0 }.count
    return 3 * (2 * sections.count + 1 - min(zerosB, zerosA))
  }

  /// - Throws: nothing; returns nil when the signal is too short (scipy requires more than
  ///   `padLength` samples).
  public static func filter(_ x: [Double], sections: [Biquad]) -> [Double]? {
    let n = x.count
    let pad = padLength(sections)
    guard n > pad else { return nil }
    var ext = [Double]()
    ext.reserveCapacity(n + 2 * pad)
    let first = x[0]
    let last = x[n - 1]
    for i in stride(from: pad, through: 1, by: -1) { ext.append(2 * first - x[i]) }
    ext += x
    for i in stride(from: 1, through: pad, by: 1) { ext.append(2 * last - x[n - 1 - i]) }
    var forward = SOSFilter(sections: sections, initialization: .zero)
    forward.start(steadyAt: ext[0])
    forward.process(&ext)
    ext.reverse()
    var backward = SOSFilter(sections: sections, initialization: .zero)
    backward.start(steadyAt: ext[0])
    backward.process(&ext)
    ext.reverse()
    return Array(ext[pad..<(pad + n)])
  }
}
