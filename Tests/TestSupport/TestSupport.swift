import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small seeded generator (SplitMix64) so random tests repeat exactly.
public typealias SeededRandom = SeededGenerator

/// Paths of the repository, for fixtures and the real recordings bundled in it.
public enum Paths {
  /// The package root (two levels above Tests/TestSupport).
  public static let packageRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
  }()

  public static func fixture(_ name: String) -> String { "\(packageRoot)/Tests/Fixtures/\(name)" }

  /// `datasets/real`: the third-party recordings bundled with the project (each folder keeps its
  /// licence and source).
  public static func real(_ name: String) -> String { "\(packageRoot)/datasets/real/\(name)" }

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

/// The programs some tests run (scripts/deps installs every one). A test that needs one and
/// does not find it fails with `Tools.missing`, never skips.
public enum Tools {
  /// The path of `command` on PATH, or nil.
  public static func path(_ command: String) -> String? {
    let directories = (getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(command)" }.first { access($0, X_OK) == 0 }
  }

  /// The message of a test that lacks `what`: how to install it.
  public static func missing(_ what: String, package: String) -> String {
    "\(what) is needed: run scripts/deps (it installs \(package))"
  }

  /// python3, when it imports every module of `modules`; nil otherwise.
  public static func python(importing modules: [String]) -> String? {
    guard let python = path("python3") else { return nil }
    var pid = pid_t()
    let script = "import " + modules.joined(separator: ", ")
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(python), strdup("-c"), strdup(script), nil]
    defer { argv.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    guard posix_spawn(&pid, python, &actions, nil, argv, environ) == 0 else { return nil }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return status == 0 ? python : nil
  }
}

/// An in-memory store for the offline passes (zero-phase filtering, offline fusion).
public final class MemoryStore: RandomAccessStore {
  public init() {}
  public var bytes: [UInt8] = []
  public func write(_ data: UnsafeRawBufferPointer, at offset: Int) throws {
    if bytes.count < offset + data.count {
      bytes += [UInt8](repeating: 0, count: offset + data.count - bytes.count)
    }
    for i in 0..<data.count { bytes[offset + i] = data[i] }
  }
  public func read(into data: UnsafeMutableRawBufferPointer, at offset: Int) throws {
    for i in 0..<data.count { data[i] = bytes[offset + i] }
  }
}
