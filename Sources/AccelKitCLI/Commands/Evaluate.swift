import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelPlot
import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct Evaluate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "evaluate",
    abstract:
      "Benchmark shake rules against annotated recordings: precision, recall, F1, delays, false alarms; CI gates.",
    discussion: """
      Without --rule, every rule that emits a label the annotations use is evaluated (the shake \
      rules for "shake", orientation-change for "orientation-change"). \
      DATASET is a folder with manifest.csv (trace,events[,preset][,rate][,units][,convention] \
      [,split]; paths relative to the folder), or one trace with --labels EVENTS.csv. Detections \
      and annotations of --label are matched one to one (a maximum matching) when their \
      intervals overlap after widening both by --tolerance seconds. Traces are evaluated in \
      parallel; results do not depend on the parallelism.

      Metrics: tp, fp, fn, precision (1 with no detections), recall (1 with no annotations), f1, \
      mean and median onset error |detection start - annotation start|, median delay \
      (reported - annotation start), false alarms per hour, duration. Beside them the standard \
      sound-event-detection metrics, as the sed_eval package computes them: event_onset_*, \
      event_onset_offset_* (--collar, --offset-fraction) and segment_* (--segment) precision, \
      recall, f1 and error_rate over all traces, and *_f1_macro (the mean over traces); \
      undefined values are empty. docs/METRICS.md defines each one. --fail-under and \
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

  @Option(
    name: .customLong("param"),
    help: ArgumentHelp("Set a parameter: RULE.NAME=VALUE (repeatable).", valueName: "rule.name=value"))
  var params: [String] = []

  @Option(
    help: ArgumentHelp(
      "Read RULE.NAME=VALUE lines (as accelkit tune writes them); without --rule, evaluate the rules it sets.",
      valueName: "file"))
  var paramsFile: String?

  @Flag(help: "Count cancelled detections too.")
  var includeCancelled = false

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Write summary.csv, per-trace.csv, detections.csv, dataset.sha256 and index.html (and sweep.csv) into this folder.",
      valueName: "dir"))
  var output: String?

  @Option(help: "The stdout format: table, csv or json (default: table on a terminal, csv otherwise).")
  var format: Format?

  @Option(
    help: ArgumentHelp(
      "Significant digits of the numbers in the table, the step summary and index.html (CSV and JSON keep full precision).",
      valueName: "digits"))
  var precision = 4

  @Option(
    help: ArgumentHelp("Fail (exit 1) when a metric is below: e.g. f1=0.9,recall=0.85.", valueName: "gates"))
  var failUnder: String?

  @Option(
    help: ArgumentHelp(
      "Fail (exit 1) when a metric is above: e.g. false_alarms_per_hour=2.", valueName: "gates"))
  var failOver: String?

  @Option(
    name: .customLong("sweep"),
    help: ArgumentHelp(
      "Evaluate a grid: RULE.NAME=FROM:TO:STEP (repeatable).", valueName: "rule.name=from:to:step"))
  var sweeps: [String] = []

  @Option(help: ArgumentHelp("A previous summary.csv to compare with.", valueName: "summary.csv"))
  var baseline: String?

  @Flag(
    help:
      "With --baseline: exit 1 when F1 drops, false alarms per hour rise, or a gated metric gets worse, by more than --regression-tolerance."
  )
  var failOnRegression = false

  @Option(
    help: ArgumentHelp(
      "With --fail-on-regression: the change a metric may make for the worse before it counts.",
      valueName: "amount"))
  var regressionTolerance: Double = 0

  @Flag(
    help:
      "With --baseline: a dataset whose content differs from the baseline's is an error (exit 1), not a warning."
  )
  var strict = false

  @OptionGroup(title: "Matching") var matching: MatchingOptions

  @Option(
    help: ArgumentHelp(
      "Write JUnit XML: a test case per gate of each setting (failures carry the measured value), or per setting without gates.",
      valueName: "file"))
  var junit: String?

  enum GitHubMode: String, ExpressibleByArgument, CaseIterable { case auto, on, off }

  @Option(
    help:
      "GitHub Actions output: error annotations for failed gates and a step summary (auto: when GITHUB_ACTIONS is true)."
  )
  var github: GitHubMode = .auto

  @Option(
    name: .customLong("json"),
    help: ArgumentHelp(
      "Write everything as JSON: metrics, parameters, gates with their values and verdicts, regressions, version, command.",
      valueName: "file"))
  var jsonFile: String?

  func validate() throws {
    do {
      _ = try Gate.parse(failUnder: failUnder, failOver: failOver)
    } catch let error as AccelError {
      throw ValidationError(error.message)
    }
    for r in rules where ShakeRules.named(r) == nil {
      throw ValidationError(
        "unknown rule \"\(r)\"; the rules are \(ShakeRules.all.map { $0.name }.joined(separator: ", "))")
    }
    if failOnRegression && baseline == nil { throw ValidationError("--fail-on-regression needs --baseline") }
    if !(1...17).contains(precision) {
      throw ValidationError("--precision takes 1 to 17 significant digits, got \(precision)")
    }
    if strict && baseline == nil { throw ValidationError("--strict needs --baseline") }
    if !(regressionTolerance >= 0 && regressionTolerance.isFinite) {
      throw ValidationError("--regression-tolerance must be at least 0, got \(regressionTolerance)")
    }
  }

  func run() throws {
    let jobs = try EvaluationJob.jobs(
      dataset: dataset, labels: labels, options: try input.options(),
      allowOutsidePaths: matching.allowOutsidePaths)
    // The baseline is read before anything is written: one inside the output directory is then
    // refused as an output instead of being replaced before the comparison.
    let baseline = try self.baseline.map { try EvaluationBaseline(path: $0) }
    try RunFiles.reserveOutputs([junit, jsonFile].compactMap { $0 })
    let annotationOptions = try matching.annotationOptions()
    let annotations = try jobs.map { try $0.annotations(annotationOptions) }
    let annotated = Set(annotations.flatMap { $0.map(\.label) })
    let fromFile = try paramsFile.map { try ParameterFile.read(path: $0) } ?? []
    let fileRules = Array(Set(fromFile.compactMap { $0.split(separator: ".").first.map(String.init) }))
      .sorted()
    let plan = try EvaluationPlan(
      rules: rules.isEmpty ? fileRules : rules, label: matching.label, annotated: annotated,
      parameters: fromFile + params,
      sweeps: sweeps)
    for (rule, count) in plan.skipped {
      Diagnostics.note("skipped \(count) \(rule) settings the rule refuses")
    }
    try plan.requireAnnotations(of: annotated, label: matching.label, file: labels ?? dataset)
    let settings = plan.settings
    let progress = ProgressLine(total: jobs.count, noun: "traces", quiet: matching.quiet)
    // The dataset is hashed while it is evaluated (as fast as sha256sum, and as long as reading a
    // one-trace dataset: on its own thread it costs no wall time there).
    let (label, tolerance, cancelled, criteria, parallelism) = (
      matching.label, matching.tolerance, includeCancelled, matching.criteria, matching.jobs
    )
    let dataset = self.dataset
    let (evaluations, fingerprint) = try concurrently(
      {
        try Evaluator.evaluate(
          jobs: jobs, annotations: annotations, settings: settings, label: label, tolerance: tolerance,
          includeCancelled: cancelled, criteria: criteria, parallelism: parallelism,
          traceDone: { progress.advance(rows: $0) })
      },
      { try DatasetFingerprint.of(dataset: dataset, jobs: jobs, parallelism: 1) })
    progress.finish()
    var report = EvaluationReport(settings: settings, traces: evaluations, sweeping: plan.sweeping)
    report.precision = precision
    report.fingerprint = fingerprint
    let gates = try Gate.parse(failUnder: failUnder, failOver: failOver)
    var failures: [String] = []
    var changes: [String] = []
    var regressions: [String] = []
    if let baseline {
      let comparison = report.compare(
        with: baseline, gated: gates.map(\.metric), tolerance: regressionTolerance,
        fingerprint: report.fingerprint)
      changes = comparison.changes
      regressions = comparison.regressions
      if failOnRegression { failures += regressions }
      for line in comparison.datasetChanges {
        if strict { failures.append(line) } else { Diagnostics.warning(line) }
      }
    }
    let gated = plan.sweeping ? report.bestPerRule().map(\.1) : Array(settings.indices)
    let outcomes = Gate.outcomes(gates, report: report, settings: gated)
    failures += outcomes.filter { !$0.passed }.map { $0.message(report) }
    let run = RunDescription(
      version: AccelKit.version, command: ["accelkit"] + CommandLine.arguments.dropFirst(), dataset: dataset,
      tolerance: matching.tolerance, label: matching.label)
    let counted = failOnRegression ? regressions : []
    var machine: [(path: String, text: String)] = []
    if let junit {
      machine.append((junit, report.junitXML(run: run, outcomes: outcomes, regressions: counted)))
    }
    if let jsonFile {
      machine.append((jsonFile, report.resultsJSON(run: run, outcomes: outcomes, regressions: counted)))
    }
    if let output {
      // Every report file, index.html included, is replaced together or not at all, with the
      // JUnit and JSON results.
      let index = try report.indexHTML(
        dataset: dataset, jobs: jobs, annotations: annotations, label: matching.label,
        tolerance: matching.tolerance,
        context: ReportContext(run: run, date: Diagnostics.reportDate(), criteria: matching.criteria))
      try report.write(to: output, inputs: [], more: [("index.html", index)], elsewhere: machine)
    } else if !machine.isEmpty {
      try OutputFile.writeTogether(machine)
    }
    switch format ?? (Diagnostics.stdoutIsTerminal ? .table : .csv) {
    case .table: try writeStdout(report.table())
    case .csv: try writeStdout(report.summaryCSV())
    case .json: try writeStdout(report.json())
    }
    if plan.sweeping {
      for (rule, best) in report.bestPerRule() {
        Diagnostics.note(
          "best F1 for \(rule): \(formatSignificant(report.summary[best].f1, digits: precision)) with \(settings[best].parameterText.isEmpty ? "the defaults" : settings[best].parameterText)"
        )
      }
    }
    for line in changes { Diagnostics.note(line) }
    if github == .on || (github == .auto && Diagnostics.environment("GITHUB_ACTIONS") == "true") {
      try Diagnostics.writeGitHubCommands(report.githubAnnotations(outcomes: outcomes, regressions: counted))
      if let path = Diagnostics.environment("GITHUB_STEP_SUMMARY"), !path.isEmpty {
        try Diagnostics.append(
          report.stepSummaryMarkdown(run: run, outcomes: outcomes, regressions: counted), to: path)
      }
    }
    if !failures.isEmpty {
      Diagnostics.printError("Gate failed: " + failures.joined(separator: "; "))
      throw ExitCode(1)
    }
  }
}
