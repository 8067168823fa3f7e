import AccelCore

/// Whether a trace's acceleration units look right: at rest a accelerometer reads 1 g, so the
/// magnitude the first samples mostly have says which unit the numbers are in. Every reader notes
/// the result once, with its first block, so every command that reads a trace warns in the same
/// words (`info` among them).
public enum UnitsCheck {
  /// Median magnitudes, in g, that an accelerometer reads at rest or in motion (gravity alone is
  /// 1 g; vigorous shaking for most of a block raises the median, gravity removed lowers it):
  /// nothing is said inside this range.
  public static let acceptable = 0.5...2.0
  /// The range in which a magnitude read in another unit is taken as that unit's 1 g.
  public static let plausible = 0.7...1.4

  /// The magnitude at rest, in g: the median of |a| over `block` (the median, not the mean, so
  /// that a few seconds of shaking do not move it). nil for an empty block or non-finite samples
  /// only.
  public static func restMagnitude(_ block: SampleBlock) -> Double? {
    let norms = sortedNorms(block)
    return norms.isEmpty ? nil : norms[norms.count / 2]
  }

  /// The finite |a| of `block`, ascending.
  static func sortedNorms(_ block: SampleBlock) -> [Double] {
    var norms: [Double] = []
    norms.reserveCapacity(block.count)
    for i in 0..<block.count {
      let n = (block.x[i] * block.x[i] + block.y[i] * block.y[i] + block.z[i] * block.z[i]).squareRoot()
      if n.isFinite { norms.append(n) }
    }
    return norms.sorted()
  }

  /// The warning for a magnitude at rest of `magnitude` g when the trace was read as `unit`, or nil
  /// when it is plausible: the unit that would make it about 1 g, when there is one, else what
  /// else could be wrong.
  public static func warning(restMagnitude magnitude: Double, readAs unit: AccelerationUnit) -> String? {
    guard magnitude.isFinite, !acceptable.contains(magnitude) else { return nil }
    let asRead = magnitude * unit.divisorToG  // in the file's own numbers
    let described = "|a| at rest reads \(cFormat("%.4g", asRead)) \(unit.label)"
    if let likely = AccelerationUnit.allCases.first(where: { $0 != unit && plausible.contains(asRead / $0.divisorToG) }) {
      let fix = likely == .g ? "pass --units g" : "pass --units \(likely.rawValue)"
      return "\(described): the units look like \(likely.label), not \(unit.label) (\(fix))"
    }
    return "\(described)\(unit == .g ? "" : ", \(cFormat("%.4g", magnitude)) g"), far from 1 g: check --units, or whether gravity was already removed"
  }

  /// Whether the block is in motion for most of it rather than at rest: the middle half of its
  /// magnitudes spreads over more than half their median (a trace that begins while the device is
  /// being shaken; at rest, in any unit, the spread is noise).
  static func isMostlyMoving(sortedNorms norms: [Double]) -> Bool {
    guard norms.count >= 4 else { return false }
    return norms[3 * norms.count / 4] - norms[norms.count / 4] > 0.5 * norms[norms.count / 2]
  }

  /// The note for the first block of a trace read as `unit`, or nil. A block whose magnitude is
  /// high because the device is moving through most of it (not at rest) says nothing about units.
  static func note(_ block: SampleBlock, readAs unit: AccelerationUnit) -> String? {
    let norms = sortedNorms(block)
    guard !norms.isEmpty else { return nil }
    let magnitude = norms[norms.count / 2]
    if magnitude > acceptable.upperBound && isMostlyMoving(sortedNorms: norms) { return nil }
    return warning(restMagnitude: magnitude, readAs: unit)
  }
}

extension AccelerationUnit {
  /// The unit as people write it in a message.
  public var label: String {
    switch self {
    case .g: "g"
    case .mg: "mg"
    case .metersPerSecondSquared: "m/s^2"
    }
  }
}
