/// The detection metrics of sound-event detection (Mesaros, Heittola and Virtanen, "Metrics for
/// polyphonic sound event detection", 2016), computed as the `sed_eval` package computes them, for
/// one label at a time (each rule setting is matched with one label, so there are no
/// substitutions: S = 0).
///
/// - Event-based, onset: a detection and an annotation match when their onsets differ by at most
///   `collar` seconds. Onset and offset: also their offsets differ by at most
///   max(`collar`, `offsetFraction` x the annotation's length). The pairs are a maximum one-to-one
///   matching; Ntp is its size.
/// - Segment-based: the trace is cut into segments of `segment` seconds from its first sample
///   (ceil(duration / segment) of them); an event is active in segments floor(onset / segment)
///   up to, not including, ceil(offset / segment). A segment is a true positive when both are
///   active, a false positive (insertion) when only the detections are, a false negative
///   (deletion) when only the annotations are.
///
/// From the counts: precision Ntp / Nsys (undefined when Nsys = 0), recall Ntp / Nref (undefined
/// when Nref = 0), F1 = 2PR / (P + R) (0 when both are 0, undefined when either is), error rate
/// (S + D + I) / Nref as sed_eval sums it: D / (Nref + eps) + I / (Nref + eps) with eps the
/// spacing of 1 (so a trace without annotations has an enormous error rate, as in sed_eval).
public struct StandardCriteria: Sendable, Equatable {
  /// Onset (and minimum offset) collar, seconds.
  public var collar: Double
  /// Offset tolerance as a fraction of the annotation's length.
  public var offsetFraction: Double
  /// Segment length, seconds.
  public var segment: Double

  public init(collar: Double = 0.2, offsetFraction: Double = 0.5, segment: Double = 1) {
    self.collar = collar
    self.offsetFraction = offsetFraction
    self.segment = segment
  }
}

/// Counts from which the event- or segment-based figures are made; they add over traces
/// (sed_eval's "overall", a micro average).
public struct DetectionCounts: Equatable, Sendable {
  public var nref = 0
  public var nsys = 0
  public var ntp = 0

  public init(nref: Int = 0, nsys: Int = 0, ntp: Int = 0) {
    self.nref = nref
    self.nsys = nsys
    self.ntp = ntp
  }

  /// Deletions (annotations or annotated segments not found).
  public var deletions: Int { nref - ntp }
  /// Insertions (detections or detected segments not annotated).
  public var insertions: Int { nsys - ntp }
  /// Ntp / Nsys; nil when nothing was detected.
  public var precision: Double? { nsys == 0 ? nil : Double(ntp) / Double(nsys) }
  /// Ntp / Nref; nil when nothing was annotated.
  public var recall: Double? { nref == 0 ? nil : Double(ntp) / Double(nref) }
  /// 2PR / (P + R); 0 when both are 0, nil when either is undefined.
  public var f1: Double? {
    guard let p = precision, let r = recall else { return nil }
    return p == 0 && r == 0 ? 0 : 2 * p * r / (p + r)
  }
  /// (D + I) / Nref, summed as sed_eval does (each rate over Nref + eps).
  public var errorRate: Double {
    let n = Double(nref) + Double.ulpOfOne
    return 0 / n + Double(deletions) / n + Double(insertions) / n
  }

  /// The error rate where it is defined: nil without annotations (where sed_eval's `errorRate`
  /// divides by its eps and reads 4.5e15 per false alarm). Reports show this one.
  public var definedErrorRate: Double? { nref == 0 ? nil : errorRate }

  public static func + (a: DetectionCounts, b: DetectionCounts) -> DetectionCounts {
    DetectionCounts(nref: a.nref + b.nref, nsys: a.nsys + b.nsys, ntp: a.ntp + b.ntp)
  }
}

/// The three standard count sets of one trace (or their sums).
public struct StandardCounts: Equatable, Sendable {
  public var onset = DetectionCounts()
  public var onsetOffset = DetectionCounts()
  public var segments = DetectionCounts()

  public init() {}

  /// Counts one trace: `truth` and `detections` of one label, the trace running from `start` to
  /// `end` seconds. Times are taken relative to `start` and clipped to the trace for the segments.
  public static func count(
    truth: [LabeledInterval], detections: [LabeledInterval], start: Double, end: Double,
    criteria: StandardCriteria
  ) -> StandardCounts {
    var c = StandardCounts()
    c.onset = eventCounts(truth: truth, detections: detections) { a, d in
      abs(a.start - d.start) <= criteria.collar
    }
    c.onsetOffset = eventCounts(truth: truth, detections: detections) { a, d in
      abs(a.start - d.start) <= criteria.collar
        && abs(a.end - d.end) <= max(criteria.collar, criteria.offsetFraction * (a.end - a.start))
    }
    c.segments = segmentCounts(
      truth: truth, detections: detections, start: start, end: end, length: criteria.segment)
    return c
  }

  static func eventCounts(
    truth: [LabeledInterval], detections: [LabeledInterval], hit: (LabeledInterval, LabeledInterval) -> Bool
  ) -> DetectionCounts {
    let pairs = EventMatching.maximumMatching(left: truth.count, right: detections.count) {
      hit(truth[$0], detections[$1])
    }
    return DetectionCounts(nref: truth.count, nsys: detections.count, ntp: pairs.compactMap { $0 }.count)
  }

  /// Active segments of each list, as sorted, merged index ranges; then the counts by sweeping both.
  static func segmentCounts(
    truth: [LabeledInterval], detections: [LabeledInterval], start: Double, end: Double, length: Double
  ) -> DetectionCounts {
    let total = Int((max(0, end - start) / length).rounded(.up))
    func active(_ events: [LabeledInterval]) -> [Range<Int>] {
      let ranges = events.compactMap { e -> Range<Int>? in
        let on = max(0, e.start - start)
        let off = min(end, e.end) - start
        guard off >= 0 else { return nil }
        let first = Int((on / length).rounded(.down))
        let last = min(total, Int((off / length).rounded(.up)))
        return first < last ? first..<last : nil
      }.sorted { $0.lowerBound < $1.lowerBound }
      var merged: [Range<Int>] = []
      for r in ranges {
        if let last = merged.last, r.lowerBound <= last.upperBound {
          merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
        } else {
          merged.append(r)
        }
      }
      return merged
    }
    let a = active(truth)
    let d = active(detections)
    let nref = a.reduce(0) { $0 + $1.count }
    let nsys = d.reduce(0) { $0 + $1.count }
    var both = 0
    var i = 0
    var j = 0
    while i < a.count && j < d.count {
      let lo = max(a[i].lowerBound, d[j].lowerBound)
      let hi = min(a[i].upperBound, d[j].upperBound)
      if hi > lo { both += hi - lo }
      if a[i].upperBound < d[j].upperBound { i += 1 } else { j += 1 }
    }
    return DetectionCounts(nref: nref, nsys: nsys, ntp: both)
  }

  public static func + (a: StandardCounts, b: StandardCounts) -> StandardCounts {
    var c = StandardCounts()
    c.onset = a.onset + b.onset
    c.onsetOffset = a.onsetOffset + b.onsetOffset
    c.segments = a.segments + b.segments
    return c
  }
}
