import AccelCore
import Dispatch
import Testing

@Suite struct ParallelTests {
  /// Two items that each wait for the other finish only when they run at the same time.
  static func meetInParallel() -> Bool {
    let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
    let met = parallelMap([0, 1], jobs: 2) { i -> Bool in
      arrived[i].signal()
      return arrived[1 - i].wait(timeout: .now() + 10) == .success
    }
    return met == [true, true]
  }

  @Test func parallelMapRunsItsItemsAtOnce() {
    #expect(Self.meetInParallel())
  }

  /// evaluate hashes the dataset beside the evaluation: the evaluation's parallelMap must still
  /// use both cores (a concurrent loop nested in another runs on one thread).
  @Test func aParallelMapBesideAnotherTaskStillRunsInParallel() throws {
    let (met, other) = try concurrently({ Self.meetInParallel() }, { 42 })
    #expect(met)
    #expect(other == 42)
  }

  @Test func concurrentlyRethrowsTheFirstError() {
    struct Failure: Error {}
    #expect(throws: Failure.self) { try concurrently({ () throws -> Int in throw Failure() }, { 1 }) }
    #expect(throws: Failure.self) { try concurrently({ 1 }, { () throws -> Int in throw Failure() }) }
  }
}
