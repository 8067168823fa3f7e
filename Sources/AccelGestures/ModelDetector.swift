import AccelCore
import AccelLearning
import Synchronization

/// A learned model (`accelkit train`'s directory) as a detector: the same events, reports and
/// gates as a rule. Its parameters are the event decoding's (`on`, `off`, `min_duration_s`,
/// `max_duration_s`, `merge_gap_s`), set for every label the model emits; the model's own
/// values are the defaults.
public struct ModelDetector: Detector {
  package var runner: ModelRunner

  public init(model: LearnedModel, decoding: [ProbabilityDecoder.Configuration]) throws {
    runner = try ModelRunner(model: model, decoding: decoding)
  }

  public mutating func process(_ block: SampleBlock) -> [DetectorEvent] {
    runner.process(block).map(Self.event)
  }

  public mutating func finish() -> [DetectorEvent] { runner.finish().map(Self.event) }

  /// Times to the microsecond: the grid's sums (t0 + k / rate) are not worth their last digits.
  static func microseconds(_ t: Double) -> Double { abs(t) < 1e12 ? (t * 1e6).rounded() / 1e6 : t }

  static func event(_ item: (label: String, event: ProbabilityDecoder.Event)) -> DetectorEvent {
    DetectorEvent(
      start: microseconds(item.event.start), end: microseconds(item.event.end),
      reported: microseconds(item.event.reported), count: item.event.windows,
      status: item.event.cancelled ? .cancelled : .ended, label: item.label)
  }
}

/// Makes a model's detectors; a decoding whose values contradict each other (off above on) is
/// refused here, as a rule's constraints are when its detector is made.
private struct ModelMaker: DetectorMaker {
  let name: String
  let model: LearnedModel
  let decoding: [ProbabilityDecoder.Configuration]
  func make(rate: Double) throws -> any Detector {
    for (c, sustained) in zip(decoding, model.sustained) {
      try c.validate(owner: name, sustained: sustained != nil)
    }
    return try ModelDetector(model: model, decoding: decoding)
  }
}

/// Models loaded in this process, by directory: a tuning or a shard names the same model many
/// times.
private let loadedModels = Mutex<[String: LearnedModel]>([:])

extension RuleSetting {
  /// What a model's setting is called: `model:` and its directory (so that a report, a parameter
  /// file or a shard names it as it names a rule).
  public static let modelPrefix = "model:"

  /// The model in `directory` with its decoding parameters set by `assignments`.
  public static func model(directory: String, assignments: [(String, Double)] = []) throws -> RuleSetting {
    let model: LearnedModel
    if let known = loadedModels.withLock({ $0[directory] }) {
      model = known
    } else {
      model = try LearnedModel.load(directory: directory)
      loadedModels.withLock { $0[directory] = model }
    }
    return try Self.model(model, name: modelPrefix + directory, assignments: assignments)
  }

  /// `model`, called `name`, with its decoding parameters set by `assignments`.
  public static func model(_ model: LearnedModel, name: String, assignments: [(String, Double)]) throws
    -> RuleSetting
  {
    var decoding = model.decoding
    var sorted: [(name: String, value: Double)] = []
    for (parameter, value) in assignments {
      for k in decoding.indices { try decoding[k].set(parameter, to: value, owner: name) }
      sorted.removeAll { $0.name == parameter }
      sorted.append((parameter, value))
    }
    sorted.sort { $0.name < $1.name }
    return RuleSetting(
      rule: name, assignments: sorted, labels: model.labels,
      maker: ModelMaker(name: name, model: model, decoding: decoding))
  }
}
