import AccelCore
import AccelPlot

/// What produced an evaluation, for machine-readable results.
public struct RunDescription: Sendable {
  public var version: String
  public var command: [String]
  public var dataset: String
  public var tolerance: Double
  public var label: String?

  public init(version: String, command: [String], dataset: String, tolerance: Double, label: String?) {
    self.version = version
    self.command = command
    self.dataset = dataset
    self.tolerance = tolerance
    self.label = label
  }
}

extension EvaluationReport {
  /// Everything about the run as one JSON object: what ran it, each setting's parameters and
  /// metrics (full precision), every gate with its measured value and verdict, and whether the run
  /// passed. Deterministic: no clock time.
  public func resultsJSON(run: RunDescription, outcomes: [GateOutcome], regressions: [String]) -> String {
    func number(_ v: Double?) -> String { v.map { $0.isFinite ? formatNumber($0) : "null" } ?? "null" }
    var text = "{\n"
    text += "  \"tool\": \"accelkit\",\n  \"version\": \(jsonString(run.version)),\n"
    text += "  \"command\": [" + run.command.map(jsonString).joined(separator: ", ") + "],\n"
    text += "  \"dataset\": \(jsonString(run.dataset)),\n  \"traces\": \(traces.count),\n"
    text += "  \"dataset_sha256\": \(fingerprint.map { jsonString($0.hash) } ?? "null"),\n"
    text += "  \"duration_s\": \(number(summary.first?.duration)),\n"
    text +=
      "  \"tolerance_s\": \(number(run.tolerance)),\n  \"label\": \(run.label.map(jsonString) ?? "null"),\n"
    text += "  \"settings\": [\n"
    text += settings.enumerated().map { i, s in
      let m = summary[i]
      let parameters = s.assignments.map { "\(jsonString($0.name)): \(number($0.value))" }.joined(
        separator: ", ")
      var metrics = ["\"tp\": \(m.tp)", "\"fp\": \(m.fp)", "\"fn\": \(m.fn)"]
      for name in Self.metricColumns where !["tp", "fp", "fn"].contains(name) {
        metrics.append("\(jsonString(name)): \(number(Self.value(name, m)))")
      }
      return "    {\"rule\": \(jsonString(s.rule)), \"parameters\": {\(parameters)}, \"metrics\": {"
        + metrics.joined(separator: ", ") + "}}"
    }.joined(separator: ",\n")
    text += "\n  ],\n  \"gates\": [\n"
    text += outcomes.map { o in
      "    {\"rule\": \(jsonString(settings[o.setting].rule)), \"params\": \(jsonString(settings[o.setting].parameterText)), "
        + "\"metric\": \(jsonString(o.gate.metric)), \"kind\": \"\(o.gate.kind == .under ? "fail-under" : "fail-over")\", "
        + "\"limit\": \(number(o.gate.limit)), \"value\": \(number(o.value)), \"passed\": \(o.passed)}"
    }.joined(separator: ",\n")
    text += "\n  ],\n  \"regressions\": [" + regressions.map(jsonString).joined(separator: ", ") + "],\n"
    text += "  \"passed\": \(outcomes.allSatisfy(\.passed) && regressions.isEmpty)\n}\n"
    return text
  }

  /// JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters): one test suite
  /// for the run, one test case per gate of each setting (failures carry the measured value) and
  /// per regression against the baseline, or one per setting when there are no gates. No times:
  /// the file is the same on every run.
  public func junitXML(run: RunDescription, outcomes: [GateOutcome], regressions: [String]) -> String {
    var cases: [String] = []
    func testcase(_ classname: String, _ name: String, failure: String?) -> String {
      var text = "    <testcase classname=\"\(escapeXML(classname))\" name=\"\(escapeXML(name))\" time=\"0\""
      guard let failure else { return text + "/>" }
      text +=
        ">\n      <failure message=\"\(escapeXML(failure))\" type=\"gate\">\(escapeXML(failure))</failure>\n    </testcase>"
      return text
    }
    if outcomes.isEmpty {
      for (i, s) in settings.enumerated() {
        let m = summary[i]
        cases.append(
          testcase(
            "accelkit.evaluate.\(s.rule)",
            "\(s.description): f1 \(cFormat("%.4g", m.f1)), false alarms/h \(cFormat("%.4g", m.falseAlarmsPerHour))",
            failure: nil))
      }
    }
    for o in outcomes {
      let s = settings[o.setting]
      cases.append(
        testcase(
          "accelkit.evaluate.\(s.rule)", "\(s.description): \(o.gate.condition)",
          failure: o.passed ? nil : o.message(self)))
    }
    for r in regressions { cases.append(testcase("accelkit.evaluate.baseline", "no regression", failure: r)) }
    let failures = outcomes.filter { !$0.passed }.count + regressions.count
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    text +=
      "<testsuites name=\"accelkit evaluate\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" time=\"0\">\n"
    text +=
      "  <testsuite name=\"\(escapeXML(run.dataset))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\" time=\"0\">\n"
    text += "    <properties>\n"
    text += "      <property name=\"accelkit.version\" value=\"\(escapeXML(run.version))\"/>\n"
    text += "      <property name=\"command\" value=\"\(escapeXML(run.command.joined(separator: " ")))\"/>\n"
    text += "      <property name=\"traces\" value=\"\(traces.count)\"/>\n"
    if let fingerprint { text += "      <property name=\"dataset.sha256\" value=\"\(fingerprint.hash)\"/>\n" }
    text += "    </properties>\n"
    text += cases.joined(separator: "\n") + "\n  </testsuite>\n</testsuites>\n"
    return text
  }
}

extension EvaluationReport {
  /// GitHub Actions workflow commands: an `::error` annotation per failed gate and counted
  /// regression (data escaped as the runner expects: %, CR and LF).
  public func githubAnnotations(outcomes: [GateOutcome], regressions: [String]) -> [String] {
    func escape(_ s: String) -> String {
      s.replacingAll("%", with: "%25").replacingAll("\r", with: "%0D").replacingAll("\n", with: "%0A")
    }
    return outcomes.filter { !$0.passed }.map {
      "::error title=accelkit gate failed::\(escape($0.message(self)))"
    }
      + regressions.map { "::error title=accelkit regression::\(escape($0))" }
  }

  /// A Markdown summary for `$GITHUB_STEP_SUMMARY`: the settings ranked, metrics to `precision`
  /// significant digits, and each gate's verdict.
  public func stepSummaryMarkdown(run: RunDescription, outcomes: [GateOutcome], regressions: [String])
    -> String
  {
    func f(_ v: Double?) -> String { formatSignificant(v, digits: precision) }
    let passed = outcomes.allSatisfy(\.passed) && regressions.isEmpty
    var text = "### accelkit evaluate: \(passed ? "passed" : "failed")\n\n"
    let minutes = (summary.first?.duration ?? 0) / 60
    let span = minutes < 120 ? "\(cFormat("%.1f", minutes)) min" : "\(cFormat("%.2f", minutes / 60)) h"
    text += "`\(run.dataset)`: \(traces.count) traces, \(span), accelkit \(run.version)\n\n"
    text +=
      "| rank | rule | params | precision | recall | F1 | false alarms/h |\n| ---: | --- | --- | ---: | ---: | ---: | ---: |\n"
    for (rank, i) in ranking().enumerated() {
      let m = summary[i]
      let params = settings[i].parameterText.isEmpty ? "defaults" : settings[i].parameterText
      text +=
        "| \(rank + 1) | \(settings[i].rule) | \(params) | \(f(m.precision)) | \(f(m.definedRecall)) | \(f(m.f1)) | \(f(m.falseAlarmsPerHour)) |\n"
    }
    if !outcomes.isEmpty || !regressions.isEmpty {
      text += "\n| gate | setting | value | |\n| --- | --- | ---: | --- |\n"
      for o in outcomes {
        text +=
          "| \(o.gate.condition) | \(settings[o.setting]) | \(f(o.value)) | \(o.passed ? "pass" : "**fail**") |\n"
      }
      for r in regressions { text += "| no regression | \(r) | | **fail** |\n" }
    }
    return text + "\n"
  }
}

extension String {
  /// Every occurrence of `target` replaced (no Foundation here).
  func replacingAll(_ target: String, with replacement: String) -> String {
    var out = ""
    var rest = self[...]
    while let range = rest.firstRange(of: target) {
      out += rest[..<range.lowerBound] + replacement
      rest = rest[range.upperBound...]
    }
    return out + rest
  }
}
