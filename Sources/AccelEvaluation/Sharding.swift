import AccelCore
import AccelGestures
import AccelIO

/// One shard of a scaled-out evaluation: shard `number` of `count` evaluates the traces it owns.
/// By `hash` (the default) a trace belongs to a shard by the SHA-256 of its name in the dataset,
/// so adding a trace moves no other; by `index` trace i belongs to shard i mod count + 1.
public struct ShardSpec: Sendable, Equatable {
  public enum Key: String, Sendable, CaseIterable { case hash, index }

  /// 1 to `count`.
  public var number: Int
  public var count: Int
  public var key: Key

  public init(number: Int, count: Int, key: Key = .hash) {
    self.number = number
    self.count = count
    self.key = key
  }

  /// Parses `K/N` (1 <= K <= N).
  public init(parsing text: String, key: Key = .hash) throws {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 1_000_000,
      (1...n).contains(k)
    else {
      throw AccelError.usage(
        "--shard takes K/N with 1 <= K <= N (shard K of N), got \(quotedField(text))",
        hint:
          "GNU parallel: --shard {}/8 ::: 1 2 3 4 5 6 7 8; Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"
      )
    }
    self.init(number: k, count: n, key: key)
  }

  /// The shard (1-based) that owns the trace named `name` (as the dataset names it), the
  /// `index`th of the dataset.
  public static func owner(name: String, index: Int, count: Int, key: Key) -> Int {
    switch key {
    case .index:
      return index % count + 1
    case .hash:
      var hasher = SHA256()
      hasher.update(Array(name.utf8))
      let value = hasher.hexDigest().prefix(16).reduce(UInt64(0)) { $0 << 4 | UInt64($1.hexDigitValue!) }
      return Int(value % UInt64(count)) + 1
    }
  }

  public func owns(name: String, index: Int) -> Bool {
    Self.owner(name: name, index: index, count: count, key: key) == number
  }

  public var description: String { "\(number)/\(count)" }

  /// The indices of the jobs this shard owns.
  public func owned(_ jobs: [EvaluationJob]) -> [Int] {
    jobs.indices.filter { owns(name: ShardHeader.traceName(jobs, $0), index: $0) }
  }
}

/// What every partial result says about its origin: the accelkit that wrote it, the dataset and
/// how it was read, the shards it covers. Partial results merge only when these agree.
public struct ShardHeader: Sendable {
  public var version: String
  /// The datasets as given (folders, manifests, or one trace).
  public var datasets: [String]
  /// The annotations of a single-trace dataset.
  public var labels: String?
  public var allowOutsidePaths: Bool
  public var key: ShardSpec.Key
  public var shardCount: Int
  /// The shards covered, ascending.
  public var shards: [Int]
  /// The traces of the whole dataset.
  public var traceCount: Int
  /// The manifests (named as `DatasetFingerprint` names files) with their digests.
  public var manifests: [(name: String, sha256: String?)]
  /// The digest of every trace's name, annotation file name and read settings.
  public var jobsDigest: String
  /// The digest of the annotation reading options.
  public var annotationDigest: String

  /// The header of shard `shard` of `jobs` (their manifests are hashed here).
  public init(
    shard: ShardSpec, datasets: [String], labels: String?, allowOutsidePaths: Bool, jobs: [EvaluationJob],
    annotationOptions: AnnotationReadOptions, version: String
  ) throws {
    self.version = version
    self.datasets = datasets
    self.labels = labels
    self.allowOutsidePaths = allowOutsidePaths
    key = shard.key
    shardCount = shard.count
    shards = [shard.number]
    traceCount = jobs.count
    let first = jobs.first?.location?.file
    var paths: [String] = []
    for job in jobs {
      if let m = job.location?.file, !paths.contains(m) { paths.append(m) }
    }
    manifests = try paths.map {
      (DatasetFingerprint.name(of: $0, manifest: first), try FileDigest.sha256(path: $0))
    }
    jobsDigest = Self.digest(jobs: jobs)
    var hasher = SHA256()
    hasher.update(Array(String(reflecting: annotationOptions).utf8))
    annotationDigest = hasher.hexDigest()
  }

  /// The digest `jobsDigest` holds. Names as the dataset gives them: the same dataset elsewhere
  /// has the same digest.
  public static func digest(jobs: [EvaluationJob]) -> String {
    var hasher = SHA256()
    let manifest = jobs.first?.location?.file
    for job in jobs {
      let trace = DatasetFingerprint.name(of: job.trace, manifest: manifest)
      let events = DatasetFingerprint.name(of: job.events, manifest: manifest)
      hasher.update(Array("\(trace)\u{0}\(events)\u{0}\(String(reflecting: job.readSettings))\n".utf8))
    }
    return hasher.hexDigest()
  }

  /// The name a trace is given to its shard by (as `DatasetFingerprint` names it).
  public static func traceName(_ jobs: [EvaluationJob], _ i: Int) -> String {
    DatasetFingerprint.name(of: jobs[i].trace, manifest: jobs.first?.location?.file)
  }

  public var isComplete: Bool { shards == Array(1...shardCount) }

  /// The shards not covered, ascending.
  public var missingShards: [Int] { (1...shardCount).filter { !shards.contains($0) } }

  /// What makes `other` a result of a different run, or nil.
  public func difference(from other: ShardHeader) -> String? {
    let manifestText = { (h: ShardHeader) in
      h.manifests.map { "\($0.name) \($0.sha256 ?? "-")" }.joined(separator: ", ")
    }
    let checks: [(String, String, String)] = [
      ("accelkit", version, other.version),
      ("dataset", datasets.joined(separator: " "), other.datasets.joined(separator: " ")),
      ("labels", labels ?? "", other.labels ?? ""),
      ("manifest", manifestText(self), manifestText(other)),
      ("shards by", key.rawValue, other.key.rawValue),
      ("shard count", String(shardCount), String(other.shardCount)),
      ("trace count", String(traceCount), String(other.traceCount)),
      ("read options", jobsDigest, other.jobsDigest),
      ("read options", annotationDigest, other.annotationDigest),
    ]
    guard let (what, a, b) = checks.first(where: { $0.1 != $0.2 }) else { return nil }
    if what == "read options" {
      return "its traces were read with other options (input, manifest or annotation options)"
    }
    return "\(what) \(quotedField(b)), not \(quotedField(a))"
  }

  /// Adds `other`'s shards (named `name`; `names` says whose each shard is so far).
  mutating func absorb(_ other: ShardHeader, name: String, owners: inout [Int: String], first: String) throws
  {
    if let difference = difference(from: other) {
      throw AccelError.data(
        DataLocation(file: name), "does not belong with \(first): \(difference)",
        hint: "partial results merge only when the same accelkit ran the same command on the same dataset")
    }
    for s in other.shards {
      if let owner = owners[s] {
        throw AccelError.data(
          DataLocation(file: name), "shard \(s)/\(shardCount) is also in \(owner)",
          hint: "give each shard's result once")
      }
      owners[s] = name
    }
    shards = (shards + other.shards).sorted()
  }

  var json: String {
    var text = "\"accelkit\": \(jsonString(version)),\n"
    text += "\"datasets\": [\(datasets.map(jsonString).joined(separator: ", "))],\n"
    text +=
      "\"labels\": \(labels.map(jsonString) ?? "null"),\n\"allow_outside_paths\": \(allowOutsidePaths),\n"
    text += "\"shard_by\": \(jsonString(key.rawValue)),\n\"shard_count\": \(shardCount),\n"
    text += "\"shards\": [\(shards.map(String.init).joined(separator: ", "))],\n"
    text += "\"trace_count\": \(traceCount),\n"
    text += "\"manifests\": [\(manifests.map(PartialJSON.file).joined(separator: ", "))],\n"
    text += "\"jobs_sha256\": \(jsonString(jobsDigest)),\n"
    text += "\"annotation_options_sha256\": \(jsonString(annotationDigest)),\n"
    return text
  }

  init(_ root: JSONValue, _ r: PartialReader) throws {
    version = try r.string(root["accelkit"], "accelkit")
    datasets = try r.array(root["datasets"], "datasets").map { try r.string($0, "datasets") }
    labels = try r.optionalString(root["labels"], "labels")
    allowOutsidePaths = try r.bool(root["allow_outside_paths"], "allow_outside_paths")
    guard let key = ShardSpec.Key(rawValue: try r.string(root["shard_by"], "shard_by")) else {
      throw r.fail("shard_by is neither hash nor index")
    }
    self.key = key
    shardCount = try r.int(root["shard_count"], "shard_count")
    shards = try r.array(root["shards"], "shards").map { try r.int($0, "shards") }
    traceCount = try r.int(root["trace_count"], "trace_count")
    let (count, covered) = (shardCount, shards)
    guard count >= 1, traceCount >= 0, !covered.isEmpty, covered == covered.sorted(),
      Set(covered).count == covered.count, covered.allSatisfy({ (1...count).contains($0) })
    else { throw r.fail("its shards do not fit its shard count") }
    manifests = try r.array(root["manifests"], "manifests").map { try r.file($0, "manifests") }
    jobsDigest = try r.string(root["jobs_sha256"], "jobs_sha256")
    annotationDigest = try r.string(root["annotation_options_sha256"], "annotation_options_sha256")
  }

  /// Checks that each of `traces` (index and name) belongs to this header's shards.
  func checkOwnership(_ traces: [(index: Int, name: String)], file: String) throws {
    for t in traces
    where !shards.contains(ShardSpec.owner(name: t.name, index: t.index, count: shardCount, key: key)) {
      throw AccelError.data(
        DataLocation(file: file),
        "trace \(t.name) does not belong to its shards (\(shards.map { "\($0)/\(shardCount)" }.joined(separator: ", ")))",
        hint: "the file was changed after it was written; run the shard again")
    }
  }
}

/// The file of a partial result: JSON whose first member, on the second line, is the SHA-256 of
/// the text after that line, so that an edited, truncated or half-written file is refused.
public enum PartialJSON {
  /// The kinds of partial result, by their "format".
  public static let evaluationFormat = "accelkit-partial-evaluation"
  public static let tuningFormat = "accelkit-partial-tuning"
  public static let version = 1

  /// The signed document of `format`: its header and matching settings, then `body` (the
  /// members that follow, one per line, the last without a comma).
  static func document(_ format: String, header: ShardHeader, matching: MatchingSettings, body: String)
    -> String
  {
    let text =
      "\"format\": \(jsonString(format)),\n\"format_version\": \(version),\n" + header.json + matching.json
      + body + "}\n"
    var hasher = SHA256()
    hasher.update(Array(text.utf8))
    return "{\n\"sha256\": \"\(hasher.hexDigest())\",\n" + text
  }

  /// Checks the digest and parses; returns the document and its format.
  public static func open(_ bytes: [UInt8], file: String) throws -> (JSONValue, String) {
    let prefix = Array("{\n\"sha256\": \"".utf8)
    let headerLength = prefix.count + 64 + 3
    guard bytes.count > headerLength, bytes.starts(with: prefix),
      bytes[(prefix.count + 64)..<headerLength].elementsEqual(Array("\",\n".utf8))
    else {
      throw AccelError.data(
        DataLocation(file: file, line: 1),
        bytes.isEmpty
          ? "empty: not a partial result (a shard that did not finish?)"
          : "not an accelkit partial result (it does not start with its sha256)",
        hint: "accelkit evaluate --shard K/N -o DIR writes DIR/partial.json")
    }
    let stated = String(decoding: bytes[prefix.count..<(prefix.count + 64)], as: UTF8.self)
    var hasher = SHA256()
    bytes.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[headerLength...])) }
    guard hasher.hexDigest() == stated else {
      throw AccelError.data(
        DataLocation(file: file),
        "its content does not match its sha256: the file was changed or cut short after it was written",
        hint: "run the shard again")
    }
    let root = try JSONValue.parse(bytes, file: file)
    let reader = PartialReader(file: file)
    let format = try reader.string(root["format"], "format")
    guard format == evaluationFormat || format == tuningFormat else {
      throw reader.fail("its format is \(quotedField(format))")
    }
    let v = try reader.int(root["format_version"], "format_version")
    guard v == version else {
      throw AccelError.data(
        DataLocation(file: file),
        "a partial result of format version \(v); this accelkit reads version \(version)",
        hint: "merge with the accelkit that wrote it")
    }
    return (root, format)
  }

  static func number(_ v: Double) -> String {
    v.isFinite ? formatNumber(v) : v.isNaN ? "\"NaN\"" : v > 0 ? "\"Infinity\"" : "\"-Infinity\""
  }

  static func file(_ f: (name: String, sha256: String?)) -> String {
    "[\(jsonString(f.name)), \(f.sha256.map(jsonString) ?? "null")]"
  }

  static func interval(_ i: LabeledInterval) -> String {
    "[\(number(i.start)), \(number(i.end)), \(jsonString(i.label)), \(i.reported.map(number) ?? "null"), \(i.cancelled)]"
  }

  /// One trace's metrics as the counts they are made of: tp, fp, fn, the nine standard counts,
  /// onset errors, delays (the duration and the per-trace F1 follow from the trace and the counts).
  static func metrics(_ m: Metrics) -> String {
    let s = m.standard
    let counts = [
      m.tp, m.fp, m.fn, s.onset.nref, s.onset.nsys, s.onset.ntp, s.onsetOffset.nref, s.onsetOffset.nsys,
      s.onsetOffset.ntp, s.segments.nref, s.segments.nsys, s.segments.ntp,
    ]
    return "[" + counts.map(String.init).joined(separator: ",") + ",["
      + m.onsetErrors.map(number).joined(separator: ",")
      + "],[" + m.delays.map(number).joined(separator: ",") + "]"
  }
}

/// Typed reading of a partial result's JSON, with errors that name the file.
struct PartialReader {
  let file: String

  func fail(_ text: String) -> AccelError {
    AccelError.data(DataLocation(file: file), "not a valid partial result: \(text)")
  }
  func string(_ v: JSONValue?, _ what: String) throws -> String {
    guard let s = v?.string else { throw fail("\(what) is not a string") }
    return s
  }
  func optionalString(_ v: JSONValue?, _ what: String) throws -> String? {
    if v == nil || v == .null { return nil }
    return try string(v, what)
  }
  func double(_ v: JSONValue?, _ what: String) throws -> Double {
    switch v {
    case .number(let x): return x
    case .string("NaN"): return .nan
    case .string("Infinity"): return .infinity
    case .string("-Infinity"): return -.infinity
    default: throw fail("\(what) is not a number")
    }
  }
  func int(_ v: JSONValue?, _ what: String) throws -> Int {
    guard let x = v?.number, x == x.rounded(), abs(x) < 1e15 else {
      throw fail("\(what) is not a whole number")
    }
    return Int(x)
  }
  func bool(_ v: JSONValue?, _ what: String) throws -> Bool {
    guard let b = v?.bool else { throw fail("\(what) is not true or false") }
    return b
  }
  func array(_ v: JSONValue?, _ what: String, count: Int? = nil) throws -> [JSONValue] {
    guard let a = v?.array, count.map({ $0 == a.count }) ?? true else {
      throw fail("\(what) is not an array\(count.map { " of \($0)" } ?? "")")
    }
    return a
  }
  func file(_ v: JSONValue, _ what: String) throws -> (name: String, sha256: String?) {
    let a = try array(v, what, count: 2)
    return (try string(a[0], what), try optionalString(a[1], what))
  }
  func interval(_ v: JSONValue, _ what: String) throws -> LabeledInterval {
    let a = try array(v, what, count: 5)
    return LabeledInterval(
      start: try double(a[0], what), end: try double(a[1], what), label: try string(a[2], what),
      reported: a[3] == .null ? nil : try double(a[3], what), cancelled: try bool(a[4], what))
  }
  /// One trace's metrics from `PartialJSON.metrics` (its first 14 items) and the trace's duration.
  func metrics(_ items: [JSONValue], duration: Double) throws -> Metrics {
    guard items.count >= 14 else { throw fail("a result has \(items.count) items, not at least 14") }
    let c = try items[0..<12].map { try int($0, "counts") }
    var m = Metrics()
    (m.tp, m.fp, m.fn) = (c[0], c[1], c[2])
    m.standard.onset = DetectionCounts(nref: c[3], nsys: c[4], ntp: c[5])
    m.standard.onsetOffset = DetectionCounts(nref: c[6], nsys: c[7], ntp: c[8])
    m.standard.segments = DetectionCounts(nref: c[9], nsys: c[10], ntp: c[11])
    m.onsetErrors = try array(items[12], "onset errors").map { try double($0, "onset errors") }
    m.delays = try array(items[13], "delays").map { try double($0, "delays") }
    m.duration = duration
    m.countTraceF1()
    return m
  }

  /// A rule setting by rule name and assignments.
  func setting(_ v: JSONValue) throws -> RuleSetting {
    let pair = try array(v, "a setting", count: 2)
    let assignments = try array(pair[1], "a setting's parameters").map { a -> (String, Double) in
      let p = try array(a, "a parameter", count: 2)
      return (try string(p[0], "a parameter's name"), try double(p[1], "a parameter's value"))
    }
    do {
      return try RuleSetting(rule: try string(pair[0], "a setting's rule"), assignments: assignments)
    } catch let error as AccelError {
      throw fail("a setting this accelkit refuses: \(error.message)")
    }
  }
}

extension RuleSetting {
  var partialJSON: String {
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

  var json: String {
    var text =
      "\"label\": \(label.map(jsonString) ?? "null"),\n\"tolerance\": \(PartialJSON.number(tolerance)),\n"
    text += "\"include_cancelled\": \(includeCancelled),\n"
    text += "\"collar\": \(PartialJSON.number(criteria.collar)),\n"
    text += "\"offset_fraction\": \(PartialJSON.number(criteria.offsetFraction)),\n"
    text += "\"segment\": \(PartialJSON.number(criteria.segment)),\n"
    return text
  }

  init(_ root: JSONValue, _ r: PartialReader) throws {
    label = try r.optionalString(root["label"], "label")
    tolerance = try r.double(root["tolerance"], "tolerance")
    includeCancelled = try r.bool(root["include_cancelled"], "include_cancelled")
    criteria = StandardCriteria(
      collar: try r.double(root["collar"], "collar"),
      offsetFraction: try r.double(root["offset_fraction"], "offset_fraction"),
      segment: try r.double(root["segment"], "segment"))
  }

  /// What differs from `other`, or nil.
  func difference(from other: MatchingSettings) -> String? {
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

// MARK: - Evaluation

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
    text += "\"position\": \(e.group.position.map(jsonString) ?? "null"),\n \"files\": [\(t.files.map(PartialJSON.file).joined(separator: ", "))],\n"
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
      var evaluation = TraceEvaluation(
        name: try r.string(item["name"], "name"), start: try r.double(item["start"], "start"),
        duration: duration, rows: try r.int(item["rows"], "rows"),
        metrics: metrics, detections: detections)
      evaluation.group = TraceGroup(source: item["source"]?.string, position: item["position"]?.string)
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
