import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A progress line on stderr for long runs: items done of the total, rows per second and the
/// time left, redrawn at most five times a second and cleared at the end. Shown only when stderr
/// is a terminal (never in logs or pipes) and not `--quiet`; safe to call from any thread.
final class ProgressLine: @unchecked Sendable {
  private let total: Int
  private let noun: String
  private let enabled: Bool
  private var done = 0
  private var rows = 0
  private let started: Double
  private var drawn = 0.0
  private let mutex = Lock()

  init(total: Int, noun: String, quiet: Bool) {
    self.total = total
    self.noun = noun
    enabled = !quiet && isatty(2) != 0 && total > 0
    started = Self.now()
  }

  static func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  /// One more item done, `rows` rows read for it.
  func advance(rows more: Int) {
    guard enabled else { return }
    mutex.lock()
    defer { mutex.unlock() }
    done += 1
    rows += more
    let t = Self.now()
    guard t - drawn >= 0.2 || done == total else { return }
    drawn = t
    let elapsed = max(t - started, 1e-9)
    var line = "\r\(noun): \(done)/\(total), \(formatSignificant(Double(rows) / elapsed, digits: 3)) rows/s"
    if done < total {
      line += ", about \(formatDuration((elapsed / Double(done) * Double(total - done)).rounded())) left"
    }
    line += "\u{1B}[K"
    _ = line.withCString { write(2, $0, strlen($0)) }
  }

  /// Clears the line.
  func finish() {
    guard enabled else { return }
    _ = "\r\u{1B}[K".withCString { write(2, $0, strlen($0)) }
  }
}
