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

/// The spectral options `spectrum` and `spectrogram` share.
struct SpectralOptions: ParsableArguments {
  enum WindowName: String, ExpressibleByArgument, CaseIterable { case hann, hamming, blackman, boxcar, tukey }

  @Option(help: "Samples per segment (nperseg); a trace shorter than that is one segment, as in scipy.")
  var segment: Int = 256

  @Option(help: ArgumentHelp("The fraction of a segment shared with the next, in [0, 1).", valueName: "fraction"))
  var overlap: Double?

  @Option(help: "The window: hann, hamming, blackman, boxcar or tukey (periodic, as scipy's get_window).")
  var window: WindowName?

  @Option(help: ArgumentHelp("The tapered fraction of a Tukey window.", valueName: "alpha"))
  var tukeyAlpha: Double?

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
    if let overlap, !(overlap >= 0 && overlap < 1) { throw ValidationError("--overlap must be in [0, 1), got \(overlap)") }
    if segment < 1 { throw ValidationError("--segment must be at least 1, got \(segment)") }
    if let tukeyAlpha, !(tukeyAlpha >= 0 && tukeyAlpha <= 1) {
      throw ValidationError("--tukey-alpha must be in [0, 1], got \(tukeyAlpha)")
    }
    _ = try axisList()
  }

  func axisList() throws -> [String] {
    let list = axes.split(separator: ",").map { $0.trimmingBlanks().lowercased() }
    for a in list where !["x", "y", "z", "norm"].contains(a) {
      throw ValidationError("--axes takes x, y, z and norm, got \"\(a)\"")
    }
    guard !list.isEmpty else { throw ValidationError("--axes names no column") }
    return list
  }

  func windowKind(default fallback: WindowKind) -> WindowKind {
    switch window {
    case nil: return fallback
    case .hann: return .hann
    case .hamming: return .hamming
    case .blackman: return .blackman
    case .boxcar: return .boxcar
    case .tukey: return .tukey(alpha: tukeyAlpha ?? 0.5)
    }
  }

  /// The settings for a trace of `length` samples (nil when not known: streaming), shrinking the
  /// segment to the trace as scipy does, with a warning.
  func settings(rate: Double, segment requested: Int, defaultOverlap: Double, window: WindowKind, name: String, length: Int?) throws -> SpectralSettings {
    var seg = requested
    if let length, length < seg {
      Diagnostics.warning("\(name) has \(length) samples, fewer than the \(seg)-sample segment: using one segment of \(length) samples (as scipy)")
      seg = length
    }
    let fraction = overlap ?? defaultOverlap
    return try SpectralSettings(
      rate: rate, segment: seg, overlap: Int((fraction * Double(seg)).rounded(.down)), nfft: nfft,
      window: window, detrend: detrend, scaling: scaling)
  }

  func loadWisdom() {
    if let wisdom, access(wisdom, F_OK) == 0, !FFTWisdom.load(from: wisdom) {
      Diagnostics.warning("\(wisdom) is not FFTW wisdom; planning without it")
    }
  }

  func saveWisdom() {
    if let wisdom, !FFTWisdom.save(to: wisdom) { Diagnostics.warning("cannot save FFTW wisdom to \(wisdom)") }
  }
}

/// The four channels a spectrum is taken of.
func channels(_ block: SampleBlock) -> [String: [Double]] {
  var norm = [Double](repeating: 0, count: block.count)
  for i in 0..<block.count {
    norm[i] = (block.x[i] * block.x[i] + block.y[i] * block.y[i] + block.z[i] * block.z[i]).squareRoot()
  }
  return ["x": block.x, "y": block.y, "z": block.z, "norm": norm]
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
        accelkit spectrum walk.csv -o psd.csv
        accelkit spectrum --segment 512 --window hamming --scaling spectrum walk.csv -o power.csv
        accelkit spectrum --method periodogram --axes z walk.csv -o -
        accelkit spectrum --summary --bands 0.5-3,3-8 walk.csv
      """)

  enum Method: String, ExpressibleByArgument, CaseIterable { case welch, periodogram }
  enum SummaryFormat: String, ExpressibleByArgument, CaseIterable { case table, csv }

  @OptionGroup(title: "Input") var input: InputOptions
  @OptionGroup(title: "Spectrum") var spectral: SpectralOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output CSV (`-` for stdout).", valueName: "path"))
  var output: String?

  @Option(help: "welch (averaged segments) or periodogram (the whole trace).")
  var method: Method = .welch

  @Option(help: "How Welch averages segments: mean or median (bias-corrected, as scipy).")
  var average: WelchEstimator.Average = .mean

  @OptionGroup var resampling: ResampleOptions

  @Flag(help: "Print a summary per axis instead of (or, with -o FILE, beside) the spectrum.")
  var summary = false

  @Option(help: ArgumentHelp("Frequency bands for --summary, LOW-HIGH in Hz, comma-separated.", valueName: "bands"))
  var bands: String = "0.5-3,3-8"

  @Option(help: "The format of --summary: table or csv (default: table on a terminal).")
  var format: SummaryFormat?

  func validate() throws { _ = try parsedBands() }

  func parsedBands() throws -> [(Double, Double)] {
    try bands.split(separator: ",").map { part in
      let pieces = part.split(separator: "-")
      guard pieces.count == 2, let lo = Double(pieces[0]), let hi = Double(pieces[1]), lo < hi, lo >= 0 else {
        throw ValidationError("--bands takes LOW-HIGH pairs in Hz with LOW < HIGH, got \"\(part)\"")
      }
      return (lo, hi)
    }
  }

  func run() throws {
    let stream = try TraceStream(path: trace, settings: try input.settings(), resample: resampling.resample)
    let axes = try spectral.axisList()
    spectral.loadWisdom()
    let defaultWindow: WindowKind = method == .periodogram ? .boxcar : .hann
    var result: [String: [Double]] = [:]
    let settings: SpectralSettings
    if method == .periodogram {
      var all = SampleBlock()
      while let block = try stream.next() { all.append(contentsOf: block) }
      settings = try spectral.settings(
        rate: stream.rate, segment: all.count, defaultOverlap: 0, window: spectral.windowKind(default: defaultWindow),
        name: stream.name, length: all.count)
      let chans = channels(all)
      for a in axes {
        let estimator = WelchEstimator(settings, measure: spectral.wisdom != nil)
        estimator.add(chans[a]!)
        result[a] = estimator.result()
      }
    } else {
      // The segment may shrink to a short trace: hold samples until one segment is there.
      var held = SampleBlock()
      var estimators: [String: WelchEstimator] = [:]
      var active: SpectralSettings? = nil
      func feed(_ block: SampleBlock) {
        let chans = channels(block)
        for a in axes { estimators[a]!.add(chans[a]!) }
      }
      func start(length: Int?) throws {
        let s = try spectral.settings(
          rate: stream.rate, segment: spectral.segment, defaultOverlap: 0.5,
          window: spectral.windowKind(default: defaultWindow), name: stream.name, length: length)
        active = s
        for a in axes { estimators[a] = WelchEstimator(s, average: average, measure: spectral.wisdom != nil) }
        feed(held)
        held = SampleBlock()
      }
      while let block = try stream.next() {
        if active != nil {
          feed(block)
        } else {
          held.append(contentsOf: block)
          if held.count >= spectral.segment { try start(length: nil) }
        }
      }
      if active == nil {
        guard !held.isEmpty else { throw AccelError.data(DataLocation(file: stream.name), "the trace holds no samples") }
        try start(length: held.count)
      }
      settings = active!
      for a in axes { result[a] = estimators[a]!.result() }
    }
    spectral.saveWisdom()
    let frequencies = settings.frequencies
    let columns = [frequencies] + axes.map { result[$0]! }
    if !summary || (output != nil && output != "-") {
      let file = try OutputFile(path: output ?? "-", inputs: [stream.input])
      let writer = try CSVTableWriter(output: file, names: ["frequency"] + axes)
      try writer.write(columns: columns)
      try writer.finish()
    }
    if summary {
      let bandList = try parsedBands()
      let binWidth = stream.rate / Double(settings.nfft)
      let rows = axes.map { a in
        (a, SpectrumSummary(power: result[a]!, frequencies: frequencies, binWidth: binWidth, density: settings.scaling == .density, bands: bandList))
      }
      let bandNames = bandList.map { "band_\(formatNumber($0.0))-\(formatNumber($0.1))_hz" }
      let chosen = format ?? (Diagnostics.stdoutIsTerminal ? .table : .csv)
      let unit = settings.scaling == .density ? "g^2" : "g^2 (summed bins)"
      if chosen == .csv {
        var text = (["axis", "dominant_hz", "dominant_power", "total_power"] + bandNames).joined(separator: ",") + "\n"
        for (a, s) in rows {
          text += ([a, formatNumber(s.dominantFrequency), formatNumber(s.dominantPower), formatNumber(s.totalPower)] + s.bandPowers.map(formatNumber)).joined(separator: ",") + "\n"
        }
        try writeStdout(text)
      } else {
        var text = "\(stream.name): \(method.rawValue), \(settings.segment)-sample segments, \(settings.window.name) window, \(formatHz(stream.rate)) Hz; powers in \(unit)\n"
        for (a, s) in rows {
          text += "  \(a.padded(to: 5))dominant \(cFormat("%.4g", s.dominantFrequency)) Hz (\(cFormat("%.4g", s.dominantPower)))  total \(cFormat("%.4g", s.totalPower))"
          for (name, p) in zip(bandList, s.bandPowers) { text += "  \(formatNumber(name.0))-\(formatNumber(name.1)) Hz \(cFormat("%.4g", p))" }
          text += "\n"
        }
        try writeStdout(text)
      }
    }
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
        accelkit spectrogram walk.csv -o spectrogram.csv
        accelkit spectrogram --segment 128 --overlap 0.5 --window hann --axes norm walk.csv -o sg.npy
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

  func run() throws {
    let stream = try TraceStream(path: trace, settings: try input.settings(), resample: resampling.resample)
    let axes = try spectral.axisList()
    spectral.loadWisdom()
    let window = spectral.windowKind(default: .tukey(alpha: spectral.tukeyAlpha ?? 0.25))
    var held = SampleBlock()
    var estimators: [String: SpectrogramEstimator]? = nil
    let format = to ?? TraceFormat(pathExtensionOf: output) ?? .csv
    let table = TableFormat(format)
    let file = try OutputFile(path: output, inputs: [stream.input], needsSeek: table.needsSeek)
    let writer = try table.makeWriter(output: file, names: ["time", "frequency"] + axes, precision: .float64)
    var frequencies: [Double] = []
    var origin: Double? = nil
    func emit(_ chans: [String: [Double]]) throws {
      let frames = axes.map { estimators![$0]!.add(chans[$0]!) }
      guard let count = frames.first?.count, count > 0 else { return }
      var columns = [[Double]](repeating: [], count: 2 + axes.count)
      for f in 0..<count {
        columns[0] += Array(repeating: (origin ?? 0) + frames[0][f].time, count: frequencies.count)
        columns[1] += frequencies
        for k in 0..<axes.count { columns[2 + k] += frames[k][f].power }
      }
      try writer.write(columns: columns)
    }
    func start(length: Int?) throws {
      let s = try spectral.settings(
        rate: stream.rate, segment: spectral.segment, defaultOverlap: 0.125, window: window, name: stream.name, length: length)
      frequencies = s.frequencies
      estimators = Dictionary(uniqueKeysWithValues: axes.map { ($0, SpectrogramEstimator(s, measure: spectral.wisdom != nil)) })
    }
    while let block = try stream.next() {
      if origin == nil { origin = block.t.first }
      if estimators == nil {
        held.append(contentsOf: block)
        if held.count < spectral.segment { continue }
        try start(length: nil)
        try emit(channels(held))
        held = SampleBlock()
      } else {
        try emit(channels(block))
      }
    }
    if estimators == nil {
      guard !held.isEmpty else { throw AccelError.data(DataLocation(file: stream.name), "the trace holds no samples") }
      try start(length: held.count)
      try emit(channels(held))
    }
    try writer.finish()
    spectral.saveWisdom()
    Diagnostics.reportSkips(stream.source)
  }
}
