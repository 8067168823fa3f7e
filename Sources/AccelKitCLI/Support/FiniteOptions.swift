import AccelCore
import ArgumentParser

/// The one check that every number given on the command line is finite: `nan`, `inf` and
/// `-infinity` parse as Doubles, and no option of accelkit means them, so a parsed command whose
/// options hold one is a usage error (exit 64) before anything runs.
enum FiniteOptions {
  /// Throws a usage error naming the first option (in declaration order, option groups
  /// included) whose value is NaN or infinite.
  static func check(_ command: ParsableCommand) throws {
    if let (label, value) = firstNonFinite(in: command) {
      throw AccelError.usage(
        "--\(optionName(label)) must be a finite number, got \(formatNumber(value))",
        hint: "give a number such as 0.5 or 1e-3")
    }
  }

  /// Walks the stored properties (property wrappers and option groups included) for a Double,
  /// optional Double or array of Doubles that is not finite; returns its property's label.
  static func firstNonFinite(in value: Any, label: String? = nil, depth: Int = 0) -> (String, Double)? {
    if let number = value as? Double {
      return number.isFinite ? nil : (label ?? "", number)
    }
    guard depth < 8 else { return nil }
    for child in Mirror(reflecting: value).children {
      // A property wrapper's storage is `_name`; inside the wrapper, keep that name.
      let name = child.label.flatMap { $0.hasPrefix("_") && !wrapperInternals.contains($0) ? $0 : nil } ?? label
      if let found = firstNonFinite(in: child.value, label: name, depth: depth + 1) { return found }
    }
    return nil
  }

  /// The labels of swift-argument-parser's own storage inside its property wrappers.
  static let wrapperInternals: Set<String> = ["_parsedValue", "_visibility", "_title"]

  /// The option name of a property label: `_tukeyAlpha` -> `tukey-alpha`.
  static func optionName(_ label: String) -> String {
    var name = ""
    for c in label.drop(while: { $0 == "_" }) {
      if c.isUppercase {
        name += "-" + c.lowercased()
      } else {
        name.append(c)
      }
    }
    return name
  }
}
