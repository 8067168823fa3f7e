import AccelCore
import AccelGestures
import AccelIO

/// What evaluating one trace gives, per rule setting.
public struct TraceEvaluation: Sendable {
  public var name: String
  /// The time of the first sample, seconds.
  public var start: Double
  public var duration: Double
  /// Samples read.
  public var rows = 0
  public var metrics: [Metrics]
  /// Per setting: the counted detections with the annotation each matched.
  public var detections: [[(detection: LabeledInterval, match: LabeledInterval?)]]
  /// The manifest's source and position of the trace.
  public var group = TraceGroup()

  /// A trace's evaluation as a partial file holds it (AccelScaleOut reads them back).
  package init(
    name: String, start: Double, duration: Double, rows: Int, metrics: [Metrics],
    detections: [[(detection: LabeledInterval, match: LabeledInterval?)]], group: TraceGroup = TraceGroup()
  ) {
    self.name = name
    self.start = start
    self.duration = duration
    self.rows = rows
    self.metrics = metrics
    self.detections = detections
    self.group = group
  }
}

/// Where a trace comes from and where its device was worn, as a manifest says (either may be
/// unknown).
public struct TraceGroup: Hashable, Sendable {
  public var source: String?
  public var position: String?
  /// What the wearer was doing (walking, a sustained shake, a fall...), as the manifest says.
  public var activity: String?

  public init(source: String? = nil, position: String? = nil, activity: String? = nil) {
    self.source = source
    self.position = position
    self.activity = activity
  }
}

public enum Evaluator {
  /// Runs every setting over every job's trace, `parallelism` traces at a time (default: all
  /// cores), in job order; the first failure is thrown.
  public static func evaluate(
    jobs: [EvaluationJob], annotations: [[LabeledInterval]], settings: [RuleSetting], label: String? = nil,
    tolerance: Double, includeCancelled: Bool, criteria: StandardCriteria = .init(), parallelism: Int? = nil,
    traceDone: (@Sendable (_ rows: Int) -> Void)? = nil, bytesRead: (@Sendable (_ bytes: Int) -> Void)? = nil
  ) throws -> [TraceEvaluation] {
    let results = parallelMap(Array(jobs.indices), jobs: parallelism) { i in
      let result = Result {
        try evaluate(
          trace: jobs[i].trace, readSettings: jobs[i].readSettings, annotations: annotations[i],
          settings: settings,
          label: label, tolerance: tolerance, includeCancelled: includeCancelled, criteria: criteria,
          location: jobs[i].location, bytesRead: bytesRead)
      }.map { evaluation -> TraceEvaluation in
        var e = evaluation
        e.group = jobs[i].group
        return e
      }
      traceDone?((try? result.get())?.rows ?? 0)
      return result
    }
    return try results.map { try $0.get() }
  }

  /// Runs every setting over one trace, streamed block by block (every setting's detector fed
  /// each block in turn: constant memory whatever the trace's length), and matches its detections
  /// against the annotations of the label it emits (`label`, when given, for every setting).
  public static func evaluate(
    trace path: String, readSettings: TraceReadSettings, annotations: [LabeledInterval],
    settings: [RuleSetting],
    label: String? = nil, tolerance: Double, includeCancelled: Bool, criteria: StandardCriteria = .init(),
    location: DataLocation? = nil, bytesRead: (@Sendable (_ bytes: Int) -> Void)? = nil
  ) throws -> TraceEvaluation {
    let stream = try TraceStream(path: path, settings: readSettings, resample: nil)
    // Progress within the trace: the bytes of its file read since the last block (a compressed
    // file's, all at its end), so that one long trace shows progress too.
    let fileSize = stream.input.sizeOnDisk
    var reported = 0
    func report(_ position: Int) {
      guard let bytesRead, position > reported else { return }
      bytesRead(position - reported)
      reported = position
    }
    var detectors = try settings.map { try $0.detector(rate: stream.rate, trace: path) }
    var found = [[DetectorEvent]](repeating: [], count: settings.count)
    var t0: Double?
    var t1 = 0.0
    var rows = 0
    while let block = try stream.next() {
      guard block.count > 0 else { continue }
      rows += block.count
      if t0 == nil { t0 = block.t[0] }
      t1 = block.t[block.count - 1]
      for k in detectors.indices { found[k] += detectors[k].process(block) }
      if !stream.input.isCompressed { report(min(stream.input.offset, fileSize ?? .max)) }
    }
    report(fileSize ?? reported)
    for k in detectors.indices { found[k] += detectors[k].finish() }
    let start = t0 ?? 0
    let duration = t1 - start
    for a in annotations where a.start < start - tolerance || a.end > t1 + tolerance {
      throw AccelError.data(
        location ?? DataLocation(file: path),
        "an annotation (\(formatNumber(a.start))-\(formatNumber(a.end)) s) lies outside the trace \(path) (\(formatNumber(start))-\(formatNumber(t1)) s)",
        hint: "annotation times are in the trace's own time base, in seconds")
    }
    for case let recorded? in settings.map(\.recorded) {
      try RecordedDetections.check(recorded, trace: path, start: start, end: t1, tolerance: tolerance)
    }
    var metrics: [Metrics] = []
    var detections: [[(LabeledInterval, LabeledInterval?)]] = []
    for (k, setting) in settings.enumerated() {
      let events = found[k]
      let matched = label ?? setting.labels[0]
      let intervals = events.map {
        LabeledInterval(
          start: $0.start, end: $0.end, label: label == nil ? $0.label : matched, reported: $0.reported,
          cancelled: $0.status == .cancelled)
      }
      let (m, matches, counted, truth) = Metrics.evaluate(
        detections: intervals, annotations: annotations, label: matched, tolerance: tolerance,
        includeCancelled: includeCancelled, duration: duration, start: start, criteria: criteria)
      metrics.append(m)
      detections.append(counted.enumerated().map { ($1, matches[$0].map { truth[$0] }) })
    }
    return TraceEvaluation(
      name: stream.name, start: start, duration: duration, rows: rows, metrics: metrics,
      detections: detections)
  }

}
