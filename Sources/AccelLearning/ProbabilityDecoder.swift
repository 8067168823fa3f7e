import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Turns a classifier's probability per window into events: a threshold with hysteresis, a
/// merge gap, and minimum and maximum durations. Streams: each window is decided when it
/// arrives, an event when the merge gap after it has passed.
///
/// A window's time is its centre. An event begins at the first window whose probability reaches
/// `on` and goes on while it stays at or above `off`; it ends at the last such window's centre.
/// An event that begins within `merge_gap_s` of the previous one's end continues it. An event
/// shorter than `min_duration_s` is dropped; one longer than `max_duration_s` is cancelled (as
/// UIKit cancels a motion that lasts too long). It is reported at the end of the window where it
/// first reaches `on` and `min_duration_s`.
///
/// Sustained probability can begin an event too: with `hold_s` above zero, an event also begins
/// once windows have stayed at or above `hold` for `hold_s` seconds (centre to centre), and it
/// begins at the first of them. Real shaking that goes on keeps a classifier's probability high
/// without reaching a strict `on` (docs/LEARNING.md). A run of such windows is broken by a window
/// below `hold` or by more than `runBreakSeconds` between two windows (a gap in the trace). With
/// `hold_s` 0 (the default) there is no such beginning, and a model's `detector.json` need not
/// name `hold` or `hold_s`.
///
/// A label may have a second classifier, its sustained classifier (`LearnedModel`): one trained
/// for shaking that goes on, beside one trained for every shake. Its probability q (the label's
/// own p when there is none) is what the run toward `hold_s` reads; an event also begins at a
/// window where q reaches `sustained_on`, and goes on while p stays at or above `off` or q at or
/// above `sustained_off`. Both are 1 by default (only p >= 1 meets them, which `on` and `off`
/// meet too), so a model without them decodes as before.
///
/// An event that has qualified (it has lasted `min_duration_s`, so it will be reported) may go on
/// at a lower probability than it began with: while p or q stays at or above `extend`. Within
/// real shaking the probability dips between bursts; this keeps the event to the shaking's end
/// without letting a blip that never qualifies last long enough to count. It begins no event, so
/// it raises no false alarm (it may join two). It reaches back too: a reported event starts at
/// the first of the windows at or above `extend` that led up to it without a break (a window
/// below, or more than `runBreakSeconds` between two), where the shaking began rather than where
/// the classifier became sure of it; its minimum duration and report are still counted from
/// where it began. A pending event waits while such a stretch that began within its merge gap
/// goes on. 1 by default (nothing changes), and `detector.json` leaves it out.
///
/// q's average can begin an event too: with `smooth_s` above 0, an exponential average of q with
/// that time constant (each window moves it by 1 - exp(-dt / smooth_s) of the way to its q; it
/// starts afresh after a gap over `runBreakSeconds`) begins an event at a window where it reaches
/// `smoothed_on`. Within real shaking q wavers between 0.5 and 0.99 for as long as the shaking
/// lasts, where a hold needs it to stay high without a dip; on everyday motion it rises in
/// blips. With `smooth_s` 0 (the default) nothing changes, and `detector.json` leaves both out.
public struct ProbabilityDecoder: Sendable {
  public struct Configuration: TunableConfiguration {
    public var on = 0.5
    public var off = 0.35
    public var minDurationSeconds = 0.0
    public var maxDurationSeconds = 30.0
    public var mergeGapSeconds = 0.5
    public var hold = 1.0
    public var holdSeconds = 0.0
    public var sustainedOn = 1.0
    public var sustainedOff = 1.0
    public var extend = 1.0
    public var smoothing = 0.0
    public var smoothedOn = 1.0

    public init() {}

    /// Parameters a model's `detector.json` may leave out, with the value that means "as before".
    public static let optionalParameters: [String: Double] = [
      "hold": 1, "hold_s": 0, "sustained_on": 1, "sustained_off": 1, "extend": 1, "smooth_s": 0,
      "smoothed_on": 1,
    ]

    /// Whether the sustained classifier's own thresholds are set (else they are left out of
    /// `detector.json`, as before they existed).
    public var hasSustainedThresholds: Bool { sustainedOn < 1 || sustainedOff < 1 }

    public static let parameters: [TunableParameter<Configuration>] = [
      TunableParameter(
        "on", \.on, unit: "probability", range: 0...1, meaning: "an event begins at a window this likely"),
      TunableParameter(
        "off", \.off, unit: "probability", range: 0...1,
        meaning: "and goes on while windows stay this likely (at most on)"),
      TunableParameter(
        "min_duration_s", \.minDurationSeconds, unit: "s", range: 0...600,
        meaning: "shorter events are dropped"),
      TunableParameter(
        "max_duration_s", \.maxDurationSeconds, unit: "s", range: 0...86400,
        meaning: "longer events are cancelled"),
      TunableParameter(
        "merge_gap_s", \.mergeGapSeconds, unit: "s", range: 0...600,
        meaning: "an event beginning this soon after the last one ends continues it"),
      TunableParameter(
        "hold", \.hold, unit: "probability", range: 0...1,
        meaning: "or an event begins where windows stay this likely for hold_s (at least off)"),
      TunableParameter(
        "hold_s", \.holdSeconds, unit: "s", range: 0...600,
        meaning: "how long windows must stay as likely as hold (0: only on begins an event)"),
      TunableParameter(
        "sustained_on", \.sustainedOn, unit: "probability", range: 0...1,
        meaning: "or an event begins at a window the sustained classifier finds this likely"),
      TunableParameter(
        "sustained_off", \.sustainedOff, unit: "probability", range: 0...1,
        meaning: "or goes on while it stays this likely (at most sustained_on)"),
      TunableParameter(
        "extend", \.extend, unit: "probability", range: 0...1,
        meaning: "an event that has lasted min_duration_s also goes on while either stays this likely"),
      TunableParameter(
        "smooth_s", \.smoothing, unit: "s", range: 0...600,
        meaning: "q's exponential average over this time constant can begin an event too (0: none)"),
      TunableParameter(
        "smoothed_on", \.smoothedOn, unit: "probability", range: 0...1,
        meaning: "an event begins where q's average reaches this (with smooth_s)"),
    ]

    /// The lowest probability the decoding compares p with (and q, when it is p): below it a
    /// window's probability makes no difference (it only ever meets `p >= threshold`), so a
    /// probability known to be below it may be given as 0.
    public var floor: Double { min(primaryFloor, sustainedFloor) }

    /// Whether q's average can begin an event (then every q counts, and its floor is 0).
    public var smoothsSustained: Bool { smoothing > 0 }

    /// The lowest p is compared with when a sustained classifier gives q.
    public var primaryFloor: Double { min(on, off, extend) }

    /// The lowest a sustained classifier's q is compared with.
    public var sustainedFloor: Double {
      smoothsSustained ? 0 : min(sustainedOn, sustainedOff, holdSeconds > 0 ? hold : 1, extend)
    }

    /// Throws a usage error for thresholds or durations that contradict each other. With
    /// `sustained` (the label has a sustained classifier) the run toward `hold_s` reads q, so
    /// `sustained_off` must be at most `hold`; without one, `off` or `sustained_off`.
    public func validate(owner: String, sustained: Bool = false) throws {
      guard off <= on else {
        throw AccelError.usage(
          "\(owner).off (\(formatNumber(off))) must be at most \(owner).on (\(formatNumber(on)))")
      }
      guard sustainedOff <= sustainedOn else {
        throw AccelError.usage(
          "\(owner).sustained_off (\(formatNumber(sustainedOff))) must be at most \(owner).sustained_on "
            + "(\(formatNumber(sustainedOn)))")
      }
      guard holdSeconds == 0 || sustainedOff <= hold || (!sustained && off <= hold) else {
        let name = sustained ? "sustained_off" : "off"
        throw AccelError.usage(
          "\(owner).\(name) (\(formatNumber(sustained ? sustainedOff : off))) must be at most "
            + "\(owner).hold (\(formatNumber(hold))) when hold_s is set")
      }
      guard minDurationSeconds <= maxDurationSeconds else {
        throw AccelError.usage(
          "\(owner).min_duration_s (\(formatNumber(minDurationSeconds)) s) must be at most \(owner).max_duration_s (\(formatNumber(maxDurationSeconds)) s)"
        )
      }
    }
  }

  /// A decoded event, seconds in the trace's time base.
  public struct Event: Equatable, Sendable {
    public var start: Double
    public var end: Double
    public var reported: Double
    /// The highest probability of its windows.
    public var peak: Double
    /// Its windows at or above `off`.
    public var windows: Int
    public var cancelled: Bool
  }

  /// More than this between two windows' centres (a gap in the trace) breaks a run toward `hold_s`.
  public static let runBreakSeconds = 1.0

  public let configuration: Configuration
  /// The current run of windows at or above `hold`: its first centre, last centre, count and peak.
  private var run: (start: Double, last: Double, windows: Int, peak: Double)?
  private var open: Event?
  private var openReported: Double?
  private var pending: Event?
  private var pendingReported: Double?
  /// With `extend` below 1: the current stretch of windows at or above it (first and last
  /// centre), and where the open and the pending event reach back to.
  private var reach: (start: Double, last: Double)?
  private var openEarliest: Double?
  private var pendingEarliest: Double?
  /// With `smooth_s` above 0: q's average and the centre it was last updated at.
  private var smoothed: (value: Double, last: Double)?

  public init(configuration: Configuration) {
    self.configuration = configuration
  }

  /// One window: its centre and end (when a live detector would know it), its probability p and
  /// its sustained classifier's q (p when there is none); returns the event that this window
  /// completes, if any.
  public mutating func add(center: Double, end: Double, probability p: Double, sustained q: Double? = nil)
    -> Event?
  {
    let c = configuration
    let q = q ?? p
    var averaged = false
    if c.smoothing > 0 {
      // An exponential average with time constant smooth_s, afresh after a gap in the trace.
      var m = q
      if let s = smoothed, center - s.last <= Self.runBreakSeconds {
        m = s.value + (1 - exp(-(center - s.last) / c.smoothing)) * (q - s.value)
      }
      smoothed = (m, center)
      averaged = m >= c.smoothedOn
    }
    var done: Event?
    if c.holdSeconds > 0 {
      if q >= c.hold {
        if let r = run, center - r.last <= Self.runBreakSeconds {
          run = (r.start, center, r.windows + 1, max(r.peak, q))
        } else {
          run = (center, center, 1, q)
        }
      } else {
        run = nil
      }
    }
    if c.extend < 1 {
      if max(p, q) >= c.extend {
        if let r = reach, center - r.last <= Self.runBreakSeconds {
          reach = (r.start, center)
        } else {
          reach = (center, center)
        }
      } else {
        reach = nil
      }
    }
    if var event = open {
      // Once it has qualified (openReported is set), `extend` keeps it too.
      if p >= c.off || q >= c.sustainedOff || (openReported != nil && max(p, q) >= c.extend) {
        event.end = center
        event.peak = max(event.peak, p, q)
        event.windows += 1
        open = event
        noteReported(end: end)
        return nil
      }
      open = nil
      close(event)
    }
    if let waiting = pending, center - waiting.end > c.mergeGapSeconds,
      run.map({ $0.start - waiting.end > c.mergeGapSeconds }) ?? true,
      reach.map({ $0.start - waiting.end > c.mergeGapSeconds }) ?? true
    {
      // (A run, or a stretch at extend, that began within the merge gap may still begin an event
      // that continues it: it waits.)
      done = release()
    }
    // An event begins at a window as likely as on, or where a run (kept only with hold_s) has
    // held long enough: at its first window. A pending event within the merge gap goes on instead
    // (a run that began within it: a window below off <= hold closed the event, so the run is after).
    let begin: (start: Double, peak: Double, windows: Int)?
    if let r = run, center - r.start >= c.holdSeconds {
      begin = (r.start, r.peak, r.windows)
    } else {
      begin = p >= c.on || q >= c.sustainedOn || averaged ? (center, max(p, q), 1) : nil
    }
    if let b = begin {
      if let waiting = pending {
        open = Event(
          start: waiting.start, end: center, reported: waiting.reported, peak: max(waiting.peak, b.peak),
          windows: waiting.windows + b.windows, cancelled: false)
        openReported = pendingReported
        openEarliest = pendingEarliest
        pending = nil
        pendingReported = nil
        pendingEarliest = nil
      } else {
        open = Event(
          start: b.start, end: center, reported: end, peak: b.peak, windows: b.windows, cancelled: false)
        openReported = nil
        openEarliest = reach.map { min($0.start, b.start) }
      }
      noteReported(end: end)
    }
    return done
  }

  /// The end of the trace: the events still open or waiting.
  public mutating func finish() -> [Event] {
    if let event = open {
      open = nil
      close(event)
    }
    return release().map { [$0] } ?? []
  }

  private mutating func noteReported(end: Double) {
    guard openReported == nil, let event = open, event.end - event.start >= configuration.minDurationSeconds
    else {
      return
    }
    openReported = end
  }

  private mutating func close(_ event: Event) {
    pending = event
    pendingReported = openReported
    pendingEarliest = openEarliest
    openReported = nil
    openEarliest = nil
  }

  private mutating func release() -> Event? {
    guard var event = pending else { return nil }
    pending = nil
    defer {
      pendingReported = nil
      pendingEarliest = nil
    }
    guard let reported = pendingReported, event.end - event.start >= configuration.minDurationSeconds else {
      return nil
    }
    event.start = min(event.start, pendingEarliest ?? event.start)
    event.reported = reported
    event.cancelled = event.end - event.start > configuration.maxDurationSeconds
    return event
  }
}
