import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelPlot
import AccelScaleOut
import AccelTuning
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

      --detections scores events a detector found elsewhere (an exported detector's log on a \
      device, another tool) as accelkit scores its own: a CSV with start and end (seconds, in the \
      trace's time base) and, for a dataset of several traces, trace (as the manifest or \
      detections.csv names it); label, reported, status, rule and params are read when present. \
      Each rule and params it names is one setting, called recorded:FILE[:RULE]. A detection \
      outside its trace, or naming a trace not in the dataset, is bad data (exit 65).

      Examples:
        accelkit evaluate datasets/test -o notebooks-out
        accelkit evaluate datasets/test --rule learned-shake \\
          --fail-under f1=0.9,recall=0.85 --fail-over false_alarms_per_hour=2
        accelkit evaluate datasets/train --sweep three-peak.move_g=0.5:1.0:0.05 \\
          -o sweep-out
        accelkit evaluate datasets/test/000.csv --labels \\
          datasets/test/000.events.csv --rule seismic
        accelkit evaluate datasets/test --baseline notebooks-out/summary.csv \\
          --fail-on-regression
        accelkit evaluate datasets/test --rule swing \\
          --detections notebooks-out/detections.csv
        parallel accelkit evaluate datasets/test --shard {}/4 -o parts/{} \\
          ::: 1 2 3 4 && accelkit merge parts/* -o report
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "A dataset folder (with manifest.csv), a manifest, or one trace with --labels.")
  var dataset: String

  @Option(help: ArgumentHelp("The annotations of a single trace.", valueName: "events.csv"))
  var labels: String?

  @Option(
    name: .customLong("rule"), help: "A rule to evaluate (repeatable; default: all).",
    completion: .list(Detectors.names))
  var rules: [String] = []

  @Option(
    name: .customLong("model"),
    help: ArgumentHelp(
      "A learned model's directory (accelkit train's; repeatable), evaluated like a rule; model.NAME=VALUE sets its decoding.",
      valueName: "dir"))
  var models: [String] = []

  @Option(
    name: .customLong("detections"),
    help: ArgumentHelp(
      "Score detections made elsewhere (a device's log, detect-shakes -o, evaluate -o's detections.csv; repeatable) beside any --rule or --model.",
      valueName: "file.csv"))
  var detections: [String] = []

  @Option(
    name: .customLong("param"),
    help: ArgumentHelp("Set a parameter: RULE.NAME=VALUE (repeatable).", valueName: "rule.name=value"),
    completion: .list(Detectors.parameterCompletions))
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

  @Option(
    name: .customLong("sweep"),
    help: ArgumentHelp(
      "Evaluate a grid: RULE.NAME=FROM:TO:STEP (repeatable).", valueName: "rule.name=from:to:step"))
  var sweeps: [String] = []

  @OptionGroup(title: "Matching") var matching: MatchingOptions

  @OptionGroup(title: "Report") var report: ReportOptions

  @Option(
    help: ArgumentHelp(
      "Evaluate only shard K of N (the traces it owns) and write a partial result, DIR/partial.json (-o - for stdout), for accelkit merge.",
      valueName: "k/n"))
  var shard: String?

  @Option(
    help:
      "How --shard assigns traces: hash (of the trace's name: adding a trace moves no other) or index (trace i to shard i mod N + 1)."
  )
  var shardBy: ShardSpec.Key = .hash

  func validate() throws {
    for r in rules where !Detectors.isDetector(r) { throw ValidationError(Detectors.unknown(r).message) }
    if shard != nil, !detections.isEmpty {
      throw ValidationError("--detections scores a whole dataset; it does not take --shard")
    }
    if let shard {
      do { _ = try ShardSpec(parsing: shard) } catch let error as AccelError {
        throw ValidationError(error.message)
      }
      if output == nil {
        throw ValidationError("--shard needs -o DIR (or -o - for stdout): it writes a partial result")
      }
      if let option = report.givenForWholeReports.first {
        throw ValidationError(
          "--shard writes a partial result; give \(option) to accelkit merge, which writes the report")
      }
    }
  }

  func run() throws {
    let jobs = try EvaluationJob.jobs(
      dataset: dataset, labels: labels, options: try input.options(),
      allowOutsidePaths: matching.allowOutsidePaths)
    let baseline = try report.prepare()
    let annotationOptions = try matching.annotationOptions()
    let annotations = try jobs.map { try $0.annotations(annotationOptions) }
    let annotated = Set(annotations.flatMap { $0.map(\.label) })
    let fromFile = try paramsFile.map { try ParameterFile.read(path: $0) } ?? []
    let fileRules = Array(Set(fromFile.compactMap { $0.split(separator: ".").first.map(String.init) }))
      .sorted()
    var recorded: [RuleSetting] = []
    for file in detections {
      recorded += try RecordedDetections.read(
        path: file, jobs: jobs, dataset: self.dataset, label: matching.label)
    }
    let plan = try EvaluationPlan(
      rules: rules.isEmpty ? fileRules : rules, label: matching.label, annotated: annotated,
      parameters: fromFile + params,
      sweeps: sweeps, models: models, recorded: recorded)
    for (rule, count) in plan.skipped {
      Diagnostics.note("skipped \(count) \(rule) settings the rule refuses")
    }
    try plan.requireAnnotations(of: annotated, label: matching.label, file: labels ?? dataset)
    let shardSpec = try shard.map { try ShardSpec(parsing: $0, key: shardBy) }
    let ownedJobs = shardSpec.map { spec in spec.owned(jobs).map { jobs[$0] } } ?? jobs
    let progress = ProgressLine(
      total: ownedJobs.count, noun: "traces", quiet: matching.quiet,
      totalBytes: ProgressLine.size(of: ownedJobs.map(\.trace)))
    let settings = MatchingSettings(
      label: matching.label, tolerance: matching.tolerance.value, includeCancelled: includeCancelled,
      criteria: matching.criteria)
    if let spec = shardSpec, let output {
      let header = try ShardHeader(
        shard: spec, datasets: [dataset], labels: labels, allowOutsidePaths: matching.allowOutsidePaths,
        jobs: jobs,
        annotationOptions: annotationOptions, version: AccelKit.fullVersion)
      let partial = try PartialEvaluation.evaluate(
        shard: spec, header: header, jobs: jobs, annotations: annotations, plan: plan, matching: settings,
        parallelism: matching.jobs, traceDone: { progress.advance(rows: $0) },
        bytesRead: { progress.read(bytes: $0) })
      progress.finish()
      try writePartial(partial.json(), to: output)
      if !matching.quiet {
        Diagnostics.note(
          "shard \(spec.description): \(partial.traces.count) of \(jobs.count) traces\(output == "-" ? "" : ", \(output)/partial.json")"
        )
      }
      return
    }
    // The dataset is hashed while it is evaluated (as fast as sha256sum, and as long as reading a
    // one-trace dataset: on its own thread it costs no wall time there).
    let parallelism = matching.jobs
    let dataset = self.dataset
    let (evaluations, fingerprint) = try concurrently(
      {
        try Evaluator.evaluate(
          jobs: jobs, annotations: annotations, settings: plan.settings, label: settings.label,
          tolerance: settings.tolerance, includeCancelled: settings.includeCancelled,
          criteria: settings.criteria,
          parallelism: parallelism, traceDone: { progress.advance(rows: $0) },
          bytesRead: { progress.read(bytes: $0) })
      },
      { try DatasetFingerprint.of(dataset: dataset, jobs: jobs, parallelism: 1) })
    progress.finish()
    var result = EvaluationReport(settings: plan.settings, traces: evaluations, sweeping: plan.sweeping)
    result.fingerprint = fingerprint
    let run = RunDescription(
      version: AccelKit.fullVersion, command: ["accelkit"] + CommandLine.arguments.dropFirst(),
      dataset: dataset,
      tolerance: matching.tolerance.value, label: matching.label)
    try report.publish(
      result, baseline: baseline, run: run, criteria: matching.criteria, output: output
    ) { result, context in
      try result.indexHTML(
        dataset: dataset, jobs: jobs, annotations: annotations, label: settings.label,
        tolerance: settings.tolerance, context: context)
    }
  }
}
