/// One-to-one matching of detections to annotations.
///
/// A detection and an annotation may match when their intervals overlap after widening both by
/// `tolerance` seconds on each side. Among all one-to-one matchings the one with the most pairs is
/// taken (a maximum bipartite matching, by augmenting paths); ties are broken deterministically by
/// trying annotations in time order and detections nearest in start time first.
public enum EventMatching {
  /// Returns, for each detection, the index of the annotation it matches (or nil).
  public static func match(detections: [LabeledInterval], annotations: [LabeledInterval], tolerance: Double) -> [Int?] {
    let nd = detections.count
    let na = annotations.count
    var candidates: [[Int]] = Array(repeating: [], count: na)  // annotation -> detections
    for a in 0..<na {
      let ann = annotations[a]
      var list: [Int] = []
      for d in 0..<nd {
        let det = detections[d]
        if det.start - tolerance <= ann.end + tolerance && ann.start - tolerance <= det.end + tolerance { list.append(d) }
      }
      list.sort {
        let x = abs(detections[$0].start - ann.start)
        let y = abs(detections[$1].start - ann.start)
        return x != y ? x < y : $0 < $1
      }
      candidates[a] = list
    }
    var detectionOwner = [Int?](repeating: nil, count: nd)  // detection -> annotation
    let order = (0..<na).sorted { (annotations[$0].start, $0) < (annotations[$1].start, $1) }
    for a in order {
      var visited = [Bool](repeating: false, count: nd)
      _ = augment(a, candidates, &detectionOwner, &visited)
    }
    return detectionOwner
  }

  private static func augment(_ a: Int, _ candidates: [[Int]], _ owner: inout [Int?], _ visited: inout [Bool]) -> Bool {
    for d in candidates[a] where !visited[d] {
      visited[d] = true
      if owner[d] == nil || augment(owner[d]!, candidates, &owner, &visited) {
        owner[d] = a
        return true
      }
    }
    return false
  }
}

/// Counts and timing for one trace (or the sum over traces).
public struct Metrics: Equatable, Sendable {
  public var tp = 0
  public var fp = 0
  public var fn = 0
  /// |detection start - annotation start| of every match, in seconds.
  public var onsetErrors: [Double] = []
  /// reported - annotation start of every match with a reported time, in seconds.
  public var delays: [Double] = []
  public var duration = 0.0

  public init() {}

  /// tp / (tp + fp); 1 when there are no detections.
  public var precision: Double { tp + fp == 0 ? 1 : Double(tp) / Double(tp + fp) }
  /// tp / (tp + fn); 1 when there are no annotations.
  public var recall: Double { tp + fn == 0 ? 1 : Double(tp) / Double(tp + fn) }
  /// The harmonic mean of precision and recall; 0 when both are 0.
  public var f1: Double {
    let p = precision, r = recall
    return p + r == 0 ? 0 : 2 * p * r / (p + r)
  }
  public var meanOnsetError: Double? { onsetErrors.isEmpty ? nil : onsetErrors.reduce(0, +) / Double(onsetErrors.count) }
  public var medianOnsetError: Double? { Self.median(onsetErrors) }
  public var medianDelay: Double? { Self.median(delays) }
  /// fp per hour of trace.
  public var falseAlarmsPerHour: Double { duration > 0 ? Double(fp) / (duration / 3600) : 0 }

  static func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let s = values.sorted()
    let n = s.count
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
  }

  /// Matches one trace's detections of `label` to its annotations of `label` and counts
  /// (detections of other labels are not this evaluation's business).
  public static func evaluate(
    detections all: [LabeledInterval], annotations: [LabeledInterval], label: String, tolerance: Double,
    includeCancelled: Bool, duration: Double
  ) -> (Metrics, matches: [Int?], counted: [LabeledInterval], truth: [LabeledInterval]) {
    let detections = all.filter { $0.label == label && (includeCancelled || !$0.cancelled) }
    let truth = annotations.filter { $0.label == label }
    let matches = EventMatching.match(detections: detections, annotations: truth, tolerance: tolerance)
    var m = Metrics()
    m.duration = duration
    for (d, a) in matches.enumerated() {
      if let a {
        m.tp += 1
        m.onsetErrors.append(abs(detections[d].start - truth[a].start))
        if let r = detections[d].reported { m.delays.append(r - truth[a].start) }
      } else {
        m.fp += 1
      }
    }
    m.fn = truth.count - m.tp
    return (m, matches, detections, truth)
  }

  public static func + (a: Metrics, b: Metrics) -> Metrics {
    var m = Metrics()
    m.tp = a.tp + b.tp
    m.fp = a.fp + b.fp
    m.fn = a.fn + b.fn
    m.onsetErrors = a.onsetErrors + b.onsetErrors
    m.delays = a.delays + b.delays
    m.duration = a.duration + b.duration
    return m
  }
}
