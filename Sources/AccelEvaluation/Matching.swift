/// One-to-one matching of detections to annotations.
///
/// A detection and an annotation may match when their intervals overlap after widening both by
/// `tolerance` seconds on each side. Among all one-to-one matchings the one with the most pairs is
/// taken (a maximum bipartite matching, by augmenting paths); ties are broken deterministically by
/// trying annotations in time order and detections nearest in start time first.
public enum EventMatching {
  /// Returns, for each detection, the index of the annotation it matches (or nil).
  public static func match(detections: [LabeledInterval], annotations: [LabeledInterval], tolerance: Double)
    -> [Int?]
  {
    maximumMatching(left: annotations.count, right: detections.count, order: { annotations[$0].start }) {
      a, d in
      let ann = annotations[a]
      let det = detections[d]
      return det.start - tolerance <= ann.end + tolerance && ann.start - tolerance <= det.end + tolerance
    } preference: { a, d in
      abs(detections[d].start - annotations[a].start)
    }
  }

  /// A maximum one-to-one matching between `left` items (annotations) and `right` items
  /// (detections) that `hit` allows, by augmenting paths: for each right item, the left item it is
  /// paired with. Left items are tried in `order` (then index), each one's candidates by
  /// `preference` (then index), so that the matching is deterministic.
  public static func maximumMatching(
    left: Int, right: Int, order: (Int) -> Double = { Double($0) }, hit: (Int, Int) -> Bool,
    preference: (Int, Int) -> Double = { _, d in Double(d) }
  ) -> [Int?] {
    var candidates: [[Int]] = Array(repeating: [], count: left)
    for a in 0..<left {
      let list = (0..<right).filter { hit(a, $0) }
      candidates[a] = list.map { ($0, preference(a, $0)) }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        .map(\.0)
    }
    var owner = [Int?](repeating: nil, count: right)
    for a in (0..<left).map({ ($0, order($0)) }).sorted(by: { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }).map(
      \.0)
    {
      var visited = [Bool](repeating: false, count: right)
      _ = augment(a, candidates, &owner, &visited)
    }
    return owner
  }

  private static func augment(_ a: Int, _ candidates: [[Int]], _ owner: inout [Int?], _ visited: inout [Bool])
    -> Bool
  {
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
  /// The sed_eval counts (event-based onset, onset+offset, segment-based), summed over traces.
  public var standard = StandardCounts()
  /// Sums over traces of each trace's defined F1 (onset, onset+offset, segments), and how many
  /// traces had one: the macro averages over traces.
  public var traceF1Sums = [0.0, 0.0, 0.0]
  public var traceF1Counts = [0, 0, 0]

  public init() {}

  /// The mean over traces of the per-trace F1 of `kind` (0 onset, 1 onset+offset, 2 segments),
  /// over the traces where it is defined (as numpy.nanmean); nil when it is nowhere.
  public func macroF1(_ kind: Int) -> Double? {
    traceF1Counts[kind] == 0 ? nil : traceF1Sums[kind] / Double(traceF1Counts[kind])
  }

  /// tp / (tp + fp); 1 when there are no detections.
  public var precision: Double { tp + fp == 0 ? 1 : Double(tp) / Double(tp + fp) }
  /// tp / (tp + fn); 1 when there are no annotations (so that F1 and the tuning objectives are
  /// defined; reports show `definedRecall`).
  public var recall: Double { tp + fn == 0 ? 1 : Double(tp) / Double(tp + fn) }
  /// tp / (tp + fn), or nil when there are no annotations (0 of 0): what reports show (empty in
  /// CSV, null in JSON, "-" in tables).
  public var definedRecall: Double? { tp + fn == 0 ? nil : recall }
  /// The harmonic mean of precision and recall; 0 when both are 0.
  public var f1: Double {
    let p = precision
    let r = recall
    return p + r == 0 ? 0 : 2 * p * r / (p + r)
  }
  public var meanOnsetError: Double? {
    onsetErrors.isEmpty ? nil : onsetErrors.reduce(0, +) / Double(onsetErrors.count)
  }
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
    includeCancelled: Bool, duration: Double, start: Double = 0, criteria: StandardCriteria = .init()
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
    m.standard = StandardCounts.count(
      truth: truth, detections: detections, start: start, end: start + duration, criteria: criteria)
    m.countTraceF1()
    return (m, matches, detections, truth)
  }

  /// Sets the macro-average terms of one trace from its standard counts: its F1 of each kind,
  /// where defined.
  package mutating func countTraceF1() {
    for (k, counts) in [standard.onset, standard.onsetOffset, standard.segments].enumerated() {
      if let f = counts.f1 {
        traceF1Sums[k] = f
        traceF1Counts[k] = 1
      } else {
        traceF1Sums[k] = 0
        traceF1Counts[k] = 0
      }
    }
  }

  public static func + (a: Metrics, b: Metrics) -> Metrics {
    var m = Metrics()
    m.tp = a.tp + b.tp
    m.fp = a.fp + b.fp
    m.fn = a.fn + b.fn
    m.onsetErrors = a.onsetErrors + b.onsetErrors
    m.delays = a.delays + b.delays
    m.duration = a.duration + b.duration
    m.standard = a.standard + b.standard
    m.traceF1Sums = zip(a.traceF1Sums, b.traceF1Sums).map(+)
    m.traceF1Counts = zip(a.traceF1Counts, b.traceF1Counts).map(+)
    return m
  }
}
