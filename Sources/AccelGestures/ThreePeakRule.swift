import AccelCore

/// The three-peak rule (iPhone in Action): shakes are several alternating swings of the user
/// acceleration on the dominant of the x and y axes.
///
/// Gravity is removed with the exponential low-pass (`alpha` per sample, or `gravity_cutoff` in Hz
/// when given, a = dt / (RC + dt)), giving u = a - gravity. Per sample the dominant axis is x or
/// y, whichever has the larger |u|. A movement is a swing of |u| on that axis to at least `move_g`:
/// it starts when |u| reaches `move_g` and lasts while |u| stays there with the same sign. It
/// registers when it goes the opposite way to the previous registered movement on that axis
/// (their product is negative; the first on an axis registers too). While registered movements
/// keep coming with no pause longer than `gap_s`, the count accrues; when the pause is exceeded, a
/// shake is recorded if count >= `min_moves` and the largest registered swing reached `peak_g`;
/// then everything resets. The event spans the first registered movement's start to the last
/// registered movement's end; it is reported when the pause runs out.
public struct ThreePeakRule: Rule {
  public static let name = "three-peak"
  public static let export = ExportSupport.c
  public static let summary = "alternating swings of user acceleration on x or y (iPhone in Action)"
  /// The rule's settings; the defaults are the book's.
  public struct Configuration: RuleConfiguration {
    /// Gravity low-pass factor per sample, in (0, 1] (ignored when `gravityCutoffHz` > 0).
    public var alpha = 0.1
    /// Gravity low-pass cutoff in Hz; 0 uses `alpha`.
    public var gravityCutoffHz = 0.0
    /// A swing of user acceleration at least this large (g) is a movement.
    public var moveG = 0.75
    /// The largest registered movement must reach this (g).
    public var peakG = 1.25
    /// A longer pause between registered movements (s) ends the group.
    public var gapSeconds = 0.25
    /// Registered movements a shake needs.
    public var minMoves = 3
    /// Where the pause is timed from: 0 the last registered movement (the book's code), 1 the last
    /// sample of any movement (its text: "as long as movement continues without a break").
    public var pauseFromMovement = 0

    public init() {}

    public static let parameters: [RuleParameter<Configuration>] = [
      RuleParameter(
        "alpha", \.alpha, unit: "per sample", range: 1e-6...1,
        meaning: "gravity low-pass factor (ignored when gravity_cutoff > 0)"),
      RuleParameter(
        "gravity_cutoff", \.gravityCutoffHz, unit: "Hz", range: 0...1e6,
        meaning: "gravity low-pass cutoff; 0 uses alpha"),
      RuleParameter(
        "move_g", \.moveG, unit: "g", range: 1e-6...100,
        meaning: "a swing of user acceleration at least this large is a movement"),
      RuleParameter(
        "peak_g", \.peakG, unit: "g", range: 0...100,
        meaning: "the largest registered movement must reach this"),
      RuleParameter(
        "gap_s", \.gapSeconds, unit: "s", range: 1e-6...60,
        meaning: "a longer pause between registered movements ends the group"),
      RuleParameter(
        "min_moves", \.minMoves, unit: "movements", range: 1...1000,
        meaning: "registered movements a shake needs"),
      RuleParameter(
        "pause_from_movement", \.pauseFromMovement, unit: "flag", range: 0...1,
        meaning: "1: time the pause from the last sample of any movement, not the last registered one"),
    ]
  }

  package let alpha: Double
  package let moveG: Double
  package let peakG: Double
  package let gap: Double
  package let minMoves: Int
  package let pauseFromMovement: Bool
  /// Whether `alpha` came from a cutoff in Hz (then it depends on the rate).
  package let usesRate: Bool

  // Gravity estimate.
  private var gravity: (Double, Double)? = nil
  // The swing in progress: axis (0 x, 1 y), sign, start, peak.
  private var swing: (axis: Int, sign: Double, start: Double, peak: Double, registered: Bool)? = nil
  // The group of registered movements.
  private var lastDirection: [Double] = [0, 0]
  private var count = 0
  private var perAxis = [0, 0]
  private var groupStart = 0.0
  private var groupEnd = 0.0
  private var lastRegistered: Double? = nil
  /// The last sample of any movement while a group is open.
  private var lastMoving: Double? = nil
  private var largest = 0.0

  public init(rate: Double, configuration c: Configuration = Configuration()) throws {
    let cutoff = c.gravityCutoffHz
    usesRate = cutoff > 0
    if cutoff > 0 {
      guard cutoff < rate / 2 else {
        throw AccelError.usage(
          "three-peak.gravity_cutoff must be in (0, \(formatHz(rate / 2))) Hz for a \(formatHz(rate)) Hz trace, got \(formatHz(cutoff)) Hz"
        )
      }
      let dt = 1 / rate
      alpha = dt / (1 / (2 * Double.pi * cutoff) + dt)
    } else {
      alpha = c.alpha
    }
    moveG = c.moveG
    peakG = c.peakG
    gap = c.gapSeconds
    minMoves = c.minMoves
    pauseFromMovement = c.pauseFromMovement == 1
  }

  public mutating func process(_ block: SampleBlock) -> [DetectorEvent] {
    var events: [DetectorEvent] = []
    for i in 0..<block.count {
      let t = block.t[i]
      if let last = pauseFromMovement ? lastMoving : lastRegistered, t - last > gap {
        if let e = closeGroup(at: t) { events.append(e) }
      }
      // Gravity on x and y (z does not take part), steady-started on the first sample.
      var g = gravity ?? (block.x[i], block.y[i])
      g.0 = block.x[i] * alpha + g.0 * (1 - alpha)
      g.1 = block.y[i] * alpha + g.1 * (1 - alpha)
      gravity = g
      let u = (block.x[i] - g.0, block.y[i] - g.1)
      let axis = abs(u.0) >= abs(u.1) ? 0 : 1
      let value = axis == 0 ? u.0 : u.1
      let magnitude = abs(value)
      if magnitude >= moveG && lastRegistered != nil { lastMoving = t }
      if var s = swing {
        if s.axis == axis && magnitude >= moveG && (value > 0) == (s.sign > 0) {
          s.peak = max(s.peak, magnitude)
          swing = s
          if s.registered {
            largest = max(largest, magnitude)
            groupEnd = t
          }
          continue
        }
        swing = nil  // the swing is over
      }
      guard magnitude >= moveG else { continue }
      let sign: Double = value > 0 ? 1 : -1
      let registers = lastDirection[axis] == 0 || lastDirection[axis] * sign < 0
      swing = (axis, sign, t, magnitude, registers)
      if registers {
        if lastRegistered == nil { groupStart = t }
        lastDirection[axis] = sign
        count += 1
        perAxis[axis] += 1
        lastRegistered = t
        lastMoving = t
        largest = max(largest, magnitude)
        groupEnd = t
      }
    }
    return events
  }

  public mutating func finish() -> [DetectorEvent] {
    guard let last = pauseFromMovement ? lastMoving : lastRegistered, let e = closeGroup(at: last + gap)
    else { return [] }
    return [e]
  }

  private mutating func closeGroup(at t: Double) -> DetectorEvent? {
    defer {
      lastDirection = [0, 0]
      count = 0
      perAxis = [0, 0]
      lastRegistered = nil
      lastMoving = nil
      largest = 0
    }
    guard count >= minMoves && largest >= peakG else { return nil }
    return DetectorEvent(
      start: groupStart, end: groupEnd, reported: t, peakG: largest, count: count,
      axis: perAxis[0] >= perAxis[1] ? "x" : "y")
  }
}
