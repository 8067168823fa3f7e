import AccelGestures
import AccelLearning

/// What a learned model's exported C costs a Cortex-M4F in float (ModelExport's state and code),
/// estimated before it is built: an upper bound for training budgets (`accelkit train --ram
/// --flash`), calibrated against `scripts/footprint` (arm-none-eabi-gcc 12.2, -Os, newlib-nano) on
/// eight models of 12.5-50 Hz grids, one or two windows and 40-150 trees and the built-in model,
/// where it overestimates by 1-9%.
/// ExportCLITests builds a budgeted model and holds the measured cost to the budget.
public enum ModelCost {
  /// RAM beside the windows: the decoders, the event queue, the grid's and gravity's state, and
  /// the deepest call's stack.
  static let ramOverhead = 1450
  /// Flash beside the trees: the features, spectra, decoding and the API.
  static let flashBase = 11_000
  /// Flash per tree node compiled as code (a comparison and a branch, or a leaf's value).
  static let flashPerNode = 15.5

  /// The bytes of RAM (the state and the stack) of a model with features `spec`.
  public static func ram(spec: FeatureSpec) -> Int {
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

  /// The bytes of flash of a model with `nodes` tree nodes in all.
  public static func flash(nodes: Int) -> Int {
    flashBase + Int((Double(nodes) * flashPerNode).rounded(.up))
  }

  /// The most tree nodes that fit `flash` bytes.
  public static func nodes(fitting flash: Int) -> Int {
    max(0, Int((Double(flash - flashBase) / flashPerNode).rounded(.down)))
  }
}
