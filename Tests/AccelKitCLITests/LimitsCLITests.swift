import AccelGestures
import Foundation
import TestSupport
import Testing

/// Values at the limits of what a Double holds or an option means: refused in one place, and no
/// NaN or infinity that the user did not type in a message or a JSON file.
@Suite struct LimitsCLITests {
  /// Every numeric option refuses NaN and the infinities with exit 64 and writes nothing.
  @Test(arguments: [
    ["simulate", "ball", "--cap", "nan"], ["simulate", "ball", "--damping", "nan"],
    ["simulate", "ball", "--margin", "inf"], ["windows", "--width", "-inf"],
    ["convert", "--resample", "nan"],
    ["filter", "butterworth", "--cutoff", "infinity"], ["orientation", "--settle", "nan"],
    ["spectrum", "--overlap", "nan"], ["decimate", "--factor", "2", "--rate", "nan"],
  ])
  func nonFiniteOptionsAreUsageErrors(command: [String]) throws {
    let dir = Paths.temporaryDirectory()
    let r = try accelkit(command + [Paths.packageRoot + "/datasets/test/000.csv", "-o", dir + "/out.csv"])
    #expect(r.status == 64, "\(command): exit \(r.status) \(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out.csv"), "\(command) wrote an output")
  }

  @Test func theOptionIsNamedInTheMessage() throws {
    let trace = Paths.packageRoot + "/datasets/test/000.csv"
    let r = try accelkit(["simulate", "ball", "--cap", "nan", trace, "-o", "-"])
    #expect(r.stderr.hasPrefix("Error: The value 'nan' is invalid for '--cap <points>'\n"), "\(r.stderr)")
    let fine = try accelkit(["simulate", "ball", "--cap", "1e3", trace, "-o", "-"])
    #expect(fine.status == 0, "\(fine.stderr)")
  }

  /// The refusal is by type: every number option of the executable is declared `Finite` (or
  /// `Finite?`, `[Finite]`), which the parser refuses NaN and the infinities for; none is a
  /// plain Double, which would accept them.
  @Test func everyNumberOptionIsDeclaredFinite() throws {
    let root = Paths.packageRoot + "/Sources/AccelKitCLI"
    let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".swift") }
    let declaration = #/^  (@Option[^{]*)?var \w+: (\[Double\]|Double\??|\[Finite\]|Finite\??)( = [^{]*)?$/#
    var finite = 0
    var plain: [String] = []
    for file in files {
      let text = String(decoding: readFile(root + "/" + file) ?? [], as: UTF8.self)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        guard let match = line.wholeMatch(of: declaration) else { continue }
        if match.output.2.contains("Finite") { finite += 1 } else { plain.append("\(file):\(number + 1)") }
      }
    }
    #expect(plain.isEmpty, "declare these Finite: \(plain)")
    #expect(finite >= 30, "\(finite)")
  }

  /// Times up to 1.7e308: intervals whose inverse underflows or that overflow give no NaN or
  /// infinity in any message or JSON output.
  @Test func timesNearTheLargestDoubleGiveNoNaN() throws {
    let dir = Paths.temporaryDirectory()
    for (name, times) in [
      ("tiny-rate.csv", ["0", "1e308", "1.7e308"]), ("overflow.csv", ["-1.7e308", "1.7e308"]),
    ] {
      let path = dir + "/" + name
      writeFile(path, "t,x,y,z\n" + times.map { "\($0),0.01,0.02,-1\n" }.joined())
      for command in [
        ["filter", "lowpass", "--cutoff", "5"], ["orientation"], ["spectrum"],
        ["detect-shakes", "--rule", "swing"],
        ["info"],
      ] {
        let r = try accelkit(command + [path] + (command[0] == "info" ? [] : ["-o", dir + "/out.csv"]))
        let text = (r.stdout + r.stderr).lowercased()
        #expect(!text.contains("nan") && !text.contains("inf "), "\(command) \(name): \(r.stderr)")
      }
      let json = try accelkit(["info", "--format", "json", path])
      #expect(json.status == 0)
      let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
      #expect(parsed?.count == 1, "\(name): \(json.stdout)")
      #expect(!json.stdout.contains("nan") && !json.stdout.contains("inf,"), "\(json.stdout)")
    }
  }

  /// An events row with more fields than its header is bad data at its line, as in trace CSVs;
  /// a trailing empty field is not.
  @Test func anEventsRowWithMoreFieldsThanItsHeaderIsBadData() throws {
    let dir = Paths.temporaryDirectory()
    writeFile(
      dir + "/000.csv",
      String(decoding: readFile(Paths.packageRoot + "/datasets/test/000.csv")!, as: UTF8.self))
    writeFile(dir + "/000.events.csv", "start,end,label\n1.0,2.0,shake\n3.0,4.0,shake,surprise\n")
    writeFile(dir + "/manifest.csv", "trace,events\n000.csv,000.events.csv\n")
    let r = try accelkit(["evaluate", dir, "--rule", "seismic", "-o", dir + "/report"])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr.contains("000.events.csv:3:4: the row has 4 fields, the header 3"), "\(r.stderr)")
    writeFile(dir + "/000.events.csv", "start,end,label\n1.0,2.0,shake,\r\n")
    #expect(try accelkit(["evaluate", dir, "--rule", "seismic", "-o", dir + "/report"]).status == 0)
  }

  /// Nanoseconds since boot read as seconds (a rate of 1e-7 Hz): every command warns the same
  /// way, once.
  @Test func nanosecondsSinceBootAreWarnedAboutByEveryCommand() throws {
    let dir = Paths.temporaryDirectory()
    let path = dir + "/boot.csv"
    writeFile(
      path, "t,x,y,z\n" + (0..<300).map { "\(120_000_000_000_000 + $0 * 10_000_000),0.01,0.02,-1\n" }.joined()
    )
    let warning =
      "boot.csv: its timestamps give a sample rate of 1e-07 Hz; if they are in ns, give --time-unit ns (100 Hz)"
    for command in [
      ["convert", "-o", dir + "/c.csv"], ["trim", "--from", "1.2e14", "-o", dir + "/t.csv"],
      ["windows", "-o", dir + "/w.csv"], ["filter", "lowpass", "-o", dir + "/f.csv"],
      ["detect-shakes", "--rule", "swing"],
      ["simulate", "slide", "-o", dir + "/s.csv"], ["orientation", "-o", dir + "/o.csv"],
    ] {
      let r = try accelkit(command + [path])
      #expect(r.stderr.components(separatedBy: warning).count == 2, "\(command): \(r.stderr)")
    }
  }
}

/// What a user notices in reports and help.
@Suite struct ReportDetailsCLITests {
  /// A trace without annotations has no error rate (sed_eval divides by its eps and reads
  /// 4.5e15 per false alarm): empty in the CSV, null in the JSON.
  @Test func errorRatesWithoutAnnotationsAreUndefined() throws {
    let dir = Paths.temporaryDirectory()
    writeFile(
      dir + "/000.csv",
      String(decoding: readFile(Paths.packageRoot + "/datasets/test/000.csv")!, as: UTF8.self))
    writeFile(dir + "/000.events.csv", "start,end,label\n")
    writeFile(dir + "/manifest.csv", "trace,events\n000.csv,000.events.csv\n")
    let r = try accelkit([
      "evaluate", dir, "--rule", "seismic", "-o", dir + "/out", "--json", dir + "/r.json", "--format", "csv",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let rows = String(decoding: readFile(dir + "/out/per-trace.csv")!, as: UTF8.self).split(separator: "\n")
    let header = rows[0].split(separator: ",", omittingEmptySubsequences: false)
    let values = rows[1].split(separator: ",", omittingEmptySubsequences: false)
    #expect(Int(values[header.firstIndex(of: "fp")!])! > 0)
    for column in ["event_onset_error_rate", "event_onset_offset_error_rate", "segment_error_rate"] {
      #expect(values[header.firstIndex(of: Substring(column))!] == "", "\(column)")
    }
    let json = String(decoding: readFile(dir + "/r.json")!, as: UTF8.self)
    #expect(
      !json.contains("4503599627") && json.contains("\"event_onset_error_rate\": null"), "\(json.prefix(400))"
    )
  }

  /// Reports say which build made them, as --version does.
  @Test func reportsCarryTheFullVersion() throws {
    let version = try accelkit(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(version.contains(" (commit "))
    let dir = Paths.temporaryDirectory()
    let r = try accelkit([
      "evaluate", Paths.packageRoot + "/datasets/test", "--rule", "seismic", "-o", dir, "--json",
      dir + "/r.json",
      "--format", "csv",
    ])
    #expect(r.status == 0)
    let json = String(decoding: readFile(dir + "/r.json")!, as: UTF8.self)
    #expect(json.contains("\"version\": \"\(version)\""), "\(json.prefix(300))")
    let html = String(decoding: readFile(dir + "/index.html")!, as: UTF8.self)
    #expect(html.contains("accelkit \(version)"))
  }

  @Test func detectShakesHelpNamesEveryRule() throws {
    let help = try accelkit(["detect-shakes", "--help"]).stdout
    for rule in Detectors.names {
      #expect(help.contains(rule), "\(rule)")
    }
    #expect(!help.contains("with the three-peak, angular-change or seismic rule"))
  }
}
