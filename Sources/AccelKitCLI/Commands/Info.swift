#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelIO
import ArgumentParser
import Dispatch

struct Info: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Describe traces: rows, duration, sample rate, jitter, gaps, value ranges and warnings.",
    discussion: """
      The sample rate is estimated from the median interval; a gap is an interval over 1.5 times \
      the median. Samples at an axis' extremes are counted because a clipping sensor repeats its \
      rail value. The gyroscope and the magnetometer are described when the trace has them, and \
      a known recorder's CSV is recognised from its header. Several traces are read in parallel; \
      rows come out in the order given.

      Examples:
        accelkit info datasets/test/000.csv
        accelkit info --preset st-mlc --format csv datasets/real/st-mlc/*.csv
        accelkit info --format json datasets/samples/table-rest.csv
        accelkit info datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz
        accelkit info - < datasets/samples/portrait-shake.csv
      """
  )

  enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, csv, json
  }

  @OptionGroup(title: "Input")
  var input: InputOptions

  @Option(help: "The output format: table, csv or json (default: table on a terminal, csv otherwise).")
  var format: OutputFormat?

  @Argument(help: "The traces to describe (`-` or none for stdin).")
  var traces: [String] = []

  func run() throws {
    var described = try input.settings()
    // info describes a file as it is: times that go back are said (with where), not refused.
    if !described.skipBadRows { described.timeOrder = .report }
    let settings = described
    let paths = traces.isEmpty ? ["-"] : traces
    let results = parallelMap(paths) { path in Result { try TraceDescription.make(path: path, settings: settings) } }
    var reports: [TraceDescription] = []
    var firstError: AccelError? = nil
    for result in results {
      switch result {
      case .success(let report):
        Diagnostics.reportSkips(report.skippedRows, report.firstSkippedError, in: report.name)
        if let warning = report.timeOrderWarning { Diagnostics.warning("\(report.name): \(warning)") }
        reports.append(report)
      case .failure(let error):
        let accel = error as? AccelError ?? .failure("\(error)")
        Diagnostics.error(accel)
        if firstError == nil { firstError = accel }
      }
    }
    let chosen = format ?? (Diagnostics.stdoutIsTerminal ? .table : .csv)
    if !reports.isEmpty {
      switch chosen {
      case .table: try writeStdout(reports.map(\.table).joined(separator: "\n"))
      case .csv: try writeStdout(TraceDescription.csv(reports))
      case .json: try writeStdout(TraceDescription.json(reports))
      }
    }
    // Each error was reported above; exit with the first one's code.
    if let firstError { throw ExitCode(firstError.exitCode) }
  }
}

