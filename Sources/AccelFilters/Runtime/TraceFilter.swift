import AccelCore

/// Which filter to run over a trace and how it is set: the typed configuration behind
/// `accelkit filter KIND`. Made into a `TraceFilter` once the sample rate is known.
public enum TraceFilterKind: Sendable, Equatable {
  /// The exponential low-pass `y = a x + (1 - a) y` on x, y and z.
  case lowpass(ExponentialSetting)
  /// `x - lowpass(x)`.
  case highpass(ExponentialSetting)
  /// Gravity (the exponential low-pass) and user acceleration (the rest), six columns.
  case gravity(ExponentialSetting)
  /// Apple's AccelerometerGraph filter; `cutoff` in Hz with Apple's RC = 1 / fc.
  case apple(AppleFilter.Kind, cutoff: Double, adaptive: Bool)
  /// A Butterworth design as scipy.signal.butter; forward only, or forward-backward.
  case butterworth(order: Int, cutoff: Double, cutoffHigh: Double?, band: FilterBand, zeroPhase: Bool)
}

/// How the exponential filters' factor is given.
public enum ExponentialSetting: Sendable, Equatable {
  /// The factor a in (0, 1] itself.
  case alpha(Double)
  /// A cutoff in Hz: a = dt / (RC + dt), RC = 1 / (2 pi fc).
  case cutoff(Double)

  /// The seeds' kFilteringFactor, 0.1.
  public static let standard = ExponentialSetting.alpha(ExponentialDesign.defaultAlpha)

  /// The factor for a trace at `rate` Hz; throws a usage error for a cutoff out of range.
  public func alpha(rate: Double) throws -> Double {
    switch self {
    case .alpha(let a):
      try ExponentialDesign.check(alpha: a)
      return a
    case .cutoff(let fc): return try ExponentialDesign.alpha(cutoff: fc, rate: rate)
    }
  }
}

/// A filter made for one sample rate: the columns it writes, a description of its design, and a
/// stage that filters block after block with its state carried over (chunked == one-shot).
///
/// A zero-phase Butterworth filter cannot run block by block; `zeroPhaseSections` is set for it
/// and `ZeroPhaseRunner` runs it.
public struct TraceFilter {
  /// The output columns, `t` first.
  public let columns: [String]
  /// The design, for `--describe`.
  public let description: String
  /// Set for forward-backward filtering; `process` is not used then.
  public let zeroPhaseSections: [Biquad]?
  /// The filter's transfer function as second-order sections (for --describe --plot); nil for an
  /// adaptive filter, which has none (its response depends on the signal).
  public let responseSections: [Biquad]?
  /// The frequency response of the output (of x, y, z; of the gravity columns for `gravity`), or
  /// nil for an adaptive filter.
  public func response(rate: Double, count: Int = 512) -> FrequencyResponse? {
    responseSections.map { FrequencyResponse(sections: $0, rate: rate, count: count, zeroPhase: zeroPhaseSections != nil) }
  }
  private var stage: (inout SampleBlock) -> [[Double]]

  /// - Parameters:
  ///   - rate: the sample rate in Hz the filter assumes.
  ///   - initialization: steady (no start-up transient) or zero state.
  public init(_ kind: TraceFilterKind, rate: Double, initialization: FilterInit) throws {
    let axes = ["t", "x", "y", "z"]
    switch kind {
    case .lowpass(let setting):
      let a = try setting.alpha(rate: rate)
      var filter = ExponentialLowpass3(alpha: a, initialization: initialization)
      columns = axes
      description = FilterDescription.exponential("exponential low-pass", alpha: a, setting: setting, rate: rate, highpass: false)
      zeroPhaseSections = nil
      responseSections = [Biquad(b0: a, b1: 0, b2: 0, a1: a - 1, a2: 0)]
      stage = { block in Self.filteredAxes(&block) { filter.process(&$0, &$1, &$2) } }
    case .highpass(let setting):
      let a = try setting.alpha(rate: rate)
      var low = ExponentialLowpass3(alpha: a, initialization: initialization)
      columns = axes
      description = FilterDescription.exponential("exponential high-pass", alpha: a, setting: setting, rate: rate, highpass: true)
      zeroPhaseSections = nil
      // x - lowpass(x) = (1 - a)(1 - z^-1) / (1 - (1 - a) z^-1)
      responseSections = [Biquad(b0: 1 - a, b1: a - 1, b2: 0, a1: a - 1, a2: 0)]
      stage = { block in
        let (x, y, z) = (block.x, block.y, block.z)
        let smooth = Self.filteredAxes(&block) { low.process(&$0, &$1, &$2) }
        return [smooth[0], Self.difference(x, smooth[1]), Self.difference(y, smooth[2]), Self.difference(z, smooth[3])]
      }
    case .gravity(let setting):
      let a = try setting.alpha(rate: rate)
      var low = ExponentialLowpass3(alpha: a, initialization: initialization)
      columns = ["t", "gravity_x", "gravity_y", "gravity_z", "user_x", "user_y", "user_z"]
      description = FilterDescription.exponential(
        "gravity estimate (exponential low-pass)", alpha: a, setting: setting, rate: rate, highpass: false)
      zeroPhaseSections = nil
      responseSections = [Biquad(b0: a, b1: 0, b2: 0, a1: a - 1, a2: 0)]
      stage = { block in
        let (x, y, z) = (block.x, block.y, block.z)
        let g = Self.filteredAxes(&block) { low.process(&$0, &$1, &$2) }
        return g + [Self.difference(x, g[1]), Self.difference(y, g[2]), Self.difference(z, g[3])]
      }
    case .apple(let appleKind, let cutoff, let adaptive):
      let k =
        appleKind == .lowpass
        ? try AppleFilterDesign.lowpassConstant(cutoff: cutoff, rate: rate)
        : try AppleFilterDesign.highpassConstant(cutoff: cutoff, rate: rate)
      var filter = AppleFilter(kind: appleKind, constant: k, adaptive: adaptive, initialization: initialization)
      columns = axes
      description = FilterDescription.apple(kind: appleKind, k: k, cutoff: cutoff, rate: rate, adaptive: adaptive)
      zeroPhaseSections = nil
      // Apple's low-pass is the exponential one with factor k; its high-pass
      // y = k (y + x - x[-1]) is k (1 - z^-1) / (1 - k z^-1).
      responseSections =
        adaptive
        ? nil
        : appleKind == .lowpass
          ? [Biquad(b0: k, b1: 0, b2: 0, a1: k - 1, a2: 0)] : [Biquad(b0: k, b1: -k, b2: 0, a1: -k, a2: 0)]
      stage = { block in Self.filteredAxes(&block) { filter.process(x: &$0, y: &$1, z: &$2) } }
    case .butterworth(let order, let cutoff, let cutoffHigh, let band, let zeroPhase):
      let design = try ButterworthDesign(order: order, cutoff: cutoff, cutoffHigh: cutoffHigh, band: band, rate: rate)
      var filter = SOSFilter3(sections: design.sections, initialization: initialization)
      columns = axes
      description = FilterDescription.butterworth(design, zeroPhase: zeroPhase)
      zeroPhaseSections = zeroPhase ? design.sections : nil
      responseSections = design.sections
      stage = { block in Self.filteredAxes(&block) { filter.process(&$0, &$1, &$2) } }
    }
  }

  /// Filters one block (its axes are moved out and filtered in place); returns the output
  /// columns, `t` first.
  public mutating func process(_ block: inout SampleBlock) -> [[Double]] { stage(&block) }

  /// Filters a whole trace: blocks from `next` (nil at the end), each block's times to `observe`,
  /// the output columns to `write` in order. A zero-phase filter runs forward and backward
  /// through the store `scratch` makes (`ZeroPhaseRunner`, constant memory); any other streams
  /// block by block.
  ///
  /// - Parameter name: the trace's name, for the error a zero-phase filter gives a trace too short.
  public mutating func run(
    name: String, next: () throws -> SampleBlock?, scratch: () throws -> RandomAccessStore,
    observe: ([Double]) -> Void = { _ in }, write: ([[Double]]) throws -> Void
  ) throws {
    if let sections = zeroPhaseSections {
      try ZeroPhaseRunner.run(
        sections: sections, name: name, store: try scratch(), next: next, observe: observe, write: write)
      return
    }
    while var block = try next() {
      observe(block.t)
      try write(process(&block))
    }
  }

  /// t with x, y and z filtered in place by `body`. The axes are moved out of the block, so they
  /// are filtered without a copy.
  static func filteredAxes(
    _ block: inout SampleBlock, _ body: (inout [Double], inout [Double], inout [Double]) -> Void
  ) -> [[Double]] {
    var (x, y, z) = (block.x, block.y, block.z)
    (block.x, block.y, block.z) = ([], [], [])
    body(&x, &y, &z)
    return [block.t, x, y, z]
  }

  static func difference(_ a: [Double], _ b: [Double]) -> [Double] { zip(a, b).map { $0 - $1 } }
}

/// The text `--describe` prints for each design.
public enum FilterDescription {
  static func exponential(_ name: String, alpha a: Double, setting: ExponentialSetting, rate: Double, highpass: Bool) -> String {
    let minus3 =
      highpass ? ExponentialDesign.highpassMinus3dB(alpha: a, rate: rate) : ExponentialDesign.minus3dB(alpha: a, rate: rate)
    var text = "\(name) at \(formatHz(rate)) Hz\n"
    text += highpass ? "  y = x - lowpass(x), lowpass: s[n] = a x[n] + (1 - a) s[n-1]\n" : "  y[n] = a x[n] + (1 - a) y[n-1]\n"
    var origin = ""
    if case .cutoff(let fc) = setting { origin = " (from cutoff \(formatHz(fc)) Hz: RC = 1/(2 pi fc))" }
    text += "  a = \(formatNumber(a))\(origin)\n"
    text += "  time constant RC = dt (1 - a) / a: \(formatNumber((1 - a) / (a * rate))) s\n"
    text += "  pole: \(formatNumber(1 - a))\n"
    text += "  -3 dB: " + (minus3.map { "\(formatHz($0)) Hz" } ?? "none below Nyquist") + "\n"
    text += "  DC gain: \(highpass ? 0 : 1)\n"
    return text
  }

  static func apple(kind: AppleFilter.Kind, k: Double, cutoff: Double, rate: Double, adaptive: Bool) -> String {
    var text =
      "Apple AccelerometerGraph \(kind == .lowpass ? "low-pass" : "high-pass")\(adaptive ? " (adaptive)" : "") at \(formatHz(rate)) Hz\n"
    text += "  RC = 1 / fc = \(formatNumber(1 / cutoff)) s (Apple's constant; not 1 / (2 pi fc))\n"
    text += kind == .lowpass ? "  k = dt / (dt + RC) = \(formatNumber(k))\n" : "  k = RC / (dt + RC) = \(formatNumber(k))\n"
    if adaptive {
      text += "  adaptive: d = clamp(| |y| - |x| | / \(AppleFilterDesign.minStep) - 1, 0, 1); "
      text += kind == .lowpass ? "a = (1 - d) k / 3 + d k\n" : "a = d k / 3 + (1 - d) k\n"
    }
    if kind == .lowpass {
      let minus3 = ExponentialDesign.minus3dB(alpha: k, rate: rate)
      text +=
        "  -3 dB (fixed a = k): " + (minus3.map { "\(formatHz($0)) Hz" } ?? "none below Nyquist")
        + ", below the nominal \(formatHz(cutoff)) Hz\n"
    } else {
      text += "  recurrence: y = a (y + x - x_prev); pole at \(formatNumber(k)) for fixed a = k\n"
    }
    return text
  }

  static func butterworth(_ design: ButterworthDesign, zeroPhase: Bool) -> String {
    let edges = design.cutoffHigh.map { "\(formatHz(design.cutoff))-\(formatHz($0)) Hz" } ?? "\(formatHz(design.cutoff)) Hz"
    var text = "Butterworth \(design.band.rawValue), order \(design.order), \(edges), at \(formatHz(design.rate)) Hz"
    text += zeroPhase ? ", zero-phase (forward-backward; pad \(ZeroPhase.padLength(design.sections)) samples)\n" : "\n"
    let wn = design.cutoffHigh.map { "[\(formatHz(design.cutoff)), \(formatHz($0))]" } ?? formatHz(design.cutoff)
    text += "  as scipy.signal.butter(\(design.order), \(wn), '\(design.band.rawValue)', fs=\(formatHz(design.rate)), output='sos')\n"
    text += "  sections (b0 b1 b2 a0 a1 a2):\n"
    for s in design.sections { text += "    " + s.row.map(formatNumber).joined(separator: " ") + "\n" }
    text += "  poles (|p| < 1):\n"
    for p in design.zpk.poles {
      text += "    \(formatNumber(p.re)) \(p.im < 0 ? "-" : "+") \(formatNumber(abs(p.im)))i  |p| = \(formatNumber(p.magnitude))\n"
    }
    let after = zeroPhase ? "; -6 dB after forward-backward" : ""
    switch design.band {
    case .low, .high: text += "  -3 dB: \(formatHz(design.cutoff)) Hz (by design\(after))\n"
    case .bandpass, .bandstop: text += "  -3 dB: \(edges) (by design\(after))\n"
    }
    let dc = design.sections.reduce(1.0) { $0 * $1.dcGain }
    text += "  DC gain: \(formatNumber((dc * 1e12).rounded() / 1e12))\n"
    return text
  }
}

/// Forward-backward filtering in constant memory: the forward pass goes to `store` as t, x, y, z
/// records (32 bytes per sample), is filtered backward block by block from its end (rewritten in
/// place), and is then handed to `write` block by block. The values are exactly the in-memory
/// `ZeroPhase.filter3`'s.
public enum ZeroPhaseRunner {
  static let recordSize = 32

  /// - Parameters:
  ///   - next: the input, block by block (nil at the end).
  ///   - name: the trace's name, for the error when it is too short.
  ///   - observe: sees each input block's times (a regularity check).
  ///   - write: receives the output columns t, x, y, z, in order.
  public static func run(
    sections: [Biquad], name: String, store: RandomAccessStore, next: () throws -> SampleBlock?,
    observe: ([Double]) -> Void = { _ in }, write: ([[Double]]) throws -> Void
  ) throws {
    var filter = ZeroPhaseStream3(sections: sections)
    var rows = 0
    var buffer = [UInt8]()
    // The first block must hold more than the pad: gather until it does (or the trace ends).
    var head = SampleBlock()
    var ended = false
    while head.count <= filter.pad {
      guard let block = try next() else {
        ended = true
        break
      }
      head.append(contentsOf: block.accelerometerOnly)
    }
    func tooShort(_ count: Int) -> AccelError {
      AccelError.data(
        DataLocation(file: name),
        "the trace has \(count) samples; zero-phase filtering with this design needs more than \(filter.pad)",
        hint: "use a lower --order, or filter without --zero-phase")
    }
    if ended && head.count <= filter.pad { throw tooShort(head.count) }
    var pending: SampleBlock? = head
    while let block = try pending ?? next() {
      pending = nil
      observe(block.t)
      var (x, y, z) = (block.x, block.y, block.z)
      filter.forward(&x, &y, &z)
      try save([block.t, x, y, z], at: rows, in: store, buffer: &buffer)
      rows += block.count
    }
    guard filter.turn() else { throw tooShort(rows) }
    // Backward, from the last block to the first.
    let blockRows = defaultBlockSize
    var end = rows
    while end > 0 {
      let start = max(0, end - blockRows)
      let columns = try load(rows: start..<end, from: store, buffer: &buffer)
      var (x, y, z) = (columns[1], columns[2], columns[3])
      filter.backward(&x, &y, &z)
      try save([columns[0], x, y, z], at: start, in: store, buffer: &buffer)
      end = start
    }
    var start = 0
    while start < rows {
      let end = min(rows, start + blockRows)
      try write(try load(rows: start..<end, from: store, buffer: &buffer))
      start = end
    }
  }

  private static func save(_ columns: [[Double]], at row: Int, in store: RandomAccessStore, buffer: inout [UInt8]) throws {
    let n = columns[0].count
    if buffer.count < n * recordSize { buffer = [UInt8](repeating: 0, count: n * recordSize) }
    try buffer.withUnsafeMutableBytes { raw in
      // A record per row, t x y z side by side (one pass of contiguous stores, not four strided).
      columns[0].withUnsafeBufferPointer { t in
        columns[1].withUnsafeBufferPointer { x in
          columns[2].withUnsafeBufferPointer { y in
            columns[3].withUnsafeBufferPointer { z in
              let out = raw.baseAddress!
              for i in 0..<n {
                let record = out + i * recordSize
                record.storeBytes(of: t[i].bitPattern.littleEndian, as: UInt64.self)
                record.storeBytes(of: x[i].bitPattern.littleEndian, toByteOffset: 8, as: UInt64.self)
                record.storeBytes(of: y[i].bitPattern.littleEndian, toByteOffset: 16, as: UInt64.self)
                record.storeBytes(of: z[i].bitPattern.littleEndian, toByteOffset: 24, as: UInt64.self)
              }
            }
          }
        }
      }
      try store.write(UnsafeRawBufferPointer(rebasing: raw[0..<(n * recordSize)]), at: row * recordSize)
    }
  }

  private static func load(rows: Range<Int>, from store: RandomAccessStore, buffer: inout [UInt8]) throws -> [[Double]] {
    let n = rows.count
    if buffer.count < n * recordSize { buffer = [UInt8](repeating: 0, count: n * recordSize) }
    return try buffer.withUnsafeMutableBytes { raw in
      try store.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<(n * recordSize)]), at: rows.lowerBound * recordSize)
      let records = UnsafeRawPointer(raw.baseAddress!)
      var t = [Double](repeating: 0, count: n)
      var x = t
      var y = t
      var z = t
      t.withUnsafeMutableBufferPointer { t in
        x.withUnsafeMutableBufferPointer { x in
          y.withUnsafeMutableBufferPointer { y in
            z.withUnsafeMutableBufferPointer { z in
              for i in 0..<n {
                let record = records + i * recordSize
                t[i] = Double(bitPattern: UInt64(littleEndian: record.loadUnaligned(as: UInt64.self)))
                x[i] = Double(bitPattern: UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                y[i] = Double(bitPattern: UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
                z[i] = Double(bitPattern: UInt64(littleEndian: record.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
              }
            }
          }
        }
      }
      return [t, x, y, z]
    }
  }
}
