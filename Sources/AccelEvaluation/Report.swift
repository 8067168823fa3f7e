import AccelCore
import AccelGestures
import AccelIO

/// The reports of an evaluation: summary (one row per setting), per trace, every detection, and
/// the sweep curve.
public struct EvaluationReport {
  public let settings: [RuleSetting]
  public let traces: [TraceEvaluation]
  public let sweeping: Bool
  /// Metrics summed over traces, per setting.
  public let summary: [Metrics]
  /// The dataset's content, when known: its hash is a column of summary.csv and its listing is
  /// dataset.sha256.
  public var fingerprint: DatasetFingerprint?
  /// Significant digits of the numbers in tables people read (the table, the step summary, the
  /// HTML); CSV and JSON keep full precision.
  public var precision = 4

  public init(settings: [RuleSetting], traces: [TraceEvaluation], sweeping: Bool) {
    self.settings = settings
    self.traces = traces
    self.sweeping = sweeping
    summary = settings.indices.map { i in traces.reduce(Metrics()) { $0 + $1.metrics[i] } }
  }

  static let metricColumns =
    [
      "tp", "fp", "fn", "precision", "recall", "f1", "mean_onset_error_s", "median_onset_error_s",
      "median_delay_s",
      "false_alarms_per_hour", "duration_s",
    ] + standardColumns

  /// The sed_eval figures: event-based (onset; onset and offset) and segment-based precision,
  /// recall, F1 and error rate over all traces (micro), and F1 averaged over traces (macro).
  public static let standardColumns =
    ["event_onset", "event_onset_offset", "segment"].flatMap { kind in
      ["precision", "recall", "f1", "error_rate"].map { "\(kind)_\($0)" }
    } + ["event_onset_f1_macro", "event_onset_offset_f1_macro", "segment_f1_macro"]

  /// A metric by its column name (the accessor of its column).
  public static func value(_ name: String, _ m: Metrics) -> Double? {
    switch name {
    case "tp": Double(m.tp)
    case "fp": Double(m.fp)
    case "fn": Double(m.fn)
    default: accessorsByName[name].flatMap { $0(m) }
    }
  }

  static let accessorsByName = Dictionary(uniqueKeysWithValues: zip(metricColumns.dropFirst(3), accessors))

  /// The metric columns as text: counts as integers, the rest rounded to 12 significant digits
  /// (sums over traces then read the same whatever their order), or exact with `exactDuration`
  /// (one trace's duration, from which its segments are counted).
  static func fields(_ m: Metrics, exactDuration: Bool = false) -> [String] {
    var out = [String(m.tp), String(m.fp), String(m.fn)]
    out.reserveCapacity(metricColumns.count)
    for (k, accessor) in accessors.enumerated() {
      guard let v = accessor(m) else {
        out.append("")
        continue
      }
      out.append(formatNumber(exactDuration && k == durationColumn ? v : rounded(v)))
    }
    return out
  }

  /// The metric columns after tp, fp, fn, as functions, in column order (a report of many
  /// settings over many traces calls them millions of times).
  static let accessors: [@Sendable (Metrics) -> Double?] = {
    var list: [@Sendable (Metrics) -> Double?] = [
      { $0.precision }, { $0.definedRecall }, { $0.f1 }, { $0.meanOnsetError }, { $0.medianOnsetError },
      { $0.medianDelay }, { $0.falseAlarmsPerHour }, { $0.duration },
    ]
    let kinds: [@Sendable (StandardCounts) -> DetectionCounts] = [
      { $0.onset }, { $0.onsetOffset }, { $0.segments },
    ]
    for kind in kinds {
      list += [
        { kind($0.standard).precision }, { kind($0.standard).recall }, { kind($0.standard).f1 },
        { kind($0.standard).definedErrorRate },
      ]
    }
    list += [{ $0.macroF1(0) }, { $0.macroF1(1) }, { $0.macroF1(2) }]
    precondition(list.count == metricColumns.count - 3)
    return list
  }()
  static let durationColumn = metricColumns.firstIndex(of: "duration_s")! - 3

  /// Rounded to 12 significant digits, so that reports are stable text.
  static func rounded(_ v: Double) -> Double { roundedToSignificant(v, digits: 12) }

  public func summaryCSV() -> String {
    var text =
      (["rule", "params"] + Self.metricColumns + ["traces", "dataset_sha256"]).joined(separator: ",") + "\n"
    let hash = fingerprint?.hash ?? ""
    for (i, s) in settings.enumerated() {
      text +=
        ([csvField(s.rule), csvField(s.parameterText)] + Self.fields(summary[i]) + [
          String(traces.count), hash,
        ]).joined(
          separator: ",") + "\n"
    }
    return text
  }

  public func perTraceCSV() -> String {
    var text = (["trace", "rule", "params", "start_s"] + Self.metricColumns).joined(separator: ",") + "\n"
    for t in traces {
      for (i, s) in settings.enumerated() {
        text +=
          ([csvField(t.name), csvField(s.rule), csvField(s.parameterText), formatNumber(t.start)]
          + Self.fields(t.metrics[i], exactDuration: true)).joined(
            separator: ",") + "\n"
      }
    }
    return text
  }

  public func detectionsCSV() -> String {
    var text = "trace,rule,params,start,end,reported,status,matched_start,matched_end\n"
    for t in traces {
      for (i, s) in settings.enumerated() {
        for (d, match) in t.detections[i] {
          text +=
            [
              csvField(t.name), csvField(s.rule), csvField(s.parameterText), formatNumber(d.start),
              formatNumber(d.end),
              d.reported.map(formatNumber) ?? "", d.cancelled ? "cancelled" : "ended",
              match.map { formatNumber($0.start) } ?? "", match.map { formatNumber($0.end) } ?? "",
            ].joined(separator: ",") + "\n"
        }
      }
    }
    return text
  }

  /// The precision/recall curve: one row per setting.
  public func sweepCSV() -> String {
    var text = "rule,params,precision,recall,f1,false_alarms_per_hour\n"
    for (i, s) in settings.enumerated() {
      let m = summary[i]
      text +=
        [
          csvField(s.rule), csvField(s.parameterText), formatNumber(Self.rounded(m.precision)),
          m.definedRecall.map { formatNumber(Self.rounded($0)) } ?? "",
          formatNumber(Self.rounded(m.f1)), formatNumber(Self.rounded(m.falseAlarmsPerHour)),
        ].joined(separator: ",") + "\n"
    }
    return text
  }

  /// For each rule, the index of its best-F1 setting (the first on ties).
  public func bestPerRule() -> [(String, Int)] {
    var best: [(String, Int)] = []
    for (i, s) in settings.enumerated() {
      if let k = best.firstIndex(where: { $0.0 == s.rule }) {
        if summary[i].f1 > summary[best[k].1].f1 { best[k].1 = i }
      } else {
        best.append((s.rule, i))
      }
    }
    return best
  }

  /// The settings from best to worst: higher F1, then fewer false alarms per hour, then the order
  /// given.
  public func ranking() -> [Int] {
    settings.indices.sorted {
      let a = summary[$0]
      let b = summary[$1]
      if a.f1 != b.f1 { return a.f1 > b.f1 }
      if a.falseAlarmsPerHour != b.falseAlarmsPerHour { return a.falseAlarmsPerHour < b.falseAlarmsPerHour }
      return $0 < $1
    }
  }

  /// The table people read: one row per setting, best first (F1, then fewer false alarms; a
  /// sweep keeps its grid order), recall and the share of annotated time covered (segment
  /// recall), F1 with its 95% interval (a bootstrap over traces), then the
  /// per-source and per-position tables when there is more than one group. With `width` (a
  /// terminal's columns), the least needed columns are left out until the rows fit.
  public func table(width: Int? = nil) -> String {
    func f(_ v: Double?) -> String { formatSignificant(v, digits: precision) }
    let bootstrap = Bootstrap(traceCount: traces.count)
    // Columns in the order they are dropped to fit a width: last first.
    var header = [
      "rank", "rule", "params", "tp", "fp", "fn", "precision", "recall", "covered", "f1 [95%]", "FA/h",
      "onset_f1",
      "segment_f1", "onset_med_s", "delay_med_s",
    ]
    let columns = header.count
    let order = sweeping ? Array(settings.indices) : ranking()
    var rows = [header]
    for (rank, i) in order.enumerated() {
      let m = summary[i]
      let s = settings[i]
      var f1 = f(m.f1)
      if m.tp + m.fn > 0, !sweeping,
        let interval = bootstrap.intervals(traces.map { $0.metrics[i] }, statistics: [{ $0.f1 }])[0]
      {
        f1 += " [\(f(interval.low)), \(f(interval.high))]"
      }
      rows.append([
        "\(rank + 1)", s.rule, s.parameterText.isEmpty ? "defaults" : s.parameterText, "\(m.tp)", "\(m.fp)",
        "\(m.fn)", f(m.precision), f(m.definedRecall), f(m.standard.segments.recall), f1,
        f(m.falseAlarmsPerHour),
        f(m.standard.onset.f1),
        f(m.standard.segments.f1), f(m.medianOnsetError), f(m.medianDelay),
      ])
    }
    func widths() -> [Int] { rows[0].indices.map { c in rows.map { $0[c].count }.max()! } }
    func lineWidth() -> Int { widths().reduce(0, +) + 2 * (header.count - 1) }
    // Keep at least rank, rule, params, tp, fp, fn, precision, recall, covered, F1 and false alarms.
    while let width, lineWidth() > width, header.count > 11 {
      header.removeLast()
      rows = rows.map { Array($0.dropLast()) }
    }
    let w = widths()
    var text =
      rows.map { r in
        r.enumerated().map { $1.padding(toLength: w[$0]) }.joined(separator: "  ").trimmingTrailingBlanks()
      }
      .joined(separator: "\n")
      + "\n\(traces.count) traces, \(formatDuration(summary.first?.duration ?? 0))"
    if header.count < columns { text += " (narrowed to the terminal: --format csv has every column)" }
    text += "\n"
    if settings.count > 1 && !sweeping {
      let ranked = ranking().map { i in "\(settings[i]) (\(f(summary[i].f1)))" }
      text += "ranked by F1, then fewer false alarms: " + ranked.joined(separator: ", ") + "\n"
    }
    if hasGroups && !sweeping { text += groupTable() }
    return text
  }

  public func json() -> String {
    let items = settings.enumerated().map { i, s -> String in
      let m = summary[i]
      var members = ["\"rule\": \(jsonString(s.rule))", "\"params\": \(jsonString(s.parameterText))"]
      for name in Self.metricColumns {
        let v =
          Self.value(name, m).map {
            ["tp", "fp", "fn"].contains(name) ? String(Int($0)) : formatNumber(Self.rounded($0))
          } ?? "null"
        members.append("\"\(name)\": \(v)")
      }
      return "  {" + members.joined(separator: ", ") + "}"
    }
    return "[\n" + items.joined(separator: ",\n") + "\n]\n"
  }

  /// summary.csv, per-trace.csv, detections.csv (and sweep.csv): names and contents.
  public var files: [(name: String, text: String)] {
    var files = [
      ("summary.csv", summaryCSV()), ("per-trace.csv", perTraceCSV()), ("detections.csv", detectionsCSV()),
    ]
    if sweeping { files.append(("sweep.csv", sweepCSV())) }
    if hasGroups { files.append(("groups.csv", groupsCSV())) }
    if let fingerprint { files.append(("dataset.sha256", fingerprint.listing)) }
    return files
  }

  /// Writes `files` (and any `more`, such as index.html) into `directory`, creating it, all
  /// together: either every file is replaced or none is.
  public func write(
    to directory: String, inputs: [ByteInput], more: [(name: String, text: String)] = [],
    elsewhere: [(path: String, text: String)] = []
  ) throws {
    try makeDirectories(directory)
    try OutputFile.writeTogether(
      (files + more).map { (directory + "/" + $0.name, $0.text) } + elsewhere, inputs: inputs)
  }

  /// Whether more of `metric` is better (precision, recall, F1) or less (rates, errors, delays).
  public static func higherIsBetter(_ metric: String) -> Bool {
    Gate.range(of: metric).upperBound == 1
  }

  /// Compares with an earlier summary.csv: a line per setting whose metrics changed, and the
  /// regressions: F1 down, false alarms per hour up, and any of `gated` worse, each by more than
  /// `tolerance`. A setting whose parameters the baseline did not run is compared with the rule's
  /// row there (its best F1 after a sweep), and the change is said. With a `fingerprint`, a
  /// dataset that changed since the baseline is reported in `datasetChanges`.
  public func compare(
    with baseline: EvaluationBaseline, gated: [String] = [], tolerance: Double = 0,
    fingerprint: DatasetFingerprint? = nil, allowMissing: Bool = false, digits: Int = 4
  ) -> BaselineComparison {
    // Numbers for people: `digits` significant digits (the comparison itself is exact).
    func n(_ v: Double) -> String { formatSignificant(v, digits: digits) }
    var result = BaselineComparison()
    // A detector of the baseline that this run lacks has disappeared: a regression, unless the
    // caller allows it.
    let evaluated = Set(settings.map(\.rule))
    var missing: [String] = []
    for row in baseline.rows where !evaluated.contains(row.rule) && !missing.contains(row.rule) {
      missing.append(row.rule)
    }
    for rule in missing {
      let line = "\(rule): in the baseline but not evaluated"
      result.changes.append(line)
      if !allowMissing { result.regressions.append(line) }
    }
    let watched =
      ["f1", "false_alarms_per_hour"] + gated.filter { $0 != "f1" && $0 != "false_alarms_per_hour" }
    for (i, s) in settings.enumerated() {
      let m = summary[i]
      let old: EvaluationBaseline.Row
      if let exact = baseline.rows.first(where: { $0.rule == s.rule && $0.params == s.parameterText }) {
        old = exact
      } else if let other = baseline.rows.filter({ $0.rule == s.rule }).max(by: {
        ($0.values["f1"] ?? -1) < ($1.values["f1"] ?? -1)
          || (($0.values["f1"] ?? -1) == ($1.values["f1"] ?? -1) && $0.params > $1.params)
      }) {
        old = other
        result.changes.append(
          "\(s.rule): parameters changed from \(other.params.isEmpty ? "the defaults" : other.params) to \(s.parameterText.isEmpty ? "the defaults" : s.parameterText); compared with those"
        )
      } else {
        result.changes.append("\(s): new (f1 \(n(m.f1)))")
        continue
      }
      var moved: [String] = []
      for metric in watched {
        guard let was = old.values[metric] else { continue }
        let now = Self.value(metric, m).map(Self.rounded)
        guard let now else {
          if gated.contains(metric) {
            result.regressions.append("\(s): \(metric) is now undefined (was \(n(was)))")
          }
          continue
        }
        if now != was { moved.append("\(metric) \(n(was)) -> \(n(now))") }
        let worse =
          Self.higherIsBetter(metric) ? now < was - tolerance - 1e-12 : now > was + tolerance + 1e-12
        if worse {
          result.regressions.append(
            "\(s): \(metric) \(Self.higherIsBetter(metric) ? "fell" : "rose") from \(n(was)) to \(n(now))"
          )
        }
      }
      if !moved.isEmpty { result.changes.append("\(s): " + moved.joined(separator: ", ")) }
    }
    if let fingerprint, let was = baseline.datasetHash, was != fingerprint.hash {
      var what = baseline.fingerprint.map { fingerprint.differences(from: $0) } ?? []
      if what.count > 8 { what = Array(what.prefix(8)) + ["..."] }
      result.datasetChanges.append(
        "the dataset differs from the baseline's (sha256 \(was.prefix(12)) -> \(fingerprint.hash.prefix(12)))"
          + (what.isEmpty ? "" : ": " + what.joined(separator: ", ")))
    }
    if result.changes.isEmpty { result.changes.append("no change from \(baseline.path)") }
    return result
  }
}

/// What comparing with a baseline found.
public struct BaselineComparison: Sendable {
  /// One line per setting whose watched metrics changed (or whose parameters did).
  public var changes: [String] = []
  /// Metrics worse than the baseline's by more than the tolerance.
  public var regressions: [String] = []
  /// The dataset's content differs from the baseline's.
  public var datasetChanges: [String] = []
}

/// An earlier summary.csv: every metric by rule and parameters, and the dataset's content hash
/// (with the per-file listing, `dataset.sha256`, when it lies beside it).
public struct EvaluationBaseline: Sendable {
  public struct Row: Sendable {
    public var rule: String
    public var params: String
    public var values: [String: Double]
  }

  public let path: String
  public let rows: [Row]
  public let datasetHash: String?
  public let fingerprint: DatasetFingerprint?

  /// - Parameter path: a summary.csv, or the folder an evaluation wrote it into.
  public init(path: String) throws {
    let path = isDirectory(path) ? (path.hasSuffix("/") ? path : path + "/") + "summary.csv" : path
    self.path = path
    let bytes = try ByteInput.readAll(path: path)
    let lines = bytes.split(separator: UInt8(ascii: "\n")).map {
      CSVDialect.split($0, delimiter: UInt8(ascii: ","))
    }
    guard let header = lines.first, let ri = header.firstIndex(of: "rule"),
      let pi = header.firstIndex(of: "params"),
      header.contains("f1")
    else {
      throw AccelError.data(
        DataLocation(file: path, line: 1), "not an accelkit summary.csv (needs rule, params, f1)")
    }
    let hi = header.firstIndex(of: "dataset_sha256")
    var rows: [Row] = []
    var hash: String?
    for row in lines.dropFirst() where row.count > max(ri, pi) {
      var values: [String: Double] = [:]
      for (k, name) in header.enumerated()
      where k < row.count && EvaluationReport.metricColumns.contains(name) {
        if let v = Double(row[k]) { values[name] = v }
      }
      rows.append(Row(rule: row[ri], params: row[pi], values: values))
      if let hi, hi < row.count, !row[hi].isEmpty { hash = row[hi] }
    }
    self.rows = rows
    datasetHash = hash
    let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    fingerprint = (try? ByteInput.readAll(path: folder + "/dataset.sha256")).map {
      DatasetFingerprint(listing: String(decoding: $0, as: UTF8.self))
    }
  }
}

extension String {
  func padding(toLength n: Int) -> String {
    count >= n ? self : self + String(repeating: " ", count: n - count)
  }
}
