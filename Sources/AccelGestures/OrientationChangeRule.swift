import AccelCore
import AccelFilters
import AccelOrientation

/// Orientation changes as events: the device turned to a new orientation (portrait, landscape,
/// face up, ...) and held it for `settle_s`. The same announcer as `accelkit orientation --events`
/// (gravity from the exponential low-pass, or from the fused attitude when the trace has a
/// gyroscope; hysteresis; with the low-pass nothing announced while |a| is far from 1 g). The first orientation taken is not a change. Each event is the instant of the announcement, labelled `orientation-change`, with the
/// new orientation in `axis`. A second kind of gesture, evaluated like the shakes.
public struct OrientationChangeRule: Rule {
  public static let name = "orientation-change"
  public static let export = ExportSupport.c
  public static let summary =
    "the device turned to a new orientation and held it (accelkit orientation --events)"
  public static let labels = ["orientation-change"]

  public struct Configuration: RuleConfiguration {
    /// The gravity low-pass cutoff in Hz (0.8 Hz: a time constant of 0.2 s).
    public var gravityCutoffHz = OrientationSettings.defaultCutoff
    /// How long a new orientation must hold, in seconds.
    public var settleSeconds = OrientationAnnouncer.defaultSettle
    /// How far past a boundary the current orientation is kept, in degrees.
    public var hysteresisDegrees = OrientationClassifier.defaultHysteresis
    /// Within this many degrees of flat the device is face up or face down.
    public var flatAngleDegrees = OrientationClassifier.defaultFlatAngle
    /// The orientation is unknown while | |a| - 1 g | exceeds this (g).
    public var accelerationToleranceG = OrientationClassifier.defaultAccelerationTolerance
    /// 1: gravity from the fused attitude (VQF) when the trace has a gyroscope; 0: the low-pass.
    public var gyroscope = 1

    public init() {}

    public static let parameters: [RuleParameter<Configuration>] = [
      RuleParameter(
        "gravity_cutoff", \.gravityCutoffHz, unit: "Hz", range: 1e-6...1e6, meaning: "gravity low-pass cutoff"
      ),
      RuleParameter(
        "settle_s", \.settleSeconds, unit: "s", range: 0...3600,
        meaning: "a new orientation must hold this long"),
      RuleParameter(
        "hysteresis", \.hysteresisDegrees, unit: "degrees", range: 0...44.999,
        meaning: "how far past a boundary the current orientation is kept"),
      RuleParameter(
        "flat_angle", \.flatAngleDegrees, unit: "degrees", range: 0...89.999,
        meaning: "within this of flat the device is face up or face down"),
      RuleParameter(
        "accel_tolerance", \.accelerationToleranceG, unit: "g", range: 1e-6...100,
        meaning: "no orientation while | |a| - 1 g | exceeds this (low-pass only)"),
      RuleParameter(
        "gyro", \.gyroscope, unit: "flag", range: 0...1,
        meaning: "1: gravity from the fused attitude when there is a gyroscope"),
    ]
  }

  private var stage: OrientationStage
  /// The gravity low-pass factor per sample at the rate (what an export bakes in).
  package let alpha: Double
  /// The nominal sample rate (what an export's fused gravity is made for).
  package let rate: Double
  /// The stage's settings: gravity, classifier, settle time.
  package var settings: OrientationSettings { stage.settings }

  public init(rate: Double, configuration c: Configuration = Configuration()) throws {
    var settings = OrientationSettings()
    settings.gravity = .lowpass(.cutoff(c.gravityCutoffHz))
    settings.settle = c.settleSeconds
    settings.gyroscope = c.gyroscope == 1 ? .auto : .off
    settings.classifier = OrientationClassifier(
      flatAngle: c.flatAngleDegrees, accelerationTolerance: c.accelerationToleranceG,
      hysteresis: c.hysteresisDegrees)
    stage = try OrientationStage(settings, rate: rate)
    alpha = try ExponentialSetting.cutoff(c.gravityCutoffHz).alpha(rate: rate)
    self.rate = rate
  }

  public mutating func process(_ block: SampleBlock) -> [DetectorEvent] {
    // The first orientation taken (from `unknown`) is where the trace starts, not a change.
    stage.events(block).filter { $0.from != .unknown }.map { e in
      DetectorEvent(start: e.t, end: e.t, reported: e.t, axis: e.to.rawValue, label: Self.labels[0])
    }
  }

  public mutating func finish() -> [DetectorEvent] { [] }
}
