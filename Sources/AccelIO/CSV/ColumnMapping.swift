import AccelCore

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

/// `--columns t=NAME,x=NAME,...,gx=NAME,...,mx=NAME,...`: which input columns make each channel.
/// A value may be a header name (matched case-insensitively), a 1-based index, or a sum `A+B`
/// (Core Motion's raw reading is `gravity + userAcceleration`).
public struct ColumnSpec: Equatable, Sendable {
  public var sources: [Channel: [ColumnReference]]

  public init(_ sources: [Channel: [ColumnReference]]) { self.sources = sources }

  /// Parses `t=time,x=ax,y=ay,z=az`; throws a usage error naming the bad part.
  public init(parsing text: String) throws {
    var sources: [Channel: [ColumnReference]] = [:]
    for part in text.split(separator: ",", omittingEmptySubsequences: true) {
      guard let eq = part.firstIndex(of: "=") else {
        throw AccelError.usage(
          "--columns expects ROLE=COLUMN pairs, got \"\(part)\"",
          hint: "write e.g. --columns t=time,x=ax,y=ay,z=az (names or 1-based indices)")
      }
      let roleText = part[..<eq].trimmingSpaces()
      guard let role = Channel(name: roleText) else {
        throw AccelError.usage(
          "--columns: unknown role \"\(roleText)\"; the roles are "
            + Channel.allCases.map(\.name).joined(separator: ", "))
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

  /// Parses `--keep NAME,NAME,3`: column names or 1-based indices.
  public static func parseReferences(_ text: String) throws -> [ColumnReference] {
    try text.split(separator: ",", omittingEmptySubsequences: true).map { piece in
      let name = piece.trimmingSpaces()
      if let i = Int(name) {
        guard i >= 1 else { throw AccelError.usage("--keep: column indices start at 1, got \(i)") }
        return .index(i)
      }
      return .name(name)
    }
  }

  /// The names accelkit recognises for each channel when no mapping is given (case-insensitive).
  /// Header names are compared as they are and without their unit annotations (`accX[g]` is
  /// `accx`, `Acceleration x (m/s^2)` is `acceleration x`, `gyr_x_rps` is `gyr_x`).
  public static let defaultNames: [Channel: [String]] = {
    func axis(_ a: String, _ stems: [String]) -> [String] {
      stems.flatMap { [$0 + "_" + a, $0 + a, $0 + " " + a] }
    }
    let acc = ["a", "acc", "accel", "acceleration", "accelerometer", "linear_acceleration"]
    let gyro = ["g", "gyr", "gyro", "gyroscope", "rotrate", "rotationrate", "rotation_rate", "angular_velocity", "w"]
    let mag = ["m", "mag", "magn", "magnetometer", "magneticfield", "magnetic_field", "magnetic field"]
    var names: [Channel: [String]] = [.t: ["t", "time", "timestamp", "t_s", "time_s", "seconds"]]
    for (k, a) in ["x", "y", "z"].enumerated() {
      names[[Channel.x, .y, .z][k]] = [a] + axis(a, acc)
      names[[Channel.gx, .gy, .gz][k]] = ["g" + a] + axis(a, gyro)
      names[[Channel.mx, .my, .mz][k]] = ["m" + a] + axis(a, mag)
    }
    return names
  }()

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
    var bare = out.trimmingSpaces().lowercased()
    // Unit suffixes: acc_x_mps2, gyr_x_rps, G_X_dps, mag_x_uT, userAcc_x_g.
    for suffix in ["_mps2", "_ms2", "_g", "_mg", "_rps", "_dps", "_degps", "_radps", "_ut", "_nt", "_gauss"]
    where bare.hasSuffix(suffix) && bare.count > suffix.count {
      bare.removeLast(suffix.count)
      break
    }
    return bare
  }
}

/// How the fields of a row feed the trace's columns, once the mapping is resolved against the
/// header.
public struct ResolvedColumns: Equatable, Sendable {
  /// For each field position, the storage slot it feeds (an index into `layout.columnNames`), or nil.
  public var targets: [Int?]
  /// For each field position, whether it adds to an earlier field of the same slot.
  public var adds: [Bool]
  /// A display name per field position, for messages.
  public var fieldNames: [String]
  /// Whether the input has a time column.
  public var hasTime: Bool
  /// The groups found and the extra columns kept.
  public var layout: TraceLayout
  /// The header names of the fields that feed each sensor group (for unit detection).
  public var groupNames: [SensorGroup: [String]]

  /// The number of fields a row needs at least.
  public var requiredFieldCount: Int {
    (targets.lastIndex { $0 != nil } ?? -1) + 1
  }

  /// Resolves `spec` (or the default names) and the columns to `keep` against `header` (nil with
  /// `--no-header`, in which case `fieldCount` fields of the first row are used). The gyroscope
  /// and the magnetometer are taken when all three of their axes are found; a mapping that names
  /// only some of them is an error.
  public static func resolve(
    spec: ColumnSpec?, keep: [ColumnReference] = [], header: [String]?, fieldCount: Int, file: String
  ) throws -> ResolvedColumns {
    let names = header ?? (1...max(fieldCount, 1)).map { "column \($0)" }
    let folded = names.map { $0.lowercased() }
    let bare = names.map(ColumnSpec.bareName)
    /// `option` names the setting (`--columns`, `--keep`), `role` what the column is for.
    func position(of ref: ColumnReference, option: String, role: String?) throws -> Int {
      let what = role.map { "\(option) \($0)" } ?? option
      switch ref {
      case .index(let i):
        guard i <= names.count else {
          throw AccelError.data(
            DataLocation(file: file, line: 1),
            "\(what)=\(i): the input has only \(names.count) columns",
            hint: header.map { "the columns are \(quotedList($0))" })
        }
        return i - 1
      case .name(let n):
        guard header != nil else {
          throw AccelError.usage(
            "\(what)=\(n): with --no-header, columns can be given only by index",
            hint: "write e.g. --columns t=1,x=2,y=3,z=4")
        }
        guard let i = folded.firstIndex(of: n.lowercased()) else {
          throw AccelError.data(
            DataLocation(file: file, line: 1),
            "no column named \(quotedField(n)) (for \(role ?? option)) in the header",
            hint: "the columns are \(quotedList(names)); use \(option) with one of them")
        }
        return i
      }
    }
    var chosen: [Channel: [Int]] = [:]
    if let spec {
      for (role, refs) in spec.sources {
        chosen[role] = try refs.map { try position(of: $0, option: "--columns", role: role.name) }
      }
      for group in [SensorGroup.gyroscope, .magnetometer] {
        let given = group.channels.filter { chosen[$0] != nil }
        if !given.isEmpty && given.count < 3 {
          let missing = group.channels.filter { chosen[$0] == nil }.map(\.name).joined(separator: ", ")
          throw AccelError.usage(
            "--columns maps \(given.map(\.name).joined(separator: ", ")) but not \(missing): the \(group.rawValue) "
              + "needs all three axes")
        }
      }
    }
    var taken = Set(chosen.values.joined())
    if header != nil {
      // By default names, from columns the mapping does not use.
      for role in Channel.allCases where chosen[role] == nil {
        let candidates = ColumnSpec.defaultNames[role]!
        if let i = candidates.lazy.compactMap({ name in
          folded.indices.first { !taken.contains($0) && (folded[$0] == name || bare[$0] == name) }
        }).first {
          chosen[role] = [i]
          taken.insert(i)
        }
      }
    } else if spec == nil {
      // Without a header: t,x,y,z for four or more fields, x,y,z for three.
      let offset = fieldCount >= 4 ? 0 : -1
      for role in [Channel.t, .x, .y, .z] {
        let i = role.rawValue + offset
        if i >= 0 && fieldCount >= 3 { chosen[role] = [i] }
      }
    }
    let missing = [Channel.x, .y, .z].filter { chosen[$0] == nil }
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
    // A group found by default names with only some of its axes is left out.
    for group in [SensorGroup.gyroscope, .magnetometer] where !group.channels.allSatisfy({ chosen[$0] != nil }) {
      for c in group.channels { chosen[c] = nil }
    }
    var keptNames: [String] = []
    var keptFields: [Int] = []
    for ref in keep {
      let i = try position(of: ref, option: "--keep", role: nil)
      if keptFields.contains(i) { continue }
      keptFields.append(i)
      keptNames.append(Self.outputName(names[i]))
    }
    let layout = TraceLayout(
      hasGyroscope: chosen[.gx] != nil, hasMagnetometer: chosen[.mx] != nil, extras: keptNames)
    var targets = [Int?](repeating: nil, count: names.count)
    var adds = [Bool](repeating: false, count: names.count)
    func assign(_ indices: [Int], slot: Int, as what: String) throws {
      // Rows are read left to right: the leftmost column of a sum assigns, the others add.
      let first = indices.min()!
      for i in indices {
        if let other = targets[i] {
          throw AccelError.usage(
            "column \(i + 1) (\"\(names[i])\") is mapped to both \(layout.columnNames[other]) and \(what)")
        }
        targets[i] = slot
        adds[i] = i != first
      }
    }
    for role in layout.channels {
      guard let indices = chosen[role] else { continue }
      try assign(indices, slot: layout.index(of: role)!, as: role.name)
    }
    for (k, i) in keptFields.enumerated() {
      try assign([i], slot: layout.channels.count + k, as: "--keep \(keptNames[k])")
    }
    var groupNames: [SensorGroup: [String]] = [:]
    for group in layout.groups {
      groupNames[group] = group.channels.flatMap { chosen[$0]!.map { names[$0] } }
    }
    return ResolvedColumns(
      targets: targets, adds: adds, fieldNames: names, hasTime: chosen[.t] != nil, layout: layout,
      groupNames: groupNames)
  }

  /// The name a kept column is written under: the header name, made safe for CSV headers and NPY
  /// field names (no delimiters, quotes or control characters).
  static func outputName(_ name: String) -> String {
    let safe = name.trimmingSpaces().map { c -> Character in
      c == "," || c == ";" || c == "\t" || c == "\"" || c == "'" || c == "\\" || c.isNewline ? "_" : c
    }
    return safe.isEmpty ? "column" : String(safe)
  }

  static func quotedList(_ names: [String]) -> String { quotedFields(names) }
}

extension StringProtocol {
  func trimmingSpaces() -> String {
    var s = self[...]
    while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
    while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
    return String(s)
  }
}
