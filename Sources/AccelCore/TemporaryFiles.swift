#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Temporary files that must not outlive the process: an output's file before it is renamed into
/// place. When the process is interrupted (SIGINT, SIGTERM, SIGHUP) after `installSignalHandlers`,
/// the files still registered are removed and the process exits with 128 + the signal (130 for
/// SIGINT, 143 for SIGTERM). The handler only calls `unlink` and `_exit` on paths kept in a fixed
/// table of C strings, which is safe in a signal handler.
public enum TemporaryFiles {
  /// Enough for every file of the largest output set (`generate --traces 10000` stages 30 002).
  private static let capacity = 1 << 16
  /// A slot at or after which the next free one is searched for.
  nonisolated(unsafe) private static var nextFree = 0
  nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
    let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    table.initialize(repeating: nil, count: capacity)
    return table
  }()
  nonisolated(unsafe) private static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
    let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    pthread_mutex_init(m, nil)
    return m
  }()

  /// Registers `path`; returns its slot for `unregister`, or nil when the table is full (the file
  /// is then not removed on a signal).
  public static func register(_ path: String) -> Int? {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    for k in 0..<capacity {
      let i = (nextFree + k) % capacity
      guard slots[i] == nil else { continue }
      slots[i] = strdup(path)
      nextFree = i + 1
      return i
    }
    return nil
  }

  /// Forgets the file in `slot` (it was renamed into place or removed).
  public static func unregister(_ slot: Int) {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    let path = slots[slot]
    slots[slot] = nil
    free(path)
    nextFree = min(nextFree, slot)
  }

  /// Removes the registered files and exits with 128 + `signal` on SIGINT, SIGTERM and SIGHUP.
  public static func installSignalHandlers() {
    _ = slots
    // A parent may have left them blocked (the mask is inherited): unblock, or they would wait.
    var set = sigset_t()
    sigemptyset(&set)
    for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, s) }
    sigprocmask(SIG_UNBLOCK, &set, nil)
    for s in [SIGINT, SIGTERM, SIGHUP] {
      signal(s) { number in
        for i in 0..<TemporaryFiles.capacity {
          if let path = TemporaryFiles.slots[i] { unlink(path) }
        }
        _exit(128 + number)
      }
    }
  }
}

extension TemporaryFiles {
  /// The host's name as it appears in temporary file names (letters, digits and dots only).
  private static let hostTag: String = {
    var name = [CChar](repeating: 0, count: 256)
    guard gethostname(&name, name.count - 1) == 0 else { return "host" }
    let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let kept = text.unicodeScalars.filter {
      $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == ".")
    }
    let tag = String(String.UnicodeScalarView(kept.prefix(40)))
    return tag.isEmpty ? "host" : tag
  }()

  /// The `mkstemp` template for the temporary file of the output `base` in `directory`:
  /// `.BASE.accelkit-PID@HOST-XXXXXX`. Hidden, named after the output it will become and after
  /// the process that writes it, so that one left by a killed process is recognised as such.
  public static func template(directory: String, base: String) -> String {
    "\(directory)/.\(base).accelkit-\(getpid())@\(hostTag)-XXXXXX"
  }

  /// Folders already cleaned by this process (each is scanned once, however many outputs it gets).
  nonisolated(unsafe) private static var cleaned: Set<String> = []

  /// Removes the temporary files in `directory` left by processes of this host that no longer
  /// exist (killed with SIGKILL, or by a power cut), the first time this process writes there.
  /// Files of live processes, of other hosts (a shared folder) and anything not named by
  /// `template` are left alone. Returns the names removed.
  @discardableResult
  public static func removeStale(directory: String) -> [String] {
    pthread_mutex_lock(mutex)
    let first = cleaned.insert(directory).inserted
    pthread_mutex_unlock(mutex)
    guard first, let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    let marker = ".accelkit-"
    var removed: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      // .BASE.accelkit-PID@HOST-XXXXXX
      guard name.hasPrefix("."), let range = name.firstRange(of: marker) else { continue }
      let rest = name[range.upperBound...]
      guard let at = rest.firstIndex(of: "@"), let dash = rest.lastIndex(of: "-"), at < dash,
        let pid = Int32(rest[..<at]), pid > 0, rest[rest.index(after: at)..<dash] == hostTag,
        rest[rest.index(after: dash)...].count == 6
      else { continue }
      guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
      let path = "\(directory)/\(name)"
      var st = stat()
      guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
      if unlink(path) == 0 { removed.append(name) }
    }
    return removed.sorted()
  }
}
