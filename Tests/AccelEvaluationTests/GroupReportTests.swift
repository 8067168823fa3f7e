import AccelCore
import AccelGestures
import Testing

@testable import AccelEvaluation

@Suite struct GroupReportTests {
  /// scipy.stats.chi2 (scipy 1.17.1), printed by scripts/make_poisson_references.py.
  static let poisson: [(Int, Double, Double, Double)] = [
    (0, 1.0, 0.0, 3.6888794541139354),
    (1, 2.0, 0.012658903992144938, 2.785821695469449),
    (5, 3.5, 0.46385325431954877, 3.333809165520763),
    (46, 2.5, 13.47111256358875, 24.5430214842344),
    (200, 10.0, 17.324088268145733, 22.972198166544988),
  ]

  @Test func poissonIntervalsEqualScipys() {
    for (k, exposure, low, high) in Self.poisson {
      let interval = PoissonInterval.rate(count: k, exposure: exposure)
      #expect(abs(interval.low - low) <= 1e-9 * max(1, low), "\(k): \(interval.low) vs \(low)")
      #expect(abs(interval.high - high) <= 1e-9 * high, "\(k): \(interval.high) vs \(high)")
    }
  }

  static func trace(
    _ name: String, source: String?, position: String?, activity: String? = nil, tp: Int, fp: Int, fn: Int,
    hours: Double
  ) -> TraceEvaluation {
    var m = Metrics()
    (m.tp, m.fp, m.fn, m.duration) = (tp, fp, fn, hours * 3600)
    var t = TraceEvaluation(name: name, start: 0, duration: hours * 3600, rows: 1, metrics: [m], detections: [[]])
    t.group = TraceGroup(source: source, position: position, activity: activity)
    return t
  }

  /// Each source and each position sums its own traces; a trace without one is "unknown"; a
  /// group without annotations has no F1 interval; false alarms per hour come with Garwood's.
  @Test func figuresPerSourceAndPosition() throws {
    let traces = [
      Self.trace("a", source: "oxford", position: "pocket", tp: 0, fp: 2, fn: 0, hours: 1),
      Self.trace("b", source: "oxford", position: "hand", tp: 0, fp: 0, fn: 0, hours: 0.5),
      Self.trace("c", source: "umafall", position: "pocket", tp: 0, fp: 5, fn: 0, hours: 2),
      Self.trace("d", source: nil, position: nil, tp: 3, fp: 1, fn: 1, hours: 0.1),
      Self.trace("e", source: nil, position: nil, tp: 4, fp: 0, fn: 0, hours: 0.1),
    ]
    let report = EvaluationReport(settings: [try RuleSetting(rule: "swing")], traces: traces, sweeping: false)
    #expect(report.hasGroups)
    let figures = report.groupFigures(setting: 0)
    #expect(figures.map { "\($0.kind):\($0.name):\($0.traces)" } == [
      "source:oxford:2", "source:umafall:1", "source:unknown:2",
      "position:hand:1", "position:pocket:2", "position:unknown:2",
    ])
    let pocket = try #require(figures.first { $0.kind == "position" && $0.name == "pocket" })
    #expect(pocket.metrics.fp == 7 && abs(pocket.metrics.falseAlarmsPerHour - 7.0 / 3) < 1e-12)
    let expected = PoissonInterval.rate(count: 7, exposure: 3)
    #expect(pocket.falseAlarmInterval?.low == expected.low && pocket.falseAlarmInterval?.high == expected.high)
    #expect(pocket.f1Interval == nil)
    let unknown = try #require(figures.first { $0.kind == "source" && $0.name == "unknown" })
    #expect(unknown.metrics.tp == 7 && unknown.f1Interval != nil)
    let csv = report.groupsCSV().split(separator: "\n")
    #expect(csv.count == 7 && csv[0].hasPrefix("rule,params,group,name,traces,hours,"))
    #expect(report.files.map(\.name).contains("groups.csv"))
    #expect(report.table().contains("swing defaults, per source and position:"))
  }

  /// With an activity on some trace, activities come after the positions (a trace without one is
  /// "unknown"); without any, none is given.
  @Test func figuresPerActivity() throws {
    let traces = [
      Self.trace("a", source: "mse", position: "hand", activity: "sustained", tp: 1, fp: 0, fn: 1, hours: 0.1),
      Self.trace("b", source: "mse", position: "hand", activity: "shake", tp: 3, fp: 1, fn: 0, hours: 0.2),
      Self.trace("c", source: "mse", position: "hand", activity: "sustained", tp: 0, fp: 0, fn: 1, hours: 0.1),
      Self.trace("d", source: nil, position: nil, activity: nil, tp: 0, fp: 2, fn: 0, hours: 1),
    ]
    let report = EvaluationReport(settings: [try RuleSetting(rule: "swing")], traces: traces, sweeping: false)
    let figures = report.groupFigures(setting: 0)
    #expect(figures.map { "\($0.kind):\($0.name):\($0.traces)" }.suffix(3) == [
      "activity:shake:1", "activity:sustained:2", "activity:unknown:1",
    ])
    let sustained = try #require(figures.first { $0.kind == "activity" && $0.name == "sustained" })
    #expect(sustained.metrics.tp == 1 && sustained.metrics.fn == 2 && sustained.recallInterval != nil)
    #expect(report.table().contains("swing defaults, per source, position and activity:"))
    let activityOnly = EvaluationReport(
      settings: [try RuleSetting(rule: "swing")], traces: [traces[0], traces[1]], sweeping: false)
    #expect(activityOnly.hasGroups && activityOnly.table().contains("swing defaults, per activity:"))
    let none = EvaluationReport(
      settings: [try RuleSetting(rule: "swing")],
      traces: [Self.trace("a", source: "s", position: nil, tp: 1, fp: 0, fn: 0, hours: 1)], sweeping: false)
    #expect(!none.groupFigures(setting: 0).contains { $0.kind == "activity" })
  }

  @Test func noGroupsNoGroupFile() throws {
    let report = EvaluationReport(
      settings: [try RuleSetting(rule: "swing")],
      traces: [Self.trace("a", source: nil, position: nil, tp: 1, fp: 0, fn: 0, hours: 1)], sweeping: false)
    #expect(!report.hasGroups && !report.files.map(\.name).contains("groups.csv"))
  }
}
