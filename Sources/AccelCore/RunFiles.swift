#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The files one run of the `accelkit` process reads and writes, so that no output replaces one of
/// its inputs (traces, events, manifests, baselines, wisdom, any file a dataset lists) or another
/// of its outputs. Inputs are noted as they are opened; an output is claimed before anything is
/// written to it and refused (a usage error naming both files) when it is the same file as an input
/// (device and inode, links followed) or resolves to the same path as an earlier output.
///
/// The executable turns it on for its one run (`isEnabled`); a library user who runs several jobs in
/// one process checks outputs against inputs per file instead (`OutputFile(path:inputs:)`).
public enum RunFiles {
  /// Whether inputs and outputs are tracked (off by default).
  nonisolated(unsafe) public static var isEnabled = false

  private struct Entry {
    var path: String
    var device: UInt64
    var inode: UInt64
    var role: String?
  }

  private final class Registry: @unchecked Sendable {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var inputs: [Entry] = []
    var outputs: [(path: String, resolved: String, reserved: Bool, role: String?)] = []
    init() { pthread_mutex_init(mutex, nil) }
    func locked<R>(_ body: () throws -> R) rethrows -> R {
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body()
    }
  }

  private static let registry = Registry()

  /// Notes that the file at `path` is read by this run. `role` names inputs that an output may
  /// deliberately update (FFTW wisdom is read and saved back).
  public static func noteInput(_ path: String, role: String? = nil) {
    guard isEnabled, path != "-" else { return }
    var st = stat()
    guard stat(path, &st) == 0 else { return }
    let entry = Entry(path: path, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), role: role)
    registry.locked { registry.inputs.append(entry) }
  }

  /// Claims the outputs of a command before it writes any of them, so that a clash is refused before
  /// the first is written; `claimOutput` for each of them later takes its reservation.
  public static func reserveOutputs(_ paths: [String], updating role: String? = nil) throws {
    for path in paths { try claim(path, updating: role, reserve: true) }
  }

  /// Claims `path` as an output of this run; throws a usage error when it is an input (other than
  /// one noted only with the role `updating`) or an earlier output.
  public static func claimOutput(_ path: String, updating role: String? = nil) throws {
    try claim(path, updating: role, reserve: false)
  }

  private static func claim(_ path: String, updating role: String?, reserve: Bool) throws {
    guard isEnabled, path != "-" else { return }
    let resolved = resolvedPath(path)
    var st = stat()
    let exists = stat(path, &st) == 0
    try registry.locked {
      if exists {
        let same = registry.inputs.filter { $0.device == UInt64(st.st_dev) && $0.inode == UInt64(st.st_ino) }
        if let input = same.first, role == nil || same.contains(where: { $0.role != role }) {
          let other = same.first(where: { $0.role != role }) ?? input
          throw AccelError.usage(
            "refusing to write \(path): it is the input \(other.path)",
            hint: "choose another output path; an output never replaces a file the command reads")
        }
      }
      if let k = registry.outputs.firstIndex(where: { $0.resolved == resolved }) {
        if registry.outputs[k].reserved && !reserve && registry.outputs[k].role == role {
          registry.outputs[k].reserved = false  // the reservation taken
          return
        }
        throw AccelError.usage(
          "refusing to write \(path) twice: it is also the output \(registry.outputs[k].path)",
          hint: "give each output its own path")
      }
      registry.outputs.append((path, resolved, reserve, role))
    }
  }

  /// `path` with its directory resolved (links followed), for comparing outputs that may not
  /// exist yet.
  static func resolvedPath(_ path: String) -> String {
    if let full = realpath(path, nil) {
      defer { free(full) }
      return String(cString: full)
    }
    let (directory, base): (String, String)
    if let slash = path.lastIndex(of: "/") {
      directory = slash == path.startIndex ? "/" : String(path[..<slash])
      base = String(path[path.index(after: slash)...])
    } else {
      (directory, base) = (".", path)
    }
    guard let full = realpath(directory, nil) else { return path }
    defer { free(full) }
    return String(cString: full) + "/" + base
  }
}
