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

/// One searched parameter: a name of the rule's table and the interval searched, on a linear or
/// a logarithmic scale; whole-number parameters are rounded.
public struct SearchDimension: Sendable, Equatable {
  public var name: String
  public var low: Double
  public var high: Double
  public var logarithmic: Bool
  public var isInteger: Bool

  public init(
    _ name: String, _ low: Double, _ high: Double, logarithmic: Bool = false, isInteger: Bool = false
  ) {
    self.name = name
    self.low = low
    self.high = high
    self.logarithmic = logarithmic
    self.isInteger = isInteger
  }

  /// The value at `u` in [0, 1] along the interval.
  public func value(at u: Double) -> Double {
    let u = min(1, max(0, u))
    var v = logarithmic ? exp(log(low) + u * (log(high) - log(low))) : low + u * (high - low)
    if isInteger { v = v.rounded() }
    // Twelve significant digits: parameter files and reports show the value that was run.
    return isInteger ? v : Double(cFormat("%.12g", v))!
  }

  /// Where `v` lies along the interval, in [0, 1].
  public func position(of v: Double) -> Double {
    guard high > low else { return 0.5 }
    return logarithmic ? (log(v) - log(low)) / (log(high) - log(low)) : (v - low) / (high - low)
  }
}

/// What `tune` optimises: a metric to maximise or minimise, subject to bounds on others.
public struct TuningObjective: Sendable, Equatable {
  public struct Constraint: Sendable, Equatable {
    public var metric: String
    public var atMost: Bool
    public var limit: Double

    public init(metric: String, atMost: Bool, limit: Double) {
      self.metric = metric
      self.atMost = atMost
      self.limit = limit
    }
  }
  public var metric: String
  public var maximize: Bool
  public var constraints: [Constraint]

  public init(metric: String = "f1", maximize: Bool = true, constraints: [Constraint] = []) {
    self.metric = metric
    self.maximize = maximize
    self.constraints = constraints
  }

  /// Metrics a tuning can aim at or bound: the counts-based ones (their sums over traces are the
  /// same whichever traces are summed first), the standard (sed_eval) figures over all traces
  /// among them.
  public static let metrics =
    ["f1", "precision", "recall", "false_alarms_per_hour"]
    + EvaluationReport.standardColumns.filter { !$0.hasSuffix("_macro") }

  /// The metrics that are better higher (the others are better lower).
  public static let higherIsBetter = metrics.filter { EvaluationReport.higherIsBetter($0) }

  /// Parses `false_alarms_per_hour<=1,recall>=0.8`.
  public static func parseConstraints(_ text: String?) throws -> [Constraint] {
    guard let text, !text.isEmpty else { return [] }
    return try text.split(separator: ",").map { part in
      let item = String(part).trimmingBlanks()
      let atMost = item.contains("<=")
      let operatorText = atMost ? "<=" : ">="
      let at = item.indices.first { item[$0...].hasPrefix(operatorText) }
      let pieces = at.map { [String(item[..<$0]), String(item[item.index($0, offsetBy: 2)...])] } ?? []
      guard pieces.count == 2, let limit = Double(pieces[1].trimmingBlanks()), limit.isFinite else {
        throw AccelError.usage(
          "--subject-to takes METRIC<=VALUE or METRIC>=VALUE pairs, got \(quotedField(item))")
      }
      let metric = pieces[0].trimmingBlanks()
      guard metrics.contains(metric) else {
        throw AccelError.usage(
          "--subject-to: unknown metric \(quotedField(metric)); it takes \(metrics.joined(separator: ", "))")
      }
      return Constraint(metric: metric, atMost: atMost, limit: limit)
    }
  }

  /// The metric's value; an undefined standard precision, recall or F1 (nothing detected or
  /// annotated) counts as 0, the worst.
  static func value(_ metric: String, _ m: Metrics) -> Double {
    EvaluationReport.value(metric, m) ?? 0
  }

  /// How far `m` is outside the constraints (0 when it meets them all), each bound's miss in its
  /// metric's own units. An undefined metric counts as 0 (the worst for precision, recall and F1),
  /// or, `skippingUndefined`, does not count (a source without annotations has no recall).
  public func violation(_ m: Metrics, skippingUndefined: Bool = false) -> Double {
    constraints.reduce(0) { sum, c in
      guard let v = EvaluationReport.value(c.metric, m) ?? (skippingUndefined ? nil : 0) else { return sum }
      return sum + max(0, c.atMost ? v - c.limit : c.limit - v)
    }
  }

  /// The score of one result: summed over all its traces, or, with `groups` (the metrics of
  /// each source), by the worst source: every bound must hold on every source where its metric
  /// is defined (the misses add up), and the objective is the worst source's value among those
  /// where it is defined (F1 only where there are annotations).
  public func score(_ total: Metrics, groups: [Metrics]? = nil) -> TuningScore {
    guard let groups, !groups.isEmpty else {
      return TuningScore(
        violation: violation(total), objective: Self.value(metric, total),
        falseAlarmsPerHour: total.falseAlarmsPerHour)
    }
    let miss = groups.reduce(0) { $0 + violation($1, skippingUndefined: true) }
    let values = groups.compactMap { EvaluationReport.value(metric, $0) }
    let worst = values.isEmpty ? Self.value(metric, total) : (maximize ? values.min()! : values.max()!)
    return TuningScore(violation: miss, objective: worst, falseAlarmsPerHour: total.falseAlarmsPerHour)
  }

  /// Whether `a` is a better result than `b`: feasible before infeasible, then the objective,
  /// then fewer false alarms, then the earlier trial.
  public func isBetter(_ a: (TuningScore, Int), than b: (TuningScore, Int)) -> Bool {
    let (va, vb) = (a.0.violation, b.0.violation)
    if (va == 0) != (vb == 0) { return va == 0 }
    if va != vb { return va < vb }
    let (oa, ob) = (a.0.objective, b.0.objective)
    if oa != ob { return maximize ? oa > ob : oa < ob }
    if a.0.falseAlarmsPerHour != b.0.falseAlarmsPerHour {
      return a.0.falseAlarmsPerHour < b.0.falseAlarmsPerHour
    }
    return a.1 < b.1
  }
}

/// How good a trial is: how far it misses the bounds, its objective and its false alarms.
public struct TuningScore: Sendable, Equatable {
  public var violation: Double
  public var objective: Double
  public var falseAlarmsPerHour: Double

  public init(violation: Double, objective: Double, falseAlarmsPerHour: Double) {
    self.violation = violation
    self.objective = objective
    self.falseAlarmsPerHour = falseAlarmsPerHour
  }
}

/// A tuning run's settings.
public struct TuningSettings: Sendable {
  public var rule: String
  /// Parameters held fixed (set by name).
  public var fixed: [(String, Double)] = []
  public var space: [SearchDimension]
  public var objective = TuningObjective()
  public var trials = 200
  public var seed: UInt64 = 1
  /// Folds for the cross-validated estimate (traces i, i + k, i + 2k, ... form fold i).
  public var folds = 5
  /// Per trace, the index of its source in `groupNames` (the manifest's `source`), when known.
  public var groups: [Int]? = nil
  public var groupNames: [String] = []
  /// Cross-validate by leaving one source out at a time (positives and negatives alike) instead
  /// of by folds of traces.
  public var foldsBySource = false
  /// Choose by the worst source: bounds on every source, the worst source's objective.
  public var worstSource = false

  public init(rule: String, space: [SearchDimension]) {
    self.rule = rule
    self.space = space
  }
}

/// One evaluated setting.
public struct TuningTrial: Sendable {
  public var index: Int
  /// "explore" (spread over the space) or "refine" (near the best so far).
  public var phase: String
  public var setting: RuleSetting
  /// Per trace.
  public var perTrace: [Metrics]
  public var total: Metrics
}

/// The result of a tuning run.
public struct TuningResult: Sendable {
  public var settings: TuningSettings
  public var trials: [TuningTrial]
  /// The best trial over every trace.
  public var best: Int
  /// Per fold: the traces held out, the trial chosen on the others, and its metrics on the held
  /// out traces.
  public var folds: [(traces: [Int], chosen: Int, heldOut: Metrics)]
}

extension TuningSettings {
  /// Groups the traces by their manifests' sources (nil: "unknown"), for folds that leave one
  /// source out (`foldsBySource`) and for choosing by the worst source (`worstSource`).
  ///
  /// - Throws: a usage error when the traces come from fewer than two sources.
  public mutating func group(bySources sources: [String?], foldsBySource: Bool, worstSource: Bool) throws {
    let names = sources.map { $0 ?? "unknown" }
    let distinct = Array(Set(names)).sorted()
    guard distinct.count >= 2 else {
      throw AccelError.usage(
        "\(foldsBySource ? "--cv source" : "--worst-source") needs traces from two sources or more; the manifests name \(distinct.count == 1 ? "one (\(distinct[0]))" : "none")",
        hint: "give the manifests a source column, or tune on datasets from several sources")
    }
    let index = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { ($1, $0) })
    groupNames = distinct
    groups = names.map { index[$0]! }
    self.foldsBySource = foldsBySource
    self.worstSource = worstSource
  }

  /// The score of `trial` over `traces`: by the worst source with `worstSource`, else summed.
  public func score(_ trial: TuningTrial, over traces: [Int]) -> TuningScore {
    let total =
      traces.count == trial.perTrace.count
      ? trial.total : traces.reduce(Metrics()) { $0 + trial.perTrace[$1] }
    guard worstSource, let groups else { return objective.score(total) }
    var perGroup: [Int: Metrics] = [:]
    for i in traces {
      perGroup[groups[i], default: Metrics()] = perGroup[groups[i], default: Metrics()] + trial.perTrace[i]
    }
    return objective.score(total, groups: perGroup.keys.sorted().map { perGroup[$0]! })
  }
}
