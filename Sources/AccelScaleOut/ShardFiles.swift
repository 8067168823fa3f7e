import AccelCore
import AccelEvaluation
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
  package mutating func absorb(_ other: ShardHeader, name: String, owners: inout [Int: String], first: String)
    throws
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

  package var json: String {
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

  package init(_ root: JSONValue, _ r: PartialReader) throws {
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
  package func checkOwnership(_ traces: [(index: Int, name: String)], file: String) throws {
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
  package static func document(
    _ format: String, header: ShardHeader, matching: MatchingSettings, body: String
  )
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

  package static func number(_ v: Double) -> String {
    v.isFinite ? formatNumber(v) : v.isNaN ? "\"NaN\"" : v > 0 ? "\"Infinity\"" : "\"-Infinity\""
  }

  package static func file(_ f: (name: String, sha256: String?)) -> String {
    "[\(jsonString(f.name)), \(f.sha256.map(jsonString) ?? "null")]"
  }

  package static func interval(_ i: LabeledInterval) -> String {
    "[\(number(i.start)), \(number(i.end)), \(jsonString(i.label)), \(i.reported.map(number) ?? "null"), \(i.cancelled)]"
  }

  /// One trace's metrics as the counts they are made of: tp, fp, fn, the nine standard counts,
  /// onset errors, delays (the duration and the per-trace F1 follow from the trace and the counts).
  package static func metrics(_ m: Metrics) -> String {
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
package struct PartialReader {
  package let file: String

  package init(file: String) { self.file = file }

  package func fail(_ text: String) -> AccelError {
    AccelError.data(DataLocation(file: file), "not a valid partial result: \(text)")
  }
  package func string(_ v: JSONValue?, _ what: String) throws -> String {
    guard let s = v?.string else { throw fail("\(what) is not a string") }
    return s
  }
  package func optionalString(_ v: JSONValue?, _ what: String) throws -> String? {
    if v == nil || v == .null { return nil }
    return try string(v, what)
  }
  package func double(_ v: JSONValue?, _ what: String) throws -> Double {
    switch v {
    case .number(let x): return x
    case .string("NaN"): return .nan
    case .string("Infinity"): return .infinity
    case .string("-Infinity"): return -.infinity
    default: throw fail("\(what) is not a number")
    }
  }
  package func int(_ v: JSONValue?, _ what: String) throws -> Int {
    guard let x = v?.number, x == x.rounded(), abs(x) < 1e15 else {
      throw fail("\(what) is not a whole number")
    }
    return Int(x)
  }
  package func bool(_ v: JSONValue?, _ what: String) throws -> Bool {
    guard let b = v?.bool else { throw fail("\(what) is not true or false") }
    return b
  }
  package func array(_ v: JSONValue?, _ what: String, count: Int? = nil) throws -> [JSONValue] {
    guard let a = v?.array, count.map({ $0 == a.count }) ?? true else {
      throw fail("\(what) is not an array\(count.map { " of \($0)" } ?? "")")
    }
    return a
  }
  package func file(_ v: JSONValue, _ what: String) throws -> (name: String, sha256: String?) {
    let a = try array(v, what, count: 2)
    return (try string(a[0], what), try optionalString(a[1], what))
  }
  package func interval(_ v: JSONValue, _ what: String) throws -> LabeledInterval {
    let a = try array(v, what, count: 5)
    return LabeledInterval(
      start: try double(a[0], what), end: try double(a[1], what), label: try string(a[2], what),
      reported: a[3] == .null ? nil : try double(a[3], what), cancelled: try bool(a[4], what))
  }
  /// One trace's metrics from `PartialJSON.metrics` (its first 14 items) and the trace's duration.
  package func metrics(_ items: [JSONValue], duration: Double) throws -> Metrics {
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
  package func setting(_ v: JSONValue) throws -> RuleSetting {
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
