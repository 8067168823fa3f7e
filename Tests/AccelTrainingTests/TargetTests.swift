import AccelLearning
import Testing

@testable import AccelTraining

@Test func windowTargetsFollowTheOverlapRule() {
  let shake = [(start: 10.0, end: 10.4)]
  // Half of a short event is inside the window: the label's.
  #expect(windowTarget(start: 9.6, end: 10.6, events: shake) == 1)
  #expect(windowTarget(start: 10.2, end: 11.2, events: shake) == 1)
  // Less than half of it: left out.
  #expect(windowTarget(start: 10.3, end: 11.3, events: shake) == -1)
  // Untouched: none.
  #expect(windowTarget(start: 11, end: 12, events: shake) == 0)
  // A long event must cover half of the window.
  let long = [(start: 0.0, end: 10.0)]
  #expect(windowTarget(start: 9.4, end: 10.4, events: long) == 1)
  #expect(windowTarget(start: 9.6, end: 10.6, events: long) == -1)
}

/// --cv source: one fold per source, but a source that alone holds the positives (generated
/// shakes beside recorded negatives) is spread over the others' folds.
@Test func sourceFoldsSpreadTheOnlySourceOfPositives() {
  func trace(_ source: Int, positive: Bool) -> TraceWindows {
    TraceWindows(
      name: "t", targets: [positive ? [0, 1] : [0, 0]], annotations: [], source: source, position: "hand")
  }
  var settings = TrainingSettings(labels: ["shake"])
  settings.foldsBySource = true
  let traces = [
    trace(0, positive: true), trace(1, positive: false), trace(0, positive: true), trace(2, positive: false),
    trace(0, positive: true),
  ]
  let (count, foldOf, names) = Trainer.assignFolds(
    traces: traces, settings: settings, sourceNames: ["gen", "a", "b"])
  #expect(count == 2 && foldOf == [0, 0, 1, 1, 0])
  #expect(names == ["a (+ gen in part)", "b (+ gen in part)"])
  // Two sources of positives: every source is a fold of its own.
  let two = traces + [trace(1, positive: true)]
  let (k, folds, _) = Trainer.assignFolds(traces: two, settings: settings, sourceNames: ["gen", "a", "b"])
  #expect(k == 3 && folds == [0, 1, 0, 2, 0, 1])
}
