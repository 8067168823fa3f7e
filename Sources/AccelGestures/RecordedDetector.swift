import AccelCore

/// Events a detector found elsewhere (a device's log, another tool, an earlier evaluation), by
/// trace, with where each was read, so that they are scored as a detector running here would be.
public struct RecordedEvents: Sendable {
  /// Each trace's events (keyed by the trace's path as a dataset's job names it), in start order.
  public let events: [String: [DetectorEvent]]
  /// Where each event was read, in the same order.
  public let locations: [String: [DataLocation]]

  public init(events: [String: [DetectorEvent]], locations: [String: [DataLocation]]) {
    self.events = events
    self.locations = locations
  }
}

extension RuleSetting {
  /// What a recorded setting is called: `recorded:`, the file, and the rule the file names (when
  /// it names one), so that it never takes the name of a detector that runs beside it.
  public static let recordedPrefix = "recorded:"

  /// A setting that replays `events` instead of detecting: its `assignments` and `labels` are
  /// the ones the recording states.
  public static func recorded(
    name: String, assignments: [(name: String, value: Double)], labels: [String], events: RecordedEvents
  ) -> RuleSetting {
    RuleSetting(
      rule: name, assignments: assignments, labels: labels, maker: NothingRecorded(), recorded: events)
  }
}

/// Replays one trace's recorded events: all of them at the end of the trace.
struct RecordedDetector: Detector {
  var events: [DetectorEvent]

  mutating func process(_ block: SampleBlock) -> [DetectorEvent] { [] }

  mutating func finish() -> [DetectorEvent] {
    defer { events = [] }
    return events
  }
}

/// A recorded setting's detector where no trace is named: it has nothing to replay.
private struct NothingRecorded: DetectorMaker {
  func make(rate: Double) throws -> any Detector { RecordedDetector(events: []) }
}
