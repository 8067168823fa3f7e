import AccelEvaluation
import TestSupport
import Testing

func iv(_ s: Double, _ e: Double, reported: Double? = nil, cancelled: Bool = false, label: String = "shake") -> LabeledInterval {
  LabeledInterval(start: s, end: e, label: label, reported: reported, cancelled: cancelled)
}

@Suite struct MatchingTests {
  @Test func overlapsAndToleranceEdges() {
    // Touching after widening by 0.25 on both sides: a gap of exactly 0.5 s matches, 0.5001 does not.
    #expect(EventMatching.match(detections: [iv(2.5, 3)], annotations: [iv(1, 2)], tolerance: 0.25) == [0])
    #expect(EventMatching.match(detections: [iv(2.5001, 3)], annotations: [iv(1, 2)], tolerance: 0.25) == [nil])
    #expect(EventMatching.match(detections: [iv(2.1, 3)], annotations: [iv(1, 2)], tolerance: 0) == [nil])
    #expect(EventMatching.match(detections: [iv(1.5, 3)], annotations: [iv(1, 2)], tolerance: 0) == [0])
  }

  @Test func oneDetectionSpanningTwoAnnotationsMatchesOne() {
    let matches = EventMatching.match(detections: [iv(0, 10)], annotations: [iv(1, 2), iv(5, 6)], tolerance: 0.25)
    #expect(matches == [0])
    var m = Metrics.evaluate(detections: [iv(0, 10)], annotations: [iv(1, 2), iv(5, 6)], label: "shake", tolerance: 0.25, includeCancelled: false, duration: 10).0
    #expect(m.tp == 1 && m.fp == 0 && m.fn == 1)
    m.duration = 3600
    #expect(m.precision == 1 && m.recall == 0.5 && abs(m.f1 - 2.0 / 3.0) < 1e-15)
  }

  @Test func theMatchingIsMaximal() {
    // Greedy by time would give d0 to a0 and leave a1 unmatched; the maximum matching pairs both.
    let detections = [iv(1, 4), iv(0, 1.1)]
    let annotations = [iv(0, 1), iv(3.9, 5)]
    let matches = EventMatching.match(detections: detections, annotations: annotations, tolerance: 0)
    #expect(matches == [1, 0])
  }

  @Test func emptyTracesAndNoAnnotations() {
    let (none, _, _, _) = Metrics.evaluate(detections: [], annotations: [], label: "shake", tolerance: 0.25, includeCancelled: false, duration: 60)
    #expect(none.tp == 0 && none.fp == 0 && none.fn == 0 && none.precision == 1 && none.recall == 1 && none.f1 == 1)
    let (alarms, _, _, _) = Metrics.evaluate(detections: [iv(1, 2), iv(5, 6)], annotations: [], label: "shake", tolerance: 0.25, includeCancelled: false, duration: 1800)
    #expect(alarms.fp == 2 && alarms.falseAlarmsPerHour == 4 && alarms.precision == 0 && alarms.recall == 1)
    let (missed, _, _, _) = Metrics.evaluate(detections: [], annotations: [iv(1, 2)], label: "shake", tolerance: 0.25, includeCancelled: false, duration: 10)
    #expect(missed.fn == 1 && missed.recall == 0 && missed.f1 == 0)
  }

  @Test func cancelledLabelsAndTimingByHand() {
    let detections = [iv(1.2, 2, reported: 2.5), iv(4.9, 6, reported: 5.3), iv(8, 9, cancelled: true)]
    let annotations = [iv(1, 2), iv(5, 6), iv(8, 9), iv(20, 21, label: "tap")]
    let (m, matches, counted, truth) = Metrics.evaluate(detections: detections, annotations: annotations, label: "shake", tolerance: 0.25, includeCancelled: false, duration: 30)
    #expect(counted.count == 2 && truth.count == 3 && matches == [0, 1])
    #expect(m.tp == 2 && m.fp == 0 && m.fn == 1)
    #expect(abs(m.meanOnsetError! - 0.15) < 1e-12 && abs(m.medianOnsetError! - 0.15) < 1e-12)
    #expect(abs(m.medianDelay! - 0.9) < 1e-12)  // (1.5 + 0.3) / 2
    let (withCancelled, _, _, _) = Metrics.evaluate(detections: detections, annotations: annotations, label: "shake", tolerance: 0.25, includeCancelled: true, duration: 30)
    #expect(withCancelled.tp == 3 && withCancelled.fn == 0)
  }
}
