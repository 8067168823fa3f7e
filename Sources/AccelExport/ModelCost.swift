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
/// With the trees as a table (AK_DETECTOR_TREE_TABLE) the flash is exact but for the base: eight
/// bytes a node and two a tree's root with 16-bit indices (twelve and four past 65,535 nodes), so
/// the estimate holds on every model measured (the built-in model, five others of exponential
/// features, four of them with real positives, and one of windows; 60-169 trees, 972-8,222
/// nodes: 96-484 bytes over).
/// ExportCLITests builds a budgeted model and holds the measured cost to the budget.
public enum ModelCost {
  /// The form of the exported trees: nested comparisons (the default) or a table of nodes and a
  /// walk (compiled with AK_DETECTOR_TREE_TABLE).
  public enum TreeLayout: String, CaseIterable, Sendable {
    case code, table
  }
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
  /// The attitude features' code (measured: 440 bytes).
  static let attitudeFlash = 460
  /// The table's walk and margin loop beside the base (measured: 316-420 bytes with exponential
  /// features, 704 with windows), and its bytes a node and a root, with 16-bit indices and wider
  /// ones.
  static let tableWalkFlash = 800
  static let tableNode = (narrow: 8, wide: 12)
  static let tableRoot = (narrow: 2, wide: 4)

  /// Whether a label's table of `nodes` reading `features` features takes 16-bit indices (a
  /// node's feature keeps its top two bits for the flags), as the exported header decides it.
  static func narrowTable(nodes: Int, features: Int) -> Bool { nodes <= 65535 && features <= 16383 }

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

  /// The bytes of flash of a model with `nodes` tree nodes in `trees` trees and features `spec`,
  /// its trees in `layout`.
  public static func flash(nodes: Int, trees: Int, spec: FeatureSpec, layout: TreeLayout = .code) -> Int {
    let base = base(spec)
    switch layout {
    case .code:
      return base + Int((Double(nodes) * flashPerNode).rounded(.up))
    case .table:
      let wide = !narrowTable(nodes: nodes, features: spec.names.count)
      return base + tableWalkFlash + nodes * (wide ? tableNode.wide : tableNode.narrow) + trees
        * (wide ? tableRoot.wide : tableRoot.narrow)
    }
  }

  /// The most trees of `depth` (each of 2^(depth + 1) - 1 nodes at most) that fit `flash` bytes
  /// with features `spec`, their trees in `layout`.
  public static func trees(fitting flash: Int, depth: Int, spec: FeatureSpec, layout: TreeLayout = .code)
    -> Int
  {
    let perTree = (1 << (depth + 1)) - 1
    let room = flash - base(spec)
    switch layout {
    case .code:
      return max(0, Int((Double(room) / flashPerNode).rounded(.down))) / perTree
    case .table:
      let narrow = max(0, room - tableWalkFlash) / (perTree * tableNode.narrow + tableRoot.narrow)
      if narrowTable(nodes: narrow * perTree, features: spec.names.count) { return narrow }
      return max(0, room - tableWalkFlash) / (perTree * tableNode.wide + tableRoot.wide)
    }
  }

  static func base(_ spec: FeatureSpec) -> Int {
    (spec.kind == .windows ? flashBase : exponentialFlashBase) + (spec.attitude ? attitudeFlash : 0)
  }
}
