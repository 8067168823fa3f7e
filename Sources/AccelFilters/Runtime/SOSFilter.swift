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
  var state: [Double]
  var started = false
  let initialization: FilterInit

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
/// Holds the whole signal; `ZeroPhaseStream3` is the bounded-memory form.
public enum ZeroPhase {
  public static func padLength(_ sections: [Biquad]) -> Int {
    let zerosB = sections.filter { $0.b2 == 0 }.count
    let zerosA = sections.filter { $0.a2 == 0 }.count
    return 3 * (2 * sections.count + 1 - min(zerosB, zerosA))
  }

  /// Filters one signal; nil when it is too short (scipy requires more than `padLength`
  /// samples).
  public static func filter(_ x: [Double], sections: [Biquad]) -> [Double]? {
    guard var ext = extend(x, pad: padLength(sections)) else { return nil }
    var forward = SOSFilter(sections: sections, initialization: .steady)
    forward.process(&ext)
    ext.reverse()
    var backward = SOSFilter(sections: sections, initialization: .steady)
    backward.process(&ext)
    ext.reverse()
    return trim(ext, pad: padLength(sections), count: x.count)
  }

  /// Filters three signals of the same length in one pass (the same result as three `filter`
  /// calls, faster); nil when they are too short.
  public static func filter3(_ x: [Double], _ y: [Double], _ z: [Double], sections: [Biquad]) -> [[Double]]? {
    let pad = padLength(sections)
    guard var ex = extend(x, pad: pad), var ey = extend(y, pad: pad), var ez = extend(z, pad: pad) else { return nil }
    var forward = SOSFilter3(sections: sections, initialization: .steady)
    forward.process(&ex, &ey, &ez)
    ex.reverse()
    ey.reverse()
    ez.reverse()
    var backward = SOSFilter3(sections: sections, initialization: .steady)
    backward.process(&ex, &ey, &ez)
    return [ex, ey, ez].map { column in
      var c = column
      c.reverse()
      return trim(c, pad: pad, count: x.count)
    }
  }

  /// Odd extension by `pad` samples at each end: 2 x[0] - x[pad...1] and 2 x[n-1] - x[n-2...].
  static func extend(_ x: [Double], pad: Int) -> [Double]? {
    let n = x.count
    guard n > pad else { return nil }
    var ext = [Double]()
    ext.reserveCapacity(n + 2 * pad)
    let first = x[0]
    let last = x[n - 1]
    for i in stride(from: pad, through: 1, by: -1) { ext.append(2 * first - x[i]) }
    ext += x
    for i in stride(from: 1, through: pad, by: 1) { ext.append(2 * last - x[n - 1 - i]) }
    return ext
  }

  static func trim(_ ext: [Double], pad: Int, count: Int) -> [Double] {
    Array(ext[pad..<(pad + count)])
  }
}

/// Forward-backward filtering of x, y, z in bounded memory, giving exactly `ZeroPhase.filter3`'s
/// values. The caller keeps the forward pass's output (on disk, say) and hands it back in
/// reverse block order:
/// 1. `forward` on the signal's blocks in order (the first call needs more than `pad` samples);
/// 2. `turn()` once the signal has ended (false when it was too short);
/// 3. `backward` on the forward output's blocks, from the last block to the first.
/// Each call filters its block in place. The odd extensions at both ends are built from the first
/// and last `pad + 1` samples, which is all the state there is besides the sections'.
public struct ZeroPhaseStream3: Sendable {
  public let pad: Int
  private var forwardFilter: SOSFilter3
  private var backwardFilter: SOSFilter3
  private let sections: [Biquad]
  /// The last `pad + 1` raw samples seen by `forward`, oldest first.
  private var tail: [[Double]] = [[], [], []]
  public private(set) var count = 0

  public init(sections: [Biquad]) {
    self.sections = sections
    pad = ZeroPhase.padLength(sections)
    forwardFilter = SOSFilter3(sections: sections, initialization: .steady)
    backwardFilter = SOSFilter3(sections: sections, initialization: .steady)
  }

  /// Filters the next block of the signal forward, in place.
  public mutating func forward(_ x: inout [Double], _ y: inout [Double], _ z: inout [Double]) {
    guard !x.isEmpty else { return }
    if count == 0 {
      precondition(x.count > pad, "the first block must hold more than pad samples")
      // The left extension 2 x[0] - x[pad ... 1], run through first (its output is trimmed).
      let pad = self.pad
      let extend = { (v: [Double]) in stride(from: pad, through: 1, by: -1).map { 2 * v[0] - v[$0] } }
      var (lx, ly, lz) = (extend(x), extend(y), extend(z))
      forwardFilter.process(&lx, &ly, &lz)
    }
    for (k, v) in [x, y, z].enumerated() {
      tail[k] += v[max(0, v.count - pad - 1)...]  // a slice (Sequence.suffix walked the whole block)
      if tail[k].count > pad + 1 { tail[k].removeFirst(tail[k].count - pad - 1) }
    }
    count += x.count
    forwardFilter.process(&x, &y, &z)
  }

  /// Ends the forward pass: runs the right extension 2 x[n-1] - x[n-2 ...] forward, then backward
  /// (its output is trimmed too), leaving the backward filter in the state the end of the
  /// signal needs. False when the signal has `pad` samples or fewer (scipy refuses those too).
  public mutating func turn() -> Bool {
    guard count > pad else { return false }
    let pad = self.pad
    let extend = { (v: [Double]) in (1...pad).map { 2 * v[pad] - v[pad - $0] } }
    var (rx, ry, rz) = (extend(tail[0]), extend(tail[1]), extend(tail[2]))
    forwardFilter.process(&rx, &ry, &rz)
    backwardFilter.processReversed(&rx, &ry, &rz)
    return true
  }

  /// Filters the forward output backward: blocks from the last to the first, each in place.
  public mutating func backward(_ x: inout [Double], _ y: inout [Double], _ z: inout [Double]) {
    backwardFilter.processReversed(&x, &y, &z)
  }
}

/// Three channels (x, y, z) through the same sections, run in one loop so the three independent
/// recurrences overlap in the processor (each alone is a chain of dependent multiply-adds).
/// Results are identical to three separate `SOSFilter`s.
public struct SOSFilter3: Sendable {
  private var channels: [SOSFilter]

  public init(sections: [Biquad], initialization: FilterInit) {
    channels = Array(repeating: SOSFilter(sections: sections, initialization: initialization), count: 3)
  }

  public mutating func process(_ x: inout [Double], _ y: inout [Double], _ z: inout [Double]) {
    precondition(x.count == y.count && y.count == z.count)
    guard !x.isEmpty else { return }
    for k in 0..<3 { channels[k].startIfNeeded(first: k == 0 ? x[0] : k == 1 ? y[0] : z[0]) }
    run(&x, &y, &z, reversed: false)
  }

  /// Runs the sections over the samples, first to last or last to first, one section per pass
  /// with x, y, z in the lanes of one vector (the same operations per lane as the scalar loop).
  /// Running two sections per pass was tried: with the baseline x86-64 vector registers the
  /// second section's coefficients spill to the stack and it is no faster.
  private mutating func run(_ x: inout [Double], _ y: inout [Double], _ z: inout [Double], reversed: Bool) {
    let count = x.count
    let sections = channels[0].sections
    x.withUnsafeMutableBufferPointer { vx in
      y.withUnsafeMutableBufferPointer { vy in
        z.withUnsafeMutableBufferPointer { vz in
          let (px, py, pz) = (vx.baseAddress!, vy.baseAddress!, vz.baseAddress!)
          for k in sections.indices {
            var lane = Lane(sections[k], states: channels.map { $0.stateOf(k) })
            var i = reversed ? count - 1 : 0
            let step = reversed ? -1 : 1
            for _ in 0..<count {
              let o = lane.step(SIMD4<Double>(px[i], py[i], pz[i], 0))
              px[i] = o[0]
              py[i] = o[1]
              pz[i] = o[2]
              i += step
            }
            for c in 0..<3 { channels[c].setState(k, lane.s0[c], lane.s1[c]) }
          }
        }
      }
    }
  }

  /// One section's coefficients and state for x, y, z in the lanes of a vector.
  private struct Lane {
    let b0, b1, b2, a1, a2: SIMD4<Double>
    var s0, s1: SIMD4<Double>

    init(_ s: Biquad, states: [(Double, Double)]) {
      b0 = SIMD4(repeating: s.b0)
      b1 = SIMD4(repeating: s.b1)
      b2 = SIMD4(repeating: s.b2)
      a1 = SIMD4(repeating: s.a1)
      a2 = SIMD4(repeating: s.a2)
      s0 = SIMD4(states[0].0, states[1].0, states[2].0, 0)
      s1 = SIMD4(states[0].1, states[1].1, states[2].1, 0)
    }

    @inline(__always)
    mutating func step(_ v: SIMD4<Double>) -> SIMD4<Double> {
      let o = b0 * v + s0
      s0 = b1 * v - a1 * o + s1
      s1 = b2 * v - a2 * o
      return o
    }
  }
}

extension SOSFilter3 {
  /// Filters the samples from the last to the first, in place: the same as reversing the
  /// arrays, `process`, and reversing back, without the copies (and, when the filter starts
  /// here, steady at the last sample).
  public mutating func processReversed(_ x: inout [Double], _ y: inout [Double], _ z: inout [Double]) {
    precondition(x.count == y.count && y.count == z.count)
    guard !x.isEmpty else { return }
    let last = x.count - 1
    for k in 0..<3 { channels[k].startIfNeeded(first: k == 0 ? x[last] : k == 1 ? y[last] : z[last]) }
    run(&x, &y, &z, reversed: true)
  }
}

extension SOSFilter {
  mutating func startIfNeeded(first: Double) {
    if !started {
      started = true
      if initialization == .steady { start(steadyAt: first) }
    }
  }

  func stateOf(_ section: Int) -> (Double, Double) { (state[2 * section], state[2 * section + 1]) }

  mutating func setState(_ section: Int, _ z0: Double, _ z1: Double) {
    state[2 * section] = z0
    state[2 * section + 1] = z1
  }
}

/// The seeds' exponential low-pass on x, y and z in one loop (three overlapping recurrences);
/// identical results to three `ExponentialLowpass`es.
public struct ExponentialLowpass3: Sendable {
  private var channels: [ExponentialLowpass]

  public init(alpha: Double, initialization: FilterInit) {
    channels = Array(repeating: ExponentialLowpass(alpha: alpha, initialization: initialization), count: 3)
  }

  public mutating func process(_ x: inout [Double], _ y: inout [Double], _ z: inout [Double]) {
    precondition(x.count == y.count && y.count == z.count)
    guard !x.isEmpty else { return }
    let firsts = [x[0], y[0], z[0]]
    for k in 0..<3 { channels[k].startIfNeeded(first: firsts[k]) }
    let a = channels[0].alpha
    let b = 1 - a
    var sx = channels[0].value, sy = channels[1].value, sz = channels[2].value
    let count = x.count
    x.withUnsafeMutableBufferPointer { vx in
      y.withUnsafeMutableBufferPointer { vy in
        z.withUnsafeMutableBufferPointer { vz in
          for i in 0..<count {
            sx = vx[i] * a + sx * b
            sy = vy[i] * a + sy * b
            sz = vz[i] * a + sz * b
            vx[i] = sx
            vy[i] = sy
            vz[i] = sz
          }
        }
      }
    }
    channels[0].value = sx
    channels[1].value = sy
    channels[2].value = sz
  }
}
