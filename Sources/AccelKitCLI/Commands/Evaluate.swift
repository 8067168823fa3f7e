#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelPlot
import ArgumentParser

struct Evaluate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evaluate",
    abstract: "Benchmark shake rules against annotated recordings: precision, recall, F1, delays, false alarms; CI gates.",
    discussion: """
      DATASET is a folder with manifest.csv (trace,events[,preset][,rate][,units][,convention] \
      [,split]; paths relative to the folder), or one trace with --labels EVENTS.csv. Detections \
      and annotations of --label are matched one to one (a maximum matching) when their \
      intervals overlap after widening both by --tolerance seconds. Traces are evaluated in \
      parallel; results do not depend on the parallelism.

      Metrics: tp, fp, fn, precision (1 with no detections), recall (1 with no annotations), f1, \
      mean and median onset error |detection start - annotation start|, median delay \
      (reported - annotation start), false alarms per hour, duration. --fail-under and \
      --fail-over gate every evaluated setting (with --sweep, the best-F1 setting of each rule) \
      and exit 1 with a one-line reason after the reports are written.

      Examples:
        accelkit evaluate datasets/test -o notebooks-out
        accelkit evaluate datasets/test --rule three-peak --fail-under f1=0.9,recall=0.85 --fail-over false_alarms_per_hour=2
        accelkit evaluate datasets/train --sweep three-peak.move_g=0.5:1.0:0.05 -o sweep-out
        accelkit evaluate walk.csv --labels walk-events.csv --rule seismic
        accelkit evaluate datasets/test --baseline notebooks-out/summary.csv --fail-on-regression
      """)

  enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "A dataset folder (with manifest.csv), a manifest, or one trace with --labels.")
  var dataset: String

  @Option(help: ArgumentHelp("The annotations of a single trace.", valueName: "events.csv"))
  var labels: String?

  @Option(name: .customLong("rule"), help: "A rule to evaluate (repeatable; default: all).")
  var rules: [String] = []

  @Option(name: .customLong("param"), help: ArgumentHelp("Set a parameter: RULE.NAME=VALUE (repeatable).", valueName: "rule.name=value"))
  var params: [String] = []

  @Option(help: "The annotation label detections are matched with.")
  var label: String = "shake"

  @Option(help: ArgumentHelp("Widen both intervals by this much before testing overlap.", valueName: "seconds"))
  var tolerance: Double = 0.25

  @Flag(help: "Count cancelled detections too.")
  var includeCancelled = false

  @Option(name: .shortAndLong, help: ArgumentHelp("Write summary.csv, per-trace.csv, detections.csv (and sweep.csv) into this folder.", valueName: "dir"))
  var output: String?

  @Option(help: "The stdout format: table, csv or json (default: table on a terminal, csv otherwise).")
  var format: Format?

  @Option(help: ArgumentHelp("Fail (exit 1) when a metric is below: e.g. f1=0.9,recall=0.85.", valueName: "gates"))
  var failUnder: String?

  @Option(help: ArgumentHelp("Fail (exit 1) when a metric is above: e.g. false_alarms_per_hour=2.", valueName: "gates"))
  var failOver: String?

  @Option(name: .customLong("sweep"), help: ArgumentHelp("Evaluate a grid: RULE.NAME=FROM:TO:STEP (repeatable).", valueName: "rule.name=from:to:step"))
  var sweeps: [String] = []

  @Option(help: ArgumentHelp("A previous summary.csv to compare with.", valueName: "summary.csv"))
  var baseline: String?

  @Flag(help: "With --baseline: exit 1 when F1 drops or false alarms per hour rise for a setting.")
  var failOnRegression = false

  @Option(help: "Traces evaluated at once (default: all cores).")
  var jobs: Int?

  static let gateMetrics = ["precision", "recall", "f1", "false_alarms_per_hour", "mean_onset_error_s", "median_onset_error_s", "median_delay_s"]

  func validate() throws {
    if !(tolerance >= 0) { throw ValidationError("--tolerance must be at least 0 s, got \(tolerance)") }
    for r in rules where ShakeRules.named(r) == nil {
      throw ValidationError("unknown rule \"\(r)\"; the rules are \(ShakeRules.all.map { $0.name }.joined(separator: ", "))")
    }
    _ = try parseGates(failUnder)
    _ = try parseGates(failOver)
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    if failOnRegression && baseline == nil { throw ValidationError("--fail-on-regression needs --baseline") }
  }

  func parseGates(_ text: String?) throws -> [(String, Double)] {
    guard let text else { return [] }
    return try text.split(separator: ",").map { part in
      let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks() }
      guard pieces.count == 2, let value = Double(pieces[1]) else {
        throw ValidationError("gates are METRIC=VALUE pairs, got \"\(part)\"")
      }
      guard Self.gateMetrics.contains(pieces[0]) else {
        throw ValidationError("unknown metric \"\(pieces[0])\"; gates take \(Self.gateMetrics.joined(separator: ", "))")
      }
      return (pieces[0], value)
    }
  }

  /// The settings to evaluate: each rule with its --param values, or its sweep grid.
  func settings() throws -> [RuleSetting] {
    let chosen = rules.isEmpty ? ShakeRules.all.map { $0.name } : rules
    var fixed: [String: [String: Double]] = [:]
    for item in params {
      guard let eq = item.firstIndex(of: "="), let dot = item[..<eq].firstIndex(of: "."),
        let value = Double(item[item.index(after: eq)...].trimmingBlanks())
      else { throw AccelError.usage("--param expects RULE.NAME=VALUE, got \"\(item)\"") }
      let rule = String(item[..<dot])
      guard ShakeRules.named(rule) != nil else { throw AccelError.usage("--param \(item): unknown rule \"\(rule)\"") }
      fixed[rule, default: [:]][String(item[item.index(after: dot)..<eq])] = value
    }
    var grids: [String: [(String, [Double])]] = [:]
    for item in sweeps {
      guard let eq = item.firstIndex(of: "="), let dot = item[..<eq].firstIndex(of: ".") else {
        throw AccelError.usage("--sweep expects RULE.NAME=FROM:TO:STEP, got \"\(item)\"")
      }
      let rule = String(item[..<dot])
      let name = String(item[item.index(after: dot)..<eq])
      let range = item[item.index(after: eq)...].split(separator: ":").compactMap { Double($0) }
      guard range.count == 3, range[2] > 0, range[1] >= range[0] else {
        throw AccelError.usage("--sweep \(item): expected FROM:TO:STEP with FROM <= TO and STEP > 0")
      }
      var values: [Double] = []
      var k = 0
      while true {
        let v = range[0] + Double(k) * range[2]
        if v > range[1] + range[2] * 1e-9 { break }
        values.append((v * 1e12).rounded() / 1e12)
        k += 1
      }
      guard ShakeRules.named(rule) != nil else { throw AccelError.usage("--sweep \(item): unknown rule \"\(rule)\"") }
      grids[rule, default: []].append((name, values))
    }
    var result: [RuleSetting] = []
    for rule in chosen + grids.keys.filter({ !chosen.contains($0) }).sorted() {
      let base = fixed[rule] ?? [:]
      var combos: [[String: Double]] = [base]
      for (name, values) in grids[rule] ?? [] {
        combos = combos.flatMap { c in values.map { v in c.merging([name: v]) { $1 } } }
      }
      let ruleType = ShakeRules.named(rule)!
      var skipped = 0
      for c in combos {
        _ = try ShakeRules.resolve(c, for: ruleType)
        if grids[rule] != nil {
          // A grid may cross a rule's own constraints (angular-change needs end <= begin): skip those.
          guard (try? ruleType.init(rate: 100, parameters: c)) != nil else {
            skipped += 1
            continue
          }
        } else {
          _ = try ruleType.init(rate: 100, parameters: c)
        }
        result.append(RuleSetting(rule: rule, parameters: c))
      }
      if skipped > 0 { Diagnostics.note("skipped \(skipped) \(rule) settings the rule refuses") }
    }
    return result
  }

  struct Job: Sendable {
    var trace: String
    var events: String
    var readSettings: TraceReadSettings
    var location: DataLocation?
  }

  func jobsToRun() throws -> [Job] {
    let base = try input.settings()
    if let labels {
      return [Job(trace: dataset, events: labels, readSettings: base, location: nil)]
    }
    let entries = try Manifest.read(dataset: dataset)
    let manifestPath = dataset.hasSuffix(".csv") ? dataset : dataset + "/manifest.csv"
    return try entries.map { entry in
      var s = base
      let location = DataLocation(file: manifestPath, line: entry.line)
      if let name = entry.preset {
        guard let p = Preset.named(name) else {
          throw AccelError.data(location, "unknown preset \"\(name)\"", hint: "see `accelkit presets`")
        }
        if let c = p.columns { s.columns = try ColumnSpec(parsing: c) }
        if let r = p.rate { s.rate = r }
        if let v = p.timeUnit { s.timeUnit = v }
        if let v = p.units { s.units = v }
        if let v = p.convention { s.convention = v }
      }
      if let r = entry.rate { s.rate = r }
      if let u = entry.units {
        guard let v = UnitsSetting(name: u) else { throw AccelError.data(location, "unknown units \"\(u)\"") }
        s.units = v
      }
      if let c = entry.convention {
        guard let v = AxisConvention(rawValue: c) else { throw AccelError.data(location, "unknown convention \"\(c)\"") }
        s.convention = v
      }
      return Job(trace: entry.trace, events: entry.events, readSettings: s, location: location)
    }
  }

  /// index.html: the summary table, the precision/recall curve (with a sweep) and, per rule, one
  /// example trace with its annotations and that rule's detections.
  func writeIndex(_ report: EvaluationReport, jobs: [Job], annotations: [[LabeledInterval]], to directory: String) throws {
    var html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>accelkit evaluation</title>\n"
    html += "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}td:first-child,td:nth-child(2){text-align:left}</style>\n"
    html += "</head><body>\n<h1>accelkit evaluation</h1>\n<p>\(escapeXML(dataset)): \(report.traces.count) traces, label \"\(escapeXML(label))\", tolerance \(formatNumber(tolerance)) s.</p>\n"
    html += "<h2>Summary</h2>\n<table>\n<tr><th>rule</th><th>params</th><th>tp</th><th>fp</th><th>fn</th><th>precision</th><th>recall</th><th>F1</th><th>median onset error (s)</th><th>median delay (s)</th><th>false alarms / h</th></tr>\n"
    func f(_ v: Double?) -> String { v.map { cFormat("%.3f", $0) } ?? "" }
    for (i, s) in report.settings.enumerated() {
      let m = report.summary[i]
      html += "<tr><td>\(s.rule)</td><td>\(escapeXML(s.parameterText.isEmpty ? "defaults" : s.parameterText))</td><td>\(m.tp)</td><td>\(m.fp)</td><td>\(m.fn)</td><td>\(f(m.precision))</td><td>\(f(m.recall))</td><td>\(f(m.f1))</td><td>\(f(m.medianOnsetError))</td><td>\(f(m.medianDelay))</td><td>\(f(m.falseAlarmsPerHour))</td></tr>\n"
    }
    html += "</table>\n"
    // Precision against recall: a curve per rule with --sweep, a point per rule without.
    let rows = report.settings.enumerated().map { i, s in
      (rule: s.rule, params: s.parameterText, precision: report.summary[i].precision, recall: report.summary[i].recall, f1: report.summary[i].f1)
    }
    html += "<h2>Precision and recall</h2>\n" + Plots.precisionRecall(rows: rows, title: report.sweeping ? "precision / recall per setting" : "precision / recall per rule")
    html += "<h2>Examples</h2>\n"
    var shown: Set<String> = []
    for (i, s) in report.settings.enumerated() where !shown.contains(s.rule) {
      // The first trace where this rule detected something and there is something to find.
      guard let k = report.traces.indices.first(where: { !report.traces[$0].detections[i].isEmpty && annotations[$0].contains { $0.label == label } })
        ?? report.traces.indices.first(where: { !report.traces[$0].detections[i].isEmpty })
      else { continue }
      shown.insert(s.rule)
      let (source, _) = try TraceOpener.open(path: jobs[k].trace, settings: jobs[k].readSettings)
      let samples = try source.readAll()
      let truth = annotations[k].filter { $0.label == label }.map { PlotEvent(start: $0.start, end: $0.end, label: $0.label) }
      let detections = report.traces[k].detections[i].map { d in
        PlotEvent(start: d.detection.start, end: d.detection.end, label: d.match == nil ? "false alarm" : "detected")
      }
      html += "<h3>\(s.rule) on \(escapeXML(report.traces[k].name))</h3>\n"
      html += Plots.trace(
        t: samples.t, x: samples.x, y: samples.y, z: samples.z, events: [truth, detections], eventNames: ["truth", s.rule],
        title: "\(report.traces[k].name): truth (top band) and \(s.rule) (bottom band)")
    }
    html += "</body></html>\n"
    let file = try OutputFile(path: directory + "/index.html")
    try file.write(html)
    try file.commit()
  }

  func run() throws {
    let settings = try settings()
    let jobs = try jobsToRun()
    let annotations = try jobs.map { job -> [LabeledInterval] in
      do {
        return try EventsFile.read(path: job.events)
      } catch let error as AccelError {
        if let location = job.location, case .data(let inner, let text, let hint) = error {
          throw AccelError.data(location, "\(inner.description): \(text)", hint: hint)
        }
        throw error
      }
    }
    let labelsSeen = Set(annotations.flatMap { $0.map(\.label) })
    if !annotations.allSatisfy(\.isEmpty) && !labelsSeen.contains(label) {
      throw AccelError.data(
        DataLocation(file: labels ?? dataset), "no annotation has the label \"\(label)\"",
        hint: "the labels are \(labelsSeen.sorted().joined(separator: ", ")); choose one with --label")
    }
    let label = self.label, tolerance = self.tolerance, includeCancelled = self.includeCancelled
    let allAnnotations = annotations
    let indices = Array(jobs.indices)
    let results = parallelMap(indices, jobs: self.jobs) { i in
      Result {
        try Evaluator.evaluate(
          trace: jobs[i].trace, readSettings: jobs[i].readSettings, annotations: allAnnotations[i], settings: settings,
          label: label, tolerance: tolerance, includeCancelled: includeCancelled, location: jobs[i].location)
      }
    }
    var evaluations: [TraceEvaluation] = []
    for r in results {
      switch r {
      case .success(let e): evaluations.append(e)
      case .failure(let error): throw error
      }
    }
    let report = EvaluationReport(settings: settings, traces: evaluations, sweeping: !sweeps.isEmpty)
    if let output {
      try report.write(to: output, inputs: [])
      try writeIndex(report, jobs: jobs, annotations: annotations, to: output)
    }
    let chosen = format ?? (Diagnostics.stdoutIsTerminal ? .table : .csv)
    switch chosen {
    case .table: try writeStdout(report.table())
    case .csv: try writeStdout(report.summaryCSV())
    case .json: try writeStdout(report.json())
    }
    if !sweeps.isEmpty {
      for (rule, best) in report.bestPerRule() {
        Diagnostics.note("best F1 for \(rule): \(formatNumber(report.summary[best].f1)) with \(settings[best].parameterText.isEmpty ? "the defaults" : settings[best].parameterText)")
      }
    }
    var failures: [String] = []
    if let baseline {
      let (changes, regressions) = try report.compare(withBaseline: baseline)
      for line in changes { Diagnostics.note(line) }
      if failOnRegression { failures += regressions }
    }
    let gated = sweeps.isEmpty ? Array(settings.indices) : report.bestPerRule().map(\.1)
    for i in gated {
      let m = report.summary[i]
      for (metric, limit) in try parseGates(failUnder) {
        if let v = EvaluationReport.value(metric, m), v < limit {
          failures.append("\(settings[i]): \(metric) \(formatNumber(v)) is under \(formatNumber(limit))")
        }
      }
      for (metric, limit) in try parseGates(failOver) {
        if let v = EvaluationReport.value(metric, m), v > limit {
          failures.append("\(settings[i]): \(metric) \(formatNumber(v)) is over \(formatNumber(limit))")
        }
      }
    }
    if !failures.isEmpty {
      Diagnostics.printError("Gate failed: " + failures.joined(separator: "; "))
      throw ExitCode(1)
    }
  }
}
