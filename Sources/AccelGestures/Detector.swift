import AccelCore
import AccelLearning

/// A detected event (a shake, or any other labelled gesture), or a cancelled one.
public struct DetectorEvent: Equatable, Sendable {
  public enum Status: String, Sendable { case ended, cancelled }
  /// What was detected: one of the detector's `labels`.
  public var label: String
  /// Seconds, in the trace's time base.
  public var start: Double
  public var end: Double
  /// When a live detector would have announced the event.
  public var reported: Double
  public var peakG: Double?
  public var count: Int?
  public var axis: String?
  public var status: Status

  public init(
    start: Double, end: Double, reported: Double, peakG: Double? = nil, count: Int? = nil,
    axis: String? = nil,
    status: Status = .ended, label: String = "shake"
  ) {
    self.label = label
    self.start = start
    self.end = end
    self.reported = reported
    self.peakG = peakG
    self.count = count
    self.axis = axis
    self.status = status
  }
}

/// A rule's parameter: the tunable parameter of AccelCore, for a rule's configuration.
public typealias RuleParameter<Configuration> = TunableParameter<Configuration>

/// A rule's typed configuration: fields with units in their names, defaults in `init()`, and a
/// table of the parameters a user may set by name (`--param`, `--sweep`, `--list-params` are
/// generated from it).
public typealias RuleConfiguration = TunableConfiguration

/// A detector of events: a streaming state machine fed block by block (processing in chunks
/// equals processing in one go). The rules and the learned models are detectors.
public protocol Detector {
  /// Feeds samples (seconds, g, Apple's convention); returns the events they complete.
  mutating func process(_ block: SampleBlock) -> [DetectorEvent]
  /// The end of the trace: returns an event still open, if the detector reports it.
  mutating func finish() -> [DetectorEvent]
}

/// What `accelkit export` can make of a detector: every registered detector states it (a rule
/// that does not is a compile error), and the export equality tests run every detector that
/// states `.c`.
public enum ExportSupport: Sendable, Equatable {
  /// A single-header C99 library whose events are the Swift detector's (AccelExport writes it).
  case c
  /// No exported form; `accelkit export` refuses the detector with this reason.
  case unsupported(reason: String)
}

/// A hand-written shake detector, made from a sample rate and its typed configuration.
public protocol Rule: Detector {
  associatedtype Configuration: RuleConfiguration
  static var name: String { get }
  static var summary: String { get }
  /// Whether it exports; no default, so a new rule says so where it is written.
  static var export: ExportSupport { get }
  /// The labels of the events it emits (evaluation matches annotations by label).
  static var labels: [String] { get }
  /// Makes the detector for a trace at `rate` Hz; throws a usage error for a configuration that
  /// does not fit (a constraint between parameters, a cutoff above Nyquist).
  init(rate: Double, configuration: Configuration) throws
}

extension Rule {
  public static var labels: [String] { ["shake"] }
}

/// A rule with its configuration, chosen by name: what `detect-shakes` and `evaluate` run. The
/// values set by name are kept (sorted) for reports; the detector is built from the typed
/// configuration.
public struct RuleSetting: Sendable, Equatable, CustomStringConvertible {
  public let rule: String
  /// The parameters set by name, sorted by name (the others take their defaults).
  public private(set) var assignments: [(name: String, value: Double)]
  private let maker: any DetectorMaker
  public let labels: [String]
  /// The events a recorded setting replays (`RuleSetting.recorded`); nil for a rule or a model.
  public let recorded: RecordedEvents?

  /// The rule named `rule` with `assignments` applied to its defaults; throws a usage error for an
  /// unknown rule or parameter, or a value out of range.
  public init(rule: String, assignments: [(String, Double)] = []) throws {
    if rule.hasPrefix(Self.modelPrefix) {
      self = try Self.model(
        directory: String(rule.dropFirst(Self.modelPrefix.count)), assignments: assignments)
      return
    }
    if let model = BuiltInModels.named(rule) {
      self = try Self.model(model, name: rule, assignments: assignments)
      return
    }
    guard let type = Detectors.named(rule) else { throw Detectors.unknown(rule) }
    self = try Self.make(type, assignments: assignments)
  }

  init(
    rule: String, assignments: [(name: String, value: Double)], labels: [String], maker: any DetectorMaker,
    recorded: RecordedEvents? = nil
  ) {
    self.rule = rule
    self.assignments = assignments
    self.labels = labels
    self.maker = maker
    self.recorded = recorded
  }

  private static func make<R: Rule>(_ type: R.Type, assignments: [(String, Double)]) throws -> RuleSetting {
    var configuration = R.Configuration()
    var sorted: [(name: String, value: Double)] = []
    for (name, value) in assignments {
      try configuration.set(name, to: value, owner: R.name)
      sorted.removeAll { $0.name == name }
      sorted.append((name, value))
    }
    sorted.sort { $0.name < $1.name }
    return RuleSetting(
      rule: R.name, assignments: sorted, labels: R.labels, maker: Maker<R>(configuration: configuration))
  }

  /// A detector for a trace at `rate` Hz.
  /// The setting's detector for a trace at `rate` Hz, fed finite samples only
  /// (`FiniteSamplesOnly`: a non-finite row is a gap, as in the exported C).
  public func detector(rate: Double) throws -> any Detector {
    FiniteSamplesOnly(try maker.make(rate: rate))
  }

  /// The setting's detector for the trace at `trace` (as a dataset's job names it): a recorded
  /// setting replays that trace's events; any other is `detector(rate:)`'s.
  public func detector(rate: Double, trace: String) throws -> any Detector {
    if let recorded { return RecordedDetector(events: recorded.events[trace] ?? []) }
    return try detector(rate: rate)
  }

  /// Runs a detector over a whole trace, block by block from `next` (nil at the end), in
  /// constant memory.
  public func detect(rate: Double, next: () throws -> SampleBlock?) throws -> [DetectorEvent] {
    var detector = try self.detector(rate: rate)
    var events: [DetectorEvent] = []
    while let block = try next() { events += detector.process(block) }
    events += detector.finish()
    return events
  }

  /// The parameters of every rule and built-in model, as `accelkit detect-shakes --list-params`
  /// prints them.
  public static var parameterList: String {
    parameterListing(
      Detectors.all.map { ($0.name, $0.summary, Detectors.parameterRows($0)) }
        + BuiltInModels.names.map { name in
          (
            name, "accelkit's learned shake detector (the default; its event decoding)",
            BuiltInModels.named(name)!.decoding[0].parameterRows
          )
        })
  }

  /// Parses `NAME=VALUE` items (or `RULE.NAME=VALUE` for this rule) for `rule`.
  public static func parse(rule: String, parameters: [String]) throws -> RuleSetting {
    let assignments = try parseAssignments(parameters, owner: rule)
    return try RuleSetting(rule: rule, assignments: assignments)
  }

  /// `name=value;...` in name order ("" for the defaults).
  public var parameterText: String {
    assignments.map { "\($0.name)=\(formatNumber($0.value))" }.joined(separator: ";")
  }

  public var description: String { parameterText.isEmpty ? rule : "\(rule) \(parameterText)" }

  public static func == (a: RuleSetting, b: RuleSetting) -> Bool {
    a.rule == b.rule && a.parameterText == b.parameterText
  }
}

/// Makes detectors of one rule from a fixed configuration.
protocol DetectorMaker: Sendable {
  func make(rate: Double) throws -> any Detector
}

private struct Maker<R: Rule>: DetectorMaker {
  let configuration: R.Configuration
  func make(rate: Double) throws -> any Detector { try R(rate: rate, configuration: configuration) }
}

/// The detectors accelkit knows, by name: the registry that `detect-shakes`, `evaluate`, `tune`,
/// `export`, their help and the export equality tests read. A new kind is a type conforming to
/// `Rule` (its `labels`, parameters and `export`), added to `all`; an exporting one also takes
/// its C rendering in AccelExport (docs/DESIGN.md).
public enum Detectors {
  public static var all: [any Rule.Type] {
    [
      ThreePeakRule.self, AngularChangeRule.self, SeismicRule.self, SwingRule.self,
      OrientationChangeRule.self,
    ]
  }

  /// The rules' names, in `all`'s order, then the built-in models'.
  public static var names: [String] { all.map { $0.name } + BuiltInModels.names }

  /// The detector that `detect-shakes` runs without --rule: the built-in learned model.
  public static let recommended = BuiltInModels.shakeName

  /// Whether the detector called `name` exports (`ExportSupport`); nil for an unknown name. The
  /// built-in learned models export.
  public static func export(_ name: String) -> ExportSupport? {
    if let rule = named(name) { return rule.export }
    return BuiltInModels.named(name) == nil ? nil : .c
  }

  /// The names of the detectors that export to C, in `names`' order.
  public static var exportable: [String] { names.filter { export($0) == .c } }

  /// Whether `name` is a rule or a built-in model.
  public static func isDetector(_ name: String) -> Bool {
    named(name) != nil || BuiltInModels.named(name) != nil
  }

  /// The usage error for a name that is neither.
  public static func unknown(_ name: String) -> AccelError {
    AccelError.usage("unknown rule \"\(name)\"; the rules are \(names.joined(separator: ", "))")
  }

  /// The detectors' names that emit `label`: rules, then built-in models.
  public static func namesEmitting(_ label: String) -> [String] {
    emitting(label).map { $0.name }
      + BuiltInModels.names.filter { BuiltInModels.named($0)!.labels.contains(label) }
  }

  /// The detectors that emit `label`.
  public static func emitting(_ label: String) -> [any Rule.Type] { all.filter { $0.labels.contains(label) } }

  public static func named(_ name: String) -> (any Rule.Type)? {
    all.first { $0.name == name }
  }

  /// What shell completion offers for `--param`: every rule's `RULE.NAME=` and `NAME=`.
  public static var parameterCompletions: [String] {
    var seen = Set<String>()
    var out: [String] = []
    for rule in all {
      for row in parameterRows(rule) {
        for item in ["\(rule.name).\(row.name)=", "\(row.name)="] where seen.insert(item).inserted {
          out.append(item)
        }
      }
    }
    return out
  }

  /// Each rule's parameters for `--list-params`: name, unit, default, meaning, range.
  public static func parameterRows(_ rule: any Rule.Type) -> [(
    name: String, unit: String, defaultValue: Double, meaning: String, range: ClosedRange<Double>
  )] {
    func rows<R: Rule>(_ r: R.Type) -> [(
      name: String, unit: String, defaultValue: Double, meaning: String, range: ClosedRange<Double>
    )] {
      R.Configuration.parameterRows
    }
    return rows(rule)
  }
}

/// Runs a detector over a whole source.
public func detect(_ rule: inout some Detector, source: TraceSource) throws -> [DetectorEvent] {
  var events: [DetectorEvent] = []
  while let block = try source.next() { events += rule.process(block) }
  events += rule.finish()
  return events
}
