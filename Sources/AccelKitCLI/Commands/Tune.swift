import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelLearning
import AccelPlot
import AccelScaleOut
import AccelTuning
import ArgumentParser

struct Tune: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tune",
    abstract: "Search a rule's parameters for the best score on an annotated dataset, with cross-validation.",
    discussion: """
      The search: the defaults first, then half of --trials spread over the space (a Latin \
      hypercube: every parameter's interval cut into as many strata as trials, each used once), \
      then four rounds near the best so far (Gaussian steps that halve each round). Seeded: the \
      same command gives the same trials. Settings the rule refuses (a constraint between \
      parameters) are drawn again. Each trial is evaluated as `evaluate` does (the same matching \
      and tolerance), traces in parallel.

      The best trial meets every --subject-to bound (or, when none does, misses them by the \
      least) and has the best --maximize (or --minimize) metric; ties go to fewer false alarms, \
      then to the earlier trial. --folds K also estimates how well the choice generalises: for \
      each fold of traces (trace i in fold i mod K), the best trial on the other folds is scored \
      on it (the held-out metrics are summed); --cv source leaves one source out at a time \
      instead. --worst-source chooses by the worst source (the manifest's source column): \
      bounds on every source, the worst source's objective.

      -o DIR writes best.params (for --params-file of evaluate and detect-shakes), trials.csv \
      (every trial), folds.csv and pareto.svg (F1 against false alarms per hour, the Pareto \
      front and the choice). --space NAME=LOW:HIGH[:log] replaces or adds a searched interval; \
      --param NAME=VALUE holds a parameter fixed. Default spaces per rule are in docs/GESTURES.md.

      Examples:
        accelkit tune datasets/train --rule swing --trials 60 -o tuned
        accelkit tune datasets/train --rule three-peak \\
          --subject-to 'false_alarms_per_hour<=5' --trials 60 -o tuned-fa
        accelkit tune datasets/train --rule seismic --maximize segment_f1 \\
          --trials 40 --folds 4 -o tuned-segments
        accelkit tune datasets/train datasets/real-negatives --allow-outside-paths \\
          --rule seismic --cv source --worst-source \\
          --subject-to 'false_alarms_per_hour<=5' --trials 20 -o tuned-worst
        accelkit evaluate datasets/test --params-file tuned/best.params
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(
    help:
      "Dataset folders (with manifest.csv) or manifests: their traces are tuned on together (add recordings without shakes to bound false alarms)."
  )
  var datasets: [String]

  @Option(help: "The rule to tune.", completion: .list(Detectors.names))
  var rule: String

  @Option(
    help: ArgumentHelp(
      "The metric to maximise: f1, precision, recall, or a standard one (segment_f1, event_onset_recall, ...).",
      valueName: "metric"))
  var maximize: String?

  @Option(
    help: ArgumentHelp(
      "The metric to minimise instead: false_alarms_per_hour or a standard error rate (segment_error_rate, ...).",
      valueName: "metric"))
  var minimize: String?

  @Option(
    help: ArgumentHelp(
      "Bounds the choice must meet: e.g. false_alarms_per_hour<=1,recall>=0.8.", valueName: "bounds"))
  var subjectTo: String?

  @Option(help: "Settings to evaluate, the defaults included.")
  var trials: Int = 200

  @Option(help: "The random seed of the search.")
  var seed: UInt64 = 1

  @Option(help: "Folds of traces for the cross-validated estimate (0 or 1: none).")
  var folds: Int = 5

  enum CrossValidation: String, ExpressibleByArgument, CaseIterable {
    case trace, source
  }

  @Option(
    help: ArgumentHelp(
      "Cross-validate by folds of traces (--folds), or by leaving one source out at a time (the manifest's source column; positives and negatives alike).",
      valueName: "trace|source"))
  var cv: CrossValidation = .trace

  @Flag(
    help:
      "Choose by the worst source: every --subject-to bound must hold on every source (where its metric is defined) and the objective is the worst source's."
  )
  var worstSource = false

  @Option(
    name: .customLong("space"),
    help: ArgumentHelp(
      "Search NAME over LOW..HIGH (repeatable; :log for a logarithmic scale).",
      valueName: "name=low:high[:log]"))
  var spaceItems: [String] = []

  @Option(
    name: .customLong("param"),
    help: ArgumentHelp("Hold a parameter fixed (repeatable).", valueName: "name=value"),
    completion: .list(Detectors.parameterCompletions))
  var params: [String] = []

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Write best.params, trials.csv, folds.csv and pareto.svg into this folder.", valueName: "dir"))
  var output: String?

  @OptionGroup(title: "Matching") var matching: MatchingOptions

  @Option(
    help: ArgumentHelp(
      "Run shard K of N of the next round of the search (its traces) and write a partial result, DIR/partial.json (-o - for stdout), for accelkit merge.",
      valueName: "k/n"))
  var shard: String?

  @Option(
    help: "How --shard assigns traces: hash (of the trace's name) or index (trace i to shard i mod N + 1).")
  var shardBy: ShardSpec.Key = .hash

  @Option(
    help: ArgumentHelp(
      "With --shard: the state to go on from (what accelkit merge wrote after the previous round: a folder or its partial.json).",
      valueName: "state"))
  var resume: String?

  func validate() throws {
    if BuiltInModels.named(rule) != nil {
      throw ValidationError(
        "\(rule) is a learned model: accelkit train chose its decoding; sweep it with evaluate --sweep \(rule).on=FROM:TO:STEP, or train another"
      )
    }
    guard Detectors.named(rule) != nil else {
      throw ValidationError(
        "unknown rule \"\(rule)\"; the rules are \(Detectors.all.map { $0.name }.joined(separator: ", "))")
    }
    if datasets.isEmpty { throw ValidationError("give at least one dataset") }
    if !(2...100_000).contains(trials) {
      throw ValidationError("--trials must be from 2 to 100000, got \(trials)")
    }
    if !(0...1000).contains(folds) { throw ValidationError("--folds must be from 0 to 1000, got \(folds)") }
    if maximize != nil && minimize != nil { throw ValidationError("give --maximize or --minimize, not both") }
    if let shard {
      do { _ = try ShardSpec(parsing: shard) } catch let error as AccelError {
        throw ValidationError(error.message)
      }
      if output == nil {
        throw ValidationError("--shard needs -o DIR (or -o - for stdout): it writes a partial result")
      }
    } else if resume != nil {
      throw ValidationError("--resume goes with --shard K/N")
    }
    let higher = TuningObjective.higherIsBetter
    let lower = TuningObjective.metrics.filter { !higher.contains($0) }
    if let maximize, !higher.contains(maximize) {
      throw ValidationError("--maximize takes \(higher.joined(separator: ", ")), got \"\(maximize)\"")
    }
    if let minimize, !lower.contains(minimize) {
      throw ValidationError("--minimize takes \(lower.joined(separator: ", ")), got \"\(minimize)\"")
    }
  }

  func run() throws {
    var settings = TuningSettings(
      rule: rule, space: try Tuner.space(rule: rule, items: spaceItems, base: Tuner.defaultSpace(rule: rule)))
    settings.fixed = try parseAssignments(params, owner: rule)
    _ = try RuleSetting(rule: rule, assignments: settings.fixed)  // bad fixed values before reading
    settings.space.removeAll { d in settings.fixed.contains { $0.0 == d.name } }
    guard !settings.space.isEmpty else {
      throw AccelError.usage("nothing to search: give --space NAME=LOW:HIGH")
    }
    settings.objective = TuningObjective(
      metric: minimize ?? maximize ?? "f1", maximize: minimize == nil,
      constraints: try TuningObjective.parseConstraints(subjectTo))
    settings.trials = trials
    settings.seed = seed
    settings.folds = folds
    if let output {
      try RunFiles.reserveOutputs(
        ["best.params", "trials.csv", "folds.csv", "pareto.svg"].map { output + "/" + $0 })
    }

    let options = try input.options()
    let jobs = try datasets.flatMap {
      try EvaluationJob.jobs(
        dataset: $0, labels: nil, options: options, allowOutsidePaths: matching.allowOutsidePaths)
    }
    let annotationOptions = try matching.annotationOptions()
    let annotations = try jobs.map { try $0.annotations(annotationOptions) }
    if cv == .source || worstSource {
      try settings.group(bySources: jobs.map(\.group.source), foldsBySource: cv == .source, worstSource: worstSource)
    }
    if let shard, let output {
      let spec = try ShardSpec(parsing: shard, key: shardBy)
      let header = try ShardHeader(
        shard: spec, datasets: datasets, labels: nil, allowOutsidePaths: matching.allowOutsidePaths,
        jobs: jobs,
        annotationOptions: annotationOptions, version: AccelKit.fullVersion)
      let state = try resume.map { try PartialTuning.resume(from: $0) }
      let progress = ProgressLine(total: spec.owned(jobs).count, noun: "traces", quiet: matching.quiet)
      let partial = try PartialTuning.step(
        shard: spec, header: header,
        matching: MatchingSettings(
          label: matching.label, tolerance: matching.tolerance.value, includeCancelled: false,
          criteria: matching.criteria),
        tuning: settings, state: state, jobs: jobs, annotations: annotations, parallelism: matching.jobs,
        traceDone: { progress.advance(rows: $0) })
      progress.finish()
      try writePartial(partial.json(), to: output)
      if !matching.quiet {
        let what =
          partial.current.map {
            "round \(partial.rounds.count + 1), \($0.settings.count) trials on \($0.traces.count) of \(jobs.count) traces"
          } ?? "the search is finished (merge gives its outputs)"
        Diagnostics.note("shard \(spec.description): \(what)")
      }
      return
    }
    var evaluated = 0
    let result = try Tuner.run(settings, traceCount: jobs.count) { batch in
      let progress = ProgressLine(
        total: jobs.count, noun: "trials \(evaluated + 1)-\(evaluated + batch.count), traces",
        quiet: matching.quiet)
      defer {
        progress.finish()
        evaluated += batch.count
      }
      return try Evaluator.evaluate(
        jobs: jobs, annotations: annotations, settings: batch, label: matching.label,
        tolerance: matching.tolerance.value,
        includeCancelled: false, criteria: matching.criteria, parallelism: matching.jobs,
        traceDone: { progress.advance(rows: $0) }
      ).map(\.metrics)
    }

    try writeStdout(result.summary)
    if let output {
      try makeDirectories(output)
      try OutputFile.writeTogether(
        try result.outputs(command: Provenance.commandLine).map { (output + "/" + $0.0, $0.1) })
    }
  }
}
