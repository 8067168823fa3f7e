/// Delimiter detection and splitting of single lines (headers), with quotes.
public enum CSVDialect {
  /// The delimiters accelkit detects, in order of preference on a tie.
  public static let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: "\t"), UInt8(ascii: ";")]

  /// Picks the delimiter that occurs most often outside quotes in `line` (comma on a tie or when
  /// none occurs).
  public static func detectDelimiter<C: Collection>(in line: C) -> UInt8 where C.Element == UInt8 {
    var counts = [0, 0, 0]
    var quoted = false
    for c in line {
      if c == UInt8(ascii: "\"") { quoted.toggle() }
      if quoted { continue }
      if let i = candidates.firstIndex(of: c) { counts[i] += 1 }
    }
    var best = 0
    for i in 1..<counts.count where counts[i] > counts[best] { best = i }
    return candidates[best]
  }

  /// Splits one line (without its line break) into fields: quoted fields lose their quotes and
  /// `""` becomes `"`; spaces around fields are trimmed.
  public static func split<C: Collection>(_ line: C, delimiter: UInt8) -> [String]
  where C.Element == UInt8 {
    var fields: [String] = []
    var current: [UInt8] = []
    var quoted = false
    var wasQuoted = false
    var iterator = line.makeIterator()
    var pending: UInt8? = nil
    while let c = pending ?? iterator.next() {
      pending = nil
      if quoted {
        if c == UInt8(ascii: "\"") {
          if let n = iterator.next() {
            if n == UInt8(ascii: "\"") {
              current.append(c)
            } else {
              quoted = false
              pending = n
            }
          } else {
            quoted = false
          }
        } else {
          current.append(c)
        }
        continue
      }
      if c == delimiter {
        fields.append(finish(current, quoted: wasQuoted))
        current.removeAll()
        wasQuoted = false
      } else if c == UInt8(ascii: "\"") && current.allSatisfy(isBlank) {
        current.removeAll()
        quoted = true
        wasQuoted = true
      } else {
        current.append(c)
      }
    }
    fields.append(finish(current, quoted: wasQuoted))
    return fields
  }

  public static func isBlank(_ c: UInt8) -> Bool {
    c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r")
  }

  private static func finish(_ bytes: [UInt8], quoted: Bool) -> String {
    var slice = bytes[...]
    if !quoted {
      while let f = slice.first, isBlank(f) { slice = slice.dropFirst() }
    }
    while let l = slice.last, isBlank(l) { slice = slice.dropLast() }
    return String(decoding: slice, as: UTF8.self)
  }

  /// A printable name for a delimiter byte.
  public static func name(of delimiter: UInt8) -> String {
    switch delimiter {
    case UInt8(ascii: ","): "comma"
    case UInt8(ascii: "\t"): "tab"
    case UInt8(ascii: ";"): "semicolon"
    case UInt8(ascii: " "): "space"
    default: "\"\(String(UnicodeScalar(delimiter)))\""
    }
  }

  /// Reads a delimiter as users write it: `,` `comma` `\t` `tab` `;` `semicolon` `space` or any
  /// single ASCII character.
  public static func parseDelimiter(_ text: String) -> UInt8? {
    switch text.lowercased() {
    case ",", "comma": return UInt8(ascii: ",")
    case "\\t", "\t", "tab", "tsv": return UInt8(ascii: "\t")
    case ";", "semicolon": return UInt8(ascii: ";")
    case " ", "space": return UInt8(ascii: " ")
    case "|", "pipe": return UInt8(ascii: "|")
    default:
      let bytes = Array(text.utf8)
      guard bytes.count == 1, bytes[0] < 128, bytes[0] != UInt8(ascii: "\""),
        bytes[0] != UInt8(ascii: "\n"), bytes[0] != UInt8(ascii: "\r")
      else { return nil }
      return bytes[0]
    }
  }
}
