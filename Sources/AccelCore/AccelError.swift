/// The one error type of accelkit.
///
/// Every failure a user can cause maps to one case, and every case maps to one exit code
/// (`exitCode`), following the BSD `sysexits.h` values that shell scripts expect.
public enum AccelError: Error, Equatable, Sendable {
  /// The command line is wrong (exit 64).
  case usage(String, hint: String? = nil)
  /// The data is wrong at a known place (exit 65). `line` and `column` are 1-based; either may be
  /// absent. `byteOffset` is used for binary formats instead of line and column.
  case data(DataLocation, String, hint: String? = nil)
  /// An input cannot be opened or read (exit 66).
  case cannotOpen(path: String, reason: String)
  /// An output cannot be created: its folder is missing or not writable, or the path is a folder
  /// (exit 73).
  case cannotCreate(path: String, reason: String)
  /// An output cannot be written once created: a full disk, a file size limit, an I/O error
  /// (exit 74).
  case io(path: String, reason: String)
  /// A requested check failed (exit 1), e.g. a CI gate.
  case failure(String)

  /// The process exit code for this error.
  public var exitCode: Int32 {
    switch self {
    case .usage: 64
    case .data: 65
    case .cannotOpen: 66
    case .cannotCreate: 73
    case .io: 74
    case .failure: 1
    }
  }

  /// The text shown to the user after `Error: ` (first line), without the hint.
  public var message: String {
    switch self {
    case .usage(let text, _): text
    case .data(let location, let text, _): "\(location.description): \(text)"
    case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
    case .cannotCreate(let path, let reason): "cannot create \(path): \(reason)"
    case .io(let path, let reason): "cannot write \(path): \(reason)"
    case .failure(let text): text
    }
  }

  /// A suggestion of how to fix the problem, if there is one.
  public var hint: String? {
    switch self {
    case .usage(_, let hint): hint
    case .data(_, _, let hint): hint
    case .cannotOpen: nil
    case .cannotCreate: nil
    case .io: nil
    case .failure: nil
    }
  }

  /// The full diagnostic: `Error: ...` and, when there is one, `Hint: ...` on a second line.
  public var diagnostic: String {
    var text = "Error: \(message)"
    if let hint { text += "\nHint: \(hint)" }
    return text
  }
}

/// Where in an input a data error was found.
public struct DataLocation: Equatable, Sendable, CustomStringConvertible {
  public var file: String
  public var line: Int?
  public var column: Int?
  public var byteOffset: Int?
  /// The 1-based row of a binary input (which has no lines), shown before the byte offset.
  public var row: Int?

  public init(file: String, line: Int? = nil, column: Int? = nil, byteOffset: Int? = nil, row: Int? = nil) {
    self.file = file
    self.line = line
    self.column = column
    self.byteOffset = byteOffset
    self.row = row
  }

  /// `file:line:column`, `file:line`, `file: row R, byte N`, `file: byte N` or `file`.
  public var description: String {
    if let line {
      if let column { return "\(file):\(line):\(column)" }
      return "\(file):\(line)"
    }
    if let byteOffset {
      if let row { return "\(file): row \(row), byte \(byteOffset)" }
      return "\(file): byte \(byteOffset)"
    }
    return file
  }
}

/// A field from an input as a message quotes it: in double quotes, at most 32 characters (then
/// "..."), control characters and invalid UTF-8 shown as `?`. Messages quote only the fields at
/// fault, never whole lines, so an error never echoes more of a file than it must.
public func quotedField(_ text: some StringProtocol) -> String { quoted(text, limit: 32) }

/// A path as a message quotes it: whole (a path cut short names nothing), in double quotes, with
/// control characters and invalid UTF-8 shown as `?`.
public func quotedPath(_ text: some StringProtocol) -> String { quoted(text, limit: nil) }

/// `text` in double quotes, control characters and invalid UTF-8 shown as `?`, cut after `limit`
/// characters (then "...") when one is given.
func quoted(_ text: some StringProtocol, limit: Int?) -> String {
  var shown = ""
  var count = 0
  for c in text.unicodeScalars {
    if count == limit {
      shown += "..."
      break
    }
    shown.unicodeScalars.append(c.properties.generalCategory == .control || c == "\u{FFFD}" ? "?" : c)
    count += 1
  }
  return "\"" + shown + "\""
}

/// Column names as a message lists them: the first `limit` quoted by `quotedField`, then how
/// many more there are.
public func quotedFields(_ names: [String], limit: Int = 12) -> String {
  let shown = names.prefix(limit).map { quotedField($0) }.joined(separator: ", ")
  return names.count > limit ? shown + " and \(names.count - limit) more" : shown
}
