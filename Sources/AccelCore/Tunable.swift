/// Formats a parameter value for messages: whole numbers without a decimal point.
public func formatParameter(_ v: Double) -> String {
  v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : formatNumber(v)
}

/// One tunable parameter of a typed configuration (a rule's, an attitude filter's): its name on the command line, unit, meaning,
/// allowed range, and where it lives in the typed configuration.
public struct TunableParameter<Configuration>: Sendable {
  public let name: String
  public let unit: String
  public let meaning: String
  /// Allowed values (inclusive).
  public let range: ClosedRange<Double>
  /// Whether only whole numbers are allowed (counts, flags, presets).
  public let isInteger: Bool
  let get: @Sendable (Configuration) -> Double
  let set: @Sendable (inout Configuration, Double) -> Void

  private init(
    _ name: String, unit: String, range: ClosedRange<Double>, meaning: String, isInteger: Bool,
    get: @escaping @Sendable (Configuration) -> Double,
    set: @escaping @Sendable (inout Configuration, Double) -> Void
  ) {
    self.name = name
    self.unit = unit
    self.meaning = meaning
    self.range = range
    self.isInteger = isInteger
    self.get = get
    self.set = set
  }

  /// A real-valued parameter at `keyPath`.
  public init(
    _ name: String, _ keyPath: WritableKeyPath<Configuration, Double> & Sendable, unit: String,
    range: ClosedRange<Double>, meaning: String
  ) {
    self.init(
      name, unit: unit, range: range, meaning: meaning, isInteger: false,
      get: { $0[keyPath: keyPath] }, set: { $0[keyPath: keyPath] = $1 })
  }

  /// A whole-number parameter at `keyPath`.
  public init(
    _ name: String, _ keyPath: WritableKeyPath<Configuration, Int> & Sendable, unit: String,
    range: ClosedRange<Double>, meaning: String
  ) {
    self.init(
      name, unit: unit, range: range, meaning: meaning, isInteger: true,
      get: { Double($0[keyPath: keyPath]) }, set: { $0[keyPath: keyPath] = Int($1) })
  }
}

/// A typed configuration (a rule's, an attitude filter's): fields with units in their names, defaults in `init()`, and a
/// table of the parameters a user may set by name (`--param`, `--sweep`, `--list-params` are
/// generated from it). Ranges are checked once, when a value is set by name.
public protocol TunableConfiguration: Sendable, Equatable {
  /// The defaults.
  init()
  static var parameters: [TunableParameter<Self>] { get }
}

extension TunableConfiguration {
  /// The value of the parameter `name`, or nil when there is none.
  public func value(of name: String) -> Double? {
    Self.parameters.first { $0.name == name }.map { $0.get(self) }
  }

  /// Sets the parameter `name` (of `rule`, the rule or method, for messages) after checking it exists, is in
  /// range and, for counts, is whole.
  public mutating func set(_ name: String, to value: Double, owner rule: String) throws {
    guard let p = Self.parameters.first(where: { $0.name == name }) else {
      throw AccelError.usage(
        "\(rule) has no parameter \"\(name)\"",
        hint: "its parameters are \(Self.parameters.map(\.name).joined(separator: ", ")) (see --list-params)")
    }
    guard p.range.contains(value) else {
      throw AccelError.usage(
        "\(rule).\(name) must be in [\(formatParameter(p.range.lowerBound)), \(formatParameter(p.range.upperBound))] \(p.unit), got \(formatParameter(value))"
      )
    }
    guard !p.isInteger || value == value.rounded() else {
      throw AccelError.usage(
        "\(rule).\(name) must be a whole number of \(p.unit), got \(formatParameter(value))")
    }
    p.set(&self, value)
  }

  /// The parameters as `(name, unit, default, meaning, range)` rows, for `--list-params`.
  public static var parameterRows:
    [(name: String, unit: String, defaultValue: Double, meaning: String, range: ClosedRange<Double>)]
  {
    Self().parameterRows
  }

  /// The same rows with this configuration's values as the defaults (a learned model's own
  /// decoding).
  public var parameterRows:
    [(name: String, unit: String, defaultValue: Double, meaning: String, range: ClosedRange<Double>)]
  {
    Self.parameters.map { ($0.name, $0.unit, $0.get(self), $0.meaning, $0.range) }
  }
}

/// Parses `--param` items `NAME=VALUE` (or `OWNER.NAME=VALUE`) into name-value pairs; throws a
/// usage error for an item without `=` or a value that is not a finite number.
public func parseAssignments(_ items: [String], owner: String) throws -> [(String, Double)] {
  var assignments: [(String, Double)] = []
  for item in items {
    guard let eq = item.firstIndex(of: "=") else {
      throw AccelError.usage("--param expects NAME=VALUE, got \"\(item)\"")
    }
    var name = item[..<eq].trimmingBlanks()
    if name.hasPrefix(owner + ".") { name.removeFirst(owner.count + 1) }
    let text = item[item.index(after: eq)...].trimmingBlanks()
    guard let value = Double(text), value.isFinite else {
      throw AccelError.usage("--param \(name): expected a number, got \"\(text)\"")
    }
    assignments.append((name, value))
  }
  return assignments
}

/// What `--list-params` prints: for each owner (a rule, an attitude method) a line with its name and
/// summary, then one line per parameter: name, default, unit, meaning.
public func parameterListing(
  _ sections: [(
    name: String, summary: String,
    rows: [(name: String, unit: String, defaultValue: Double, meaning: String, range: ClosedRange<Double>)]
  )]
) -> String {
  var text = ""
  for section in sections {
    text += "\(section.name): \(section.summary)\n"
    let width = section.rows.map(\.name.count).max() ?? 0
    let values = section.rows.map { "\(formatNumber($0.defaultValue)) \($0.unit)" }
    let valueWidth = values.map(\.count).max() ?? 0
    for (p, value) in zip(section.rows, values) {
      text += "  \(p.name.padded(to: width))  \(value.padded(to: valueWidth))  \(p.meaning)\n"
    }
  }
  return text
}
