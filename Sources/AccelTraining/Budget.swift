import AccelCore
import AccelExport
import AccelGestures
import AccelLearning

/// What a learned detector may cost on its device (a Cortex-M4F, the exported C in float): RAM
/// (state and stack) and flash, in bytes; nil for no bound.
public struct DeviceBudget: Equatable, Sendable {
  public var ram: Int?
  public var flash: Int?
  /// The form the exported trees will take, which sets what a node costs.
  public var trees: ModelCost.TreeLayout

  public init(ram: Int? = nil, flash: Int? = nil, trees: ModelCost.TreeLayout = .code) {
    self.ram = ram
    self.flash = flash
    self.trees = trees
  }

  /// A size as people write it: `4096`, `4KiB`, `48 KiB`, `1MiB` (powers of 1024), `32kB` or `32KB`
  /// (powers of 1000), with an optional `B`.
  public static func parseSize(_ text: String) throws -> Int {
    let compact = text.filter { $0 != " " }
    let digits = compact.prefix { $0.isNumber || $0 == "." }
    let unit = compact.dropFirst(digits.count).lowercased()
    let factors: [String: Double] = [
      "": 1, "b": 1, "kib": 1024, "kb": 1000, "k": 1024, "mib": 1_048_576, "mb": 1_000_000, "m": 1_048_576,
    ]
    guard let number = Double(digits), number.isFinite, number > 0, let factor = factors[unit],
      number * factor >= 1, number * factor <= 1_099_511_627_776
    else {
      throw AccelError.usage(
        "a size is bytes, or a number with KiB, MiB, kB or MB (e.g. 4KiB, 48KiB), got \(quotedField(text))")
    }
    return Int((number * factor).rounded(.down))
  }

  /// The features, tree depth and rounds of `settings` made to fit: the features as given if they
  /// fit the RAM, else the richest that do (grids of 25, 20, 16 and 12.5 Hz, at most the one
  /// given, and one window of 2, 1.5 or 1 s, in that order, the bands cut at half the grid's
  /// rate); then as many trees of the given depth as the flash holds, a shallower depth while that
  /// leaves fewer than 60 (down to depth 3; below it, while fewer than 30), and above depth 4
  /// while it leaves fewer than the rounds asked for (each classifier, a label's or its sustained
  /// one, in an equal share of the flash the rest leaves), with the learning rate
  /// raised as the rounds fall (at most 0.5). Throws
  /// when nothing fits, saying what the smallest needs.
  public func fitting(_ settings: TrainingSettings) throws -> TrainingSettings {
    var fitted = settings
    if let ram {
      let candidates = Self.specs(from: settings.spec)
      guard let spec = candidates.first(where: { ModelCost.ram(spec: $0) <= ram }) else {
        let smallest = candidates.min { ModelCost.ram(spec: $0) < ModelCost.ram(spec: $1) } ?? settings.spec
        throw AccelError.usage(
          "no feature set fits \(ram) bytes of RAM: the smallest tried (\(smallest.widthsPhrase) on a \(formatNumber(smallest.rateHz)) Hz grid) needs about \(ModelCost.ram(spec: smallest))",
          hint:
            "a model's state holds its window of every signal; give more RAM, or use a rule (accelkit export --rule swing needs 364 bytes)"
        )
      }
      fitted.spec = spec
    }
    if let flash {
      let spec = fitted.spec
      // Every classifier (each label's, and its sustained one) gets an equal share of what the
      // features, decoding and API leave.
      let sustained = settings.sustained ? settings.labels.count : 0
      let classifiers = settings.labels.count + sustained
      let base = ModelCost.flash(nodes: 0, trees: 0, spec: spec, layout: trees)
      let shared = base + sustained * ModelCost.sustainedFlash
      let share = classifiers == 1 || flash <= shared ? flash : base + (flash - shared) / classifiers
      func fitting(_ d: Int) -> Int { ModelCost.trees(fitting: share, depth: d, spec: spec, layout: trees) }
      var depth = settings.maxDepth
      // In the same flash, more and shallower trees hold out better (docs/LEARNING.md): 79 of
      // depth 4 beat 39 of depth 5, 82 of depth 4 beat 75 of depth 5 as a table, though no
      // deeper cut pays below depth 3. A depth above 4 is kept only with every round.
      func tooFew(_ d: Int) -> Bool {
        let trees = fitting(d)
        return trees < min(settings.rounds, 30) || (d > 3 && trees < min(settings.rounds, 60))
          || (d > 4 && trees < settings.rounds)
      }
      while depth > 1 && tooFew(depth) { depth -= 1 }
      let rounds = min(settings.rounds, fitting(depth))
      guard rounds >= 1 else {
        throw AccelError.usage(
          "no model fits \(flash) bytes of flash: the features, decoding and API alone take about \(ModelCost.flash(nodes: 0, trees: 0, spec: spec, layout: trees))",
          hint: "give more flash, or use a rule (accelkit export --rule swing needs 3,380 bytes)")
      }
      fitted.maxDepth = depth
      fitted.rounds = rounds
      // Fewer rounds at the same learning rate cannot reach the probabilities the decoding needs
      // (39 trees at 0.1 stay below 0.99 where 150 reach it): the rate grows by what the rounds
      // shrink, up to 0.5, so that the ensemble's total step is kept.
      if rounds < settings.rounds {
        fitted.learningRate = min(0.5, settings.learningRate * Double(settings.rounds) / Double(rounds))
      }
    }
    fitted.budget = self
    return fitted
  }

  /// `spec` first, then the smaller feature sets tried, richest first.
  static func specs(from spec: FeatureSpec) -> [FeatureSpec] {
    var out = [spec]
    for rate in [25.0, 20, 16, 12.5] where rate <= spec.rateHz {
      for width in [2.0, 1.5, 1] {
        var s = spec
        s.rateHz = rate
        s.widthsSeconds = [width]
        s.bands = spec.bands.compactMap { band in
          band.low < rate / 2 ? FeatureSpec.FrequencyBand(band.low, min(band.high, rate / 2)) : nil
        }
        if (try? s.validate()) != nil, !out.contains(s) { out.append(s) }
      }
    }
    return out
  }
}
