#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore

/// An anonymous temporary file in `$TMPDIR` (or /tmp) for data that does not fit the memory a
/// streaming command allows itself, such as the forward pass of zero-phase filtering. It is
/// unlinked as soon as it is made, so nothing is left behind whatever happens.
public final class ScratchFile: RandomAccessStore {
  private let fd: Int32
  private let directory: String

  public init() throws {
    var directory = "/tmp"
    if let t = getenv("TMPDIR"), t.pointee != 0 { directory = String(cString: t) }
    self.directory = directory
    var template = Array("\(directory)/.accelkit-scratch-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard made >= 0 else {
      throw creationError(path: "a temporary file in \(directory)", errno: errno)
    }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    fd = made
  }

  deinit { close(fd) }

  /// Writes all of `bytes` at byte `offset`.
  public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
    try transfer(bytes.count, at: offset) { pwrite(fd, bytes.baseAddress! + $0, bytes.count - $0, $1) }
  }

  /// Fills `bytes` from byte `offset` (which must have been written).
  public func read(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) throws {
    try transfer(bytes.count, at: offset) { pread(fd, bytes.baseAddress! + $0, bytes.count - $0, $1) }
  }

  /// Repeats `call(done, file offset)` (a pread or pwrite) until `count` bytes are through.
  private func transfer(_ count: Int, at offset: Int, _ call: (Int, off_t) -> Int) throws {
    var done = 0
    while done < count {
      let n = call(done, off_t(offset + done))
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        throw AccelError.io(
          path: "a temporary file in \(directory)",
          reason: n == 0 ? "unexpected end of file" : String(cString: strerror(errno)))
      }
      done += n
    }
  }
}
