#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import Dispatch

/// Reads an input ahead of its consumer on a second thread, into a small ring of fixed-size
/// chunks (single producer, single consumer). The producer calls `source`: `read(2)` on a file,
/// or a gzip decoder (so decompression runs on the second core).
///
/// The consumer parses one chunk while the producer's `read(2)` (the kernel's copy out of the page
/// cache) fills the next, so a parser bound by its own work no longer waits for the copy. Memory
/// is bounded: `slots` chunks of `chunkSize` bytes.
///
/// Two ways to consume: `read(into:count:)` copies, like `read(2)`; `takeChunk()` lends a whole
/// chunk in place (no copy) until `releaseChunk()`. Each slot has `reserve` writable bytes before
/// its data (for the consumer to put an unfinished row in front of the next chunk) and `padding`
/// after it (for a sentinel).
final class ReadAhead: @unchecked Sendable {
  private let source: (UnsafeMutableRawPointer, Int) throws -> Int
  private let chunkSize: Int
  private let slots: Int
  let reserve: Int
  static let padding = 64
  private let stride: Int
  private let storage: UnsafeMutableRawPointer
  /// Bytes in each slot; negative: the read failed with `failure`. Written by the producer before
  /// it signals `filled`, read by the consumer after waiting on it.
  private let lengths: UnsafeMutablePointer<Int>
  private var failure: AccelError?
  private let free: DispatchSemaphore
  private let filled = DispatchSemaphore(value: 0)
  private let stopped = DispatchSemaphore(value: 0)
  /// Set by the consumer before it releases the producer for the last time.
  private var cancelled = false

  // Consumer state.
  private var slot = 0
  private var position = 0
  private var length = 0
  private var holding = false
  private var finished = false

  /// Starts the producer thread; nil when no thread can be started (read directly then).
  /// - Parameter source: reads up to `count` bytes into a buffer, returning how many (0 at the
  ///   end); called on the producer thread only.
  init?(
    chunkSize: Int, slots: Int = 4, reserve: Int,
    source: @escaping (UnsafeMutableRawPointer, Int) throws -> Int
  ) {
    self.source = source
    self.chunkSize = chunkSize
    self.slots = slots
    self.reserve = reserve
    stride = reserve + chunkSize + Self.padding
    storage = .allocate(byteCount: stride * slots, alignment: 64)
    lengths = .allocate(capacity: slots)
    lengths.initialize(repeating: 0, count: slots)
    // Created at zero and signalled: libdispatch refuses to free a semaphore whose value is below
    // the one it was created with, which a ring stopped early would be.
    free = DispatchSemaphore(value: 0)
    for _ in 0..<slots { free.signal() }
    guard Self.startThread(self) else { return nil }
  }

  /// Copies up to `count` bytes into `buffer`; 0 at the end of the input. A failed read is
  /// reported as its errno.
  func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Result<Int, AccelError> {
    var copied = 0
    while copied < count {
      if !holding {
        if finished { break }
        filled.wait()
        holding = true
        position = 0
        length = lengths[slot]
        if length < 0 {
          finished = true
          return .failure(failure!)
        }
      }
      let n = min(count - copied, length - position)
      (buffer + copied).copyMemory(from: data(slot) + position, byteCount: n)
      copied += n
      position += n
      if position == length {
        holding = false
        free.signal()
        slot = (slot + 1) % slots
        // The producer fills every chunk but the last.
        if length < chunkSize { finished = true }
      }
      // Hand back what is there rather than wait for the next chunk.
      if copied > 0 && !holding { break }
    }
    return .success(copied)
  }

  /// The next chunk, in place, until `releaseChunk()` (chunks are released in the order taken).
  /// Empty at the end of the input. Not to be mixed with a partly consumed `read(into:count:)`.
  func takeChunk() -> Result<UnsafeMutableRawBufferPointer, AccelError> {
    precondition(!holding, "takeChunk while a chunk is partly read")
    guard !finished else { return .success(UnsafeMutableRawBufferPointer(start: data(slot), count: 0)) }
    filled.wait()
    let length = lengths[slot]
    if length < 0 {
      finished = true
      free.signal()
      return .failure(failure!)
    }
    let chunk = UnsafeMutableRawBufferPointer(start: data(slot), count: length)
    slot = (slot + 1) % slots
    if length < chunkSize { finished = true }
    return .success(chunk)
  }

  /// Gives the oldest chunk taken with `takeChunk()` back to the producer.
  func releaseChunk() {
    free.signal()
  }

  private func data(_ index: Int) -> UnsafeMutableRawPointer {
    storage + index * stride + reserve
  }

  private var stopRequested = false

  /// Stops the producer and waits for it: the descriptor may be closed afterwards.
  func stop() {
    guard !stopRequested else { return }
    stopRequested = true
    cancelled = true
    free.signal()
    stopped.wait()
  }

  deinit {
    storage.deallocate()
    lengths.deallocate()
  }

  /// The producer loop.
  fileprivate func produce() {
    var index = 0
    while true {
      free.wait()
      if cancelled { break }
      let base = data(index)
      var n = 0
      var failed = false
      // Fill the chunk until it is full or the input ends.
      do {
        while n < chunkSize {
          let got = try source(base + n, chunkSize - n)
          if got == 0 { break }
          n += got
        }
      } catch {
        failure = error as? AccelError ?? .failure("\(error)")
        failed = true
      }
      lengths[index] = failed ? -1 : n
      filled.signal()
      // A chunk that is not full is the last (or an error).
      if failed || n < chunkSize { break }
      index = (index + 1) % slots
    }
    stopped.signal()
  }

  /// Runs the producer on a plain POSIX thread (no Foundation in this module).
  private static func startThread(_ owner: ReadAhead) -> Bool {
    let box = Unmanaged.passRetained(owner).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    #if canImport(Glibc)
      var thread = pthread_t()
    #else
      var thread: pthread_t? = nil
    #endif
    let result = pthread_create(
      &thread, &attributes,
      { raw in
        #if canImport(Glibc)
          let owner = Unmanaged<ReadAhead>.fromOpaque(raw!).takeRetainedValue()
        #else
          let owner = Unmanaged<ReadAhead>.fromOpaque(raw).takeRetainedValue()
        #endif
        owner.produce()
        return nil
      }, box)
    pthread_attr_destroy(&attributes)
    if result != 0 {
      Unmanaged<ReadAhead>.fromOpaque(box).release()
      return false
    }
    return true
  }
}
