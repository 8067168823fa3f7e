import AccelCore
import AccelEvaluation
import AccelExport
import AccelGestures
import AccelIO
import AccelLearning
import AccelPlot

/// Writes what `accelkit train` learned into a model directory, all files together (atomic):
/// `detector.json` and `LABEL.xgb.json` (what detection reads; `LABEL.sustained.xgb.json` too
/// with a sustained classifier), and the report: `folds.csv`,
/// `sources.csv`, `positions.csv`, `activities.csv` and `held-out.csv` (held-out figures with the
/// chosen decoding, per fold, source, position, activity and trace), `decoding.csv` (every decoding
/// tried, and the traces it was scored on: `own`, the label's own decodings beside a sustained
/// classifier, scored on the traces its own classifier learns from, else `all`), `LABEL.importance.svg` (how often each feature splits a node, the 25 commonest).
public enum ModelDirectory {
  /// The files' names and contents, in a fixed order (the same inputs give the same bytes).
  public static func files(_ result: TrainingResult, command: String, version: String, scores: Bool = false)
    -> [(name: String, text: String)]
  {
    let s = result.settings
    var training =
      "{\n    \"accelkit\": \(jsonString(version)),\n    \"xgboost\": \(jsonString(result.xgboostVersion)),\n"
    training += "    \"command\": \(jsonString(command)),\n"
    training += "    \"traces\": \(result.traces),\n    \"windows\": \(result.windows),\n"
    training += "    \"sources\": [\(result.sourceNames.map(jsonString).joined(separator: ", "))],\n"
    training += "    \"cv\": \(jsonString(s.foldsBySource ? "source" : "trace")),\n"
    training +=
      "    \"rounds\": \(s.rounds), \"max_depth\": \(s.maxDepth), \"eta\": \(formatNumber(s.learningRate)), "
    training +=
      "\"subsample\": \(formatNumber(s.rowFraction)), \"colsample_bytree\": \(formatNumber(s.columnFraction)), "
    training += "\"seed\": \(s.seed), \"negative_stride\": \(s.negativeStride),\n"
    if let budget = s.budget {
      let cost = estimatedCost(result)
      training +=
        "    \"budget\": {\"ram\": \(budget.ram.map(String.init) ?? "null"), \"flash\": \(budget.flash.map(String.init) ?? "null"), "
      training += "\"estimated_ram\": \(cost.ram), \"estimated_flash\": \(cost.flash)"
      training += (budget.trees == .code ? "" : ", \"trees\": \(jsonString(budget.trees.rawValue))") + "},\n"
    }
    if !s.sourceWeights.isEmpty {
      let weights = s.sourceWeights.sorted { $0.key < $1.key }.map {
        "\(jsonString($0.key)): \(formatNumber($0.value))"
      }
      training += "    \"source_weights\": {\(weights.joined(separator: ", "))},\n"
    }
    if !s.excludedFeatures.isEmpty {
      training +=
        "    \"excluded_features\": [\(s.excludedFeatures.map(jsonString).joined(separator: ", "))],\n"
    }
    training += "    \"objective\": \(jsonString(objectiveText(s))),\n"
    training += "    \"held_out\": {"
    training += result.labels.map { l in
      "\(jsonString(l.label)): {\"positive_windows\": \(l.positives), \"negative_windows\": \(l.negatives), "
        + metricsJSON(l.total) + "}"
    }.joined(separator: ", ")
    training += "}\n  }"
    var files: [(String, String)] = [
      (
        LearnedModel.descriptionFile,
        LearnedModel.descriptionJSON(
          spec: s.spec, labels: result.labels.map(\.label), decoding: result.labels.map(\.decoding),
          training: training, sustained: Set(result.labels.filter { $0.sustainedModel != nil }.map(\.label)))
      )
    ]
    for l in result.labels {
      files.append((LearnedModel.classifierFile(l.label), String(decoding: l.model, as: UTF8.self)))
      if let sustained = l.sustainedModel {
        files.append(
          (LearnedModel.sustainedClassifierFile(l.label), String(decoding: sustained, as: UTF8.self)))
      }
    }
    files.append(("folds.csv", figuresCSV(result, kind: "fold", \.folds)))
    files.append(("sources.csv", figuresCSV(result, kind: "source", \.sources)))
    files.append(("positions.csv", figuresCSV(result, kind: "position", \.positions)))
    files.append(("activities.csv", figuresCSV(result, kind: "activity", \.activities)))
    files.append(("held-out.csv", heldOutCSV(result)))
    files.append(("decoding.csv", searchCSV(result)))
    if scores { files.append((scoresFile, scoresCSV(result))) }
    for l in result.labels {
      let names = s.spec.names
      let counts = (try? TreeEnsemble(json: l.model, file: l.label).splitCounts) ?? []
      let top = counts.indices.sorted { counts[$0] != counts[$1] ? counts[$0] > counts[$1] : $0 < $1 }.prefix(
        25)
      files.append(
        (
          "\(l.label).importance.svg",
          Plots.bars(
            top.map { (names[$0], Double(counts[$0])) }, xLabel: "nodes split on the feature",
            title: "\(l.label): the features the trees split on most")
        ))
    }
    return files
  }

  /// What the model's exported C is estimated to cost a Cortex-M4F in float (ModelCost): its
  /// features' RAM and its trees' flash.
  public static func estimatedCost(_ result: TrainingResult) -> (ram: Int, flash: Int) {
    let ensembles = result.labels.flatMap { [$0.model] + ($0.sustainedModel.map { [$0] } ?? []) }.compactMap {
      try? TreeEnsemble(json: $0, file: "").structure.trees
    }
    let nodes = ensembles.reduce(0) { total, trees in total + trees.reduce(0) { $0 + $1.count } }
    let spec = result.settings.spec
    return (
      ModelCost.ram(spec: spec),
      ModelCost.flash(
        nodes: nodes, trees: ensembles.reduce(0) { $0 + $1.count }, spec: spec,
        layout: result.settings.budget?.trees ?? .code,
        sustained: result.labels.filter { $0.sustainedModel != nil }.count)
    )
  }

  /// The names of the files written for `labels` (with their sustained classifiers).
  public static func names(labels: [String], sustained: Bool = false, scores: Bool = false) -> [String] {
    [LearnedModel.descriptionFile] + labels.map(LearnedModel.classifierFile)
      + (sustained ? labels.map(LearnedModel.sustainedClassifierFile) : [])
      + ["folds.csv", "sources.csv", "positions.csv", "activities.csv", "held-out.csv", "decoding.csv"]
      + (scores ? [scoresFile] : [])
      + labels.map { "\($0).importance.svg" }
  }

  /// A decoding as train prints it: the thresholds, then only the parts that are in use (the
  /// sustained classifier's thresholds, a hold, an extension).
  public static func describe(_ c: ProbabilityDecoder.Configuration) -> String {
    "on \(formatNumber(c.on)), off \(formatNumber(c.off)), "
      + "min_duration_s \(formatNumber(c.minDurationSeconds)), merge_gap_s \(formatNumber(c.mergeGapSeconds))"
      + (c.hasSustainedThresholds
        ? "; sustained on \(formatNumber(c.sustainedOn)), off \(formatNumber(c.sustainedOff))" : "")
      + (c.holdSeconds > 0 ? ", hold \(formatNumber(c.hold)) for \(formatNumber(c.holdSeconds)) s" : "")
      + (c.extend < 1 ? ", extend \(formatNumber(c.extend))" : "")
      + (c.smoothing > 0
        ? ", q averaged over \(formatNumber(c.smoothing)) s on at \(formatNumber(c.smoothedOn))" : "")
  }

  /// What train prints: per label, the decoding chosen and the held-out figures, per source
  /// when there are several.
  public static func summary(_ result: TrainingResult) -> String {
    var text =
      "learned from \(result.traces) traces (\(result.windows) windows) of \(result.sourceNames.count) source\(result.sourceNames.count == 1 ? "" : "s"); "
    text +=
      result.settings.foldsBySource
      ? "one source held out at a time\n" : "\(result.settings.folds) folds of traces held out\n"
    for l in result.labels {
      text += "\(l.label): \(describe(l.decoding))\n"
      text += "  held out: " + line(l.total, traces: l.traces.map(\.metrics)) + "\n"
      for note in l.notes { text += "  note: \(note)\n" }
      if l.sources.count > 1 {
        for g in l.sources {
          text += "  \(g.name): " + line(g.metrics, traces: g.members.map { l.traces[$0].metrics }) + "\n"
        }
      }
    }
    return text
  }

  /// What a budget chose and cost: the features, trees and estimated footprint, and each label's
  /// held-out F1 beside the unbudgeted model's.
  public static func budgetSummary(_ result: TrainingResult, unbudgeted: TrainingResult) -> String {
    let s = result.settings
    let cost = estimatedCost(result)
    let free = estimatedCost(unbudgeted)
    let classifiers = result.labels.reduce(0) { $0 + ($1.sustainedModel == nil ? 1 : 2) }
    let limits = [
      s.budget?.ram.map { "RAM <= \($0)" }, s.budget?.flash.map { "flash <= \($0)" },
    ].compactMap { $0 }.joined(separator: ", ")
    var text =
      "budget (\(limits) bytes on a Cortex-M4F in float\(s.budget?.trees == .table ? ", trees as a table" : "")): "
    text += "a \(formatNumber(s.spec.rateHz)) Hz grid, \(s.spec.widthsPhrase), "
    text +=
      "bands \(s.spec.bands.map { "\(formatNumber($0.low))-\(formatNumber($0.high))" }.joined(separator: ", ")) Hz, "
    text +=
      "\(s.rounds) trees of depth \(s.maxDepth)\(classifiers > 1 ? " in each of \(classifiers) classifiers" : "") at a learning rate of \(cFormat("%.3g", s.learningRate)); estimated RAM \(cost.ram) and flash \(cost.flash) bytes "
    text += "(unbudgeted: \(free.ram) and \(free.flash); scripts/footprint measures an export)\n"
    for (l, u) in zip(result.labels, unbudgeted.labels) {
      text += "  \(l.label) held out: " + line(l.total, traces: l.traces.map(\.metrics)) + "\n"
      text += "  \(u.label) unbudgeted: " + line(u.total, traces: u.traces.map(\.metrics)) + "\n"
    }
    return text
  }

  /// One line of figures: F1 with its 95% interval (a bootstrap over `traces`, the per-trace
  /// metrics, as evaluate's), precision, recall, the events behind them, the share of the
  /// annotated time covered (segment recall, with its interval), and false alarms.
  static func line(_ m: Metrics, traces: [Metrics]) -> String {
    var parts: [String] = []
    if m.tp + m.fn > 0 {
      let intervals = Bootstrap(traceCount: traces.count).intervals(
        traces, statistics: [{ $0.f1 }, { $0.standard.segments.recall }])
      func range(_ i: (low: Double, high: Double)?) -> String {
        i.map { " [\(cFormat("%.3f", $0.low)), \(cFormat("%.3f", $0.high))]" } ?? ""
      }
      parts.append(
        "f1 \(cFormat("%.3f", m.f1))\(range(intervals[0])) (precision \(cFormat("%.3f", m.precision)), recall \(cFormat("%.3f", m.recall)), \(m.tp) of \(m.tp + m.fn) events)"
      )
      if let covered = m.standard.segments.recall {
        parts.append("\(cFormat("%.3f", covered))\(range(intervals[1])) of the annotated time covered")
      }
    }
    parts.append(
      "\(m.fp) false alarms in \(cFormat("%.2f", m.duration / 3600)) h (\(cFormat("%.2f", m.falseAlarmsPerHour))/h)"
    )
    return parts.joined(separator: ", ")
  }

  /// Writes the files into `directory` (created when missing), all or none.
  public static func write(
    _ result: TrainingResult, to directory: String, command: String, version: String, scores: Bool = false
  ) throws {
    let files = files(result, command: command, version: version, scores: scores)
    try OutputFile.writeTogether(files.map { (directory + "/" + $0.name, $0.text) })
  }

  static func objectiveText(_ s: TrainingSettings) -> String {
    let o = s.objective
    var text = (o.maximize ? "maximise " : "minimise ") + o.metric
    if !o.constraints.isEmpty {
      text +=
        " subject to "
        + o.constraints.map { "\($0.metric)\($0.atMost ? "<=" : ">=")\(formatNumber($0.limit))" }
        .joined(separator: ",")
    }
    if s.worstSource { text += " on the worst source" }
    return text
  }

  static func metricsJSON(_ m: Metrics) -> String {
    "\"tp\": \(m.tp), \"fp\": \(m.fp), \"fn\": \(m.fn), \"hours\": \(formatNumber(rounded(m.duration / 3600))), "
      + "\"precision\": \(formatNumber(rounded(m.precision))), \"recall\": \(formatNumber(rounded(m.recall))), "
      + "\"f1\": \(formatNumber(rounded(m.f1))), \"false_alarms_per_hour\": \(formatNumber(rounded(m.falseAlarmsPerHour)))"
  }

  static func rounded(_ v: Double) -> Double { v.isFinite ? (v * 1e6).rounded() / 1e6 : 0 }

  static let metricColumns =
    "traces,hours,tp,fp,fn,precision,recall,f1,false_alarms_per_hour,false_alarms_per_hour_low,false_alarms_per_hour_high,"
    + "f1_low,f1_high,recall_low,recall_high,segment_recall,segment_recall_low,segment_recall_high"

  /// A group's figures: the counts and rates, false alarms per hour with an exact Poisson
  /// interval, and (where the group has annotations) F1, recall and segment recall (the share of
  /// annotated one-second segments a detection covers) with bootstrap intervals over its traces,
  /// as evaluate reports them.
  static func metricFields(_ group: HeldOutGroup, of label: LearnedLabel) -> String {
    let m = group.metrics
    let interval = PoissonInterval.rate(count: m.fp, exposure: m.duration / 3600)
    let annotated = m.tp + m.fn > 0
    let intervals = Bootstrap.detectionIntervals(group.members.map { label.traces[$0].metrics })
    func number(_ v: Double?) -> String { v.map { formatNumber(rounded($0)) } ?? "" }
    return [
      "\(group.members.count)", formatNumber(rounded(m.duration / 3600)), "\(m.tp)", "\(m.fp)", "\(m.fn)",
      m.tp + m.fp > 0 ? formatNumber(rounded(m.precision)) : "",
      annotated ? formatNumber(rounded(m.recall)) : "",
      annotated ? formatNumber(rounded(m.f1)) : "", formatNumber(rounded(m.falseAlarmsPerHour)),
      formatNumber(rounded(interval.low)), interval.high.isFinite ? formatNumber(rounded(interval.high)) : "",
      number(intervals[0]?.low), number(intervals[0]?.high), number(intervals[1]?.low),
      number(intervals[1]?.high),
      number(annotated ? m.standard.segments.recall : nil), number(intervals[2]?.low),
      number(intervals[2]?.high),
    ].joined(separator: ",")
  }

  /// One row per label and group of `groups` (its folds, sources, positions or activities), the
  /// groups' column named `kind`.
  static func figuresCSV(
    _ result: TrainingResult, kind: String, _ groups: KeyPath<LearnedLabel, [HeldOutGroup]>
  ) -> String {
    var text = "label,\(kind),\(metricColumns)\n"
    for l in result.labels {
      for g in l[keyPath: groups] {
        text += "\(csvField(l.label)),\(csvField(g.name)),\(metricFields(g, of: l))\n"
      }
    }
    return text
  }

  /// Every trace's held-out counts, for any other grouping (activity, subject).
  /// `train --scores`: every window's held-out probabilities, to try other decodings on without
  /// training again.
  public static let scoresFile = "held-out-scores.csv"

  /// One row per window of every trace: label, trace, source, the window's centre and end (s),
  /// its held-out probability p and its sustained classifier's q (empty without one).
  static func scoresCSV(_ result: TrainingResult) -> String {
    var text = "label,trace,source,center,end,p,q\n"
    for l in result.labels {
      for (t, trace) in l.traces.enumerated() {
        let prefix = [csvField(l.label), csvField(trace.name), csvField(trace.source)].joined(separator: ",")
        let p = l.heldOutProbabilities[t]
        let q = l.heldOutSustained?[t]
        for r in p.indices {
          text += prefix + "," + formatNumber(result.windowCenters[t][r]) + ","
          text += formatNumber(result.windowEnds[t][r]) + "," + formatNumber(p[r]) + ","
          text += (q.map { formatNumber($0[r]) } ?? "") + "\n"
        }
      }
    }
    return text
  }

  static func heldOutCSV(_ result: TrainingResult) -> String {
    var text = "label,trace,source,position,activity,seconds,tp,fp,fn,annotated_segments,covered_segments\n"
    for l in result.labels {
      for t in l.traces {
        text +=
          [
            csvField(l.label), csvField(t.name), csvField(t.source), csvField(t.position),
            csvField(t.activity), formatNumber(rounded(t.metrics.duration)), "\(t.metrics.tp)",
            "\(t.metrics.fp)", "\(t.metrics.fn)", "\(t.metrics.standard.segments.nref)",
            "\(t.metrics.standard.segments.ntp)",
          ].joined(separator: ",") + "\n"
      }
    }
    return text
  }

  static func searchCSV(_ result: TrainingResult) -> String {
    var text =
      "label,"
      + ProbabilityDecoder.Configuration.parameters.map(\.name).joined(separator: ",")
      + ",traces,violation,objective,tp,fp,fn,f1,false_alarms_per_hour,chosen\n"
    for l in result.labels {
      for (k, (c, score, total)) in l.search.enumerated() {
        let values = ProbabilityDecoder.Configuration.parameters.map { formatNumber(c.value(of: $0.name)!) }
        // The label's own decodings beside a sustained classifier were scored on its own traces.
        text += ([csvField(l.label)] + values + [k < l.ownSearched ? "own" : "all"]).joined(separator: ",")
        text += ",\(formatNumber(rounded(score.violation))),\(formatNumber(rounded(score.objective))),"
        text += "\(total.tp),\(total.fp),\(total.fn),\(formatNumber(rounded(total.f1))),"
        text += "\(formatNumber(rounded(total.falseAlarmsPerHour))),\(c == l.decoding ? 1 : 0)\n"
      }
    }
    return text
  }
}
