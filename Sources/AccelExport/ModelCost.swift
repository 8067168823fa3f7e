import AccelGestures
import AccelLearning

/// What a learned model's exported C costs a Cortex-M4F in float (ModelExport's state and code),
/// estimated before it is built: an upper bound for training budgets (`accelkit train --ram
/// --flash`), calibrated against `scripts/footprint` (arm-none-eabi-gcc 12.2, -Os, newlib-nano) on
/// eight models of 12.5-50 Hz grids, one or two windows and 40-150 trees and the built-in model,
/// where it overestimates by 1-9%; for exponential features on four models of one label (25-50 Hz,
/// one or two widths, 5-150 trees), where it overestimates by 1-12%. One label each: another label
/// adds its decoder and event queue (about 600 bytes). Not an upper bound for every model: two of
/// 82 trees of depth 4 trained with real positives (four widths, one with attitude features) take
/// 1.3% and 2.4% more flash than estimated (docs/LEARNING.md, "Exponential features with real
/// positives").
/// ExportCLITests builds a budgeted model and holds the measured cost to the budget.
public enum ModelCost {
  /// RAM beside the windows: the decoders, the event queue, the grid's and gravity's state, and
  /// the deepest call's stack.
  static let ramOverhead = 1450
  /// Flash beside the trees: the features, spectra, decoding and the API.
  static let flashBase = 11_000
  /// Flash per tree node compiled as code (a comparison and a branch, or a leaf's value).
  static let flashPerNode = 15.5
  /// With exponential features: RAM beside the averages and the row, and flash beside the trees.
  static let exponentialRamOverhead = 1032
  static let exponentialFlashBase = 9_700

  /// The bytes of RAM (the state and the stack) of a model with features `spec`.
  public static func ram(spec: FeatureSpec) -> Int {
    if spec.kind == .exponential {
      let (signals, widths, bands) = (spec.signals.count, spec.widthsSeconds.count, spec.bands.count)
      var bytes = signals * widths * (8 * 4 + 1) + signals * 4  // eight averages, a side, the last value
      bytes += signals * widths * (bands + 1) * 4  // the bands' powers (one spare)
      bytes += signals * (bands + 1) * 2 * 4  // the filters' delays
      bytes += widths * 6 * 4 + 12  // covariances, deviations, the counters
      bytes += spec.names.count * 4  // the row
      if spec.attitude { bytes += widths * 6 * 4 + 6 * 4 }  // the directions' averages, and on the stack
      return bytes + exponentialRamOverhead
    }
    let signals = spec.signals.count
    let capacity = spec.windowSamples.max() ?? 0
    let transform = FeatureSpec.transformSize(capacity)
    let countBytes = capacity < 65535 ? 2 : 4
    let perSample = 4 + 1 + 1 + countBytes  // a value, its peak flag, its side, its turn count
    var bytes = signals * 2 * capacity * perSample  // written twice, so that a window is one run
    bytes += signals * capacity * 4  // the tapered window
    bytes += spec.widthsSeconds.count * capacity * 4  // the Hann windows
    bytes += transform * 4 + 2 * transform * 4 + (transform + 2) * 4  // twiddles, buffer, powers
    bytes += spec.names.count * 4  // the row (the trees read it as it is in float)
    return bytes + ramOverhead
  }

  /// The bytes of flash of a model with `nodes` tree nodes in all and features of `kind`.
  public static func flash(nodes: Int, kind: FeatureSpec.Kind) -> Int {
    base(kind) + Int((Double(nodes) * flashPerNode).rounded(.up))
  }

  /// The most tree nodes that fit `flash` bytes with features of `kind`.
  public static func nodes(fitting flash: Int, kind: FeatureSpec.Kind) -> Int {
    max(0, Int((Double(flash - base(kind)) / flashPerNode).rounded(.down)))
  }

  static func base(_ kind: FeatureSpec.Kind) -> Int { kind == .windows ? flashBase : exponentialFlashBase }
}
