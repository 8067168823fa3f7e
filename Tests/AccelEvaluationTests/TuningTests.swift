import AccelCore
import AccelEvaluation
import AccelGestures
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
    #expect(a.trials[0].setting.assignments.map(\.value) == [13 / AccelerationUnit.standardGravity], "the defaults first")
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
  @Test func boundsComeBeforeTheObjective() throws {
    var s = settings()
    s.objective = TuningObjective(constraints: try TuningObjective.parseConstraints("false_alarms_per_hour<=0.001,recall>=0.5"))
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
    let space = try Tuner.space(rule: "swing", items: ["swing_g=0.5:1:log", "swing.min_swings=3:9"], base: [])
    #expect(space.map(\.name) == ["swing_g", "min_swings"] && space[0].logarithmic && space[1].isInteger)
    #expect(throws: AccelError.self) { try Tuner.space(rule: "swing", items: ["nope=1:2"], base: []) }
    #expect(throws: AccelError.self) { try Tuner.space(rule: "swing", items: ["swing_g=2:1"], base: []) }
    #expect(throws: AccelError.self) { try Tuner.space(rule: "swing", items: ["balance=0:2"], base: []) }
    // The front of a tuning: the trials no other beats on both F1 and false alarms.
    let r = try Tuner.run(settings(), traceCount: 1, evaluate: score)
    let front = r.paretoFront
    for i in front {
      let a = r.trials[i].total
      #expect(!r.trials.contains { $0.total.f1 > a.f1 && $0.total.falseAlarmsPerHour <= a.falseAlarmsPerHour })
    }
    #expect(front.contains(r.best))
  }
}
