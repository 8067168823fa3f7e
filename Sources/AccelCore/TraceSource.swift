/// A stream of samples: the reading end of the pipeline.
///
/// `next()` returns the next block (never empty) or `nil` at the end. Blocks have at most
/// `TraceSource.defaultBlockSize` samples unless a reader says otherwise.
public protocol TraceSource: AnyObject {
  var metadata: TraceMetadata { get }
  func next() throws -> SampleBlock?
}

extension TraceSource {
  /// Reads everything into one block. Only for callers that truly need the whole signal.
  /// - Complexity: O(n) memory.
  public func readAll() throws -> SampleBlock {
    var all = SampleBlock()
    while let block = try next() { all.append(contentsOf: block) }
    return all
  }
}

/// The default number of samples per block (a block of four Double columns is 256 KiB; each column stays under malloc's mmap threshold, so blocks reuse heap memory instead of faulting in fresh pages).
public let defaultBlockSize = 8_192

/// The writing end of the pipeline.
public protocol TraceSink: AnyObject {
  func write(_ block: SampleBlock) throws
  /// Flushes and completes the output. After `finish()` no more blocks may be written.
  func finish() throws
}

/// A source over samples held in memory, yielding blocks of `blockSize`.
public final class MemoryTraceSource: TraceSource {
  public let metadata: TraceMetadata
  private let samples: SampleBlock
  private let blockSize: Int
  private var position = 0

  public init(_ samples: SampleBlock, metadata: TraceMetadata, blockSize: Int = defaultBlockSize) {
    precondition(blockSize > 0)
    self.samples = samples
    self.metadata = metadata
    self.blockSize = blockSize
  }

  public func next() throws -> SampleBlock? {
    guard position < samples.count else { return nil }
    let end = min(position + blockSize, samples.count)
    defer { position = end }
    return samples.slice(position..<end)
  }
}

/// Bytes kept at offsets, written and read back in any order: the scratch space of a stage that
/// must see its input twice in constant memory (zero-phase filtering's forward pass).
public protocol RandomAccessStore: AnyObject {
  /// Writes all of `bytes` at byte `offset`.
  func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws
  /// Fills `bytes` from byte `offset`, which must have been written.
  func read(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) throws
}
