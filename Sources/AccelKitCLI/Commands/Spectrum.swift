#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelFilters
import AccelIO
import AccelSpectral
import ArgumentParser

extension Detrend: ExpressibleByArgument {}
extension SpectralScaling: ExpressibleByArgument {}
extension WelchEstimator.Average: ExpressibleByArgument {}
extension SpectrumRequest.Method: ExpressibleByArgument {}

/// The spectral options `spectrum` and `spectrogram` share.
struct SpectralOptions: ParsableArguments {
  enum WindowName: String, ExpressibleByArgument, CaseIterable { case hann, hamming, blackman, boxcar, tukey }

  @Option(help: "Samples per segment (nperseg); a trace shorter than that is one segment, as in scipy.")
  var segment: Int = 256

  @Option(help: ArgumentHelp("The fraction of a segment shared with the next, in [0, 1).", valueName: "fraction"))
  var overlap: Finite?

  @Option(help: "The window: hann, hamming, blackman, boxcar or tukey (periodic, as scipy's get_window).")
  var window: WindowName?

  @Option(help: ArgumentHelp("The tapered fraction of a Tukey window.", valueName: "alpha"))
  var tukeyAlpha: Finite?

  @Option(help: "What to remove from each segment: constant (its mean), linear (its least-squares line) or none.")
  var detrend: Detrend = .constant

  @Option(help: "density (PSD, g^2/Hz) or spectrum (power, g^2).")
  var scaling: SpectralScaling = .density

  @Option(help: "The FFT length (zero padding), at least the segment length.")
  var nfft: Int?

  @Option(help: ArgumentHelp("The columns to write: any of x, y, z, norm (norm is the spectrum of |a|).", valueName: "list"))
  var axes: String = "x,y,z,norm"

  @Option(help: ArgumentHelp("Save FFTW's planning wisdom to this file and load it on later runs (plans are then measured, not estimated).", valueName: "file"))
  var wisdom: String?

  func validate() throws {
    do { try request().validate() } catch let error as AccelError { throw ValidationError(error.message) }
  }

  /// The typed request these options make (the window nil when not given: each estimate has its
  /// own default).
  func request() throws -> SpectrumRequest {
    var r = SpectrumRequest()
    r.segment = segment
    r.overlap = overlap?.value
    switch window {
    case nil: r.window = nil
    case .hann: r.window = .hann
    case .hamming: r.window = .hamming
    case .blackman: r.window = .blackman
    case .boxcar: r.window = .boxcar
    case .tukey: r.window = .tukey(alpha: tukeyAlpha?.value ?? 0.5)
    }
    r.detrend = detrend
    r.scaling = scaling
    r.nfft = nfft
    r.channels = try SpectrumChannel.parseList(axes)
    r.measurePlans = wisdom != nil
    return r
  }

  /// Loads the wisdom file, and reserves it as an output (it is saved back over itself; never over
  /// the trace or another output).
  func loadWisdom() throws {
    guard let wisdom else { return }
    if access(wisdom, F_OK) == 0, !FFTWisdom.load(from: wisdom) {
      Diagnostics.warning("\(wisdom) is not FFTW wisdom; planning without it")
    }
    try RunFiles.reserveOutputs([wisdom], updating: FFTWisdom.role)
  }

  /// Saves the wisdom atomically (a failure is a warning: the spectrum is written).
  func saveWisdom() {
    guard let wisdom else { return }
    do {
      let file = try OutputFile(path: wisdom, updating: FFTWisdom.role)
      try file.write(FFTWisdom.exported())
      try file.commit()
    } catch {
      Diagnostics.warning("cannot save FFTW wisdom to \(wisdom): \((error as? AccelError)?.message ?? "\(error)")")
    }
  }
}

struct Spectrum: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "spectrum",
    abstract: "Estimate power spectra (Welch or periodogram) of x, y, z and |a|, as scipy.signal.welch.",
    discussion: """
      Writes frequency,x,y,z,norm (Hz; g^2/Hz for density, g^2 for spectrum). Welch streams: \
      segments are consumed as blocks arrive, in constant memory (median averaging keeps each \
      segment's spectrum). --method periodogram is one segment of the whole trace (boxcar window \
      unless --window) and holds the signal. --summary prints, per axis, the dominant frequency \
      (parabolic interpolation between bins), its power, the total power and the power in --bands.

      Examples:
        accelkit spectrum datasets/test/000.csv -o psd.csv
        accelkit spectrum --segment 512 --window hamming --scaling spectrum \\
          datasets/test/000.csv -o power.csv
        accelkit spectrum --method periodogram --axes z datasets/test/000.csv -o -
        accelkit spectrum --summary --bands 0.5-3,3-8 datasets/test/000.csv
        accelkit spectrum --csd x,y --coherence x,y datasets/test/000.csv \\
          -o cross.csv
        accelkit spectrum --coherence x,x --resample 100 datasets/test/000.csv \\
          --with datasets/test/001.csv -o between.csv
      """)

  enum SummaryFormat: String, ExpressibleByArgument, CaseIterable { case table, csv }

  @OptionGroup(title: "Input") var input: InputOptions
  @OptionGroup(title: "Spectrum") var spectral: SpectralOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output CSV (`-` for stdout).", valueName: "path"))
  var output: String?

  @Option(help: "welch (averaged segments) or periodogram (the whole trace).")
  var method: SpectrumRequest.Method = .welch

  @Option(help: "How Welch averages segments: mean or median (bias-corrected, as scipy).")
  var average: WelchEstimator.Average = .mean

  @OptionGroup var resampling: ResampleOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  @Flag(help: "Print a summary per axis instead of (or, with -o FILE, beside) the spectrum.")
  var summary = false

  @Option(help: ArgumentHelp("Frequency bands for --summary, LOW-HIGH in Hz, comma-separated.", valueName: "bands"))
  var bands: String = "0.5-3,3-8"

  @Option(help: "The format of --summary: table or csv (default: table on a terminal).")
  var format: SummaryFormat?

  @Option(
    help: ArgumentHelp(
      "The cross-spectral density of two channels instead of the spectra, as scipy.signal.csd(A, B): frequency,csd_re,csd_im,csd_abs,csd_phase (conj(A) B; g^2/Hz for density).",
      valueName: "a,b"))
  var csd: String?

  @Option(
    help: ArgumentHelp(
      "The magnitude-squared coherence of two channels, as scipy.signal.coherence(A, B): frequency,coherence (with --csd, both).",
      valueName: "a,b"))
  var coherence: String?

  @Option(
    name: .customLong("with"),
    help: ArgumentHelp(
      "With --csd or --coherence: take the second channel from this trace (sampled with the first: samples are paired in order).",
      valueName: "trace"))
  var other: String?

  func validate() throws {
    do { _ = try SpectrumResult.parseBands(bands) } catch let error as AccelError { throw ValidationError(error.message) }
    for (name, value) in [("--csd", csd), ("--coherence", coherence)] {
      if let value {
        do { _ = try Self.pair(value, option: name) } catch let error as AccelError { throw ValidationError(error.message) }
      }
    }
    if let csd, let coherence, try Self.pair(csd, option: "--csd") != Self.pair(coherence, option: "--coherence") {
      throw ValidationError("--csd and --coherence name different channels")
    }
    if csd != nil || coherence != nil {
      if summary { throw ValidationError("--summary describes power spectra, not --csd or --coherence") }
      if method != .welch || average != .mean {
        throw ValidationError("--csd and --coherence use Welch's method with mean averaging (as scipy)")
      }
    } else if other != nil {
      throw ValidationError("--with goes with --csd or --coherence")
    }
  }

  /// `x,y`: two channels.
  static func pair(_ text: String, option: String) throws -> (SpectrumChannel, SpectrumChannel) {
    let list = try SpectrumChannel.parseList(text, option: option)
    guard list.count == 2 else { throw AccelError.usage("\(option) takes two channels such as x,y, got \(quotedField(text))") }
    return (list[0], list[1])
  }

  func run() throws {
    if csd != nil || coherence != nil {
      try runCross()
      return
    }
    let stream = try Diagnostics.openStream(path: trace, settings: try input.settings(), resample: resampling.rate)
    var request = try spectral.request()
    request.method = method
    request.average = average
    try spectral.loadWisdom()
    let spectrum = TraceSpectrum(request, rate: stream.rate, name: stream.name)
    while let block = try stream.next() { try spectrum.add(block) }
    let result = try spectrum.finish()
    spectrum.warnings.forEach(Diagnostics.warning)
    spectral.saveWisdom()
    if !summary || (output != nil && output != "-") {
      let file = try OutputFile(path: output ?? "-", inputs: [stream.input])
      let writer = try CSVTableWriter(output: file, names: result.columnNames, significantDigits: numbers.precision)
      try writer.write(columns: result.columns)
      try writer.finish()
    }
    if summary {
      let bandList = try SpectrumResult.parseBands(bands)
      switch format ?? (Diagnostics.stdoutIsTerminal ? .table : .csv) {
      case .csv: try writeStdout(result.summaryCSV(bands: bandList))
      case .table: try writeStdout(result.summaryTable(name: stream.name, method: method, bands: bandList))
      }
    }
    Diagnostics.reportSkips(stream.source)
  }
}

extension Spectrum {
  /// --csd and --coherence: two channels of the trace, or the second from --with.
  func runCross() throws {
    let (a, b) = try Self.pair(csd ?? coherence!, option: csd != nil ? "--csd" : "--coherence")
    let settings = try input.settings()
    let stream = try Diagnostics.openStream(path: trace, settings: settings, resample: resampling.rate)
    let second = try other.map { try Diagnostics.openStream(path: $0, settings: settings, resample: resampling.rate) }
    if let second, abs(second.rate - stream.rate) > 1e-6 * stream.rate {
      throw AccelError.usage(
        "\(second.name) is sampled at \(formatHz(second.rate)) Hz and \(stream.name) at \(formatHz(stream.rate)) Hz: cross spectra pair samples taken together",
        hint: "put both on one grid with --resample HZ")
    }
    var request = try spectral.request()
    request.method = .welch
    try spectral.loadWisdom()
    let cross = TraceCrossSpectrum(request, rate: stream.rate, name: stream.name)
    try cross.add(first: stream.next, second: second.map { $0.next }, channels: (a, b))
    let result = try cross.finish()
    cross.warnings.forEach(Diagnostics.warning)
    if cross.unpaired > 0, let other {
      Diagnostics.warning(
        "\(stream.name) and \(other) differ in length: the last \(cross.unpaired) sample\(cross.unpaired == 1 ? "" : "s") of the longer had no partner")
    }
    spectral.saveWisdom()
    let (names, columns) = result.table(csd: csd != nil, coherence: coherence != nil)
    let file = try OutputFile(path: output ?? "-", inputs: [stream.input] + (second.map { [$0.input] } ?? []))
    let writer = try CSVTableWriter(output: file, names: names, significantDigits: numbers.precision)
    try writer.write(columns: columns)
    try writer.finish()
    Diagnostics.reportSkips(stream.source)
  }
}

struct Spectrogram: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "spectrogram",
    abstract: "Compute the short-time spectrum over time, as scipy.signal.spectrogram.",
    discussion: """
      Writes long-format rows time,frequency,x,y,z,norm (time is each segment's centre, in the \
      trace's time base: scipy's segment times plus the first timestamp). Defaults follow scipy.signal.spectrogram: a Tukey window \
      with alpha 0.25, 256-sample segments overlapping by 1/8, density scaling. Streams. NPY \
      output (by extension or --to npy) is the same long table as a structured array with fields \
      time, frequency and the chosen axes.

      Examples:
        accelkit spectrogram datasets/test/000.csv -o spectrogram.csv
        accelkit spectrogram --segment 128 --overlap 0.5 --window hann --axes norm \\
          datasets/test/000.csv -o sg.npy
      """)

  @OptionGroup(title: "Input") var input: InputOptions
  @OptionGroup(title: "Spectrum") var spectral: SpectralOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(help: "The output format: csv or npy (default: from the output extension, else csv).")
  var to: TraceFormat?

  @OptionGroup var resampling: ResampleOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  func run() throws {
    let stream = try Diagnostics.openStream(path: trace, settings: try input.settings(), resample: resampling.rate)
    var request = try spectral.request()
    if request.window == nil, let alpha = spectral.tukeyAlpha { request.window = .tukey(alpha: alpha.value) }
    try spectral.loadWisdom()
    let spectrogram = TraceSpectrogram(request, rate: stream.rate, name: stream.name)
    let writer = try TableFormat.openWriter(
      path: output, format: to, inputs: [stream.input], names: spectrogram.columnNames, precision: .float64,
      significantDigits: numbers.precision)
    func write(_ columns: [[Double]]) throws { if !(columns.first?.isEmpty ?? true) { try writer.write(columns: columns) } }
    while let block = try stream.next() { try write(try spectrogram.add(block)) }
    try write(try spectrogram.finish())
    spectrogram.warnings.forEach(Diagnostics.warning)
    try writer.finish()
    spectral.saveWisdom()
    Diagnostics.reportSkips(stream.source)
  }
}
