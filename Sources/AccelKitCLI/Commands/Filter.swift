#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelFilters
import AccelIO
import AccelOrientation
import AccelPlot
import ArgumentParser

extension FilterInit: ExpressibleByArgument {}
extension FilterBand: ExpressibleByArgument {}

struct Filter: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "filter",
    abstract: "Filter a trace: exponential, Apple's adaptive, Butterworth (and zero-phase) filters, gravity split.",
    discussion: """
      Output keeps t, x, y, z with x, y, z filtered (gravity writes t, gravity_x, gravity_y, \
      gravity_z, user_x, user_y, user_z). \
      Filters stream block by block with their state carried over, in constant memory; \
      Butterworth --zero-phase keeps its forward pass in a temporary file in $TMPDIR (32 bytes \
      per sample, removed at once) and reads it back from the end. The sample rate is --rate, or \
      --resample's, or the median interval of the first block; filters assume it is uniform and \
      warn when the trace's intervals jitter by more than 5% or have gaps.

      Examples:
        accelkit filter lowpass --alpha 0.1 datasets/test/000.csv -o smooth.csv
        accelkit filter butterworth --order 4 --cutoff 5 datasets/test/000.csv \\
          -o low.csv
        accelkit filter butterworth --band bandpass --order 2 --cutoff 0.5 \\
          --cutoff-high 3 --zero-phase datasets/test/000.csv -o band.csv
        accelkit filter adaptive-highpass --cutoff 5 --rate 60 --describe
        accelkit filter gravity --cutoff 0.3 datasets/test/000.csv -o split.csv
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

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  @Flag(help: "Print the design (coefficients, -3 dB point, poles) instead of filtering.")
  var describe = false

  @Option(
    help: ArgumentHelp(
      "With --describe: draw the frequency response (gain in dB and phase against Hz, as scipy.signal.sosfreqz) as SVG.",
      valueName: "file.svg"))
  var plot: String?

  func validate() throws {
    if plot != nil && !describe { throw ValidationError("--plot draws the design: give it with --describe") }
    if trace == nil && !describe {
      throw ValidationError("give the trace to filter (`-` for stdin)")
    }
  }
}

enum FilterRunner {
  /// Reads the input, works out the sample rate, makes the filter `kind` for it and streams the
  /// trace through it (or prints its design with --describe).
  /// Draws the frequency response of `filter` into `--plot`, when asked.
  static func plotResponse(_ options: FilterOptions, filter: TraceFilter, rate: Double, inputs: [ByteInput]) throws {
    guard let path = options.plot else { return }
    guard let response = filter.response(rate: rate) else {
      throw AccelError.usage(
        "an adaptive filter has no frequency response to draw: its factor follows the signal",
        hint: "draw the non-adaptive filter (lowpass, highpass, butterworth)")
    }
    let svg = Plots.frequencyResponse(
      frequencies: response.frequencies, gainDecibels: response.gainDecibels,
      phaseDegrees: response.phase.map { $0 * 180 / Double.pi },
      title: "frequency response at \(formatHz(rate)) Hz" + (filter.zeroPhaseSections != nil ? " (zero phase: |H|^2)" : ""))
    try writeSVG(svg, to: path, inputs: inputs)
  }

  /// With `fusion`, gravity comes from that attitude filter instead of `kind`'s low-pass.
  static func run(_ options: FilterOptions, kind: TraceFilterKind, fusion: AttitudeSettings? = nil) throws {
    let settings = try options.input.settings()
    if options.describe && options.trace == nil {
      guard let rate = options.resampling.rate ?? settings.rate else {
        throw AccelError.usage("--describe without a trace needs the sample rate: give --rate HZ")
      }
      let filter = try TraceFilter(kind, rate: rate, initialization: options.initialization)
      try writeStdout(filter.description)
      try plotResponse(options, filter: filter, rate: rate, inputs: [])
      return
    }
    let stream = try Diagnostics.openStream(path: options.trace!, settings: settings, resample: options.resampling.rate)
    if let fusion {
      try runFused(options, fusion: fusion, stream: stream)
      return
    }
    var filter = try TraceFilter(kind, rate: stream.rate, initialization: options.initialization)
    if options.describe {
      try writeStdout(filter.description)
      try plotResponse(options, filter: filter, rate: stream.rate, inputs: [stream.input])
      return
    }
    let writer = try TableFormat.openWriter(
      path: options.output, format: options.to, inputs: [stream.input], names: filter.columns,
      precision: options.dtype ?? stream.source.metadata.precision, significantDigits: options.numbers.precision)
    var regularity = RegularityCheck(rate: stream.rate)
    try filter.run(
      name: stream.name, next: stream.next, scratch: { try ScratchFile() }, observe: { regularity.add($0) },
      write: writer.write(columns:))
    try writer.finish()
    Diagnostics.reportSkips(stream.source)
    if options.resampling.rate == nil, let warning = regularity.warning(name: stream.name) {
      Diagnostics.warning(warning)
    }
  }

  /// The gravity split from a fused attitude.
  private static func runFused(_ options: FilterOptions, fusion: AttitudeSettings, stream: TraceStream) throws {
    var split = try FusedGravitySplit(fusion, rate: stream.rate, layout: stream.source.metadata.layout)
    if options.describe {
      try writeStdout("gravity from the fused attitude (\(split.method.rawValue)): \(split.method.summary)\n")
      return
    }
    let writer = try TableFormat.openWriter(
      path: options.output, format: options.to, inputs: [stream.input], names: FusedGravitySplit.columns,
      precision: options.dtype ?? stream.source.metadata.precision, significantDigits: options.numbers.precision)
    while let block = try stream.next() { try writer.write(columns: split.process(block)) }
    try writer.finish()
    Diagnostics.reportSkips(stream.source)
  }
}

// MARK: - Exponential options

struct ExponentialOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The filtering factor a in (0, 1] (kFilteringFactor of Apple's iPhone OS sample code; default 0.1).", valueName: "a"))
  var alpha: Finite?

  @Option(help: ArgumentHelp("Set a from a cutoff instead: a = dt / (RC + dt), RC = 1 / (2 pi fc).", valueName: "hz"))
  var cutoff: Finite?

  func validate() throws {
    if alpha != nil && cutoff != nil { throw ValidationError("give --alpha or --cutoff, not both") }
    if let alpha {
      do { try ExponentialDesign.check(alpha: alpha.value) } catch let error as AccelError { throw ValidationError(error.message) }
    }
  }

  var setting: ExponentialSetting {
    if let cutoff { return .cutoff(cutoff.value) }
    return alpha.map { ExponentialSetting.alpha($0.value) } ?? .standard
  }
}

struct Lowpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lowpass",
    abstract: "Smooth with the exponential low-pass of Apple's iPhone OS samples: y = a x + (1 - a) y.",
    discussion: "Examples:\n  accelkit filter lowpass --alpha 0.1 datasets/test/000.csv -o smooth.csv\n  accelkit filter lowpass --cutoff 2 datasets/test/000.csv -o smooth.npy")

  @OptionGroup var exponential: ExponentialOptions
  @OptionGroup var options: FilterOptions

  func run() throws { try FilterRunner.run(options, kind: .lowpass(exponential.setting)) }
}

struct Highpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "highpass",
    abstract: "Remove the slow part: x - lowpass(x), the high-pass of Apple's iPhone OS samples.",
    discussion: "Examples:\n  accelkit filter highpass --alpha 0.1 datasets/test/000.csv -o moves.csv")

  @OptionGroup var exponential: ExponentialOptions
  @OptionGroup var options: FilterOptions

  func run() throws { try FilterRunner.run(options, kind: .highpass(exponential.setting)) }
}

/// Where `filter gravity` gets gravity from.
enum GravityMethod: String, CaseIterable, ExpressibleByArgument {
  case lowpass
  case fusion
}

struct Gravity: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gravity",
    abstract: "Split each sample into gravity and user acceleration (the rest).",
    discussion: """
      Writes t, gravity_x, gravity_y, gravity_z, user_x, user_y, user_z, like Core Motion's \
      gravity and userAcceleration. --method lowpass (default): gravity is the exponential \
      low-pass, which lags rotations and takes in slow accelerations. --method fusion: gravity is \
      the world's down (1 g) seen through the attitude fused from the gyroscope and accelerometer \
      (VQF by default; --attitude-method picks another, see `accelkit attitude --list-params`); it \
      follows rotations at once. Needs a gyroscope.

      Examples:
        accelkit filter gravity --cutoff 0.3 datasets/test/000.csv -o split.csv
        accelkit filter gravity --method fusion \\
          datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz -o fused.csv
      """)

  @Option(help: "lowpass (the exponential low-pass) or fusion (the attitude from the gyroscope and accelerometer).")
  var method: GravityMethod = .lowpass

  @Option(help: "With --method fusion: vqf, madgwick, mahony or complementary.")
  var attitudeMethod: AttitudeMethod?

  @OptionGroup var exponential: ExponentialOptions
  @OptionGroup var options: FilterOptions

  func validate() throws {
    if method == .fusion && (exponential.alpha != nil || exponential.cutoff != nil) {
      throw ValidationError("--method fusion takes no --alpha or --cutoff")
    }
    if method == .lowpass && attitudeMethod != nil { throw ValidationError("--attitude-method needs --method fusion") }
  }

  func run() throws {
    var fusion: AttitudeSettings? = nil
    if method == .fusion {
      var s = AttitudeSettings()
      s.method = attitudeMethod ?? .vqf
      fusion = s
    }
    try FilterRunner.run(options, kind: .gravity(exponential.setting), fusion: fusion)
  }
}

// MARK: - Apple's filters

struct AppleOptions: ParsableArguments {
  @Option(help: ArgumentHelp("The cutoff in Hz, with Apple's constant RC = 1 / fc (the true -3 dB point is about fc / (2 pi)).", valueName: "hz"))
  var cutoff: Finite = 5

  @Flag(help: "Use Apple's plain filter, without the adaptive rule.")
  var noAdaptive = false
}

/// Runs Apple's low-pass or high-pass over the trace.
func runAppleFilter(_ kind: AppleFilter.Kind, apple: AppleOptions, options: FilterOptions) throws {
  try FilterRunner.run(options, kind: .apple(kind, cutoff: apple.cutoff.value, adaptive: !apple.noAdaptive))
}

struct AdaptiveLowpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "adaptive-lowpass",
    abstract: "Smooth with Apple's AccelerometerGraph low-pass (adaptive unless --no-adaptive).",
    discussion: "Examples:\n  accelkit filter adaptive-lowpass --cutoff 5 datasets/test/000.csv \\\n    -o smooth.csv\n  accelkit filter adaptive-lowpass --cutoff 5 --rate 60 --describe")

  @OptionGroup var apple: AppleOptions
  @OptionGroup var options: FilterOptions

  func run() throws { try runAppleFilter(.lowpass, apple: apple, options: options) }
}

struct AdaptiveHighpass: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "adaptive-highpass",
    abstract: "Keep quick changes with Apple's AccelerometerGraph high-pass (adaptive unless --no-adaptive).",
    discussion: "Examples:\n  accelkit filter adaptive-highpass --cutoff 5 datasets/test/000.csv \\\n    -o moves.csv")

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
        accelkit filter butterworth --order 4 --cutoff 5 datasets/test/000.csv \\
          -o low.csv
        accelkit filter butterworth --band high --order 2 --cutoff 0.5 \\
          datasets/test/000.csv -o high.csv
        accelkit filter butterworth --band bandpass --order 2 --cutoff 0.5 \\
          --cutoff-high 3 --zero-phase datasets/test/000.csv -o band.csv
      """)

  @Option(help: "The order N >= 1 (band filters have 2N poles).")
  var order: Int = 4

  @Option(help: ArgumentHelp("The cutoff in Hz (the lower edge for band filters).", valueName: "hz"))
  var cutoff: Finite

  @Option(help: ArgumentHelp("The upper edge in Hz, for bandpass and bandstop.", valueName: "hz"))
  var cutoffHigh: Finite?

  @Option(help: "The band: low, high, bandpass or bandstop.")
  var band: FilterBand = .low

  @Flag(help: "Filter forward and backward (no phase shift, squared magnitude response); uses a temporary file.")
  var zeroPhase = false

  @OptionGroup var options: FilterOptions

  func run() throws {
    try FilterRunner.run(
      options, kind: .butterworth(order: order, cutoff: cutoff.value, cutoffHigh: cutoffHigh?.value, band: band, zeroPhase: zeroPhase))
  }
}
