import AccelCore

/// A detected shake (or a cancelled one).
public struct ShakeEvent: Equatable, Sendable {
  public enum Status: String, Sendable { case ended, cancelled }
  /// Seconds, in the trace's time base.
  public var start: Double
  public var end: Double
  /// When a live detector would have announced the event.
  public var reported: Double
  public var peakG: Double?
  public var count: Int?
  public var axis: String?
  public var status: Status

  public init(start: Double, end: Double, reported: Double, peakG: Double? = nil, count: Int? = nil, axis: String? = nil, status: Status = .ended) {
    self.start = start
    self.end = end
    self.reported = reported
    self.peakG = peakG
    self.count = count
    self.axis = axis
    self.status = status
  }
}

/// One tunable parameter of a rule.
public struct RuleParameter: Sendable {
  public var name: String
  public var unit: String
  public var defaultValue: Double
  public var meaning: String
  /// Allowed values (inclusive).
  public var range: ClosedRange<Double>
}

/// A shake detector: a streaming state machine fed block by block (processing in chunks equals
/// processing in one go), made from a sample rate and parameter values.
public protocol ShakeRule {
  static var name: String { get }
  static var summary: String { get }
  static var parameters: [RuleParameter] { get }
  init(rate: Double, parameters: [String: Double]) throws
  /// Feeds samples (seconds, g, Apple's convention); returns the events they complete.
  mutating func process(_ block: SampleBlock) -> [ShakeEvent]
  /// The end of the trace: returns an event still open, if the rule reports it.
  mutating func finish() -> [ShakeEvent]
}

/// The rules accelkit knows, by name.
public enum ShakeRules {
  public static var all: [any ShakeRule.Type] { [ThreePeakRule.self, AngularChangeRule.self, SeismicRule.self] }

  public static func named(_ name: String) -> (any ShakeRule.Type)? {
    all.first { $0.name == name }
  }

  /// Checks `values` against the rule's parameters and fills in the defaults.
  public static func resolve(_ values: [String: Double], for rule: any ShakeRule.Type) throws -> [String: Double] {
    var resolved: [String: Double] = [:]
    for p in rule.parameters { resolved[p.name] = p.defaultValue }
    for (name, value) in values {
      guard let p = rule.parameters.first(where: { $0.name == name }) else {
        throw AccelError.usage(
          "\(rule.name) has no parameter \"\(name)\"",
          hint: "its parameters are \(rule.parameters.map(\.name).joined(separator: ", ")) (see --list-params)")
      }
      guard p.range.contains(value) else {
        throw AccelError.usage(
          "\(rule.name).\(name) must be in [\(fmt(p.range.lowerBound)), \(fmt(p.range.upperBound))] \(p.unit), got \(fmt(value))")
      }
      resolved[name] = value
    }
    return resolved
  }

  static func fmt(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
  }
}

/// Runs a rule over a whole source.
public func detect(_ rule: inout some ShakeRule, source: TraceSource) throws -> [ShakeEvent] {
  var events: [ShakeEvent] = []
  while let block = try source.next() { events += rule.process(block) }
  events += rule.finish()
  return events
}
