import AccelCore
import AccelIO
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Messages for people go to stderr; stdout carries data only.
enum Diagnostics {
  static func error(_ error: AccelError) {
    printError(error.diagnostic)
  }

  static func warning(_ text: String) {
    printError("Warning: \(text)")
  }

  /// A warning that is shown the first time only (a trace read again by tune's every trial).
  static func warnOnce(_ text: String) {
    if shown.withLock({ $0.insert(text).inserted }) { warning(text) }
  }

  private static let shown = Mutex<Set<String>>([])

  static func note(_ text: String) {
    printError(text)
  }

  static func printError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
  }

  /// Reports rows skipped with --skip-bad-rows.
  /// Opens a trace as every command does (its reader's notes, such as an implausible rate or
  /// units that look wrong, go to `ReaderNotes.handler`, which `main` points at `warning`).
  static func openStream(path: String, settings: TraceReadSettings, resample: Double?) throws -> TraceStream {
    try TraceStream(path: path, settings: settings, resample: resample)
  }

  /// The reader's notes on how it read a trace (time unit, decimal comma, implausible rate), once.
  static func reportNotes(_ source: TraceSource) {
    for note in source.metadata.notes { warning("\(source.metadata.name): \(note)") }
  }

  static func reportSkips(_ source: TraceSource) {
    guard let reporter = source as? SkipReporting else { return }
    reportSkips(reporter.skippedRows, reporter.firstSkippedError, in: source.metadata.name)
  }

  static func reportSkips(_ count: Int, _ first: AccelError?, in name: String) {
    guard count > 0 else { return }
    var text = "Warning: skipped \(count) bad row\(count == 1 ? "" : "s") in \(name)"
    if let first { text += "; the first: \(first.message)" }
    printError(text)
  }

  static var stdoutIsTerminal: Bool { isatty(1) != 0 }

  /// The width of the terminal stdout is, in columns; nil in a pipe or a file (tables are then
  /// never narrowed).
  static var terminalColumns: Int? {
    guard stdoutIsTerminal else { return nil }
    var size = winsize()
    if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return environment("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
  }

  /// An environment variable, or nil.
  static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

  /// GitHub Actions workflow commands go to stdout, which the runner reads; when stdout was
  /// redirected into a regular file (a CSV the user keeps), to stderr instead.
  static func writeGitHubCommands(_ lines: [String]) throws {
    guard !lines.isEmpty else { return }
    var st = stat()
    let toFile = fstat(1, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    let text = lines.joined(separator: "\n") + "\n"
    if toFile { printError(text.dropLast().description) } else { try writeStdout(text) }
  }

  /// Appends `text` to the file at `path` (the runner's step summary: appending is its protocol).
  static func append(_ text: String, to path: String) throws {
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw creationError(path: path, errno: errno) }
    defer { close(fd) }
    try writeFully(fd, text, name: path)
  }

}

/// Writes text to stdout, failing quietly on a closed pipe.
extension Diagnostics {
  /// The date a report states: SOURCE_DATE_EPOCH (the reproducible-builds convention: the same
  /// bytes on every run) when set, else now; ISO 8601 in UTC.
  static func reportDate() -> String {
    var seconds = time(nil)
    if let text = environment("SOURCE_DATE_EPOCH"), let fixed = Int(text) { seconds = time_t(fixed) }
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return cFormat(
      "%04ld-%02ld-%02ldT%02ld:%02ld:%02ldZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday),
      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }
}

func writeStdout(_ text: String) throws { try writeFully(1, text, name: "<stdout>") }

/// Writes all of `text` to `fd`; a closed pipe is `BrokenPipe`, any other failure an I/O error
/// naming `name`.
func writeFully(_ fd: Int32, _ text: String, name: String) throws {
  var text = text
  try text.withUTF8 { bytes in
    var done = 0
    while done < bytes.count {
      let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { throw BrokenPipe() }
        throw AccelError.io(path: name, reason: String(cString: strerror(errno)))
      }
      done += n
    }
  }
}
