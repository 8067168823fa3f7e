import AccelCore

/// The four quantities a trace has.
public enum TraceColumn: Int, CaseIterable, Sendable, CustomStringConvertible {
  case t = 0, x, y, z

  public var description: String {
    switch self {
    case .t: "t"
    case .x: "x"
    case .y: "y"
    case .z: "z"
    }
  }

  init?(name: String) {
    switch name.lowercased() {
    case "t": self = .t
    case "x": self = .x
    case "y": self = .y
    case "z": self = .z
    default: return nil
    }
  }
}

/// A reference to an input column: by header name or by 1-based position.
public enum ColumnReference: Equatable, Sendable, CustomStringConvertible {
  case name(String)
  case index(Int)

  public var description: String {
    switch self {
    case .name(let n): "\"\(n)\""
    case .index(let i): "#\(i)"
    }
  }
}

/// `--columns t=NAME,x=NAME,y=NAME,z=NAME`: which input columns make t, x, y and z. A value may be
/// a header name (matched case-insensitively), a 1-based index, or a sum `A+B` (Core Motion's raw
/// reading is `gravity + userAcceleration`).
public struct ColumnSpec: Equatable, Sendable {
  public var sources: [TraceColumn: [ColumnReference]]

  public init(_ sources: [TraceColumn: [ColumnReference]]) { self.sources = sources }

  /// Parses `t=time,x=ax,y=ay,z=az`; throws a usage error naming the bad part.
  public init(parsing text: String) throws {
    var sources: [TraceColumn: [ColumnReference]] = [:]
    for part in text.split(separator: ",", omittingEmptySubsequences: true) {
      guard let eq = part.firstIndex(of: "=") else {
        throw AccelError.usage(
          "--columns expects ROLE=COLUMN pairs, got \"\(part)\"",
          hint: "write e.g. --columns t=time,x=ax,y=ay,z=az (names or 1-based indices)")
      }
      let roleText = part[..<eq].trimmingSpaces()
      guard let role = TraceColumn(name: roleText) else {
        throw AccelError.usage(
          "--columns: unknown role \"\(roleText)\"; the roles are t, x, y and z")
      }
      let value = part[part.index(after: eq)...].trimmingSpaces()
      guard !value.isEmpty else {
        throw AccelError.usage("--columns: no column given for \(role)")
      }
      if sources[role] != nil {
        throw AccelError.usage("--columns: \(role) is given twice")
      }
      sources[role] = value.split(separator: "+").map { piece in
        let name = piece.trimmingSpaces()
        if let i = Int(name) { return .index(i) }
        return .name(name)
      }
    }
    for refs in sources.values {
      for ref in refs {
        if case .index(let i) = ref, i < 1 {
          throw AccelError.usage("--columns: column indices start at 1, got \(i)")
        }
      }
    }
    self.sources = sources
  }

  /// The names accelkit recognises for each quantity when no mapping is given (case-insensitive).
  /// Header names are compared without their unit annotations (`accX[g]` is `accx`,
  /// `Acceleration x (m/s^2)` is `acceleration x`).
  public static let defaultNames: [TraceColumn: [String]] = [
    .t: ["t", "time", "timestamp", "t_s", "time_s"],
    .x: ["x", "ax", "a_x", "acc_x", "accx", "accel_x", "accelx", "acceleration x", "acceleration_x"],
    .y: ["y", "ay", "a_y", "acc_y", "accy", "accel_y", "accely", "acceleration y", "acceleration_y"],
    .z: ["z", "az", "a_z", "acc_z", "accz", "accel_z", "accelz", "acceleration z", "acceleration_z"],
  ]

  /// A header name without unit annotations in brackets or parentheses, trimmed and lowercased.
  static func bareName(_ name: String) -> String {
    var out = ""
    var depth = 0
    for c in name {
      if c == "[" || c == "(" {
        depth += 1
      } else if c == "]" || c == ")" {
        depth = max(0, depth - 1)
      } else if depth == 0 {
        out.append(c)
      }
    }
    return out.trimmingSpaces().lowercased()
  }
}

/// How the fields of a row feed t, x, y and z, once the mapping is resolved against the header.
public struct ResolvedColumns: Equatable, Sendable {
  /// For each field position, the quantity it feeds, or nil.
  public var targets: [TraceColumn?]
  /// For each field position, whether it adds to an earlier field of the same quantity.
  public var adds: [Bool]
  /// A display name per field position, for messages.
  public var fieldNames: [String]
  /// Whether the input has a time column.
  public var hasTime: Bool
  /// The header names of the fields that feed x, y and z (for unit detection).
  public var accelerationNames: [String]

  /// The number of fields a row needs at least.
  public var requiredFieldCount: Int {
    (targets.lastIndex { $0 != nil } ?? -1) + 1
  }

  /// Resolves `spec` (or the default names) against `header` (nil with `--no-header`, in which case
  /// `fieldCount` fields of the first row are used).
  public static func resolve(
    spec: ColumnSpec?, header: [String]?, fieldCount: Int, file: String
  ) throws -> ResolvedColumns {
    let names = header ?? (1...max(fieldCount, 1)).map { "column \($0)" }
    let folded = names.map { $0.lowercased() }
    var chosen: [TraceColumn: [Int]] = [:]
    if let spec {
      for (role, refs) in spec.sources {
        chosen[role] = try refs.map { ref in
          switch ref {
          case .index(let i):
            guard i <= names.count else {
              throw AccelError.data(
                DataLocation(file: file, line: 1),
                "--columns \(role)=\(i): the input has only \(names.count) columns",
                hint: header.map { "the columns are \(quotedList($0))" })
            }
            return i - 1
          case .name(let n):
            guard header != nil else {
              throw AccelError.usage(
                "--columns \(role)=\(n): with --no-header, columns can be given only by index",
                hint: "write e.g. --columns t=1,x=2,y=3,z=4")
            }
            guard let i = folded.firstIndex(of: n.lowercased()) else {
              throw AccelError.data(
                DataLocation(file: file, line: 1),
                "no column named \"\(n)\" (for \(role)) in the header",
                hint: "the columns are \(quotedList(names)); use --columns with one of them")
            }
            return i
          }
        }
      }
    }
    for role in TraceColumn.allCases where chosen[role] == nil {
      if let header {
        let bare = header.map(ColumnSpec.bareName)
        if let i = ColumnSpec.defaultNames[role]!.lazy.compactMap({ folded.firstIndex(of: $0) ?? bare.firstIndex(of: $0) })
          .first
        {
          chosen[role] = [i]
        }
      } else if spec == nil {
        // Without a header: t,x,y,z for four or more fields, x,y,z for three.
        let offset = fieldCount >= 4 ? 0 : -1
        let i = role.rawValue + offset
        if i >= 0 && fieldCount >= 3 { chosen[role] = [i] }
      }
    }
    let missing = [TraceColumn.x, .y, .z].filter { chosen[$0] == nil }
    if !missing.isEmpty {
      let what = missing.map(\.description).joined(separator: ", ")
      if header == nil {
        throw AccelError.usage(
          "cannot tell which columns hold \(what) in \(file) (no header, \(fieldCount) columns)",
          hint: "give them by index, e.g. --columns x=1,y=2,z=3")
      }
      throw AccelError.data(
        DataLocation(file: file, line: 1),
        "no column for \(what) in the header \(quotedList(names))",
        hint: "map them with --columns x=NAME,y=NAME,z=NAME or pick a --preset "
          + "(see `accelkit presets`)")
    }
    var targets = [TraceColumn?](repeating: nil, count: names.count)
    var adds = [Bool](repeating: false, count: names.count)
    for role in TraceColumn.allCases {
      guard let indices = chosen[role] else { continue }
      // Rows are read left to right: the leftmost column of a sum assigns, the others add.
      let first = indices.min()!
      for i in indices {
        if let other = targets[i] {
          throw AccelError.usage(
            "column \(i + 1) (\"\(names[i])\") is mapped to both \(other) and \(role)")
        }
        targets[i] = role
        adds[i] = i != first
      }
    }
    let accelerationNames = [TraceColumn.x, .y, .z].flatMap { chosen[$0]!.map { names[$0] } }
    return ResolvedColumns(
      targets: targets, adds: adds, fieldNames: names, hasTime: chosen[.t] != nil,
      accelerationNames: accelerationNames)
  }

  static func quotedList(_ names: [String]) -> String {
    let shown = names.prefix(12).map { "\"\($0)\"" }.joined(separator: ", ")
    return names.count > 12 ? shown + ", ..." : shown
  }
}

/// Reads a unit from a column name's annotation: `accX[g]`, `A_X [mg]`,
/// `Acceleration x (m/s^2)`, `acc_x_mps2`, `userAcc_x_g`.
public func unitAnnotation(in name: String) -> AccelerationUnit? {
  let n = String(name.lowercased().filter { $0 != " " })
  for marker in ["m/s^2", "m/s2", "m/s²", "mps2", "_ms2"] where n.contains(marker) {
    return .metersPerSecondSquared
  }
  if n.contains("[mg]") || n.contains("(mg)") || n.hasSuffix("_mg") { return .mg }
  if n.contains("[g]") || n.contains("(g)") || n.hasSuffix("_g") { return .g }
  return nil
}

extension StringProtocol {
  func trimmingSpaces() -> String {
    var s = self[...]
    while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
    while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
    return String(s)
  }
}
