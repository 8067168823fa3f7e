import AccelCore
import AccelEvaluation
import AccelExport
import AccelGestures
import AccelIO
import AccelTuning
import ArgumentParser

struct Export: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a detector as a single-header C99 library for firmware and apps.",
    discussion: """
      Writes DIR/accelkit_detector.h: the rule with its parameters baked in as constants (or a \
      learned model: its features computed as detect-shakes computes them, its trees as code), a \
      state struct, PREFIX_init, PREFIX_push(state, t, x, y, z, &event) (seconds, g, Apple's axes, \
      as detect-shakes reads a plain t,x,y,z CSV) returning 1 when an event ended, \
      PREFIX_push_gyro with the gyroscope (rad/s), PREFIX_next for further events the same call \
      ended, and PREFIX_finish. \
      No allocation, no global state, nothing from the C library beyond math.h; it compiles as C99 \
      and as C++. In double precision it gives the events detect-shakes gives; --precision float \
      is for processors without a double-precision unit (docs/EXPORT.md says what it costs).

      Examples/firmware/replay.c reads a CSV on stdin and prints detect-shakes' events CSV with \
      the exported detector: cc -std=c99 -O2 -I DIR Examples/firmware/replay.c -o replay -lm. \
      Rules whose constants depend on the sample rate (seismic's queue, orientation-change's \
      low-pass, a cutoff or window in seconds, gravity from the fused attitude with gyro=1) need \
      --rate. Swift code uses the header through a \
      C target (a module map), so there is no separate Swift export.

      Examples:
        accelkit export -o detector
        accelkit export --rule swing --convention specific-force -o detector
        accelkit export --rule learned-shake --param on=0.999 -o detector
        accelkit export --rule seismic --rate 100 --param sensitivity=1 -o detector
        accelkit export --rule angular-change --param window_s=0.1 --rate 50 \\
          --precision float --prefix shake -o detector
      """)

  @Option(
    help:
      "The rule to export: \(Detectors.exportable.joined(separator: ", ")) (see detect-shakes --list-params; default: \(Detectors.recommended), as detect-shakes).",
    completion: .list(Detectors.exportable))
  var rule: String?

  @Option(
    help: ArgumentHelp(
      "A learned model's directory (accelkit train's) instead of a rule; --param sets its decoding.",
      valueName: "dir"))
  var model: String?

  @Option(
    name: .customLong("param"),
    help: ArgumentHelp(
      "Set a rule parameter (repeatable); see detect-shakes --list-params.", valueName: "name=value"),
    completion: .list(Detectors.parameterCompletions))
  var params: [String] = []

  @Option(
    help: ArgumentHelp(
      "Read RULE.NAME=VALUE lines (as accelkit tune writes them); --param overrides.", valueName: "file"))
  var paramsFile: String?

  @Option(
    help: ArgumentHelp(
      "The recorder's sample rate, for rules whose constants depend on it (give detect-shakes the same --rate to compare exactly).",
      valueName: "hz"))
  var rate: Finite?

  @Option(
    help: ArgumentHelp(
      "The axes the firmware's readings come in: apple (face up reads z = -1 g; the default) or specific-force (Android's and most IMUs': +1 g), which push negates.",
      valueName: "apple|specific-force"))
  var convention: AxisConvention = .apple

  @Option(help: "The exported arithmetic: double (the events detect-shakes gives) or float.")
  var precision: ExportSettings.Precision = .double

  @Option(help: ArgumentHelp("The prefix of the header's symbols and macros.", valueName: "name"))
  var prefix: String = ExportSettings.defaultPrefix

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp("The directory to write accelkit_detector.h in.", valueName: "dir"))
  var output: String

  func validate() throws {
    if model != nil, rule != nil { throw ValidationError("give --rule or --model, not both") }
    do { try ExportSettings.check(prefix: prefix) } catch let error as AccelError {
      throw ValidationError(error.message)
    }
    if let rule, !Detectors.isDetector(rule) { throw ValidationError(Detectors.unknown(rule).message) }
  }

  func run() throws {
    let setting = try RuleSetting.chosen(
      rule: rule, model: model, params: params, paramsFile: paramsFile, fallback: Detectors.recommended)
    var settings = ExportSettings()
    settings.precision = precision
    settings.prefix = prefix
    settings.rate = rate?.value
    settings.convention = convention
    settings.command = Provenance.commandLine
    settings.version = AccelKit.version
    let exported = try DetectorExport.cHeader(setting, settings: settings)
    for warning in exported.warnings { Diagnostics.warning(warning) }
    try makeDirectories(output)
    let file = try OutputFile(path: output + "/" + DetectorExport.headerName)
    try file.write(exported.header)
    try file.commit()
    Diagnostics.note(
      "wrote \(output)/\(DetectorExport.headerName): \(setting.description), \(precision.rawValue)"
        + (rate.map { ", \(formatNumber($0.value)) Hz" } ?? "")
        + (convention == .specificForce ? ", specific force in" : "")
        + "; \(exported.footprint)")
  }
}

extension ExportSettings.Precision: ExpressibleByArgument {}
