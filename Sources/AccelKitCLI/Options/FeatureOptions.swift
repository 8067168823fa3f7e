import AccelLearning
import ArgumentParser

/// The window features of `features` and `train`: widths, hop, grid and the gyroscope.
struct FeatureOptions: ParsableArguments {
  @Option(
    name: .customLong("window"),
    help: ArgumentHelp("A window width (repeatable; default 1 and 4).", valueName: "seconds"))
  var windows: [Finite] = []

  @Option(help: ArgumentHelp("Seconds between windows.", valueName: "seconds"))
  var hop: Finite = 0.1

  @Option(help: ArgumentHelp("The grid the features are computed on.", valueName: "hz"))
  var featureRate: Finite = 50

  @Option(
    name: .customLong("band"),
    help: ArgumentHelp(
      "A frequency band whose share of the power is a feature (repeatable; default 0.5-2, 2-4, 4-8 and 8-16; each below half --feature-rate).",
      valueName: "low-high"))
  var bands: [String] = []

  @Flag(help: "Add the gyroscope's features (missing for traces without one).")
  var gyro = false

  @Flag(
    help: ArgumentHelp(
      "Exponential averages in place of windows: each --window is a time constant of half its width, kept sample by sample in constant memory and time (the bands by band-pass filters, no spectrum)."
    ))
  var exponential = false

  @Flag(
    help: ArgumentHelp(
      "With --exponential: add each width's attitude features (user acceleration's share along gravity, the spread of the reading's direction and of gravity's; docs/LEARNING.md)."
    ))
  var attitude = false

  @Flag(
    help: ArgumentHelp(
      "With --exponential: add every signal's shape features at each width (its crest factor and its asymmetry about the mean; docs/LEARNING.md)."
    ))
  var shape = false

  @Flag(
    help: ArgumentHelp(
      "With --exponential: add the swing rule's half-swings at each width (counted half-swings a second, and the balance of their peaks each way; docs/LEARNING.md)."
    ))
  var swing = false

  @Option(
    help: ArgumentHelp(
      "The time a row describes, ending at its last sample: its label in training, its centre half of it back (default: the shortest width; at most the longest). Longer than the shortest width, the row also sees what followed its centre.",
      valueName: "seconds"))
  var span: Finite?

  /// Whether any option differs from the defaults.
  var isGiven: Bool {
    !windows.isEmpty || hop != 0.1 || featureRate != 50 || !bands.isEmpty || gyro || exponential
      || span != nil || attitude || shape || swing
  }

  /// The specification the options describe, checked.
  func spec() throws -> FeatureSpec {
    var spec = FeatureSpec()
    if !windows.isEmpty { spec.widthsSeconds = windows.map(\.value) }
    spec.hopSeconds = hop.value
    spec.rateHz = featureRate.value
    spec.gyroscope = gyro
    if exponential { spec.kind = .exponential }
    spec.attitude = attitude
    spec.shape = shape
    spec.swing = swing
    spec.spanSeconds = span?.value
    if !bands.isEmpty { spec.bands = try bands.map(Self.band) }
    try spec.validate()
    return spec
  }

  /// A band given as LOW-HIGH in Hz.
  static func band(_ text: String) throws -> FeatureSpec.FrequencyBand {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]), low.isFinite,
      high.isFinite
    else { throw ValidationError("--band takes LOW-HIGH in Hz, e.g. 4-8, got '\(text)'") }
    return FeatureSpec.FrequencyBand(low, high)
  }
}
