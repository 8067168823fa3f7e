import AccelCore
import AccelGestures
import AccelIO

/// An interval with a label: an annotation, or a detection.
public struct LabeledInterval: Hashable, Sendable {
  public var start: Double
  public var end: Double
  public var label: String
  /// When a detector announced it (detections only).
  public var reported: Double?
  /// Cancelled detections (angular-change) do not count unless asked.
  public var cancelled: Bool

  public init(start: Double, end: Double, label: String, reported: Double? = nil, cancelled: Bool = false) {
    self.start = start
    self.end = end
    self.label = label
    self.reported = reported
    self.cancelled = cancelled
  }
}

/// The events CSV format, read and written in one place: `start,end,label` in seconds, more
/// columns allowed (`reported` and `status` are read when present). Detections are written as
/// `[trace,]start,end,label,rule,reported,peak_g,count,axis,status`.
public enum EventsFile {
  /// The detections of one trace by one rule.
  public struct Detections: Sendable {
    public var trace: String
    public var rule: String
    public var events: [DetectorEvent]

    public init(trace: String, rule: String, events: [DetectorEvent]) {
      self.trace = trace
      self.rule = rule
      self.events = events
    }
  }

  /// The events CSV of `detections`; a `trace` column comes first when `withTrace` (several
  /// traces). Columns a rule cannot fill are empty; numbers are shortest round-trip text.
  public static func render(_ detections: [Detections], withTrace: Bool) -> String {
    var text = (withTrace ? "trace," : "") + "start,end,label,rule,reported,peak_g,count,axis,status\n"
    for d in detections {
      for e in d.events {
        var fields = [
          formatNumber(e.start), formatNumber(e.end), csvField(e.label), d.rule, formatNumber(e.reported),
          e.peakG.map(formatNumber) ?? "", e.count.map(String.init) ?? "", e.axis ?? "", e.status.rawValue,
        ]
        if withTrace { fields.insert(csvField(d.trace), at: 0) }
        text += fields.joined(separator: ",") + "\n"
      }
    }
    return text
  }

  /// Reads an annotation file in any supported format, recognised from its content.
  public static func read(path: String) throws -> [LabeledInterval] {
    try read(path: path, options: AnnotationReadOptions())
  }

  /// The events CSV (`start,end,label`), or, with `audacity`, an Audacity label track.
  static func read(bytes: [UInt8], path: String, audacity: Bool) throws -> [LabeledInterval] {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard let headerLine = lines.first(where: { !$0.allSatisfy(CSVDialect.isBlank) }) else {
      throw AccelError.data(
        DataLocation(file: path), "the events file is empty", hint: "it needs a header start,end,label")
    }
    if audacity, let labels = try audacityLabels(lines: lines, path: path) { return labels }
    let delimiter = CSVDialect.detectDelimiter(in: headerLine)
    let header = CSVDialect.split(headerLine, delimiter: delimiter).map { $0.lowercased() }
    guard let si = header.firstIndex(of: "start"), let ei = header.firstIndex(of: "end"),
      let li = header.firstIndex(of: "label")
    else {
      throw AccelError.data(
        DataLocation(file: path, line: 1),
        "an events file needs the columns start, end and label; the header has \(quotedFields(header))")
    }
    let ri = header.firstIndex(of: "reported")
    let sti = header.firstIndex(of: "status")
    var events: [LabeledInterval] = []
    var seenHeader = false
    for (index, line) in lines.enumerated() {
      if line.allSatisfy(CSVDialect.isBlank) { continue }
      if !seenHeader {
        seenHeader = true
        continue
      }
      let fields = CSVDialect.split(line, delimiter: delimiter)
      let lineNumber = index + 1
      if fields.count > header.count,
        fields[header.count...].contains(where: { !$0.allSatisfy { $0 == " " || $0 == "\r" } })
      {
        // A shifted or merged row: nothing is dropped silently (as in trace CSVs).
        throw AccelError.data(
          DataLocation(file: path, line: lineNumber, column: header.count + 1),
          "the row has \(fields.count) fields, the header \(header.count): column \(header.count + 1) has no name",
          hint: "fix the row (a stray delimiter?), or name the extra column in the header")
      }
      func number(_ i: Int, _ name: String) throws -> Double {
        guard i < fields.count else {
          throw AccelError.data(
            DataLocation(file: path, line: lineNumber, column: i + 1), "missing field \"\(name)\"")
        }
        guard let v = parseDecimal(Substring(fields[i])), v.isFinite else {
          throw AccelError.data(
            DataLocation(file: path, line: lineNumber, column: i + 1),
            "expected a number in column \"\(name)\", got \(quotedField(fields[i]))")
        }
        return v
      }
      let start = try number(si, "start")
      let end = try number(ei, "end")
      guard end >= start else {
        throw AccelError.data(
          DataLocation(file: path, line: lineNumber, column: ei + 1),
          "the event ends (\(formatNumber(end)) s) before it starts (\(formatNumber(start)) s)")
      }
      guard li < fields.count, !fields[li].isEmpty else {
        throw AccelError.data(
          DataLocation(file: path, line: lineNumber, column: li + 1), "the event has no label")
      }
      var reported: Double? = nil
      if let ri, ri < fields.count, !fields[ri].isEmpty { reported = try number(ri, "reported") }
      let cancelled = sti.map { $0 < fields.count && fields[$0] == "cancelled" } ?? false
      events.append(
        LabeledInterval(start: start, end: end, label: fields[li], reported: reported, cancelled: cancelled))
    }
    return events
  }

  /// An Audacity label track export (File > Export > Export Labels): headerless lines of
  /// `start<TAB>end<TAB>label` in seconds (a point label has start = end), and, for labels with a
  /// frequency range, a following line that starts with a backslash (skipped). Recognised when
  /// the first line is tab-separated and its first two fields are numbers; nil otherwise.
  static func audacityLabels(lines: [ArraySlice<UInt8>], path: String) throws -> [LabeledInterval]? {
    let tab = UInt8(ascii: "\t")
    guard let first = lines.first(where: { !$0.allSatisfy(CSVDialect.isBlank) }), first.contains(tab) else {
      return nil
    }
    let head = CSVDialect.split(first, delimiter: tab)
    guard head.count >= 2, parseDecimal(Substring(head[0])) != nil, parseDecimal(Substring(head[1])) != nil
    else {
      return nil
    }
    var labels: [LabeledInterval] = []
    for (index, line) in lines.enumerated() {
      if line.allSatisfy(CSVDialect.isBlank) || line.first == UInt8(ascii: "\\") { continue }
      var fields = CSVDialect.split(line, delimiter: tab)
      if fields.last?.hasSuffix("\r") == true { fields[fields.count - 1].removeLast() }
      func number(_ i: Int, _ name: String) throws -> Double {
        guard i < fields.count, let v = parseDecimal(Substring(fields[i])), v.isFinite else {
          throw AccelError.data(
            DataLocation(file: path, line: index + 1, column: i + 1),
            "expected the \(name) time in seconds (an Audacity label line is start, end, label), got \(quotedField(i < fields.count ? fields[i] : ""))"
          )
        }
        return v
      }
      let start = try number(0, "start")
      let end = try number(1, "end")
      guard end >= start else {
        throw AccelError.data(
          DataLocation(file: path, line: index + 1, column: 2),
          "the label ends (\(formatNumber(end)) s) before it starts (\(formatNumber(start)) s)")
      }
      let label = fields.count > 2 ? fields[2...].joined(separator: "\t") : ""
      guard !label.isEmpty else {
        throw AccelError.data(DataLocation(file: path, line: index + 1, column: 3), "the label has no text")
      }
      labels.append(LabeledInterval(start: start, end: end, label: label))
    }
    return labels
  }
}
