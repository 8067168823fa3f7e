/// ISO 8601 / RFC 3339 date-times in a time column, read as seconds since the Unix epoch (UTC).
///
/// Accepted: `YYYY-MM-DD`, then `T`, `t` or a space and `hh:mm`, `hh:mm:ss` or
/// `hh:mm:ss.fraction` (a `.` or `,` before the fraction, any number of digits), then `Z`, `z`,
/// `+hh:mm`, `-hh:mm`, `+hhmm`, `+hh` or nothing. A time without a zone is taken as UTC (the
/// same on every machine; a local zone would make the same file read differently elsewhere).
/// A leap second (`:60`) counts as the first second of the next minute, as POSIX time does.
public enum Timestamp {
  /// The time in seconds since 1970-01-01T00:00:00Z, or nil when `bytes` is not a date-time.
  public static func parse<C: Collection>(_ bytes: C) -> Double? where C.Element == UInt8 {
    var s = Array(bytes)
    while let last = s.last, last == 0x20 || last == 0x09 || last == 0x0D { s.removeLast() }
    var i = 0
    func number(_ digits: Int) -> Int? {
      guard i + digits <= s.count else { return nil }
      var v = 0
      for k in i..<(i + digits) {
        guard s[k] >= 0x30 && s[k] <= 0x39 else { return nil }
        v = v * 10 + Int(s[k] - 0x30)
      }
      i += digits
      return v
    }
    func take(_ c: UInt8) -> Bool {
      guard i < s.count, s[i] == c else { return false }
      i += 1
      return true
    }
    guard let year = number(4), take(UInt8(ascii: "-")), let month = number(2), take(UInt8(ascii: "-")),
      let day = number(2), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
    else { return nil }
    var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
    guard i < s.count else { return seconds }
    guard s[i] == UInt8(ascii: "T") || s[i] == UInt8(ascii: "t") || s[i] == UInt8(ascii: " ") else {
      return nil
    }
    i += 1
    guard let hour = number(2), take(UInt8(ascii: ":")), let minute = number(2), hour <= 23, minute <= 59
    else {
      return nil
    }
    var whole = hour * 3600 + minute * 60
    var fraction = 0.0
    if take(UInt8(ascii: ":")) {
      guard let second = number(2), second <= 60 else { return nil }
      whole += second
      if i < s.count && (s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: ",")) {
        i += 1
        let start = i
        var digits: UInt64 = 0
        var kept = 0
        while i < s.count && s[i] >= 0x30 && s[i] <= 0x39 {
          // 18 digits (attoseconds) are more than a Double holds; the rest are read and dropped.
          if kept < 18 {
            digits = digits * 10 + UInt64(s[i] - 0x30)
            kept += 1
          }
          i += 1
        }
        guard i > start else { return nil }
        fraction = Double(digits) / pow10(kept)
      }
    }
    if i < s.count {
      if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
      } else if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
        let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let offsetHours = number(2), offsetHours <= 23 else { return nil }
        var offsetMinutes = 0
        if i < s.count {
          _ = take(UInt8(ascii: ":"))
          guard let m = number(2), m <= 59 else { return nil }
          offsetMinutes = m
        }
        // The local time is ahead of UTC by the offset.
        whole -= sign * (offsetHours * 3600 + offsetMinutes * 60)
      } else {
        return nil
      }
    }
    guard i == s.count else { return nil }
    seconds += Double(whole)
    return seconds + fraction
  }

  static func pow10(_ k: Int) -> Double {
    var p = 1.0
    for _ in 0..<k { p *= 10 }
    return p
  }

  static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days from 1970-01-01 to the date (proleptic Gregorian calendar).
  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
