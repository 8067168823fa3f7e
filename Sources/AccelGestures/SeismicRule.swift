import AccelCore

/// The seismic rule (square/seismic's ShakeDetector, the widely used Android detector), as
/// published:
///
/// A sample is accelerating when |a| > `threshold` (13 m/s^2 by default, here in g: 13 / 9.80665;
/// gravity included). A queue keeps the samples of the last `window_s` (0.5 s) but is never purged
/// below 4 samples. After each sample, the detector reports a shake when the queue spans at least
/// half the window and at least `(n >> 1) + (n >> 2)` of its n samples accelerate (the original's
/// integer rule; `strict = 1` requires a true 75%). The queue is then cleared. Sensitivity presets:
/// light 11, medium 13, hard 15 m/s^2 (`sensitivity` 1, 2, 3 overrides `threshold`).
public struct SeismicRule: ShakeRule {
  public static let name = "seismic"
  public static let summary = "most of the last 0.5 s above 13 m/s^2 (square/seismic)"
  public static let parameters: [RuleParameter] = [
    RuleParameter(name: "threshold", unit: "g", defaultValue: 13 / AccelerationUnit.standardGravity, meaning: "|a| above this is accelerating (13 m/s^2)", range: 0...100),
    RuleParameter(name: "sensitivity", unit: "preset", defaultValue: 0, meaning: "1 light (11 m/s^2), 2 medium (13), 3 hard (15); 0 uses threshold", range: 0...3),
    RuleParameter(name: "window_s", unit: "s", defaultValue: 0.5, meaning: "the queue keeps samples this recent", range: 1e-3...60),
    RuleParameter(name: "min_queue", unit: "samples", defaultValue: 4, meaning: "the queue is never purged below this", range: 1...100_000),
    RuleParameter(name: "strict", unit: "flag", defaultValue: 0, meaning: "1: require 75% accelerating instead of (n>>1)+(n>>2)", range: 0...1),
  ]

  let thresholdSquared: Double
  let window: Double
  let minQueue: Int
  let strict: Bool
  private var times: [Double] = []
  private var accelerating: [Bool] = []
  private var magnitudes: [Double] = []
  private var head = 0
  private var acceleratingCount = 0

  public init(rate: Double, parameters: [String: Double]) throws {
    let p = try ShakeRules.resolve(parameters, for: Self.self)
    var threshold = p["threshold"]!
    switch Int(p["sensitivity"]!) {
    case 1: threshold = 11 / AccelerationUnit.standardGravity
    case 2: threshold = 13 / AccelerationUnit.standardGravity
    case 3: threshold = 15 / AccelerationUnit.standardGravity
    default: break
    }
    thresholdSquared = threshold * threshold
    window = p["window_s"]!
    minQueue = Int(p["min_queue"]!)
    strict = p["strict"]! >= 1
  }

  var count: Int { times.count - head }

  public mutating func process(_ block: SampleBlock) -> [ShakeEvent] {
    var events: [ShakeEvent] = []
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
          ShakeEvent(
            start: times[head], end: t, reported: t, peakG: magnitudes[head...].max(), count: acceleratingCount))
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

  public mutating func finish() -> [ShakeEvent] { [] }
}
