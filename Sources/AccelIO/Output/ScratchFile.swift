#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore

/// An anonymous temporary file in `$TMPDIR` (or /tmp) for data that does not fit the memory a
/// streaming command allows itself, such as the forward pass of zero-phase filtering. It is
/// unlinked as soon as it is made, so nothing is left behind whatever happens.
public final class ScratchFile {
  private let fd: Int32
  private let directory: String

  public init() throws {
    var directory = "/tmp"
    if let t = getenv("TMPDIR"), t.pointee != 0 { directory = String(cString: t) }
    self.directory = directory
    var template = Array("\(directory)/.accelkit-scratch-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard made >= 0 else {
      throw AccelError.io(path: "a temporary file in \(directory)", reason: String(cString: strerror(errno)))
    }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    fd = made
  }

  deinit { close(fd) }

  /// Writes all of `bytes` at byte `offset`.
  public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
    var done = 0
    while done < bytes.count {
      let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw failure() }
      done += n
    }
  }

  /// Fills `bytes` from byte `offset` (which must have been written).
  public func read(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) throws {
    var done = 0
    while done < bytes.count {
      let n = pread(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw failure() }
      done += n
    }
  }

  private func failure() -> AccelError {
    AccelError.io(
      path: "a temporary file in \(directory)",
      reason: errno == 0 ? "unexpected end of file" : String(cString: strerror(errno)))
  }
}
