#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore

/// An input file (or stdin) read with plain `read(2)` calls into caller-owned buffers.
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
    self.name = path
    self.path = path
    self.fd = fd
    self.ownsDescriptor = true
    #if os(Linux)
      _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
    #endif
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
  public func startReadAhead(chunkSize: Int) {
    guard readAhead == nil, pending.isEmpty, chunkSize > 0, let size = regularFileSize,
      size - offset >= 8 * chunkSize
    else { return }
    readAhead = ReadAhead(fd: fd, chunkSize: chunkSize, reserve: max(8, chunkSize / 4))
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
      throw AccelError.cannotOpen(path: name, reason: String(cString: strerror(error.code)))
    }
  }

  /// Gives the oldest chunk taken with `takeChunk()` back to the reading thread.
  public func releaseChunk() {
    readAhead?.releaseChunk()
  }

  /// The size in bytes when the input is a regular file.
  public var regularFileSize: Int? {
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
        throw AccelError.cannotOpen(path: name, reason: String(cString: strerror(error.code)))
      }
    }
    while true {
      #if canImport(Glibc)
        let n = Glibc.read(fd, buffer, count)
      #else
        let n = Darwin.read(fd, buffer, count)
      #endif
      if n >= 0 {
        offset += n
        return n
      }
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
