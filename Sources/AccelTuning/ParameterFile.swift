import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelScaleOut

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Parameter files (`--params-file`): one `RULE.NAME=VALUE` per line; `#` starts a comment; blank
/// lines are skipped.
public enum ParameterFile {
  /// The items of the file at `path`, as `--param` takes them.
  public static func read(path: String) throws -> [String] {
    let bytes = try ByteInput.readAll(path: path)
    var items: [String] = []
    for (k, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
    {
      var text = String(decoding: line, as: UTF8.self)
      if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
      text = text.trimmingBlanks()
      guard !text.isEmpty else { continue }
      guard let eq = text.firstIndex(of: "="), text[..<eq].contains("."),
        Double(text[text.index(after: eq)...].trimmingBlanks()) != nil
      else {
        throw AccelError.data(
          DataLocation(file: path, line: k + 1, column: 1),
          "expected RULE.NAME=VALUE, got \(quotedField(text))",
          hint: "accelkit tune writes these files; --list-params shows the names")
      }
      items.append(text)
    }
    return items
  }
}
