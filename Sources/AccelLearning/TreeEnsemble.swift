import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A binary classifier saved by XGBoost in its JSON format (`binary:logistic`, gradient-boosted
/// trees), evaluated the way XGBoost's CPU predictor evaluates it: features as 32-bit floats, a
/// node sends a value left when it is below the split condition and a missing value (NaN) to
/// its default side, the leaves of every tree added in single precision to the base margin, and
/// the logistic function of the sum.
///
/// The same file loads in XGBoost itself (Python, R, the JVM, its C API): the model is the
/// description, and accelkit only reads it.
public struct TreeEnsemble: Sendable, Equatable {
  /// One tree in structure-of-arrays form, as XGBoost stores it.
  struct Tree: Sendable, Equatable {
    var left: [Int32]
    var right: [Int32]
    var feature: [Int32]
    /// The split condition of an inner node; the leaf value of a leaf.
    var value: [Float]
    var defaultLeft: [Bool]
  }

  /// Every tree's nodes in one array (children as indices into it; a leaf is its own two
  /// children), for the walk: `depth` steps from a root always end at its leaf.
  struct Node: Sendable, Equatable {
    var left: Int32
    var right: Int32
    var feature: Int32
    var value: Float
    var defaultLeft: Bool
  }
  var nodes: [Node] = []
  var roots: [Int32] = []
  var depth = 0
  /// Per group of eight trees (as the walk takes them; one more entry, 0, past the last), the
  /// most that group's and every later group's leaves can add to the margin.
  public private(set) var mostRemaining: [Double] = []
  /// How far single-precision rounding can move the margin's sum from the exact sum of its terms:
  /// each addition by half a unit in the last place of a sum no larger than the base margin's
  /// size plus every tree's largest leaf size.
  var roundingBound = 0.0
  /// The base score in margin space (the logit of XGBoost's `base_score`).
  let baseMargin: Float
  /// The names of the features, in the model's column order.
  public let featureNames: [String]

  /// Reads XGBoost's JSON model; `file` names it in errors.
  public init(json bytes: [UInt8], file: String) throws {
    let document = try JSONDocument(bytes, file: file)
    let root = document.root
    // Errors name the line and column of the value at fault (of the object that lacks a member).
    func fail(_ text: String, _ at: [String] = []) -> AccelError {
      AccelError.data(document.location(at), "not an XGBoost model accelkit can run: \(text)")
    }
    guard let learner = root["learner"] else { throw fail("no \"learner\"") }
    let objective = learner["objective"]?["name"]?.string
    guard objective == "binary:logistic" else {
      throw fail(
        "the objective is \(objective.map(quotedField) ?? "missing"), not binary:logistic",
        ["learner", "objective", "name"])
    }
    guard let names = learner["feature_names"]?.array?.compactMap(\.string), !names.isEmpty else {
      throw fail("no feature_names", ["learner", "feature_names"])
    }
    featureNames = names
    guard let baseText = learner["learner_model_param"]?["base_score"]?.string,
      let base = Double(baseText), base > 0, base < 1
    else { throw fail("no base_score in (0, 1)", ["learner", "learner_model_param", "base_score"]) }
    baseMargin = Float(-log(1 / base - 1))
    guard let booster = learner["gradient_booster"], booster["name"]?.string == "gbtree",
      let items = booster["model"]?["trees"]?.array
    else { throw fail("not a gbtree booster", ["learner", "gradient_booster"]) }
    let trees = try items.enumerated().map { number, item in
      let tree = ["learner", "gradient_booster", "model", "trees", String(number)]
      func ints(_ key: String) throws -> [Int32] {
        guard let values = item[key]?.array else { throw fail("a tree has no \(key)", tree + [key]) }
        return try values.enumerated().map { i, value in
          guard let v = value.number, v == v.rounded(), abs(v) < 2e9 else {
            throw fail("a tree's \(key) is not whole", tree + [key, String(i)])
          }
          return Int32(v)
        }
      }
      let left = try ints("left_children")
      let right = try ints("right_children")
      let feature = try ints("split_indices")
      guard let conditions = item["split_conditions"]?.array?.compactMap(\.number),
        let defaults = item["default_left"]?.array
      else { throw fail("a tree has no split_conditions or default_left", tree) }
      let n = left.count
      guard n > 0, right.count == n, feature.count == n, conditions.count == n, defaults.count == n else {
        throw fail("a tree's arrays differ in length", tree)
      }
      if let types = item["split_type"]?.array, let k = types.firstIndex(where: { $0.number != 0 }) {
        throw fail("categorical splits", tree + ["split_type", String(k)])
      }
      // Each fault named as it is: a child that is the node itself or an earlier node (a loop),
      // a child past the tree's end, a feature the model does not have.
      for i in 0..<n where left[i] != -1 {
        let node = "tree \(number), node \(i)"
        for (side, child) in [("left", left[i]), ("right", right[i])] {
          let at = tree + ["\(side)_children", String(i)]
          if child == Int32(i) {
            throw fail("\(node): its \(side) child is the node itself (a loop)", at)
          } else if child >= 0 && child < Int32(i) {
            throw fail("\(node): its \(side) child \(child) comes before it (a loop, or not a tree)", at)
          } else if child < 0 || child >= Int32(n) {
            throw fail("\(node): its \(side) child \(child) is outside the tree's \(n) nodes", at)
          }
        }
        guard feature[i] >= 0, Int(feature[i]) < names.count else {
          throw fail(
            "\(node) splits on feature \(feature[i]), but the model has \(names.count) features (0 to \(names.count - 1))",
            tree + ["split_indices", String(i)])
        }
      }
      return Tree(
        left: left, right: right, feature: feature, value: conditions.map { Float($0) },
        defaultLeft: defaults.map { $0.bool ?? ($0.number == 1) })
    }
    (nodes, roots, depth) = Self.flatten(trees)
    (mostRemaining, roundingBound) = Self.bounds(nodes: nodes, roots: roots, baseMargin: baseMargin)
  }

  /// `mostRemaining` and `roundingBound` of laid-out trees.
  static func bounds(nodes: [Node], roots: [Int32], baseMargin: Float) -> (
    mostRemaining: [Double], rounding: Double
  ) {
    let ends = roots.dropFirst().map(Int.init) + [nodes.count]
    let leaves = zip(roots.map(Int.init), ends).map { start, end in
      (start..<end).filter { nodes[$0].left == Int32($0) }.map { Double(nodes[$0].value) }
    }
    let groups = (leaves.count + 7) / 8
    var most = [Double](repeating: 0, count: groups + 1)
    for g in stride(from: groups - 1, through: 0, by: -1) {
      most[g] = most[g + 1] + leaves[(8 * g)..<min(8 * g + 8, leaves.count)].reduce(0) { $0 + $1.max()! }
    }
    let largest = leaves.reduce(abs(Double(baseMargin))) { $0 + $1.map(abs).max()! }
    return (most, Double(leaves.count) * largest * 0x1p-24)
  }

  /// Lays the trees' nodes out in one array.
  static func flatten(_ trees: [Tree]) -> (nodes: [Node], roots: [Int32], depth: Int) {
    var nodes: [Node] = []
    var roots: [Int32] = []
    var depth = 0
    for tree in trees {
      let base = Int32(nodes.count)
      roots.append(base)
      var levels = [Int](repeating: 0, count: tree.left.count)
      for i in tree.left.indices {
        let me = base + Int32(i)
        if tree.left[i] == -1 {
          nodes.append(Node(left: me, right: me, feature: 0, value: tree.value[i], defaultLeft: true))
        } else {
          // Children come after their parent (checked on reading).
          levels[Int(tree.left[i])] = levels[i] + 1
          levels[Int(tree.right[i])] = levels[i] + 1
          nodes.append(
            Node(
              left: base + tree.left[i], right: base + tree.right[i], feature: tree.feature[i],
              value: tree.value[i], defaultLeft: tree.defaultLeft[i]))
        }
      }
      depth = max(depth, levels.max() ?? 0)
    }
    return (nodes, roots, depth)
  }

  /// The probability of the positive class for one row of features in `featureNames`' order.
  public func probability(_ features: UnsafeBufferPointer<Double>) -> Double {
    withEvaluator { $0.probability(features) }
  }

  /// The margin below which a row's probability is below `floor` for certain, whatever the
  /// rounding of the margin's sum and of the logistic function (a relative error under four
  /// units in the last place of a float, in margin space that over p (1 - p)), with room to
  /// spare; nil for a floor so near 0 or 1 that no margin is certain (then every row is scored
  /// in full).
  public func marginSurelyBelow(_ floor: Double) -> Double? {
    let spread = floor * (1 - floor)
    guard spread > 1e-6 else { return nil }
    let slack = 2 * (roundingBound + 4 * 0x1p-24 / spread) + 1e-3
    return log(floor / (1 - floor)) - slack
  }

  /// The raw margin: the base margin plus every tree's leaf, in single precision.
  public func margin(_ features: UnsafeBufferPointer<Double>) -> Float {
    withEvaluator { $0.margin(features) }
  }

  /// Runs `body` with an evaluator that reads the trees in place: rows scored inside it copy
  /// nothing and count no references.
  public func withEvaluator<R>(_ body: (Evaluator) throws -> R) rethrows -> R {
    try nodes.withUnsafeBufferPointer { nodes in
      try roots.withUnsafeBufferPointer { roots in
        try mostRemaining.withUnsafeBufferPointer { most in
          try body(
            Evaluator(nodes: nodes, roots: roots, depth: depth, baseMargin: baseMargin, mostRemaining: most))
        }
      }
    }
  }

  /// Runs `body` with every ensemble's evaluator, in order.
  public static func withEvaluators<R>(_ ensembles: [TreeEnsemble], _ body: ([Evaluator]) throws -> R)
    rethrows -> R
  {
    func nest(_ k: Int, _ done: [Evaluator]) throws -> R {
      guard k < ensembles.count else { return try body(done) }
      return try ensembles[k].withEvaluator { try nest(k + 1, done + [$0]) }
    }
    return try nest(0, [])
  }

  /// The trees of an ensemble, borrowed for the time of `withEvaluator`.
  public struct Evaluator {
    let nodes: UnsafeBufferPointer<Node>
    let roots: UnsafeBufferPointer<Int32>
    let depth: Int
    let baseMargin: Float
    let mostRemaining: UnsafeBufferPointer<Double>

    public func probability(_ features: UnsafeBufferPointer<Double>) -> Double {
      Double(TreeEnsemble.logistic(margin(features)))
    }

    /// The probability, or 0 when the trees walked so far prove the margin will end below
    /// `limit` (from `marginSurelyBelow`): the rest are not walked. For a decoder, whose every
    /// threshold is at or above the floor, the 0 and the probability are the same.
    public func probability(_ features: UnsafeBufferPointer<Double>, unlessBelow limit: Double) -> Double {
      withUnsafeTemporaryAllocation(of: Float.self, capacity: features.count) {
        probability(features, unlessBelow: limit, scratch: $0)
      }
    }

    /// The same, the features' single-precision copy in `scratch` (at least as long as them):
    /// a caller scoring many rows allocates it once.
    public func probability(
      _ features: UnsafeBufferPointer<Double>, unlessBelow limit: Double,
      scratch: UnsafeMutableBufferPointer<Float>
    ) -> Double {
      precondition(scratch.count >= features.count, "the scratch is shorter than the features")
      for i in features.indices { scratch[i] = Float(features[i]) }
      return probability(floats: scratch, unlessBelow: limit)
    }

    /// The same of a row already in single precision: several ensembles read one copy.
    public func probability(floats: UnsafeMutableBufferPointer<Float>, unlessBelow limit: Double) -> Double {
      var sum = baseMargin
      let below = margin(floats, into: &sum, unlessBelow: limit)
      return below ? 0 : Double(TreeEnsemble.logistic(sum))
    }

    public func margin(_ features: UnsafeBufferPointer<Double>) -> Float {
      // The features as the trees compare them (single precision), once.
      var sum = baseMargin
      withUnsafeTemporaryAllocation(of: Float.self, capacity: features.count) { values in
        for i in features.indices { values[i] = Float(features[i]) }
        _ = margin(values, into: &sum, unlessBelow: -.infinity)
      }
      return sum
    }

    /// Eight trees walk side by side (their loads overlap), every one `depth` steps; the leaves
    /// are added in the trees' order, as XGBoost does. After each eight, true (and the walk stops)
    /// when the sum so far and the most the later trees can add stay below `limit`.
    private func margin(
      _ features: UnsafeMutableBufferPointer<Float>, into sum: inout Float, unlessBelow limit: Double
    )
      -> Bool
    {
      let (nodes, roots, depth, most) = (self.nodes, self.roots, self.depth, self.mostRemaining)
      return withUnsafeTemporaryAllocation(of: Int.self, capacity: 8) { at in
        var t = 0
        while t < roots.count {
          if Double(sum) + most[t / 8] < limit { return true }
          let count = min(8, roots.count - t)
          for lane in 0..<8 { at[lane] = Int(roots[t + min(lane, count - 1)]) }
          for _ in 0..<depth {
            for lane in 0..<8 {
              let node = nodes[at[lane]]
              let v = features[Int(node.feature)]
              let left = v.isNaN ? node.defaultLeft : v < node.value
              at[lane] = Int(left ? node.left : node.right)
            }
          }
          for lane in 0..<count { sum += nodes[at[lane]].value }
          t += 8
        }
        return false
      }
    }
  }

  static func logistic(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

  /// A node as the trees hold it, for writing them elsewhere (`accelkit export`): an inner node
  /// sends a feature value below `value` to `left` and a missing one to its default side; a
  /// leaf (`left` nil) holds its value.
  public struct Split: Sendable {
    public let left: Int?
    public let right: Int
    public let feature: Int
    public let value: Float
    public let defaultLeft: Bool
  }

  /// The base margin and every tree's nodes (children as indices into the tree's own nodes,
  /// root first), in the order their leaves are added.
  public var structure: (baseMargin: Float, trees: [[Split]]) {
    let ends = roots.dropFirst().map(Int.init) + [nodes.count]
    let trees = zip(roots.map(Int.init), ends).map { start, end in
      (start..<end).map { i in
        let node = nodes[i]
        return node.left == Int32(i)
          ? Split(left: nil, right: 0, feature: 0, value: node.value, defaultLeft: true)
          : Split(
            left: Int(node.left) - start, right: Int(node.right) - start, feature: Int(node.feature),
            value: node.value, defaultLeft: node.defaultLeft)
      }
    }
    return (baseMargin, trees)
  }

  /// How often each feature splits a node, over every tree (XGBoost's "weight" importance).
  public var splitCounts: [Int] {
    var counts = [Int](repeating: 0, count: featureNames.count)
    for (i, node) in nodes.enumerated() where node.left != Int32(i) { counts[Int(node.feature)] += 1 }
    return counts
  }
}
