import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelLearning
import AccelTuning

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How `accelkit train` learns a detector: the features, XGBoost's settings, the
/// cross-validation and the objective the event decoding is chosen by.
public struct TrainingSettings: Sendable {
  /// The labels to learn, one binary classifier each.
  public var labels: [String]
  public var spec = FeatureSpec()
  /// Boosting rounds, tree depth, learning rate and the row and column fractions each tree sees.
  public var rounds = 150
  public var maxDepth = 5
  public var learningRate = 0.1
  public var rowFraction = 0.8
  public var columnFraction = 0.8
  public var seed: UInt64 = 1
  /// XGBoost's threads (its histogram sums are reduced in a fixed order: any count gives the same
  /// model).
  public var threads = 1
  /// Folds of traces (trace i in fold i mod `folds`), or one fold per source.
  public var folds = 5
  public var foldsBySource = false
  /// Windows with no event of a label are kept one in this many for training (windows 0.1 s
  /// apart are nearly alike); every window counts when the decoding is chosen.
  public var negativeStride = 5
  /// The weight of a positive window; nil: the kept negatives over the positives (each window
  /// counted at its source's weight).
  public var positiveWeight: Double?
  /// How much each window of a source weighs in the classifiers' loss, by the manifests' source
  /// name (1 for a source not named). It moves the balance among sources, not between positives
  /// and negatives: the positives' weight is still the kept negatives' total weight over the
  /// positives'. Every source named must be among the traces'.
  public var sourceWeights: [String: Double] = [:]
  /// Features the trees may not split on: names, or patterns with `*` for any run of characters
  /// (`*_linearity`). Every feature is still computed (the row keeps its columns, so the model
  /// loads and exports as any other); these are held constant while learning.
  public var excludedFeatures: [String] = []
  /// The device budget these settings were fitted to (`DeviceBudget.fitting`), for the record.
  public var budget: DeviceBudget?
  /// What the decoding is chosen by, as `tune` scores: by default the best F1 with at most one
  /// false alarm an hour, on the worst source when the traces name sources.
  public var objective = TuningObjective(
    metric: "f1", maximize: true,
    constraints: [TuningObjective.Constraint(metric: "false_alarms_per_hour", atMost: true, limit: 1)])
  public var worstSource = true
  /// The matching tolerance (seconds), as evaluate's.
  public var tolerance = 0.25
  /// Whether each label also learns a sustained classifier (`LearnedModel`): from every trace,
  /// the sustained-only ones (`Trainer.train`) included, where the label's own classifier
  /// learns from the others only. Its part of the decoding (`sustained_on`, `sustained_off` and
  /// the hold path) is chosen after the label's own, which stays as it would be alone.
  public var sustained = false
  /// Traces read in parallel (nil: every core).
  public var parallelism: Int?

  public init(labels: [String]) {
    self.labels = labels
  }

  /// XGBoost's parameters.
  func boosterParameters(positiveWeight: Double) -> [(String, String)] {
    [
      ("booster", "gbtree"), ("objective", "binary:logistic"), ("base_score", "0.5"), ("tree_method", "hist"),
      ("max_depth", "\(maxDepth)"), ("eta", formatNumber(learningRate)),
      ("subsample", formatNumber(rowFraction)),
      ("colsample_bytree", formatNumber(columnFraction)), ("min_child_weight", "1"),
      ("scale_pos_weight", formatNumber(positiveWeight)), ("seed", "\(seed % (1 << 31))"),
      ("nthread", "\(threads)"),
      ("verbosity", "0"),
    ]
  }

  /// The columns `excludedFeatures` name, in order.
  public var excludedColumns: [Int] {
    let names = spec.names
    return names.indices.filter { c in excludedFeatures.contains { featurePattern($0, matches: names[c]) } }
  }

  public func validate() throws {
    try spec.validate()
    let names = spec.names
    for pattern in excludedFeatures where !names.contains(where: { featurePattern(pattern, matches: $0) }) {
      throw AccelError.usage(
        "--exclude-feature \(quotedField(pattern)) names no feature",
        hint: "`accelkit features` writes the names as its columns (docs/LEARNING.md lists them)")
    }
    guard !labels.isEmpty else { throw AccelError.usage("give a label to learn with --label") }
    for label in labels where !LearnedModel.isSafeLabel(label) {
      throw AccelError.usage("a label must be letters, digits, '-', '_' or '.', got \(quotedField(label))")
    }
    guard Set(labels).count == labels.count else { throw AccelError.usage("a label is given twice") }
    guard (1...100_000).contains(rounds), (1...16).contains(maxDepth), learningRate > 0, learningRate <= 1,
      rowFraction > 0, rowFraction <= 1, columnFraction > 0, columnFraction <= 1
    else {
      throw AccelError.usage(
        "rounds must be in [1, 100000], depth in [1, 16], the learning rate and the fractions in (0, 1]")
    }
    guard negativeStride >= 1, folds >= 2 || foldsBySource else {
      throw AccelError.usage("--folds must be at least 2 and the negative stride at least 1")
    }
    for (name, weight) in sourceWeights.sorted(by: { $0.key < $1.key })
    where !(weight.isFinite && weight > 0 && weight <= 1000) {
      throw AccelError.usage(
        "a source's weight must be in (0, 1000], got \(formatNumber(weight)) for \(quotedField(name))")
    }
  }
}

/// Whether `name` matches `pattern`, where `*` stands for any run of characters (fnmatch's shell
/// pattern, which also takes `?` and `[...]`).
func featurePattern(_ pattern: String, matches name: String) -> Bool {
  fnmatch(pattern, name, 0) == 0
}

/// The windows of one trace: features (32-bit, as XGBoost reads them), times and per-label
/// targets (1 a window of the label, 0 none, -1 too little of one to say).
struct TraceWindows: Sendable {
  var name: String
  var features: [Float] = []
  var centers: [Double] = []
  var ends: [Double] = []
  var targets: [[Int8]]
  var start = 0.0
  var duration = 0.0
  var annotations: [LabeledInterval]
  var source: Int
  /// The manifest's position ("unknown" when it has none).
  var position: String
  /// The manifest's activity ("unknown" when it has none).
  var activity = "unknown"
  /// Only the sustained classifiers learn from it.
  var sustainedOnly = false
  /// Its source's weight in the loss (`TrainingSettings.sourceWeights`).
  var weight: Float = 1
  var count: Int { centers.count }
}

/// One label's learned classifier and decoding, with the cross-validated figures behind them.
public struct LearnedLabel: Sendable {
  public var label: String
  /// XGBoost's JSON model trained on every trace (but the sustained-only ones).
  public var model: [UInt8]
  /// The sustained classifier, trained on every trace, with `TrainingSettings.sustained`.
  public var sustainedModel: [UInt8]?
  public var decoding: ProbabilityDecoder.Configuration
  /// Per fold, the held-out metrics with the chosen decoding.
  public var folds: [HeldOutGroup]
  /// Per source, the held-out metrics (every trace was held out once).
  public var sources: [HeldOutGroup]
  /// Per position, the held-out metrics.
  public var positions: [HeldOutGroup]
  /// Per activity (the manifest's `activity` column), the held-out metrics.
  public var activities: [HeldOutGroup]
  /// Per trace: its name, source, position, activity and held-out metrics.
  public var traces: [(name: String, source: String, position: String, activity: String, metrics: Metrics)]
  public var total: Metrics
  /// Every decoding tried: its values, score and held-out totals.
  public var search: [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)]
  /// With a sustained classifier, how many of `search`'s first decodings were the label's own,
  /// scored on its own traces (the rest on every trace); else 0.
  public var ownSearched = 0
  public var positives: Int
  public var negatives: Int
  /// What the user should know about the choice (no decoding met the bounds: why, and what
  /// would help), one sentence each.
  public var notes: [String] = []
  /// Per trace, each window's held-out probability (the label's own classifier), and its
  /// sustained classifier's (with one): what the decoding was chosen on.
  public var heldOutProbabilities: [[Double]] = []
  public var heldOutSustained: [[Double]]?
}

/// Traces held out together or reported together (a fold, a source, a body position or an
/// activity): their indices in `LearnedLabel.traces` and their summed held-out metrics.
public struct HeldOutGroup: Sendable {
  public var name: String
  public var members: [Int]
  public var metrics: Metrics

  public init(name: String, members: [Int], metrics: Metrics) {
    self.name = name
    self.members = members
    self.metrics = metrics
  }
}

public struct TrainingResult: Sendable {
  public var settings: TrainingSettings
  public var labels: [LearnedLabel]
  public var traces: Int
  public var windows: Int
  public var sourceNames: [String]
  public var xgboostVersion: String
  /// Per trace (in `LearnedLabel.traces`' order), its windows' centres and ends in seconds.
  public var windowCenters: [[Double]] = []
  public var windowEnds: [[Double]] = []
}

public enum Trainer {
  /// Learns a detector from `jobs` (their annotations in `annotations`): features of every
  /// trace, cross-validated out-of-fold probabilities, the decoding chosen on them, and a final
  /// model on everything. With `settings.sustained`, the jobs marked in `sustainedOnly` train
  /// only the sustained classifiers; every trace is held out and scored all the same.
  public static func train(
    jobs: [EvaluationJob], annotations: [[LabeledInterval]], settings: TrainingSettings,
    sustainedOnly: [Bool] = [], traceDone: (@Sendable (_ rows: Int) -> Void)? = nil
  ) throws -> TrainingResult {
    try settings.validate()
    guard sustainedOnly.isEmpty || sustainedOnly.count == jobs.count else {
      preconditionFailure("sustainedOnly must mark every job")
    }
    guard settings.sustained || !sustainedOnly.contains(true) else {
      throw AccelError.usage("traces for the sustained classifier only need a sustained classifier to train")
    }
    let sourceNames = Array(Set(jobs.map { $0.group.source ?? "unknown" })).sorted()
    if settings.foldsBySource, sourceNames.count < 2 {
      throw AccelError.usage(
        "--cv source needs traces from two sources or more; the manifests name \(sourceNames.count == 1 ? "one (\(sourceNames[0]))" : "none")",
        hint: "give the manifests a source column, or train on datasets from several sources")
    }
    // Before the features are computed, which takes the time.
    for name in settings.sourceWeights.keys.sorted() where !sourceNames.contains(name) {
      throw AccelError.usage(
        "--source-weight names \(quotedField(name)), which no trace's manifest gives as its source",
        hint: "the sources: \(quotedFields(sourceNames))")
    }
    var traces = try windows(
      jobs: jobs, annotations: annotations, settings: settings, sourceNames: sourceNames, traceDone: traceDone
    )
    for (t, only) in sustainedOnly.enumerated() { traces[t].sustainedOnly = only }
    for t in traces.indices {
      traces[t].weight = Float(settings.sourceWeights[sourceNames[traces[t].source]] ?? 1)
    }
    // The traces the labels' own classifiers learn from.
    let primary = traces.indices.filter { !traces[$0].sustainedOnly }
    guard !primary.isEmpty else {
      throw AccelError.usage(
        "every trace is for the sustained classifier only: give traces for the label's own")
    }
    let (folds, foldOf, foldNames) = assignFolds(traces: traces, settings: settings, sourceNames: sourceNames)
    var learned: [LearnedLabel] = []
    for (l, label) in settings.labels.enumerated() {
      let positives = traces.reduce(0) { $0 + $1.targets[l].filter { $0 == 1 }.count }
      guard positives > 0 else {
        let found = Set(annotations.joined().map(\.label)).sorted()
        throw AccelError.usage(
          "no window of the training traces is annotated \(quotedField(label))",
          hint: found.isEmpty
            ? "the events files annotate nothing: training needs annotated events of the label"
            : "the events files' labels: \(quotedFields(found)); check --label")
      }
      // The final model learns from every trace (but the sustained-only ones); a fold that holds
      // none of those would train the same model, so it reads this one.
      let model = try fit(traces: primary.map { traces[$0] }, label: l, settings: settings)
      // Out-of-fold probabilities for every window.
      var probabilities = traces.map { [Double](repeating: 0, count: $0.count) }
      for fold in 0..<folds {
        let heldOut = traces.indices.filter { foldOf[$0] == fold }
        guard !heldOut.isEmpty else { continue }
        let trainOn = primary.filter { foldOf[$0] != fold }
        let ensemble = try TreeEnsemble(
          json: trainOn.count == primary.count
            ? model : try fit(traces: trainOn.map { traces[$0] }, label: l, settings: settings),
          file: "fold \(fold + 1)")
        for t in heldOut { probabilities[t] = predict(ensemble, traces[t]) }
      }
      var sustained: (model: [UInt8], probabilities: [[Double]])?
      if settings.sustained {
        var q = traces.map { [Double](repeating: 0, count: $0.count) }
        for fold in 0..<folds {
          let heldOut = traces.indices.filter { foldOf[$0] == fold }
          guard !heldOut.isEmpty else { continue }
          let trainOn = traces.indices.filter { foldOf[$0] != fold }
          let ensemble = try TreeEnsemble(
            json: try fit(traces: trainOn.map { traces[$0] }, label: l, settings: settings),
            file: "fold \(fold + 1)")
          for t in heldOut { q[t] = predict(ensemble, traces[t]) }
        }
        sustained = (try fit(traces: traces, label: l, settings: settings), q)
      }
      var (decoding, search, ownSearched) = try chooseOwnAndSustained(
        traces: traces, primary: primary, probabilities: probabilities, sustained: sustained?.probabilities,
        label: label, settings: settings, sourceCount: sourceNames.count)
      // Last, with the rest fixed, how far a qualified event goes on.
      let scored = sustained == nil ? primary : Array(traces.indices)
      let extended = chooseExtension(
        traces: scored.map { traces[$0] }, probabilities: scored.map { probabilities[$0] },
        sustained: sustained.map { q in scored.map { q.probabilities[$0] } }, label: label,
        settings: settings,
        sourceCount: sourceNames.count, decoding: decoding)
      decoding = extended.0
      search += extended.1
      // Then, with a sustained classifier, whether its average begins events too.
      if let sustained {
        let averaged = chooseAverage(
          traces: traces, probabilities: probabilities, sustained: sustained.probabilities, label: label,
          settings: settings, sourceCount: sourceNames.count, decoding: decoding)
        decoding = averaged.0
        search += averaged.1
        // And how long q keeps an event going, again, now that the rest is set.
        let goingOn = chooseGoingOn(
          traces: traces, probabilities: probabilities, sustained: sustained.probabilities, label: label,
          settings: settings, sourceCount: sourceNames.count, decoding: decoding)
        decoding = goingOn.0
        search += goingOn.1
      }
      let perTrace = traces.indices.map {
        metrics(
          traces[$0], probabilities[$0], sustained: sustained?.probabilities[$0], label: label,
          decoding: decoding, tolerance: settings.tolerance)
      }
      let total = perTrace.reduce(Metrics(), +)
      func group(_ name: String, _ members: [Int]) -> HeldOutGroup {
        HeldOutGroup(name: name, members: members, metrics: members.reduce(Metrics()) { $0 + perTrace[$1] })
      }
      // One group per name the traces give (a position, an activity), in name order.
      func groups(by name: KeyPath<TraceWindows, String>) -> [HeldOutGroup] {
        Set(traces.map { $0[keyPath: name] }).sorted().map { n in
          group(n, traces.indices.filter { traces[$0][keyPath: name] == n })
        }
      }
      let negatives = traces.reduce(0) { $0 + $1.targets[l].filter { $0 == 0 }.count }
      learned.append(
        LearnedLabel(
          label: label, model: model, sustainedModel: sustained?.model, decoding: decoding,
          folds: (0..<folds).map { fold in
            group(foldNames[fold], traces.indices.filter { foldOf[$0] == fold })
          },
          sources: sourceNames.indices.map { s in
            group(sourceNames[s], traces.indices.filter { traces[$0].source == s })
          },
          positions: groups(by: \.position), activities: groups(by: \.activity),
          traces: traces.indices.map {
            let t = traces[$0]
            return (t.name, sourceNames[t.source], t.position, t.activity, perTrace[$0])
          },
          total: total,
          search: search, ownSearched: ownSearched, positives: positives, negatives: negatives,
          notes: boundNotes(search: search, chosen: decoding, settings: settings),
          heldOutProbabilities: probabilities, heldOutSustained: sustained?.probabilities))
    }
    return TrainingResult(
      settings: settings, labels: learned, traces: traces.count, windows: traces.reduce(0) { $0 + $1.count },
      sourceNames: sourceNames,
      xgboostVersion: XGBoost.version, windowCenters: traces.map(\.centers), windowEnds: traces.map(\.ends))
  }

  /// The folds: trace i in fold i mod k, or one fold per source. With sources, a source that
  /// alone holds a label's events (generated positives beside recorded negatives) is spread
  /// over the other sources' folds, its trace i in the i mod k-th, so that every fold has
  /// positives to learn from and to be scored on.
  static func assignFolds(traces: [TraceWindows], settings: TrainingSettings, sourceNames: [String])
    -> (count: Int, foldOf: [Int], names: [String])
  {
    guard settings.foldsBySource else {
      let k = min(settings.folds, max(2, traces.count))
      return (k, traces.indices.map { $0 % k }, (0..<k).map { "fold \($0 + 1)" })
    }
    var spread = Set<Int>()
    for l in settings.labels.indices {
      let holders = Set(traces.filter { $0.targets[l].contains(1) }.map(\.source))
      if holders.count == 1 { spread.formUnion(holders) }
    }
    let kept = sourceNames.indices.filter { !spread.contains($0) }
    guard kept.count >= 2 else {
      return (sourceNames.count, traces.map(\.source), sourceNames)
    }
    var seen = [Int: Int]()
    let foldOf = traces.map { trace -> Int in
      if let k = kept.firstIndex(of: trace.source) { return k }
      let i = seen[trace.source, default: 0]
      seen[trace.source] = i + 1
      return i % kept.count
    }
    let names = kept.map { k in
      sourceNames[k]
        + (spread.isEmpty
          ? "" : " (+ \(spread.sorted().map { sourceNames[$0] }.joined(separator: ", ")) in part)")
    }
    return (kept.count, foldOf, names)
  }

  // MARK: Windows

  static func windows(
    jobs: [EvaluationJob], annotations: [[LabeledInterval]], settings: TrainingSettings,
    sourceNames: [String],
    traceDone: (@Sendable (Int) -> Void)?
  ) throws -> [TraceWindows] {
    let results = parallelMap(Array(jobs.indices), jobs: settings.parallelism) { i in
      let result = Result {
        try windows(job: jobs[i], annotations: annotations[i], settings: settings, sourceNames: sourceNames)
      }
      traceDone?((try? result.get())?.count ?? 0)
      return result
    }
    return try results.map { try $0.get() }
  }

  static func windows(
    job: EvaluationJob, annotations: [LabeledInterval], settings: TrainingSettings, sourceNames: [String]
  ) throws -> TraceWindows {
    let stream = try TraceStream(path: job.trace, settings: job.readSettings, resample: nil)
    var extractor = try FeatureExtractor(spec: settings.spec)
    var trace = TraceWindows(
      name: stream.name, targets: settings.labels.map { _ in [] }, annotations: annotations,
      source: sourceNames.firstIndex(of: job.group.source ?? "unknown") ?? 0,
      position: job.group.position ?? "unknown", activity: job.group.activity ?? "unknown")
    var first: Double?
    var last = 0.0
    let byLabel = settings.labels.map { label in
      annotations.filter { $0.label == label }.map { (start: $0.start, end: $0.end) }
    }
    while let block = try stream.next() {
      guard block.count > 0 else { continue }
      if first == nil { first = block.t[0] }
      last = block.t[block.count - 1]
      extractor.process(block) { start, end, values in
        trace.features.append(contentsOf: values.lazy.map { Float($0) })
        trace.centers.append((start + end) / 2)
        trace.ends.append(end)
        for (l, events) in byLabel.enumerated() {
          trace.targets[l].append(windowTarget(start: start, end: end, events: events))
        }
      }
    }
    trace.start = first ?? 0
    trace.duration = last - trace.start
    return trace
  }

  // MARK: Learning

  /// Trains one label's classifier on `traces` and returns XGBoost's JSON model.
  static func fit(traces: [TraceWindows], label l: Int, settings: TrainingSettings) throws -> [UInt8] {
    let columns = settings.spec.names.count
    var values: [Float] = []
    var labels: [Float] = []
    var weights: [Float] = []
    var negatives = 0
    var weightOf = (positives: 0.0, negatives: 0.0)
    let excluded = settings.excludedColumns
    for trace in traces {
      for r in 0..<trace.count {
        let y = trace.targets[l][r]
        guard y == 1 || (y == 0 && r % settings.negativeStride == 0) else { continue }
        let first = values.count
        values.append(contentsOf: trace.features[(r * columns)..<((r + 1) * columns)])
        // A constant column gives no split: the trees never read an excluded feature.
        for c in excluded { values[first + c] = 0 }
        labels.append(Float(y))
        weights.append(trace.weight)
        if y == 0 {
          negatives += 1
          weightOf.negatives += Double(trace.weight)
        } else {
          weightOf.positives += Double(trace.weight)
        }
      }
    }
    let positives = labels.count - negatives
    guard positives > 0, negatives > 0 else {
      throw AccelError.usage(
        "training \(quotedField(settings.labels[l])) needs windows with and without it in every fold; a fold has \(positives == 0 ? "none with it" : "none without it")",
        hint: "add traces, fewer --folds, or recordings without the gesture")
    }
    // Without source weights every window weighs 1 and XGBoost is given none (the same model
    // as before they existed).
    let weighted = weights.contains { $0 != 1 }
    let weight = settings.positiveWeight ?? weightOf.negatives / weightOf.positives
    let matrix = try values.withUnsafeBufferPointer {
      try TrainingMatrix(
        rows: labels.count, columns: columns, values: $0, labels: labels, weights: weighted ? weights : nil,
        names: settings.spec.names)
    }
    let booster = try Booster(
      training: matrix, parameters: settings.boosterParameters(positiveWeight: weight))
    try booster.train(matrix, rounds: settings.rounds)
    return try booster.json()
  }

  static func predict(_ ensemble: TreeEnsemble, _ trace: TraceWindows) -> [Double] {
    let columns = ensemble.featureNames.count
    var row = [Double](repeating: 0, count: columns)
    return (0..<trace.count).map { r in
      for c in 0..<columns { row[c] = Double(trace.features[r * columns + c]) }
      return row.withUnsafeBufferPointer { ensemble.probability($0) }
    }
  }

  // MARK: Decoding

  /// The longest event a decoding keeps: long enough for any sustained shaking.
  static let maxDurationSeconds = 600.0

  /// The decodings searched: thresholds, hysteresis, minimum duration and merge gap, and the hold
  /// path with the strict thresholds.
  static var candidates: [ProbabilityDecoder.Configuration] {
    func decoding(on: Double, offShare: Double, minimum: Double, gap: Double)
      -> ProbabilityDecoder.Configuration
    {
      var c = ProbabilityDecoder.Configuration()
      c.on = on
      c.off = (on * offShare * 1000).rounded() / 1000
      c.minDurationSeconds = minimum
      c.mergeGapSeconds = gap
      // Sustained shaking is one gesture however long it goes on (docs/GESTURES.md).
      c.maxDurationSeconds = maxDurationSeconds
      return c
    }
    var all: [ProbabilityDecoder.Configuration] = []
    for on in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999] {
      for offShare in [0.5, 0.75, 1.0] {
        for minimum in [0.0, 0.2, 0.5] {
          for gap in [0.25, 0.75, 1.5] {
            all.append(decoding(on: on, offShare: offShare, minimum: minimum, gap: gap))
          }
        }
      }
    }
    // Sustained probability as a second way in, beside strict thresholds (after the others, so
    // that a tie keeps the plainer decoding).
    for on in [0.995, 0.998, 0.999] {
      for minimum in [0.0, 0.2] {
        for gap in [0.25, 0.75, 1.5] {
          for hold in [0.9, 0.95, 0.98, 0.99] {
            for holdSeconds in [1.0, 2.0, 3.0, 5.0] {
              var c = decoding(on: on, offShare: 0.5, minimum: minimum, gap: gap)
              c.hold = hold
              c.holdSeconds = holdSeconds
              all.append(c)
            }
          }
        }
      }
    }
    return all
  }

  /// The sustained classifier's part of the decoding searched, beside `primary` (the label's own,
  /// kept): none first (so that a tie keeps the label's own decoding alone), then strict
  /// thresholds with hysteresis, and the hold path with and without them (a hold without a
  /// `sustained_on` begins an event where q stays sure a moment, not at its every blip).
  /// `sustained_off` is a share of the lower of `sustained_on` and `hold`. No two are alike.
  static func sustainedCandidates(_ primary: ProbabilityDecoder.Configuration) -> [ProbabilityDecoder
    .Configuration]
  {
    var all = [primary]
    for on in [0.99, 0.995, 0.998, 0.999, 1] {
      for hold in [0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999, 1] {
        for offShare in [0.5, 0.75, 1.0] where on < 1 || hold < 1 || offShare == 1 {
          for holdSeconds in hold < 1 ? [0.3, 1.0, 2.0, 3.0, 5.0] : [0] {
            var c = primary
            c.sustainedOn = on
            c.sustainedOff = (min(on, hold) * offShare * 1000).rounded() / 1000
            c.hold = hold
            c.holdSeconds = holdSeconds
            guard c.hasSustainedThresholds || holdSeconds > 0,
              (try? c.validate(owner: "", sustained: true)) != nil
            else { continue }
            all.append(c)
          }
        }
      }
    }
    return all
  }

  /// The label's own decoding, chosen on its own traces (`primary`) as without a sustained
  /// classifier, among `candidates`; then, with a sustained classifier's held-out q, the sustained
  /// part beside each of the `primaryBeam` best of those, chosen on every trace: the sustained-only
  /// datasets' figures (real shaking the label's own classifier never learns from) can reorder the
  /// label's own decodings. Returns the decoding, every candidate's scores and how many of them are
  /// the label's own beside a sustained classifier (else 0).
  static func chooseOwnAndSustained(
    traces: [TraceWindows], primary: [Int], probabilities: [[Double]], sustained q: [[Double]]?,
    label: String, settings: TrainingSettings, sourceCount: Int,
    candidates: [ProbabilityDecoder.Configuration]? = nil
  ) throws -> (
    ProbabilityDecoder.Configuration,
    [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)], Int
  ) {
    let (own, search) = try chooseDecoding(
      traces: primary.map { traces[$0] }, probabilities: primary.map { probabilities[$0] }, label: label,
      settings: settings, sourceCount: sourceCount, candidates: candidates)
    guard let q else { return (own, search, 0) }
    let chosen = try chooseDecoding(
      traces: traces, probabilities: probabilities, sustained: q, label: label, settings: settings,
      sourceCount: sourceCount,
      candidates: sustainedCandidates(beside: bestDecodings(search, objective: settings.objective)))
    return (chosen.0, search + chosen.1, search.count)
  }

  /// How many of the label's own decodings the sustained part is searched beside.
  static let primaryBeam = 5

  /// The `count` best of `search` by `objective`'s rule (the bounds, then the objective, then the
  /// fewer false alarms an hour, then the earlier), best first, no two alike.
  static func bestDecodings(
    _ search: [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)],
    objective: TuningObjective, count: Int = primaryBeam
  ) -> [ProbabilityDecoder.Configuration] {
    let ranked = search.indices.sorted {
      objective.isBetter((search[$0].score, $0), than: (search[$1].score, $1))
    }
    var best: [ProbabilityDecoder.Configuration] = []
    for k in ranked where !best.contains(search[k].decoding) {
      best.append(search[k].decoding)
      if best.count == count { break }
    }
    return best
  }

  /// The sustained parts searched beside each of `primaries` (best first), each one's own
  /// decoding alone first (so that a tie keeps the best of the label's own decodings, alone), no
  /// two alike.
  static func sustainedCandidates(beside primaries: [ProbabilityDecoder.Configuration])
    -> [ProbabilityDecoder.Configuration]
  {
    var all: [ProbabilityDecoder.Configuration] = []
    for primary in primaries {
      for c in sustainedCandidates(primary) where !all.contains(c) { all.append(c) }
    }
    return all
  }

  /// The extensions searched beside `decoding` (kept first): `extend` where it is below the
  /// thresholds an event already goes on at, so that it can keep an event longer.
  static func extensionCandidates(_ decoding: ProbabilityDecoder.Configuration) -> [ProbabilityDecoder
    .Configuration]
  {
    let goesOn = max(decoding.off, decoding.sustainedOff < 1 ? decoding.sustainedOff : 0)
    return [decoding]
      + [0.98, 0.95, 0.9, 0.8, 0.7, 0.5, 0.3].filter { $0 < goesOn && $0 < decoding.extend }.map {
        var c = decoding
        c.extend = $0
        return c
      }
  }

  /// Chooses `extend` with the rest of `decoding` fixed: among the extensions that score at
  /// least as well as `decoding` alone by the settings' rule (the bounds on every negative
  /// source, then the worst positive source's objective), the one that covers the most of the
  /// worst positive source's annotated time (segment recall); on a tie the higher `extend`, and
  /// none at all before any. Returns it with the other extensions' scores.
  static func chooseExtension(
    traces: [TraceWindows], probabilities: [[Double]], sustained: [[Double]]?, label: String,
    settings: TrainingSettings, sourceCount: Int, decoding: ProbabilityDecoder.Configuration
  ) -> (
    ProbabilityDecoder.Configuration,
    [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)]
  ) {
    let candidates = extensionCandidates(decoding)
    guard candidates.count > 1 else { return (decoding, []) }
    // Decoded once, scored twice: by the settings' own objective and by the time covered.
    let (decoded, own, rows) = refinements(
      candidates, traces: traces, probabilities: probabilities, sustained: sustained, label: label,
      settings: settings, sourceCount: sourceCount)
    var covering = settings.objective
    covering.metric = "segment_recall"
    covering.maximize = true
    let coverage = decoded.map { score($0.total, bySource: $0.bySource, objective: covering) }
    var best = 0
    for k in candidates.indices.dropFirst()
    where !settings.objective.isBetter((own[0], 0), than: (own[k], 0))
      && covering.isBetter((coverage[k], k), than: (coverage[best], best))
    {
      best = k
    }
    return (candidates[best], rows)
  }

  /// The averages of q searched beside `decoding` (kept first): time constants of 1-5 s, each
  /// beginning an event at 0.99 down to 0.9.
  static func averageCandidates(_ decoding: ProbabilityDecoder.Configuration) -> [ProbabilityDecoder
    .Configuration]
  {
    [decoding]
      + [1.0, 2.0, 3.0, 4.0, 5.0].flatMap { seconds in
        [0.99, 0.98, 0.97, 0.95, 0.93, 0.9].map {
          var c = decoding
          c.smoothing = seconds
          c.smoothedOn = $0
          return c
        }
      }
  }

  /// Chooses whether the sustained classifier's average begins events (`smooth_s`,
  /// `smoothed_on`), with the rest of `decoding` fixed: among the averages that meet the bounds
  /// on every negative source as well as `decoding` alone does and score the worst positive
  /// source at least as well, the one whose positive sources score best compared worst first,
  /// then the next (leximin: the worst source decides, and where it ties, the next worst; within
  /// one event is a tie, `leximinChoice`); then the best mean over the positive sources; then
  /// the earlier (none before any, then the shorter time constant, then the stricter level).
  /// Returns it with the other candidates' scores.
  static func chooseAverage(
    traces: [TraceWindows], probabilities: [[Double]], sustained: [[Double]], label: String,
    settings: TrainingSettings, sourceCount: Int, decoding: ProbabilityDecoder.Configuration
  ) -> (
    ProbabilityDecoder.Configuration,
    [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)]
  ) {
    let candidates = averageCandidates(decoding)
    let (decoded, own, rows) = refinements(
      candidates, traces: traces, probabilities: probabilities, sustained: sustained, label: label,
      settings: settings, sourceCount: sourceCount)
    let ranked = decoded.map { leximinValues($0.total, bySource: $0.bySource, objective: settings.objective) }
    let eligible = candidates.indices.filter {
      own[$0].violation <= own[0].violation && own[$0].objective >= own[0].objective
    }
    let best = leximinChoice(eligible.map { ranked[$0] }).map { eligible[$0] } ?? 0
    return (candidates[best], rows)
  }

  /// The levels q keeps an event going at searched beside `decoding` (kept first): as the
  /// sustained search gives them, a half, three quarters or all of the lower of `sustained_on`
  /// and `hold`; none without a sustained part.
  static func goingOnCandidates(_ decoding: ProbabilityDecoder.Configuration) -> [ProbabilityDecoder
    .Configuration]
  {
    guard decoding.sustainedOn < 1 || decoding.holdSeconds > 0 else { return [decoding] }
    let top = min(decoding.sustainedOn, decoding.holdSeconds > 0 ? decoding.hold : 1)
    var all = [decoding]
    for share in [0.5, 0.75, 1.0] {
      var c = decoding
      c.sustainedOff = (top * share * 1000).rounded() / 1000
      if !all.contains(c), (try? c.validate(owner: "", sustained: true)) != nil { all.append(c) }
    }
    return all
  }

  /// Chooses `sustained_off` again once `extend` and q's average are set, with the rest of
  /// `decoding` fixed. The sustained search chose it before them, when an event that closed early
  /// was a piece and a false alarm; with `extend` a lower level can instead keep a blip long
  /// enough to count. Among the levels that meet the bounds on every negative source as well as
  /// `decoding` does and whose positive sources score within one event of its own at every place
  /// (worst first, as `leximinChoice` ties them), the one with the fewest false alarms over every
  /// trace; on a tie the earlier (`decoding` first). Returns it with the other levels' scores.
  static func chooseGoingOn(
    traces: [TraceWindows], probabilities: [[Double]], sustained: [[Double]], label: String,
    settings: TrainingSettings, sourceCount: Int, decoding: ProbabilityDecoder.Configuration
  ) -> (
    ProbabilityDecoder.Configuration,
    [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)]
  ) {
    let candidates = goingOnCandidates(decoding)
    guard candidates.count > 1 else { return (decoding, []) }
    let (decoded, own, rows) = refinements(
      candidates, traces: traces, probabilities: probabilities, sustained: sustained, label: label,
      settings: settings, sourceCount: sourceCount)
    let ranked = decoded.map { leximinValues($0.total, bySource: $0.bySource, objective: settings.objective) }
    var best = 0
    for k in candidates.indices.dropFirst()
    where own[k].violation <= own[0].violation
      && ranked[k].count == ranked[0].count
      && zip(ranked[k], ranked[0]).allSatisfy({ withinOneEvent($0.value, of: $1) })
      && decoded[k].total.fp < decoded[best].total.fp
    {
      best = k
    }
    return (candidates[best], rows)
  }

  /// Each of `candidates` (the first the decoding they refine) decoded on the traces, per source
  /// too when chosen by source, and scored by the settings' own rule; `rows` are decoding.csv's
  /// entries for all but the first.
  static func refinements(
    _ candidates: [ProbabilityDecoder.Configuration], traces: [TraceWindows], probabilities: [[Double]],
    sustained: [[Double]]?, label: String, settings: TrainingSettings, sourceCount: Int
  ) -> (
    decoded: [(total: Metrics, bySource: [Metrics]?)], scores: [TuningScore],
    rows: [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)]
  ) {
    let decoded = decodedMetrics(
      traces: traces, probabilities: probabilities, sustained: sustained, label: label, settings: settings,
      sourceCount: sourceCount, candidates: candidates)
    let scores = decoded.map { score($0.total, bySource: $0.bySource, objective: settings.objective) }
    let rows = candidates.indices.dropFirst().map { (candidates[$0], scores[$0], decoded[$0].total) }
    return (decoded, scores, rows)
  }

  /// Whether a source's `value` is within one event of `best` (its value less one event's step):
  /// what a retraining moves, so a tie.
  static func withinOneEvent(_ value: Double, of best: (value: Double, step: Double)) -> Bool {
    value >= best.value - best.step - 1e-12
  }

  /// The positive sources' objective values, worst first (over all traces when the decoding is
  /// not chosen by source), each with its step: how much one event found or missed moves it
  /// (the value less its value with one event fewer found; with none found, one more).
  static func leximinValues(_ total: Metrics, bySource: [Metrics]?, objective: TuningObjective)
    -> [(value: Double, step: Double)]
  {
    let groups = bySource?.filter { $0.tp + $0.fn > 0 } ?? [total]
    return groups.compactMap { m -> (value: Double, step: Double)? in
      guard let value = EvaluationReport.value(objective.metric, m) else { return nil }
      var moved = m
      if m.tp > 0 {
        moved.tp -= 1
        moved.fn += 1
      } else {
        moved.tp += 1
        moved.fn -= 1
      }
      let other = EvaluationReport.value(objective.metric, moved) ?? value
      return (value, abs(value - other))
    }.sorted { $0.value < $1.value }
  }

  /// The index of the candidate whose sources score best worst first, where one event is within
  /// what a retraining moves: at each place, from the worst, the candidates still in whose value
  /// is within the best one's step of the best stay in (one event fewer found at a source ties
  /// with the best); then the highest mean over the places; then the first. Nil for none.
  static func leximinChoice(_ ranked: [[(value: Double, step: Double)]]) -> Int? {
    var kept = Array(ranked.indices)
    let places = ranked.map(\.count).min() ?? 0
    for place in 0..<places {
      guard let top = kept.max(by: { ranked[$0][place].value < ranked[$1][place].value }) else { break }
      kept = kept.filter { withinOneEvent(ranked[$0][place].value, of: ranked[top][place]) }
    }
    let means = ranked.map { $0.isEmpty ? 0 : $0.map(\.value).reduce(0, +) / Double($0.count) }
    return kept.max { means[$0] < means[$1] || (means[$0] == means[$1] && $0 > $1) }
  }

  /// When the bounds left no useful decoding, why and what would help: no decoding met them
  /// (the chosen one comes closest), or only one that finds none of the events did. Either way,
  /// how many hours of trace the false alarms an hour are measured on (one false alarm in them is
  /// how many an hour).
  static func boundNotes(
    search: [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)],
    chosen: ProbabilityDecoder.Configuration, settings: TrainingSettings
  ) -> [String] {
    guard let best = search.first(where: { $0.decoding == chosen }) else { return [] }
    let m = best.total
    let findsNothing = m.tp == 0 && m.fn > 0
    guard best.score.violation > 0 || findsNothing else { return [] }
    let bounds = settings.objective.constraints.map {
      "\($0.metric) \($0.atMost ? "<=" : ">=") \(formatNumber($0.limit))"
    }.joined(separator: ", ")
    var text =
      best.score.violation > 0
      ? "no decoding meets \(bounds) on the held-out traces"
      : "no decoding that finds any of the \(m.fn) events meets \(bounds) on the held-out traces"
    // False alarms an hour are counted over the traces' whole duration.
    let hours = m.duration / 3600
    if hours > 0 {
      text +=
        "; they last \(cFormat("%.2f", hours)) h, so one false alarm is \(cFormat("%.3g", 1 / hours)) an hour"
    }
    text +=
      best.score.violation > 0
      ? ". The decoding chosen comes closest: \(m.tp) of \(m.tp + m.fn) events found, \(m.fp) false alarms (F1 \(cFormat("%.3f", m.f1)))."
      : ". The decoding chosen finds nothing (F1 0)."
    text +=
      " More hours of recordings without the gesture (datasets/real-negatives, or everyday recordings from the importers) or a looser --subject-to would help."
    return [text]
  }

  static func chooseDecoding(
    traces: [TraceWindows], probabilities: [[Double]], sustained: [[Double]]? = nil, label: String,
    settings: TrainingSettings, sourceCount: Int, candidates: [ProbabilityDecoder.Configuration]? = nil
  ) throws -> (
    ProbabilityDecoder.Configuration,
    [(decoding: ProbabilityDecoder.Configuration, score: TuningScore, total: Metrics)]
  ) {
    let candidates = candidates ?? self.candidates
    let decoded = decodedMetrics(
      traces: traces, probabilities: probabilities, sustained: sustained, label: label, settings: settings,
      sourceCount: sourceCount, candidates: candidates)
    let scored = decoded.map { score($0.total, bySource: $0.bySource, objective: settings.objective) }
    var best = 0
    for k in scored.indices.dropFirst()
    where settings.objective.isBetter((scored[k], k), than: (scored[best], best)) { best = k }
    return (candidates[best], candidates.indices.map { (candidates[$0], scored[$0], decoded[$0].total) })
  }

  /// Each candidate decoding's metrics over all traces, and per source when the decoding is
  /// chosen by the worst source (else none).
  static func decodedMetrics(
    traces: [TraceWindows], probabilities: [[Double]], sustained: [[Double]]?, label: String,
    settings: TrainingSettings, sourceCount: Int, candidates: [ProbabilityDecoder.Configuration]
  ) -> [(total: Metrics, bySource: [Metrics]?)] {
    parallelMap(candidates, jobs: settings.parallelism) { c -> (total: Metrics, bySource: [Metrics]?) in
      let perTrace = traces.indices.map {
        metrics(
          traces[$0], probabilities[$0], sustained: sustained?[$0], label: label, decoding: c,
          tolerance: settings.tolerance)
      }
      let total = perTrace.reduce(Metrics(), +)
      guard settings.worstSource, sourceCount >= 2 else { return (total, nil) }
      var bySource = [Metrics](repeating: Metrics(), count: sourceCount)
      for t in traces.indices { bySource[traces[t].source] = bySource[traces[t].source] + perTrace[t] }
      return (total, bySource)
    }
  }

  /// A decoding's score by `objective`: over all traces, or, per source, the bounds on every
  /// negative source (one without the label's events: a source of positives is scored by the
  /// objective, its few background false alarms through precision) and the worst positive
  /// source's objective.
  static func score(_ total: Metrics, bySource: [Metrics]?, objective: TuningObjective) -> TuningScore {
    guard let bySource else { return objective.score(total) }
    let negatives = bySource.filter { $0.tp + $0.fn == 0 && $0.duration > 0 }
    let positives = bySource.filter { $0.tp + $0.fn > 0 }
    let bounded = objective.score(total, groups: negatives.isEmpty ? nil : negatives)
    let aimed = objective.score(total, groups: positives)
    return TuningScore(
      violation: bounded.violation, objective: aimed.objective, falseAlarmsPerHour: total.falseAlarmsPerHour)
  }

  /// One trace's metrics for `label` when its probabilities (and its sustained classifier's, q)
  /// are decoded with `decoding`.
  static func metrics(
    _ trace: TraceWindows, _ p: [Double], sustained q: [Double]? = nil, label: String,
    decoding: ProbabilityDecoder.Configuration, tolerance: Double
  ) -> Metrics {
    var decoder = ProbabilityDecoder(configuration: decoding)
    var events: [ProbabilityDecoder.Event] = []
    for r in 0..<trace.count {
      if let e = decoder.add(
        center: trace.centers[r], end: trace.ends[r], probability: p[r], sustained: q?[r])
      {
        events.append(e)
      }
    }
    events += decoder.finish()
    let detections = events.map {
      LabeledInterval(
        start: $0.start, end: $0.end, label: label, reported: $0.reported, cancelled: $0.cancelled)
    }
    return Metrics.evaluate(
      detections: detections, annotations: trace.annotations, label: label, tolerance: tolerance,
      includeCancelled: false, duration: trace.duration, start: trace.start
    ).0
  }
}
