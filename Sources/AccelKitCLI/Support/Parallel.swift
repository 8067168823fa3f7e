import Dispatch
import Foundation

private final class ParallelSlots<R>: @unchecked Sendable {
  var values: [R?]
  let lock = NSLock()
  init(_ n: Int) { values = Array(repeating: nil, count: n) }
}

/// Maps `items` with `transform` on all cores; results come back in the order of `items`, so the
/// output does not depend on scheduling.
func parallelMap<T, R>(_ items: [T], _ transform: @escaping @Sendable (T) -> R) -> [R] {
  let slots = ParallelSlots<R>(items.count)
  nonisolated(unsafe) let input = items
  DispatchQueue.concurrentPerform(iterations: items.count) { i in
    let value = transform(input[i])
    slots.lock.lock()
    slots.values[i] = value
    slots.lock.unlock()
  }
  return slots.values.map { $0! }
}
