import AccelCore
import AccelGestures
import AccelIO

/// What evaluating one trace gives, per rule setting.
public struct TraceEvaluation: Sendable {
  public var name: String
  public var duration: Double
  public var metrics: [Metrics]
  /// Per setting: the counted detections with the annotation each matched.
  public var detections: [[(detection: LabeledInterval, match: LabeledInterval?)]]
}

public enum Evaluator {
  /// Runs every setting over one trace (held in memory) and matches its detections against the
  /// annotations of the label it emits (`label`, when given, for every setting).
  public static func evaluate(
    trace path: String, readSettings: TraceReadSettings, annotations: [LabeledInterval], settings: [RuleSetting],
    label: String? = nil, tolerance: Double, includeCancelled: Bool, location: DataLocation? = nil
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
      let memory = MemoryTraceSource(samples, metadata: TraceMetadata(name: source.metadata.name))
      let events = try setting.detect(rate: rate, next: memory.next)
      let matched = label ?? setting.labels[0]
      let intervals = events.map {
        LabeledInterval(
          start: $0.start, end: $0.end, label: label == nil ? $0.label : matched, reported: $0.reported,
          cancelled: $0.status == .cancelled)
      }
      let (m, matches, counted, truth) = Metrics.evaluate(
        detections: intervals, annotations: annotations, label: matched, tolerance: tolerance,
        includeCancelled: includeCancelled, duration: duration)
      metrics.append(m)
      detections.append(counted.enumerated().map { ($1, matches[$0].map { truth[$0] }) })
    }
    return TraceEvaluation(name: source.metadata.name, duration: duration, metrics: metrics, detections: detections)
  }

}
