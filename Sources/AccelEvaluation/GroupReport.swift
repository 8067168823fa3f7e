import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Figures per source, per body position and per activity (the manifest's `source`, `position`
/// and `activity` columns), so that a detector that raises false alarms in one position or on one
/// data set, or misses one kind of shaking, cannot hide it in the average: false alarms per hour
/// with an exact Poisson interval; F1, recall and the share of annotated time covered (segment
/// recall) with bootstrap intervals over the group's traces.
public struct GroupFigures: Sendable {
  /// `source`, `position` or `activity`.
  public var kind: String
  public var name: String
  public var traces: Int
  public var metrics: Metrics
  /// 95% bootstrap interval of F1 over the group's traces (nil without annotations or with fewer
  /// than two traces).
  public var f1Interval: (low: Double, high: Double)?
  /// The same for recall (events found) and segment recall (the share of annotated one-second
  /// segments a detection covers: how much of the annotated time is found).
  public var recallInterval: (low: Double, high: Double)?
  public var segmentRecallInterval: (low: Double, high: Double)?
  /// 95% exact (Garwood) interval of false alarms per hour.
  public var falseAlarmInterval: (low: Double, high: Double)?
}

extension Bootstrap {
  /// The 95% bootstrap intervals over `traces` (one `Metrics` per trace) of F1, recall and
  /// segment recall, in that order; all nil when the traces hold no annotation.
  public static func detectionIntervals(_ traces: [Metrics]) -> [(low: Double, high: Double)?] {
    let annotated = traces.contains { $0.tp + $0.fn > 0 }
    guard annotated else { return [nil, nil, nil] }
    return Bootstrap(traceCount: traces.count).intervals(
      traces, statistics: [{ $0.f1 }, { $0.definedRecall }, { $0.standard.segments.recall }])
  }
}

extension EvaluationReport {
  /// Whether any trace has a source, a position or an activity.
  public var hasGroups: Bool {
    traces.contains { t in Self.groupKinds.contains { $0.of(t.group) != nil } }
  }

  /// The kinds of group, in the order reports give them, and each trace's group of that kind.
  static let groupKinds: [(kind: String, of: @Sendable (TraceGroup) -> String?)] = [
    ("source", { $0.source }), ("position", { $0.position }), ("activity", { $0.activity }),
  ]

  /// The figures of setting `i` per source, then per position, then per activity (each in name
  /// order; traces without one are grouped as "unknown"). Activities are given only when some
  /// trace has one, so that a manifest without the column reports as before.
  public func groupFigures(setting i: Int) -> [GroupFigures] {
    var out: [GroupFigures] = []
    for (kind, of) in Self.groupKinds {
      if kind == "activity", !traces.contains(where: { $0.group.activity != nil }) { continue }
      var members: [String: [Int]] = [:]
      for (k, t) in traces.enumerated() {
        members[of(t.group) ?? "unknown", default: []].append(k)
      }
      for name in members.keys.sorted() {
        let indices = members[name]!
        let metrics = indices.reduce(Metrics()) { $0 + traces[$1].metrics[i] }
        let intervals = Bootstrap.detectionIntervals(indices.map { traces[$0].metrics[i] })
        let hours = metrics.duration / 3600
        out.append(
          GroupFigures(
            kind: kind, name: name, traces: indices.count, metrics: metrics, f1Interval: intervals[0],
            recallInterval: intervals[1], segmentRecallInterval: intervals[2],
            falseAlarmInterval: hours > 0 ? PoissonInterval.rate(count: metrics.fp, exposure: hours) : nil))
      }
    }
    return out
  }

  static let groupColumns = [
    "rule", "params", "group", "name", "traces", "hours", "tp", "fp", "fn", "precision", "recall", "f1",
    "f1_low", "f1_high", "false_alarms_per_hour", "false_alarms_per_hour_low", "false_alarms_per_hour_high",
    "recall_low", "recall_high", "segment_recall", "segment_recall_low", "segment_recall_high",
  ]

  /// groups.csv: a row per setting and source, then per setting and position, then per setting
  /// and activity.
  public func groupsCSV() -> String {
    var text = Self.groupColumns.joined(separator: ",") + "\n"
    func n(_ v: Double?) -> String { v.map { formatNumber(Self.rounded($0)) } ?? "" }
    for (i, s) in settings.enumerated() {
      for g in groupFigures(setting: i) {
        let m = g.metrics
        text +=
          [
            s.rule, csvField(s.parameterText), g.kind, csvField(g.name), String(g.traces),
            n(m.duration / 3600), String(m.tp), String(m.fp), String(m.fn), n(m.precision),
            n(m.definedRecall), n(m.f1), n(g.f1Interval?.low), n(g.f1Interval?.high), n(m.falseAlarmsPerHour),
            n(g.falseAlarmInterval?.low), n(g.falseAlarmInterval?.high), n(g.recallInterval?.low),
            n(g.recallInterval?.high),
            n(m.standard.segments.recall), n(g.segmentRecallInterval?.low), n(g.segmentRecallInterval?.high),
          ].joined(separator: ",") + "\n"
      }
    }
    return text
  }

  /// The per-group table people read: for each setting (at most `limit`), its figures per source,
  /// per position and per activity.
  public func groupTable(limit: Int = 8) -> String {
    func f(_ v: Double?) -> String { formatSignificant(v, digits: precision) }
    func interval(_ i: (low: Double, high: Double)?) -> String {
      i.map { " [\(f($0.low)), \(f($0.high))]" } ?? ""
    }
    var text = ""
    for (i, s) in settings.enumerated().prefix(limit) {
      var rows = [
        [
          "by", "name", "traces", "hours", "tp", "fp", "fn", "f1 [95%]", "recall [95%]", "time covered [95%]",
          "FA/h [95%]",
        ]
      ]
      // A kind with a single group repeats the overall figures: left out.
      let figures = groupFigures(setting: i)
      let shown = figures.filter { g in figures.filter { $0.kind == g.kind }.count > 1 }
      guard !shown.isEmpty else { continue }
      let kinds = Self.groupKinds.map(\.kind).filter { k in shown.contains { $0.kind == k } }
      for g in shown {
        let m = g.metrics
        rows.append([
          g.kind, g.name, "\(g.traces)", f(m.duration / 3600), "\(m.tp)", "\(m.fp)", "\(m.fn)",
          m.tp + m.fn > 0 ? f(m.f1) + interval(g.f1Interval) : "-",
          m.tp + m.fn > 0 ? f(m.recall) + interval(g.recallInterval) : "-",
          m.standard.segments.recall.map { f($0) + interval(g.segmentRecallInterval) } ?? "-",
          f(m.falseAlarmsPerHour) + interval(g.falseAlarmInterval),
        ])
      }
      let widths = rows[0].indices.map { c in rows.map { $0[c].count }.max()! }
      let per = kinds.count > 1 ? kinds.dropLast().joined(separator: ", ") + " and " + kinds.last! : kinds[0]
      text += "\n\(s.rule) \(s.parameterText.isEmpty ? "defaults" : s.parameterText), per \(per):\n"
      text +=
        rows.map { r in r.enumerated().map { $1.padding(toLength: widths[$0]) }.joined(separator: "  ") }
        .joined(separator: "\n") + "\n"
    }
    if settings.count > limit { text += "(the first \(limit) settings; every one is in groups.csv)\n" }
    return text
  }
}

/// Exact confidence intervals for a Poisson count (Garwood 1936): for k events in an exposure E,
/// the rate lies in [Gamma⁻¹(α/2; k) / E, Gamma⁻¹(1 - α/2; k + 1) / E], with Gamma⁻¹ the quantile
/// of the unit-scale gamma distribution (the lower end is 0 for k = 0).
public enum PoissonInterval {
  /// The 95% interval of the rate of `count` events over `exposure` (> 0).
  public static func rate(count: Int, exposure: Double, confidence: Double = 0.95) -> (
    low: Double, high: Double
  ) {
    let alpha = 1 - confidence
    let low = count == 0 ? 0 : gammaQuantile(alpha / 2, shape: Double(count))
    let high = gammaQuantile(1 - alpha / 2, shape: Double(count + 1))
    return (low / exposure, high / exposure)
  }

  /// The x with P(shape, x) = p, P the regularised lower incomplete gamma function; by bisection
  /// on a bracket that doubles until it holds the quantile (P is increasing in x).
  static func gammaQuantile(_ p: Double, shape a: Double) -> Double {
    var low = 0.0
    var high = max(1, a)
    while regularizedGammaP(a, high) < p { high *= 2 }
    for _ in 0..<200 {
      let mid = (low + high) / 2
      if regularizedGammaP(a, mid) < p { low = mid } else { high = mid }
      if high - low <= 1e-12 * high { break }
    }
    return (low + high) / 2
  }

  /// P(a, x) = γ(a, x) / Γ(a): the series for x < a + 1, else 1 - the continued fraction of
  /// Q(a, x) (Lentz's method), as in Numerical Recipes §6.2.
  static func regularizedGammaP(_ a: Double, _ x: Double) -> Double {
    guard x > 0 else { return 0 }
    let logPrefix = a * log(x) - x - lgamma(a)
    if x < a + 1 {
      var term = 1 / a
      var sum = term
      var n = a
      for _ in 0..<10_000 {
        n += 1
        term *= x / n
        sum += term
        if abs(term) < abs(sum) * 1e-16 { break }
      }
      return sum * exp(logPrefix)
    }
    let tiny = 1e-300
    var b = x + 1 - a
    var c = 1 / tiny
    var d = 1 / b
    var h = d
    for i in 1..<10_000 {
      let an = -Double(i) * (Double(i) - a)
      b += 2
      d = an * d + b
      if abs(d) < tiny { d = tiny }
      c = b + an / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      let delta = d * c
      h *= delta
      if abs(delta - 1) < 1e-16 { break }
    }
    return 1 - exp(logPrefix) * h
  }
}
