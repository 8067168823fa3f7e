import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelTuning
import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct DetectShakes: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "detect-shakes",
    abstract: "Label shakes (or orientation changes) in traces with accelkit's detectors.",
    discussion: """
      Without --rule, the recommended shake detector runs: learned-shake, accelkit's built-in \
      learned model (models/shake; how it was trained and what it scores, per source and \
      position, on recordings it never saw: docs/LEARNING.md). The rules: three-peak (iPhone in \
      Action), angular-change (UIKit's motion events), seismic (square/seismic), swing \
      (accelkit's own) and orientation-change; --model DIR runs a model accelkit train wrote. \
      Writes events CSV start,end,label,rule,reported,peak_g,count,axis,status (seconds; \
      reported is when a live detector would have announced the event; columns a rule cannot \
      fill are empty). With several traces a trace column comes first; traces are processed in \
      parallel and written in the order given. Every rule streams in constant memory.

      Examples:
        accelkit detect-shakes datasets/test/000.csv
        accelkit detect-shakes --rule three-peak datasets/test/000.csv
        accelkit detect-shakes --rule seismic --param sensitivity=1 \\
          datasets/real/st-mlc/*.csv -o events.csv
        accelkit detect-shakes --rule angular-change --param begin=8 --param end=3 \\
          datasets/test/000.csv
        accelkit detect-shakes --list-params
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The traces (`-` or none for stdin).")
  var traces: [String] = []

  @Option(name: .shortAndLong, help: ArgumentHelp("The events CSV (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(
    help: "The rule (see --list-params; default: learned-shake, or the one --params-file sets).",
    completion: .list(Detectors.names))
  var rule: String?

  @Option(
    help: ArgumentHelp(
      "A learned model's directory (accelkit train's) instead of a rule; --param sets its decoding (on, off, min_duration_s, max_duration_s, merge_gap_s, hold, hold_s, sustained_on, sustained_off, extend).",
      valueName: "dir"))
  var model: String?

  @Option(
    name: .customLong("param"),
    help: ArgumentHelp("Set a rule parameter (repeatable); see --list-params.", valueName: "name=value"),
    completion: .list(Detectors.parameterCompletions))
  var params: [String] = []

  @Option(
    help: ArgumentHelp(
      "Read RULE.NAME=VALUE lines (as accelkit tune writes them); --param overrides.", valueName: "file"))
  var paramsFile: String?

  @Flag(help: "Print each rule's parameters with unit, default and meaning.")
  var listParams = false

  @Flag(help: "No progress line on stderr (shown only on a terminal, for several traces).")
  var quiet = false

  @OptionGroup var resampling: ResampleOptions

  func validate() throws {
    if model != nil, rule != nil {
      throw ValidationError("give --rule or --model, not both")
    }
    if !listParams, model == nil, let rule, !Detectors.isDetector(rule) {
      throw ValidationError(Detectors.unknown(rule).message)
    }
  }

  func run() throws {
    if listParams {
      try writeStdout(RuleSetting.parameterList)
      return
    }
    // Bad parameters before reading; a parameter file's items come first, --param overrides.
    let setting = try RuleSetting.chosen(
      rule: rule, model: model, params: params, paramsFile: paramsFile, fallback: Detectors.recommended)
    let settings = try input.settings()
    let paths = traces.isEmpty ? ["-"] : traces
    if traces.isEmpty && isatty(0) != 0 {
      Diagnostics.note("reading a trace from stdin (t,x,y,z rows; end with Ctrl-D), or give a file")
    }
    let resample = resampling.rate
    let progress = ProgressLine(total: paths.count > 1 ? paths.count : 0, noun: "traces", quiet: quiet)
    let results = parallelMap(paths) { path in
      var rows = 0
      defer { progress.advance(rows: rows) }
      return Result { () throws -> (EventsFile.Detections, ByteInput) in
        let stream = try Diagnostics.openStream(path: path, settings: settings, resample: resample)
        let events = try setting.detect(rate: stream.rate) {
          let block = try stream.next()
          rows += block?.count ?? 0
          return block
        }
        Diagnostics.reportSkips(stream.source)
        return (EventsFile.Detections(trace: stream.name, rule: setting.rule, events: events), stream.input)
      }
    }
    progress.finish()
    var inputs: [ByteInput] = []
    var detections: [EventsFile.Detections] = []
    var firstError: AccelError? = nil
    for result in results {
      switch result {
      case .success(let (found, input)):
        detections.append(found)
        inputs.append(input)
      case .failure(let error):
        let accel = error as? AccelError ?? .failure("\(error)")
        Diagnostics.error(accel)
        if firstError == nil { firstError = accel }
      }
    }
    // A failing trace leaves the output untouched: nothing is written unless every trace was read.
    if let firstError { throw ExitCode(firstError.exitCode) }
    let file = try OutputFile(path: output, inputs: inputs)
    try file.write(EventsFile.render(detections, withTrace: paths.count > 1))
    try file.commit()
  }
}
