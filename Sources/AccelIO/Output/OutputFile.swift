#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore

/// The reader of stdout went away (`accelkit ... | head`): not an error, the command ends quietly.
public struct BrokenPipe: Error {
  public init() {}
}

/// An output file written atomically: bytes go to a temporary file beside the target, which is
/// renamed over the target only by `commit()`. Until then an existing file at the path is left
/// untouched, and if the output is abandoned (an error, a crash of the command) the temporary file
/// is removed. `-` writes to standard output, and a path that is not a regular file (/dev/null, a
/// FIFO, a terminal) is written straight in; when the format needs to seek back (NPY, for its row
/// count) such an output goes through a temporary file in TMPDIR that `commit()` copies into it.
/// Nothing is ever renamed over a path that is not a regular file.
public final class OutputFile {
  public let path: String
  /// The name for messages.
  public let name: String
  private var fd: Int32
  private var tempPath: String?
  /// The temporary file's slot among those removed on SIGINT/SIGTERM.
  private var temporarySlot: Int?
  private let toStdout: Bool
  /// The bytes go to a temporary file that `commit()` copies to stdout or into the device or pipe
  /// at `path` (a format that seeks, written to something that cannot).
  private let relayed: Bool
  private var buffer: UnsafeMutablePointer<UInt8>
  private let capacity = 1 << 20
  private var used = 0
  private var committed = false
  private var ownsDescriptor = false
  /// Bytes written so far (including buffered ones).
  public private(set) var position = 0

  /// Creates the output. Refuses (usage error) when `path` is one of `inputs`, or, in a run that
  /// tracks its files (`RunFiles`), any input or earlier output of the run; `updating` names the
  /// role of an input this output may replace (FFTW wisdom saved back).
  public init(path: String, inputs: [ByteInput] = [], needsSeek: Bool = false, updating: String? = nil) throws {
    self.path = path
    toStdout = path == "-"
    name = toStdout ? "<stdout>" : path
    try RunFiles.claimOutput(path, updating: updating)
    if !toStdout {
      let identity = FileIdentity(path: path)
      for input in inputs {
        if input.path == path || (identity != nil && input.fileIdentity == identity) {
          throw AccelError.usage(
            "refusing to write the output over the input \(input.name)",
            hint: "choose another output path with -o")
        }
      }
    }
    var st = stat()
    let isSpecial = !toStdout && stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG
    if isSpecial && (st.st_mode & S_IFMT) == S_IFDIR {
      throw AccelError.cannotCreate(path: path, reason: "it is a directory")
    }
    relayed = needsSeek && (toStdout || isSpecial)
    if isSpecial && !needsSeek {
      // A device or a pipe (/dev/null, a FIFO): nothing to replace atomically, write straight in.
      let opened = open(path, O_WRONLY | O_CLOEXEC)
      guard opened >= 0 else { throw AccelError.cannotCreate(path: path, reason: String(cString: strerror(errno))) }
      fd = opened
      tempPath = nil
      ownsDescriptor = true
    } else if toStdout && !needsSeek {
      fd = 1
      tempPath = nil
    } else {
      let directory: String
      let base: String
      if relayed {
        var tmp = "/tmp"
        if let t = getenv("TMPDIR") { tmp = String(cString: t) }
        directory = tmp
        base = toStdout ? "stdout" : String(path.split(separator: "/").last ?? "output")
      } else if let slash = path.lastIndex(of: "/") {
        directory = slash == path.startIndex ? "/" : String(path[..<slash])
        base = String(path[path.index(after: slash)...])
      } else {
        directory = "."
        base = path
      }
      TemporaryFiles.removeStale(directory: directory)
      var template = Array(TemporaryFiles.template(directory: directory, base: base).utf8CString)
      let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
      guard made >= 0 else {
        throw creationError(path: name, errno: errno)
      }
      let mask = umask(0)
      umask(mask)
      fchmod(made, 0o666 & ~mask)
      fd = made
      tempPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      temporarySlot = TemporaryFiles.register(tempPath!)
    }
    buffer = .allocate(capacity: capacity)
  }

  deinit {
    if !committed, let tempPath {
      close(fd)
      unlink(tempPath)
    } else if !committed && ownsDescriptor {
      close(fd)
    }
    if let temporarySlot { TemporaryFiles.unregister(temporarySlot) }
    buffer.deallocate()
  }

  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard bytes.count > 0 else { return }
    if used + bytes.count > capacity {
      try flush()
      if bytes.count > capacity {
        try writeAll(bytes)
        position += bytes.count
        return
      }
    }
    (buffer + used).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    used += bytes.count
    position += bytes.count
  }

  public func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }

  public func write(_ text: String) throws {
    var text = text
    try text.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
  }

  /// Gives direct access to at least `minimum` bytes of buffer space; `body` returns how many it
  /// filled. For writers that format straight into the buffer.
  @inline(__always)
  public func withSpace(_ minimum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) throws {
    precondition(minimum <= capacity)
    if used + minimum > capacity { try flush() }
    let n = body(buffer + used)
    used += n
    position += n
  }

  public func flush() throws {
    guard used > 0 else { return }
    try writeAll(UnsafeRawBufferPointer(start: buffer, count: used))
    used = 0
  }

  /// Overwrites bytes already written at `offset` (the output must not be stdout-direct).
  public func overwrite(at offset: Int, with bytes: [UInt8]) throws {
    precondition(tempPath != nil)
    try flush()
    let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
    guard n == bytes.count else { throw AccelError.io(path: name, reason: String(cString: strerror(errno))) }
  }

  private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
    var done = 0
    while done < bytes.count {
      #if canImport(Glibc)
        let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
      #else
        let n = Darwin.write(fd, bytes.baseAddress! + done, bytes.count - done)
      #endif
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE && toStdout { throw BrokenPipe() }
        throw AccelError.io(path: name, reason: String(cString: strerror(errno)))
      }
      done += n
    }
  }

  /// Completes the output: flushes, and renames the temporary file over the target (or copies it
  /// to stdout).
  public func commit() throws {
    try flush()
    guard let tempPath else {
      if ownsDescriptor { close(fd) }
      committed = true
      return
    }
    if relayed {
      var target: Int32 = 1
      if !toStdout {
        target = open(path, O_WRONLY | O_CLOEXEC)
        guard target >= 0 else { throw AccelError.cannotCreate(path: path, reason: String(cString: strerror(errno))) }
      }
      defer { if !toStdout { close(target) } }
      lseek(fd, 0, SEEK_SET)
      let chunk = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 8)
      defer { chunk.deallocate() }
      while true {
        #if canImport(Glibc)
          let n = Glibc.read(fd, chunk, 1 << 20)
        #else
          let n = Darwin.read(fd, chunk, 1 << 20)
        #endif
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { break }
        var done = 0
        while done < n {
          #if canImport(Glibc)
            let w = Glibc.write(target, chunk + done, n - done)
          #else
            let w = Darwin.write(target, chunk + done, n - done)
          #endif
          if w < 0 {
            if errno == EINTR { continue }
            if errno == EPIPE && toStdout { throw BrokenPipe() }
            throw AccelError.io(path: name, reason: String(cString: strerror(errno)))
          }
          done += w
        }
      }
      close(fd)
      unlink(tempPath)
    } else {
      guard close(fd) == 0 else {
        throw AccelError.io(path: name, reason: String(cString: strerror(errno)))
      }
      guard rename(tempPath, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(tempPath)
        throw AccelError.io(path: name, reason: reason)
      }
    }
    committed = true
    if let temporarySlot { TemporaryFiles.unregister(temporarySlot) }
    temporarySlot = nil
  }
}

extension OutputFile {
  /// Writes several files as one output: every file is written to its temporary file first, and
  /// only when all are complete are they renamed into place, so that a failure (a full disk, an
  /// error while rendering) leaves every old file as it was.
  public static func writeTogether(_ files: [(path: String, text: String)], inputs: [ByteInput] = []) throws {
    var staged = StagedOutputs()
    for file in files {
      let output = try OutputFile(path: file.path, inputs: inputs)
      try output.write(file.text)
      try staged.add(output)
    }
    try staged.commit()
  }

  /// Completes the file's bytes and closes it without renaming it into place: the returned
  /// `StagedOutput` does that, or removes the temporary file if it is dropped. Outputs that are
  /// written directly (stdout, a device) are complete already and their stage commits nothing.
  public func stage() throws -> StagedOutput {
    guard let tempPath, !relayed else {
      try commit()
      return StagedOutput(path: path, temporary: nil, slot: nil)
    }
    try flush()
    guard close(fd) == 0 else {
      throw AccelError.io(path: name, reason: String(cString: strerror(errno)))
    }
    let staged = StagedOutput(path: path, temporary: tempPath, slot: temporarySlot)
    // The temporary file and its signal-table slot now belong to the stage.
    self.tempPath = nil
    temporarySlot = nil
    committed = true
    return staged
  }
}

/// An output whose bytes are complete in a closed temporary file beside the target, waiting to be
/// renamed into place. Dropped without `commit()`, it removes the temporary file.
public final class StagedOutput {
  public let path: String
  private var temporary: String?
  private var slot: Int?

  init(path: String, temporary: String?, slot: Int?) {
    self.path = path
    self.temporary = temporary
    self.slot = slot
  }

  /// Renames the temporary file over the target.
  public func commit() throws {
    guard let temporary else { return }
    guard rename(temporary, path) == 0 else {
      throw AccelError.io(path: path, reason: String(cString: strerror(errno)))
    }
    self.temporary = nil
    if let slot { TemporaryFiles.unregister(slot) }
    slot = nil
  }

  deinit {
    if let temporary { unlink(temporary) }
    if let slot { TemporaryFiles.unregister(slot) }
  }
}

/// The outputs of one run, committed together at the end (or, if the run fails first, none):
/// each file is written whole and closed as it is added, so that any number of files takes no
/// memory or descriptors beyond their names.
public struct StagedOutputs {
  private var files: [StagedOutput] = []

  public init() {}

  /// Completes `output` (see `OutputFile.stage()`) and keeps it for `commit()`.
  public mutating func add(_ output: OutputFile) throws {
    files.append(try output.stage())
  }

  /// Renames every file into place, in the order they were added.
  public mutating func commit() throws {
    for file in files { try file.commit() }
    files = []
  }
}

/// Creates the folder `path` and any missing parents (an existing folder is fine).
public func makeDirectories(_ path: String) throws {
  var prefix = path.hasPrefix("/") ? "" : "."
  for part in path.split(separator: "/") {
    prefix += "/" + part
    var st = stat()
    if stat(prefix, &st) == 0 {
      guard (st.st_mode & S_IFMT) == S_IFDIR else {
        throw AccelError.cannotCreate(path: path, reason: "\(prefix) is not a directory")
      }
      continue
    }
    if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
      throw creationError(path: path, errno: errno)
    }
  }
}

/// The error for an output that could not be created: out of space (or quota, or an I/O error) is
/// an I/O error (74), anything else (a missing folder, no permission, a read-only file system) is
/// exit 73.
public func creationError(path: String, errno code: Int32) -> AccelError {
  let reason = String(cString: strerror(code))
  switch code {
  case ENOSPC, EDQUOT, EFBIG, EIO: return .io(path: path, reason: reason)
  default: return .cannotCreate(path: path, reason: reason)
  }
}
