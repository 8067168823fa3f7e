import AccelCore
import TestSupport
import Testing

@testable import AccelLearning

#if canImport(Glibc)
  import Glibc
#endif

/// A row whose first trees prove its probability below everything the decoding compares with is
/// not scored further: the probability is then 0, and the events are those of every row scored
/// in full.
@Suite struct EarlyStopTests {
  /// Two minutes at 50 Hz: quiet, with two seconds of shaking at 5 Hz every twenty (strong, then
  /// weaker and weaker), so that the rows' probabilities spread from 0 to 1.
  static let trace = makeTrace(seconds: 120, rate: 50, jitter: 0.05) { (t: Double) -> Double in
    let k = (t / 20).rounded(.down)
    let phase = t - 20 * k
    guard phase > 8 && phase < 10 else { return 0.02 * sin(t) }
    return 2.5 / (k + 1) * sin(2 * Double.pi * 5 * t)
  }

  static func scoredRows(_ model: LearnedModel) throws -> [(end: Double, row: [Double])] {
    try rows(model.spec, trace).map { (end: $0.1, row: $0.2) }
  }

  /// Each row's probability with a stop is its probability, or 0 when that is below the floor;
  /// the stop cuts some rows short and keeps every row at or above the floor.
  @Test func aStoppedRowIsBelowTheFloor() throws {
    let model = BuiltInModels.shake
    let classifier = model.classifiers[0]
    let scored = try Self.scoredRows(model)
    let exact = scored.map { $0.row.withUnsafeBufferPointer { classifier.probability($0) } }
    let median = exact.sorted()[exact.count / 2]
    #expect(exact.contains { $0 >= 0.98 } && exact.contains { $0 < 0.02 })
    for floor in [0.02, 0.5, 0.98, 0.999, median] {
      let limit = try #require(classifier.marginSurelyBelow(floor))
      var stopped = 0
      var above = 0
      classifier.withEvaluator { evaluator in
        for (row, p) in zip(scored, exact) {
          let q = row.row.withUnsafeBufferPointer { evaluator.probability($0, unlessBelow: limit) }
          if q != p {
            #expect(q == 0 && p < floor, "floor \(floor): \(q) for a row of probability \(p)")
            stopped += 1
          }
          if p >= floor { above += 1 }
        }
      }
      #expect(stopped > 0, "floor \(floor): no row stopped")
      #expect(above > 0, "floor \(floor): no row at or above it")
    }
    #expect(classifier.marginSurelyBelow(0) == nil && classifier.marginSurelyBelow(1) == nil)
  }

  /// The runner's events (rows stopped early) are those of the decoder fed every row's full
  /// probabilities (the label's classifier's and the sustained one's), for the model's decoding
  /// and for a lower one whose floor the stops reach differently.
  @Test func theEventsAreThoseOfEveryRowScored() throws {
    let model = BuiltInModels.shake
    let scored = try Self.scoredRows(model)
    var lower = model.decoding[0]
    lower.on = 0.6
    lower.off = 0.3
    lower.hold = 0.4
    lower.holdSeconds = 1
    for decoding in [model.decoding[0], lower] {
      var runner = try ModelRunner(model: model, decoding: [decoding])
      let found = runner.process(Self.trace).map(\.event) + runner.finish().map(\.event)
      var decoder = ProbabilityDecoder(configuration: decoding)
      var expected: [ProbabilityDecoder.Event] = []
      for (end, row) in scored {
        let p = row.withUnsafeBufferPointer { model.classifiers[0].probability($0) }
        let q = model.sustained[0].map { sustained in
          row.withUnsafeBufferPointer { sustained.probability($0) }
        }
        if let event = decoder.add(
          center: end - model.spec.halfSpanSeconds, end: end, probability: p, sustained: q)
        {
          expected.append(event)
        }
      }
      expected += decoder.finish()
      #expect(!expected.isEmpty)
      #expect(found == expected)
    }
  }
}
