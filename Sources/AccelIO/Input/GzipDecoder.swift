import AccelCore
import CZlib

/// Inflates a gzip stream (RFC 1952; several concatenated members are one stream, as `gzip -d`
/// reads them) in bounded memory: a 64 KiB window of compressed input and zlib's own state.
///
/// `read(into:count:)` pulls compressed bytes from `source` as it needs them. Corrupt or cut-short
/// data is a data error naming the compressed byte offset.
final class GzipDecoder {
  private let stream: UnsafeMutablePointer<z_stream>
  private let buffer: UnsafeMutablePointer<UInt8>
  private static let bufferSize = 1 << 16
  private let name: String
  private let source: (UnsafeMutableRawPointer, Int) throws -> Int
  private var sourceEnded = false
  private var finished = false
  /// Compressed bytes consumed by earlier members.
  private var earlierMembers = 0

  /// - Parameters:
  ///   - initial: compressed bytes already read from the input (its first bytes).
  ///   - source: reads up to `count` more compressed bytes into a buffer; 0 at the end.
  init(name: String, initial: [UInt8], source: @escaping (UnsafeMutableRawPointer, Int) throws -> Int) throws {
    self.name = name
    self.source = source
    stream = .allocate(capacity: 1)
    stream.initialize(to: z_stream())
    buffer = .allocate(capacity: max(Self.bufferSize, initial.count))
    buffer.initialize(from: initial, count: initial.count)
    stream.pointee.next_in = buffer
    stream.pointee.avail_in = UInt32(initial.count)
    // 15 + 16: a gzip wrapper, the largest window.
    let status = inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    guard status == Z_OK else {
      stream.deallocate()
      buffer.deallocate()
      throw AccelError.failure("cannot start gzip decompression for \(name) (zlib status \(status))")
    }
  }

  deinit {
    inflateEnd(stream)
    stream.deallocate()
    buffer.deallocate()
  }

  /// The compressed byte offset reached, for messages.
  private var compressedOffset: Int { earlierMembers + Int(stream.pointee.total_in) }

  /// Fills `out` with up to `count` decompressed bytes; 0 only at the end of the stream.
  func read(into out: UnsafeMutableRawPointer, count: Int) throws -> Int {
    guard count > 0, !finished else { return 0 }
    let z = stream
    while true {
      if z.pointee.avail_in == 0 && !sourceEnded { try refill() }
      z.pointee.next_out = out.assumingMemoryBound(to: UInt8.self)
      z.pointee.avail_out = UInt32(min(count, Int(UInt32.max)))
      let status = inflate(z, Z_NO_FLUSH)
      let produced = count - Int(z.pointee.avail_out)
      switch status {
      case Z_OK:
        if produced > 0 { return produced }
      case Z_STREAM_END:
        try startNextMember()
        if produced > 0 || finished { return produced }
      case Z_BUF_ERROR:
        if produced > 0 { return produced }
        if z.pointee.avail_in == 0 && sourceEnded {
          throw AccelError.data(
            DataLocation(file: name, byteOffset: compressedOffset),
            "the gzip data ends before the end of its stream: the file is cut short",
            hint: "the file was truncated; compress or copy it again (`gzip -t` checks it)")
        }
      default:
        let detail = z.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
        throw AccelError.data(
          DataLocation(file: name, byteOffset: compressedOffset),
          "the gzip data is corrupt (\(detail))",
          hint: "the file is damaged; `gzip -t` checks it")
      }
    }
  }

  private func refill() throws {
    let n = try source(buffer, Self.bufferSize)
    if n == 0 { sourceEnded = true }
    stream.pointee.next_in = buffer
    stream.pointee.avail_in = UInt32(n)
  }

  /// After a member's end: another member follows, or the stream is finished. Bytes that are not
  /// a gzip member are an error (gzip itself only tolerates trailing zeros, which are accepted).
  private func startNextMember() throws {
    let z = stream
    while z.pointee.avail_in == 0 && !sourceEnded { try refill() }
    if z.pointee.avail_in == 0 {
      finished = true
      return
    }
    let next = z.pointee.next_in!
    if next[0] == 0 {
      // Trailing zeros (tape padding): accepted when they run to the end.
      while true {
        let available = Int(z.pointee.avail_in)
        let p = z.pointee.next_in!
        for i in 0..<available where p[i] != 0 {
          throw trailing(at: compressedOffset + i)
        }
        z.pointee.avail_in = 0
        if sourceEnded { break }
        try refill()
        if z.pointee.avail_in == 0 { break }
      }
      finished = true
      return
    }
    if z.pointee.avail_in < 2 && !sourceEnded {
      // One byte left: move it to the front and read more behind it, to see both magic bytes.
      buffer[0] = next[0]
      let n = try source(buffer + 1, Self.bufferSize - 1)
      if n == 0 { sourceEnded = true }
      z.pointee.next_in = buffer
      z.pointee.avail_in = UInt32(1 + n)
    }
    let p = z.pointee.next_in!
    guard z.pointee.avail_in >= 2, p[0] == 0x1F, p[1] == 0x8B else { throw trailing(at: compressedOffset) }
    earlierMembers += Int(z.pointee.total_in)
    inflateReset(z)
  }

  private func trailing(at offset: Int) -> AccelError {
    .data(
      DataLocation(file: name, byteOffset: offset),
      "unexpected bytes after the end of the gzip stream",
      hint: "the file has data appended after its compressed stream; decompress it with gzip -d to see")
  }
}
