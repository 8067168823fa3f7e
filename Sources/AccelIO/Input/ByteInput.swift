#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore

/// An input file (or stdin) read with plain `read(2)` calls into caller-owned buffers.
///
/// Gzip-compressed input (recognised by its magic bytes, whatever the name, also on stdin) is
/// inflated transparently and in streaming: callers see the decompressed bytes.
public final class ByteInput {
  /// The name for messages: the path as given, or `<stdin>`.
  public let name: String
  /// The path, or nil for stdin.
  public let path: String?
  let fd: Int32
  private let ownsDescriptor: Bool
  /// Bytes read so far.
  public private(set) var offset = 0

  /// Opens `path`; `-` means standard input.
  public init(path: String) throws {
    if path == "-" {
      self.name = "<stdin>"
      self.path = nil
      self.fd = 0
      self.ownsDescriptor = false
      try detectCompression()
      return
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw AccelError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
    }
    var st = stat()
    if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
      close(fd)
      throw AccelError.cannotOpen(path: path, reason: "it is a directory")
    }
    RunFiles.noteInput(path)
    self.name = path
    self.path = path
    self.fd = fd
    self.ownsDescriptor = true
    #if os(Linux)
      _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    #endif
    try detectCompression()
  }

  /// An input whose bytes `producer` makes (it returns 0 at the end): a format presented to a
  /// reader as another (HDF5 as an NPY stream).
  public init(name: String, producer: @escaping (UnsafeMutableRawPointer, Int) throws -> Int) {
    self.name = name
    self.path = nil
    self.fd = -1
    self.ownsDescriptor = false
    self.producer = producer
  }

  /// Makes the bytes of a produced input.
  private var producer: ((UnsafeMutableRawPointer, Int) throws -> Int)?

  /// The gzip decoder when the input is compressed.
  private var gzip: GzipDecoder?

  /// Whether the input is gzip-compressed (and read decompressed).
  public var isCompressed: Bool { gzip != nil }

  /// Looks at the first two bytes: gzip's magic 1f 8b starts a decoder over the rest.
  private func detectCompression() throws {
    var first = [UInt8](repeating: 0, count: 2)
    var got = 0
    if fileSize != nil {
      got = first.withUnsafeMutableBytes { Int(pread(fd, $0.baseAddress!, 2, 0)) }
      if got < 0 { throw AccelError.cannotOpen(path: name, reason: String(cString: strerror(errno))) }
      guard got == 2, first == [0x1F, 0x8B] else { return }
      got = 0  // read again below, from the descriptor's position
    } else {
      while got < 2 {
        let n = try first.withUnsafeMutableBytes { try readDescriptor(into: $0.baseAddress! + got, count: 2 - got) }
        if n == 0 { break }
        got += n
      }
      guard got == 2, first == [0x1F, 0x8B] else {
        pending = Array(first[0..<got])
        return
      }
    }
    let descriptor = fd
    let inputName = name
    gzip = try GzipDecoder(name: inputName, initial: Array(first[0..<got])) { buffer, count in
      try Self.readDescriptor(descriptor, name: inputName, into: buffer, count: count)
    }
  }

  deinit {
    readAhead?.stop()
    if ownsDescriptor { close(fd) }
  }

  /// The second thread reading ahead, once `startReadAhead` has started it.
  private var readAhead: ReadAhead?

  /// Lets a second thread read the rest of a regular file ahead of the caller, in chunks of
  /// `chunkSize` bytes (the kernel's copy then overlaps the caller's parsing). Does nothing for
  /// pipes, for files smaller than eight chunks, or when a thread cannot be started. The reserve
  /// before each chunk is a quarter of a chunk.
  ///
  /// A compressed file of at least one chunk is read ahead too: the second thread inflates it.
  public func startReadAhead(chunkSize: Int) {
    guard readAhead == nil, chunkSize > 0, let size = fileSize else { return }
    let reserve = max(8, chunkSize / 4)
    var pending = self.pending
    // Bytes peeked already are served first, from the producer.
    func fromPending(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
      let n = min(count, pending.count)
      pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
      pending.removeFirst(n)
      return n
    }
    if let gzip {
      guard size >= chunkSize else { return }
      readAhead = ReadAhead(chunkSize: chunkSize, reserve: reserve) { buffer, count in
        pending.isEmpty ? try gzip.read(into: buffer, count: count) : fromPending(buffer, count)
      }
    } else {
      guard size - offset >= 8 * chunkSize else { return }
      let fd = self.fd
      let name = self.name
      readAhead = ReadAhead(chunkSize: chunkSize, reserve: reserve) { buffer, count in
        pending.isEmpty ? try Self.readDescriptor(fd, name: name, into: buffer, count: count) : fromPending(buffer, count)
      }
    }
    if readAhead != nil { self.pending = [] }
  }

  /// Whether `takeChunk()` is available (read-ahead is running).
  public var readsInChunks: Bool { readAhead != nil }

  /// Writable bytes before each chunk's data (see `takeChunk()`).
  public var chunkReserve: Int { readAhead?.reserve ?? 0 }

  /// Writable bytes after each chunk's data.
  public static let chunkPadding = ReadAhead.padding

  /// With read-ahead running: the next chunk of the input, lent in place until `releaseChunk()`
  /// (release in the order taken; at most a few may be held). The `chunkReserve` bytes before it
  /// and `chunkPadding` bytes after it are the caller's to write. Empty at the end of the input.
  public func takeChunk() throws -> UnsafeMutableRawBufferPointer {
    guard let readAhead else { preconditionFailure("takeChunk without read-ahead") }
    switch readAhead.takeChunk() {
    case .success(let chunk):
      offset += chunk.count
      return chunk
    case .failure(let error):
      throw error
    }
  }

  /// Gives the oldest chunk taken with `takeChunk()` back to the reading thread.
  public func releaseChunk() {
    readAhead?.releaseChunk()
  }

  /// The size in bytes of the data read when it is a regular file (not compressed): readers check
  /// a promised length against it.
  public var regularFileSize: Int? { gzip == nil ? fileSize : nil }
  /// The size of the file read (compressed or not), or nil for a pipe or a produced input.
  public var sizeOnDisk: Int? { fileSize }

  /// The size of the underlying regular file, compressed or not.
  private var fileSize: Int? {
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int(st.st_size)
  }

  /// Bytes read ahead by `peek` and not yet consumed.
  private var pending: [UInt8] = []

  /// Returns up to `count` first bytes without consuming them.
  public func peek(_ count: Int) throws -> [UInt8] {
    if pending.count < count {
      var more = [UInt8](repeating: 0, count: count - pending.count)
      let n = try more.withUnsafeMutableBytes { raw -> Int in
        var total = 0
        while total < raw.count {
          let got = try rawRead(into: raw.baseAddress! + total, count: raw.count - total)
          if got == 0 { break }
          total += got
        }
        return total
      }
      pending += more[0..<n]
    }
    return Array(pending.prefix(count))
  }

  /// The first bytes without consuming them: at least `least` (fewer only at the end of the
  /// input), and up to `most` when they are at hand. Waits only for the `least`: a pipe fed slowly
  /// (a live recording) is not held up to fill `most`.
  public func peekAvailable(least: Int, most: Int) throws -> [UInt8] {
    if pending.isEmpty && most > 0 {
      var more = [UInt8](repeating: 0, count: most)
      let n = try more.withUnsafeMutableBytes { try rawRead(into: $0.baseAddress!, count: most) }
      pending = Array(more[0..<n])
      if n == 0 { return [] }
    }
    return pending.count >= least ? Array(pending.prefix(most)) : try peek(least)
  }

  /// Reads up to `count` bytes; returns 0 only at the end of the input.
  public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
    if !pending.isEmpty {
      let n = min(count, pending.count)
      pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: n) }
      pending.removeFirst(n)
      return n
    }
    return try rawRead(into: buffer, count: count)
  }

  private func rawRead(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
    if let readAhead {
      switch readAhead.read(into: buffer, count: count) {
      case .success(let n):
        offset += n
        return n
      case .failure(let error):
        throw error
      }
    }
    let n = try producer?(buffer, count) ?? gzip?.read(into: buffer, count: count) ?? readDescriptor(into: buffer, count: count)
    offset += n
    return n
  }

  private func readDescriptor(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
    try Self.readDescriptor(fd, name: name, into: buffer, count: count)
  }

  /// One `read(2)`, retried on EINTR; 0 at the end.
  private static func readDescriptor(
    _ fd: Int32, name: String, into buffer: UnsafeMutableRawPointer, count: Int
  ) throws -> Int {
    while true {
      #if canImport(Glibc)
        let n = Glibc.read(fd, buffer, count)
      #else
        let n = Darwin.read(fd, buffer, count)
      #endif
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw AccelError.cannotOpen(path: name, reason: String(cString: strerror(errno)))
    }
  }

  /// Reads until `count` bytes are read or the input ends; returns the number read.
  public func readFully(into buffer: UnsafeMutableRawPointer, count: Int) throws -> Int {
    var total = 0
    while total < count {
      let n = try read(into: buffer + total, count: count - total)
      if n == 0 { break }
      total += n
    }
    return total
  }

  /// Reads the whole of a small file (manifests, events files), without a BOM.
  public static func readAll(path: String) throws -> [UInt8] {
    let input = try ByteInput(path: path)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = try chunk.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
      if n == 0 { break }
      bytes += chunk[0..<n]
    }
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
    return bytes
  }

  /// Identity of the underlying file (device, inode), to refuse writing over an input.
  public var fileIdentity: FileIdentity? { FileIdentity(fd: fd) }
}

/// A file's device and inode.
public struct FileIdentity: Hashable, Sendable {
  let device: UInt64
  let inode: UInt64

  init?(fd: Int32) {
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
    device = UInt64(st.st_dev)
    inode = UInt64(st.st_ino)
  }

  /// The identity of the file at `path`, following links; nil when there is none.
  public init?(path: String) {
    var st = stat()
    guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
    device = UInt64(st.st_dev)
    inode = UInt64(st.st_ino)
  }
}

/// Whether `path` names a directory (following links).
public func isDirectory(_ path: String) -> Bool {
  var st = stat()
  return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}
