import AccelCore
import AccelIO

/// The annotation formats accelkit reads and writes.
public enum AnnotationFormat: String, CaseIterable, Sendable {
  /// Recognised from the content: JSON is Label Studio, tab-separated `start, end, label` with
  /// numbers is Audacity, other tab-separated lines with times are ELAN, the rest is CSV.
  case auto
  /// `start,end,label` CSV in seconds, or any CSV with `--label-columns`.
  case csv
  /// Audacity label track export: headerless `start<TAB>end<TAB>label`, seconds.
  case audacity
  /// ELAN "Export as Tab-delimited Text": per line an optional tier name and participant, then
  /// the begin and end times (and the duration) in one or more of ELAN's time formats, then the
  /// annotation.
  case elan
  /// Label Studio export (JSON or JSON-MIN) of a time-series labeling project.
  case labelStudio = "label-studio"
}

/// Columns of a generic annotation CSV: `start=COL,end=COL,label=COL[,unit=ms]`, or
/// `duration=COL` instead of `end`, or `value=TEXT` to give every row the same label.
public struct AnnotationColumns: Sendable, Equatable {
  public var start: String
  public var end: String?
  public var duration: String?
  public var label: String?
  public var value: String?
  /// Seconds per unit of the time columns.
  public var unit: Double

  public static let units: [(String, Double)] = [
    ("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("min", 60), ("h", 3600),
  ]

  /// Parses the option's text; errors are usage errors.
  public init(parsing text: String) throws {
    var pairs: [String: String] = [:]
    for part in text.split(separator: ",") {
      let kv = part.split(separator: "=", maxSplits: 1).map { String($0.trimmingBlanks()) }
      guard kv.count == 2, !kv[1].isEmpty,
        ["start", "end", "duration", "label", "value", "unit"].contains(kv[0])
      else {
        throw AccelError.usage(
          "--label-columns takes start=COLUMN,end=COLUMN,label=COLUMN (or duration=COLUMN, value=TEXT, unit=s|ms|us|ns|min|h), got \"\(part)\""
        )
      }
      guard pairs.updateValue(kv[1], forKey: kv[0]) == nil else {
        throw AccelError.usage("--label-columns names \(kv[0]) twice")
      }
    }
    guard let start = pairs["start"] else { throw AccelError.usage("--label-columns needs start=COLUMN") }
    guard (pairs["end"] == nil) != (pairs["duration"] == nil) else {
      throw AccelError.usage("--label-columns needs one of end=COLUMN and duration=COLUMN")
    }
    guard (pairs["label"] == nil) != (pairs["value"] == nil) else {
      throw AccelError.usage("--label-columns needs one of label=COLUMN and value=TEXT")
    }
    var unit = 1.0
    if let u = pairs["unit"] {
      guard let found = Self.units.first(where: { $0.0 == u }) else {
        throw AccelError.usage(
          "--label-columns unit=\(u): the units are \(Self.units.map(\.0).joined(separator: ", "))")
      }
      unit = found.1
    }
    self.start = start
    end = pairs["end"]
    duration = pairs["duration"]
    label = pairs["label"]
    value = pairs["value"]
    self.unit = unit
  }
}

/// How to read annotation files.
public struct AnnotationReadOptions: Sendable {
  public var format: AnnotationFormat
  public var columns: AnnotationColumns?
  /// The Label Studio task to take (its id), when an export holds several.
  public var task: String?

  public init(format: AnnotationFormat = .auto, columns: AnnotationColumns? = nil, task: String? = nil) {
    self.format = format
    self.columns = columns
    self.task = task
  }
}

extension EventsFile {
  /// Reads annotations in any supported format. `trace` (the recording they describe) chooses
  /// the task of a Label Studio export that holds several; `path#ID` names a task explicitly.
  public static func read(path given: String, options: AnnotationReadOptions, trace: String? = nil) throws
    -> [LabeledInterval]
  {
    let (path, named) = fileAndTask(given)
    let task = named ?? options.task
    let bytes = try ByteInput.readAll(path: path)
    var format = options.format
    if options.columns != nil && format == .auto { format = .csv }
    if format == .auto { format = detect(bytes) }
    switch format {
    case .labelStudio: return try LabelStudio.read(bytes, path: path, task: task, trace: trace)
    case .elan: return try ELAN.read(bytes, path: path)
    case .audacity:
      let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      guard let labels = try audacityLabels(lines: lines, path: path) else {
        throw AccelError.data(
          DataLocation(file: path, line: 1), "not an Audacity label track (lines of start<TAB>end<TAB>label)")
      }
      return labels
    case .csv, .auto:
      if let columns = options.columns { return try readMapped(bytes, path: path, columns: columns) }
      return try read(bytes: bytes, path: path, audacity: options.format == .auto)
    }
  }

  /// `FILE#ID` as the file and the Label Studio task id, when FILE exists and `FILE#ID` does not;
  /// otherwise the name as it is.
  public static func fileAndTask(_ given: String) -> (path: String, task: String?) {
    guard let hash = given.lastIndex(of: "#"), given != "-" else { return (given, nil) }
    let path = String(given[..<hash])
    func exists(_ p: String) -> Bool { FileIdentity(path: p) != nil }
    guard !exists(given), exists(path) else { return (given, nil) }
    return (path, String(given[given.index(after: hash)...]))
  }

  /// The format of an annotation file from its first non-blank bytes and line.
  public static func detect(_ bytes: [UInt8]) -> AnnotationFormat {
    var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while i < bytes.count, CSVDialect.isBlank(bytes[i]) || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
    if i < bytes.count, bytes[i] == UInt8(ascii: "[") || bytes[i] == UInt8(ascii: "{") { return .labelStudio }
    let line = bytes[i...].prefix { $0 != 0x0A }
    guard line.contains(UInt8(ascii: "\t")) else { return .csv }
    var fields = CSVDialect.split(line, delimiter: UInt8(ascii: "\t"))
    if fields.last?.hasSuffix("\r") == true { fields[fields.count - 1].removeLast() }
    let lower = fields.map { $0.lowercased() }
    if lower.contains("start") && lower.contains("end") { return .csv }
    if fields.count <= 3, fields.count >= 2, parseDecimal(Substring(fields[0])) != nil,
      parseDecimal(Substring(fields[1])) != nil
    {
      return .audacity
    }
    if lower.contains(where: { $0.hasPrefix("begin time") })
      || fields.contains(where: { ELAN.time($0) != nil })
    {
      return .elan
    }
    return .csv
  }

  /// A CSV with named columns (`--label-columns`).
  static func readMapped(_ bytes: [UInt8], path: String, columns: AnnotationColumns) throws
    -> [LabeledInterval]
  {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard let headerIndex = lines.firstIndex(where: { !$0.allSatisfy(CSVDialect.isBlank) }) else {
      throw AccelError.data(DataLocation(file: path), "the annotation file is empty")
    }
    let delimiter = CSVDialect.detectDelimiter(in: lines[headerIndex])
    var header = CSVDialect.split(lines[headerIndex], delimiter: delimiter)
    if header.last?.hasSuffix("\r") == true { header[header.count - 1].removeLast() }
    if let first = header.first, first.hasPrefix("\u{FEFF}") { header[0].removeFirst() }
    func index(_ name: String?, _ role: String) throws -> Int? {
      guard let name else { return nil }
      guard let i = header.firstIndex(of: name) else {
        throw AccelError.data(
          DataLocation(file: path, line: headerIndex + 1),
          "--label-columns \(role)=\(name): no such column; the header has \(quotedFields(header))")
      }
      return i
    }
    let si = try index(columns.start, "start")!
    let ei = try index(columns.end, "end")
    let di = try index(columns.duration, "duration")
    let li = try index(columns.label, "label")
    var out: [LabeledInterval] = []
    for k in (headerIndex + 1)..<lines.count where !lines[k].allSatisfy(CSVDialect.isBlank) {
      var fields = CSVDialect.split(lines[k], delimiter: delimiter)
      if fields.last?.hasSuffix("\r") == true { fields[fields.count - 1].removeLast() }
      func number(_ i: Int) throws -> Double {
        guard i < fields.count, let v = parseDecimal(Substring(fields[i])), v.isFinite else {
          throw AccelError.data(
            DataLocation(file: path, line: k + 1, column: i + 1),
            "expected a number in column \(quotedField(header[i])), got \(quotedField(i < fields.count ? fields[i] : ""))"
          )
        }
        return v * columns.unit
      }
      let start = try number(si)
      let end = try ei.map(number) ?? (start + (try number(di!)))
      guard end >= start else {
        throw AccelError.data(
          DataLocation(file: path, line: k + 1, column: (ei ?? di!) + 1),
          "the event ends (\(formatNumber(end)) s) before it starts (\(formatNumber(start)) s)")
      }
      let label =
        try li.map { i -> String in
          guard i < fields.count, !fields[i].isEmpty else {
            throw AccelError.data(
              DataLocation(file: path, line: k + 1, column: i + 1), "the event has no label")
          }
          return fields[i]
        } ?? columns.value!
      out.append(LabeledInterval(start: start, end: end, label: label))
    }
    return out
  }

  /// Annotations as text in `format` (not `auto`): CSV `start,end,label`; Audacity lines; ELAN
  /// lines (tier = label, begin, end and duration in ss.msec, then the annotation; ELAN keeps
  /// milliseconds); a Label Studio JSON export with one task whose `data.ts` is `trace`.
  public static func render(_ events: [LabeledInterval], as format: AnnotationFormat, trace: String = "")
    -> String
  {
    switch format {
    case .auto, .csv:
      return "start,end,label\n"
        + events.map { "\(formatNumber($0.start)),\(formatNumber($0.end)),\(csvField($0.label))\n" }.joined()
    case .audacity:
      return events.map { "\(formatNumber($0.start))\t\(formatNumber($0.end))\t\(oneLine($0.label))\n" }
        .joined()
    case .elan:
      return events.map { e in
        let label = oneLine(e.label)
        return
          "\(label)\t\(cFormat("%.3f", e.start))\t\(cFormat("%.3f", e.end))\t\(cFormat("%.3f", e.end - e.start))\t\(label)\n"
      }.joined()
    case .labelStudio:
      let results = events.enumerated().map { k, e in
        "{\"id\": \"accelkit-\(k + 1)\", \"type\": \"timeserieslabels\", \"from_name\": \"label\", \"to_name\": \"ts\", "
          + "\"value\": {\"start\": \(formatNumber(e.start)), \"end\": \(formatNumber(e.end)), "
          + "\"instant\": \(e.start == e.end), \"timeserieslabels\": [\(jsonString(e.label))]}}"
      }
      return
        "[\n  {\"id\": 1, \"data\": {\"ts\": \(jsonString(trace))}, \"annotations\": [{\"id\": 1, \"result\": [\n"
        + results.map { "    " + $0 }.joined(separator: ",\n") + "\n  ]}]}\n]\n"
    }
  }

  static func oneLine(_ text: String) -> String {
    String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 })
  }
}

/// ELAN's tab-delimited text export.
enum ELAN {
  /// A time in one of ELAN's formats: `hh:mm:ss.ms`, `ss.msec` (seconds), `msec` (an integer of
  /// milliseconds). `hh:mm:ss:ff` (frames) is recognised but has no value without the frame rate:
  /// `.some(nil)`.
  static func time(_ field: String) -> Double?? {
    let text = field.trimmingBlanks()
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":" || $0 == ".") }) else {
      return nil
    }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    switch parts.count {
    case 1:
      guard let v = parseDecimal(Substring(text)), v.isFinite else { return nil }
      return .some(text.contains(".") ? v : v / 1000)
    case 3:
      guard let h = Int(parts[0]), let m = Int(parts[1]), let s = parseDecimal(parts[2]), m < 60, s < 60
      else {
        return nil
      }
      return .some(Double(h) * 3600 + Double(m) * 60 + s)
    case 4:
      guard parts.allSatisfy({ Int($0) != nil }) else { return nil }
      return .some(nil)
    default: return nil
    }
  }

  static func read(_ bytes: [UInt8], path: String) throws -> [LabeledInterval] {
    var out: [LabeledInterval] = []
    var text = bytes
    if text.starts(with: [0xEF, 0xBB, 0xBF]) { text.removeFirst(3) }
    let lines = text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    for (k, raw) in lines.enumerated() where !raw.allSatisfy(CSVDialect.isBlank) {
      var fields = CSVDialect.split(raw, delimiter: UInt8(ascii: "\t"))
      if fields.last?.hasSuffix("\r") == true { fields[fields.count - 1].removeLast() }
      let location = DataLocation(file: path, line: k + 1)
      // The run of time fields: what comes before is the tier (and participant), after it the annotation.
      guard let first = fields.firstIndex(where: { time($0) != nil }) else {
        if k == lines.firstIndex(where: { !$0.allSatisfy(CSVDialect.isBlank) }) { continue }  // a header
        throw AccelError.data(location, "an ELAN line needs begin and end times; none found")
      }
      var last = first
      while last + 1 < fields.count, time(fields[last + 1]) != nil { last += 1 }
      let times = fields[first...last].map { time($0)! }
      guard let (begin, end) = layout(times) else {
        throw AccelError.data(
          DataLocation(file: path, line: k + 1, column: first + 1),
          "cannot tell the begin and end times among \(times.count) time fields",
          hint: "export begin and end times (any format but frames) from ELAN, or use --labels-format csv")
      }
      guard end >= begin else {
        throw AccelError.data(
          location, "the annotation ends (\(formatNumber(end)) s) before it begins (\(formatNumber(begin)) s)"
        )
      }
      let annotation = fields.count > last + 1 ? fields[(last + 1)...].joined(separator: "\t") : ""
      let tier = first > 0 ? fields[0] : ""
      let label = annotation.isEmpty ? tier : annotation
      guard !label.isEmpty else {
        throw AccelError.data(location, "the annotation has no value and no tier name")
      }
      out.append(LabeledInterval(start: begin, end: end, label: label))
    }
    return out
  }

  /// Begin and end among `times` (each format once for begin, once for end, maybe once for the
  /// duration): the first grouping whose groups agree within a millisecond.
  static func layout(_ times: [Double?]) -> (Double, Double)? {
    func value(_ group: ArraySlice<Double?>) -> Double?? {
      let known = group.compactMap { $0 }
      guard let v = known.first else { return .some(nil) }
      return known.allSatisfy({ abs($0 - v) <= 0.0011 }) ? .some(v) : nil
    }
    for width in 1...4 {
      for groups in [3, 2] where times.count == width * groups {
        let g = (0..<groups).map { times[($0 * width)..<(($0 + 1) * width)] }
        guard let b = value(g[0]), let e = value(g[1]), let begin = b, let end = e else { continue }
        if groups == 3 {
          guard let d = value(g[2]) else { continue }
          if let d, abs(end - begin - d) > 0.0011 { continue }
        }
        return (begin, end)
      }
    }
    return nil
  }
}

/// Label Studio exports of time-series labels.
enum LabelStudio {
  static func read(_ bytes: [UInt8], path: String, task wanted: String?, trace: String?) throws
    -> [LabeledInterval]
  {
    guard EventsFile.detect(bytes) == .labelStudio else {
      throw AccelError.data(
        DataLocation(file: path, line: 1),
        "not a Label Studio export: it does not start with a JSON array or object")
    }
    let parsed = try JSONDocument(bytes, file: path)
    let document = parsed.root
    let tasks = document.array ?? [document]
    let location = DataLocation(file: path)
    guard !tasks.isEmpty else { throw AccelError.data(location, "the Label Studio export holds no task") }
    func id(_ task: JSONValue) -> String? {
      if let n = task["id"]?.number { return formatNumber(n) }
      return task["id"]?.string
    }
    let chosen: Int
    if let wanted {
      guard let found = tasks.firstIndex(where: { id($0) == wanted }) else {
        throw AccelError.data(
          location, "no task with id \(quotedField(wanted))",
          hint: "the ids are \(tasks.prefix(12).compactMap(id).joined(separator: ", "))")
      }
      chosen = found
    } else if tasks.count == 1 {
      chosen = 0
    } else if let trace,
      let found = tasks.firstIndex(where: { names(in: $0).contains { refers($0, to: trace) } })
    {
      chosen = found
    } else {
      throw AccelError.data(
        location,
        "the export holds \(tasks.count) tasks and none names the trace\(trace.map { " \(quotedPath(baseName($0)))" } ?? "")",
        hint:
          "choose one with FILE#ID or --labels-task ID (ids: \(tasks.prefix(12).compactMap(id).joined(separator: ", ")))"
      )
    }
    let task = tasks[chosen]
    let taskPath = document.array == nil ? [] : [String(chosen)]
    // The full export has annotations with results; JSON-MIN puts the label lists on the task.
    // Each result's value, with its path in the document (errors name its line and column).
    var results: [(value: JSONValue, path: [String])] = []
    func values(of list: String, at k: Int?) {
      guard let k, let items = task[list]?.array?[k]["result"]?.array else { return }
      results = items.enumerated().map { i, item in
        (item["value"] ?? .null, taskPath + [list, String(k), "result", String(i), "value"])
      }
    }
    if let annotations = task["annotations"]?.array {
      let kept = annotations.firstIndex { $0["was_cancelled"]?.bool != true }
      values(of: "annotations", at: kept)
      if kept == nil, task["predictions"]?.array?.isEmpty == false { values(of: "predictions", at: 0) }
    } else if case .object(let members) = task {
      for (name, value) in members {
        guard let items = value.array, items.contains(where: { $0["timeserieslabels"] != nil }) else {
          continue
        }
        results += items.enumerated().map { i, item in (item, taskPath + [name, String(i)]) }
      }
    }
    var out: [LabeledInterval] = []
    for (k, (value, valuePath)) in results.enumerated() {
      guard let labels = value["timeserieslabels"]?.array else { continue }
      func time(_ name: String) throws -> Double {
        if let v = value[name]?.number, v.isFinite { return v }
        if let s = value[name]?.string, let v = parseDecimal(Substring(s)), v.isFinite { return v }
        throw AccelError.data(
          parsed.location(valuePath + [name]), "result \(k + 1): \(name) is not a time in seconds",
          hint: "accelkit reads Label Studio time series whose time column is in seconds (no timeFormat)")
      }
      let start = try time("start")
      let end = value["end"] == nil && value["instant"]?.bool == true ? start : try time("end")
      guard end >= start else {
        throw AccelError.data(
          parsed.location(valuePath + ["end"]),
          "result \(k + 1) ends (\(formatNumber(end)) s) before it starts (\(formatNumber(start)) s)")
      }
      for label in labels.compactMap(\.string) where !label.isEmpty {
        out.append(LabeledInterval(start: start, end: end, label: label))
      }
    }
    return out.sorted { ($0.start, $0.end, $0.label) < ($1.start, $1.end, $1.label) }
  }

  /// Every string in a task's data (file names and URLs).
  static func names(in task: JSONValue) -> [String] {
    guard case .object(let members)? = task["data"] else { return [] }
    return members.compactMap { $0.1.string }
  }

  /// Whether `name` (a path or URL from Label Studio, whose uploads are prefixed `HASH-`) is the
  /// trace's file.
  static func refers(_ name: String, to trace: String) -> Bool {
    let file = baseName(name)
    let wanted = baseName(trace)
    return file == wanted || file.hasSuffix("-" + wanted)
  }

  static func baseName(_ path: String) -> String {
    String(path.split(separator: "/").last ?? Substring(path))
  }
}
