import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelScaleOut

/// One round of a tuning search (a batch of trials) with each trace's metrics per trial.
public struct TuningRound: Sendable {
  public var settings: [RuleSetting]
  /// Per trace (its index in the dataset): its name and one `Metrics` per trial.
  public var traces: [Int: (name: String, metrics: [Metrics])]

  public init(settings: [RuleSetting], traces: [Int: (name: String, metrics: [Metrics])] = [:]) {
    self.settings = settings
    self.traces = traces
  }
}

/// A tuning run spread over shards of traces. The search is adaptive (each round starts from the
/// best trials so far), so it runs a round at a time: every shard evaluates the round's trials
/// on its traces (`tune --shard K/N --resume STATE`), and merging the shards' results completes
/// the round. The search itself is replayed from the recorded rounds, so the trials, the choice
/// and the folds are exactly those of an unsharded run.
public struct PartialTuning: Sendable {
  public var header: ShardHeader
  public var matching: MatchingSettings
  public var tuning: TuningSettings
  /// The rounds evaluated on every trace.
  public var rounds: [TuningRound]
  /// This result's part of the next round (its shards' traces), if the search is not finished.
  public var current: TuningRound?

  public init(
    header: ShardHeader, matching: MatchingSettings, tuning: TuningSettings, rounds: [TuningRound],
    current: TuningRound?
  ) {
    self.header = header
    self.matching = matching
    self.tuning = tuning
    self.rounds = rounds
    self.current = current
  }

  /// Where a replay of the recorded rounds ends.
  public enum Progress: Sendable {
    /// The search is finished.
    case finished(TuningResult)
    /// The trials of the next round (the `round`th, from 0).
    case next(round: Int, settings: [RuleSetting])
  }

  struct Pending: Error {
    var settings: [RuleSetting]
  }

  /// Replays the search over the recorded rounds.
  public func progress(file: String) throws -> Progress {
    var round = 0
    do {
      let result = try Tuner.run(tuning, traceCount: header.traceCount) { batch in
        guard round < rounds.count else { throw Pending(settings: batch) }
        let recorded = rounds[round]
        guard recorded.settings.map(\.parameterText) == batch.map(\.parameterText) else {
          throw AccelError.data(
            DataLocation(file: file), "round \(round + 1) holds other trials than the search makes",
            hint: "the partial result was made by another accelkit or with other options")
        }
        round += 1
        return try (0..<header.traceCount).map { i in
          guard let t = recorded.traces[i] else {
            throw AccelError.data(DataLocation(file: file), "round \(round) lacks trace \(i + 1)")
          }
          return t.metrics
        }
      }
      return .finished(result)
    } catch let pending as Pending {
      return .next(round: round, settings: pending.settings)
    }
  }

  /// Runs shard `shard`'s part of the next round after `state` (nil: the first round): the
  /// round's trials over the traces the shard owns. A finished search gives a result with no
  /// round to run (merging such results gives the finished state again).
  public static func step(
    shard: ShardSpec, header: ShardHeader, matching: MatchingSettings, tuning: TuningSettings,
    state: (PartialTuning, file: String)?, jobs: [EvaluationJob], annotations: [[LabeledInterval]],
    parallelism: Int? = nil, traceDone: (@Sendable (_ rows: Int) -> Void)? = nil
  ) throws -> PartialTuning {
    var partial = PartialTuning(header: header, matching: matching, tuning: tuning, rounds: [], current: nil)
    if let (state, file) = state {
      guard state.header.isComplete, state.current == nil else {
        throw AccelError.data(
          DataLocation(file: file),
          "not a merged state: shards \(state.header.missingShards.map(String.init).joined(separator: ", ")) of its round are missing",
          hint: "merge every shard's result of the round (accelkit merge PARTS -o STATE) and resume from that"
        )
      }
      var compared = state.header
      compared.shards = header.shards
      if let difference = header.difference(from: compared) ?? partial.difference(from: state) {
        throw AccelError.data(
          DataLocation(file: file), "does not belong to this tuning: \(difference)",
          hint: "resume with the options, dataset and accelkit the search started with")
      }
      partial.rounds = state.rounds
    }
    guard case .next(_, let settings) = try partial.progress(file: state?.file ?? "the tuning") else {
      return partial
    }
    let own = shard.owned(jobs)
    let evaluated = try Evaluator.evaluate(
      jobs: own.map { jobs[$0] }, annotations: own.map { annotations[$0] }, settings: settings,
      label: matching.label, tolerance: matching.tolerance, includeCancelled: matching.includeCancelled,
      criteria: matching.criteria, parallelism: parallelism, traceDone: traceDone)
    var round = TuningRound(settings: settings)
    for (n, i) in own.enumerated() {
      round.traces[i] = (ShardHeader.traceName(jobs, i), evaluated[n].metrics)
    }
    partial.current = round
    return partial
  }

  /// What makes `other` part of another tuning, or nil.
  func difference(from other: PartialTuning) -> String? {
    if let d = matching.difference(from: other.matching) { return d }
    let (a, b) = (Self.tuningJSON(tuning), Self.tuningJSON(other.tuning))
    return a == b ? nil : "the search \(b), not \(a)"
  }

  /// Merges partial results of one round (or finished states), in any order or grouping.
  public static func merge(_ parts: [PartialTuning], names: [String]) throws -> PartialTuning {
    guard var merged = parts.first else { throw AccelError.usage("no partial results to merge") }
    var owners: [Int: String] = [:]
    for s in merged.header.shards { owners[s] = names[0] }
    for (part, name) in zip(parts, names) {
      let traces = part.current?.traces.map { (index: $0.key, name: $0.value.name) } ?? []
      try part.header.checkOwnership(traces, file: name)
    }
    let recorded = roundsJSON(merged.rounds)
    for (part, name) in zip(parts, names).dropFirst() {
      try merged.header.absorb(part.header, name: name, owners: &owners, first: names[0])
      var difference = merged.difference(from: part)
      if difference == nil && roundsJSON(part.rounds) != recorded {
        difference = "it resumed from another state (its recorded rounds differ)"
      }
      if difference == nil && (merged.current == nil) != (part.current == nil) {
        difference = "it is at another round of the search"
      }
      if let difference {
        throw AccelError.data(
          DataLocation(file: name), "does not belong with \(names[0]): \(difference)",
          hint: "partial results merge only when the same accelkit ran the same round of the same tuning")
      }
      guard let current = part.current else { continue }
      guard merged.current!.settings.map(\.parameterText) == current.settings.map(\.parameterText) else {
        throw AccelError.data(
          DataLocation(file: name), "does not belong with \(names[0]): it holds other trials",
          hint: "partial results merge only when the same accelkit ran the same round of the same tuning")
      }
      for (i, t) in current.traces {
        if merged.current!.traces[i] != nil {
          throw AccelError.data(
            DataLocation(file: name), "trace \(t.name) is also in another partial result",
            hint: "give each shard's result once")
        }
        merged.current!.traces[i] = t
      }
    }
    if merged.header.isComplete, let current = merged.current,
      current.traces.count == merged.header.traceCount
    {
      merged.rounds.append(current)
      merged.current = nil
    }
    return merged
  }

  // MARK: The file

  public func json() -> String {
    var body = "\"tuning\": \(Self.tuningJSON(tuning)),\n"
    body += "\"rounds\": \(Self.roundsJSON(rounds)),\n"
    body += "\"current\": \(current.map(Self.roundJSON) ?? "null")\n"
    return PartialJSON.document(PartialJSON.tuningFormat, header: header, matching: matching, body: body)
  }

  static func tuningJSON(_ t: TuningSettings) -> String {
    let n = PartialJSON.number
    var text = "{\"rule\": \(jsonString(t.rule)), \"fixed\": ["
    text += t.fixed.map { "[\(jsonString($0.0)), \(n($0.1))]" }.joined(separator: ", ") + "], \"space\": ["
    text += t.space.map { d in
      "[\(jsonString(d.name)), \(n(d.low)), \(n(d.high)), \(d.logarithmic), \(d.isInteger)]"
    }.joined(separator: ", ")
    let o = t.objective
    text += "], \"objective\": [\(jsonString(o.metric)), \(o.maximize), ["
    text += o.constraints.map { "[\(jsonString($0.metric)), \($0.atMost), \(n($0.limit))]" }.joined(
      separator: ", ")
    text += "]], \"trials\": \(t.trials), \"seed\": \"\(t.seed)\", \"folds\": \(t.folds), "
    text += "\"sources\": [\(t.groupNames.map(jsonString).joined(separator: ", "))], "
    text +=
      "\"trace_sources\": \(t.groups.map { "[" + $0.map(String.init).joined(separator: ", ") + "]" } ?? "null"), "
    text += "\"cv_by_source\": \(t.foldsBySource), \"worst_source\": \(t.worstSource)}"
    return text
  }

  static func roundJSON(_ r: TuningRound) -> String {
    var text =
      "{\"settings\": [" + r.settings.map(\.partialJSON).joined(separator: ", ") + "],\n \"traces\": [\n"
    text += r.traces.keys.sorted().map { i in
      let t = r.traces[i]!
      let duration = PartialJSON.number(t.metrics.first?.duration ?? 0)
      return "  [\(i), \(jsonString(t.name)), \(duration), ["
        + t.metrics.map { PartialJSON.metrics($0) + "]" }.joined(separator: ",")
        + "]]"
    }.joined(separator: ",\n")
    return text + "\n ]}"
  }

  static func roundsJSON(_ rounds: [TuningRound]) -> String {
    "[\n" + rounds.map(roundJSON).joined(separator: ",\n") + "\n]"
  }

  /// The state of a tuning shard that `--resume` names: its partial file, read and checked.
  ///
  /// - Throws: a data error when the file is a partial evaluation or not a partial result.
  public static func resume(from path: String) throws -> (state: PartialTuning, file: String) {
    let (name, bytes) = try PartialFiles.read([path])[0]
    let (root, format) = try PartialJSON.open(bytes, file: name)
    guard format == PartialJSON.tuningFormat else {
      throw AccelError.data(DataLocation(file: name), "a partial evaluation, not the state of a tuning")
    }
    return (try PartialTuning(root, file: name), name)
  }

  /// Reads a partial tuning (`PartialJSON.open` has checked it).
  public init(_ root: JSONValue, file: String) throws {
    let r = PartialReader(file: file)
    header = try ShardHeader(root, r)
    matching = try MatchingSettings(root, r)
    guard let t = root["tuning"] else { throw r.fail("no \"tuning\"") }
    var tuning = TuningSettings(
      rule: try r.string(t["rule"], "rule"),
      space: try r.array(t["space"], "space").map { d in
        let a = try r.array(d, "space", count: 5)
        return SearchDimension(
          try r.string(a[0], "space"), try r.double(a[1], "space"), try r.double(a[2], "space"),
          logarithmic: try r.bool(a[3], "space"), isInteger: try r.bool(a[4], "space"))
      })
    tuning.fixed = try r.array(t["fixed"], "fixed").map { f in
      let a = try r.array(f, "fixed", count: 2)
      return (try r.string(a[0], "fixed"), try r.double(a[1], "fixed"))
    }
    let o = try r.array(t["objective"], "objective", count: 3)
    tuning.objective = TuningObjective(
      metric: try r.string(o[0], "objective"), maximize: try r.bool(o[1], "objective"),
      constraints: try r.array(o[2], "objective").map { c in
        let a = try r.array(c, "constraint", count: 3)
        return TuningObjective.Constraint(
          metric: try r.string(a[0], "constraint"), atMost: try r.bool(a[1], "constraint"),
          limit: try r.double(a[2], "constraint"))
      })
    tuning.trials = try r.int(t["trials"], "trials")
    guard let seed = UInt64(try r.string(t["seed"], "seed")) else {
      throw r.fail("seed is not a whole number")
    }
    tuning.seed = seed
    tuning.folds = try r.int(t["folds"], "folds")
    tuning.groupNames = t["sources"]?.array?.compactMap(\.string) ?? []
    tuning.groups = t["trace_sources"]?.array?.map { Int($0.number ?? -1) }
    if let groups = tuning.groups {
      guard groups.count == header.traceCount, groups.allSatisfy({ tuning.groupNames.indices.contains($0) })
      else {
        throw r.fail("its trace sources do not fit its traces")
      }
    }
    tuning.foldsBySource = t["cv_by_source"] == .bool(true)
    tuning.worstSource = t["worst_source"] == .bool(true)
    self.tuning = tuning
    let traceCount = header.traceCount
    func round(_ v: JSONValue) throws -> TuningRound {
      let settings = try r.array(v["settings"], "settings").map { try r.setting($0) }
      var round = TuningRound(settings: settings)
      for item in try r.array(v["traces"], "traces") {
        let a = try r.array(item, "a trace", count: 4)
        let i = try r.int(a[0], "a trace's index")
        guard (0..<traceCount).contains(i), round.traces[i] == nil else {
          throw r.fail("trace index \(i) is outside the dataset or there twice")
        }
        let duration = try r.double(a[2], "a trace's duration")
        let metrics = try r.array(a[3], "metrics", count: settings.count).map {
          try r.metrics(try r.array($0, "a result", count: 14), duration: duration)
        }
        round.traces[i] = (try r.string(a[1], "a trace's name"), metrics)
      }
      return round
    }
    rounds = try r.array(root["rounds"], "rounds").map(round)
    guard rounds.allSatisfy({ $0.traces.count == traceCount }) else {
      throw r.fail("a recorded round lacks traces")
    }
    current = try root["current"].flatMap { $0 == .null ? nil : try round($0) }
  }
}
