import AccelCore
import AccelEvaluation
import AccelIO
import ArgumentParser

struct Labels: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "labels",
    abstract: "Read and convert annotation files (CSV, Audacity, ELAN, Label Studio).",
    subcommands: [LabelsConvert.self])
}

struct LabelsConvert: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract:
      "Convert annotations between CSV, Audacity label tracks, ELAN tab-delimited text and Label Studio JSON.",
    discussion: """
      The input format is recognised from the content (or given with --labels-format): JSON is a \
      Label Studio export (full JSON or JSON-MIN, time-series labels with times in seconds; the \
      first annotation of the task that is not cancelled, else its first prediction), \
      tab-separated start, end, label numbers an Audacity label track, other tab-separated lines \
      with times an ELAN export (tier and participant optional; begin, end and duration in \
      hh:mm:ss.ms, ss.msec or msec; the annotation value is the label, the tier name when it is \
      empty), anything else CSV (start,end,label in seconds, or the columns of --label-columns). \
      The output is events CSV (start,end,label), an Audacity label track, ELAN tab-delimited \
      text (tier = label; times in ss.msec, milliseconds as ELAN keeps them) or a Label Studio \
      JSON export with one task. Events keep the input's order (Label Studio's are sorted by time).

      Examples:
        accelkit labels convert datasets/test/000.events.csv --to audacity -o 000.txt
        accelkit labels convert 000.txt -o 000.events.csv
        accelkit labels convert datasets/test/000.events.csv --to label-studio \\
          --trace datasets/test/000.csv -o 000.json
        accelkit labels convert 000.json -o from-label-studio.csv
        accelkit labels convert datasets/test/001.events.csv \\
          --label-columns start=start,end=end,label=label,unit=s -o 001.csv
      """)

  @Argument(help: "The annotation file (`FILE#ID` picks a Label Studio task).")
  var input: String

  @Option(name: .shortAndLong, help: ArgumentHelp("The output path (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(
    help:
      "The output format: csv, audacity, elan or label-studio (default: from the output extension, else csv)."
  )
  var to: AnnotationFormat?

  @OptionGroup(title: "Input") var annotations: AnnotationOptions

  @Option(
    help: ArgumentHelp(
      "The trace the annotations are for: picks the task of a Label Studio export by file name; written into a Label Studio output.",
      valueName: "path"))
  var trace: String?

  func validate() throws {
    if to == .auto { throw ValidationError("--to takes csv, audacity, elan or label-studio") }
  }

  func run() throws {
    let events = try EventsFile.read(path: input, options: try annotations.readOptions(), trace: trace)
    let format = to ?? Self.format(ofPath: output)
    let path = EventsFile.fileAndTask(input).path
    let file = try OutputFile(path: output, inputs: path == "-" ? [] : [try ByteInput(path: path)])
    try file.write(EventsFile.render(events, as: format, trace: trace ?? ""))
    try file.commit()
  }

  /// The format an output name implies: .json Label Studio, .txt Audacity, .eaf.txt / .elan.txt /
  /// .tsv ELAN, otherwise CSV.
  static func format(ofPath path: String) -> AnnotationFormat {
    let lower = path.lowercased()
    if lower.hasSuffix(".json") { return .labelStudio }
    if lower.hasSuffix(".elan.txt") || lower.hasSuffix(".eaf.txt") || lower.hasSuffix(".tsv") { return .elan }
    if lower.hasSuffix(".txt") { return .audacity }
    return .csv
  }
}
