import AccelCore
import AccelEvaluation
import AccelIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The partial results a shard of `evaluate` or `tune` writes (`partial.json`) and `merge` reads:
/// where they are found and how several written one after another are told apart.
public enum PartialFiles {
  /// The name of a partial result in its folder.
  public static let fileName = "partial.json"

  /// Each partial's name and bytes: files, folders (their partial.json), glob patterns, and `-`
  /// (stdin, split into the partials written one after another).
  public static func read(_ arguments: [String]) throws -> [(String, [UInt8])] {
    var out: [(String, [UInt8])] = []
    for argument in arguments {
      if argument == "-" {
        let documents = split(try ByteInput.readAll(path: "-"))
        guard !documents.isEmpty else {
          throw AccelError.data(DataLocation(file: "<stdin>"), "no partial result on stdin")
        }
        for (k, d) in documents.enumerated() { out.append(("<stdin>#\(k + 1)", d)) }
        continue
      }
      for path in try expand(argument) {
        var st = stat()
        let file = stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR ? path + "/" + fileName : path
        out.append((file, try ByteInput.readAll(path: file)))
      }
    }
    return out
  }

  /// A path, or the paths a glob pattern matches (sorted) when nothing has its literal name.
  public static func expand(_ argument: String) throws -> [String] {
    var st = stat()
    guard stat(argument, &st) != 0, argument.contains(where: { "*?[".contains($0) }) else {
      return [argument]
    }
    var matches = glob_t()
    defer { globfree(&matches) }
    guard glob(argument, 0, nil, &matches) == 0 else {
      throw AccelError.cannotOpen(path: argument, reason: "no file matches the pattern")
    }
    return (0..<Int(matches.gl_pathc)).compactMap { matches.gl_pathv[$0].map { String(cString: $0) } }
      .sorted()
  }

  /// Partials written one after another: each starts with a line `{` and its sha256 line.
  public static func split(_ bytes: [UInt8]) -> [[UInt8]] {
    let start = Array("{\n\"sha256\": ".utf8)
    var starts: [Int] = []
    var i = 0
    while i < bytes.count {
      if (i == 0 || bytes[i - 1] == UInt8(ascii: "\n")) && bytes[i...].starts(with: start) {
        starts.append(i)
      }
      guard let next = bytes[i...].firstIndex(of: UInt8(ascii: "\n")) else { break }
      i = next + 1
    }
    if starts.first != 0 { starts.insert(0, at: 0) }
    if bytes.isEmpty { return [] }
    return starts.indices.map { k in
      Array(bytes[starts[k]..<(k + 1 < starts.count ? starts[k + 1] : bytes.count)])
    }
  }

  /// Writes a partial result to DIR/partial.json, atomically: a killed run leaves none.
  public static func write(_ json: String, toDirectory output: String) throws {
    try makeDirectories(output)
    try OutputFile.writeTogether([(output + "/" + fileName, json)])
  }
}
