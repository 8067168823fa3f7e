import AccelCore
import AccelGestures
import AccelIO

/// A rule with parameter values (the unset ones take their defaults).
public struct RuleSetting: Hashable, Sendable, CustomStringConvertible {
  public var rule: String
  public var parameters: [String: Double]

  public init(rule: String, parameters: [String: Double] = [:]) {
    self.rule = rule
    self.parameters = parameters
  }

  /// `name=value;name=value` sorted by name ("" when all are defaults).
  public var parameterText: String {
    parameters.keys.sorted().map { "\($0)=\(formatNumber(parameters[$0]!))" }.joined(separator: ";")
  }

  public var description: String { parameterText.isEmpty ? rule : "\(rule) \(parameterText)" }
}

/// What evaluating one trace gives, per rule setting.
public struct TraceEvaluation: Sendable {
  public var name: String
  public var duration: Double
  public var metrics: [Metrics]
  /// Per setting: the counted detections with the annotation each matched.
  public var detections: [[(detection: LabeledInterval, match: LabeledInterval?)]]
}

public enum Evaluator {
  /// Runs every setting over one trace (held in memory) and matches against its annotations.
  public static func evaluate(
    trace path: String, readSettings: TraceReadSettings, annotations: [LabeledInterval], settings: [RuleSetting],
    label: String, tolerance: Double, includeCancelled: Bool, location: DataLocation? = nil
  ) throws -> TraceEvaluation {
    let (source, _) = try TraceOpener.open(path: path, settings: readSettings)
    let samples = try source.readAll()
    let t0 = samples.t.first ?? 0
    let t1 = samples.t.last ?? 0
    let duration = t1 - t0
    for a in annotations where a.start < t0 - tolerance || a.end > t1 + tolerance {
      throw AccelError.data(
        location ?? DataLocation(file: path),
        "an annotation (\(formatNumber(a.start))-\(formatNumber(a.end)) s) lies outside the trace \(path) (\(formatNumber(t0))-\(formatNumber(t1)) s)",
        hint: "annotation times are in the trace's own time base, in seconds")
    }
    guard let rate = source.metadata.nominalRate ?? estimateRate(samples.t) else {
      throw AccelError.data(location ?? DataLocation(file: path), "cannot tell the sample rate of \(path): fewer than two increasing timestamps")
    }
    var metrics: [Metrics] = []
    var detections: [[(LabeledInterval, LabeledInterval?)]] = []
    for setting in settings {
      guard let ruleType = ShakeRules.named(setting.rule) else {
        throw AccelError.usage("unknown rule \"\(setting.rule)\"; the rules are \(ShakeRules.all.map { $0.name }.joined(separator: ", "))")
      }
      var rule = try ruleType.init(rate: rate, parameters: setting.parameters)
      let events = try runRule(&rule, samples, name: source.metadata.name)
      let intervals = events.map {
        LabeledInterval(start: $0.start, end: $0.end, label: label, reported: $0.reported, cancelled: $0.status == .cancelled)
      }
      let (m, matches, counted, truth) = Metrics.evaluate(
        detections: intervals, annotations: annotations, label: label, tolerance: tolerance,
        includeCancelled: includeCancelled, duration: duration)
      metrics.append(m)
      detections.append(counted.enumerated().map { ($1, matches[$0].map { truth[$0] }) })
    }
    return TraceEvaluation(name: source.metadata.name, duration: duration, metrics: metrics, detections: detections)
  }

  static func runRule(_ rule: inout some ShakeRule, _ samples: SampleBlock, name: String) throws -> [ShakeEvent] {
    try detect(&rule, source: MemoryTraceSource(samples, metadata: TraceMetadata(name: name)))
  }
}
