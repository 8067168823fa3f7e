import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The columns a trace's spectrum is taken of: an axis of the accelerometer, or the norm |a|.
public enum SpectrumChannel: String, CaseIterable, Sendable {
  case x, y, z, norm

  /// Parses `x,y,z,norm` (any of them, in any order).
  public static func parseList(_ text: String, option: String = "--axes") throws -> [SpectrumChannel] {
    let list = try text.split(separator: ",").map { part -> SpectrumChannel in
      let name = part.trimmingBlanks().lowercased()
      guard let c = SpectrumChannel(rawValue: name) else {
        throw AccelError.usage("\(option) takes x, y, z and norm, got \"\(name)\"")
      }
      return c
    }
    guard !list.isEmpty else { throw AccelError.usage("\(option) names no column") }
    return list
  }

  /// This channel's values in `block`.
  public func values(in block: SampleBlock) -> [Double] {
    switch self {
    case .x: return block.x
    case .y: return block.y
    case .z: return block.z
    case .norm:
      var norm = [Double](repeating: 0, count: block.count)
      for i in 0..<block.count {
        let (x, y, z) = (block.x[i], block.y[i], block.z[i])
        norm[i] = (x * x + y * y + z * z).squareRoot()
      }
      return norm
    }
  }
}

/// How to estimate a trace's spectrum or spectrogram: the typed configuration behind
/// `accelkit spectrum` and `accelkit spectrogram`. nil settings take the method's default, as
/// scipy's functions do.
public struct SpectrumRequest: Sendable, Equatable {
  public enum Method: String, CaseIterable, Sendable {
    /// Averaged segments (scipy.signal.welch); streams.
    case welch
    /// One segment of the whole trace (scipy.signal.periodogram); holds the signal.
    case periodogram
  }

  public var method: Method = .welch
  /// Samples per segment (nperseg), >= 1; a trace shorter than that is one segment of its own
  /// length, as in scipy.
  public var segment = 256
  /// The fraction of a segment shared with the next, in [0, 1); default 0.5 (Welch), 1/8
  /// (spectrogram).
  public var overlap: Double?
  /// Default: Hann (Welch), boxcar (periodogram), Tukey 0.25 (spectrogram).
  public var window: WindowKind?
  public var detrend: Detrend = .constant
  public var scaling: SpectralScaling = .density
  /// The FFT length, >= the segment (zero padding).
  public var nfft: Int?
  public var average: WelchEstimator.Average = .mean
  public var channels: [SpectrumChannel] = SpectrumChannel.allCases
  /// Measure FFT plans (with saved wisdom) rather than estimate them.
  public var measurePlans = false

  public init() {}

  /// Checks the settings that do not depend on a trace.
  public func validate() throws {
    if let overlap, !(overlap >= 0 && overlap < 1) {
      throw AccelError.usage("--overlap must be in [0, 1), got \(formatNumber(overlap))")
    }
    if segment < 1 { throw AccelError.usage("--segment must be at least 1, got \(segment)") }
    if case .tukey(let alpha) = window, !(alpha >= 0 && alpha <= 1) {
      throw AccelError.usage("--tukey-alpha must be in [0, 1], got \(formatNumber(alpha))")
    }
    if channels.isEmpty { throw AccelError.usage("--axes names no column") }
  }

  /// The settings for a trace at `rate` Hz; `length` (when the trace is shorter than a segment)
  /// shrinks the segment to it, as scipy does.
  func settings(rate: Double, length: Int?, defaultOverlap: Double, defaultWindow: WindowKind) throws
    -> SpectralSettings
  {
    let seg = length.map { min($0, segment) } ?? segment
    let fraction = overlap ?? defaultOverlap
    return try SpectralSettings(
      rate: rate, segment: seg, overlap: Int((fraction * Double(seg)).rounded(.down)), nfft: nfft,
      window: window ?? defaultWindow, detrend: detrend, scaling: scaling)
  }

  static func shortTraceWarning(name: String, length: Int, segment: Int) -> String {
    "\(name) has \(length) samples, fewer than the \(segment)-sample segment: using one segment of \(length) samples (as scipy)"
  }
}

/// The power spectrum of a whole trace, fed block by block: Welch streams in constant memory
/// (median averaging keeps each segment's spectrum); the periodogram holds the signal. A trace
/// shorter than a segment is one segment of its own length, with a warning.
public final class TraceSpectrum {
  public let request: SpectrumRequest
  public let rate: Double
  public let name: String
  /// Things the caller should tell the user (a short trace).
  public private(set) var warnings: [String] = []
  private var held = SampleBlock()
  private var estimators: [WelchEstimator] = []
  private var settings: SpectralSettings?

  public init(_ request: SpectrumRequest, rate: Double, name: String) {
    self.request = request
    self.rate = rate
    self.name = name
  }

  public func add(_ block: SampleBlock) throws {
    if request.method == .periodogram || settings == nil {
      held.append(contentsOf: block.accelerometerOnly)
      if request.method == .periodogram && held.count > SpectralSettings.maximumLength {
        throw AccelError.usage(
          "\(name) has more than \(SpectralSettings.maximumLength) samples (2^24): too long for one periodogram",
          hint: "use --method welch, or cut the trace into parts")
      }
      if request.method == .welch && held.count >= request.segment { try start(length: nil) }
    } else {
      feed(block)
    }
  }

  private func start(length: Int?) throws {
    if let length, length < request.segment {
      warnings.append(SpectrumRequest.shortTraceWarning(name: name, length: length, segment: request.segment))
    }
    let s = try request.settings(rate: rate, length: length, defaultOverlap: 0.5, defaultWindow: .hann)
    settings = s
    estimators = request.channels.map { _ in
      WelchEstimator(s, average: request.average, measure: request.measurePlans)
    }
    feed(held)
    held = SampleBlock()
  }

  private func feed(_ block: SampleBlock) {
    for (k, channel) in request.channels.enumerated() { estimators[k].add(channel.values(in: block)) }
  }

  /// The spectrum of everything added.
  public func finish() throws -> SpectrumResult {
    if request.method == .periodogram {
      guard !held.isEmpty else {
        throw AccelError.data(DataLocation(file: name), "the trace holds no samples")
      }
      // One segment of the whole trace.
      let s = try SpectralSettings(
        rate: rate, segment: held.count, overlap: 0, nfft: request.nfft, window: request.window ?? .boxcar,
        detrend: request.detrend, scaling: request.scaling)
      let power = request.channels.map { channel -> [Double] in
        let estimator = WelchEstimator(s, measure: request.measurePlans)
        estimator.add(channel.values(in: held))
        return estimator.result()!
      }
      return SpectrumResult(settings: s, channels: request.channels, power: power)
    }
    if settings == nil {
      guard !held.isEmpty else {
        throw AccelError.data(DataLocation(file: name), "the trace holds no samples")
      }
      try start(length: held.count)
    }
    return SpectrumResult(
      settings: settings!, channels: request.channels, power: estimators.map { $0.result()! })
  }
}

/// The cross-spectral density and coherence of two channels (of one trace, or of two traces
/// sampled together), fed block by block with Welch's method (mean averaging) and the request's
/// segment, overlap, window, detrend and scaling, as scipy.signal.csd and coherence. Samples are
/// paired in order (the i-th of each); a trace shorter than a segment is one segment of its own
/// length, as in scipy.
public final class TraceCrossSpectrum {
  public let request: SpectrumRequest
  public let rate: Double
  public let name: String
  public private(set) var warnings: [String] = []
  private var pendingFirst: [Double] = []
  private var pendingSecond: [Double] = []
  private var estimator: CrossSpectralEstimator?
  /// Samples of one signal with no partner yet, at the end.
  public var unpaired: Int { abs(pendingFirst.count - pendingSecond.count) }

  public init(_ request: SpectrumRequest, rate: Double, name: String) {
    self.request = request
    self.rate = rate
    self.name = name
  }

  /// Adds samples of the first signal, of the second, or of both.
  public func add(first: [Double] = [], second: [Double] = []) throws {
    pendingFirst += first
    pendingSecond += second
    if estimator == nil && min(pendingFirst.count, pendingSecond.count) >= request.segment {
      try start(length: nil)
    }
    feed()
  }

  private func start(length: Int?) throws {
    if let length, length < request.segment {
      warnings.append(SpectrumRequest.shortTraceWarning(name: name, length: length, segment: request.segment))
    }
    let s = try request.settings(rate: rate, length: length, defaultOverlap: 0.5, defaultWindow: .hann)
    estimator = CrossSpectralEstimator(s, measure: request.measurePlans)
  }

  private func feed() {
    guard let estimator else { return }
    let n = min(pendingFirst.count, pendingSecond.count)
    guard n > 0 else { return }
    estimator.add(Array(pendingFirst[..<n]), Array(pendingSecond[..<n]))
    pendingFirst.removeFirst(n)
    pendingSecond.removeFirst(n)
  }

  /// Feeds channel `channels.0` of `first`'s blocks against `channels.1` of `second`'s (of
  /// `first`'s own when `second` is nil), each read until it returns nil; samples pair in order,
  /// and what the longer stream has beyond the shorter stays unpaired (`unpaired`).
  public func add(
    first: () throws -> SampleBlock?, second: (() throws -> SampleBlock?)?,
    channels: (SpectrumChannel, SpectrumChannel)
  ) throws {
    guard let second else {
      while let block = try first() {
        try add(first: channels.0.values(in: block), second: channels.1.values(in: block))
      }
      return
    }
    var firstDone = false
    var secondDone = false
    while !(firstDone && secondDone) {
      let one = firstDone ? nil : try first()
      let two = secondDone ? nil : try second()
      firstDone = one == nil
      secondDone = two == nil
      try add(
        first: one.map { channels.0.values(in: $0) } ?? [],
        second: two.map { channels.1.values(in: $0) } ?? [])
    }
  }

  /// The frequencies and, at each, the cross spectrum (re, im) and the coherence.
  public func finish() throws -> CrossSpectrum {
    if estimator == nil {
      let n = min(pendingFirst.count, pendingSecond.count)
      guard n > 0 else {
        throw AccelError.data(DataLocation(file: name), "the traces hold no samples to pair")
      }
      try start(length: n)
      feed()
    }
    let e = estimator!
    let (re, im, coherence) = e.result()!
    return CrossSpectrum(settings: e.settings, re: re, im: im, coherence: coherence)
  }
}

/// Two signals' cross-spectral density, conj(A) B, and their coherence, at each frequency.
public struct CrossSpectrum: Sendable {
  public let settings: SpectralSettings
  public let re: [Double]
  public let im: [Double]
  public let coherence: [Double]

  public init(settings: SpectralSettings, re: [Double], im: [Double], coherence: [Double]) {
    self.settings = settings
    self.re = re
    self.im = im
    self.coherence = coherence
  }

  public var frequencies: [Double] { settings.frequencies }
  /// |conj(A) B|.
  public var magnitude: [Double] { zip(re, im).map { ($0 * $0 + $1 * $1).squareRoot() } }
  /// The phase of conj(A) B in radians, in (-pi, pi] (atan2(im, re), as numpy's angle).
  public var phase: [Double] { zip(re, im).map { atan2($1, $0) } }

  /// The table `accelkit spectrum` writes: frequency, then csd_re, csd_im, csd_abs and csd_phase
  /// with `csd`, then coherence with `coherence`.
  public func table(csd: Bool, coherence withCoherence: Bool) -> (names: [String], columns: [[Double]]) {
    var names = ["frequency"]
    var columns = [frequencies]
    if csd {
      names += ["csd_re", "csd_im", "csd_abs", "csd_phase"]
      columns += [re, im, magnitude, phase]
    }
    if withCoherence {
      names.append("coherence")
      columns.append(coherence)
    }
    return (names, columns)
  }
}

/// A spectrum: the settings it was made with, and the power per channel at each frequency.
public struct SpectrumResult: Sendable {
  public let settings: SpectralSettings
  public let channels: [SpectrumChannel]
  /// One column per channel, at `frequencies`.
  public let power: [[Double]]

  public var frequencies: [Double] { settings.frequencies }

  /// The table `frequency,<channels>`.
  public var columns: [[Double]] { [frequencies] + power }
  public var columnNames: [String] { ["frequency"] + channels.map(\.rawValue) }

  /// Per channel: the dominant frequency, its power, the total power and the power in `bands`
  /// ([low, high) in Hz).
  public func summaries(bands: [(Double, Double)]) -> [(SpectrumChannel, SpectrumSummary)] {
    let binWidth = settings.rate / Double(settings.nfft)
    return zip(channels, power).map { channel, p in
      (
        channel,
        SpectrumSummary(
          power: p, frequencies: frequencies, binWidth: binWidth, density: settings.scaling == .density,
          bands: bands)
      )
    }
  }

  /// The summary as CSV: `axis,dominant_hz,dominant_power,total_power,band_LO-HI_hz...`.
  public func summaryCSV(bands: [(Double, Double)]) -> String {
    let bandNames = bands.map { "band_\(formatNumber($0.0))-\(formatNumber($0.1))_hz" }
    var text =
      (["axis", "dominant_hz", "dominant_power", "total_power"] + bandNames).joined(separator: ",") + "\n"
    for (channel, s) in summaries(bands: bands) {
      text +=
        ([
          channel.rawValue, formatNumber(s.dominantFrequency), formatNumber(s.dominantPower),
          formatNumber(s.totalPower),
        ]
        + s.bandPowers.map(formatNumber)).joined(separator: ",") + "\n"
    }
    return text
  }

  /// The summary for people.
  public func summaryTable(name: String, method: SpectrumRequest.Method, bands: [(Double, Double)]) -> String
  {
    let units =
      settings.scaling == .density
      ? "dominant in g^2/Hz, total and bands in g^2" : "powers in g^2 (summed bins)"
    var text =
      "\(name): \(method.rawValue), \(settings.segment)-sample segments, \(settings.window.name) window, "
      + "\(formatHz(settings.rate)) Hz; \(units)\n"
    for (channel, s) in summaries(bands: bands) {
      text +=
        "  \(channel.rawValue.padded(to: 5))dominant \(cFormat("%.4g", s.dominantFrequency)) Hz "
        + "(\(cFormat("%.4g", s.dominantPower)))  total \(cFormat("%.4g", s.totalPower))"
      for (band, p) in zip(bands, s.bandPowers) {
        text += "  \(formatNumber(band.0))-\(formatNumber(band.1)) Hz \(cFormat("%.4g", p))"
      }
      text += "\n"
    }
    return text
  }

  /// Parses `0.5-3,3-8`: frequency bands in Hz.
  public static func parseBands(_ text: String) throws -> [(Double, Double)] {
    try text.split(separator: ",").map { part in
      let pieces = part.split(separator: "-")
      guard pieces.count == 2, let lo = Double(pieces[0]), let hi = Double(pieces[1]), lo < hi, lo >= 0 else {
        throw AccelError.usage("--bands takes LOW-HIGH pairs in Hz with LOW < HIGH, got \"\(part)\"")
      }
      return (lo, hi)
    }
  }
}

/// The short-time spectrum of a trace, fed block by block, as scipy.signal.spectrogram: rows of
/// `time,frequency,<channels>` (time is each segment's centre in the trace's time base). Streams.
public final class TraceSpectrogram {
  public let request: SpectrumRequest
  public let rate: Double
  public let name: String
  public private(set) var warnings: [String] = []
  private var held = SampleBlock()
  private var estimators: [SpectrogramEstimator]?
  /// The bin frequencies, known once the first segment is complete (empty before).
  public private(set) var frequencies: [Double] = []
  private var origin: Double?

  public init(_ request: SpectrumRequest, rate: Double, name: String) {
    self.request = request
    self.rate = rate
    self.name = name
  }

  public var columnNames: [String] { ["time", "frequency"] + request.channels.map(\.rawValue) }

  /// Adds a block; returns the rows of the segments it completed (columns in `columnNames` order;
  /// empty columns when none).
  public func add(_ block: SampleBlock) throws -> [[Double]] {
    if origin == nil { origin = block.t.first }
    if estimators == nil {
      held.append(contentsOf: block.accelerometerOnly)
      if held.count < request.segment { return [] }
      try start(length: nil)
      defer { held = SampleBlock() }
      return emit(held)
    }
    return emit(block)
  }

  /// The rows of a trace shorter than one segment (one segment of its length), or none.
  public func finish() throws -> [[Double]] {
    guard estimators == nil else { return [] }
    guard !held.isEmpty else { throw AccelError.data(DataLocation(file: name), "the trace holds no samples") }
    warnings.append(
      SpectrumRequest.shortTraceWarning(name: name, length: held.count, segment: request.segment))
    try start(length: held.count)
    return emit(held)
  }

  private func start(length: Int?) throws {
    let s = try request.settings(
      rate: rate, length: length, defaultOverlap: 0.125, defaultWindow: .tukey(alpha: 0.25))
    frequencies = s.frequencies
    estimators = request.channels.map { _ in SpectrogramEstimator(s, measure: request.measurePlans) }
  }

  private func emit(_ block: SampleBlock) -> [[Double]] {
    let frames = zip(request.channels, estimators!).map { channel, estimator in
      estimator.add(channel.values(in: block))
    }
    guard let count = frames.first?.count, count > 0 else { return [] }
    var columns = [[Double]](repeating: [], count: 2 + frames.count)
    for f in 0..<count {
      columns[0] += Array(repeating: (origin ?? 0) + frames[0][f].time, count: frequencies.count)
      columns[1] += frequencies
      for k in 0..<frames.count { columns[2 + k] += frames[k][f].power }
    }
    return columns
  }
}
