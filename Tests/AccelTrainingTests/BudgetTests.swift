import AccelCore
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

  /// The flash sets the trees: at 48 KiB and depth 5 (63 nodes a tree at most), (49152 - 11000) /
  /// 15.5 = 2461 nodes hold 39 trees; the learning rate grows as the rounds fall (150 x 0.1 / 39),
  /// and is left alone when nothing is cut.
  @Test func fewerRoundsLearnFaster() throws {
    let settings = TrainingSettings(labels: ["shake"])
    let fitted = try DeviceBudget(flash: 49152).fitting(settings)
    #expect(fitted.rounds == 39 && fitted.maxDepth == 5)
    #expect(abs(fitted.learningRate - 0.1 * 150 / 39) < 1e-12)
    // 16000 bytes: 322 nodes, too few for 30 trees until depth 2 (46 trees).
    let small = try DeviceBudget(flash: 16000).fitting(settings)
    #expect(small.maxDepth == 2 && small.rounds == 46 && abs(small.learningRate - 15.0 / 46) < 1e-12)
    // 12000 bytes: 64 nodes, 21 stumps; the rate stops at 0.5.
    let tight = try DeviceBudget(flash: 12000).fitting(settings)
    #expect(tight.maxDepth == 1 && tight.rounds == 21 && tight.learningRate == 0.5)
    let roomy = try DeviceBudget(flash: 1 << 20).fitting(settings)
    #expect(roomy.rounds == 150 && roomy.learningRate == 0.1)
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
