import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A progress line on stderr for long runs: items done of the total, rows per second and the
/// time left, redrawn at most five times a second and cleared at the end. Given the inputs' size
/// in bytes, it advances with the bytes read within an item too (one long trace shows progress)
/// and takes the time left from them. Shown only when stderr is a terminal (never in logs or
/// pipes), or when `ACCELKIT_PROGRESS=1` asks for it, and not with `--quiet`; safe to call from
/// any thread.
final class ProgressLine: @unchecked Sendable {
  private let total: Int
  private let noun: String
  private let enabled: Bool
  private var done = 0
  private var rows = 0
  /// The inputs' size in bytes (0: unknown), and the bytes read so far.
  private let totalBytes: Int
  private var bytes = 0
  private let started: Double
  private var drawn = 0.0
  private let mutex = Lock()

  init(total: Int, noun: String, quiet: Bool, totalBytes: Int = 0) {
    self.total = total
    self.noun = noun
    self.totalBytes = totalBytes
    enabled = !quiet && (isatty(2) != 0 || Diagnostics.environment("ACCELKIT_PROGRESS") == "1") && total > 0
    started = Self.now()
  }

  /// The sizes of the files at `paths` added up (pipes and missing files count 0).
  static func size(of paths: [String]) -> Int {
    paths.reduce(0) { sum, path in
      var st = stat()
      return sum + (stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : 0)
    }
  }

  /// `more` bytes of the inputs read.
  func read(bytes more: Int) {
    guard enabled, totalBytes > 0 else { return }
    mutex.lock()
    defer { mutex.unlock() }
    bytes += more
    draw(force: false)
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
    draw(force: done == total)
  }

  /// Redraws the line (at most five times a second unless forced); the mutex is held.
  private func draw(force: Bool) {
    let t = Self.now()
    guard t - drawn >= 0.2 || force else { return }
    drawn = t
    let elapsed = max(t - started, 1e-9)
    var line = "\r\(noun): \(done)/\(total)"
    let fraction: Double
    if totalBytes > 0 {
      fraction = min(1, Double(bytes) / Double(totalBytes))
      line += " (\(Int((fraction * 100).rounded(.down)))% of \(Self.formatBytes(totalBytes)))"
    } else {
      fraction = Double(done) / Double(total)
    }
    if rows > 0 { line += ", \(formatSignificant(Double(rows) / elapsed, digits: 3)) rows/s" }
    if fraction > 0 && fraction < 1 {
      line += ", about \(formatDuration((elapsed / fraction * (1 - fraction)).rounded())) left"
    }
    line += "\u{1B}[K"
    _ = line.withCString { write(2, $0, strlen($0)) }
  }

  /// A size as people read it: 512 B, 3.4 MB, 1.2 GB.
  static func formatBytes(_ n: Int) -> String {
    let units = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
    for (scale, unit) in units where Double(n) >= scale {
      return formatSignificant(Double(n) / scale, digits: 2) + " " + unit
    }
    return "\(n) B"
  }

  /// Clears the line.
  func finish() {
    guard enabled else { return }
    _ = "\r\u{1B}[K".withCString { write(2, $0, strlen($0)) }
  }
}
