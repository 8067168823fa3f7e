import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelScaleOut

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

public enum Tuner {
  /// The searched space of each rule when none is given: the parameters that shape what the
  /// rule accepts, over intervals wide enough for any recording (chosen on physics and on the
  /// rules' documented meanings, not on data).
  public static func defaultSpace(rule: String) -> [SearchDimension] {
    switch rule {
    case SwingRule.name:
      [
        SearchDimension("swing_g", 0.3, 1.5, logarithmic: true),
        SearchDimension("min_swings", 3, 8, isInteger: true),
        SearchDimension("balance", 0.4, 0.9), SearchDimension("gravity_tau_s", 0.1, 1, logarithmic: true),
        SearchDimension("axis_tau_s", 0.1, 1, logarithmic: true), SearchDimension("hysteresis_g", 0.05, 0.29),
        SearchDimension("pause_s", 0, 1),
      ]
    case ThreePeakRule.name:
      [
        SearchDimension("gravity_cutoff", 0.1, 5, logarithmic: true), SearchDimension("move_g", 0.3, 1.5),
        SearchDimension("peak_g", 0.5, 3), SearchDimension("gap_s", 0.1, 0.6),
        SearchDimension("min_moves", 2, 6, isInteger: true),
      ]
    case AngularChangeRule.name:
      [
        SearchDimension("begin", 2, 30, logarithmic: true), SearchDimension("end", 0.5, 2, logarithmic: true),
        SearchDimension("window_s", 0.02, 0.3, logarithmic: true), SearchDimension("min_s", 0, 0.6),
        SearchDimension("refractory_s", 0.2, 2),
      ]
    case SeismicRule.name:
      [SearchDimension("threshold", 1.05, 2.5), SearchDimension("window_s", 0.2, 1.5)]
    default:
      []
    }
  }

  /// Parses `--space NAME=LOW:HIGH[:log]` items over `base` (an item replaces the dimension of
  /// its name or adds one), checking each against the rule's table.
  public static func space(rule: String, items: [String], base: [SearchDimension]) throws -> [SearchDimension]
  {
    guard let type = Detectors.named(rule) else {
      throw AccelError.usage("unknown rule \(quotedField(rule))")
    }
    let rows = Detectors.parameterRows(type)
    var space = base
    for item in items {
      let pieces = item.split(separator: "=", maxSplits: 1).map(String.init)
      var name = pieces.first ?? ""
      if name.hasPrefix(rule + ".") { name = String(name.dropFirst(rule.count + 1)) }
      let bounds = pieces.count == 2 ? pieces[1].split(separator: ":").map(String.init) : []
      guard bounds.count == 2 || (bounds.count == 3 && bounds[2] == "log"),
        let low = Double(bounds[0]), let high = Double(bounds[1]), low.isFinite, high.isFinite, low < high
      else {
        throw AccelError.usage(
          "--space takes NAME=LOW:HIGH or NAME=LOW:HIGH:log with LOW < HIGH, got \(quotedField(item))")
      }
      guard let row = rows.first(where: { $0.name == name }) else {
        throw AccelError.usage(
          "\(rule) has no parameter \(quotedField(name))",
          hint: "its parameters are \(rows.map(\.name).joined(separator: ", "))")
      }
      guard row.range.contains(low) && row.range.contains(high) else {
        throw AccelError.usage(
          "--space \(item): \(rule).\(name) must stay in [\(formatParameter(row.range.lowerBound)), \(formatParameter(row.range.upperBound))]"
        )
      }
      let logarithmic = bounds.count == 3
      if logarithmic && low <= 0 {
        throw AccelError.usage("--space \(item): a logarithmic interval must be above 0")
      }
      let isInteger =
        row.unit == "count" || row.unit == "flag" || row.unit == "movements" || row.unit == "samples"
        || row.unit == "pairs" || row.unit == "preset"
      let dimension = SearchDimension(name, low, high, logarithmic: logarithmic, isInteger: isInteger)
      if let i = space.firstIndex(where: { $0.name == name }) {
        space[i] = dimension
      } else {
        space.append(dimension)
      }
    }
    return space
  }

  /// Searches `settings.space`: the first half of the trials spread over it (a Latin hypercube:
  /// each dimension's interval cut into as many strata as trials, each stratum used once), the
  /// second half in four rounds near the best so far (Gaussian steps in the unit cube whose width
  /// halves each round). `evaluate` runs a batch of settings over every trace and returns, per
  /// trace, one `Metrics` per setting. Settings the rule refuses (a constraint between
  /// parameters) are drawn again. Deterministic for a seed.
  public static func run(
    _ settings: TuningSettings, traceCount: Int, evaluate: ([RuleSetting]) throws -> [[Metrics]]
  ) throws -> TuningResult {
    var rng = SeededGenerator(seed: settings.seed &* 0x9E37_79B9_7F4A_7C15 ^ 0x5851_F42D_4C95_7F2D)
    let dimensions = settings.space
    var trials: [TuningTrial] = []
    var seen: Set<String> = []

    func setting(at point: [Double]) -> RuleSetting? {
      setting(values: zip(dimensions, point).map { $0.value(at: $1) })
    }

    func setting(values: [Double]) -> RuleSetting? {
      var assignments = settings.fixed
      for (d, v) in zip(dimensions, values) {
        assignments.removeAll { $0.0 == d.name }
        assignments.append((d.name, v))
      }
      guard let s = try? RuleSetting(rule: settings.rule, assignments: assignments),
        (try? s.detector(rate: 100)) != nil,
        seen.insert(s.parameterText).inserted
      else { return nil }
      return s
    }

    func evaluateBatch(_ batch: [RuleSetting], phase: String) throws {
      guard !batch.isEmpty else { return }
      let perTrace = try evaluate(batch)
      for (k, s) in batch.enumerated() {
        let metrics = perTrace.map { $0[k] }
        trials.append(
          TuningTrial(
            index: trials.count, phase: phase, setting: s, perTrace: metrics,
            total: metrics.reduce(Metrics(), +)))
      }
    }

    // The defaults (with the fixed parameters) are trial 0: the search starts from what there is.
    var batch: [RuleSetting] = []
    if let start = setting(
      values: dimensions.map { d in
        Self.defaultValue(rule: settings.rule, name: d.name).map { min(d.high, max(d.low, $0)) }
          ?? d.value(at: 0.5)
      })
    {
      batch.append(start)
    }
    let explore = max(1, settings.trials / 2)
    let strata = dimensions.map { _ -> [Int] in
      var order = Array(0..<explore)
      for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, rng.integer(0, i)) }
      return order
    }
    var attempts = 0
    var k = 0
    while batch.count < explore && attempts < explore * 20 {
      attempts += 1
      let point = dimensions.indices.map { d in
        (Double(strata[d][k % explore]) + rng.uniform(0, 1)) / Double(explore)
      }
      k += 1
      if let s = setting(at: point) { batch.append(s) }
    }
    try evaluateBatch(batch, phase: "explore")

    let rounds = 4
    let perRound = max(1, (settings.trials - trials.count) / rounds)
    var width = 0.15
    for r in 0..<rounds where trials.count < settings.trials {
      let perRound = r == rounds - 1 ? settings.trials - trials.count : perRound
      let all = Array(0..<traceCount)
      let scores = trials.map { settings.score($0, over: all) }
      let ranked = trials.indices.sorted {
        settings.objective.isBetter((scores[$0], $0), than: (scores[$1], $1))
      }
      let parents = ranked.prefix(4).map { trials[$0] }
      var round: [RuleSetting] = []
      attempts = 0
      while round.count < min(perRound, settings.trials - trials.count) && attempts < perRound * 20 {
        attempts += 1
        let parent = parents[round.count % parents.count]
        let point = dimensions.map { d -> Double in
          let value = parent.setting.assignments.first { $0.name == d.name }?.value ?? (d.low + d.high) / 2
          return min(1, max(0, d.position(of: value) + width * rng.normal()))
        }
        if let s = setting(at: point) { round.append(s) }
      }
      try evaluateBatch(round, phase: "refine")
      width /= 2
    }

    let objective = settings.objective
    func bestTrial(over traces: [Int]) -> Int {
      let scores = trials.map { settings.score($0, over: traces) }
      return scores.indices.min { objective.isBetter((scores[$0], $0), than: (scores[$1], $1)) }!
    }
    let best = bestTrial(over: Array(0..<traceCount))
    var folds: [(traces: [Int], chosen: Int, heldOut: Metrics)] = []
    let k2 = min(settings.folds, traceCount)
    if settings.foldsBySource, let groups = settings.groups {
      // Leave one source out: the choice on every other source, scored on the one left out.
      for g in Set(groups).sorted() {
        let heldOut = (0..<traceCount).filter { groups[$0] == g }
        let rest = (0..<traceCount).filter { groups[$0] != g }
        guard !rest.isEmpty else { continue }
        let chosen = bestTrial(over: rest)
        folds.append((heldOut, chosen, heldOut.reduce(Metrics()) { $0 + trials[chosen].perTrace[$1] }))
      }
    } else if k2 >= 2 {
      for f in 0..<k2 {
        let heldOut = Array(stride(from: f, to: traceCount, by: k2))
        let rest = (0..<traceCount).filter { $0 % k2 != f }
        let chosen = bestTrial(over: rest)
        folds.append((heldOut, chosen, heldOut.reduce(Metrics()) { $0 + trials[chosen].perTrace[$1] }))
      }
    }
    return TuningResult(settings: settings, trials: trials, best: best, folds: folds)
  }

  static func defaultValue(rule: String, name: String) -> Double? {
    guard let type = Detectors.named(rule) else { return nil }
    return Detectors.parameterRows(type).first { $0.name == name }?.defaultValue
  }
}

extension TuningResult {
  /// Every trial: its parameters, counts and metrics, whether it meets the constraints.
  public func trialsCSV() -> String {
    var text = "trial,phase,params,tp,fp,fn,precision,recall,f1,false_alarms_per_hour,feasible\n"
    for t in trials {
      let m = t.total
      text += "\(t.index),\(t.phase),\(t.setting.parameterText),\(m.tp),\(m.fp),\(m.fn),"
      text += "\(formatNumber(m.precision)),\(formatNumber(m.recall)),\(formatNumber(m.f1)),"
      text += "\(formatNumber(m.falseAlarmsPerHour)),\(settings.objective.violation(m) == 0 ? 1 : 0)\n"
    }
    return text
  }

  /// The cross-validated estimate: per fold, the trial chosen on the other folds and how it did
  /// on the held-out traces.
  public func foldsCSV() -> String {
    let bySource = settings.foldsBySource && settings.groups != nil
    var text =
      (bySource ? "held_out_source," : "")
      + "fold,traces,chosen_trial,params,tp,fp,fn,precision,recall,f1,false_alarms_per_hour\n"
    for (f, fold) in folds.enumerated() {
      let m = fold.heldOut
      if bySource, let first = fold.traces.first, let g = settings.groups?[first] {
        text += csvField(settings.groupNames[g]) + ","
      }
      text += "\(f + 1),\(fold.traces.count),\(fold.chosen),\(trials[fold.chosen].setting.parameterText),"
      text +=
        "\(m.tp),\(m.fp),\(m.fn),\(formatNumber(m.precision)),\(formatNumber(m.recall)),\(formatNumber(m.f1)),"
      text += "\(formatNumber(m.falseAlarmsPerHour))\n"
    }
    return text
  }

  /// The held-out metrics of every fold summed: the estimate of how the tuning generalises.
  public var crossValidated: Metrics? {
    folds.isEmpty ? nil : folds.reduce(Metrics()) { $0 + $1.heldOut }
  }

  /// The best setting as a parameter file for `--params-file`: every searched and fixed value.
  public func parameterFile(command: String) -> String {
    let s = trials[best].setting
    var text = "# accelkit parameter file: \(s.rule), written by\n#   \(command)\n"
    let m = trials[best].total
    text += "# on every trace: f1 \(formatNumber(m.f1)), precision \(formatNumber(m.precision)), "
    text += "recall \(formatNumber(m.recall)), false alarms per hour \(formatNumber(m.falseAlarmsPerHour))\n"
    for a in s.assignments { text += "\(s.rule).\(a.name)=\(formatNumber(a.value))\n" }
    return text
  }

  /// Trials that no other beats on both F1 and false alarms per hour, by false alarms.
  public var paretoFront: [Int] {
    let points = trials.indices.map {
      (fa: trials[$0].total.falseAlarmsPerHour, f1: trials[$0].total.f1, i: $0)
    }
    .sorted { ($0.fa, -$0.f1, $0.i) < ($1.fa, -$1.f1, $1.i) }
    var front: [Int] = []
    var bestF1 = -Double.infinity
    for p in points where p.f1 > bestF1 {
      front.append(p.i)
      bestF1 = p.f1
    }
    return front
  }
}
