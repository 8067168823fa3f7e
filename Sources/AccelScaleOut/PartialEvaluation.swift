import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO

extension RuleSetting {
  package var partialJSON: String {
    "[\(jsonString(rule)), ["
      + assignments.map { "[\(jsonString($0.name)), \(PartialJSON.number($0.value))]" }.joined(
        separator: ", ") + "]]"
  }
}

/// How detections are matched and counted: what evaluate's matching options say.
public struct MatchingSettings: Sendable, Equatable {
  public var label: String?
  public var tolerance: Double
  public var includeCancelled: Bool
  public var criteria: StandardCriteria

  public init(label: String?, tolerance: Double, includeCancelled: Bool, criteria: StandardCriteria) {
    self.label = label
    self.tolerance = tolerance
    self.includeCancelled = includeCancelled
    self.criteria = criteria
  }

  package var json: String {
    var text =
      "\"label\": \(label.map(jsonString) ?? "null"),\n\"tolerance\": \(PartialJSON.number(tolerance)),\n"
    text += "\"include_cancelled\": \(includeCancelled),\n"
    text += "\"collar\": \(PartialJSON.number(criteria.collar)),\n"
    text += "\"offset_fraction\": \(PartialJSON.number(criteria.offsetFraction)),\n"
    text += "\"segment\": \(PartialJSON.number(criteria.segment)),\n"
    return text
  }

  package init(_ root: JSONValue, _ r: PartialReader) throws {
    label = try r.optionalString(root["label"], "label")
    tolerance = try r.double(root["tolerance"], "tolerance")
    includeCancelled = try r.bool(root["include_cancelled"], "include_cancelled")
    criteria = StandardCriteria(
      collar: try r.double(root["collar"], "collar"),
      offsetFraction: try r.double(root["offset_fraction"], "offset_fraction"),
      segment: try r.double(root["segment"], "segment"))
  }

  /// What differs from `other`, or nil.
  package func difference(from other: MatchingSettings) -> String? {
    let checks: [(String, String, String)] = [
      ("label", label ?? "", other.label ?? ""),
      ("tolerance", formatNumber(tolerance), formatNumber(other.tolerance)),
      ("include cancelled", String(includeCancelled), String(other.includeCancelled)),
      ("collar", formatNumber(criteria.collar), formatNumber(other.criteria.collar)),
      ("offset fraction", formatNumber(criteria.offsetFraction), formatNumber(other.criteria.offsetFraction)),
      ("segment", formatNumber(criteria.segment), formatNumber(other.criteria.segment)),
    ]
    return checks.first { $0.1 != $0.2 }.map { "\($0.0) \(quotedField($0.2)), not \(quotedField($0.1))" }
  }
}

/// One trace's part of a partial evaluation: its files' digests, its annotations, and its
/// evaluation (every count the metrics are made of, per setting).
public struct PartialTrace: Sendable {
  /// The trace's position in the dataset.
  public var index: Int
  public var path: String
  /// The trace and annotation files with their digests, named as `DatasetFingerprint` names them.
  public var files: [(name: String, sha256: String?)]
  public var annotations: [LabeledInterval]
  public var evaluation: TraceEvaluation
}

/// What an evaluation of some shards of a dataset found, with everything needed to merge partial
/// results into exactly the report of one run over the whole dataset: summaries are sums over
/// traces in dataset order, so merged in that order they are the same numbers, bit for bit.
public struct PartialEvaluation: Sendable {
  public var header: ShardHeader
  public var matching: MatchingSettings
  public var sweeping: Bool
  public var settings: [RuleSetting]
  /// Ascending by index.
  public var traces: [PartialTrace]

  public init(
    header: ShardHeader, matching: MatchingSettings, sweeping: Bool, settings: [RuleSetting],
    traces: [PartialTrace]
  ) {
    self.header = header
    self.matching = matching
    self.sweeping = sweeping
    self.settings = settings
    self.traces = traces.sorted { $0.index < $1.index }
  }

  /// Every shard is here and so is every trace.
  public var isComplete: Bool { header.isComplete && traces.count == header.traceCount }

  /// The dataset's fingerprint: the manifest, then every trace's files in dataset order, each once.
  public var fingerprint: DatasetFingerprint {
    var files = header.manifests
    var seen = Set(files.map(\.name))
    for t in traces {
      for f in t.files where seen.insert(f.name).inserted { files.append(f) }
    }
    return DatasetFingerprint(files: files)
  }

  /// The report of a complete result: the same as evaluating the whole dataset at once.
  public func report() -> EvaluationReport {
    var report = EvaluationReport(settings: settings, traces: traces.map(\.evaluation), sweeping: sweeping)
    report.fingerprint = fingerprint
    return report
  }

  /// Evaluates the traces of `jobs` that `shard` owns (`annotations`: every job's, as read) and
  /// hashes their files while it does.
  public static func evaluate(
    shard: ShardSpec, header: ShardHeader, jobs: [EvaluationJob], annotations: [[LabeledInterval]],
    plan: EvaluationPlan, matching: MatchingSettings, parallelism: Int? = nil,
    traceDone: (@Sendable (_ rows: Int) -> Void)? = nil, bytesRead: (@Sendable (_ bytes: Int) -> Void)? = nil
  ) throws -> PartialEvaluation {
    let manifest = jobs.first?.location?.file
    let own = shard.owned(jobs)
    let ownJobs = own.map { jobs[$0] }
    let (evaluations, fingerprint) = try concurrently(
      {
        try Evaluator.evaluate(
          jobs: ownJobs, annotations: own.map { annotations[$0] }, settings: plan.settings,
          label: matching.label,
          tolerance: matching.tolerance, includeCancelled: matching.includeCancelled,
          criteria: matching.criteria,
          parallelism: parallelism, traceDone: traceDone, bytesRead: bytesRead)
      },
      { try DatasetFingerprint.digests(of: DatasetFingerprint.files(of: ownJobs), parallelism: 1) })
    // Named as the whole dataset's fingerprint names them.
    let digests = Dictionary(
      fingerprint.map { (DatasetFingerprint.name(of: $0.path, manifest: manifest), $0.sha256) },
      uniquingKeysWith: { a, _ in a })
    let traces = own.enumerated().map { n, i in
      let files = [jobs[i].trace, EventsFile.fileAndTask(jobs[i].events).path].map { path in
        let name = DatasetFingerprint.name(of: path, manifest: manifest)
        return (name: name, sha256: digests[name] ?? nil)
      }
      return PartialTrace(
        index: i, path: jobs[i].trace, files: files, annotations: annotations[i], evaluation: evaluations[n])
    }
    return PartialEvaluation(
      header: header, matching: matching, sweeping: plan.sweeping, settings: plan.settings, traces: traces)
  }

  /// Merges partial results (in any order or grouping: merging is associative and commutative)
  /// after checking they belong together: the same accelkit, dataset, options and settings, no
  /// shard or trace twice. `names` name the partials in errors.
  public static func merge(_ parts: [PartialEvaluation], names: [String]) throws -> PartialEvaluation {
    guard var merged = parts.first else { throw AccelError.usage("no partial results to merge") }
    var owners: [Int: String] = [:]
    for s in merged.header.shards { owners[s] = names[0] }
    var traceOwners: [Int: String] = [:]
    for t in merged.traces { traceOwners[t.index] = names[0] }
    for (part, name) in zip(parts, names) {
      try part.header.checkOwnership(
        part.traces.map { ($0.index, $0.files.first?.name ?? $0.path) }, file: name)
    }
    for (part, name) in zip(parts, names).dropFirst() {
      try merged.header.absorb(part.header, name: name, owners: &owners, first: names[0])
      let settingsText = { (p: PartialEvaluation) in p.settings.map(\.description).joined(separator: "; ") }
      let difference =
        merged.matching.difference(from: part.matching)
        ?? (merged.sweeping == part.sweeping && settingsText(merged) == settingsText(part)
          ? nil : "settings \(quotedField(settingsText(part))), not \(quotedField(settingsText(merged)))")
      if let difference {
        throw AccelError.data(
          DataLocation(file: name), "does not belong with \(names[0]): \(difference)",
          hint: "partial results merge only when the same accelkit ran the same command on the same dataset")
      }
      for t in part.traces {
        if let other = traceOwners[t.index] {
          throw AccelError.data(
            DataLocation(file: name), "trace \(t.path) (number \(t.index + 1)) is also in \(other)",
            hint: "give each shard's result once")
        }
        traceOwners[t.index] = name
      }
      merged.traces += part.traces
    }
    merged.traces.sort { $0.index < $1.index }
    return merged
  }

  /// The JSON text (signed: see `PartialJSON`).
  public func json() -> String {
    var body = "\"sweeping\": \(sweeping),\n\"settings\": [\n"
    body += settings.map { "  " + $0.partialJSON }.joined(separator: ",\n")
    body += "\n],\n\"traces\": [\n"
    body += traces.map(Self.traceJSON).joined(separator: ",\n")
    body += "\n]\n"
    return PartialJSON.document(PartialJSON.evaluationFormat, header: header, matching: matching, body: body)
  }

  static func traceJSON(_ t: PartialTrace) -> String {
    let e = t.evaluation
    var text = "{\"index\": \(t.index), \"path\": \(jsonString(t.path)), \"name\": \(jsonString(e.name)), "
    text += "\"start\": \(PartialJSON.number(e.start)), \"duration\": \(PartialJSON.number(e.duration)), "
    text += "\"rows\": \(e.rows), \"source\": \(e.group.source.map(jsonString) ?? "null"), "
    text +=
      "\"position\": \(e.group.position.map(jsonString) ?? "null"), "
    text +=
      "\"activity\": \(e.group.activity.map(jsonString) ?? "null"),\n \"files\": [\(t.files.map(PartialJSON.file).joined(separator: ", "))],\n"
    text += " \"annotations\": [\(t.annotations.map(PartialJSON.interval).joined(separator: ", "))],\n"
    text += " \"results\": [\n"
    text += e.metrics.indices.map { k -> String in
      let detections = e.detections[k].map { d in
        let match = d.match.flatMap { t.annotations.firstIndex(of: $0) }.map(String.init) ?? "null"
        return "[\(PartialJSON.interval(d.detection)),\(match)]"
      }
      return "  " + PartialJSON.metrics(e.metrics[k]) + ",[" + detections.joined(separator: ",") + "]]"
    }.joined(separator: ",\n")
    text += "\n ]}"
    return text
  }

  /// Reads a partial evaluation (`PartialJSON.open` has checked it).
  public init(_ root: JSONValue, file: String) throws {
    let r = PartialReader(file: file)
    header = try ShardHeader(root, r)
    matching = try MatchingSettings(root, r)
    sweeping = try r.bool(root["sweeping"], "sweeping")
    settings = try r.array(root["settings"], "settings").map { try r.setting($0) }
    let settingCount = settings.count
    let traceCount = header.traceCount
    traces = try r.array(root["traces"], "traces").map { item in
      let index = try r.int(item["index"], "index")
      guard (0..<traceCount).contains(index) else {
        throw r.fail("trace index \(index) is outside the dataset")
      }
      let files = try r.array(item["files"], "files").map { try r.file($0, "files") }
      let annotations = try r.array(item["annotations"], "annotations").map {
        try r.interval($0, "annotations")
      }
      var metrics: [Metrics] = []
      var detections: [[(detection: LabeledInterval, match: LabeledInterval?)]] = []
      let duration = try r.double(item["duration"], "duration")
      for result in try r.array(item["results"], "results", count: settingCount) {
        let items = try r.array(result, "a result", count: 15)
        metrics.append(try r.metrics(items, duration: duration))
        detections.append(
          try r.array(items[14], "detections").map { d in
            let pair = try r.array(d, "a detection", count: 2)
            var match: LabeledInterval? = nil
            if pair[1] != .null {
              let k = try r.int(pair[1], "a match")
              guard annotations.indices.contains(k) else { throw r.fail("a match names no annotation") }
              match = annotations[k]
            }
            return (try r.interval(pair[0], "a detection"), match)
          })
      }
      let evaluation = TraceEvaluation(
        name: try r.string(item["name"], "name"), start: try r.double(item["start"], "start"),
        duration: duration, rows: try r.int(item["rows"], "rows"),
        metrics: metrics, detections: detections,
        group: TraceGroup(
          source: item["source"]?.string, position: item["position"]?.string,
          activity: item["activity"]?.string))
      return PartialTrace(
        index: index, path: try r.string(item["path"], "path"), files: files, annotations: annotations,
        evaluation: evaluation)
    }
    let indices = traces.map(\.index)
    guard indices == indices.sorted(), Set(indices).count == indices.count else {
      throw r.fail("its traces are not in dataset order, or one is there twice")
    }
  }
}
