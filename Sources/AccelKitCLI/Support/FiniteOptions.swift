import ArgumentParser

/// A number given on the command line. `nan`, `inf` and `-infinity` parse as Doubles, and no
/// option of accelkit means them: an option declared `Finite` (or `Finite?`, `[Finite]`) is refused
/// by the parser itself (exit 64, naming the option) before anything runs. Every numeric option
/// of accelkit is declared so.
struct Finite: ExpressibleByArgument, ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, Comparable, Sendable,
  CustomStringConvertible
{
  let value: Double

  init(_ value: Double) {
    precondition(value.isFinite, "an option's default must be finite")
    self.value = value
  }

  init?(argument: String) {
    guard let value = Double(argument), value.isFinite else { return nil }
    self.value = value
  }

  init(floatLiteral value: Double) { self.init(value) }

  init(integerLiteral value: Int) { self.init(Double(value)) }

  static func < (a: Finite, b: Finite) -> Bool { a.value < b.value }

  /// As a Double prints (what the help shows for a default).
  var description: String { value.description }
}
