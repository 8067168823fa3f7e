import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The angular-change rule, modelled on UIKit's motion events (motionBegan / motionEnded /
/// motionCancelled).
///
/// For each pair of successive raw readings, the angle between the two vectors and the angular
/// velocity w = angle / interval (rad/s). The activity is the mean of |w_n - w_(n-1)| over the last
/// `pairs` pairs (rad/s: a rate-independent unit). A shake begins when the activity reaches `begin`
/// and ends when it falls below `end` (lower); one ending within `min_s` is dropped (a tap or a
/// knock changes direction sharply but briefly); one lasting longer than `max_s` is cancelled (status
/// `cancelled`, reported at the first sample past start + max_s, ending at the sample before it);
/// no shake begins within `refractory_s` of the previous
/// start. The event's peak_g is the largest |a| during it.
public struct AngularChangeRule: Rule {
  public static let name = "angular-change"
  public static let export = ExportSupport.c
  public static let summary = "rapid changes of the reading's direction (UIKit motion events)"
  /// The rule's settings.
  public struct Configuration: RuleConfiguration {
    /// The activity is averaged over this many successive pairs.
    public var pairs = 8
    /// The activity is averaged over this long (s) instead, when > 0: the same at every rate.
    public var windowSeconds = 0.0
    /// Activity (rad/s) at or above this begins a shake.
    public var beginRadPerS = 8.0
    /// Activity (rad/s) below this ends it; at most `beginRadPerS`.
    public var endRadPerS = 1.0
    /// A shake ending sooner (s) is dropped (a tap, a knock).
    public var minSeconds = 0.25
    /// A shake lasting longer (s) is cancelled.
    public var maxSeconds = 10.0
    /// No new shake begins this soon (s) after the previous start.
    public var refractorySeconds = 1.0

    public init() {}

    public static let parameters: [RuleParameter<Configuration>] = [
      RuleParameter(
        "pairs", \.pairs, unit: "pairs", range: 1...1000,
        meaning: "the activity is averaged over this many successive pairs"),
      RuleParameter(
        "window_s", \.windowSeconds, unit: "s", range: 0...60,
        meaning: "average over this long instead of `pairs` (round(window_s x rate) pairs); 0 uses pairs"),
      RuleParameter(
        "begin", \.beginRadPerS, unit: "rad/s", range: 0...1e6,
        meaning: "activity at or above this begins a shake"),
      RuleParameter(
        "end", \.endRadPerS, unit: "rad/s", range: 0...1e6, meaning: "activity below this ends it"),
      RuleParameter(
        "min_s", \.minSeconds, unit: "s", range: 0...3600,
        meaning: "a shake ending sooner is dropped (a tap, a knock)"),
      RuleParameter(
        "max_s", \.maxSeconds, unit: "s", range: 1e-3...3600, meaning: "a shake lasting longer is cancelled"),
      RuleParameter(
        "refractory_s", \.refractorySeconds, unit: "s", range: 0...3600,
        meaning: "no new shake begins this soon after the previous start"),
    ]
  }

  package let pairs: Int
  package let begin: Double
  package let end: Double
  package let minDuration: Double
  package let maxDuration: Double
  package let refractory: Double
  /// Whether `pairs` came from a window in seconds (then it depends on the rate).
  package let usesRate: Bool
  private var previous: (t: Double, x: Double, y: Double, z: Double)? = nil
  private var previousVelocity: Double? = nil
  private var changes: [Double]
  private var changeIndex = 0
  private var changeCount = 0
  private var changeSum = 0.0
  private var active: (start: Double, peak: Double)? = nil
  private var lastStart: Double? = nil

  public init(rate: Double, configuration c: Configuration = Configuration()) throws {
    usesRate = c.windowSeconds > 0
    pairs = c.windowSeconds > 0 ? max(1, min(1_000_000, Int((c.windowSeconds * rate).rounded()))) : c.pairs
    begin = c.beginRadPerS
    end = c.endRadPerS
    guard end <= begin else {
      throw AccelError.usage(
        "angular-change.end (\(formatNumber(end))) must not exceed angular-change.begin (\(formatNumber(begin)))"
      )
    }
    minDuration = c.minSeconds
    maxDuration = c.maxSeconds
    refractory = c.refractorySeconds
    changes = Array(repeating: 0, count: pairs)
  }

  public mutating func process(_ block: SampleBlock) -> [DetectorEvent] {
    var events: [DetectorEvent] = []
    guard block.count > 0 else { return events }
    // The per-sample work on locals and raw buffers; the state machine runs only once the
    // window is full, and is rare work.
    var hasPrevious = previous != nil
    var (pt, px, py, pz) = previous ?? (0, 0, 0, 0)
    var previousMagnitude = (px * px + py * py + pz * pz).squareRoot()
    var hasVelocity = previousVelocity != nil
    var pv = previousVelocity ?? 0
    var sum = changeSum
    var index = changeIndex
    var filled = changeCount
    let pairs = self.pairs
    var ring = changes
    changes = []
    ring.withUnsafeMutableBufferPointer { ring in
      block.t.withUnsafeBufferPointer { bt in
        block.x.withUnsafeBufferPointer { bx in
          block.y.withUnsafeBufferPointer { by in
            block.z.withUnsafeBufferPointer { bz in
              for i in 0..<bt.count {
                let (t, x, y, z) = (bt[i], bx[i], by[i], bz[i])
                let magnitude = (x * x + y * y + z * z).squareRoot()
                if hasPrevious && t > pt {
                  var angle = 0.0
                  if previousMagnitude > 0 && magnitude > 0 {
                    let c = (px * x + py * y + pz * z) / (previousMagnitude * magnitude)
                    angle = acos(max(-1, min(1, c)))
                  }
                  let velocity = angle / (t - pt)
                  if hasVelocity {
                    // Running mean of |change| over the last `pairs` pairs.
                    let change = abs(velocity - pv)
                    sum += change - ring[index]
                    ring[index] = change
                    index += 1
                    if index == pairs { index = 0 }
                    if filled < pairs { filled += 1 }
                    if filled == pairs {
                      advance(
                        activity: max(0, sum) / Double(pairs), magnitude: magnitude, t: t, previousT: pt,
                        events: &events)
                    }
                  }
                  pv = velocity
                  hasVelocity = true
                }
                (pt, px, py, pz) = (t, x, y, z)
                previousMagnitude = magnitude
                hasPrevious = true
              }
            }
          }
        }
      }
    }
    changes = ring
    previous = (pt, px, py, pz)
    previousVelocity = hasVelocity ? pv : nil
    changeSum = sum
    changeIndex = index
    changeCount = filled
    return events
  }

  /// The state machine, fed the activity at time `t` (`previousT`: the sample before it). A
  /// cancelled shake ends at its last sample within the maximum duration, so that every event
  /// time is a sample's time as read.
  private mutating func advance(
    activity: Double, magnitude: Double, t: Double, previousT: Double, events: inout [DetectorEvent]
  ) {
    if var a = active {
      a.peak = max(a.peak, magnitude)
      active = a
      if t - a.start > maxDuration {
        events.append(
          DetectorEvent(
            start: a.start, end: previousT, reported: t, peakG: a.peak, status: .cancelled))
        active = nil
      } else if activity < end {
        if t - a.start >= minDuration {
          events.append(DetectorEvent(start: a.start, end: t, reported: t, peakG: a.peak))
        }
        active = nil
      }
    } else if activity >= begin && (lastStart == nil || t - lastStart! >= refractory) {
      active = (t, magnitude)
      lastStart = t
    }
  }

  public mutating func finish() -> [DetectorEvent] {
    // A shake still going at the end of the trace is neither ended nor cancelled by the device;
    // it is reported as ended at the last sample.
    guard let a = active, let last = previous else { return [] }
    active = nil
    guard last.t - a.start >= minDuration else { return [] }
    return [DetectorEvent(start: a.start, end: last.t, reported: last.t, peakG: a.peak)]
  }
}
