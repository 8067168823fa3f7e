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
private final class Lock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  init() { pthread_mutex_init(mutex, nil) }
  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }
  func lock() { pthread_mutex_lock(mutex) }
  func unlock() { pthread_mutex_unlock(mutex) }
}

/// Maps `items` with `transform` on all cores; results come back in the order of `items`, so the
/// output does not depend on scheduling.
/// `jobs` limits the threads (nil: all cores; 1: in order on this thread).
public func parallelMap<T, R>(_ items: [T], jobs: Int? = nil, _ transform: @escaping @Sendable (T) -> R) -> [R] {
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
