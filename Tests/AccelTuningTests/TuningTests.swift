import AccelCore
import AccelEvaluation
import AccelGestures
import AccelTuning
import TestSupport
import Testing

/// The search of `accelkit tune` on a synthetic objective: whatever scores each setting, the
/// search is deterministic, stays inside its space, starts from the defaults, and finds the peak.
@Suite struct TuningTests {
  /// One trace whose "detections" depend on seismic's threshold: tp rises to 10 as the threshold
  /// nears 1.6 g, false alarms grow below it.
  func score(_ batch: [RuleSetting]) -> [[Metrics]] {
    [
      batch.map { s in
        let threshold = s.assignments.first { $0.name == "threshold" }?.value ?? 1.3256
        var m = Metrics()
        m.duration = 3600
        m.tp = max(0, 10 - Int((abs(threshold - 1.6) * 40).rounded()))
        m.fn = 10 - m.tp
        m.fp = threshold < 1.6 ? Int(((1.6 - threshold) * 20).rounded()) : 0
        return m
      }
    ]
  }

  func settings(trials: Int = 40, seed: UInt64 = 3) -> TuningSettings {
    var s = TuningSettings(rule: "seismic", space: [SearchDimension("threshold", 1.05, 2.5)])
    s.trials = trials
    s.seed = seed
    s.folds = 0
    return s
  }

  @Test func theSearchIsDeterministicStartsFromTheDefaultsAndFindsThePeak() throws {
    let a = try Tuner.run(settings(), traceCount: 1, evaluate: score)
    let b = try Tuner.run(settings(), traceCount: 1, evaluate: score)
    #expect(a.trialsCSV() == b.trialsCSV())
    #expect(a.trials.count == 40)
    #expect(
      a.trials[0].setting.assignments.map(\.value) == [13 / AccelerationUnit.standardGravity],
      "the defaults first")
    let values = a.trials.compactMap { $0.setting.assignments.first?.value }
    #expect(values.allSatisfy { (1.05...2.5).contains($0) })
    #expect(Set(values).count == values.count, "no setting is evaluated twice")
    let best = a.trials[a.best].total
    #expect(best.tp == 10 && best.fp == 0, "\(a.trials[a.best].setting)")
    let other = try Tuner.run(settings(seed: 4), traceCount: 1, evaluate: score)
    #expect(other.trialsCSV() != a.trialsCSV())
  }

  /// A bound that no setting meets still chooses the one that misses it by least; a bound that
  /// some meet chooses among those only.
  /// Traces grouped by source: names sorted, an unknown source its own group, one source refused.
  @Test func tracesAreGroupedBySource() throws {
    var settings = TuningSettings(rule: "seismic", space: [])
    try settings.group(bySources: ["b", nil, "a", "b"], foldsBySource: true, worstSource: false)
    #expect(settings.groupNames == ["a", "b", "unknown"] && settings.groups == [1, 2, 0, 1])
    #expect(settings.foldsBySource && !settings.worstSource)
    var one = TuningSettings(rule: "seismic", space: [])
    #expect(
      throws: AccelError.usage(
        "--worst-source needs traces from two sources or more; the manifests name one (a)",
        hint: "give the manifests a source column, or tune on datasets from several sources")
    ) { try one.group(bySources: ["a", "a"], foldsBySource: false, worstSource: true) }
  }

  @Test func boundsComeBeforeTheObjective() throws {
    var s = settings()
    s.objective = TuningObjective(
      constraints: try TuningObjective.parseConstraints("false_alarms_per_hour<=0.001,recall>=0.5"))
    let r = try Tuner.run(s, traceCount: 1, evaluate: score)
    #expect(r.trials[r.best].total.fp == 0 && r.trials[r.best].total.recall >= 0.5)
    s.objective = TuningObjective(constraints: try TuningObjective.parseConstraints("recall>=2"))
    let impossible = try Tuner.run(s, traceCount: 1, evaluate: score)
    #expect(impossible.trials[impossible.best].total.recall == 1)
    #expect(throws: AccelError.self) { try TuningObjective.parseConstraints("speed<=3") }
    #expect(throws: AccelError.self) { try TuningObjective.parseConstraints("f1=0.5") }
  }

  @Test func dimensionsAndTheParetoFront() throws {
    let log = SearchDimension("x", 0.1, 10, logarithmic: true)
    #expect(abs(log.value(at: 0.5) - 1) < 1e-12 && abs(log.position(of: 1) - 0.5) < 1e-12)
    #expect(SearchDimension("n", 2, 6, isInteger: true).value(at: 0.6) == 4)
    let space = try Tuner.space(
      rule: "swing", items: ["swing_g=0.5:1:log", "swing.min_swings=3:9"], base: [])
    #expect(space.map(\.name) == ["swing_g", "min_swings"] && space[0].logarithmic && space[1].isInteger)
    #expect(throws: AccelError.self) { try Tuner.space(rule: "swing", items: ["nope=1:2"], base: []) }
    #expect(throws: AccelError.self) { try Tuner.space(rule: "swing", items: ["swing_g=2:1"], base: []) }
    #expect(throws: AccelError.self) { try Tuner.space(rule: "swing", items: ["balance=0:2"], base: []) }
    // The front of a tuning: the trials no other beats on both F1 and false alarms.
    let r = try Tuner.run(settings(), traceCount: 1, evaluate: score)
    let front = r.paretoFront
    for i in front {
      let a = r.trials[i].total
      #expect(
        !r.trials.contains { $0.total.f1 > a.f1 && $0.total.falseAlarmsPerHour <= a.falseAlarmsPerHour })
    }
    #expect(front.contains(r.best))
  }
}

/// Choosing by the worst source, and leaving one source out.
@Suite struct WorstSourceTuningTests {
  /// Three traces from three sources, scored by seismic's threshold: source 0 holds shakes found
  /// best near 1.3 g; source 1 is negatives that raise false alarms below 1.8 g; source 2 is
  /// negatives quiet at any threshold. On the sum, a low threshold wins (the false alarms are
  /// diluted over three hours); by the worst source, the bound on false alarms holds only from
  /// 1.8 g.
  static func score(_ batch: [RuleSetting]) -> [[Metrics]] {
    func threshold(_ s: RuleSetting) -> Double {
      s.assignments.first { $0.name == "threshold" }?.value ?? 1.3
    }
    let shakes = batch.map { s -> Metrics in
      var m = Metrics()
      m.duration = 3600
      m.tp = max(0, 10 - Int((abs(threshold(s) - 1.3) * 10).rounded()))
      m.fn = 10 - m.tp
      return m
    }
    let noisy = batch.map { s -> Metrics in
      var m = Metrics()
      m.duration = 3600
      m.fp = threshold(s) < 1.8 ? 2 : 0
      return m
    }
    let quiet = batch.map { _ -> Metrics in
      var m = Metrics()
      m.duration = 3600
      return m
    }
    return [shakes, noisy, quiet]
  }

  static func settings(worst: Bool, bySource: Bool) -> TuningSettings {
    var s = TuningSettings(rule: "seismic", space: [SearchDimension("threshold", 1.05, 2.5)])
    s.trials = 60
    s.seed = 5
    s.objective = TuningObjective(
      metric: "f1", maximize: true,
      constraints: try! TuningObjective.parseConstraints("false_alarms_per_hour<=1"))
    s.groups = [0, 1, 2]
    s.groupNames = ["shakes", "noisy", "quiet"]
    s.worstSource = worst
    s.foldsBySource = bySource
    return s
  }

  @Test func theWorstSourceBoundsTheChoice() throws {
    let summed = try Tuner.run(
      Self.settings(worst: false, bySource: false), traceCount: 3, evaluate: Self.score)
    let worst = try Tuner.run(
      Self.settings(worst: true, bySource: false), traceCount: 3, evaluate: Self.score)
    let low = summed.trials[summed.best].setting.assignments[0].value
    let high = worst.trials[worst.best].setting.assignments[0].value
    #expect(low < 1.8, "on the sum, 2 false alarms over 3 hours meet the bound: \(low)")
    #expect(high >= 1.8, "by the worst source, the noisy one must meet it too: \(high)")
    let chosen = worst.trials[worst.best]
    #expect(worst.settings.score(chosen, over: [0, 1, 2]).violation == 0)
    #expect(worst.settings.score(summed.trials[summed.best], over: [0, 1, 2]).violation > 0)
  }

  @Test func leavingOneSourceOutHoldsEachSourceOutOnce() throws {
    let result = try Tuner.run(
      Self.settings(worst: true, bySource: true), traceCount: 3, evaluate: Self.score)
    #expect(result.folds.map(\.traces) == [[0], [1], [2]])
    let csv = result.foldsCSV().split(separator: "\n")
    #expect(csv[0].hasPrefix("held_out_source,fold,traces,"))
    #expect(
      csv[1].hasPrefix("shakes,1,1,") && csv[2].hasPrefix("noisy,2,1,") && csv[3].hasPrefix("quiet,3,1,"))
    // Held out, the shakes are scored with the choice made on negatives alone.
    #expect(result.folds[0].heldOut.tp + result.folds[0].heldOut.fn == 10)
  }
}
