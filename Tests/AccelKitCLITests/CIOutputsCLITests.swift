import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// evaluate's machine-readable results: JUnit XML as CI test reporters read it (testsuites >
/// testsuite > testcase, a failure element with a message for each failed gate) and one JSON
/// document with everything; both the same bytes on every run, written with the report.
@Suite struct CIOutputsCLITests {
  /// The JUnit structure: element names in document order with their attributes.
  final class Collector: NSObject, XMLParserDelegate {
    var elements: [(String, [String: String])] = []
    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      elements.append((name, attributes))
    }
  }

  @Test func junitAndJSONCarryEveryGateAndItsValue() throws {
    let dir = Paths.temporaryDirectory()
    let dataset = Paths.packageRoot + "/datasets/test"
    let arguments = [
      "evaluate", dataset, "--fail-under", "f1=0.5", "--fail-over", "false_alarms_per_hour=100",
      "--junit", dir + "/junit.xml", "--json", dir + "/results.json", "-o", dir + "/report", "--format",
      "csv",
    ]
    let r = try accelkit(arguments)
    #expect(r.status == 1, "\(r.stderr)")
    let xml = try #require(FileManager.default.contents(atPath: dir + "/junit.xml"))
    let parser = XMLParser(data: xml)
    let collector = Collector()
    parser.delegate = collector
    #expect(parser.parse(), "not well-formed XML")
    let names = collector.elements.map(\.0)
    #expect(names.first == "testsuites" && names.dropFirst().first == "testsuite")
    let cases = collector.elements.filter { $0.0 == "testcase" }
    let failures = collector.elements.filter { $0.0 == "failure" }
    // Five settings (four rules and the learned model), two gates each; angular-change's false
    // alarms and seismic's F1 and false alarms fail.
    #expect(cases.count == 10 && cases.allSatisfy { $0.1["classname"] != nil && $0.1["name"] != nil })
    #expect(
      collector.elements[0].1["tests"] == "10" && collector.elements[0].1["failures"] == "\(failures.count)")
    #expect(failures.count == 3 && failures.allSatisfy { ($0.1["message"] ?? "").contains(" is ") })

    let json = try #require(FileManager.default.contents(atPath: dir + "/results.json"))
    let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    #expect(object["passed"] as? Bool == false && object["version"] as? String != nil)
    let gates = try #require(object["gates"] as? [[String: Any]])
    #expect(gates.count == 10 && gates.filter { $0["passed"] as? Bool == false }.count == 3)
    // Full precision: the JSON's F1 is the summary's, digit for digit.
    let settings = try #require(object["settings"] as? [[String: Any]])
    let summary = String(decoding: readFile(dir + "/report/summary.csv") ?? [], as: UTF8.self)
    for setting in settings {
      let rule = setting["rule"] as? String ?? ""
      let f1 = (setting["metrics"] as? [String: Any])?["f1"] as? Double
      let row = summary.split(separator: "\n").first { $0.hasPrefix(rule + ",") }?.split(
        separator: ",", omittingEmptySubsequences: false)
      #expect(row.flatMap { Double($0[7]) }.map { abs($0 - (f1 ?? -1)) < 1e-11 } == true, "\(rule)")
    }
    // The same bytes again (the files name the command line, so the same paths).
    let first = (readFile(dir + "/junit.xml"), readFile(dir + "/results.json"))
    #expect(try accelkit(arguments).status == 1)
    #expect(readFile(dir + "/junit.xml") == first.0, "junit.xml differs between runs")
    #expect(readFile(dir + "/results.json") == first.1, "results.json differs between runs")
  }

  /// Every kind of JUnit file accelkit writes (gates passing and failing, regressions, no gates, a
  /// dataset path with XML's special characters) validates against the schema CI parsers use
  /// (Tests/Fixtures/junit/junit.xsd, the structure of Jenkins' junit-10 schema) with xmllint.
  @Test func junitValidatesAgainstTheSchema() throws {
    try #require(Tools.path("xmllint") != nil, Comment(rawValue: Tools.missing("xmllint", package: "libxml2-utils")))
    let dir = Paths.temporaryDirectory()
    let dataset = makeDataset()
    let odd = dir + "/a&b <c> \"d\" 'e'"
    #expect(try accelkit(["evaluate", dataset, "-o", dir + "/base", "--format", "csv"]).status == 0)
    try FileManager.default.copyItem(atPath: dataset, toPath: odd)
    writeFile(odd + "/shake.events.csv", "start,end,label\n1,2.6,shake\n3,3.5,shake\n")
    let runs: [[String]] = [
      [
        "evaluate", dataset, "--fail-under", "f1=0.5,event_onset_f1=0.99", "--fail-over",
        "false_alarms_per_hour=100",
      ],
      ["evaluate", dataset],
      [
        "evaluate", odd, "--baseline", dir + "/base/summary.csv", "--fail-on-regression", "--fail-under",
        "recall=0.9",
      ],
      ["evaluate", odd, "--sweep", "three-peak.peak_g=1:2:0.5", "--fail-under", "segment_f1=0.1"],
    ]
    for (k, arguments) in runs.enumerated() {
      let junit = dir + "/junit-\(k).xml"
      let r = try accelkit(arguments + ["--junit", junit, "--format", "csv"])
      #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
      let schema = Paths.fixture("junit/junit.xsd")
      let v = try accelkit([], shell: "xmllint --noout --schema '\(schema)' '\(junit)' 2>&1")
      #expect(v.status == 0, "run \(k): \(v.stdout)")
    }
    // The schema is not a formality: a test case without a name fails it.
    let broken = String(decoding: readFile(dir + "/junit-0.xml")!, as: UTF8.self).replacingOccurrences(
      of: "<testcase classname=\"accelkit.evaluate.three-peak\" name=",
      with: "<testcase classname=\"x\" title=")
    writeFile(dir + "/broken.xml", broken)
    let v = try accelkit(
      [], shell: "xmllint --noout --schema '\(Paths.fixture("junit/junit.xsd"))' '\(dir)/broken.xml' 2>&1")
    #expect(v.status != 0 && v.stdout.contains("name"))
  }

  /// Under GitHub Actions: an error annotation per failed gate on stdout and a Markdown step
  /// summary appended to $GITHUB_STEP_SUMMARY; outside it (or with --github off), neither.
  @Test func githubActionsGetAnnotationsAndASummary() throws {
    let dir = Paths.temporaryDirectory()
    let dataset = Paths.packageRoot + "/datasets/test"
    writeFile(dir + "/summary.md", "earlier step\n")
    let r = try accelkit(
      [],
      shell:
        "GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=\(dir)/summary.md ACCELKIT evaluate \(dataset) --fail-under f1=0.5"
    )
    #expect(r.status == 1)
    let annotations = r.stdout.split(separator: "\n").filter {
      $0.hasPrefix("::error title=accelkit gate failed::")
    }
    #expect(annotations.count == 1 && annotations.allSatisfy { $0.contains(" is under 0.5") }, "\(r.stdout)")
    let summary = String(decoding: readFile(dir + "/summary.md") ?? [], as: UTF8.self)
    #expect(summary.hasPrefix("earlier step\n### accelkit evaluate: failed"), "\(summary)")
    #expect(summary.contains("| 1 | learned-shake |") && summary.components(separatedBy: "**fail**").count == 2)
    for environment in ["", "GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=\(dir)/other.md"] {
      let flag = environment.isEmpty ? "" : " --github off"
      let quiet = try accelkit(
        [], shell: "\(environment) ACCELKIT evaluate \(dataset) --fail-under f1=0.5\(flag)")
      #expect(quiet.status == 1 && !quiet.stdout.contains("::error"))
    }
    #expect(!fileExists(dir + "/other.md"))
  }

  /// Without gates, one passing test case per setting; a JUnit path that is an input is refused.
  @Test func withoutGatesEachSettingIsATestCase() throws {
    let dir = Paths.temporaryDirectory()
    let r = try accelkit([
      "evaluate", Paths.packageRoot + "/datasets/test", "--rule", "swing", "--junit", dir + "/j.xml",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let text = String(decoding: readFile(dir + "/j.xml") ?? [], as: UTF8.self)
    #expect(
      text.contains("tests=\"1\" failures=\"0\"") && text.contains("classname=\"accelkit.evaluate.swing\""))
    let clash = try accelkit([
      "evaluate", Paths.packageRoot + "/datasets/test", "--junit", dir + "/x.json", "--json", dir + "/x.json",
    ])
    #expect(clash.status == 64, "\(clash.stderr)")
  }
}

@Suite struct ReadmeWorkflowTests {
  /// The README's GitHub Actions workflow: its accelkit step, run as written from a checkout,
  /// passes its gates and leaves the JUnit, JSON and report it uploads.
  @Test func theWorkflowsAccelkitStepRuns() throws {
    let readme = String(decoding: readFile(Paths.packageRoot + "/README.md")!, as: UTF8.self)
    let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let start = try #require(lines.firstIndex { $0.contains(".build/release/accelkit evaluate") })
    var command: [String] = []
    for line in lines[start...] {
      guard !line.trimmingCharacters(in: .whitespaces).hasPrefix("- ") else { break }
      command.append(line.trimmingCharacters(in: .whitespaces))
    }
    let text = command.joined(separator: " ")
    #expect(text.contains("--junit") && text.contains("--fail-under"))
    let dir = Paths.temporaryDirectory()
    let shell =
      "cd '\(dir)' && ln -s '\(Paths.packageRoot)/datasets' datasets && "
      + text.replacingOccurrences(of: ".build/release/accelkit", with: "ACCELKIT")
    let r = try accelkit([], shell: shell)
    #expect(r.status == 0, "\(text): \(r.stderr)")
    for file in ["junit.xml", "results.json", "report/summary.csv", "report/index.html"] {
      #expect(fileExists(dir + "/results/" + file), "\(file)")
    }
  }
}
