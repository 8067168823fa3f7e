#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelGestures
import AccelIO
import ArgumentParser

struct DetectShakes: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "detect-shakes",
    abstract: "Label shakes in traces with the three-peak, angular-change or seismic rule.",
    discussion: """
      Writes events CSV start,end,label,rule,reported,peak_g,count,axis,status (seconds; \
      reported is when a live detector would have announced the event; columns a rule cannot \
      fill are empty). With several traces a trace column comes first; traces are processed in \
      parallel and written in the order given. Every rule streams in constant memory.

      Examples:
        accelkit detect-shakes --rule three-peak walk.csv
        accelkit detect-shakes --rule seismic --param sensitivity=1 --preset st-mlc logs/*.csv -o events.csv
        accelkit detect-shakes --rule angular-change --param begin=8 --param end=3 walk.csv
        accelkit detect-shakes --list-params
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The traces (`-` or none for stdin).")
  var traces: [String] = []

  @Option(name: .shortAndLong, help: ArgumentHelp("The events CSV (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(help: "The rule: three-peak, angular-change or seismic.")
  var rule: String?

  @Option(name: .customLong("param"), help: ArgumentHelp("Set a rule parameter (repeatable); see --list-params.", valueName: "name=value"))
  var params: [String] = []

  @Flag(help: "Print each rule's parameters with unit, default and meaning.")
  var listParams = false

  @OptionGroup var resampling: ResampleOptions

  func validate() throws {
    if !listParams {
      guard let rule else { throw ValidationError("choose a rule with --rule (three-peak, angular-change or seismic)") }
      guard ShakeRules.named(rule) != nil else {
        throw ValidationError("unknown rule \"\(rule)\"; the rules are \(ShakeRules.all.map { $0.name }.joined(separator: ", "))")
      }
    }
  }

  static func parameterList() -> String {
    var text = ""
    for r in ShakeRules.all {
      text += "\(r.name): \(r.summary)\n"
      let width = r.parameters.map(\.name.count).max() ?? 0
      for p in r.parameters {
        text += "  \(p.name.padded(to: width))  \(formatNumber(p.defaultValue)) \(p.unit)  \(p.meaning)\n"
      }
    }
    return text
  }

  /// Parses NAME=VALUE (or RULE.NAME=VALUE for this rule).
  static func parseParams(_ params: [String], rule: String) throws -> [String: Double] {
    var values: [String: Double] = [:]
    for item in params {
      guard let eq = item.firstIndex(of: "=") else {
        throw AccelError.usage("--param expects NAME=VALUE, got \"\(item)\"")
      }
      var name = item[..<eq].trimmingBlanks()
      if name.hasPrefix(rule + ".") { name.removeFirst(rule.count + 1) }
      let text = item[item.index(after: eq)...].trimmingBlanks()
      guard let value = Double(text), value.isFinite else {
        throw AccelError.usage("--param \(name): expected a number, got \"\(text)\"")
      }
      values[name] = value
    }
    return values
  }

  func run() throws {
    if listParams {
      try writeStdout(Self.parameterList())
      return
    }
    let ruleType = ShakeRules.named(rule!)!
    let values = try Self.parseParams(params, rule: rule!)
    _ = try ShakeRules.resolve(values, for: ruleType)  // report bad parameters before reading
    let settings = try input.settings()
    let paths = traces.isEmpty ? ["-"] : traces
    let resample = resampling.resample
    let ruleName = ruleType.name
    let results = parallelMap(paths) { path in
      Result { try Self.detect(path: path, settings: settings, resample: resample, rule: ShakeRules.named(ruleName)!, values: values) }
    }
    var inputs: [ByteInput] = []
    var rows: [(String, [ShakeEvent])] = []
    var firstError: AccelError? = nil
    for result in results {
      switch result {
      case .success(let (name, events, input)):
        rows.append((name, events))
        inputs.append(input)
      case .failure(let error):
        let accel = error as? AccelError ?? .failure("\(error)")
        Diagnostics.error(accel)
        if firstError == nil { firstError = accel }
      }
    }
    let file = try OutputFile(path: output, inputs: inputs)
    let multiple = paths.count > 1
    var text = (multiple ? "trace," : "") + "start,end,label,rule,reported,peak_g,count,axis,status\n"
    for (name, events) in rows {
      for e in events {
        var fields = [formatNumber(e.start), formatNumber(e.end), "shake", ruleType.name, formatNumber(e.reported),
          e.peakG.map(formatNumber) ?? "", e.count.map(String.init) ?? "", e.axis ?? "", e.status.rawValue]
        if multiple { fields.insert(csvField(name), at: 0) }
        text += fields.joined(separator: ",") + "\n"
      }
    }
    try file.write(text)
    try file.commit()
    if let firstError { throw ExitCode(firstError.exitCode) }
  }

  static func detect(
    path: String, settings: TraceReadSettings, resample: Double?, rule: any ShakeRule.Type, values: [String: Double]
  ) throws -> (String, [ShakeEvent], ByteInput) {
    let stream = try TraceStream(path: path, settings: settings, resample: resample)
    var detector = try rule.init(rate: stream.rate, parameters: values)
    var events: [ShakeEvent] = []
    while let block = try stream.next() { events += detector.process(block) }
    events += detector.finish()
    Diagnostics.reportSkips(stream.source)
    return (stream.name, events, stream.input)
  }
}
