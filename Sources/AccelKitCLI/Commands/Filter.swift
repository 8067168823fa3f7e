#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelFilters
import AccelIO
import ArgumentParser

extension FilterInit: ExpressibleByArgument {}
extension FilterBand: ExpressibleByArgument {}

struct Filter: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "filter",
    abstract: "Filter a trace: exponential, Apple's adaptive, Butterworth (and zero-phase) filters, gravity split.",
    discussion: """
      Output keeps t, x, y, z with x, y, z filtered (gravity writes t, gx, gy, gz, ux, uy, uz). \
      Filters stream block by block with their state carried over, in constant memory; \
      Butterworth --zero-phase keeps its forward pass in a temporary file in $TMPDIR (32 bytes \
      per sample, removed at once) and reads it back from the end. The sample rate is --rate, or \
      --resample's, or the median interval of the first block; filters assume it is uniform and \
      warn when the trace's intervals jitter by more than 5% or have gaps.

      Examples:
        accelkit filter lowpass --alpha 0.1 walk.csv -o smooth.csv
        accelkit filter butterworth --order 4 --cutoff 5 walk.csv -o low.csv
        accelkit filter butterworth --band bandpass --order 2 --cutoff 0.5 --cutoff-high 3 --zero-phase walk.csv -o band.csv
        accelkit filter adaptive-highpass --cutoff 5 --rate 60 --describe
        accelkit filter gravity --cutoff 0.3 walk.csv -o split.csv
      """,
    subcommands: [
      Lowpass.self, Highpass.self, AdaptiveLowpass.self, AdaptiveHighpass.self, Butterworth.self, Gravity.self,
    ]
  )
}

/// Options every filter kind shares.
struct FilterOptions: ParsableArguments {
  @OptionGroup(title: "Input")
  var input: InputOptions

  @Argument(help: "The trace to filter (`-` for stdin; may be omitted with --describe --rate).")
  var trace: String?

  @Option(name: .shortAndLong, help: ArgumentHelp("The output path (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(help: "The output format: csv, tsv, npy or raw (default: from the output extension, else csv).")
  var to: TraceFormat?

  @Option(help: "The value type of NPY and raw output: f64 or f32 (default: that of the input).")
  var dtype: SamplePrecision?

  @Option(name: .customLong("init"), help: "How the filter starts: steady (in its steady state for the first sample, no start-up transient) or zero (scipy's default and Apple's filters, bit for bit).")
  var initialization: FilterInit = .steady

  @OptionGroup var resampling: ResampleOptions

  @Flag(help: "Print the design (coefficients, -3 dB point, poles) instead of filtering.")
  var describe = false

  func validate() throws {
    if trace == nil && !describe {
      throw ValidationError("give the trace to filter (`-` for stdin)")
    }
  }
}

/// What a filter kind does with blocks: the columns it writes and a stage made for a sample rate.
struct FilterPlan {
  var columns = ["t", "x", "y", "z"]
  /// Text for --describe.
  var description: String
  /// Filters one block; returns the output columns (t first).
  var stage: (inout SampleBlock) -> [[Double]]
  /// Set for forward-backward (zero-phase) filtering with these sections instead of `stage`.
  var zeroPhase: [Biquad]? = nil
}

enum FilterRunner {
  /// Reads the input, works out the sample rate, asks `plan` for the filter and streams it.
  static func run(_ options: FilterOptions, plan makePlan: (Double) throws -> FilterPlan) throws {
    let settings = try options.input.settings()
    if options.describe && options.trace == nil {
      guard let rate = options.resampling.resample ?? settings.rate else {
        throw AccelError.usage("--describe without a trace needs the sample rate: give --rate HZ")
      }
      try writeStdout(try makePlan(rate).description)
      return
    }
    let stream = try TraceStream(path: options.trace!, settings: settings, resample: options.resampling.resample)
    let rate = stream.rate
    let plan = try makePlan(rate)
    if options.describe {
      try writeStdout(plan.description)
      return
    }
    let format = options.to ?? TraceFormat(pathExtensionOf: options.output) ?? .csv
    let table = TableFormat(format)
    let file = try OutputFile(path: options.output, inputs: [stream.input], needsSeek: table.needsSeek)
    let writer = try table.makeWriter(
      output: file, names: plan.columns, precision: options.dtype ?? stream.source.metadata.precision)
    var regularity = RegularityCheck(rate: rate)
    if let sections = plan.zeroPhase {
      try ZeroPhaseRunner.run(stream, sections: sections, regularity: &regularity, writer: writer)
    } else {
      while var block = try stream.next() {
        regularity.add(block.t)
        try writer.write(columns: plan.stage(&block))
      }
    }
    try writer.finish()
    Diagnostics.reportSkips(stream.source)
    if options.resampling.resample == nil, let warning = regularity.warning(name: stream.name) {
      Diagnostics.warning(warning)
    }
  }
}

/// Forward-backward filtering in constant memory: the forward pass goes to a scratch file as
/// t, x, y, z records, is filtered backward block by block from its end (rewritten in place), and
/// is then streamed to the output. The values are exactly the in-memory `ZeroPhase.filter3`'s.
enum ZeroPhaseRunner {
  static let recordSize = 32

  static func run(
    _ stream: TraceStream, sections: [Biquad], regularity: inout RegularityCheck, writer: any TableSink
  ) throws {
    var filter = ZeroPhaseStream3(sections: sections)
    let scratch = try ScratchFile()
    var rows = 0
    var buffer = [UInt8]()
    // The first block must hold more than the pad: gather until it does (or the trace ends).
    var head = SampleBlock()
    var ended = false
    while head.count <= filter.pad {
      guard let block = try stream.next() else {
        ended = true
        break
      }
      head.append(contentsOf: block)
    }
    func tooShort(_ count: Int) -> AccelError {
      AccelError.data(
        DataLocation(file: stream.name),
        "the trace has \(count) samples; zero-phase filtering with this design needs more than \(filter.pad)",
        hint: "use a lower --order, or filter without --zero-phase")
    }
    if ended && head.count <= filter.pad { throw tooShort(head.count) }
    var pending: SampleBlock? = head
    while let block = try pending ?? stream.next() {
      pending = nil
      regularity.add(block.t)
      var (x, y, z) = (block.x, block.y, block.z)
      filter.forward(&x, &y, &z)
      try write([block.t, x, y, z], at: rows, to: scratch, buffer: &buffer)
      rows += block.count
    }
    guard filter.turn() else { throw tooShort(rows) }
    // Backward, from the last block to the first.
    let blockRows = defaultBlockSize
    var end = rows
    while end > 0 {
      let start = max(0, end - blockRows)
      let columns = try read(rows: start..<end, from: scratch, buffer: &buffer)
      var (x, y, z) = (columns[1], columns[2], columns[3])
      filter.backward(&x, &y, &z)
      try write([columns[0], x, y, z], at: start, to: scratch, buffer: &buffer)
      end = start
    }
    var start = 0
    while start < rows {
      let end = min(rows, start + blockRows)
      try writer.write(columns: try read(rows: start..<end, from: scratch, buffer: &buffer))
      start = end
    }
  }

  private static func write(_ columns: [[Double]], at row: Int, to scratch: ScratchFile, buffer: inout [UInt8]) throws {
    let n = columns[0].count
    if buffer.count < n * recordSize { buffer = [UInt8](repeating: 0, count: n * recordSize) }
    try buffer.withUnsafeMutableBytes { raw in
      for c in 0..<4 {
        columns[c].withUnsafeBufferPointer { column in
          for i in 0..<n {
            raw.storeBytes(of: column[i].bitPattern.littleEndian, toByteOffset: i * recordSize + c * 8, as: UInt64.self)
          }
        }
      }
      try scratch.write(UnsafeRawBufferPointer(rebasing: raw[0..<(n * recordSize)]), at: row * recordSize)
    }
  }

  private static func read(rows: Range<Int>, from scratch: ScratchFile, buffer: inout [UInt8]) throws -> [[Double]] {
    let n = rows.count
    if buffer.count < n * recordSize { buffer = [UInt8](repeating: 0, count: n * recordSize) }
    return try buffer.withUnsafeMutableBytes { raw in
      try scratch.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<(n * recordSize)]), at: rows.lowerBound * recordSize)
      return (0..<4).map { c in
        [Double](unsafeUninitializedCapacity: n) { column, count in
          for i in 0..<n {
            column[i] = Double(bitPattern: UInt64(littleEndian: raw.load(fromByteOffset: i * recordSize + c * 8, as: UInt64.self)))
          }
          count = n
        }
      }
    }
  }
}

/// Watches a trace's sample intervals against the rate a filter assumes.
struct RegularityCheck {
  let interval: Double
  var count = 0
  var sumSquares = 0.0
  var gaps = 0
  var last: Double?

  init(rate: Double) { interval = 1 / rate }

  mutating func add(_ t: [Double]) {
    for v in t {
      if let last {
        let d = v - last
        if d > 1.5 * interval { gaps += 1 }
        sumSquares += (d - interval) * (d - interval)
        count += 1
      }
      last = v
    }
  }

  func warning(name: String) -> String? {
    guard count > 0 else { return nil }
    let jitter = (sumSquares / Double(count)).squareRoot() / interval
    var problems: [String] = []
    if jitter > 0.05 { problems.append(cFormat("its sample intervals jitter by %.1f%%", jitter * 100)) }
    if gaps > 0 { problems.append("it has \(gaps) gap\(gaps == 1 ? "" : "s") (intervals over 1.5x)") }
    guard !problems.isEmpty else { return nil }
    let hz = formatHz(1 / interval)
    return "\(name): \(problems.joined(separator: " and ")); the filter assumes a uniform \(hz) Hz rate: use --resample \(hz)"
  }
}

/// t with x, y and z filtered in place by `body`.
func filteredAxes(_ block: inout SampleBlock, _ body: (inout [Double], inout [Double], inout [Double]) -> Void) -> [[Double]] {
  // The axes are moved out of the block, so they are filtered in place rather than copied.
  var (x, y, z) = (block.x, block.y, block.z)
  (block.x, block.y, block.z) = ([], [], [])
  body(&x, &y, &z)
  return [block.t, x, y, z]
}

// MARK: - Exponential options

struct ExponentialOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The filtering factor a in (0, 1] (the seeds' kFilteringFactor; default 0.1).", valueName: "a"))
  var alpha: Double?

  @Option(help: ArgumentHelp("Set a from a cutoff instead: a = dt / (RC + dt), RC = 1 / (2 pi fc).", valueName: "hz"))
  var cutoff: Double?

  func validate() throws {
    if alpha != nil && cutoff != nil { throw ValidationError("give --alpha or --cutoff, not both") }
    if let alpha {
      do { try ExponentialDesign.check(alpha: alpha) } catch let error as AccelError { throw ValidationError(error.message) }
    }
  }

  func alpha(rate: Double) throws -> Double {
    if let cutoff { return try ExponentialDesign.alpha(cutoff: cutoff, rate: rate) }
    return alpha ?? ExponentialDesign.defaultAlpha
  }

  func describe(_ name: String, alpha a: Double, rate: Double, highpass: Bool) -> String {
    let minus3 = highpass ? ExponentialDesign.highpassMinus3dB(alpha: a, rate: rate) : ExponentialDesign.minus3dB(alpha: a, rate: rate)
    var text = "\(name) at \(formatHz(rate)) Hz\n"
    text += highpass ? "  y = x - lowpass(x), lowpass: s[n] = a x[n] + (1 - a) s[n-1]\n" : "  y[n] = a x[n] + (1 - a) y[n-1]\n"
    text += "  a = \(formatNumber(a))\(cutoff.map { " (from cutoff \(formatHz($0)) Hz: RC = 1/(2 pi fc))" } ?? "")\n"
    text += "  time constant RC = dt (1 - a) / a: \(formatNumber((1 - a) / (a * rate))) s\n"
    text += "  pole: \(formatNumber(1 - a))\n"
    text += "  -3 dB: " + (minus3.map { "\(formatHz($0)) Hz" } ?? "none below Nyquist") + "\n"
    text += "  DC gain: \(highpass ? 0 : 1)\n"
    return text
  }
}

struct Lowpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lowpass",
    abstract: "Smooth with the seeds' exponential low-pass y = a x + (1 - a) y.",
    discussion: "Examples:\n  accelkit filter lowpass --alpha 0.1 walk.csv -o smooth.csv\n  accelkit filter lowpass --cutoff 2 walk.csv -o smooth.npy")

  @OptionGroup var exponential: ExponentialOptions
  @OptionGroup var options: FilterOptions

  func run() throws {
    try FilterRunner.run(options) { rate in
      let a = try exponential.alpha(rate: rate)
      var filter = ExponentialLowpass3(alpha: a, initialization: options.initialization)
      return FilterPlan(
        description: exponential.describe("exponential low-pass", alpha: a, rate: rate, highpass: false),
        stage: { block in filteredAxes(&block) { filter.process(&$0, &$1, &$2) } })
    }
  }
}

struct Highpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "highpass",
    abstract: "Remove the slow part with the seeds' high-pass, x - lowpass(x).",
    discussion: "Examples:\n  accelkit filter highpass --alpha 0.1 walk.csv -o moves.csv")

  @OptionGroup var exponential: ExponentialOptions
  @OptionGroup var options: FilterOptions

  func run() throws {
    try FilterRunner.run(options) { rate in
      let a = try exponential.alpha(rate: rate)
      var low = ExponentialLowpass3(alpha: a, initialization: options.initialization)
      return FilterPlan(
        description: exponential.describe("exponential high-pass", alpha: a, rate: rate, highpass: true),
        stage: { block in
          var copy = block
          let smooth = filteredAxes(&copy) { low.process(&$0, &$1, &$2) }
          return [block.t] + [block.x, block.y, block.z].enumerated().map { k, axis in zip(axis, smooth[k + 1]).map { $0 - $1 } }
        })
    }
  }
}

struct Gravity: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gravity",
    abstract: "Split each sample into gravity (the exponential low-pass) and user acceleration (the rest).",
    discussion: "Writes t, gx, gy, gz, ux, uy, uz, like Core Motion's gravity and userAcceleration.\n\nExamples:\n  accelkit filter gravity --cutoff 0.3 walk.csv -o split.csv")

  @OptionGroup var exponential: ExponentialOptions
  @OptionGroup var options: FilterOptions

  func run() throws {
    try FilterRunner.run(options) { rate in
      let a = try exponential.alpha(rate: rate)
      var low = ExponentialLowpass3(alpha: a, initialization: options.initialization)
      return FilterPlan(
        columns: ["t", "gx", "gy", "gz", "ux", "uy", "uz"],
        description: exponential.describe("gravity estimate (exponential low-pass)", alpha: a, rate: rate, highpass: false),
        stage: { block in
          var copy = block
          let g = filteredAxes(&copy) { low.process(&$0, &$1, &$2) }
          let user = [block.x, block.y, block.z].enumerated().map { k, axis in zip(axis, g[k + 1]).map { $0 - $1 } }
          return g + user
        })
    }
  }
}

// MARK: - Apple's filters

struct AppleOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The cutoff in Hz, with Apple's constant RC = 1 / fc (the true -3 dB point is about fc / (2 pi)).", valueName: "hz"))
  var cutoff: Double = 5

  @Flag(help: "Use Apple's plain filter, without the adaptive rule.")
  var noAdaptive = false
}

func appleDescription(kind: AppleFilter.Kind, k: Double, cutoff: Double, rate: Double, adaptive: Bool) -> String {
  var text = "Apple AccelerometerGraph \(kind == .lowpass ? "low-pass" : "high-pass")\(adaptive ? " (adaptive)" : "") at \(formatHz(rate)) Hz\n"
  text += "  RC = 1 / fc = \(formatNumber(1 / cutoff)) s (Apple's constant; not 1 / (2 pi fc))\n"
  text += kind == .lowpass ? "  k = dt / (dt + RC) = \(formatNumber(k))\n" : "  k = RC / (dt + RC) = \(formatNumber(k))\n"
  if adaptive {
    text += "  adaptive: d = clamp(| |y| - |x| | / \(AppleFilterDesign.minStep) - 1, 0, 1); "
    text += kind == .lowpass ? "a = (1 - d) k / 3 + d k\n" : "a = d k / 3 + (1 - d) k\n"
  }
  let a = kind == .lowpass ? k : 1 - k
  let minus3 = kind == .lowpass ? ExponentialDesign.minus3dB(alpha: a, rate: rate) : nil
  if kind == .lowpass {
    text += "  -3 dB (fixed a = k): " + (minus3.map { "\(formatHz($0)) Hz" } ?? "none below Nyquist") + ", below the nominal \(formatHz(cutoff)) Hz\n"
  } else {
    text += "  recurrence: y = a (y + x - x_prev); pole at \(formatNumber(k)) for fixed a = k\n"
  }
  return text
}

/// Runs Apple's low-pass or high-pass over the trace.
func runAppleFilter(_ kind: AppleFilter.Kind, apple: AppleOptions, options: FilterOptions) throws {
  try FilterRunner.run(options) { rate in
    let k = kind == .lowpass
      ? try AppleFilterDesign.lowpassConstant(cutoff: apple.cutoff, rate: rate)
      : try AppleFilterDesign.highpassConstant(cutoff: apple.cutoff, rate: rate)
    var filter = AppleFilter(kind: kind, constant: k, adaptive: !apple.noAdaptive, initialization: options.initialization)
    return FilterPlan(
      description: appleDescription(kind: kind, k: k, cutoff: apple.cutoff, rate: rate, adaptive: !apple.noAdaptive),
      stage: { block in filteredAxes(&block) { filter.process(x: &$0, y: &$1, z: &$2) } })
  }
}

struct AdaptiveLowpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "adaptive-lowpass",
    abstract: "Smooth with Apple's AccelerometerGraph low-pass (adaptive unless --no-adaptive).",
    discussion: "Examples:\n  accelkit filter adaptive-lowpass --cutoff 5 walk.csv -o smooth.csv\n  accelkit filter adaptive-lowpass --cutoff 5 --rate 60 --describe")

  @OptionGroup var apple: AppleOptions
  @OptionGroup var options: FilterOptions

  func run() throws { try runAppleFilter(.lowpass, apple: apple, options: options) }
}

struct AdaptiveHighpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "adaptive-highpass",
    abstract: "Keep quick changes with Apple's AccelerometerGraph high-pass (adaptive unless --no-adaptive).",
    discussion: "Examples:\n  accelkit filter adaptive-highpass --cutoff 5 walk.csv -o moves.csv")

  @OptionGroup var apple: AppleOptions
  @OptionGroup var options: FilterOptions

  func run() throws { try runAppleFilter(.highpass, apple: apple, options: options) }
}

// MARK: - Butterworth

struct Butterworth: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "butterworth",
    abstract: "Filter with a Butterworth IIR designed as scipy.signal.butter(..., output='sos').",
    discussion: """
      Applied like scipy.signal.sosfilt (streaming), or with --zero-phase forward and backward like \
      scipy.signal.sosfiltfilt (odd extension, the same pad length, steady start both ways); \
      --zero-phase runs in constant memory: its forward pass goes to a temporary file in $TMPDIR \
      (32 bytes per sample) that is filtered backward from its end.

      Examples:
        accelkit filter butterworth --order 4 --cutoff 5 walk.csv -o low.csv
        accelkit filter butterworth --band high --order 2 --cutoff 0.5 walk.csv -o high.csv
        accelkit filter butterworth --band bandpass --order 2 --cutoff 0.5 --cutoff-high 3 --zero-phase walk.csv -o band.csv
      """)

  @Option(help: "The order N >= 1 (band filters have 2N poles).")
  var order: Int = 4

  @Option(help: ArgumentHelp("The cutoff in Hz (the lower edge for band filters).", valueName: "hz"))
  var cutoff: Double

  @Option(help: ArgumentHelp("The upper edge in Hz, for bandpass and bandstop.", valueName: "hz"))
  var cutoffHigh: Double?

  @Option(help: "The band: low, high, bandpass or bandstop.")
  var band: FilterBand = .low

  @Flag(help: "Filter forward and backward (no phase shift, squared magnitude response); uses a temporary file.")
  var zeroPhase = false

  @OptionGroup var options: FilterOptions

  func run() throws {
    try FilterRunner.run(options) { rate in
      let design = try ButterworthDesign(order: order, cutoff: cutoff, cutoffHigh: cutoffHigh, band: band, rate: rate)
      var filter = SOSFilter3(sections: design.sections, initialization: options.initialization)
      var plan = FilterPlan(
        description: describe(design),
        stage: { block in filteredAxes(&block) { filter.process(&$0, &$1, &$2) } })
      if zeroPhase { plan.zeroPhase = design.sections }
      return plan
    }
  }

  func describe(_ design: ButterworthDesign) -> String {
    let edges = design.cutoffHigh.map { "\(formatHz(design.cutoff))-\(formatHz($0)) Hz" } ?? "\(formatHz(design.cutoff)) Hz"
    var text = "Butterworth \(design.band.rawValue), order \(design.order), \(edges), at \(formatHz(design.rate)) Hz"
    text += zeroPhase ? ", zero-phase (forward-backward; pad \(ZeroPhase.padLength(design.sections)) samples)\n" : "\n"
    text += "  as scipy.signal.butter(\(design.order), \(design.cutoffHigh.map { "[\(formatHz(design.cutoff)), \(formatHz($0))]" } ?? formatHz(design.cutoff)), '\(design.band.rawValue)', fs=\(formatHz(design.rate)), output='sos')\n"
    text += "  sections (b0 b1 b2 a0 a1 a2):\n"
    for s in design.sections { text += "    " + s.row.map(formatNumber).joined(separator: " ") + "\n" }
    text += "  poles (|p| < 1):\n"
    for p in design.zpk.poles { text += "    \(formatNumber(p.re)) \(p.im < 0 ? "-" : "+") \(formatNumber(abs(p.im)))i  |p| = \(formatNumber(p.magnitude))\n" }
    switch design.band {
    case .low, .high: text += "  -3 dB: \(formatHz(design.cutoff)) Hz (by design\(zeroPhase ? "; -6 dB after forward-backward" : ""))\n"
    case .bandpass, .bandstop: text += "  -3 dB: \(edges) (by design\(zeroPhase ? "; -6 dB after forward-backward" : ""))\n"
    }
    let dc = design.sections.reduce(1.0) { $0 * $1.dcGain }
    text += "  DC gain: \(formatNumber((dc * 1e12).rounded() / 1e12))\n"
    return text
  }
}
