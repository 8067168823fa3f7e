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
  private static let capacity = 256
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
    for i in 0..<capacity where slots[i] == nil {
      slots[i] = strdup(path)
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
