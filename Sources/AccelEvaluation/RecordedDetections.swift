import AccelCore
import AccelGestures
import AccelIO

/// Detections made elsewhere, read back to be scored as accelkit scores its own detectors: a
/// device's log of an exported detector's events, another tool's output, or an earlier
/// `evaluate -o`'s detections.csv. A CSV with a header naming `start` and `end` (seconds, in the
/// trace's time base) and optionally `trace` (needed when the dataset has several traces: its
/// path as the dataset's manifest or `evaluate`'s detections.csv names it), `label`,
/// `reported` (seconds; the end when empty), `status` (`ended` or `cancelled`), `rule` and
/// `params` (`NAME=VALUE;...`). Other columns are ignored, so `detect-shakes -o` and `evaluate
/// -o` files are read as they are. Each rule and params named is one setting; a file without a
/// `rule` column is one.
public enum RecordedDetections {
  /// The settings that `path` records, for `jobs` (the dataset `dataset`'s traces); `label` is
  /// the label they are matched with when given. Throws a data error (file:line:col) for a row
  /// that is not a detection or names no trace of the dataset, and a usage error for a setting
  /// whose events carry several labels when no `label` is given.
  public static func read(path: String, jobs: [EvaluationJob], dataset: String, label: String?) throws
    -> [RuleSetting]
  {
    let bytes = try ByteInput.readAll(path: path)
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard let headerIndex = lines.firstIndex(where: { !$0.allSatisfy(CSVDialect.isBlank) }) else {
      throw AccelError.data(
        DataLocation(file: path), "the detections file is empty", hint: "it needs a header with start and end"
      )
    }
    let delimiter = CSVDialect.detectDelimiter(in: lines[headerIndex])
    let header = CSVDialect.split(lines[headerIndex], delimiter: delimiter).map {
      $0.trimmingBlanks().lowercased()
    }
    func column(_ name: String) -> Int? { header.firstIndex(of: name) }
    guard let si = column("start"), let ei = column("end") else {
      throw AccelError.data(
        DataLocation(file: path, line: headerIndex + 1),
        "a detections file needs the columns start and end; the header has \(quotedFields(header))")
    }
    let (ti, li, ri, sti, rui, pi) = (
      column("trace"), column("label"), column("reported"), column("status"), column("rule"), column("params")
    )
    let traces = TraceNames(jobs: jobs, dataset: dataset)
    if ti == nil, jobs.count > 1 {
      throw AccelError.data(
        DataLocation(file: path, line: headerIndex + 1),
        "the dataset has \(jobs.count) traces, and the detections file has no trace column",
        hint: "name each detection's trace in a column \"trace\"")
    }
    // Settings in the order the file first names them.
    var order: [String] = []
    var byKey: [String: Recorded] = [:]
    for index in lines.indices where index > headerIndex {
      let line = lines[index]
      if line.allSatisfy(CSVDialect.isBlank) { continue }
      var fields = CSVDialect.split(line, delimiter: delimiter)
      if fields.last?.hasSuffix("\r") == true { fields[fields.count - 1].removeLast() }
      let lineNumber = index + 1
      func at(_ i: Int) -> DataLocation { DataLocation(file: path, line: lineNumber, column: i + 1) }
      if fields.count > header.count,
        fields[header.count...].contains(where: { !$0.allSatisfy { $0 == " " } })
      {
        throw AccelError.data(
          at(header.count), "the row has \(fields.count) fields, the header \(header.count)",
          hint: "fix the row (a stray delimiter?), or name the extra column in the header")
      }
      func text(_ i: Int?) -> String? {
        guard let i, i < fields.count else { return nil }
        let t = fields[i].trimmingBlanks()
        return t.isEmpty ? nil : t
      }
      func number(_ i: Int, _ name: String) throws -> Double {
        guard let t = text(i) else { throw AccelError.data(at(i), "missing field \"\(name)\"") }
        guard let v = parseDecimal(Substring(t)), v.isFinite else {
          throw AccelError.data(
            at(i), "expected a number of seconds in column \"\(name)\", got \(quotedField(t))")
        }
        return v
      }
      let start = try number(si, "start")
      let end = try number(ei, "end")
      guard end >= start else {
        throw AccelError.data(
          at(ei), "the detection ends (\(formatNumber(end)) s) before it starts (\(formatNumber(start)) s)")
      }
      let reported = try text(ri).map { _ in try number(ri!, "reported") } ?? end
      var status = DetectorEvent.Status.ended
      if let t = text(sti) {
        guard let s = DetectorEvent.Status(rawValue: t) else {
          throw AccelError.data(at(sti!), "expected the status ended or cancelled, got \(quotedField(t))")
        }
        status = s
      }
      let trace: String
      if let ti {
        guard let named = text(ti) else { throw AccelError.data(at(ti), "the detection names no trace") }
        guard let job = traces.job(named) else {
          throw AccelError.data(
            at(ti), "the trace \(quotedField(named)) is not in the dataset \(dataset)",
            hint: "name it as the manifest does, or by its path as evaluate's detections.csv does")
        }
        trace = job
      } else {
        trace = jobs[0].trace
      }
      let rule = text(rui)
      let params = text(pi) ?? ""
      let key = (rule ?? "") + "\u{0}" + params
      if byKey[key] == nil {
        order.append(key)
        byKey[key] = Recorded(
          rule: rule, assignments: try assignments(params, at: at(pi ?? 0)), labels: [], events: [:],
          locations: [:])
      }
      let event = DetectorEvent(
        start: start, end: end, reported: reported, status: status,
        label: text(li) ?? label ?? rule.flatMap { Detectors.named($0)?.labels.first } ?? "shake")
      byKey[key]!.add(event, trace: trace, at: DataLocation(file: path, line: lineNumber))
    }
    if order.isEmpty {
      // A recording with no detection in it is a detector that found nothing.
      order = [""]
      byKey[""] = Recorded(rule: nil, assignments: [], labels: [], events: [:], locations: [:])
    }
    return try order.map { key in
      let r = byKey[key]!
      let name = RuleSetting.recordedPrefix + path + (r.rule.map { ":" + $0 } ?? "")
      let labels: [String]
      if let label {
        labels = [label]
      } else if r.labels.count > 1 {
        throw AccelError.usage(
          "\(name) records the labels \(r.labels.joined(separator: ", ")); choose the one to score with --label"
        )
      } else {
        labels =
          r.labels.isEmpty ? [r.rule.flatMap { Detectors.named($0)?.labels.first } ?? "shake"] : r.labels
      }
      return RuleSetting.recorded(
        name: name, assignments: r.assignments, labels: labels,
        events: RecordedEvents(events: r.events, locations: r.locations))
    }
  }

  /// Checks that a trace's recorded events lie within it (from `start` to `end`, widened by
  /// `tolerance`): one outside is in another time base (a device's ticks, another clock).
  public static func check(
    _ recorded: RecordedEvents, trace: String, start: Double, end: Double, tolerance: Double
  )
    throws
  {
    for (k, e) in (recorded.events[trace] ?? []).enumerated()
    where e.start < start - tolerance || e.end > end + tolerance {
      throw AccelError.data(
        recorded.locations[trace]![k],
        "the detection (\(formatNumber(e.start))-\(formatNumber(e.end)) s) lies outside the trace \(trace) (\(formatNumber(start))-\(formatNumber(end)) s)",
        hint: "detection times are in the trace's own time base, in seconds")
    }
  }

  /// `NAME=VALUE;...` as evaluate's detections.csv writes a setting's parameters.
  static func assignments(_ text: String, at location: DataLocation) throws -> [(name: String, value: Double)]
  {
    try text.split(separator: ";").map { item in
      let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks() }
      guard pair.count == 2, !pair[0].isEmpty, let v = parseDecimal(Substring(pair[1])), v.isFinite else {
        throw AccelError.data(location, "expected params as NAME=VALUE;..., got \(quotedField(text))")
      }
      return (pair[0], v)
    }
  }

  /// One setting's events as they are read.
  struct Recorded {
    var rule: String?
    var assignments: [(name: String, value: Double)]
    var labels: [String]
    var events: [String: [DetectorEvent]]
    var locations: [String: [DataLocation]]

    mutating func add(_ event: DetectorEvent, trace: String, at location: DataLocation) {
      if !labels.contains(event.label) { labels.append(event.label) }
      events[trace, default: []].append(event)
      locations[trace, default: []].append(location)
    }
  }

  /// A dataset's traces by the names a detections file may give them: the job's path, or the
  /// path relative to the dataset's folder (as its manifest lists it), either spelt with or
  /// without `./` and doubled slashes (`./data//a.csv` is `data/a.csv`).
  struct TraceNames {
    var byName: [String: String] = [:]

    init(jobs: [EvaluationJob], dataset: String) {
      let folder = Self.normalized(
        dataset.hasSuffix(".csv") ? dataset.lastIndex(of: "/").map { String(dataset[..<$0]) } ?? "" : dataset)
      let prefix = folder.isEmpty ? "" : (folder.hasSuffix("/") ? folder : folder + "/")
      for job in jobs {
        let path = Self.normalized(job.trace)
        if path.hasPrefix(prefix), byName[String(path.dropFirst(prefix.count))] == nil {
          byName[String(path.dropFirst(prefix.count))] = job.trace
        }
      }
      // The job's own path wins over a relative name that happens to equal it.
      for job in jobs { byName[Self.normalized(job.trace)] = job.trace }
    }

    func job(_ name: String) -> String? { byName[Self.normalized(name)] }

    /// `path` without `.` components and empty ones: the same file, spelt one way.
    static func normalized(_ path: String) -> String {
      let parts = path.split(separator: "/").filter { $0 != "." }
      let joined = parts.joined(separator: "/")
      return path.hasPrefix("/") ? "/" + joined : joined
    }
  }
}
