import AccelCore
import AccelExport
import AccelLearning
import AccelTraining
import Testing

/// What a device budget makes of the training settings, by hand.
@Suite struct BudgetTests {
  @Test func sizesReadAsPeopleWriteThem() throws {
    #expect(try DeviceBudget.parseSize("4KiB") == 4096)
    #expect(try DeviceBudget.parseSize("48 KiB") == 49152)
    #expect(try DeviceBudget.parseSize("32kB") == 32000)
    #expect(try DeviceBudget.parseSize("1MiB") == 1_048_576)
    #expect(try DeviceBudget.parseSize("512") == 512)
    for bad in ["", "KiB", "-4KiB", "4 parsecs", "nan", "0"] {
      #expect(throws: AccelError.self) { try DeviceBudget.parseSize(bad) }
    }
  }

  /// The flash sets the trees (ModelCost: a base of 10,400 bytes, 16 a node and 80 for each
  /// eight trees' early stop): at 48 KiB, 38 trees of depth 5 (63 nodes a tree at most; 38,304 +
  /// 400 bytes), fewer than 60, so 76 of depth 4 (31 nodes; 37,696 + 800); the learning rate
  /// grows as the rounds fall (150 x 0.1 / 76), and is left alone when nothing is cut.
  @Test func fewerRoundsLearnFaster() throws {
    let settings = TrainingSettings(labels: ["shake"])
    let fitted = try DeviceBudget(flash: 49152).fitting(settings)
    #expect(fitted.rounds == 76 && fitted.maxDepth == 4)
    #expect(abs(fitted.learningRate - 0.1 * 150 / 76) < 1e-12)
    #expect(ModelCost.flash(nodes: 76 * 31, trees: 76, spec: settings.spec) == 48896)
    #expect(ModelCost.flash(nodes: 77 * 31, trees: 77, spec: settings.spec) == 49392)
    // Asked for 40 rounds: 38 of depth 5 fall short, all 40 fit at depth 4, at the rate given.
    var few = settings
    few.rounds = 40
    let kept = try DeviceBudget(flash: 49152).fitting(few)
    #expect(kept.rounds == 40 && kept.maxDepth == 4 && kept.learningRate == 0.1)
    // 24000 bytes: 13,600 beside the base; 26 trees of depth 4 are too few, 54 of depth 3 are
    // kept (depth 3 needs only 30).
    let middle = try DeviceBudget(flash: 24000).fitting(settings)
    #expect(middle.maxDepth == 3 && middle.rounds == 54)
    // 16000 bytes: 5,600, too few for 30 trees until depth 2 (45 trees).
    let small = try DeviceBudget(flash: 16000).fitting(settings)
    #expect(small.maxDepth == 2 && small.rounds == 45 && abs(small.learningRate - 15.0 / 45) < 1e-12)
    // 12000 bytes: 1,600, 26 stumps; the rate stops at 0.5.
    let tight = try DeviceBudget(flash: 12000).fitting(settings)
    #expect(tight.maxDepth == 1 && tight.rounds == 26 && tight.learningRate == 0.5)
    let roomy = try DeviceBudget(flash: 1 << 20).fitting(settings)
    #expect(roomy.rounds == 150 && roomy.learningRate == 0.1)
  }

  /// The trees as a table cost eight bytes a node and two a root, beside the base, the walk (800)
  /// and the stop (60, and four for each eight trees): at 48 KiB, 74 trees of depth 5 (506 bytes
  /// each), fewer than the 150 rounds, so depth 4, where all 150 fit (250 bytes each; 76 of depth
  /// 4 as code); at 24000 bytes, 25 of depth 5 and 50 of depth 4 are too few, 104 of depth 3 fit
  /// exactly (as code 54). With 70 rounds asked for, depth 5 holds them all and is kept.
  @Test func aTableHoldsMoreTrees() throws {
    var settings = TrainingSettings(labels: ["shake"])
    let roomy = try DeviceBudget(flash: 49152, trees: .table).fitting(settings)
    #expect(roomy.rounds == 150 && roomy.maxDepth == 4 && roomy.budget?.trees == .table)
    #expect(roomy.learningRate == 0.1)
    let middle = try DeviceBudget(flash: 24000, trees: .table).fitting(settings)
    #expect(middle.maxDepth == 3 && middle.rounds == 104)
    #expect(ModelCost.flash(nodes: 104 * 15, trees: 104, spec: settings.spec, layout: .table) == 24000)
    #expect(ModelCost.flash(nodes: 105 * 15, trees: 105, spec: settings.spec, layout: .table) > 24000)
    settings.rounds = 70
    let all = try DeviceBudget(flash: 49152, trees: .table).fitting(settings)
    #expect(all.rounds == 70 && all.maxDepth == 5 && all.learningRate == 0.1)
  }

  /// The RAM sets the features: the given ones when they fit, else the richest smaller grid.
  @Test func theRichestFeaturesThatFit() throws {
    let settings = TrainingSettings(labels: ["shake"])
    #expect(try DeviceBudget(ram: 1 << 20).fitting(settings).spec == settings.spec)
    let small = try DeviceBudget(ram: 8192).fitting(settings).spec
    #expect(small.rateHz == 25 && small.widthsSeconds == [1] && small.bands.last?.high == 12.5)
    #expect(throws: AccelError.self) { try DeviceBudget(ram: 1024).fitting(settings) }
  }
}
