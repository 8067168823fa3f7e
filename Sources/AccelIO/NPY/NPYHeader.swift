import AccelCore

/// The header of a `.npy` file (format versions 1.0, 2.0 and 3.0).
///
/// The dictionary is a Python literal such as
/// `{'descr': [('t', '<f8'), ('x', '<f8')], 'fortran_order': False, 'shape': (1000,), }`.
public struct NPYHeader: Equatable, Sendable {
  /// One field of a structured dtype, or the single field of a plain array (name "").
  public struct Field: Equatable, Sendable {
    public var name: String
    public var typeCode: String
    public var offset: Int
    public var size: Int
  }

  public var fields: [Field]
  /// True when the dtype is a plain (not structured) type.
  public var isPlain: Bool
  public var fortranOrder: Bool
  public var shape: [Int]
  /// Bytes from the start of the file to the first data byte.
  public var dataOffset: Int

  /// Bytes per record (one structured item, or one element of a plain array).
  public var itemSize: Int { fields.reduce(0) { max($0, $1.offset + $1.size) } }

  public static let magic: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]

  /// Parses the header from the first bytes of a file. `prefix` must hold at least the whole
  /// header; `read` is called when it needs more.
  public static func parse(_ input: ByteInput) throws -> (NPYHeader, [UInt8]) {
    let name = input.name
    var fixed = [UInt8](repeating: 0, count: 10)
    let got = try fixed.withUnsafeMutableBytes { try input.readFully(into: $0.baseAddress!, count: 10) }
    guard got >= 8, Array(fixed[0..<6]) == magic else {
      throw AccelError.data(
        DataLocation(file: name, byteOffset: 0),
        "not an NPY file: it does not start with the NPY magic bytes \\x93NUMPY",
        hint: "for CSV or raw input, name the format with --input-format csv|raw")
    }
    let major = fixed[6]
    var headerLength: Int
    var prefixLength: Int
    switch major {
    case 1:
      guard got == 10 else { throw truncated(name, at: got) }
      headerLength = Int(fixed[8]) | Int(fixed[9]) << 8
      prefixLength = 10
    case 2, 3:
      var more = [UInt8](repeating: 0, count: 2)
      let extra = try more.withUnsafeMutableBytes { try input.readFully(into: $0.baseAddress!, count: 2) }
      guard got == 10, extra == 2 else { throw truncated(name, at: got + extra) }
      headerLength =
        Int(fixed[8]) | Int(fixed[9]) << 8 | Int(more[0]) << 16 | Int(more[1]) << 24
      prefixLength = 12
    default:
      throw AccelError.data(
        DataLocation(file: name, byteOffset: 6),
        "unsupported NPY format version \(major).\(fixed[7]) (accelkit reads 1.0, 2.0 and 3.0)")
    }
    guard headerLength < 1 << 24 else {
      throw AccelError.data(
        DataLocation(file: name, byteOffset: 8), "NPY header length \(headerLength) is not plausible")
    }
    var text = [UInt8](repeating: 0, count: headerLength)
    let read = try text.withUnsafeMutableBytes { buffer -> Int in
      guard headerLength > 0 else { return 0 }
      return try input.readFully(into: buffer.baseAddress!, count: headerLength)
    }
    guard read == headerLength else { throw truncated(name, at: prefixLength + read) }
    let header = try parseDictionary(
      String(decoding: text, as: UTF8.self), name: name, dataOffset: prefixLength + headerLength)
    return (header, text)
  }

  static func truncated(_ name: String, at offset: Int) -> AccelError {
    .data(
      DataLocation(file: name, byteOffset: offset), "the NPY header is truncated",
      hint: "the file was cut short; write it again")
  }

  static func parseDictionary(_ text: String, name: String, dataOffset: Int) throws -> NPYHeader {
    func bad(_ why: String) -> AccelError {
      .data(DataLocation(file: name, byteOffset: 10), "malformed NPY header: \(why)")
    }
    var parser = PythonLiteralParser(Array(text.utf8))
    guard case .dict(let entries)? = try? parser.parseValue() else {
      throw bad("the header is not a Python dictionary")
    }
    var dict: [String: PythonLiteral] = [:]
    for (key, value) in entries {
      guard case .string(let k) = key else { throw bad("a key is not a string") }
      dict[k] = value
    }
    guard let descr = dict["descr"] else { throw bad("no 'descr'") }
    guard case .bool(let fortran)? = dict["fortran_order"] else { throw bad("no 'fortran_order'") }
    guard case .tuple(let shapeItems)? = dict["shape"] else { throw bad("no 'shape'") }
    var shape: [Int] = []
    for item in shapeItems {
      guard case .int(let n) = item, n >= 0 else { throw bad("'shape' holds a non-integer") }
      shape.append(n)
    }
    var fields: [Field] = []
    var isPlain = false
    switch descr {
    case .string(let code):
      isPlain = true
      guard let size = typeSize(code) else { throw bad("unsupported dtype '\(code)'") }
      fields = [Field(name: "", typeCode: code, offset: 0, size: size)]
    case .list(let items):
      var offset = 0
      for item in items {
        guard case .tuple(let parts) = item, parts.count >= 2,
          case .string(let fieldName) = parts[0], case .string(let code) = parts[1]
        else { throw bad("'descr' holds something other than (name, type) pairs") }
        guard parts.count == 2 else {
          throw bad("field '\(fieldName)' is a sub-array, which accelkit does not read")
        }
        guard let size = typeSize(code) else {
          throw bad("field '\(fieldName)' has unsupported dtype '\(code)'")
        }
        fields.append(Field(name: fieldName, typeCode: code, offset: offset, size: size))
        offset += size
        guard offset <= maximumRecordSize else {
          throw bad("a record of more than \(maximumRecordSize) bytes (at field '\(fieldName)'); accelkit reads records of up to 1 MiB")
        }
      }
    default:
      throw bad("'descr' is neither a type string nor a list of fields")
    }
    return NPYHeader(
      fields: fields, isPlain: isPlain, fortranOrder: fortran, shape: shape, dataOffset: dataOffset)
  }

  /// The largest record (one structured item, or one row of a plain array) accelkit reads: far
  /// more than any trace needs (131072 f8 columns), small enough that a block of records fits in
  /// memory. A header promising more is a data error, not an allocation.
  public static let maximumRecordSize = 1 << 20

  /// The size of a numpy type code such as `<f8`, `|u1`, `<i4`; nil for codes accelkit cannot
  /// skip over (objects, strings of unknown size) and for sizes over `maximumRecordSize`.
  static func typeSize(_ code: String) -> Int? {
    let chars = Array(code)
    guard chars.count >= 2 else { return nil }
    var body = chars[...]
    if "<>|=".contains(body.first!) { body = body.dropFirst() }
    guard let kind = body.first, "fiubcSUV".contains(kind), let n = Int(String(body.dropFirst())),
      n > 0, n <= maximumRecordSize
    else { return nil }
    let size = kind == "U" ? n * 4 : n
    return size <= maximumRecordSize ? size : nil
  }

  /// Renders a version 1.0 header for a structured array of float fields, padded with spaces to
  /// `paddedTo` bytes of dictionary (at least what is needed; the prefix plus header is a multiple
  /// of 64 bytes, as numpy writes it).
  static func render(fieldNames: [String], typeCode: String, rows: Int, minimumLength: Int = 0) -> [UInt8] {
    let descr = fieldNames.map { "('\($0)', '\(typeCode)')" }.joined(separator: ", ")
    var dict = "{'descr': [\(descr)], 'fortran_order': False, 'shape': (\(rows),), }"
    let unpadded = 10 + dict.utf8.count + 1
    var total = (unpadded + 63) / 64 * 64
    while total - 10 < minimumLength { total += 64 }
    dict += String(repeating: " ", count: total - unpadded) + "\n"
    let length = dict.utf8.count
    var bytes = magic + [1, 0, UInt8(length & 0xFF), UInt8(length >> 8)]
    bytes += Array(dict.utf8)
    return bytes
  }
}

/// The subset of Python literals an NPY header uses.
indirect enum PythonLiteral: Equatable {
  case string(String)
  case int(Int)
  case bool(Bool)
  case none
  case tuple([PythonLiteral])
  case list([PythonLiteral])
  case dict([(PythonLiteral, PythonLiteral)])

  static func == (a: PythonLiteral, b: PythonLiteral) -> Bool {
    switch (a, b) {
    case (.string(let x), .string(let y)): x == y
    case (.int(let x), .int(let y)): x == y
    case (.bool(let x), .bool(let y)): x == y
    case (.none, .none): true
    case (.tuple(let x), .tuple(let y)), (.list(let x), .list(let y)): x == y
    case (.dict(let x), .dict(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }
}

struct PythonLiteralParser {
  struct Failure: Error {}
  let bytes: [UInt8]
  var i = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  mutating func skipSpace() {
    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x09 || bytes[i] == 0x0D {
      i += 1
    }
  }

  mutating func parseValue(depth: Int = 0) throws -> PythonLiteral {
    guard depth < 32 else { throw Failure() }
    skipSpace()
    guard i < bytes.count else { throw Failure() }
    let c = bytes[i]
    switch c {
    case UInt8(ascii: "'"), UInt8(ascii: "\""):
      i += 1
      var s: [UInt8] = []
      while i < bytes.count && bytes[i] != c {
        s.append(bytes[i])
        i += 1
      }
      guard i < bytes.count else { throw Failure() }
      i += 1
      return .string(String(decoding: s, as: UTF8.self))
    case UInt8(ascii: "("), UInt8(ascii: "["):
      let close = c == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "]")
      i += 1
      var items: [PythonLiteral] = []
      while true {
        skipSpace()
        guard i < bytes.count else { throw Failure() }
        if bytes[i] == close {
          i += 1
          break
        }
        items.append(try parseValue(depth: depth + 1))
        skipSpace()
        guard i < bytes.count else { throw Failure() }
        if bytes[i] == UInt8(ascii: ",") {
          i += 1
        } else if bytes[i] != close {
          throw Failure()
        }
      }
      return c == UInt8(ascii: "(") ? .tuple(items) : .list(items)
    case UInt8(ascii: "{"):
      i += 1
      var entries: [(PythonLiteral, PythonLiteral)] = []
      while true {
        skipSpace()
        guard i < bytes.count else { throw Failure() }
        if bytes[i] == UInt8(ascii: "}") {
          i += 1
          break
        }
        let key = try parseValue(depth: depth + 1)
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw Failure() }
        i += 1
        let value = try parseValue(depth: depth + 1)
        entries.append((key, value))
        skipSpace()
        guard i < bytes.count else { throw Failure() }
        if bytes[i] == UInt8(ascii: ",") {
          i += 1
        } else if bytes[i] != UInt8(ascii: "}") {
          throw Failure()
        }
      }
      return .dict(entries)
    default:
      var word: [UInt8] = []
      while i < bytes.count,
        let ch = Optional(bytes[i]),
        (ch >= 0x30 && ch <= 0x39) || (ch | 0x20 >= 0x61 && ch | 0x20 <= 0x7A) || ch == 0x2D || ch == 0x5F
      {
        word.append(ch)
        i += 1
      }
      let text = String(decoding: word, as: UTF8.self)
      switch text {
      case "True": return .bool(true)
      case "False": return .bool(false)
      case "None": return .none
      default:
        var digits = text
        if digits.hasSuffix("L") { digits.removeLast() }
        guard let n = Int(digits) else { throw Failure() }
        return .int(n)
      }
    }
  }
}
