import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelIO

/// The formats people have: decimal commas, epoch and ISO 8601 timestamps, Sensor Logger
/// exports, HDF5 files (BROAD's trials among them), and clear errors for the formats accelkit
/// does not read.
@Suite struct RealFormatTests {
  /// What the command line reads with when no option is given: recorders recognised.
  static func cli() throws -> TraceReadSettings { try TraceReadOptions().settings() }

  // MARK: ISO 8601 / RFC 3339

  /// Against Python's datetime (UTC for times without a zone).
  @Test(arguments: [
    ("1970-01-01T00:00:00Z", 0.0), ("2000-02-29T12:34:56.789+02:00", 951_820_496.789),
    ("2026-11-21 10:00:00", 1_795_255_200), ("2026-11-21T10:00:00.123456789Z", 1_795_255_200.123_456_789),
    ("1999-12-31T23:59:59-05:30", 946_704_599), ("2024-03-10t01:02Z", 1_710_032_520),
    ("2100-02-28T00:00:00+0000", 4_107_456_000), ("2016-12-31T23:59:59Z", 1_483_228_799),
    ("2026-11-21", 1_795_219_200), ("2016-12-31T23:59:60Z", 1_483_228_800),
    ("2026-11-21T10:00:00,5+01", 1_795_251_600.5),
  ])
  func isoDateTimes(text: String, seconds: Double) {
    let parsed = Timestamp.parse(Array(text.utf8))
    #expect(parsed.map { abs($0 - seconds) <= 1e-6 } == true, "\(text): \(String(describing: parsed))")
  }

  @Test(arguments: [
    "2026-02-29T00:00:00Z", "2026-13-01T00:00Z", "2026-11-31", "2026-11-21T24:00:00Z", "2026-11-21T10:60Z",
    "2026-11-21T10:00:00.Z", "2026-11-21T10:00:00Zx", "2026-11-21T10:00:00+25:00", "2026-1-21", "21/11/2026",
    "1795255200", "", "2026-11-21X10:00",
  ])
  func notDateTimes(text: String) {
    #expect(Timestamp.parse(Array(text.utf8)) == nil, "\(text)")
  }

  @Test func aTimeColumnOfDateTimesReadsAsEpochSeconds() throws {
    let path = temporaryFile(
      "iso.csv",
      "t,x,y,z\n2026-11-21T10:00:00.000Z,0,0,-1\n2026-11-21T11:00:00.010+01:00,0,0,-1\n\"2026-11-21 10:00:00,020\",0,0,-1\n"
    )
    let (block, source) = try readTrace(path)
    #expect(block.t == [1_795_255_200, 1_795_255_200.01, 1_795_255_200.02])
    #expect(source.metadata.notes.count == 1 && source.metadata.notes[0].contains("ISO 8601"))
    var settings = TraceReadSettings()
    settings.timeUnit = .ms
    let error = accelError { _ = try readTrace(path, settings) }
    #expect(error?.exitCode == 64 && error?.message.contains("--time-unit ms does not apply") == true)
    // Not a date-time in the time column, and a date-time elsewhere: the usual error, line and column.
    let bad = temporaryFile("bad.csv", "t,x,y,z\n0,0,0,-1\n2026-11-21T10:00:61Z,0,0,-1\n")
    #expect(
      message(accelError { _ = try readTrace(bad) }, in: bad)?.contains("bad.csv:3:1: expected a number")
        == true)
    let elsewhere = temporaryFile("x.csv", "t,x,y,z\n0,2026-11-21,0,-1\n")
    #expect(
      message(accelError { _ = try readTrace(elsewhere) }, in: elsewhere)?.contains(
        "x.csv:2:2: expected a number") == true)
  }

  // MARK: Epoch timestamps

  @Test(arguments: [
    (1_700_000_000_000_000_000.0, TimeUnit.ns), (1_700_000_000_000_000, .us), (1_700_000_000_000, .ms),
  ])
  func epochTimesAreToldByTheirSize(first: Double, unit: TimeUnit) throws {
    let step = 0.01 * unit.divisorToSeconds
    let rows = (0..<3).map { "\(Int64(first + Double($0) * step)),0,0,-1" }.joined(separator: "\n")
    let (block, source) = try readTrace(temporaryFile("epoch.csv", "t,x,y,z\n" + rows + "\n"))
    #expect(abs(block.t[0] - 1_700_000_000) < 1e-6 && abs(block.t[2] - block.t[0] - 0.02) < 1e-6)
    #expect(
      source.metadata.notes == [
        "the time column holds Unix epoch times in \(unit.rawValue) (the first is \(formatNumber(first))): read as \(unit.rawValue); --time-unit chooses another unit"
      ])
  }

  @Test func timesThatAreNotEpochTimesStayAsGiven() throws {
    // Seconds since the epoch, nanoseconds since boot (3 hours), and a unit that was given.
    for (first, unit) in [
      (1_700_000_000.0, nil), (10_800_000_000_000, nil), (1_700_000_000_000_000_000, TimeUnit.s),
    ] {
      var settings = TraceReadSettings()
      settings.timeUnit = unit
      settings.timeOrder = .report  // 1.7e18 + 10 is 1.7e18 in a Double
      let (block, source) = try readTrace(
        temporaryFile("t.csv", "t,x,y,z\n\(Int64(first)),0,0,-1\n\(Int64(first) + 10),0,0,-1\n"), settings)
      #expect(block.t[0] == first && source.metadata.notes.isEmpty, "\(first)")
    }
  }

  // MARK: Decimal commas

  static let pointText = """
    "Time (s)";"Acceleration x (m/s^2)";"Acceleration y (m/s^2)";"Acceleration z (m/s^2)"
    0.000000000E0;1.2345E-1;-2.5E0;9.81E0
    1.000000000E-2;1.3E-1;-2.4E0;9.8E0
    2.000000000E-2;-1.5;0.25;9.7

    """

  @Test func aPhyphoxExportWithDecimalCommasReadsAsWithPoints() throws {
    let comma =
      Self.pointText.split(separator: "\n").enumerated().map { i, line in
        i == 0 ? String(line) : line.replacingOccurrences(of: ".", with: ",")
      }.joined(separator: "\n") + "\n"
    let (expected, _) = try readTrace(temporaryFile("point.csv", Self.pointText), Self.cli())
    let (block, source) = try readTrace(temporaryFile("comma.csv", comma), Self.cli())
    #expect(block.t == expected.t && block.x == expected.x && block.y == expected.y && block.z == expected.z)
    #expect(abs(block.x[0] + 0.12345 / 9.80665) < 1e-15, "phyphox's preset: m/s^2, specific force")
    #expect(source.metadata.recognisedAs == "phyphox")
    #expect(source.metadata.notes.contains { $0.contains("decimal comma") })
    // Tab-delimited, and read in tiny buffers (every refill translates its new bytes).
    let tabs = comma.replacingOccurrences(of: ";", with: "\t")
    var settings = try Self.cli()
    settings.readBufferSize = 16
    let (small, _) = try readTrace(temporaryFile("tabs.tsv", tabs), settings)
    #expect(small.x == expected.x && small.t == expected.t)
    // Semicolons with decimal points: no comma to translate, nothing noted.
    let (_, plain) = try readTrace(temporaryFile("point2.csv", Self.pointText))
    #expect(plain.metadata.notes.isEmpty)
  }

  @Test func aLongDecimalCommaFileMatchesItsDecimalPointTwin() throws {
    var point = "t;x;y;z\n"
    var comma = "t;x;y;z\n"
    for i in 0..<200_000 {
      let row = "\(Double(i) / 100);\(sin(Double(i) * 0.37));\(-0.5 + Double(i % 7) / 10);-1.0625\n"
      point += row
      comma += row.replacingOccurrences(of: ".", with: ",")
    }
    let (expected, _) = try readTrace(temporaryFile("p.csv", point))
    let (block, _) = try readTrace(temporaryFile("c.csv", comma))
    #expect(block.count == 200_000 && block.t == expected.t && block.x == expected.x && block.y == expected.y)
  }

  @Test func decimalCommasCanBeForcedOrRefused() throws {
    let text = "t;x;y;z\n0;1;0;-1\n0,01;1,5;0;-1\n"
    var settings = TraceReadSettings()
    settings.decimalComma = true
    let (forced, _) = try readTrace(temporaryFile("f.csv", text), settings)
    #expect(forced.x == [1, 1.5])
    settings.decimalComma = false
    let refused = temporaryFile("r.csv", text)
    #expect(
      message(accelError { _ = try readTrace(refused, settings) }, in: refused)?.contains(
        "r.csv:3:1: expected a number") == true)
    settings.decimalComma = true
    let commas = temporaryFile("commas.csv", "t,x,y,z\n0,1,0,-1\n")
    #expect(accelError { _ = try readTrace(commas, settings) }?.exitCode == 64)
  }

  // MARK: Sensor Logger

  @Test func aSensorLoggerExportIsRecognised() throws {
    let text = """
      time,seconds_elapsed,z,y,x
      1700000000100000000,0.1,9.80665,0.5,-1.0
      1700000000110000000,0.11,9.8,0.4,-1.1

      """
    let (block, source) = try readTrace(temporaryFile("TotalAcceleration.csv", text), Self.cli())
    #expect(source.metadata.recognisedAs == "sensor-logger")
    #expect(block.t == [0.1, 0.11])
    // m/s^2 with Android's signs: a phone face up reads +9.8 on z, Apple's -1 g.
    #expect(block.z[0] == -1 && block.x[0] == 1 / 9.80665 && block.y[0] == -0.5 / 9.80665)
    var settings = TraceReadSettings()
    settings.recogniseWith = nil
    try settings.apply(Preset.named("sensor-logger-ios")!)
    let (ios, _) = try readTrace(temporaryFile("Accelerometer.csv", text), settings)
    #expect(ios.z[0] == 1 && ios.x[0] == -1 / 9.80665)
  }

  // MARK: Formats accelkit does not read

  @Test(arguments: [
    ([UInt8]("PAR1".utf8) + [0, 0, 0x15, 0x04], "a Parquet file", "pd.read_parquet"),
    ([0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0], "a ZIP archive", "unzip"),
    (Array("SQLite format 3\u{0}".utf8), "an SQLite database", "sqlite3"),
    ([0xFF, 0xFE, 0x74, 0x00, 0x2C, 0x00], "UTF-16 text", "iconv"),
    (Array("[{\"sensor\": \"Accelerometer\"}]".utf8), "JSON", "to_csv"),
    ([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1], "an Excel 97-2003 workbook", "CSV"),
    ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00], "xz-compressed", "xz -dc"),
    ([0x01, 0x02, 0x00, 0x00, 0xFF, 0x10, 0x00, 0x41], "binary data", "--input-format raw"),
  ])
  func foreignFormatsAreNamed(head: [UInt8], name: String, hint: String) throws {
    let path = temporaryFile("data.csv", head + Array(repeating: 0x41, count: 64))
    let error = accelError { _ = try readTrace(path) }
    #expect(error?.exitCode == 65)
    let text = error?.diagnostic ?? ""
    #expect(text.contains("this is \(name)") && text.contains(hint), "\(text)")
    #expect(
      !text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(text)")
  }

  // MARK: HDF5

  /// Runs Python with h5py (CI installs it; elsewhere the HDF5 tests need it too).
  static func python(_ script: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script]
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Fails the test, with how to install them, when h5py or the system's libhdf5 is missing.
  static func requireHDF5() throws {
    try #require(
      Tools.python(importing: ["numpy", "h5py"]) != nil,
      Comment(rawValue: Tools.missing("python3 with h5py", package: "h5py")))
  }

  /// A BROAD trial written as BROAD publishes it (h5py, from the CSV of the same trial) reads
  /// with the same values as the CSV.
  @Test func aBROADTrialInHDF5ReadsAsItsCSV() throws {
    try Self.requireHDF5()
    let csv = Paths.real("broad/02_undisturbed_slow_rotation_B.csv.gz")
    let h5 = Paths.temporaryDirectory() + "/02_undisturbed_slow_rotation_B.hdf5"
    let script = """
      import gzip, numpy as np, h5py
      d = np.genfromtxt(gzip.open('\(csv)'), delimiter=',', names=True)
      with h5py.File('\(h5)', 'w') as f:
          f['imu_acc'] = np.column_stack([d['acc_x_mps2'], d['acc_y_mps2'], d['acc_z_mps2']])
          f['imu_gyr'] = np.column_stack([d['gyr_x_rps'], d['gyr_y_rps'], d['gyr_z_rps']])
          f['imu_mag'] = np.column_stack([d['mag_x_uT'], d['mag_y_uT'], d['mag_z_uT']])
          f['opt_quat'] = np.column_stack([d['opt_qw'], d['opt_qx'], d['opt_qy'], d['opt_qz']])
          f['movement'] = d['movement'] > 0
          f.attrs['sampling_rate'] = 1 / np.median(np.diff(d['t_s']))
      """
    #expect(try Self.python(script) == 0, "h5py is needed: pip install h5py")
    let (expected, _) = try readTrace(csv, Self.cli())
    let (block, source) = try readTrace(h5, Self.cli())
    #expect(source.metadata.recognisedAs == "broad-hdf5")
    #expect(block.count == expected.count && block.count > 50_000)
    #expect(block.x == expected.x && block.y == expected.y && block.z == expected.z)
    #expect(block.gyroscope?.x == expected.gyroscope?.x && block.gyroscope?.z == expected.gyroscope?.z)
    #expect(block.magnetometer?.y == expected.magnetometer?.y)
    #expect(zip(block.t, expected.t).allSatisfy { abs($0 - $1) < 1e-9 })
  }

  @Test func hdf5DatasetsAndGroupsReadAsColumns() throws {
    try Self.requireHDF5()
    let dir = Paths.temporaryDirectory()
    let script = """
      import numpy as np, h5py
      t = np.arange(20000) / 100.0
      a = np.column_stack([t, np.sin(t), np.cos(t), -np.ones_like(t)])
      with h5py.File('\(dir)/one.h5', 'w') as f:
          f['recording/imu'] = a
      with h5py.File('\(dir)/cols.h5', 'w') as f:
          for i, n in enumerate(['t', 'x', 'y', 'z']): f['rec/' + n] = a[:, i]
          f['rec/label'] = np.array([b'walk'])
          f['other'] = np.zeros((3, 3))
          f['text'] = np.array([b'x', b'y'])
      np.save('\(dir)/same.npy', a)
      """
    #expect(try Self.python(script) == 0)
    let (expected, _) = try readTrace(dir + "/same.npy")
    let (one, _) = try readTrace(dir + "/one.h5")
    #expect(one.count == 20000 && one.t == expected.t && one.x == expected.x && one.z == expected.z)
    var settings = TraceReadSettings()
    settings.dataset = "rec"
    let (columns, _) = try readTrace(dir + "/cols.h5", settings)
    #expect(columns.t == expected.t && columns.y == expected.y)
    // No choice made: the error lists what the file holds.
    let error = accelError { _ = try readTrace(dir + "/cols.h5") }
    #expect(
      error?.exitCode == 64 && error?.diagnostic.contains("/rec (columns t, x, y, z)") == true
        && error?.diagnostic.contains("/other (3 x 3)") == true, "\(String(describing: error))")
    settings.dataset = "text"
    #expect(accelError { _ = try readTrace(dir + "/cols.h5", settings) }?.exitCode == 65)
    settings.dataset = "missing"
    #expect(
      accelError { _ = try readTrace(dir + "/cols.h5", settings) }?.message.contains("no dataset") == true)
    // --dataset is for HDF5 only.
    #expect(accelError { _ = try readTrace(dir + "/same.npy", settings) }?.exitCode == 64)
  }
}
