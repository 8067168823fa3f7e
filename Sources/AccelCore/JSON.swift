#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A JSON value (RFC 8259), as read from annotation exports. Objects keep their members in file
/// order.
public indirect enum JSONValue: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x == y
    case (.object(let x), .object(let y)):
      x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// The member `key` of an object (the first, when repeated); nil otherwise.
  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
    return nil
  }

  public var array: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }

  public var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  public var number: Double? {
    if case .number(let v) = self { return v }
    return nil
  }

  public var bool: Bool? {
    if case .bool(let v) = self { return v }
    return nil
  }

  /// Parses a whole document; errors name the line and column in `file`.
  public static func parse(_ bytes: [UInt8], file: String) throws -> JSONValue {
    var parser = JSONParser(bytes: bytes, file: file)
    parser.skipBlanks()
    let value = try parser.value(depth: 0)
    parser.skipBlanks()
    guard parser.at == bytes.count else { throw parser.error("unexpected text after the JSON value") }
    return value
  }
}

/// A parsed JSON document that can say where its values are, for messages about a value that
/// parses but is not what the file's format allows (a flag that is not true or false, a threshold
/// out of range): they name the value's line and column.
public struct JSONDocument: Sendable {
  public let root: JSONValue
  public let file: String
  private let bytes: [UInt8]

  /// Parses a whole document; errors name the line and column in `file`.
  public init(_ bytes: [UInt8], file: String) throws {
    root = try JSONValue.parse(bytes, file: file)
    self.file = file
    self.bytes = bytes
  }

  /// The value at `path`: object members by name (the first, when repeated), array items by their
  /// decimal index; nil when it is absent.
  public subscript(path: [String]) -> JSONValue? {
    var value = root
    for step in path {
      if let items = value.array {
        guard let i = Int(step), items.indices.contains(i) else { return nil }
        value = items[i]
      } else {
        guard let member = value[step] else { return nil }
        value = member
      }
    }
    return value
  }

  /// Where the value at `path` begins; where its deepest ancestor present begins when it is
  /// absent (the object that lacks a member).
  public func location(_ path: [String]) -> DataLocation {
    var parser = JSONParser(bytes: bytes, file: file)
    return parser.location(of: parser.locate(path[...]))
  }
}

struct JSONParser {
  let bytes: [UInt8]
  let file: String
  var at = 0

  init(bytes: [UInt8], file: String) {
    self.bytes = bytes
    self.file = file
    // A UTF-8 byte order mark is allowed before the value.
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
  }

  static let maximumDepth = 512

  func error(_ text: String) -> AccelError {
    AccelError.data(location(of: at), "invalid JSON: \(text)")
  }

  /// The line and column (in characters) of the byte at `offset`.
  func location(of offset: Int) -> DataLocation {
    var line = 1
    var column = 1
    for b in bytes[..<min(offset, bytes.count)] {
      if b == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else if b & 0xC0 != 0x80 {
        column += 1
      }
    }
    return DataLocation(file: file, line: line, column: column)
  }

  /// The offset of the value at `path` below the value that starts here (object members by name,
  /// the first when repeated; array items by their decimal index), or of its deepest ancestor
  /// present. For a document that parses: every value skipped on the way is read again.
  mutating func locate(_ path: ArraySlice<String>) -> Int {
    skipBlanks()
    let here = at
    guard let wanted = path.first, at < bytes.count else { return here }
    let isObject = bytes[at] == UInt8(ascii: "{")
    guard isObject || bytes[at] == UInt8(ascii: "[") else { return here }
    let index = isObject ? nil : Int(wanted)
    guard isObject || index != nil else { return here }
    at += 1
    var count = 0
    while true {
      skipBlanks()
      guard at < bytes.count, bytes[at] != UInt8(ascii: "}"), bytes[at] != UInt8(ascii: "]") else {
        return here
      }
      var found = index == count
      if isObject {
        guard let key = try? string() else { return here }
        found = key == wanted
        skipBlanks()
        at += 1  // the ':'
      }
      if found { return locate(path.dropFirst()) }
      skipBlanks()
      guard (try? value(depth: 0)) != nil else { return here }
      skipBlanks()
      guard at < bytes.count, bytes[at] == UInt8(ascii: ",") else { return here }
      at += 1
      count += 1
    }
  }

  mutating func skipBlanks() {
    while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
  }

  mutating func expect(_ literal: String, _ value: JSONValue) throws -> JSONValue {
    let word = Array(literal.utf8)
    guard bytes.count - at >= word.count, Array(bytes[at..<at + word.count]) == word else {
      throw error("unexpected character")
    }
    at += word.count
    return value
  }

  mutating func value(depth: Int) throws -> JSONValue {
    guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) deep") }
    guard at < bytes.count else { throw error("the text ends where a value was expected") }
    switch bytes[at] {
    case UInt8(ascii: "{"):
      at += 1
      var members: [(String, JSONValue)] = []
      skipBlanks()
      if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
        at += 1
        return .object(members)
      }
      while true {
        skipBlanks()
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else {
          throw error("expected a member name in quotes")
        }
        let key = try string()
        skipBlanks()
        guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else {
          throw error("expected ':' after a member name")
        }
        at += 1
        skipBlanks()
        members.append((key, try value(depth: depth + 1)))
        skipBlanks()
        guard at < bytes.count else { throw error("the text ends inside an object") }
        if bytes[at] == UInt8(ascii: ",") {
          at += 1
          continue
        }
        guard bytes[at] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
        at += 1
        return .object(members)
      }
    case UInt8(ascii: "["):
      at += 1
      var items: [JSONValue] = []
      skipBlanks()
      if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
        at += 1
        return .array(items)
      }
      while true {
        skipBlanks()
        items.append(try value(depth: depth + 1))
        skipBlanks()
        guard at < bytes.count else { throw error("the text ends inside an array") }
        if bytes[at] == UInt8(ascii: ",") {
          at += 1
          continue
        }
        guard bytes[at] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
        at += 1
        return .array(items)
      }
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try expect("true", .bool(true))
    case UInt8(ascii: "f"): return try expect("false", .bool(false))
    case UInt8(ascii: "n"): return try expect("null", .null)
    default: return .number(try number())
    }
  }

  mutating func number() throws -> Double {
    let start = at
    func digits() -> Int {
      let s = at
      while at < bytes.count, bytes[at] >= 0x30, bytes[at] <= 0x39 { at += 1 }
      return at - s
    }
    if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
    let whole = at
    guard digits() > 0 else {
      at = start
      throw error("unexpected character")
    }
    if bytes[whole] == UInt8(ascii: "0"), at - whole > 1 {
      at = whole
      throw error("a number has a leading zero")
    }
    let wholeEnd = at
    if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
      at += 1
      guard digits() > 0 else { throw error("expected digits after '.'") }
    }
    if at < bytes.count, bytes[at] | 0x20 == UInt8(ascii: "e") {
      at += 1
      if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
      guard digits() > 0 else { throw error("expected digits in the exponent") }
    }
    // A whole number of at most 15 digits is exact as it is read; anything else is read by
    // strtod (correctly rounded) from a terminated copy, without making a String.
    if at == wholeEnd && at - whole <= 15 {
      var v = 0
      for b in bytes[whole..<at] { v = v * 10 + Int(b - 0x30) }
      return bytes[start] == UInt8(ascii: "-") ? -Double(v) : Double(v)
    }
    let length = at - start
    let v = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer -> Double in
      for k in 0..<length { buffer[k] = CChar(bitPattern: bytes[start + k]) }
      buffer[length] = 0
      return strtod(buffer.baseAddress!, nil)
    }
    return v
  }

  mutating func hex4() throws -> UInt32 {
    guard bytes.count - at >= 4 else { throw error("expected four hex digits after \\u") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[at]
      let d: UInt32
      switch b {
      case 0x30...0x39: d = UInt32(b - 0x30)
      case 0x41...0x46: d = UInt32(b - 0x41 + 10)
      case 0x61...0x66: d = UInt32(b - 0x61 + 10)
      default: throw error("expected four hex digits after \\u")
      }
      v = v << 4 | d
      at += 1
    }
    return v
  }

  mutating func string() throws -> String {
    at += 1  // the opening quote
    var out: [UInt8] = []
    while true {
      guard at < bytes.count else { throw error("the text ends inside a string") }
      let b = bytes[at]
      if b == UInt8(ascii: "\"") {
        at += 1
        break
      }
      if b < 0x20 { throw error("a control character inside a string") }
      if b != UInt8(ascii: "\\") {
        out.append(b)
        at += 1
        continue
      }
      at += 1
      guard at < bytes.count else { throw error("the text ends inside a string") }
      let e = bytes[at]
      at += 1
      switch e {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar), bytes.count - at >= 6, bytes[at] == UInt8(ascii: "\\"),
          bytes[at + 1] == UInt8(ascii: "u")
        {
          let mark = at
          at += 2
          let low = try hex4()
          if (0xDC00..<0xE000).contains(low) {
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          } else {
            at = mark
          }
        }
        out.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
      default: throw error("an unknown escape in a string")
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
