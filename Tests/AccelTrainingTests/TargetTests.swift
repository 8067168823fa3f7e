import AccelLearning
import Testing

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
