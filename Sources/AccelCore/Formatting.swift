#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// printf-style text from the C library: `%.3f`, `%.4g`, `%05ld`, `%02lx` behave exactly as in C
/// (pass `Int` with `l` formats). Used instead of Foundation's `String(format:)` so that the
/// binary does not load Foundation (and ICU) at start-up.
public func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
  var capacity = 64
  while true {
    let (text, needed) = withVaList(arguments) { list -> (String?, Int) in
      withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer in
        let n = Int(vsnprintf(buffer.baseAddress!, capacity, format, list))
        guard n >= 0, n < capacity else { return (nil, n) }
        return (
          String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: n), as: UTF8.self), n
        )
      }
    }
    if let text { return text }
    guard needed >= 0 else { return "" }
    capacity = needed + 1
  }
}

extension StringProtocol {
  /// The text without spaces and tabs at either end.
  public func trimmingBlanks() -> String {
    var s = self[...]
    while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
    while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
    return String(s)
  }

  /// The text without spaces and tabs at its end.
  public func trimmingTrailingBlanks() -> String {
    var s = self[...]
    while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
    return String(s)
  }

  /// The text padded with spaces on the right to `width` characters (unchanged when longer).
  public func padded(to width: Int) -> String {
    count >= width ? String(self) : String(self) + String(repeating: " ", count: width - count)
  }
}

/// A CSV field: quoted (with `""` escapes) when it holds a delimiter, a quote or a line break.
public func csvField(_ text: String) -> String {
  if text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
    return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"")
      + "\""
  }
  return text
}

/// A JSON string literal for `text`.
public func jsonString(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    case "\r": out += "\\r"
    case "\t": out += "\\t"
    default:
      if scalar.value < 0x20 {
        out += cFormat("\\u%04x", scalar.value)
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
  }
  return out + "\""
}

/// A frequency for messages: up to 6 significant digits, no trailing zeros.
public func formatHz(_ value: Double) -> String {
  var text = String(value)
  if abs(value) >= 1e-3 && abs(value) < 1e7 {
    let rounded = (value * 1e6).rounded() / 1e6
    text = String(rounded)
  }
  if text.hasSuffix(".0") { text.removeLast(2) }
  return text
}

/// `value` rounded to `digits` significant digits, as a number (0, infinities and NaN unchanged).
public func roundedToSignificant(_ value: Double, digits: Int) -> Double {
  guard value != 0, value.isFinite else { return value }
  var scale = 1.0
  var magnitude = abs(value)
  while magnitude >= 10 {
    magnitude /= 10
    scale /= 10
  }
  while magnitude < 1 {
    magnitude *= 10
    scale *= 10
  }
  scale *= pow10(max(1, digits) - 1)  // exact: a power of ten up to 1e22, applied once
  // Near the ends of the Double range the scale overflows: the value as it is.
  let rounded = (value * scale).rounded() / scale
  return rounded.isFinite && scale.isFinite ? rounded : value
}

/// `value` to `digits` significant digits for tables people read: no trailing zeros, no exponent
/// for values from 1e-4 up to 10^digits (whole numbers beyond that), "-" for nil and non-finite.
public func formatSignificant(_ value: Double?, digits: Int) -> String {
  guard let value, value.isFinite else { return "-" }
  let d = max(1, min(17, digits))
  if value == 0 { return "0" }
  let magnitude = abs(value)
  if magnitude >= pow10(d) { return formatNumber(value.rounded()) }
  if magnitude < 1e-4 { return cFormat("%.\(d)g", value) }
  // Fixed notation with the decimals the digits leave, trailing zeros dropped.
  let exponent = Int((log10(magnitude)).rounded(.down))
  let decimals = max(0, d - 1 - exponent)
  var text = cFormat("%.\(decimals)f", value)
  if text.contains(".") {
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
  }
  return text == "-0" ? "0" : text
}

private func pow10(_ n: Int) -> Double {
  var v = 1.0
  for _ in 0..<n { v *= 10 }
  return v
}

/// A duration for people: `42.5 s`, `5 min 3 s`, `2 h 5 min` (seconds below a minute to at most 3
/// decimals).
public func formatDuration(_ seconds: Double) -> String {
  guard seconds.isFinite else { return "-" }
  if abs(seconds) < 59.9995 { return formatSignificant((seconds * 1000).rounded() / 1000, digits: 6) + " s" }
  let total = Int(seconds.rounded())
  if total < 3600 { return "\(total / 60) min \(total % 60) s" }
  let minutes = (total + 30) / 60
  return "\(minutes / 60) h \(minutes % 60) min"
}
