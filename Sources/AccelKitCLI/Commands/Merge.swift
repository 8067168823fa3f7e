import AccelCore
import AccelEvaluation
import AccelIO
import AccelScaleOut
import AccelTuning
import ArgumentParser

extension ShardSpec.Key: ExpressibleByArgument {}

struct Merge: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Merge the partial results of evaluate --shard into the report of the whole dataset.",
    discussion: """
      Each shard of `accelkit evaluate DATASET --shard K/N -o DIR` writes DIR/partial.json: \
      every count of its traces. merge checks that the partials belong together (the same \
      accelkit, dataset content, options and settings; no shard twice; none missing) and writes \
      exactly the report one unsharded run writes: summary.csv, per-trace.csv, detections.csv, \
      sweep.csv, dataset.sha256 and the stdout summary are byte for byte the same; index.html \
      differs only in how it was made (and draws traces when the dataset is at hand). Gates, \
      --baseline, --junit, --json and --github work as in evaluate.

      With --partial, merge writes the merged partial result instead (shards may be missing): \
      partials can be merged in a tree, in any order and grouping, with the same result.

      PARTIAL is a partial.json, a folder holding one, a glob pattern (quoted: merge expands it), \
      or - for partials read from stdin one after another (as `evaluate --shard K/N -o -` writes \
      them).

      Examples:
        parallel accelkit evaluate datasets/test --rule learned-shake --shard {}/4 \\
          -o parts/{} ::: 1 2 3 4
        accelkit merge parts/* -o report
        accelkit merge --partial parts/1 parts/2 -o parts-1-2
        accelkit merge parts-1-2 'parts/[34]' --fail-under f1=0.9 --junit junit.xml
        parallel -k accelkit evaluate datasets/test --shard {}/4 -o - \\
          ::: 1 2 3 4 | accelkit merge - -o report-all
      """)

  @Argument(
    help: ArgumentHelp(
      "Partial results: files, folders with partial.json, quoted glob patterns, or - (stdin).",
      valueName: "partial"))
  var partials: [String]

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp(
      "Write the report (as evaluate -o does) into this folder; with --partial, DIR/partial.json (- for stdout).",
      valueName: "dir"))
  var output: String?

  @Flag(
    help: "Write the merged partial result instead of the report (shards may be missing): to merge in a tree."
  )
  var partial = false

  @Option(
    name: .customLong("dataset-path"),
    help: ArgumentHelp(
      "Where the dataset is now, to draw its traces in index.html (default: where evaluate read it).",
      valueName: "path"))
  var datasetPath: String?

  @OptionGroup(title: "Report") var report: ReportOptions

  @OptionGroup(title: "Input (to draw traces: as given to evaluate)") var input: InputOptions

  func validate() throws {
    if partials.isEmpty { throw ValidationError("give the partial results to merge") }
    if partials.filter({ $0 == "-" }).count > 1 { throw ValidationError("- (stdin) can be given once") }
    if partial, let option = report.givenForWholeReports.first {
      throw ValidationError("--partial writes a partial result; \(option) applies to the report")
    }
  }

  func run() throws {
    // Each partial is decoded as soon as it is parsed: one JSON tree at a time in memory.
    var evaluations: [PartialEvaluation] = []
    var tunings: [PartialTuning] = []
    var names: [String] = []
    var kind: (format: String, name: String)?
    for (name, bytes) in try PartialFiles.read(partials) {
      let (root, format) = try PartialJSON.open(bytes, file: name)
      if let kind, kind.format != format {
        throw AccelError.data(
          DataLocation(file: name),
          "a partial \(Self.kind(format)), and \(kind.name) a partial \(Self.kind(kind.format))")
      }
      kind = (format, name)
      if format == PartialJSON.tuningFormat {
        tunings.append(try PartialTuning(root, file: name))
      } else {
        evaluations.append(try PartialEvaluation(root, file: name))
      }
      names.append(name)
    }
    if !tunings.isEmpty {
      try mergeTuning(tunings, names: names)
      return
    }
    let merged = try PartialEvaluation.merge(evaluations, names: names)
    if try wrotePartial(merged.header, names: names, json: merged.json) { return }
    guard merged.isComplete else {
      let present = Set(merged.traces.map(\.index))
      let absent = (0..<merged.header.traceCount).filter { !present.contains($0) }.map { $0 + 1 }
      throw AccelError.data(
        DataLocation(file: "the partial results"),
        "every shard is here but traces \(Self.ranges(absent)) of \(merged.header.traceCount) are not",
        hint: "a partial result was changed after it was written; run its shard again")
    }
    let baseline = try report.prepare()
    let dataset = merged.header.datasets.joined(separator: " ")
    let run = RunDescription(
      version: AccelKit.fullVersion, command: ["accelkit"] + CommandLine.arguments.dropFirst(),
      dataset: dataset,
      tolerance: merged.matching.tolerance, label: merged.matching.label)
    try report.publish(
      merged.report(), baseline: baseline, run: run, criteria: merged.matching.criteria, output: output
    ) { result, context in
      try result.indexHTML(
        dataset: dataset, jobs: try drawableJobs(merged.header),
        annotations: merged.traces.map(\.annotations),
        label: merged.matching.label, tolerance: merged.matching.tolerance, context: context)
    }
  }

  /// Merges the shards of a tuning round into the next state (DIR/partial.json); when the search
  /// is finished, writes its outputs there too, as tune -o does.
  func mergeTuning(_ parts: [PartialTuning], names: [String]) throws {
    if let option = report.givenForWholeReports.first {
      throw AccelError.usage("\(option) applies to evaluations; these are partial tunings")
    }
    let merged = try PartialTuning.merge(parts, names: names)
    if try wrotePartial(merged.header, names: names, json: merged.json) { return }
    guard let output else {
      throw AccelError.usage(
        "give -o DIR: merging a tuning round writes its state (and, once finished, its outputs) there")
    }
    switch try merged.progress(file: names[0]) {
    case .next(let round, _):
      try writePartial(merged.json(), to: output)
      Diagnostics.note(
        "round \(round) of the search is done; run the next: accelkit tune ... --shard K/\(merged.header.shardCount) --resume \(output) -o PART, then merge the parts again"
      )
    case .finished(let result):
      let files = output == "-" ? [] : try result.outputs(command: Provenance.commandLine)
      if output == "-" {
        try writePartial(merged.json(), to: output)
      } else {
        try makeDirectories(output)
        try OutputFile.writeTogether(
          [(output + "/partial.json", merged.json())] + files.map { (output + "/" + $0.0, $0.1) })
      }
      try writeStdout(result.summary)
    }
  }

  static func kind(_ format: String) -> String {
    format == PartialJSON.tuningFormat ? "tuning" : "evaluation"
  }

  /// Checks the merged result's accelkit; with --partial writes it (true), else requires every
  /// shard (false: the caller goes on to the outputs).
  func wrotePartial(_ header: ShardHeader, names: [String], json: () -> String) throws -> Bool {
    guard header.version == AccelKit.fullVersion else {
      throw AccelError.data(
        DataLocation(file: names[0]),
        "written by accelkit \(header.version); this is accelkit \(AccelKit.fullVersion)",
        hint: "merge with the accelkit that ran the shards")
    }
    if partial {
      try writePartial(json(), to: output ?? "-")
      return true
    }
    let missing = header.missingShards
    guard missing.isEmpty else {
      throw AccelError.data(
        DataLocation(file: names.count == 1 ? names[0] : "the partial results"),
        missing.count == 1
          ? "shard \(missing[0]) of \(header.shardCount) is missing"
          : "shards \(Self.ranges(missing)) of \(header.shardCount) are missing",
        hint: "run them (--shard K/\(header.shardCount)), or merge what there is with --partial")
    }
    return false
  }

  /// The dataset's jobs as evaluate read them, when the dataset is at hand and reads the same
  /// way (else the report says its traces are not drawn).
  func drawableJobs(_ header: ShardHeader) throws -> [EvaluationJob]? {
    let path = datasetPath ?? header.datasets[0]
    guard
      let jobs = try? EvaluationJob.jobs(
        dataset: path, labels: header.labels, options: try input.options(),
        allowOutsidePaths: header.allowOutsidePaths)
    else {
      Diagnostics.note(
        "index.html draws no traces: the dataset \(path) cannot be read here (--dataset-path says where it is)"
      )
      return nil
    }
    guard ShardHeader.digest(jobs: jobs) == header.jobsDigest else {
      Diagnostics.warning(
        "index.html draws no traces: \(path) is not read here as the shards read it (give merge evaluate's input options)"
      )
      return nil
    }
    return jobs
  }

  /// `1-3, 5`.
  static func ranges(_ values: [Int]) -> String {
    var parts: [String] = []
    var i = 0
    while i < values.count {
      var j = i
      while j + 1 < values.count && values[j + 1] == values[j] + 1 { j += 1 }
      parts.append(j == i ? "\(values[i])" : "\(values[i])-\(values[j])")
      i = j + 1
    }
    return parts.joined(separator: ", ")
  }
}
