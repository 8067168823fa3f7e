import AccelCore
import AccelIO

/// What a dataset is made of, by content: the SHA-256 of its manifest and of every trace and
/// annotation file it names, and one hash over them all. A baseline keeps it, so that comparing
/// results of a changed dataset is seen, not taken for a change of the detector.
public struct DatasetFingerprint: Sendable, Equatable {
  /// Each file (named relative to the dataset folder, as the manifest names it) with its digest;
  /// files that are not regular (FIFOs) have none.
  public var files: [(name: String, sha256: String?)]

  public static func == (a: DatasetFingerprint, b: DatasetFingerprint) -> Bool { a.listing == b.listing }

  /// `sha256sum` lines (`HASH  NAME`): `cd DATASET && sha256sum -c dataset.sha256` checks them.
  public var listing: String {
    files.compactMap { f in f.sha256.map { "\($0)  \(f.name)\n" } }.joined()
  }

  /// The SHA-256 of `listing`: `sha256sum < dataset.sha256` prints it.
  public var hash: String {
    var hasher = SHA256()
    hasher.update(Array(listing.utf8))
    return hasher.hexDigest()
  }

  public init(files: [(name: String, sha256: String?)]) { self.files = files }

  /// Reads `dataset.sha256` (as `listing` writes it).
  public init(listing text: String) {
    files = text.split(separator: "\n").compactMap { line in
      guard line.count > 66, line.dropFirst(64).hasPrefix("  ") else { return nil }
      return (String(line.dropFirst(66)), String(line.prefix(64)))
    }
  }

  /// The fingerprint of a dataset's jobs (files hashed in parallel; each file once).
  public static func of(dataset: String, jobs: [EvaluationJob], parallelism: Int? = nil) throws
    -> DatasetFingerprint
  {
    let manifest = jobs.first?.location?.file
    return DatasetFingerprint(
      files: try digests(of: (manifest.map { [$0] } ?? []) + files(of: jobs), parallelism: parallelism).map {
        (name(of: $0.path, manifest: manifest), $0.sha256)
      })
  }

  /// The trace and annotation files of `jobs`, each once, in order.
  public static func files(of jobs: [EvaluationJob]) -> [String] {
    var paths: [String] = []
    for job in jobs {
      for p in [job.trace, EventsFile.fileAndTask(job.events).path] where !paths.contains(p) {
        paths.append(p)
      }
    }
    return paths
  }

  /// The SHA-256 of each file (in parallel), nil for files that are not regular (FIFOs).
  public static func digests(of paths: [String], parallelism: Int? = nil) throws -> [(
    path: String, sha256: String?
  )] {
    let digests = parallelMap(paths, jobs: parallelism) { path in Result { try FileDigest.sha256(path: path) }
    }
    return try zip(paths, digests).map { ($0, try $1.get()) }
  }

  /// A file's name in the listing: its path relative to the manifest's folder (as the manifest
  /// names it), or as given for a single trace.
  public static func name(of path: String, manifest: String?) -> String {
    guard let manifest else { return path }
    let folder = manifest.contains("/") ? String(manifest[..<manifest.lastIndex(of: "/")!]) : "."
    return path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
  }

  /// What differs from `old`: names of files changed, added or removed.
  public func differences(from old: DatasetFingerprint) -> [String] {
    let before = Dictionary(old.files.map { ($0.name, $0.sha256) }, uniquingKeysWith: { a, _ in a })
    let now = Dictionary(files.map { ($0.name, $0.sha256) }, uniquingKeysWith: { a, _ in a })
    var out: [String] = []
    for f in files {
      if let was = before[f.name] {
        if was != f.sha256 { out.append("\(f.name) changed") }
      } else {
        out.append("\(f.name) added")
      }
    }
    for f in old.files where now[f.name] == nil { out.append("\(f.name) removed") }
    return out
  }
}
