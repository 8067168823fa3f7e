#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelIO

/// One row of a dataset manifest.
public struct ManifestEntry: Equatable, Sendable {
  public var trace: String
  public var events: String
  public var preset: String?
  public var rate: Double?
  public var units: String?
  public var convention: String?
  public var split: String?
  /// Where the recording comes from (a data set, a lab, a device) and where the device was worn
  /// (pocket, waist, wrist, hand, bag...): reports give false alarms per hour for each, so a
  /// regression in one cannot hide in the average.
  public var source: String?
  public var position: String?
  /// What the recording holds (walking, a sustained shake, a fall...): reports give figures for
  /// each too.
  public var activity: String? = nil
  /// The manifest line, for messages.
  public var line: Int
}

/// `DATASET/manifest.csv`: `trace,events[,preset][,rate][,units][,convention][,split][,source]
/// [,position]`, paths
/// relative to the dataset folder; other columns are ignored. Paths must stay inside the folder
/// (no absolute paths, no `..` out of it, links resolved) unless `allowOutsidePaths`: a manifest is
/// data, and a dataset from elsewhere must not make accelkit read (and quote) other files.
public enum Manifest {
  public static func read(dataset: String, allowOutsidePaths: Bool = false) throws -> [ManifestEntry] {
    let path = dataset.hasSuffix(".csv") ? dataset : dataset + "/manifest.csv"
    let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    let bytes: [UInt8]
    do {
      bytes = try ByteInput.readAll(path: path)
    } catch AccelError.cannotOpen(let file, let reason) where !fileExistsAt(path) {
      throw AccelError.cannotOpen(
        path: file,
        reason: reason
          + " (a dataset is a folder holding manifest.csv: a header trace,events and one line per trace, its paths relative to the folder; to evaluate one trace, give the trace with --labels EVENTS.csv)"
      )
    }
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard let first = lines.first, !first.allSatisfy(CSVDialect.isBlank) else {
      throw AccelError.data(DataLocation(file: path), "the manifest is empty", hint: "it needs a header trace,events")
    }
    let header = CSVDialect.split(first, delimiter: UInt8(ascii: ",")).map { $0.lowercased() }
    guard let ti = header.firstIndex(of: "trace"), let ei = header.firstIndex(of: "events") else {
      throw AccelError.data(DataLocation(file: path, line: 1), "a manifest needs the columns trace and events; the header has \(quotedFields(header))")
    }
    func column(_ name: String) -> Int? { header.firstIndex(of: name) }
    var entries: [ManifestEntry] = []
    for (k, line) in lines.enumerated().dropFirst() where !line.allSatisfy(CSVDialect.isBlank) {
      let fields = CSVDialect.split(line, delimiter: UInt8(ascii: ","))
      func field(_ i: Int?) -> String? {
        guard let i, i < fields.count, !fields[i].isEmpty else { return nil }
        return fields[i]
      }
      guard let trace = field(ti), let events = field(ei) else {
        throw AccelError.data(DataLocation(file: path, line: k + 1), "the row names no trace or no events file")
      }
      var rate: Double? = nil
      if let text = field(column("rate")) {
        guard let r = Double(text), r > 0 else {
          throw AccelError.data(DataLocation(file: path, line: k + 1), "rate must be a positive number, got \(quotedField(text))")
        }
        rate = r
      }
      func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : directory + "/" + p }
      for (name, i) in [("trace", ti), ("events", ei)] where fields[i].utf8.contains(0) {
        throw AccelError.data(
          DataLocation(file: path, line: k + 1, column: i + 1), "the \(name) path holds a NUL byte")
      }
      let entry = ManifestEntry(
        trace: resolve(trace), events: resolve(events), preset: field(column("preset")), rate: rate,
        units: field(column("units")), convention: field(column("convention")), split: field(column("split")),
        source: field(column("source")), position: field(column("position")),
        activity: field(column("activity")), line: k + 1)
      for (file, i) in [(entry.trace, ti), (entry.events, ei)] {
        let location = DataLocation(file: path, line: k + 1, column: i + 1)
        guard fileExistsAt(file) else {
          throw AccelError.data(
            location, "the manifest names \(quotedPath(fields[i])), which does not exist",
            hint: fields[i].hasPrefix("/")
              ? nil : "paths in a manifest are relative to its folder (\(quotedPath(directory)))")
        }
        if !allowOutsidePaths && !isInside(file, directory: directory) {
          throw AccelError.data(
            location, "the manifest names \(quotedPath(fields[i])), which is outside the dataset folder",
            hint: "datasets refer to their own files; pass --allow-outside-paths to read others")
        }
      }
      entries.append(entry)
    }
    guard !entries.isEmpty else { throw AccelError.data(DataLocation(file: path), "the manifest lists no traces") }
    return entries
  }

  /// Whether something is at `path` (links followed): a file, or a FIFO a recorder writes into.
  static func fileExistsAt(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0
  }

  /// Whether `file` (links resolved) lies inside `directory` (links resolved).
  static func isInside(_ file: String, directory: String) -> Bool {
    guard let f = realpath(file, nil), let d = realpath(directory, nil) else { return false }
    defer {
      free(f)
      free(d)
    }
    let fileText = String(cString: f), directoryText = String(cString: d)
    return fileText.hasPrefix(directoryText == "/" ? "/" : directoryText + "/")
  }
}
