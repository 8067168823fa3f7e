import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the features of a learned detector are: the windows (in seconds, so that a model does not
/// depend on the sample rate), the signals and the frequency bands. A model directory keeps it
/// beside the classifier, so detection computes exactly the features training saw.
///
/// The trace is first put on a uniform grid of `rateHz` (linear interpolation), so that every
/// window holds the same number of samples whatever the recorder's rate and jitter. Gravity is
/// followed by two cascaded one-pole low-passes of time constant `gravityTauSeconds` (started at
/// the first reading); the user acceleration u is the reading minus gravity. The signals are
/// u's device axes `x`, `y`, `z`, its norm `norm`, its component along gravity `vert` and the
/// norm of the rest `horiz` (what makes a model independent of how the device is held), and with
/// a gyroscope `gx`, `gy`, `gz` and `gnorm` (rad/s).
///
/// Every `hopSeconds` a row of features is computed over each width of `widthsSeconds`, all
/// ending at the same sample (a longer window holds what has been read when the trace is younger
/// than it). The row's `start` is its end minus `spanSeconds` (the shortest width unless set):
/// the time the row describes, its label in training and its centre in decoding.
///
/// With `kind` `.exponential` a width is not a window but exponential averages whose weights'
/// mean age is half the width, as a window's centre is (a time constant of half the width),
/// updated sample by sample in constant memory and time (`ExponentialFeatures`). With
/// `attitude` as well, each width adds three features of how the device is held and moved
/// (`attitudeFeatures`); with `shape`, each signal of each width adds two of its waveform's shape
/// (`shapeFeatures`), after those; with `swing`, each width adds two features of the swing
/// rule's half-swings (`swingFeatures`), after those.
public struct FeatureSpec: Equatable, Sendable {
  public var rateHz = 50.0
  public var widthsSeconds = [1.0, 4.0]
  public var hopSeconds = 0.1
  public var gravityTauSeconds = 0.5
  /// Frequency bands (Hz) whose share of a signal's power is a feature.
  public var bands: [FrequencyBand] = [
    FrequencyBand(0.5, 2), FrequencyBand(2, 4), FrequencyBand(4, 8), FrequencyBand(8, 16),
  ]
  /// Whether the gyroscope's features are part of the row (missing values when a trace has none).
  public var gyroscope = false
  /// Windows recomputed every hop, or exponential averages kept as samples arrive.
  public var kind = Kind.windows
  /// Whether each exponential width adds `attitudeFeatures` (exponential features only).
  public var attitude = false
  /// Whether each exponential width adds every signal's `shapeFeatures` (exponential features only).
  public var shape = false
  /// Whether each exponential width adds the `swingFeatures` (exponential features only).
  public var swing = false
  /// The time a row describes, ending at its last sample (s): nil for the shortest width. A span
  /// longer than the shortest width puts the row's centre further back, so that the row also
  /// sees what followed it (a causal average's lookahead, what a window's centre has).
  public var spanSeconds: Double?

  public enum Kind: String, Equatable, Sendable {
    case windows
    case exponential
  }

  public init() {}

  public struct FrequencyBand: Equatable, Sendable {
    public var low: Double
    public var high: Double
    public init(_ low: Double, _ high: Double) {
      self.low = low
      self.high = high
    }
  }

  /// The user-acceleration signals, then the gyroscope's.
  public static let accelerationSignals = ["x", "y", "z", "norm", "vert", "horiz"]
  public static let gyroscopeSignals = ["gx", "gy", "gz", "gnorm"]
  /// The attitude features of an exponential width w, after its joint features: `vertical_share`,
  /// the energy of u along gravity over the energy of u (1 for motion along gravity, as gait's
  /// is, 0 across it; 0 while u's energy is at most 1e-12); `direction_spread`, 1 minus the
  /// length of the average of the reading's direction (the reading over its size: 0 while it
  /// points one way, toward 1 as it turns every way, as it does when user acceleration rivals
  /// gravity); `attitude_spread`, the same of gravity's direction (the attitude's wander).
  public static let attitudeFeatures = ["vertical_share", "direction_spread", "attitude_spread"]
  /// The shape features of a signal s at an exponential width w, after the width's joint and
  /// attitude features, signal by signal: `crest`, the envelope over the root of the energy
  /// (about 1.4 for a sine, more for spikes between quiet, as impacts and claps make; 0 while the
  /// energy is at most 1e-12); `asymmetry`, (maximum + minimum - 2 mean) / (maximum - minimum)
  /// within [-1, 1] (0 for a signal that swings as far each way from its mean, as a shaken
  /// device's does, toward 1 for spikes above it, as landings make; 0 while the range is at most
  /// 1e-12). Both are ratios of the signal's own averages, so they do not scale with its strength.
  public static let shapeFeatures = ["crest", "asymmetry"]
  /// The swing features of an exponential width w, after its shape features: the swing rule's
  /// half-swings (docs/GESTURES.md) with its default parameters, on the grid and from u as the
  /// features have it. u is projected on its principal axis over the last `swingAxisTauSeconds`
  /// (an exponentially weighted covariance, followed by power iteration) and cut into half-swings
  /// at its sign changes, a half-swing beginning when s passes `swingHysteresisG` on the other
  /// side; one counts when its peak |s| reaches `swingG` and it lasts between 1 / (2
  /// `swingMaxHz`) and 1 / (2 `swingMinHz`). `swing_rate` is the exponential average of the
  /// counted half-swings a second (a shake at f Hz has 2 f); `swing_balance` the smaller of the
  /// two directions' exponential averages of counted peaks over the larger (toward 1 for a shake,
  /// lower for gait's lopsided strides; 0 while the larger is at most 1e-12).
  public static let swingFeatures = ["swing_rate", "swing_balance"]
  /// The swing rule's default parameters, which the swing features use (a test holds them to the
  /// rule's).
  public static let swingAxisTauSeconds = 0.4
  public static let swingHysteresisG = 0.2
  public static let swingG = 0.7
  public static let swingMinHz = 1.0
  public static let swingMaxHz = 12.0
  /// Signals that swing about zero (zero crossings are counted on them only).
  public static let signedSignals: Set<String> = ["x", "y", "z", "vert", "gx", "gy", "gz"]

  public var signals: [String] { Self.accelerationSignals + (gyroscope ? Self.gyroscopeSignals : []) }

  /// The statistics of every signal, with ST's Machine Learning Core names where MLC has the
  /// feature (see docs/LEARNING.md for the definitions).
  static let statistics = [
    "mean", "variance", "minimum", "maximum", "peak_to_peak", "energy", "mean_crossing_rate", "peak_rate",
    "skewness",
  ]

  /// The widths as messages name them: "windows of 1, 4 s" or "exponential widths of 1, 4 s"
  /// (and "with attitude features", "with attitude and shape features", "with attitude, shape
  /// and swing features").
  public var widthsPhrase: String {
    let extras = (attitude ? ["attitude"] : []) + (shape ? ["shape"] : []) + (swing ? ["swing"] : [])
    let list =
      extras.count < 2 ? extras.joined() : extras.dropLast().joined(separator: ", ") + " and " + extras.last!
    return (kind == .windows ? "windows" : "exponential widths") + " of "
      + widthsSeconds.map(formatNumber).joined(separator: ", ") + " s"
      + (extras.isEmpty ? "" : " with \(list) features")
  }

  /// The window's name in feature names: `w1` for 1 s, `w0.5` for half a second (`e1`, `e0.5` for
  /// exponential averages).
  public func windowName(_ width: Double) -> String { (kind == .windows ? "w" : "e") + formatNumber(width) }

  /// The names of the row's features, in order (the column names `accelkit features` writes and
  /// the XGBoost model's `feature_names`): for each width, every signal's statistics (windows' or
  /// exponential averages') and bands, then the joint features, then the attitude and shape
  /// features.
  public var names: [String] {
    var names: [String] = []
    for width in widthsSeconds {
      let w = windowName(width)
      for signal in signals {
        if kind == .exponential {
          for statistic in Self.exponentialStatistics { names.append("\(w)_\(signal)_\(statistic)") }
        } else {
          for statistic in Self.statistics { names.append("\(w)_\(signal)_\(statistic)") }
          if Self.signedSignals.contains(signal) { names.append("\(w)_\(signal)_zero_crossing_rate") }
          names.append("\(w)_\(signal)_dominant_hz")
          names.append("\(w)_\(signal)_dominant_share")
        }
        for band in bands {
          names.append("\(w)_\(signal)_band_\(formatNumber(band.low))_\(formatNumber(band.high))_hz")
        }
      }
      for pair in ["xy", "xz", "yz"] { names.append("\(w)_correlation_\(pair)") }
      names.append("\(w)_linearity")
      names.append("\(w)_principal_g")
      if attitude { names += Self.attitudeFeatures.map { "\(w)_\($0)" } }
      if shape {
        for signal in signals { names += Self.shapeFeatures.map { "\(w)_\(signal)_\($0)" } }
      }
      if swing { names += Self.swingFeatures.map { "\(w)_\($0)" } }
    }
    return names
  }

  /// Checks the values; throws a usage error naming the field and the range.
  public func validate() throws {
    guard rateHz.isFinite, rateHz >= 4, rateHz <= 2000 else {
      throw AccelError.usage("the feature rate must be in [4, 2000] Hz, got \(formatNumber(rateHz)) Hz")
    }
    guard !widthsSeconds.isEmpty,
      widthsSeconds.allSatisfy({ $0.isFinite && $0 * rateHz >= 4 && $0 <= 600 })
    else {
      throw AccelError.usage(
        "window widths must hold at least 4 samples at \(formatNumber(rateHz)) Hz and be at most 600 s")
    }
    guard Set(widthsSeconds.map(windowName)).count == widthsSeconds.count else {
      throw AccelError.usage("window widths must differ")
    }
    guard hopSeconds.isFinite, hopSeconds * rateHz >= 1, hopSeconds <= 600 else {
      throw AccelError.usage(
        "the hop must be at least one sample at \(formatNumber(rateHz)) Hz and at most 600 s")
    }
    guard gravityTauSeconds.isFinite, gravityTauSeconds > 0, gravityTauSeconds <= 100 else {
      throw AccelError.usage("the gravity time constant must be in (0, 100] s")
    }
    for band in bands where !(band.low >= 0 && band.low < band.high && band.high <= rateHz / 2) {
      throw AccelError.usage(
        "a band must satisfy 0 <= low < high <= \(formatNumber(rateHz / 2)) Hz, got \(formatNumber(band.low))-\(formatNumber(band.high)) Hz"
      )
    }
    if let span = spanSeconds, !(span.isFinite && span * rateHz >= 1 && span <= widthsSeconds.max()!) {
      throw AccelError.usage(
        "the span must be at least one sample at \(formatNumber(rateHz)) Hz and at most the longest width, \(formatNumber(widthsSeconds.max()!)) s"
      )
    }
    if attitude && kind != .exponential {
      throw AccelError.usage("attitude features are exponential features (--exponential)")
    }
    if shape && kind != .exponential {
      throw AccelError.usage("shape features are exponential features (--exponential)")
    }
    if swing && kind != .exponential {
      throw AccelError.usage("swing features are exponential features (--exponential)")
    }
    if kind == .exponential {
      for band in bands where !(band.high < rateHz / 2) {
        throw AccelError.usage(
          "an exponential feature's band must lie below \(formatNumber(rateHz / 2)) Hz (its filter's Nyquist limit), got \(formatNumber(band.low))-\(formatNumber(band.high)) Hz"
        )
      }
    }
  }

  /// Samples per window of each width, and per hop, on the grid.
  public var windowSamples: [Int] { widthsSeconds.map { max(4, Int(($0 * rateHz).rounded())) } }
  public var hopSamples: Int { max(1, Int((hopSeconds * rateHz).rounded())) }
  /// The grid's interval (s).
  public var step: Double { 1 / rateHz }
  /// Each gravity low-pass's weight of a new sample on the grid.
  public var gravityAlpha: Double { 1 - exp(-step / gravityTauSeconds) }
  /// Samples of the span a row describes (the shortest window's unless `spanSeconds` is set).
  public var spanSamples: Int {
    spanSeconds.map { max(1, Int(($0 * rateHz).rounded())) } ?? windowSamples.min()!
  }
  /// Grid samples a segment needs before its first row: the shortest window and the span.
  public var firstRowSamples: Int { max(windowSamples.min()!, spanSamples) }
  /// Half the span (s): a row's centre is its end minus this.
  public var halfSpanSeconds: Double { Double(spanSamples - 1) / rateHz / 2 }

  /// A window of n samples is zero-padded to the next power of two (at least 2n, for a finer
  /// frequency grid).
  public static func transformSize(_ n: Int) -> Int {
    var size = 1
    while size < 2 * n { size <<= 1 }
    return size
  }

  /// Each band's bins (low <= f < high) in the transform of a window of n samples; nil for a
  /// band no bin falls in.
  public func bandBins(windowSamples n: Int) -> [ClosedRange<Int>?] {
    let size = Self.transformSize(n)
    let resolution = rateHz / Double(size)
    return bands.map { band in
      let bins = (1..<(size / 2 + 1)).filter {
        let f = Double($0) * resolution
        return f >= band.low && f < band.high
      }
      return bins.isEmpty ? nil : bins.first!...bins.last!
    }
  }

  // MARK: JSON

  /// The specification as a JSON object (in a model directory's `detector.json`).
  public var json: String {
    var text = "{\n"
    text += "    \"rate_hz\": \(formatNumber(rateHz)),\n"
    text += "    \"widths_s\": [\(widthsSeconds.map(formatNumber).joined(separator: ", "))],\n"
    text += "    \"hop_s\": \(formatNumber(hopSeconds)),\n"
    text += "    \"gravity_tau_s\": \(formatNumber(gravityTauSeconds)),\n"
    text +=
      "    \"bands_hz\": [\(bands.map { "[\(formatNumber($0.low)), \(formatNumber($0.high))]" }.joined(separator: ", "))],\n"
    text += "    \"gyroscope\": \(gyroscope),\n"
    if kind != .windows { text += "    \"kind\": \(jsonString(kind.rawValue)),\n" }
    if let span = spanSeconds { text += "    \"span_s\": \(formatNumber(span)),\n" }
    if attitude { text += "    \"attitude\": true,\n" }
    if shape { text += "    \"shape\": true,\n" }
    if swing { text += "    \"swing\": true,\n" }
    text += "    \"names\": [\(names.map(jsonString).joined(separator: ", "))]\n"
    text += "  }"
    return text
  }

  /// Reads the object `json` writes, at `path` in `document` (the whole document by default);
  /// checks that its names are the ones this accelkit computes. Errors name the line and column of
  /// the value at fault (of the object, for a member it lacks or a range it breaks).
  public init(json document: JSONDocument, at path: [String] = []) throws {
    let value = document[path] ?? .null
    func fail(_ text: String, _ key: String...) -> AccelError {
      AccelError.data(document.location(path + key), "the feature specification \(text)")
    }
    func number(_ key: String) throws -> Double {
      guard let v = value[key]?.number else { throw fail("has no number \"\(key)\"", key) }
      return v
    }
    rateHz = try number("rate_hz")
    hopSeconds = try number("hop_s")
    gravityTauSeconds = try number("gravity_tau_s")
    guard let widthItems = value["widths_s"]?.array, !widthItems.isEmpty else {
      throw fail("has no \"widths_s\"", "widths_s")
    }
    widthsSeconds = try widthItems.enumerated().map { k, item in
      guard let width = item.number else {
        throw fail("has a width that is not a number", "widths_s", String(k))
      }
      return width
    }
    guard let bandItems = value["bands_hz"]?.array else { throw fail("has no \"bands_hz\"", "bands_hz") }
    bands = try bandItems.enumerated().map { k, item in
      guard let pair = item.array?.compactMap(\.number), pair.count == 2 else {
        throw fail("has a bad band", "bands_hz", String(k))
      }
      return FrequencyBand(pair[0], pair[1])
    }
    guard let gyro = value["gyroscope"]?.bool else { throw fail("has no \"gyroscope\"", "gyroscope") }
    gyroscope = gyro
    if let name = value["kind"] {
      guard let text = name.string, let known = Kind(rawValue: text) else {
        throw fail("has an unknown \"kind\" (windows or exponential)", "kind")
      }
      kind = known
    }
    if let span = value["span_s"] {
      guard let seconds = span.number else { throw fail("has a \"span_s\" that is not a number", "span_s") }
      spanSeconds = seconds
    }
    func flag(_ key: String) throws -> Bool {
      guard let given = value[key] else { return false }
      guard let on = given.bool else {
        throw fail("has \(key.first == "a" ? "an" : "a") \"\(key)\" that is not true or false", key)
      }
      return on
    }
    attitude = try flag("attitude")
    shape = try flag("shape")
    swing = try flag("swing")
    do { try validate() } catch let error as AccelError { throw fail("is out of range: \(error.message)") }
    if let saved = value["names"]?.array?.compactMap(\.string), saved != names {
      throw fail(
        "names features this accelkit does not compute the same way (a model from another version?)", "names")
    }
  }
}

/// What a window is, for one label: the label's (1), none (0), or too little of an event to say
/// (-1, left out of training).
///
/// A window is of a label when an event of it covers at least half of the window's shortest
/// width or half of the event; it is of none when no event of it touches the window.
public func windowTarget(start: Double, end: Double, events: [(start: Double, end: Double)]) -> Int8 {
  var touched = false
  for e in events where e.end > start && e.start < end {
    touched = true
    let overlap = min(end, e.end) - max(start, e.start)
    if overlap >= 0.5 * min(end - start, e.end - e.start) { return 1 }
  }
  return touched ? -1 : 0
}
