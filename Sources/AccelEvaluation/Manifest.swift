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
  /// The manifest line, for messages.
  public var line: Int
}

/// `DATASET/manifest.csv`: `trace,events[,preset][,rate][,units][,convention][,split]`, paths
/// relative to the dataset folder; other columns are ignored.
public enum Manifest {
  public static func read(dataset: String) throws -> [ManifestEntry] {
    let path = dataset.hasSuffix(".csv") ? dataset : dataset + "/manifest.csv"
    let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    let bytes = try ByteInput.readAll(path: path)
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard let first = lines.first, !first.allSatisfy(CSVDialect.isBlank) else {
      throw AccelError.data(DataLocation(file: path), "the manifest is empty", hint: "it needs a header trace,events")
    }
    let header = CSVDialect.split(first, delimiter: UInt8(ascii: ",")).map { $0.lowercased() }
    guard let ti = header.firstIndex(of: "trace"), let ei = header.firstIndex(of: "events") else {
      throw AccelError.data(DataLocation(file: path, line: 1), "a manifest needs the columns trace and events; the header has \(header.joined(separator: ", "))")
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
          throw AccelError.data(DataLocation(file: path, line: k + 1), "rate must be a positive number, got \"\(text)\"")
        }
        rate = r
      }
      func resolve(_ p: String) -> String { p.hasPrefix("/") ? p : directory + "/" + p }
      let entry = ManifestEntry(
        trace: resolve(trace), events: resolve(events), preset: field(column("preset")), rate: rate,
        units: field(column("units")), convention: field(column("convention")), split: field(column("split")), line: k + 1)
      for file in [entry.trace, entry.events] where !fileExistsAt(file) {
        throw AccelError.data(
          DataLocation(file: path, line: k + 1), "the manifest names \(file), which does not exist",
          hint: "paths in a manifest are relative to its folder")
      }
      entries.append(entry)
    }
    guard !entries.isEmpty else { throw AccelError.data(DataLocation(file: path), "the manifest lists no traces") }
    return entries
  }

  static func fileExistsAt(_ path: String) -> Bool { FileIdentity(path: path) != nil }
}
