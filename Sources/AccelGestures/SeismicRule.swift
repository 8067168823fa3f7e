import AccelCore

/// The seismic rule (square/seismic's Detector, the widely used Android detector), as
/// published:
///
/// A sample is accelerating when |a| > `threshold` (13 m/s^2 by default, here in g: 13 / 9.80665;
/// gravity included). A queue keeps the samples of the last `window_s` (0.5 s) but is never purged
/// below 4 samples. After each sample, the detector reports a shake when the queue spans at least
/// half the window and at least `(n >> 1) + (n >> 2)` of its n samples accelerate (the original's
/// integer rule; `strict = 1` requires a true 75%). The queue is then cleared. Sensitivity presets:
/// light 11, medium 13, hard 15 m/s^2 (`sensitivity` 1, 2, 3 overrides `threshold`).
public struct SeismicRule: Rule {
  public static let name = "seismic"
  public static let export = ExportSupport.c
  public static let summary = "most of the last 0.5 s above 13 m/s^2 (square/seismic)"
  /// The rule's settings; the defaults are the published detector's.
  public struct Configuration: RuleConfiguration {
    /// |a| above this (g) is accelerating: 13 m/s^2.
    public var thresholdG = 13 / AccelerationUnit.standardGravity
    /// 1 light (11 m/s^2), 2 medium (13), 3 hard (15); 0 uses `thresholdG`.
    public var sensitivity = 0
    /// The queue keeps samples this recent (s).
    public var windowSeconds = 0.5
    /// The queue is never purged below this many samples.
    public var minQueue = 4
    /// 1: require 75% accelerating instead of (n>>1)+(n>>2).
    public var strict = 0

    public init() {}

    public static let parameters: [RuleParameter<Configuration>] = [
      RuleParameter(
        "threshold", \.thresholdG, unit: "g", range: 0...100,
        meaning: "|a| above this is accelerating (13 m/s^2)"),
      RuleParameter(
        "sensitivity", \.sensitivity, unit: "preset", range: 0...3,
        meaning: "1 light (11 m/s^2), 2 medium (13), 3 hard (15); 0 uses threshold"),
      RuleParameter(
        "window_s", \.windowSeconds, unit: "s", range: 1e-3...60,
        meaning: "the queue keeps samples this recent"),
      RuleParameter(
        "min_queue", \.minQueue, unit: "samples", range: 1...100_000,
        meaning: "the queue is never purged below this"),
      RuleParameter(
        "strict", \.strict, unit: "flag", range: 0...1,
        meaning: "1: require 75% accelerating instead of (n>>1)+(n>>2)"),
    ]
  }

  package let thresholdSquared: Double
  package let window: Double
  package let minQueue: Int
  package let strict: Bool
  /// Room for the queue at `rate` with intervals down to half the nominal one (what a
  /// fixed-size copy of the queue, the exported C's, needs).
  package let queueCapacity: Int
  private var times: [Double] = []
  private var accelerating: [Bool] = []
  private var magnitudes: [Double] = []
  private var head = 0
  private var acceleratingCount = 0

  public init(rate: Double, configuration c: Configuration = Configuration()) throws {
    var threshold = c.thresholdG
    switch c.sensitivity {
    case 1: threshold = 11 / AccelerationUnit.standardGravity
    case 2: threshold = 13 / AccelerationUnit.standardGravity
    case 3: threshold = 15 / AccelerationUnit.standardGravity
    default: break
    }
    thresholdSquared = threshold * threshold
    window = c.windowSeconds
    minQueue = c.minQueue
    strict = c.strict == 1
    queueCapacity = max(c.minQueue, Int(min(2 * c.windowSeconds * rate, 1e7).rounded(.up)) + 2)
  }

  var count: Int { times.count - head }

  public mutating func process(_ block: SampleBlock) -> [DetectorEvent] {
    var events: [DetectorEvent] = []
    for i in 0..<block.count {
      let t = block.t[i]
      let m2 = block.x[i] * block.x[i] + block.y[i] * block.y[i] + block.z[i] * block.z[i]
      let isAccelerating = m2 > thresholdSquared
      // Purge samples older than the window, but never below the minimum queue size.
      let cutoff = t - window
      while count >= minQueue && cutoff - times[head] > 0 {
        if accelerating[head] { acceleratingCount -= 1 }
        head += 1
      }
      times.append(t)
      accelerating.append(isAccelerating)
      magnitudes.append(m2.squareRoot())
      if isAccelerating { acceleratingCount += 1 }
      let n = count
      let enough = strict ? acceleratingCount * 4 >= n * 3 : acceleratingCount >= (n >> 1) + (n >> 2)
      if times[times.count - 1] - times[head] >= window / 2 && enough {
        events.append(
          DetectorEvent(
            start: times[head], end: t, reported: t, peakG: magnitudes[head...].max(),
            count: acceleratingCount))
        times.removeAll(keepingCapacity: true)
        accelerating.removeAll(keepingCapacity: true)
        magnitudes.removeAll(keepingCapacity: true)
        head = 0
        acceleratingCount = 0
      } else if head > 1024 && head * 2 > times.count {
        times.removeFirst(head)
        accelerating.removeFirst(head)
        magnitudes.removeFirst(head)
        head = 0
      }
    }
    return events
  }

  public mutating func finish() -> [DetectorEvent] { [] }
}
