import AccelGestures
import AccelLearning

/// What a learned model's exported C costs a Cortex-M4F in float (ModelExport's state and code,
/// its trees stopped early as by default), estimated before it is built: an upper bound for
/// training budgets (`accelkit train --ram --flash`), calibrated against `scripts/footprint`
/// (arm-none-eabi-gcc 12.2, -Os, newlib-nano) on 23 models of one label: eight of windows (12.5-50
/// Hz grids, one or two windows) and fifteen of exponential features (25-50 Hz, one to four
/// widths, seven with attitude features), 40-169 trees of depth 3-5 and 705-8,222 nodes, the
/// built-in model, the five budgeted ones of ExportCLITests and six trained with real positives
/// (docs/LEARNING.md) among them, before the decoder's `extend` (about 360 bytes, of which the
/// exponential base now counts 200: the built-in model's estimate is 0.3% above its measured
/// flash). As code it overestimated every one, by 0.3-7.5%; as a table
/// (AK_DETECTOR_TREE_TABLE), whose flash is exact but for the base (eight bytes a node and two a
/// tree's root with 16-bit indices, twelve and four past 65,535 nodes), by 0.1-4.6%. Another label
/// adds its decoder and event queue (about 600 bytes). ExportCLITests builds budgeted models and
/// holds the measured cost to the budget and the estimate.
public enum ModelCost {
  /// The form of the exported trees: nested comparisons (the default) or a table of nodes and a
  /// walk (compiled with AK_DETECTOR_TREE_TABLE).
  public enum TreeLayout: String, CaseIterable, Sendable {
    case code, table
  }
  /// RAM beside the windows: the decoders, the event queue, the grid's and gravity's state, and
  /// the deepest call's stack.
  static let ramOverhead = 1450
  /// Flash beside the trees: the features, spectra, decoding and the API (measured: 9,858-10,300
  /// bytes with one or two windows).
  static let flashBase = 10_400
  /// Flash per tree node compiled as code (a comparison and a branch, or a leaf's value).
  static let flashPerNode = 16.0
  /// With exponential features: RAM beside the averages and the row, and flash beside the trees
  /// (measured: 4,414-4,572 bytes before the decoder's `extend` added about 360; raised by 200,
  /// the most that keeps the built-in model's budget at 86 trees a classifier, the other terms'
  /// room holding the rest).
  static let exponentialRamOverhead = 1032
  static let exponentialFlashBase = 4_800
  /// The attitude features' code (measured: 440 bytes).
  static let attitudeFlash = 460
  /// The shape features' code (measured: 152 bytes).
  static let shapeFlash = 200
  /// The swing features' code: the covariance, the axis, the half-swings and the row's two a
  /// width (measured: 1,200 bytes in float with two widths).
  static let swingFlash = 1_300
  /// The table's walk and margin loop beside the base (measured: 316-420 bytes with exponential
  /// features, 704 with windows), and its bytes a node and a root, with 16-bit indices and wider
  /// ones.
  static let tableWalkFlash = 800
  static let tableNode = (narrow: 8, wide: 12)
  static let tableRoot = (narrow: 2, wide: 4)
  /// The early stop, every eight trees: as code a comparison with its limit inlined (measured:
  /// 32-79 bytes), in a table the limit (four bytes) beside the check (measured: 88-136 bytes in
  /// all for 10-22 groups).
  static let stopPerGroup = (code: 80, table: 4)
  static let tableStopFlash = 60
  /// A label's sustained classifier beside its trees: its margin's loop or function, its stop, its
  /// logistic and the decoder's comparisons (measured: the built-in model's second classifier
  /// costs 36 bytes more than its nodes, roots and stops as a table; an upper bound with room).
  public static let sustainedFlash = 400

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
      // With swing features, three averages a width, the covariance, axis and peak, the counters.
      if spec.swing { bytes += widths * 3 * 4 + 10 * 4 + 5 * 4 }
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
  /// its trees in `layout`, with `sustained` sustained classifiers among them.
  public static func flash(
    nodes: Int, trees: Int, spec: FeatureSpec, layout: TreeLayout = .code, sustained: Int = 0
  ) -> Int {
    let base = base(spec) + sustained * sustainedFlash
    let groups = (trees + 7) / 8
    switch layout {
    case .code:
      return base + Int((Double(nodes) * flashPerNode).rounded(.up)) + groups * stopPerGroup.code
    case .table:
      let wide = !narrowTable(nodes: nodes, features: spec.names.count)
      return base + tableWalkFlash + nodes * (wide ? tableNode.wide : tableNode.narrow) + trees
        * (wide ? tableRoot.wide : tableRoot.narrow) + tableStopFlash + groups * stopPerGroup.table
    }
  }

  /// The most trees of `depth` (each of 2^(depth + 1) - 1 nodes at most) that fit `flash` bytes
  /// with features `spec`, their trees in `layout`.
  public static func trees(fitting flash: Int, depth: Int, spec: FeatureSpec, layout: TreeLayout = .code)
    -> Int
  {
    let perTree = (1 << (depth + 1)) - 1
    // The estimate grows with the trees (a node costs at least a byte): the most that fit, by halving.
    var (low, high) = (0, max(0, flash / perTree))
    while low < high {
      let middle = (low + high + 1) / 2
      if self.flash(nodes: middle * perTree, trees: middle, spec: spec, layout: layout) <= flash {
        low = middle
      } else {
        high = middle - 1
      }
    }
    return low
  }

  static func base(_ spec: FeatureSpec) -> Int {
    (spec.kind == .windows ? flashBase : exponentialFlashBase) + (spec.attitude ? attitudeFlash : 0)
      + (spec.shape ? shapeFlash : 0) + (spec.swing ? swingFlash : 0)
  }
}
