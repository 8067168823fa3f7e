import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Content digests of files, as `sha256sum` prints them.
public enum FileDigest {
  /// The SHA-256 of the file's bytes as stored (a gzip file is hashed compressed); nil for what
  /// is not a regular file (a FIFO or a terminal must not be read twice).
  public static func sha256(path: String) throws -> String? {
    // Looked at before it is opened: opening a FIFO would wait for a writer, and take its data.
    var before = stat()
    if stat(path, &before) == 0, (before.st_mode & S_IFMT) != S_IFREG { return nil }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw AccelError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
    var hasher = SHA256()
    let size = 1 << 20
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
    defer { buffer.deallocate() }
    while true {
      let n = read(fd, buffer.baseAddress!, size)
      if n < 0 {
        if errno == EINTR { continue }
        throw AccelError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
      }
      if n == 0 { break }
      hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
    }
    return hasher.hexDigest()
  }
}
