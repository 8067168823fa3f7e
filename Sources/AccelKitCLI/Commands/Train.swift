import AccelCore
import AccelEvaluation
import AccelExport
import AccelIO
import AccelLearning
import AccelTraining
import AccelTuning
import ArgumentParser

struct Train: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Learn a detector for annotated gestures from recordings (XGBoost over window features).",
    discussion: """
      Every trace is cut into windows (--window seconds wide, every --hop seconds, on a --feature-rate \
      grid so the model does not depend on the recorder's rate); each window gets the features \
      `accelkit features` writes and, per --label, a target: the label when an event covers half \
      the window or half the event, none when no event touches it (windows between are left \
      out). One XGBoost classifier per label, seeded: the same command gives the same files.

      Cross-validation (--cv trace: folds of traces; --cv source: one source left out at a time, \
      positives and negatives alike) gives every window a probability from a model that did not \
      see its trace; the event decoding (threshold with hysteresis, merge gap, minimum duration) \
      is chosen on those as tune chooses (--maximize, --subject-to, by the worst source when the \
      manifests name sources), and the held-out figures are reported: per source, F1, recall and \
      the share of annotated time covered with 95% intervals, and false alarms an hour. The final \
      model learns from every trace.

      --sustained DATASET (repeatable) adds a second classifier to each label, its sustained \
      classifier, trained on every dataset and these (shaking that goes on: real bouts, the \
      generator's sustained scenario), while the label's own learns from the others only; its \
      thresholds and hold path are chosen after the label's own decoding, on every trace held out \
      alike, and an event of either is an event (docs/LEARNING.md).

      -o DIR gets detector.json and LABEL.xgb.json (XGBoost's own JSON, loadable by any XGBoost), \
      folds.csv, sources.csv, positions.csv, activities.csv and held-out.csv (held-out figures), \
      decoding.csv (every decoding tried) and LABEL.importance.svg; with --scores, \
      held-out-scores.csv too (every \
      window's held-out probabilities, to try other decodings on without training again). Use it \
      with detect-shakes --model DIR and evaluate --model DIR.

      Examples:
        accelkit train datasets/train --label shake -o shake-model
        accelkit train datasets/train --label shake --folds 4 --rounds 60 \\
          --window 1 --window 8 -o other-model
        accelkit evaluate datasets/test --model shake-model --model other-model
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "Dataset folders (with manifest.csv) or manifests, trained on together.")
  var datasets: [String]

  @Option(name: .customLong("label"), help: "A label to learn (repeatable): the events files' label.")
  var labels: [String] = []

  @Option(
    help: ArgumentHelp(
      "A dataset only each label's sustained classifier learns from (repeatable; the sustained classifier learns from every dataset).",
      valueName: "dataset"))
  var sustained: [String] = []

  @Option(name: .shortAndLong, help: ArgumentHelp("The model directory to write.", valueName: "dir"))
  var output: String

  @Flag(
    help:
      "Also write held-out-scores.csv: every window's held-out probabilities, to try other decodings on.")
  var scores = false

  enum CrossValidation: String, ExpressibleByArgument, CaseIterable {
    case trace, source
  }

  @Option(
    help: "Hold out folds of traces (trace) or one source at a time (source: the manifest's source column).")
  var cv: CrossValidation = .trace

  @Option(help: "Folds with --cv trace (trace i in fold i mod K).")
  var folds: Int = 5

  @Option(help: "Boosting rounds.")
  var rounds: Int = 150

  @Option(help: "The trees' depth.")
  var depth: Int = 5

  @Option(help: "XGBoost's learning rate (eta).")
  var learningRate: Finite = 0.1

  @Option(help: "The seed of XGBoost's row and column sampling.")
  var seed: UInt64 = 1

  @Option(help: "Windows with none of a label kept for training: one in this many.")
  var negativeStride: Int = 5

  @Option(
    help: ArgumentHelp(
      "How much each window of a source weighs in the loss (repeatable; 1 for the others), e.g. motionsense-esp=3: the balance among sources, not between positives and negatives.",
      valueName: "source=weight"))
  var sourceWeight: [String] = []

  @Option(
    help: ArgumentHelp(
      "A feature the trees may not split on (repeatable): a name, or a pattern with * (e.g. '*_linearity'); it is still computed.",
      valueName: "name"))
  var excludeFeature: [String] = []

  @Option(
    help: ArgumentHelp(
      "What the decoding maximises (on the worst source that has events, when the manifests name sources): f1, precision, recall, or a standard one (segment_recall: the share of annotated time covered, segment_f1, ...).",
      valueName: "metric"))
  var maximize: String = "f1"

  @Option(
    help: ArgumentHelp(
      "Bounds the decoding must meet (as tune's), e.g. false_alarms_per_hour<=1,recall>=0.8.",
      valueName: "bounds"))
  var subjectTo: String = "false_alarms_per_hour<=1"

  @Flag(
    inversion: .prefixedNo,
    help: "Choose the decoding by the worst source (bounds on every source) when the manifests name sources.")
  var worstSource = true

  @OptionGroup(title: "Features") var features: FeatureOptions

  @Option(
    help: ArgumentHelp(
      "The RAM the exported detector may take on a Cortex-M4F in float (e.g. 8KiB): features that fit are chosen, and the held-out figures shown beside the unbudgeted model's.",
      valueName: "size"))
  var ram: String?

  @Option(
    help: ArgumentHelp(
      "The flash it may take (e.g. 48KiB): as many trees as fit.", valueName: "size"))
  var flash: String?

  @Option(
    help: ArgumentHelp(
      "With --flash, the form the exported trees take: code (the default) or table (compiled with AK_DETECTOR_TREE_TABLE: about half the flash a node, so more trees fit).",
      valueName: "code|table"))
  var trees: ModelCost.TreeLayout = .code

  @Option(help: ArgumentHelp("The matching tolerance the decoding is scored with.", valueName: "seconds"))
  var tolerance: Finite = 0.25

  @Option(help: "XGBoost's threads (the model is the same for any count).")
  var threads: Int = 1

  @Option(help: "Traces read at once (default: all cores).")
  var jobs: Int?

  @Flag(help: "Let the manifest name files outside the dataset folder (absolute paths, ../).")
  var allowOutsidePaths = false

  @Flag(help: "No progress line on stderr (it is shown only on a terminal).")
  var quiet = false

  func validate() throws {
    if datasets.isEmpty { throw ValidationError("give at least one dataset") }
    if labels.isEmpty { throw ValidationError("give the label to learn with --label (e.g. --label shake)") }
    if !(2...1000).contains(folds) { throw ValidationError("--folds must be from 2 to 1000, got \(folds)") }
    if !(1...64).contains(threads) { throw ValidationError("--threads must be from 1 to 64, got \(threads)") }
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
    if trees != .code, flash == nil {
      throw ValidationError("--trees sets what a node costs in --flash: give --flash")
    }
  }

  func settings() throws -> TrainingSettings {
    var s = TrainingSettings(labels: labels)
    s.spec = try features.spec()
    s.rounds = rounds
    s.maxDepth = depth
    s.learningRate = learningRate.value
    s.seed = seed
    s.threads = threads
    s.folds = folds
    s.foldsBySource = cv == .source
    s.negativeStride = negativeStride
    s.excludedFeatures = excludeFeature
    for entry in sourceWeight {
      let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].isEmpty, let weight = Double(parts[1]) else {
        throw ValidationError(
          "--source-weight takes source=weight (e.g. openuat=4), got \(quotedField(entry))")
      }
      let name = String(parts[0])
      guard s.sourceWeights[name] == nil else {
        throw ValidationError("--source-weight gives \(quotedField(name)) twice")
      }
      s.sourceWeights[name] = weight
    }
    guard TuningObjective.higherIsBetter.contains(maximize) else {
      throw ValidationError(
        "--maximize takes \(TuningObjective.higherIsBetter.joined(separator: ", ")), got \(quotedField(maximize))"
      )
    }
    s.objective = TuningObjective(
      metric: maximize, maximize: true, constraints: try TuningObjective.parseConstraints(subjectTo))
    s.worstSource = worstSource
    s.tolerance = tolerance.value
    s.parallelism = jobs
    s.sustained = !sustained.isEmpty
    try s.validate()
    return s
  }

  func run() throws {
    let settings = try settings()
    let outputs = ModelDirectory.names(labels: labels, sustained: settings.sustained, scores: scores).map {
      output + "/" + $0
    }
    try RunFiles.reserveOutputs(outputs)
    let options = try input.options()
    let read = try (datasets + sustained).map {
      try EvaluationJob.jobs(dataset: $0, labels: nil, options: options, allowOutsidePaths: allowOutsidePaths)
    }
    let jobs = Array(read.joined())
    let sustainedOnly = read.indices.flatMap { d in read[d].map { _ in d >= datasets.count } }
    let annotations = try jobs.map { try $0.annotations() }
    let budget = DeviceBudget(
      ram: try ram.map(DeviceBudget.parseSize), flash: try flash.map(DeviceBudget.parseSize), trees: trees)
    let fitted = budget == DeviceBudget() ? settings : try budget.fitting(settings)
    // With a budget, the unbudgeted model is trained too (its figures only), for the comparison.
    let runs = fitted.budget == nil ? [fitted] : [settings, fitted]
    let progress = ProgressLine(total: jobs.count * runs.count, noun: "traces", quiet: quiet)
    let results = try runs.map {
      try Trainer.train(
        jobs: jobs, annotations: annotations, settings: $0, sustainedOnly: sustainedOnly,
        traceDone: { progress.advance(rows: $0) })
    }
    progress.finish()
    let result = results[results.count - 1]
    try makeDirectories(output)
    try ModelDirectory.write(
      result, to: output, command: Provenance.commandLine, version: AccelKit.fullVersion, scores: scores)
    try writeStdout(ModelDirectory.summary(result))
    if results.count == 2 { try writeStdout(ModelDirectory.budgetSummary(result, unbudgeted: results[0])) }
  }
}

extension ModelCost.TreeLayout: ExpressibleByArgument {}
