import AccelEvaluation
import Foundation
import TestSupport
import Testing

/// The standard metrics against the sed_eval package (Tests/Fixtures/sed_eval/references.json,
/// made by scripts/make_sed_eval_references.py): hand-made edge cases, seeded random cases, and
/// every rule's detections on datasets/test.
@Suite struct SedEvalReferenceTests {
  struct Case {
    var name: String
    var criteria: StandardCriteria
    var traces: [[String: Any]]
    var overall: [String: Any]
  }

  static func cases() throws -> [Case] {
    let data = try Data(contentsOf: URL(fileURLWithPath: Paths.fixture("sed_eval/references.json")))
    let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let cases = try #require(document["cases"] as? [[String: Any]])
    return try cases.map { c in
      let k = try #require(c["criteria"] as? [String: Double])
      return Case(
        name: try #require(c["name"] as? String),
        criteria: StandardCriteria(
          collar: k["collar"]!, offsetFraction: k["offset_fraction"]!, segment: k["segment"]!),
        traces: try #require(c["traces"] as? [[String: Any]]),
        overall: try #require(c["overall"] as? [String: Any]))
    }
  }

  static func intervals(_ value: Any?) -> [LabeledInterval] {
    ((value as? [[Double]]) ?? []).map { LabeledInterval(start: $0[0], end: $0[1], label: "shake") }
  }

  /// Equal to 1e-12 (relative for sed_eval's enormous error rates without annotations); both
  /// undefined counts as equal.
  static func agree(_ ours: Double?, _ theirs: Any?) -> Bool {
    let reference = theirs as? Double
    guard let ours, let reference else { return ours == nil && reference == nil }
    return abs(ours - reference) <= 1e-12 * max(1, abs(reference))
  }

  static func sedEvalErrorRate(_ name: String, _ m: Metrics) -> Double? {
    let counts: DetectionCounts? =
      switch name {
      case "event_onset_error_rate": m.standard.onset
      case "event_onset_offset_error_rate": m.standard.onsetOffset
      case "segment_error_rate": m.standard.segments
      default: nil
      }
    guard let counts else { return nil }
    #expect(counts.nref == 0 && counts.definedErrorRate == nil)
    return counts.errorRate
  }

  @Test func everyCaseAgreesPerTraceOverallAndMacro() throws {
    let cases = try Self.cases()
    #expect(cases.count >= 160)
    #expect(cases.contains { $0.name == "datasets/test swing" })
    var compared = 0
    for c in cases {
      var total = Metrics()
      for trace in c.traces {
        let start = trace["start"] as! Double
        let duration = trace["duration"] as! Double
        let (m, _, _, _) = Metrics.evaluate(
          detections: Self.intervals(trace["detections"]), annotations: Self.intervals(trace["truth"]),
          label: "shake", tolerance: 0.25, includeCancelled: true, duration: duration, start: start,
          criteria: c.criteria)
        let reference = trace["sed_eval"] as! [String: Any]
        for name in EvaluationReport.standardColumns where !name.hasSuffix("_macro") {
          // Reports leave the error rate of a trace without annotations undefined; the library
          // keeps sed_eval's value (its division by eps) for this comparison.
          let ours = EvaluationReport.value(name, m) ?? Self.sedEvalErrorRate(name, m)
          #expect(
            Self.agree(ours, reference[name]),
            "\(c.name): \(name) per trace \(String(describing: ours)) vs \(String(describing: reference[name]))"
          )
          compared += 1
        }
        total = total + m
      }
      for name in EvaluationReport.standardColumns {
        let ours = EvaluationReport.value(name, total) ?? Self.sedEvalErrorRate(name, total)
        #expect(
          Self.agree(ours, c.overall[name]),
          "\(c.name): \(name) \(String(describing: ours)) vs \(String(describing: c.overall[name]))")
        compared += 1
      }
    }
    #expect(compared > 5000)
  }

  @Test func theMaximumMatchingIsNotGreedy() {
    // Annotation 0 could take either detection; greedy in time order takes the nearer one and
    // leaves annotation 1 with nothing. The maximum matching pairs both.
    let pairs = EventMatching.maximumMatching(left: 2, right: 2) { a, d in a == 0 || d == 1 }
    #expect(pairs.compactMap { $0 }.count == 2)
  }
}
