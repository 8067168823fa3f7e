import Foundation
import TestSupport
import Testing

/// Commands only parse and wire: no command names another (what two commands share, such as
/// partial files, provenance or how a setting is chosen, is a library call or a support function).
@Suite struct CommandWiringTests {
  @Test func noCommandNamesAnother() throws {
    let folder = Paths.packageRoot + "/Sources/AccelKitCLI/Commands"
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
      .sorted()
    var commands: [(file: String, name: String, text: String)] = []
    for file in files {
      let text = String(decoding: readFile(folder + "/" + file) ?? [], as: UTF8.self)
      // `struct Name: ParsableCommand` (or AsyncParsableCommand).
      for line in text.split(separator: "\n")
      where line.hasPrefix("struct ") && line.contains("ParsableCommand") {
        let name = line.dropFirst("struct ".count).prefix { $0.isLetter || $0.isNumber }
        commands.append((file, String(name), text))
      }
    }
    #expect(commands.count >= 20, "\(commands.map(\.name))")
    var offenders: [String] = []
    for command in commands {
      for other in commands where other.name != command.name && other.file != command.file {
        // A use of another command's type: `Other.` or `Other(`, as a whole word.
        for suffix in [".", "("] {
          var rest = Substring(command.text)
          while let found = rest.firstRange(of: other.name + suffix) {
            let before = rest[..<found.lowerBound].last
            if !(before.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) {
              offenders.append("\(command.file) names \(other.name)")
              break
            }
            rest = rest[found.upperBound...]
          }
        }
      }
    }
    #expect(offenders.isEmpty, "\(Set(offenders).sorted())")
  }
}
