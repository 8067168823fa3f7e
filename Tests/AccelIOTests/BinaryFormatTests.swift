import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelIO

@Suite struct BinaryFormatTests {
  let expected = SampleBlock(
    t: [0, 0.01, 0.02, 0.03, 0.04], x: [0.0123, -0.5, 1.25, -0.0, 3.0e-7],
    y: [0.9981, 0.1, -2.3, 1e-300, 12345.678], z: [0.0456, -1.0, 1.0 / 3.0, 2.5, -9.80665])

  @Test(arguments: ["numpy_structured_f8.npy", "numpy_structured_extra.npy", "numpy_plain_txyz.npy"])
  func readsWhatNumpyWrites(_ name: String) throws {
    let (block, source) = try readTrace(Paths.fixture(name))
    #expect(block == expected)
    #expect(block.x[3].sign == .minus)
    #expect(source.metadata.precision == .float64)
  }

  @Test func readsFloat32Fields() throws {
    let (block, source) = try readTrace(Paths.fixture("numpy_structured_f4.npy"))
    #expect(source.metadata.precision == .float32)
    #expect(block.z == expected.z.map { Double(Float($0)) })
  }

  func write(_ block: SampleBlock, format: TraceFormat, precision: SamplePrecision = .float64, layout: RawLayout = .txyz) throws -> String {
    let path = Paths.temporaryDirectory() + "/out." + (format == .npy ? "npy" : "raw")
    let output = try OutputFile(path: path, needsSeek: format == .npy)
    let sink = try TraceWriters.make(format: format, output: output, precision: precision, rawLayout: layout)
    try sink.write(block.slice(0..<2))
    try sink.write(block.slice(2..<block.count))
    try sink.finish()
    return path
  }

  @Test func npyRoundTrip() throws {
    for precision in [SamplePrecision.float64, .float32] {
      let path = try write(expected, format: .npy, precision: precision)
      let bytes = try #require(readFile(path))
      #expect((10 + Int(bytes[8]) + Int(bytes[9]) << 8) % 64 == 0)
      let back = try readTrace(path).0
      let rounded: (Double) -> Double = precision == .float32 ? { Double(Float($0)) } : { $0 }
      #expect(back == SampleBlock(t: expected.t.map(rounded), x: expected.x.map(rounded), y: expected.y.map(rounded), z: expected.z.map(rounded)))
    }
  }

  @Test func numpyReadsWhatAccelkitWrites() throws {
    let python = try #require(
      pythonWithNumpy(), Comment(rawValue: Tools.missing("python3 with numpy", package: "python3 and numpy")))
    let path = try write(expected, format: .npy)
    let script = """
      import numpy as np, sys
      a = np.load(sys.argv[1])
      assert a.dtype.names == ('t', 'x', 'y', 'z'), a.dtype
      print(','.join(repr(float(v)) for v in a['z']))
      """
    let out = try run(python, ["-c", script, path])
    #expect(out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map { Double($0)! } == expected.z)
  }

  @Test func rawRoundTripBothLayoutsAndTypes() throws {
    for layout in [RawLayout.txyz, .xyz] {
      for precision in [SamplePrecision.float64, .float32] {
        let path = try write(expected, format: .raw, precision: precision, layout: layout)
        var settings = TraceReadSettings()
        settings.rawLayout = layout
        settings.rawPrecision = precision
        if layout == .xyz { settings.rate = 100 }
        let back = try readTrace(path, settings).0
        let rounded: (Double) -> Double = precision == .float32 ? { Double(Float($0)) } : { $0 }
        #expect(back.x == expected.x.map(rounded))
        #expect(back.t == (layout == .txyz ? expected.t.map(rounded) : [0, 0.01, 0.02, 0.03, 0.04]))
      }
    }
  }

  @Test func chunkedBinaryReadingEqualsWhole() throws {
    for name in ["numpy_structured_extra.npy", "numpy_plain_txyz.npy"] {
      var settings = TraceReadSettings()
      settings.blockSize = 2
      let (source, _) = try TraceOpener.open(path: Paths.fixture(name), settings: settings)
      var sizes: [Int] = []
      var all = SampleBlock()
      while let block = try source.next() {
        sizes.append(block.count)
        all.append(contentsOf: block)
      }
      #expect(sizes == [2, 2, 1])
      #expect(all == expected)
    }
  }

  /// A longer trace with values of every magnitude and sign.
  func longTrace(_ rows: Int) -> SampleBlock {
    var rng = SeededRandom(seed: 21)
    var block = SampleBlock()
    for i in 0..<rows {
      block.append(
        t: Double(i) / 100, x: Double.random(in: -4...4, using: &rng),
        y: Double.random(in: -1e-3...1e-3, using: &rng), z: i % 97 == 0 ? -0.0 : Double.random(in: -20...20, using: &rng))
    }
    return block
  }

  @Test func readingAheadInPlaceEqualsReadingDirectly() throws {
    // Records of 32 (NPY t,x,y,z f8), 24 (raw xyz f8) and 12 (raw xyz f4) bytes, read with chunks
    // that cut records (and a reserve smaller than a record, which reads by copying).
    let trace = longTrace(3000)
    let cases: [(TraceFormat, SamplePrecision, RawLayout)] = [
      (.npy, .float64, .txyz), (.raw, .float64, .xyz), (.raw, .float32, .xyz), (.raw, .float32, .txyz),
    ]
    for (format, precision, layout) in cases {
      let path = try write(trace, format: format, precision: precision, layout: layout)
      var settings = TraceReadSettings()
      settings.rawLayout = layout
      settings.rawPrecision = precision
      if layout == .xyz { settings.rate = 100 }
      let whole = try readTrace(path, settings).0
      #expect(whole.count == 3000)
      var rng = SeededRandom(seed: 4)
      for size in [40, 64, 100, 333, 1000, 4096] {
        settings.readBufferSize = size
        settings.blockSize = Int.random(in: 1...900, using: &rng)
        let (source, input) = try TraceOpener.open(path: path, settings: settings)
        #expect(input.readsInChunks, "\(format) \(size)")
        let read: SampleBlock
        do { read = try source.readAll() } catch { Issue.record("\(format) \(precision) \(layout) size \(size) block \(settings.blockSize): \(error)"); continue }
        #expect(read.t.map(\.bitPattern) == whole.t.map(\.bitPattern), "\(format) \(precision) \(size)")
        #expect(read.z.map(\.bitPattern) == whole.z.map(\.bitPattern), "\(format) \(precision) \(size)")
      }
    }
  }

  @Test func nonFiniteValuesDeepInAFileAreFoundWhileReadingAhead() throws {
    var trace = longTrace(3000)
    trace.x[1234] = .infinity
    trace.t[2999] = -.nan
    let path = try write(trace, format: .npy)
    for size in [50, 100, 1 << 20] {
      var settings = TraceReadSettings()
      settings.readBufferSize = size
      let error = accelError { _ = try readTrace(path, settings) }
      #expect(error?.message.hasSuffix(": byte \(192 + 1234 * 32 + 8): row 1235, field \"x\" is inf, not a finite number") == true,
        "\(size): \(error?.message ?? "")")
      settings.skipBadRows = true
      let (kept, source) = try readTrace(path, settings)
      #expect(kept.count == 2998)
      #expect((source as? SkipReporting)?.skippedRows == 2)
    }
  }

  // MARK: - Errors

  @Test func truncatedNPY() throws {
    let bytes = try #require(readFile(Paths.fixture("numpy_structured_f8.npy")))
    let path = temporaryFile("cut.npy", Array(bytes.dropLast(5)))
    let error = accelError { _ = try readTrace(path) }
    #expect(message(error, in: path) == "Error: cut.npy: byte 347: the NPY file is truncated: its header promises 5 rows "
      + "(160 bytes of data) but it holds 155 bytes (4 whole rows)\nHint: the file was cut short; write it again")
    #expect(error?.exitCode == 65)
    let header = temporaryFile("cut.npy", Array(bytes.prefix(40)))
    #expect(message(accelError { _ = try readTrace(header) }, in: header) == "Error: cut.npy: byte 40: the NPY header is truncated\n"
      + "Hint: the file was cut short; write it again")
  }

  @Test func wrongMagic() {
    let path = temporaryFile("bad.npy", "t,x,y,z\n0,1,2,3\n")
    #expect(message(accelError { _ = try readTrace(path) }, in: path) == "Error: bad.npy: byte 0: not an NPY file: it does not start "
      + "with the NPY magic bytes \\x93NUMPY\nHint: for CSV or raw input, name the format with --input-format csv|raw")
  }

  @Test func malformedHeaders() {
    func npy(_ dict: String) -> [UInt8] {
      var text = dict
      while (10 + text.utf8.count + 1) % 64 != 0 { text += " " }
      text += "\n"
      return NPYHeader.magic + [1, 0, UInt8(text.utf8.count & 0xFF), UInt8(text.utf8.count >> 8)] + Array(text.utf8)
    }
    let cases: [(String, String)] = [
      ("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 4), }", "big-endian"),
      ("{'descr': [('t', '>f8'), ('x', '<f8'), ('y', '<f8'), ('z', '<f8')], 'fortran_order': False, 'shape': (1,), }", "big-endian"),
      ("{'descr': [('t', '<i8'), ('x', '<f8'), ('y', '<f8'), ('z', '<f8')], 'fortran_order': False, 'shape': (1,), }", "float fields"),
      ("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 4), }", "Fortran"),
      ("{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }", "shape"),
      ("{'descr': '<f8', 'shape': (2, 4), }", "fortran_order"),
      ("not a dict", "not a Python dictionary"),
      ("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }", "no column for x, y, z"),
    ]
    for (dict, fragment) in cases {
      let path = temporaryFile("h.npy", npy(dict) + [UInt8](repeating: 0, count: 64))
      let error = accelError { _ = try readTrace(path) }
      #expect(error?.exitCode == 65, "\(dict)")
      #expect(error?.message.contains(fragment) == true, "\(dict): \(error?.message ?? "no error")")
    }
  }

  @Test func nonFiniteBinaryValues() throws {
    var block = expected
    block.y[3] = .nan
    let path = try write(block, format: .npy)
    let error = accelError { _ = try readTrace(path) }
    #expect(error?.message.hasSuffix(": byte \(192 + 3 * 32 + 16): row 4, field \"y\" is nan, not a finite number") == true)
    var settings = TraceReadSettings()
    settings.allowNonFinite = true
    #expect(try readTrace(path, settings).0.y[3].isNaN)
    settings.allowNonFinite = false
    settings.skipBadRows = true
    let (kept, source) = try readTrace(path, settings)
    #expect(kept.count == 4 && kept.t == [0, 0.01, 0.02, 0.04])
    #expect((source as? SkipReporting)?.skippedRows == 1)
  }

  @Test func rawPartialRecord() {
    let path = temporaryFile("t.raw", [UInt8](repeating: 0, count: 32 * 3 + 5))
    let error = accelError { _ = try readTrace(path) }
    #expect(message(error, in: path) == "Error: t.raw: byte 96: the raw file ends with a partial record: 101 bytes is not a "
      + "multiple of the 32-byte record\nHint: check --layout and the value type (f32 or f64); the file may be cut short")
  }
}

func pythonWithNumpy() -> String? { Tools.python(importing: ["numpy"]) }

/// Runs a program and returns its stdout; throws when it exits non-zero.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = FileHandle.nullDevice
  try process.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  struct Failed: Error {}
  guard process.terminationStatus == 0 else { throw Failed() }
  return String(decoding: data, as: UTF8.self)
}

/// NPY headers that promise absurd sizes are data errors (exit 65) with the header's position, never
/// a trap on overflow or an allocation of what the header says.
@Suite struct HostileNPYHeaderTests {
  func npy(_ header: String) -> [UInt8] {
    var h = Array(header.utf8)
    let pad = 64 - (10 + h.count + 1) % 64
    h += Array(repeating: UInt8(ascii: " "), count: pad) + [UInt8(ascii: "\n")]
    return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(h.count & 0xFF), UInt8(h.count >> 8)] + h + Array(repeating: 0, count: 64)
  }

  @Test func hugeShapesAndFieldsAreRefused() throws {
    let cases: [(String, String)] = [
      ("{'descr': [('t','<f8'),('x','<f8'),('y','<f8'),('z','<f8')], 'fortran_order': False, 'shape': (4611686018427387904,), }", "promises 4611686018427387904 rows of 32 bytes"),
      ("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", "more data than any file holds"),
      ("{'descr': [('t','<U4611686018427387904'),('x','<f8')], 'fortran_order': False, 'shape': (2,), }", "unsupported dtype '<U4611686018427387904'"),
      ("{'descr': [('t','|V9223372036854775807'),('x','<f8')], 'fortran_order': False, 'shape': (2,), }", "unsupported dtype"),
      ("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 1000000000000), }", "rows of 1000000000000 columns"),
      ("{'descr': [('t','|V1000000000000'),('x','<f8')], 'fortran_order': False, 'shape': (2,), }", "unsupported dtype"),
      ("{'descr': '<f8', 'fortran_order': False, 'shape': (5, 8888888884), }", "rows of 8888888884 columns"),
      ("{'descr': [('a','|V600000'),('b','|V600000'),('x','<f8')], 'fortran_order': False, 'shape': (2,), }", "a record of more than 1048576 bytes"),
    ]
    for (header, expected) in cases {
      let path = temporaryFile("hostile.npy", npy(header))
      let error = accelError { _ = try readTrace(path) }
      #expect(error?.exitCode == 65, "\(header)")
      #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error") for \(header)")
      #expect(error?.message.contains("byte 10") == true)
    }
  }
}
