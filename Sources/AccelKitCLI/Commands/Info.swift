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
      rail value. Several traces are read in parallel; rows come out in the order given.

      Examples:
        accelkit info walk.csv
        accelkit info --preset st-mlc --format csv asset_tracking/*.csv
        accelkit info --format json trace.npy
        cat trace.csv | accelkit info -
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
    let settings = try input.settings()
    let paths = traces.isEmpty ? ["-"] : traces
    let results = parallelMap(paths) { path in Result { try InfoReport.make(path: path, settings: settings) } }
    var reports: [InfoReport] = []
    var firstError: AccelError? = nil
    for result in results {
      switch result {
      case .success(let report): reports.append(report)
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
      case .csv: try writeStdout(InfoReport.csv(reports))
      case .json: try writeStdout(InfoReport.json(reports))
      }
    }
    // Each error was reported above; exit with the first one's code.
    if let firstError { throw ExitCode(firstError.exitCode) }
  }
}

/// What `info` reports about one trace.
struct InfoReport {
  var name: String
  var summary: TraceSummary
  var metadata: TraceMetadata
  var warnings: [String]

  static func make(path: String, settings: TraceReadSettings) throws -> InfoReport {
    let (source, _) = try TraceOpener.open(path: path, settings: settings)
    var summary = TraceSummary()
    while let block = try source.next() { summary.add(block) }
    Diagnostics.reportSkips(source)
    return InfoReport(
      name: source.metadata.name, summary: summary, metadata: source.metadata,
      warnings: warnings(summary, source.metadata))
  }

  static func warnings(_ s: TraceSummary, _ metadata: TraceMetadata) -> [String] {
    var w: [String] = []
    let meanNorm = s.magnitude.mean
    if s.magnitude.count > 0 {
      if meanNorm > 8 && meanNorm < 12 {
        w.append("mean |a| is \(short(meanNorm)): units look like m/s^2, not g (pass --units m/s2)")
      } else if meanNorm > 500 && meanNorm < 2000 {
        w.append("mean |a| is \(short(meanNorm)): units look like mg, not g (pass --units mg)")
      } else if meanNorm < 0.5 || meanNorm > 2 {
        w.append(
          "mean |a| is \(short(meanNorm)) g, far from 1 g: check --units, or whether gravity was already removed")
      }
    }
    if s.nonIncreasing > 0 {
      w.append(
        "\(s.nonIncreasing) timestamp\(s.nonIncreasing == 1 ? " does" : "s do") not increase "
          + "(the first at sample \(s.firstNonIncreasingSample!)): check --time-unit and the time column")
    }
    if let jitter = s.relativeJitter, jitter > 0.05 {
      w.append(
        "sample intervals jitter by \(short(jitter * 100))% of the median: filters assume a uniform rate; "
          + "use --resample HZ")
    }
    if s.gapCount > 0, let longest = s.largestGaps.first {
      w.append(
        "\(s.gapCount) gap\(s.gapCount == 1 ? "" : "s") (intervals over 1.5x the median), the longest "
          + "\(short(longest.interval)) s at t = \(short(longest.start)) s: consider --resample HZ")
    }
    for (axis, stats) in [("x", s.x), ("y", s.y), ("z", s.z)] {
      for (value, count) in [(stats.max, stats.countAtMax), (stats.min, stats.countAtMin)]
      where count >= 3 && abs(value) >= 1.5 {
        w.append(
          "\(axis) reaches \(short(value)) g in \(count) samples: the sensor is probably clipping at its rail")
      }
    }
    if s.rows < 2 { w.append("the trace has fewer than 2 samples") }
    return w
  }

  static func short(_ v: Double) -> String {
    guard v.isFinite else { return "\(v)" }
    return cFormat("%.4g", v)
  }

  // MARK: - Fields

  /// Name and value of each field, in output order. Values are exact (shortest round-trip) text.
  var fields: [(String, String)] {
    let s = summary
    func n(_ v: Double?) -> String { v.map { $0.isFinite ? formatNumber($0) : "" } ?? "" }
    func rounded(_ v: Double?) -> String {
      v.map { cFormat("%.9g", $0) }.flatMap { Double($0) }.map(formatNumber) ?? ""
    }
    var f: [(String, String)] = [
      ("file", name),
      ("rows", "\(s.rows)"),
      ("start_s", n(s.firstTime)),
      ("duration_s", n(s.duration)),
      ("rate_hz", rounded(s.estimatedRate)),
      ("nominal_rate_hz", n(metadata.nominalRate)),
      ("median_interval_s", rounded(s.medianInterval)),
      ("interval_std_s", rounded(s.intervalStd)),
      ("jitter_pct", rounded(s.relativeJitter.map { $0 * 100 })),
      ("gaps", "\(s.gapCount)"),
      ("longest_gap_s", n(s.largestGaps.first?.interval)),
      ("longest_gap_at_s", n(s.largestGaps.first?.start)),
      ("non_increasing", "\(s.nonIncreasing)"),
    ]
    for (axis, a) in [("x", s.x), ("y", s.y), ("z", s.z)] {
      f += [
        ("\(axis)_min", n(a.count > 0 ? a.min : nil)), ("\(axis)_max", n(a.count > 0 ? a.max : nil)),
        ("\(axis)_mean", rounded(a.count > 0 ? a.mean : nil)), ("\(axis)_std", rounded(a.count > 0 ? a.std : nil)),
        ("\(axis)_at_min", "\(a.countAtMin)"), ("\(axis)_at_max", "\(a.countAtMax)"),
      ]
    }
    f += [
      ("mean_norm", rounded(s.magnitude.count > 0 ? s.magnitude.mean : nil)),
      ("nonfinite_rows", "\(s.nonFinite)"),
      ("units_in", metadata.sourceUnits.rawValue),
      ("convention_in", metadata.sourceConvention.rawValue),
      ("warnings", warnings.joined(separator: "; ")),
    ]
    return f
  }

  static func csv(_ reports: [InfoReport]) -> String {
    guard let first = reports.first else { return "" }
    var text = first.fields.map(\.0).joined(separator: ",") + "\n"
    for report in reports {
      text += report.fields.map { csvField($0.1) }.joined(separator: ",") + "\n"
    }
    return text
  }

  static func json(_ reports: [InfoReport]) -> String {
    let numeric: Set<String> = ["file", "units_in", "convention_in", "warnings"]
    let objects = reports.map { report -> String in
      let members = report.fields.map { key, value -> String in
        let rendered: String
        if key == "warnings" {
          rendered = "[" + report.warnings.map(jsonString).joined(separator: ", ") + "]"
        } else if numeric.contains(key) {
          rendered = jsonString(value)
        } else {
          rendered = value.isEmpty ? "null" : value
        }
        return "    \(jsonString(key)): \(rendered)"
      }
      return "  {\n" + members.joined(separator: ",\n") + "\n  }"
    }
    return "[\n" + objects.joined(separator: ",\n") + "\n]\n"
  }

  var table: String {
    let s = summary
    var lines: [String] = [name]
    func row(_ label: String, _ value: String) { lines.append("  " + label.padded(to: 12) + value) }
    func axisLine(_ a: TraceSummary.AxisStats) -> String {
      guard a.count > 0 else { return "no finite values" }
      return "min \(Self.short(a.min))  max \(Self.short(a.max))  mean \(Self.short(a.mean))  "
        + "std \(Self.short(a.std))  (at min/max: \(a.countAtMin)/\(a.countAtMax))"
    }
    row("rows", "\(s.rows)")
    row("duration", "\(Self.short(s.duration)) s (from t = \(Self.short(s.firstTime ?? 0)) s)")
    if let rate = s.estimatedRate, let median = s.medianInterval {
      var text = "\(Self.short(rate)) Hz (median interval \(Self.short(median)) s"
      if let jitter = s.relativeJitter { text += ", jitter " + cFormat("%.3f", jitter * 100) + "%" }
      row("rate", text + ")")
    } else {
      row("rate", "unknown (fewer than 2 increasing timestamps)")
    }
    if let longest = s.largestGaps.first {
      row("gaps", "\(s.gapCount) (longest \(Self.short(longest.interval)) s at t = \(Self.short(longest.start)) s)")
    } else {
      row("gaps", "none")
    }
    row("timestamps", s.nonIncreasing == 0 ? "increasing" : "\(s.nonIncreasing) do not increase")
    row("x (g)", axisLine(s.x))
    row("y (g)", axisLine(s.y))
    row("z (g)", axisLine(s.z))
    row("mean |a|", s.magnitude.count > 0 ? "\(Self.short(s.magnitude.mean)) g" : "n/a")
    row("input", "\(metadata.sourceUnits.rawValue), \(metadata.sourceConvention.rawValue) convention")
    if s.nonFinite > 0 { row("non-finite", "\(s.nonFinite) rows") }
    for warning in warnings { row("warning", warning) }
    return lines.joined(separator: "\n") + "\n"
  }
}

func csvField(_ text: String) -> String {
  if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
    return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
  }
  return text
}

func jsonString(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    case "\r": out += "\\r"
    case "\t": out += "\\t"
    default:
      if scalar.value < 0x20 {
        out += cFormat("\\u%04x", scalar.value)
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
  }
  return out + "\""
}
