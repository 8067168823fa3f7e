import Foundation
import TestSupport
import Testing

/// Every example in every help page runs as written, in order, from the repository root (the
/// bundled datasets, nothing else): no help text names a file that is not there or not made by an
/// earlier example of the same page.
@Suite struct HelpExampleTests {
  /// Each command's path and its example lines, from the help as JSON.
  static func pages() throws -> [(command: String, examples: [String])] {
    let dump = try accelkit(["--experimental-dump-help"])
    let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
    var pages: [(String, [String])] = []
    func walk(_ command: [String: Any], _ path: [String]) {
      let discussion = command["discussion"] as? String ?? ""
      var examples: [String] = []
      var pending = ""
      for raw in discussion.split(separator: "\n") {
        let line = raw.trimmingCharacters(in: .whitespaces)
        guard !pending.isEmpty || line.hasPrefix("accelkit ") || line.hasPrefix("parallel ") else { continue }
        if line.hasSuffix("\\") {
          pending += line.dropLast() + " "
        } else {
          examples.append(pending + line)
          pending = ""
        }
      }
      if !examples.isEmpty { pages.append((path.joined(separator: " "), examples)) }
      for sub in command["subcommands"] as? [[String: Any]] ?? [] {
        walk(sub, path + [sub["commandName"] as? String ?? "?"])
      }
    }
    walk(try #require(root["command"] as? [String: Any]), ["accelkit"])
    return pages
  }


  @Test func everyHelpExampleRuns() throws {
    let pages = try Self.pages()
    #expect(pages.count >= 20, "\(pages.map(\.command))")
    for page in pages {
      let dir = Paths.temporaryDirectory()
      try FileManager.default.createSymbolicLink(
        atPath: dir + "/datasets", withDestinationPath: Paths.packageRoot + "/datasets")
      for example in page.examples {
        if example.contains("parallel ") {
          try #require(
            Tools.path("parallel") != nil, Comment(rawValue: Tools.missing("GNU parallel", package: "parallel")))
        }
        let run = try accelkit(
          [],
          shell: "cd '\(dir)' && export PATH=\"$(dirname ACCELKIT):$PATH\" && set -o pipefail && " + example)
        #expect(run.status == 0, "\(page.command): \(example)\n\(run.stderr)")
      }
    }
  }

  /// The unit of every power figure follows its scaling: a density in g^2/Hz, a power in g^2.
  @Test func spectrumUnitsFollowTheQuantity() throws {
    let trace = Paths.packageRoot + "/datasets/test/000.csv"
    let density = try accelkit([], shell: "script -qc \"ACCELKIT spectrum --summary '\(trace)'\" /dev/null")
    #expect(density.stdout.contains("dominant in g^2/Hz, total and bands in g^2"), "\(density.stdout)")
    let power = try accelkit(
      [], shell: "script -qc \"ACCELKIT spectrum --summary --scaling spectrum '\(trace)'\" /dev/null")
    #expect(
      power.stdout.contains("powers in g^2 (summed bins)") && !power.stdout.contains("/Hz"), "\(power.stdout)"
    )
    let help = try accelkit(["spectrum", "--help"])
    #expect(help.stdout.contains("g^2/Hz for density, g^2 for spectrum"))
    let dir = Paths.temporaryDirectory()
    let svg = try accelkit(["plot", "spectrum", trace, "-o", dir + "/p.svg"])
    #expect(svg.status == 0, "\(svg.stderr)")
    #expect(String(decoding: readFile(dir + "/p.svg") ?? [], as: UTF8.self).contains("g²/Hz"))
  }

  /// --version names the commit; the completions offer the rules, the presets and enumerated values.
  @Test func versionAndCompletions() throws {
    let version = try accelkit(["--version"])
    #expect(
      version.stdout.hasPrefix("0.1.0 (commit ") && version.stdout.hasSuffix(")\n"), "\(version.stdout)")
    for shell in ["bash", "zsh", "fish"] {
      let script = try accelkit(["--generate-completion-script", shell]).stdout
      for word in ["three-peak", "swing", "sensor-logger", "broad", "welch", "madgwick", "hdf5"] {
        #expect(script.contains(word), "\(shell) completion lacks \(word)")
      }
    }
  }
}
