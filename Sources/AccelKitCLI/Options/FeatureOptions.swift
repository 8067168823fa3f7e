import AccelLearning
import ArgumentParser

/// The window features of `features` and `train`: widths, hop, grid and the gyroscope.
struct FeatureOptions: ParsableArguments {
  @Option(
    name: .customLong("window"),
    help: ArgumentHelp("A window width (repeatable; default 1 and 4).", valueName: "seconds"))
  var windows: [Double] = []

  @Option(help: ArgumentHelp("Seconds between windows.", valueName: "seconds"))
  var hop: Double = 0.1

  @Option(help: ArgumentHelp("The grid the features are computed on.", valueName: "hz"))
  var featureRate: Double = 50

  @Flag(help: "Add the gyroscope's features (missing for traces without one).")
  var gyro = false

  /// Whether any option differs from the defaults.
  var isGiven: Bool { !windows.isEmpty || hop != 0.1 || featureRate != 50 || gyro }

  /// The specification the options describe, checked.
  func spec() throws -> FeatureSpec {
    var spec = FeatureSpec()
    if !windows.isEmpty { spec.widthsSeconds = windows }
    spec.hopSeconds = hop
    spec.rateHz = featureRate
    spec.gyroscope = gyro
    try spec.validate()
    return spec
  }
}
