import AccelCore
import AccelEvaluation
import AccelIO
import ArgumentParser

/// What is done with an evaluation's report: stdout format, gates, the baseline, CI outputs.
/// Shared by evaluate and merge, which publish the same report.
struct ReportOptions: ParsableArguments {
  enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

  @Option(
    help:
      "The stdout format: table (the default, on a terminal or in a pipe; the summary CSV is in -o's folder), csv or json."
  )
  var format: Format?

  @Option(
    help: ArgumentHelp(
      "Significant digits of the numbers in the table, the step summary and index.html (CSV and JSON keep full precision).",
      valueName: "digits"))
  var precision = 4

  @Option(
    help: ArgumentHelp("Fail (exit 1) when a metric is below: e.g. f1=0.9,recall=0.85.", valueName: "gates"),
    completion: .list(Gate.metrics.map { $0 + "=" }))
  var failUnder: String?

  @Option(
    help: ArgumentHelp(
      "Fail (exit 1) when a metric is above: e.g. false_alarms_per_hour=2.", valueName: "gates"),
    completion: .list(Gate.metrics.map { $0 + "=" }))
  var failOver: String?

  @Option(
    help: ArgumentHelp(
      "A previous summary.csv to compare with, or the folder an earlier evaluate -o wrote it into.",
      valueName: "summary.csv|dir"))
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
  var regressionTolerance: Finite = 0

  @Flag(
    help:
      "With --fail-on-regression: a detector of the baseline that this run does not evaluate is not a regression."
  )
  var allowMissing = false

  @Flag(
    help:
      "With --baseline: a dataset whose content differs from the baseline's is an error (exit 1), not a warning."
  )
  var strict = false

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
    if failOnRegression && baseline == nil { throw ValidationError("--fail-on-regression needs --baseline") }
    if !(1...17).contains(precision) {
      throw ValidationError("--precision takes 1 to 17 significant digits, got \(precision)")
    }
    if strict && baseline == nil { throw ValidationError("--strict needs --baseline") }
    if !(regressionTolerance >= 0) {
      throw ValidationError("--regression-tolerance must be at least 0, got \(regressionTolerance)")
    }
  }

  /// The options that make no sense for a partial result (evaluate --shard), as given.
  var givenForWholeReports: [String] {
    var given: [String] = []
    if failUnder != nil { given.append("--fail-under") }
    if failOver != nil { given.append("--fail-over") }
    if baseline != nil { given.append("--baseline") }
    if junit != nil { given.append("--junit") }
    if jsonFile != nil { given.append("--json") }
    if format != nil { given.append("--format") }
    return given
  }

  /// Reads the baseline and reserves the output files, before anything is evaluated or written:
  /// a baseline inside the output directory is then refused as an output instead of being
  /// replaced before the comparison.
  func prepare() throws -> EvaluationBaseline? {
    let baseline = try self.baseline.map { try EvaluationBaseline(path: $0) }
    try RunFiles.reserveOutputs([junit, jsonFile].compactMap { $0 })
    return baseline
  }

  /// Compares, gates and writes `report`: the files into `output` (with the index.html that
  /// `html` makes), JUnit, JSON, stdout, GitHub annotations; exits 1 on a failed gate or (when
  /// asked) a regression, after everything is written.
  func publish(
    _ report: EvaluationReport, baseline: EvaluationBaseline?, run: RunDescription,
    criteria: StandardCriteria,
    output: String?, html: (EvaluationReport, ReportContext) throws -> String
  ) throws {
    var report = report
    report.precision = precision
    let gates = try Gate.parse(failUnder: failUnder, failOver: failOver)
    var failures: [String] = []
    var changes: [String] = []
    var regressions: [String] = []
    if let baseline {
      let comparison = report.compare(
        with: baseline, gated: gates.map(\.metric), tolerance: regressionTolerance.value,
        fingerprint: report.fingerprint, allowMissing: allowMissing, digits: precision)
      changes = comparison.changes
      regressions = comparison.regressions
      if failOnRegression { failures += regressions }
      for line in comparison.datasetChanges {
        if strict { failures.append(line) } else { Diagnostics.warning(line) }
      }
    }
    let gated = report.sweeping ? report.bestPerRule().map(\.1) : Array(report.settings.indices)
    let outcomes = Gate.outcomes(gates, report: report, settings: gated)
    failures += outcomes.filter { !$0.passed }.map { $0.message(report) }
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
      let index = try html(
        report, ReportContext(run: run, date: Diagnostics.reportDate(), criteria: criteria))
      try report.write(to: output, inputs: [], more: [("index.html", index)], elsewhere: machine)
    } else if !machine.isEmpty {
      try OutputFile.writeTogether(machine)
    }
    switch format ?? .table {
    case .table: try writeStdout(report.table(width: Diagnostics.terminalColumns))
    case .csv: try writeStdout(report.summaryCSV())
    case .json: try writeStdout(report.json())
    }
    if report.sweeping {
      for (rule, best) in report.bestPerRule() {
        let setting = report.settings[best]
        Diagnostics.note(
          "best F1 for \(rule): \(formatSignificant(report.summary[best].f1, digits: precision)) with \(setting.parameterText.isEmpty ? "the defaults" : setting.parameterText)"
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
    if !outcomes.isEmpty || failOnRegression {
      var passed: [String] = []
      if !outcomes.isEmpty { passed.append("\(outcomes.count) gate\(outcomes.count == 1 ? "" : "s")") }
      if failOnRegression { passed.append("no regression from \(baseline?.path ?? "the baseline")") }
      Diagnostics.note("Gates passed: " + passed.joined(separator: ", "))
    }
  }
}
