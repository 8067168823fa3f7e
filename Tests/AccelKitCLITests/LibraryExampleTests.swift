import Foundation
import TestSupport
import Testing

/// The README's library example is the program in Examples/LibraryExample, which is built with the
/// package; run it and check what it prints.
@Suite struct LibraryExampleTests {
  @Test func theReadmeShowsTheExampleThatIsBuiltAndItRuns() throws {
    let source = String(decoding: try #require(readFile(Paths.packageRoot + "/Examples/LibraryExample/main.swift")), as: UTF8.self)
    let readme = String(decoding: try #require(readFile(Paths.packageRoot + "/README.md")), as: UTF8.self)
    #expect(readme.contains("```swift\n" + source + "```\n"), "README.md must show Examples/LibraryExample/main.swift as it is")
    let example = URL(fileURLWithPath: accelkitPath).deletingLastPathComponent().appendingPathComponent("LibraryExample").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: example)
    process.currentDirectoryURL = URL(fileURLWithPath: Paths.packageRoot)
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    // The bundled sample shakes once, between 5 and 7 s.
    #expect(text.hasPrefix("1 shakes: 5.0"), "\(text)")
  }
}
