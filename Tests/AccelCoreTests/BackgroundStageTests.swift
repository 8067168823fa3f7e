import AccelCore
import Testing

@Suite struct BackgroundStageTests {
  /// Every item reaches the body, in order; after `consume` the body's work is visible.
  @Test func consumesEveryItemInOrder() throws {
    var seen: [Int] = []
    var next = 0
    try BackgroundStage<Int>(depth: 2) { seen.append($0) }.consume {
      next += 1
      return next <= 1000 ? next : nil
    }
    #expect(seen == Array(1...1000))
  }

  /// An error from the source is thrown after the items already queued are done, and no item
  /// after it is submitted.
  @Test func aSourceErrorWaitsForTheQueuedItems() {
    struct Stop: Error {}
    var seen: [Int] = []
    var next = 0
    #expect(throws: Stop.self) {
      try BackgroundStage<Int>(depth: 2) { seen.append($0) }.consume {
        next += 1
        if next == 50 { throw Stop() }
        return next
      }
    }
    #expect(seen == Array(1...49))
  }

  /// A failure of the body is thrown by `consume`.
  @Test func aBodyErrorIsThrown() {
    struct Full: Error {}
    var next = 0
    #expect(throws: Full.self) {
      try BackgroundStage<Int>(depth: 2) { if $0 == 10 { throw Full() } }.consume {
        next += 1
        return next <= 100 ? next : nil
      }
    }
  }
}
