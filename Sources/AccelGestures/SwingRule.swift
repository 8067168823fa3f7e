import AccelCore
import AccelOrientation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The swing rule: accelkit's own shake detector, designed for real recordings.
///
/// A shake is the hand driving the device back and forth: user acceleration alternating in sign
/// along one axis, a few times a second, about as strongly and for about as long each way. Gait,
/// the commonest motion that also repeats a few times a second, is lopsided: a short, sharp heel
/// strike or landing, then a long, shallow phase (the body can fall no faster than gravity). The
/// rule looks for the first and refuses the second:
///
/// 1. Gravity is followed by two cascaded one-pole low-passes with time constant `gravity_tau_s`
///    (each step uses the sample's own interval, so the rate and jitter do not matter); the user
///    acceleration u is the reading minus gravity.
/// 2. The swing axis is the principal axis of u over the last `axis_tau_s` (an exponentially
///    weighted covariance, its leading eigenvector followed by power iteration), whatever the
///    device's attitude and the shake's direction; s = u projected on it.
/// 3. s is cut into half-swings at its zero crossings, with a hysteresis of `hysteresis_g`. A
///    half-swing counts when its peak |s| reaches `swing_g` and it lasts between 1 / (2 `max_hz`)
///    and 1 / (2 `min_hz`).
/// 4. A shake is a run of at least `min_swings` counted half-swings of alternating sign whose two
///    directions are balanced: the mean peak and the mean duration of the weaker direction are at
///    least `balance` times those of the stronger. It is reported when the run first qualifies and
///    ends with the run (a half-swing that does not count, or none for 1 / (2 `min_hz`)).
///
/// Every parameter is in seconds, hertz or g, so the rule behaves the same at any sample rate; a
/// reading clipped by the sensor's range flattens the peaks but not the crossings, so clipping
/// changes the durations little. `peak_g` is the mean half-swing peak (the strength), `count`
/// the half-swings, `axis` the device axis nearest to the swing axis.
public struct SwingRule: Rule {
  public static let name = "swing"
  public static let export = ExportSupport.c
  public static let summary = "balanced back-and-forth swings along the principal axis (accelkit's own)"

  public struct Configuration: RuleConfiguration {
    public var gravityTauSeconds = 0.3
    public var axisTauSeconds = 0.4
    public var hysteresisG = 0.2
    public var swingG = 0.7
    public var minHz = 1.0
    public var maxHz = 12.0
    public var minSwings = 5
    public var balance = 0.7
    public var pauseSeconds = 0.5
    /// 1: with a gyroscope, gravity from the fused attitude (VQF) instead of the low-passes. Off
    /// by default: on the training set it added a false alarm and found nothing more.
    public var gyroscope = 0

    public init() {}

    public static let parameters: [RuleParameter<Configuration>] = [
      RuleParameter(
        "gravity_tau_s", \.gravityTauSeconds, unit: "s", range: 0.01...10,
        meaning: "time constant of each of the two low-passes that follow gravity"),
      RuleParameter(
        "axis_tau_s", \.axisTauSeconds, unit: "s", range: 0.01...10,
        meaning: "the swing axis is the principal axis of user acceleration over about this long"),
      RuleParameter(
        "hysteresis_g", \.hysteresisG, unit: "g", range: 0...5,
        meaning: "a swing changes direction once past this"),
      RuleParameter(
        "swing_g", \.swingG, unit: "g", range: 0.01...50, meaning: "a half-swing counts when it reaches this"),
      RuleParameter(
        "min_hz", \.minHz, unit: "Hz", range: 0.05...100,
        meaning: "slowest shake: half-swings last at most 1/(2 min_hz)"),
      RuleParameter(
        "max_hz", \.maxHz, unit: "Hz", range: 0.05...1000,
        meaning: "fastest shake: half-swings last at least 1/(2 max_hz)"),
      RuleParameter(
        "min_swings", \.minSwings, unit: "count", range: 2...1000,
        meaning: "counted half-swings in a row that make a shake"),
      RuleParameter(
        "balance", \.balance, unit: "ratio", range: 0...1,
        meaning: "the weaker direction's mean peak and duration, as a fraction of the stronger's"),
      RuleParameter(
        "pause_s", \.pauseSeconds, unit: "s", range: 0...10,
        meaning: "a reported shake goes on through a pause in its swings this long"),
      RuleParameter(
        "gyro", \.gyroscope, unit: "flag", range: 0...1,
        meaning: "1: with a gyroscope, gravity from the fused attitude instead of the low-passes"),
    ]
  }

  package let c: Configuration
  package let rate: Double
  /// The fused attitude, made at the first block with a gyroscope when `gyro` is 1.
  private var fused: AttitudeStage?
  /// Its settings: VQF without the magnetometer (gravity needs no heading).
  package static let fusion: AttitudeSettings = {
    var settings = AttitudeSettings()
    settings.method = .vqf
    settings.magnetometer = .off
    return settings
  }()
  package let shortest: Double
  package let longest: Double
  /// How long a reported shake may pause and go on as the same shake.
  package let bridge: Double
  // Gravity: two cascaded one-pole low-passes.
  private var g1 = (0.0, 0.0, 0.0), g2 = (0.0, 0.0, 0.0)
  private var previousTime: Double?
  // The exponentially weighted covariance of u and its leading eigenvector.
  private var principal = PrincipalAxis()
  // Half-swing tracking.
  private var sign = 0  // the current half-swing's direction (0 before the first)
  private var halfStart = 0.0
  private var halfPeak = 0.0
  private var lastSign = 0.0  // the sign of s at the previous sample
  private var lastZero = 0.0  // when s last changed sign
  private var lastValue = 0.0  // s at the previous sample
  private var beforeLast = 0.0  // and the one before
  // Clipping: the largest |component| read so far, and how often the current half-swing sat on it.
  private var rail = 0.0
  private var halfAtRail = 0
  // The run of counted half-swings.
  private var run = Run()
  private var axisVotes = [0, 0, 0]

  struct Run {
    var start = 0.0
    var end = 0.0
    var count = 0
    var lastSign = 0
    var peaks = [0.0, 0.0]  // sums per direction (- then +)
    var durations = [0.0, 0.0]
    var counts = [0, 0]
    /// The sum of every half-swing's peak, the first included.
    var strength = 0.0
    var reported: Double?
    /// Half-swings during which the sensor was at its rail, per direction (- then +).
    var clipped = [0, 0]
  }

  public init(rate: Double, configuration: Configuration = Configuration()) throws {
    guard configuration.minHz < configuration.maxHz else {
      throw AccelError.usage(
        "swing.min_hz (\(formatNumber(configuration.minHz)) Hz) must be below swing.max_hz (\(formatNumber(configuration.maxHz)) Hz)"
      )
    }
    guard configuration.hysteresisG < configuration.swingG else {
      throw AccelError.usage(
        "swing.hysteresis_g (\(formatNumber(configuration.hysteresisG)) g) must be below swing.swing_g (\(formatNumber(configuration.swingG)) g)"
      )
    }
    c = configuration
    self.rate = rate
    shortest = 1 / (2 * configuration.maxHz)
    longest = 1 / (2 * configuration.minHz)
    bridge = configuration.pauseSeconds
  }

  public mutating func process(_ block: SampleBlock) -> [DetectorEvent] {
    var events: [DetectorEvent] = []
    var gravity: (x: [Double], y: [Double], z: [Double])?
    if c.gyroscope == 1 && block.gyroscope != nil {
      if fused == nil {
        fused = try? AttitudeStage(Self.fusion, rate: rate, layout: TraceLayout(hasGyroscope: true))
      }
      gravity = fused?.gravity(block)
    }
    for i in 0..<block.count {
      let g = gravity.map { ($0.x[i], $0.y[i], $0.z[i]) }
      if let event = step(t: block.t[i], x: block.x[i], y: block.y[i], z: block.z[i], fusedGravity: g) {
        events.append(event)
      }
    }
    return events
  }

  public mutating func finish() -> [DetectorEvent] {
    closeRun().map { [$0] } ?? []
  }

  private mutating func step(
    t: Double, x: Double, y: Double, z: Double, fusedGravity: (Double, Double, Double)?
  ) -> DetectorEvent? {
    guard x.isFinite && y.isFinite && z.isFinite else { return nil }
    guard let previous = previousTime else {
      previousTime = t
      g1 = (x, y, z)
      g2 = (x, y, z)
      lastZero = t
      return nil
    }
    let dt = max(0, t - previous)
    previousTime = t
    // A sensor at the end of its range reads the same extreme value again and again.
    let extreme = max(abs(x), abs(y), abs(z))
    if extreme > rail {
      rail = extreme
    } else if extreme == rail && rail >= Self.railFloor {
      halfAtRail += 1
    }
    let a = 1 - exp(-dt / c.gravityTauSeconds)
    g1 = (g1.0 + a * (x - g1.0), g1.1 + a * (y - g1.1), g1.2 + a * (z - g1.2))
    g2 = (g2.0 + a * (g1.0 - g2.0), g2.1 + a * (g1.1 - g2.1), g2.2 + a * (g1.2 - g2.2))
    // The fused attitude's gravity follows rotations at once and takes nothing of a swing; the
    // low-passes (kept running either way) stand in without a gyroscope.
    let gravity = fusedGravity ?? g2
    let u = (x - gravity.0, y - gravity.1, z - gravity.2)
    // Covariance and its principal axis.
    let v = principal.update(u, weight: 1 - exp(-dt / c.axisTauSeconds))
    let s = u.0 * v.0 + u.1 * v.1 + u.2 * v.2

    if s != 0 && (s > 0 ? 1.0 : -1.0) != lastSign {
      // The crossing, interpolated between the two samples (sample times alone would quantise
      // half-swings to whole intervals: at 30 Hz a 10 Hz shake's halves are 1.5 samples long).
      if lastSign != 0 { lastZero = previous + dt * lastValue / (lastValue - s) }
      lastSign = s > 0 ? 1 : -1
    }
    let (earlier, later) = (beforeLast, lastValue)
    (beforeLast, lastValue) = (lastValue, s)
    var event: DetectorEvent?
    let direction = s > c.hysteresisG ? 1 : s < -c.hysteresisG ? -1 : 0
    if direction != 0 && direction != sign {
      // The half-swing in progress ended at the last zero crossing.
      if sign != 0 { event = endHalfSwing(at: lastZero) }
      sign = direction
      halfStart = lastZero
      halfPeak = 0
      halfAtRail = 0
    }
    if sign != 0 {
      halfPeak = max(halfPeak, abs(s))
      // A peak between samples: the vertex of the parabola through the last three |s| when the
      // middle one is the largest (a 6 Hz swing sampled at 30 Hz can fall 20% short otherwise).
      let (y0, y1, y2) = (abs(earlier), abs(later), abs(s))
      let curvature = y0 - 2 * y1 + y2
      if y1 >= y0 && y1 >= y2 && curvature < 0 && (earlier > 0) == (later > 0) && (later > 0) == (s > 0) {
        // The vertex lies within half a sample of the largest one (farther, the three points are
        // noise on a flat top, not a peak).
        let offset = 0.5 * (y0 - y2) / curvature
        if abs(offset) <= 0.5 { halfPeak = max(halfPeak, y1 - 0.25 * (y0 - y2) * offset) }
      }
      if t - halfStart > longest {
        // Too slow to be a shake: this half-swing does not count.
        sign = 0
        if run.reported == nil, let closed = closeRun() { event = closed }
      }
    }
    if run.reported != nil && t - run.end > longest + bridge {
      // A reported shake ends when no counted half-swing has continued it for a while.
      if let closed = closeRun() { event = closed }
    }
    if sign != 0 && abs(s) > c.hysteresisG {
      let k = abs(v.0) >= abs(v.1) && abs(v.0) >= abs(v.2) ? 0 : abs(v.1) >= abs(v.2) ? 1 : 2
      axisVotes[k] += 1
    }
    return event
  }

  /// A half-swing from `halfStart` to `end` with peak `halfPeak` in direction `sign` is complete.
  private mutating func endHalfSwing(at end: Double) -> DetectorEvent? {
    let duration = end - halfStart
    let counts = halfPeak >= c.swingG && duration >= shortest && duration <= longest
    // A reported shake survives a half-swing that does not count (a hiccup in the motion); any
    // other run ends with it.
    guard counts else { return run.reported == nil ? closeRun() : nil }
    let continues =
      run.reported != nil
      ? halfStart - run.end <= bridge : sign != run.lastSign && abs(halfStart - run.end) <= 1e-9
    if run.count > 0 && !continues {
      // Not alternating or not adjacent: a new run.
      let event = closeRun()
      add(end: end, duration: duration)
      return event
    }
    add(end: end, duration: duration)
    return nil
  }

  private mutating func add(end: Double, duration: Double) {
    if run.count == 0 {
      run = Run()
      run.start = halfStart
      axisVotes = [0, 0, 0]
    }
    let k = sign > 0 ? 1 : 0
    // The first half-swing of a run is the ramp into it (from rest, through the gravity
    // estimate's transient): it counts, but the balance is judged on the ones after it.
    if run.count > 0 {
      run.peaks[k] += halfPeak
      run.durations[k] += duration
      run.counts[k] += 1
    }
    run.strength += halfPeak
    run.count += 1
    if halfAtRail >= 2 { run.clipped[k] += 1 }
    run.end = end
    run.lastSign = sign
    if run.reported == nil && run.count >= c.minSwings && isBalanced { run.reported = end }
  }

  private var isBalanced: Bool {
    guard run.counts[0] > 0 && run.counts[1] > 0 else { return false }
    let p0 = run.peaks[0] / Double(run.counts[0])
    let p1 = run.peaks[1] / Double(run.counts[1])
    let d0 = run.durations[0] / Double(run.counts[0])
    let d1 = run.durations[1] / Double(run.counts[1])
    switch (run.clipped[0] > 0, run.clipped[1] > 0) {
    case (false, false):
      return min(p0, p1) >= c.balance * max(p0, p1) && min(d0, d1) >= c.balance * max(d0, d1)
    case (true, true):
      // Both directions at the rail: the peaks say nothing, and the durations less than usual
      // (gait's shallow phase never reaches a rail).
      return min(d0, d1) >= c.balance * c.balance * max(d0, d1)
    default:
      // One direction clipped (gravity adds to it): its peaks are cut and, the clipped area
      // shifting the gravity estimate, its half-swings look longer. The other direction's peaks
      // are true: they must be at least as large as the clipped ones show, and beyond what a
      // body can do on its own in that direction (falling is at most 1 g: gait's shallow phase).
      let (free, cut) = run.clipped[0] > 0 ? (p1, p0) : (p0, p1)
      return free >= max(c.balance * cut, Self.freeFallLimit)
        && min(d0, d1) >= c.balance * c.balance * max(d0, d1)
    }
  }

  /// Readings at their maximum count as clipped only from this size on (g): no accelerometer
  /// clips below 1.5 g, and a quiet trace's largest reading is not a rail.
  package static let railFloor = 1.5

  /// In a clipped run, the unclipped direction's mean peak must exceed this (g): more than free
  /// fall with margin, which gait's shallow phase cannot.
  package static let freeFallLimit = 1.2

  /// Ends the current run; returns its shake if it qualified.
  private mutating func closeRun() -> DetectorEvent? {
    defer { run = Run() }
    guard run.count > 0, let reported = run.reported else { return nil }
    let strength = run.strength / Double(run.count)
    let k = axisVotes.indices.max { axisVotes[$0] < axisVotes[$1] } ?? 0
    return DetectorEvent(
      start: run.start, end: run.end, reported: reported, peakG: strength, count: run.count,
      axis: ["x", "y", "z"][k])
  }
}
