import AccelCore
import Foundation
import TestSupport
import Testing

/// What a new user trips over on a clone of the repository on its own, with recordings of their
/// own: each case failed before it was fixed.
@Suite struct NewUserCLITests {
  static let test = Paths.packageRoot + "/datasets/test"

  static func text(_ path: String) -> String { String(decoding: readFile(path) ?? [], as: UTF8.self) }

  /// A small dataset of the first `count` traces of the test set (copied, so paths stay inside).
  static func smallDataset(_ count: Int, extra: String = "") throws -> String {
    let dir = Paths.temporaryDirectory()
    let lines = text(test + "/manifest.csv").split(separator: "\n").map(String.init)
    var manifest = lines[0] + "\n"
    for line in lines.dropFirst().prefix(count) {
      manifest += line + "\n"
      for file in line.split(separator: ",").prefix(2) {
        try FileManager.default.copyItem(atPath: test + "/" + file, toPath: dir + "/" + file)
      }
    }
    writeFile(dir + "/manifest.csv", manifest + extra)
    return dir
  }

  /// Nothing the repository holds reads a folder beside it: every recording a test, an example
  /// or a bundled dataset reads is bundled (datasets/real), so a clone on its own is whole.
  @Test func nothingReadsBesideTheRepository() throws {
    let beside = "../" + "shared"
    var offenders: [String] = []
    let root = Paths.packageRoot
    for folder in ["Sources", "Tests", "scripts", "datasets", "docs", "benchmarks", "Examples", "Plugins", ".ci"] {
      guard let walker = FileManager.default.enumerator(atPath: root + "/" + folder) else { continue }
      while let name = walker.nextObject() as? String {
        let path = root + "/" + folder + "/" + name
        guard [".swift", ".py", ".sh", ".md", ".csv", ".c", ".h", "run", "deps", "install", "fuzz"].contains(where: { name.hasSuffix($0) }),
          let bytes = readFile(path), bytes.count < 4_000_000
        else { continue }
        if String(decoding: bytes, as: UTF8.self).contains(beside) { offenders.append(folder + "/" + name) }
      }
    }
    if Self.text(root + "/README.md").contains(beside) { offenders.append("README.md") }
    #expect(offenders.isEmpty, "\(offenders)")
    // The real negatives evaluate from the bundled recordings.
    let r = try accelkit([
      "evaluate", root + "/datasets/real-negatives", "--allow-outside-paths", "--rule", "seismic", "--format", "csv",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.split(separator: "\n").count == 2, "\(r.stdout)")
    // The real positives too: ST's shaken package is one shake over its 42 s at 30 Hz, which
    // swing covers whole.
    let p = try accelkit([
      "evaluate", root + "/datasets/real-positives", "--allow-outside-paths", "--rule", "swing", "--format", "csv",
    ])
    #expect(p.status == 0, "\(p.stderr)")
    let rows = p.stdout.split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let column = { (name: String) in rows[0].firstIndex(of: name).map { rows[1][$0] } }
    #expect(column("tp") == "1" && column("fn") == "0", "\(p.stdout)")
    #expect(column("duration_s").flatMap(Double.init).map { abs($0 - 42.1) < 0.05 } == true, "\(p.stdout)")
    #expect(column("segment_recall").flatMap(Double.init).map { $0 > 0.95 } == true, "\(p.stdout)")
  }

  /// Units: every command that reads a trace warns once, in the same words, when the magnitude
  /// at rest says the units are wrong (mg read as g, g read as mg); a right unit gives no warning.
  @Test func wrongUnitsAreWarnedByEveryCommand() throws {
    let dir = Paths.temporaryDirectory()
    var mg = "t,x,y,z\n"
    var g = "t,x,y,z\n"
    for i in 0..<1000 {
      let t = Double(i) / 100
      let s = t > 3 && t < 5 ? 2.5 * sin(2 * .pi * 5 * t) : 0
      mg += "\(formatNumber(t)),\(formatNumber((s * 1000).rounded())),0,-1000\n"
      g += "\(formatNumber(t)),\(formatNumber(s)),0,-1\n"
    }
    writeFile(dir + "/mg.csv", mg)
    writeFile(dir + "/g.csv", g)
    writeFile(dir + "/events.csv", "start,end,label\n3,5,shake\n")
    let words = "mg.csv: |a| at rest reads 1000 g: the units look like mg, not g (pass --units mg)"
    for command in [
      ["detect-shakes", dir + "/mg.csv"], ["info", dir + "/mg.csv"], ["filter", "gravity", dir + "/mg.csv", "-o", "-"],
      ["convert", dir + "/mg.csv", "-o", "-"],
      ["evaluate", dir + "/mg.csv", "--labels", dir + "/events.csv", "--rule", "swing"],
    ] {
      let r = try accelkit(command)
      // info reports it among its warnings on stdout; every other command on stderr.
      let said = command[0] == "info" ? r.stdout : r.stderr
      // (info names the file in its own column.)
      #expect(said.contains(command[0] == "info" ? String(words.dropFirst("mg.csv: ".count)) : words), "\(command[0]): \(said)")
      #expect(said.components(separatedBy: "units look like").count == 2, "once: \(said)")
    }
    let asMg = try accelkit(["detect-shakes", "--units", "mg", dir + "/g.csv"])
    #expect(asMg.stderr.contains("|a| at rest reads 1 mg: the units look like g, not mg (pass --units g)"), "\(asMg.stderr)")
    let right = try accelkit(["detect-shakes", dir + "/g.csv"])
    #expect(!right.stderr.contains("units look like"), "\(right.stderr)")
    let converted = try accelkit(["detect-shakes", "--units", "mg", dir + "/mg.csv"])
    #expect(converted.stderr.isEmpty, "\(converted.stderr)")
    // A recording that begins in vigorous shaking (its median |a| above 2 g) is in motion, not in
    // other units: nothing is said; the same magnitude held still is still questioned.
    var shaking = "t,x,y,z\n"
    var still = "t,x,y,z\n"
    for i in 0..<1000 {
      let t = Double(i) / 100
      shaking += "\(formatNumber(t)),\(formatNumber(4 * sin(2 * .pi * 4 * t))),0,-1\n"
      still += "\(formatNumber(t)),2.5,0,-1\n"
    }
    writeFile(dir + "/shaking.csv", shaking)
    writeFile(dir + "/still.csv", still)
    let shaken = try accelkit(["detect-shakes", dir + "/shaking.csv", "--rule", "swing"])
    #expect(shaken.status == 0 && !shaken.stderr.contains("|a| at rest"), "\(shaken.stderr)")
    let held = try accelkit(["detect-shakes", dir + "/still.csv", "--rule", "swing"])
    #expect(held.stderr.contains("|a| at rest reads 2.693 g, far from 1 g"), "\(held.stderr)")
  }

  /// --param: with one detector chosen, NAME=VALUE works in evaluate as in detect-shakes, and
  /// RULE.NAME=VALUE too; with several, NAME=VALUE is refused with what to do.
  @Test func paramTakesTheSameFormsEverywhere() throws {
    let dataset = try Self.smallDataset(4)
    let short = try accelkit(["evaluate", dataset, "--rule", "swing", "--param", "swing_g=1.2", "--format", "csv"])
    let long = try accelkit(["evaluate", dataset, "--rule", "swing", "--param", "swing.swing_g=1.2", "--format", "csv"])
    #expect(short.status == 0, "\(short.stderr)")
    #expect(short.stdout == long.stdout && short.stdout.contains("swing_g=1.2"), "\(short.stdout)")
    let sweep = try accelkit(["evaluate", dataset, "--rule", "swing", "--sweep", "swing_g=1.2:1.4:0.2", "--format", "csv"])
    #expect(sweep.status == 0 && sweep.stdout.split(separator: "\n").count == 3, "\(sweep.stderr)")
    let several = try accelkit(["evaluate", dataset, "--rule", "swing", "--rule", "seismic", "--param", "swing_g=1.2"])
    #expect(several.status == 64 && several.stderr.contains("--param expects RULE.NAME=VALUE"), "\(several.stderr)")
    #expect(several.stderr.contains("several detectors run"), "\(several.stderr)")
    let detect = try accelkit(["detect-shakes", "--rule", "swing", "--param", "swing.swing_g=1.2", Self.test + "/000.csv"])
    #expect(detect.status == 0, "\(detect.stderr)")
  }

  /// A detector of the baseline that the run lacks is a regression (unless --allow-missing); the
  /// baseline may be given as the folder evaluate wrote; regressions show 4 significant digits.
  @Test func aMissingDetectorIsARegression() throws {
    let dataset = try Self.smallDataset(4)
    let out = Paths.temporaryDirectory()
    let base = try accelkit(["evaluate", dataset, "--rule", "swing", "--rule", "seismic", "-o", out + "/base", "--quiet"])
    #expect(base.status == 0, "\(base.stderr)")
    let one = try accelkit([
      "evaluate", dataset, "--rule", "swing", "--baseline", out + "/base", "--fail-on-regression", "--quiet",
    ])
    #expect(one.status == 1, "\(one.stderr)")
    #expect(one.stderr.contains("seismic: in the baseline but not evaluated"), "\(one.stderr)")
    let allowed = try accelkit([
      "evaluate", dataset, "--rule", "swing", "--baseline", out + "/base/", "--fail-on-regression", "--allow-missing",
      "--quiet",
    ])
    #expect(allowed.status == 0, "\(allowed.stderr)")
    #expect(allowed.stderr.contains("Gates passed: no regression"), "\(allowed.stderr)")
    // A worse setting: the regression's numbers to 4 significant digits.
    let worse = try accelkit([
      "evaluate", dataset, "--rule", "swing", "--rule", "seismic", "--param", "seismic.sensitivity=0.2", "--baseline",
      out + "/base/summary.csv", "--fail-on-regression", "--quiet",
    ])
    for line in worse.stderr.split(separator: "\n") where line.contains(" from ") && line.contains(" to ") {
      let numbers = line.split(whereSeparator: { " ,;".contains($0) }).compactMap { Double($0) }
      for n in numbers { #expect(formatSignificant(n, digits: 4) == formatNumber(n) || n.rounded() == n, "\(line)") }
    }
  }

  /// Paths in messages are never cut, and the hint about relative paths is given only for them.
  @Test func pathsInMessagesAreWhole() throws {
    let dir = Paths.temporaryDirectory()
    let relative = "recordings/participant_0042/session_3/unit_left_wrist_accelerometer.csv"
    writeFile(dir + "/manifest.csv", "trace,events\n\(relative),e.csv\n")
    let r = try accelkit(["evaluate", dir])
    #expect(r.status == 65, "\(r.stderr)")
    #expect(r.stderr.contains("\"\(relative)\", which does not exist"), "\(r.stderr)")
    #expect(r.stderr.contains("paths in a manifest are relative to its folder"), "\(r.stderr)")
    let absolute = "/nonexistent/participant_0042/session_3/unit_left_wrist_accelerometer.csv"
    writeFile(dir + "/manifest.csv", "trace,events\n\(absolute),e.csv\n")
    let a = try accelkit(["evaluate", dir, "--allow-outside-paths"])
    #expect(a.status == 65 && a.stderr.contains("\"\(absolute)\", which does not exist"), "\(a.stderr)")
    #expect(!a.stderr.contains("relative to its folder"), "\(a.stderr)")
    // A folder without a manifest: what a manifest is, and --labels for one trace.
    let empty = Paths.temporaryDirectory()
    let m = try accelkit(["evaluate", empty])
    #expect(m.status == 66 && m.stderr.contains("manifest.csv") && m.stderr.contains("--labels"), "\(m.stderr)")
  }

  /// Recall over no annotations (0 of 0) is undefined: empty in CSV, null in JSON, "-" in the
  /// table.
  @Test func recallOfNothingIsUndefined() throws {
    let root = Paths.packageRoot + "/datasets/real-negatives"
    let out = Paths.temporaryDirectory()
    let r = try accelkit([
      "evaluate", root, "--allow-outside-paths", "--rule", "seismic", "-o", out, "--json", out + "/r.json",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let rows = Self.text(out + "/summary.csv").split(separator: "\n").map {
      $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    let recall = try #require(rows[0].firstIndex(of: "recall"))
    #expect(rows[1][recall] == "", "\(rows[1])")
    #expect(Self.text(out + "/r.json").contains("\"recall\": null"))
    let table = r.stdout.split(separator: "\n")
    let header = table[0].split(separator: " ", omittingEmptySubsequences: true)
    let row = table[1].split(separator: " ", omittingEmptySubsequences: true)
    let column = try #require(header.firstIndex(of: "recall"))
    #expect(row[column] == "-", "\(r.stdout)")
  }

  /// The table is what stdout gets, in a pipe too (csv on request): ranked, F1 with its
  /// interval, no per-group tables for a single group.
  @Test func theTableIsTheDefaultOutput() throws {
    let dataset = try Self.smallDataset(6)
    let r = try accelkit(["evaluate", dataset, "--rule", "swing", "--rule", "seismic"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines[0].hasPrefix("rank") && lines[0].contains("f1 [95%]"), "\(r.stdout)")
    #expect(lines[1].hasPrefix("1 ") && lines[2].hasPrefix("2 "), "\(r.stdout)")
    #expect(!r.stdout.contains("per source"), "\(r.stdout)")
    let csv = try accelkit(["evaluate", dataset, "--rule", "swing", "--format", "csv"])
    #expect(csv.stdout.hasPrefix("rule,params,tp,"), "\(csv.stdout)")
    let gated = try accelkit(["evaluate", dataset, "--rule", "swing", "--fail-under", "f1=0.01"])
    #expect(gated.status == 0 && gated.stderr.contains("Gates passed: 1 gate"), "\(gated.stderr)")
  }

  /// An event that starts or ends on a sample prints that sample's time as read: angular-change
  /// cancels a shake that lasts too long at a sample, not at start + max_s.
  @Test func eventTimesAreSampleTimes() throws {
    let dir = Paths.temporaryDirectory()
    var text = "t,x,y,z\n"
    var stamps = Set<Double>()
    for i in 0..<3000 {
      let t = 10.02 + Double(i) * 0.02
      let stamp = cFormat("%.2f", t)
      stamps.insert(Double(stamp)!)
      let shaking = t > 14 && t < 60
      let x = shaking ? 2.5 * sin(Double(i) * 1.3) : 0
      text += "\(stamp),\(formatNumber(x)),\(formatNumber(shaking ? 1.5 * cos(Double(i) * 0.7) : 0)),-1\n"
    }
    writeFile(dir + "/t.csv", text)
    let r = try accelkit(["detect-shakes", "--rule", "angular-change", dir + "/t.csv"])
    #expect(r.status == 0, "\(r.stderr)")
    let events = r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
    #expect(events.contains { $0.last == "cancelled" }, "\(r.stdout)")
    for e in events {
      #expect([e[0], e[1], e[4]].allSatisfy { Double($0).map(stamps.contains) == true }, "\(e)")
    }
  }

  /// export: with no --rule, the default; it says what it wrote; --convention specific-force
  /// negates the readings on the way in.
  @Test func exportDefaultsAndConvention() throws {
    let dir = Paths.temporaryDirectory()
    let plain = try accelkit(["export", "-o", dir + "/default"])
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(plain.stderr.contains("wrote \(dir)/default/accelkit_detector.h: learned-shake"), "\(plain.stderr)")
    let header = Self.text(dir + "/default/accelkit_detector.h")
    #expect(header.contains("Rule:       learned-shake") && !header.contains("x = -x;"))
    let rate = try accelkit(["export", "--rule", "seismic", "-o", dir + "/s"])
    #expect(rate.status == 64 && rate.stderr.contains("accelkit info reports it"), "\(rate.stderr)")
    // The same events from a specific-force copy through the specific-force export.
    let cc = try ExportCLITests.compiler("cc")
    let trace = Self.test + "/000.csv"
    let script = """
      set -e
      ACCELKIT export --rule three-peak --convention specific-force -o '\(dir)/sf'
      '\(cc)' -std=c99 -O2 -I '\(dir)/sf' '\(ExportCLITests.replay)' -o '\(dir)/sf/replay' -lm
      ACCELKIT convert '\(trace)' --channels acc -o - | awk -F, 'NR == 1 { print; next } { printf "%s,%.17g,%.17g,%.17g\\n", $1, -$2, -$3, -$4 }' > '\(dir)/sf.csv'
      '\(dir)/sf/replay' < '\(dir)/sf.csv' > '\(dir)/c.csv'
      ACCELKIT detect-shakes --rule three-peak '\(trace)' > '\(dir)/swift.csv'
      """
    let run = try accelkit([], shell: script)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(Self.text(dir + "/sf/accelkit_detector.h").contains("x = -x;"))
    let swift = Self.text(dir + "/swift.csv")
    #expect(swift.split(separator: "\n").count > 1 && Self.text(dir + "/c.csv") == swift)
  }

  /// train: a label no window carries lists the labels found; F1 comes with its interval; when
  /// no decoding meets the false-alarm bound, the summary says why and what would help.
  @Test func trainSaysWhatWentWrong() throws {
    let dataset = try Self.smallDataset(8)
    let out = Paths.temporaryDirectory()
    let typo = try accelkit(["train", dataset, "--label", "shak", "-o", out + "/typo"])
    #expect(typo.status == 64 && typo.stderr.contains("the events files' labels: "), "\(typo.stderr)")
    #expect(typo.stderr.contains("\"shake\""), "\(typo.stderr)")
    let r = try accelkit([
      "train", dataset, "--label", "shake", "--folds", "2", "--rounds", "10", "--subject-to", "recall>=0.999",
      "-o", out + "/m", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("held out: f1 ") && r.stdout.contains("] (precision"), "\(r.stdout)")
    #expect(r.stdout.contains("note: no decoding meets recall >= 0.999"), "\(r.stdout)")
    #expect(r.stdout.contains("so one false alarm is"), "\(r.stdout)")
  }

  /// Completions offer --param names and gate metrics; scripts/install --help prints its usage
  /// only; detect-shakes on a terminal says it reads stdin.
  @Test func completionsAndSmallPrints() throws {
    let bash = try accelkit(["--generate-completion-script", "bash"])
    #expect(bash.stdout.contains("swing.swing_g=") && bash.stdout.contains("false_alarms_per_hour="))
    let install = try accelkit([], shell: "'\(Paths.packageRoot)/scripts/install' --help")
    #expect(install.status == 0 && install.stdout.hasPrefix("Builds accelkit") && !install.stdout.contains("set -e"))
    let script = try #require(Tools.path("script"), Comment(rawValue: Tools.missing("script", package: "bsdutils")))
    // On a terminal (script gives it one) it waits for input, so it is stopped after 2 s.
    let tty = try accelkit([], shell: "'\(script)' -qec 'timeout 2 ACCELKIT detect-shakes' /dev/null < /dev/null")
    #expect(tty.stdout.contains("reading a trace from stdin"), "\(tty.stdout) \(tty.stderr)")
  }

  /// Every help page's examples fit 80 columns: none is wrapped in the middle of a command (a
  /// long one continues with a backslash).
  @Test func helpExamplesAreNeverWrapped() throws {
    for page in try HelpExampleTests.pages() {
      let help = try accelkit([], shell: "COLUMNS=80 ACCELKIT \(page.command.dropFirst("accelkit".count)) --help")
      var inExamples = false
      var continuing = false
      for line in help.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("Examples:") || line.hasSuffix("Examples:") {
          inExamples = true
          continue
        }
        guard inExamples else { continue }
        if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
        let text = line.trimmingCharacters(in: .whitespaces)
        let starts = text.hasPrefix("accelkit ") || text.hasPrefix("parallel ") || text.hasPrefix("#")
        #expect(starts || continuing, "\(page.command): a wrapped example line: \(line)")
        #expect(line.count <= 80, "\(page.command): \(line)")
        continuing = text.hasSuffix("\\")
      }
    }
  }
}
