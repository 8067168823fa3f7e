import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

private final class ParallelSlots<R>: @unchecked Sendable {
  var values: [R?]
  let lock = Lock()
  init(_ n: Int) { values = Array(repeating: nil, count: n) }
}

/// A plain mutex (no Foundation).
public final class Lock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  public init() { pthread_mutex_init(mutex, nil) }
  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }
  public func lock() { pthread_mutex_lock(mutex) }
  public func unlock() { pthread_mutex_unlock(mutex) }
}

/// Maps `items` with `transform` on all cores; results come back in the order of `items`, so the
/// output does not depend on scheduling.
/// `jobs` limits the threads (nil: all cores; 1: in order on this thread).
public func parallelMap<T, R>(_ items: [T], jobs: Int? = nil, _ transform: @escaping @Sendable (T) -> R)
  -> [R]
{
  if jobs == 1 { return items.map(transform) }
  let slots = ParallelSlots<R>(items.count)
  nonisolated(unsafe) let input = items
  let workers = min(items.count, max(1, jobs ?? items.count))
  let next = ParallelSlots<Int>(1)
  next.values[0] = 0
  DispatchQueue.concurrentPerform(iterations: workers) { _ in
    while true {
      next.lock.lock()
      let i = next.values[0]!
      next.values[0] = i + 1
      next.lock.unlock()
      guard i < input.count else { return }
      let value = transform(input[i])
      slots.lock.lock()
      slots.values[i] = value
      slots.lock.unlock()
    }
  }
  return slots.values.map { $0! }
}

/// A stage of a two-thread pipeline: `body` runs on a background thread for each submitted item,
/// in order, while the caller prepares the next (at most `depth` items wait). The first error
/// stops the stage; `submit` and `finish` rethrow it. Used to overlap per-sample work that does
/// not depend on order of computation (formatting, writing) with a sequential filter.
public final class BackgroundStage<Item>: @unchecked Sendable {
  private let queue = DispatchQueue(label: "accelkit.background-stage")
  private let slots: DispatchSemaphore
  private var failure: Error?
  private let body: (Item) throws -> Void

  public init(depth: Int = 2, _ body: @escaping (Item) throws -> Void) {
    slots = DispatchSemaphore(value: max(1, depth))
    self.body = body
  }

  /// Queues `item` (waits while `depth` items are queued).
  public func submit(_ item: Item) throws {
    slots.wait()
    if let failure = queue.sync(execute: { self.failure }) {
      slots.signal()
      throw failure
    }
    nonisolated(unsafe) let item = item
    queue.async {
      defer { self.slots.signal() }
      guard self.failure == nil else { return }
      do { try self.body(item) } catch { self.failure = error }
    }
  }

  /// Waits for every queued item; throws the first error.
  public func finish() throws {
    if let failure = queue.sync(execute: { self.failure }) { throw failure }
  }

  /// Submits every item `next` yields until it returns nil, then waits for all of them: the body
  /// works on one item while `next` makes the following one. When `next` throws, the items
  /// already queued are done before its error goes on.
  public func consume(_ next: () throws -> Item?) throws {
    do {
      while let item = try next() { try submit(item) }
    } catch {
      try? finish()
      throw error
    }
    try finish()
  }
}

/// Runs `first` and `second` at the same time (two threads) and returns both results; the first
/// error (of `first`, then `second`) is thrown after both have finished.
///
/// `first` runs on the calling thread and `second` on a worker of its own, so that a
/// `parallelMap` inside `first` is not nested in another concurrent loop (Dispatch runs a nested
/// concurrentPerform on one thread when the outer one already fills the cores).
public func concurrently<A, B>(
  _ first: @escaping @Sendable () throws -> A, _ second: @escaping @Sendable () throws -> B
)
  throws -> (A, B)
{
  let b = ResultBox<B>()
  let done = DispatchGroup()
  DispatchQueue.global().async(group: done) { b.value = Result { try second() } }
  let a = Result { try first() }
  done.wait()
  return (try a.get(), try b.value!.get())
}

private final class ResultBox<T>: @unchecked Sendable {
  var value: Result<T, any Error>?
}
