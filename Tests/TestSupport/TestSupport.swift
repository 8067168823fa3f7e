import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small seeded generator (SplitMix64) so random tests repeat exactly.
public typealias SeededRandom = SeededGenerator

/// Paths of the repository, for fixtures and the shared datasets beside it.
public enum Paths {
  /// The package root (two levels above Tests/TestSupport).
  public static let packageRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
  }()

  public static func fixture(_ name: String) -> String { "\(packageRoot)/Tests/Fixtures/\(name)" }

  /// `../shared/datasets` beside the project, when it is there.
  public static var sharedDatasets: String? {
    let path = "\(packageRoot)/../shared/datasets"
    return access(path, F_OK) == 0 ? path : nil
  }

  /// A new empty temporary directory.
  public static func temporaryDirectory() -> String {
    var template = Array("/tmp/accelkit-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil)
    return String(cString: made!)
  }
}

/// Writes `text` to `path`.
public func writeFile(_ path: String, _ text: String) {
  writeFile(path, Array(text.utf8))
}

public func writeFile(_ path: String, _ bytes: [UInt8]) {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  precondition(fd >= 0, "cannot create \(path)")
  _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  close(fd)
}

/// Reads the whole file at `path`.
public func readFile(_ path: String) -> [UInt8]? {
  let fd = open(path, O_RDONLY)
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var result: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while true {
    let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if n <= 0 { break }
    result += chunk[0..<n]
  }
  return result
}

public func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// |a - b| <= tolerance * max(1, |a|, |b|)
public func isClose(_ a: Double, _ b: Double, relative tolerance: Double) -> Bool {
  if a == b { return true }
  return abs(a - b) <= tolerance * max(1, abs(a), abs(b))
}
