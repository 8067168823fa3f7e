import AccelCore
import TestSupport
import Testing

@testable import AccelIO

#if canImport(Glibc)
  import Glibc
#endif

/// The plain-row fast path against the general parser and `strtod`, and reading ahead on a second
/// thread (copied or lent in place) against the file's bytes.
@Suite struct FastPathAndReadAheadTests {
  /// A field in one of the shapes the fast path takes or hands over to the general parser.
  func randomField(_ rng: inout SeededRandom) -> String {
    func digits(_ n: Int) -> String { (0..<n).map { _ in String(Int.random(in: 0...9, using: &rng)) }.joined() }
    switch Int.random(in: 0..<14, using: &rng) {
    case 0: return "-" + digits(Int.random(in: 1...3, using: &rng)) + "." + digits(Int.random(in: 1...8, using: &rng))
    case 1: return digits(Int.random(in: 1...15, using: &rng))
    case 2: return digits(Int.random(in: 16...20, using: &rng))  // too many digits for the fast path
    case 3: return "+" + digits(2) + "." + digits(3)
    case 4: return digits(1) + "." + digits(3) + "e" + String(Int.random(in: -30...30, using: &rng))
    case 5: return " " + digits(2) + "." + digits(2) + " "
    case 6: return "\"" + digits(1) + "." + digits(4) + "\""
    case 7: return digits(2) + "."
    case 8: return "." + digits(3)
    case 9: return "-0"
    case 10: return "-0.000"
    case 11: return digits(7) + "." + digits(8)  // exactly 15 digits
    case 12: return "0." + digits(Int.random(in: 14...17, using: &rng))
    default: return digits(Int.random(in: 1...2, using: &rng)) + "." + digits(4)
    }
  }

  func strtodValue(_ text: String) -> Double {
    var trimmed = Substring(text).drop { $0 == " " || $0 == "\"" }
    while let last = trimmed.last, last == " " || last == "\"" { trimmed = trimmed.dropLast() }
    return String(trimmed).withCString { strtod($0, nil) }
  }

  func bits(_ values: [Double]) -> [UInt64] { values.map(\.bitPattern) }

  @Test func plainAndGeneralRowsGiveStrtodsValuesWithAnyBuffers() throws {
    var rng = SeededRandom(seed: 11)
    var expected = SampleBlock()
    var text = "t,label,x,y,z\n"
    for row in 0..<4000 {
      // Mostly plain rows (long runs on the fast path), some of every other shape.
      let plain = Int.random(in: 0..<4, using: &rng) != 0
      let fields = (0..<4).map { _ in
        plain ? String(format4: Double(Int.random(in: -99_999...99_999, using: &rng)) / 10_000) : randomField(&rng)
      }
      let label = row % 50 == 0 ? "\"a, \"\"b\"\"\"" : (row % 3 == 0 ? "" : "walk")
      let ending = row % 7 == 0 ? "\r\n" : "\n"
      text += "\(fields[0]),\(label),\(fields[1]),\(fields[2]),\(fields[3])" + ending
      expected.append(
        t: strtodValue(fields[0]), x: strtodValue(fields[1]), y: strtodValue(fields[2]), z: strtodValue(fields[3]))
    }
    let path = temporaryFile("mixed.csv", text)
    // Random numbers in every column, the time's included: only their parsing is tested here.
    var described = TraceReadSettings()
    described.timeOrder = .report
    let whole = try readTrace(path, described).0
    #expect(bits(whole.t) == bits(expected.t))
    #expect(bits(whole.x) == bits(expected.x))
    #expect(bits(whole.y) == bits(expected.y))
    #expect(bits(whole.z) == bits(expected.z))
    for _ in 0..<12 {
      var settings = described
      settings.blockSize = Int.random(in: 1...700, using: &rng)
      settings.readBufferSize = Int.random(in: 16...4096, using: &rng)
      let chunked = try readTrace(path, settings).0
      #expect(bits(chunked.t) == bits(expected.t), "buffer \(settings.readBufferSize)")
      #expect(bits(chunked.x) == bits(expected.x))
      #expect(bits(chunked.z) == bits(expected.z))
    }
  }

  /// The line of the first time that goes back is the same whatever the block and buffer sizes,
  /// through plain rows, rows for the general parser (quotes, spaces, CRLF), blank lines, rows
  /// split over two lines by a quoted line break, and rows skipped as bad.
  @Test func theLineOfATimeThatGoesBackIsExactWithAnyBuffers() throws {
    var rng = SeededRandom(seed: 21)
    for trial in 0..<20 {
      var text = "t,label,x,y,z\n"
      var line = 2
      let backAt = Int.random(in: 1..<3000, using: &rng)
      var expectedLine = 0
      for row in 0..<3000 {
        let shape = Int.random(in: 0..<10, using: &rng)
        if shape == 0 {
          text += "\n"  // a blank line
          line += 1
        }
        let t = row == backAt ? Double(row - 2) / 100 : Double(row) / 100
        if row == backAt { expectedLine = line }
        switch shape {
        case 1: text += "\(t),\"two\nlines\",0.5,0.25,-1\n"
        case 2: text += " \(t) ,\"q\",0.5,0.25,-1\r\n"
        default: text += "\(t),walk,0.5,0.25,-1\n"
        }
        line += shape == 1 ? 2 : 1
      }
      let path = temporaryFile("back.csv", text)
      for _ in 0..<6 {
        var settings = TraceReadSettings()
        settings.blockSize = Int.random(in: 1...900, using: &rng)
        settings.readBufferSize = Int.random(in: 16...8192, using: &rng)
        let error = accelError { _ = try readTrace(path, settings) }
        #expect(
          error?.message.hasPrefix("\(path):\(expectedLine):1: the time stamp ") == true,
          "trial \(trial), block \(settings.blockSize), buffer \(settings.readBufferSize): \(error?.message ?? "no error")")
      }
    }
  }

  @Test func sixteenToNineteenDigitsAreCorrectlyRounded() throws {
    // Beyond 15 digits `Double(m) / 10^k` rounds twice; these must go to the exact parser.
    var rng = SeededRandom(seed: 12)
    var text = "t,x,y,z\n"
    var expected: [Double] = []
    for i in 0..<2000 {
      let digits = (0..<Int.random(in: 16...19, using: &rng)).map { _ in String(Int.random(in: 0...9, using: &rng)) }
      let field = "0." + digits.joined()
      text += "\(i),\(field),1,2\n"
      expected.append(strtodValue(field))
    }
    let block = try readCSV(text)
    #expect(bits(block.x) == bits(expected))
  }

  @Test func errorsDeepInAFileNameTheirLineAndColumnWithAnyBuffers() throws {
    var text = "t,x,y,z\n"
    for i in 0..<3000 { text += "\(i).000000,0.1250,-1.0000,0.0625\n" }
    text += "3000.000000,0.1250,bad,0.0625\n"
    let path = temporaryFile("deep.csv", text)
    for size in [16, 33, 100, 1000, 1 << 20] {
      var settings = TraceReadSettings()
      settings.readBufferSize = size
      let error = accelError { _ = try readTrace(path, settings) }
      #expect(message(error, in: path)?.hasPrefix("Error: deep.csv:3002:3: expected a number in column \"y\", got \"bad\"") == true, "buffer \(size)")
    }
  }

  @Test func rowsLongerThanTheChunkReserveFallBackToTheOwnBuffer() throws {
    // A quoted field of 5000 bytes with line breaks, among plain rows, read in 256-byte chunks
    // (a 64-byte reserve): the reader leaves the lent chunks and goes on in its own buffer.
    let long = String(repeating: "note\n", count: 1000)
    var text = "t,note,x,y,z\n"
    for i in 0..<200 { text += "\(i),,1,2,3\n" }
    text += "200,\"\(long)\",4,5,6\n"
    for i in 201..<400 { text += "\(i),,1,2,3\n" }
    var settings = TraceReadSettings()
    settings.readBufferSize = 256
    let block = try readTrace(temporaryFile("long.csv", text), settings).0
    #expect(block.count == 400)
    #expect(block.t == (0..<400).map(Double.init))
    #expect(block.x[200] == 4 && block.z[399] == 3)
  }

  func fileBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var rng = SeededRandom(seed: seed)
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
  }

  @Test(arguments: [(1, 100), (7, 700), (64, 64 * 9), (64, 64 * 9 + 1), (1000, 12_345)])
  func readAheadCopiesEveryByteInOrder(chunk: Int, size: Int) throws {
    let bytes = fileBytes(size, seed: UInt64(size))
    let input = try ByteInput(path: temporaryFile("ahead-\(chunk)-\(size).bin", bytes))
    input.startReadAhead(chunkSize: chunk)
    #expect(input.readsInChunks)
    var read: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 37)
    while true {
      let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
      if n == 0 { break }
      read += buffer[0..<n]
    }
    #expect(read == bytes)
  }

  /// Bytes peeked before read-ahead starts (format detection on a file without a known extension,
  /// or a gzip stream's first decompressed bytes) come first, then the rest in order.
  @Test(arguments: [false, true])
  func readAheadServesPeekedBytesFirst(compressed: Bool) throws {
    let bytes = fileBytes(50_000, seed: 9)
    var path = temporaryFile("peeked", bytes)
    if compressed {
      _ = try run("/bin/sh", ["-c", "gzip -c -n -1 '\(path)' > '\(path).gz'"])
      path += ".gz"
    }
    let input = try ByteInput(path: path)
    #expect(try input.peek(6) == Array(bytes.prefix(6)))
    input.startReadAhead(chunkSize: 512)
    #expect(input.readsInChunks)
    var read: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 100)
    while true {
      let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
      if n == 0 { break }
      read += buffer[0..<n]
    }
    #expect(read == bytes)
  }

  @Test(arguments: [(8, 64), (64, 64 * 9), (64, 64 * 9 + 5)])
  func readAheadLendsEveryChunkInOrder(chunk: Int, size: Int) throws {
    let bytes = fileBytes(size, seed: 99)
    let input = try ByteInput(path: temporaryFile("lend-\(chunk)-\(size).bin", bytes))
    input.startReadAhead(chunkSize: chunk)
    var read: [UInt8] = []
    var held = 0
    while true {
      let piece = try input.takeChunk()
      // The reserve before and the padding after are writable.
      (piece.baseAddress! - input.chunkReserve).storeBytes(of: 0xAA, as: UInt8.self)
      (piece.baseAddress! + piece.count + ByteInput.chunkPadding - 1).storeBytes(of: 0xAA, as: UInt8.self)
      if piece.isEmpty { break }
      read += piece
      held += 1
      if held == 2 {
        input.releaseChunk()
        held -= 1
      }
    }
    #expect(read == bytes)
  }

  @Test func readAheadStopsWhenTheInputIsDroppedEarly() throws {
    let path = temporaryFile("early.bin", fileBytes(100_000, seed: 5))
    for _ in 0..<50 {
      let input = try ByteInput(path: path)
      input.startReadAhead(chunkSize: 100)
      var byte: UInt8 = 0
      _ = try input.read(into: &byte, count: 1)
      // Dropped here with the producer blocked on a full ring: deinit must stop it.
    }
  }

  @Test func smallFilesAndPipesAreReadDirectly() throws {
    let input = try ByteInput(path: temporaryFile("small.bin", fileBytes(100, seed: 1)))
    input.startReadAhead(chunkSize: 1 << 20)
    #expect(!input.readsInChunks)
  }
}

extension String {
  /// Four decimals, as a logger writes them.
  init(format4 value: Double) {
    let scaled = Int((abs(value) * 10_000).rounded())
    let fraction = String(scaled % 10_000)
    self = (value < 0 ? "-" : "") + "\(scaled / 10_000)." + String(repeating: "0", count: 4 - fraction.count) + fraction
  }
}
