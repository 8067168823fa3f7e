import Foundation
import TestSupport
import Testing

/// scripts/import_everyday.py on small files written in each source's exact format: every
/// source's layout, units, axis convention, position and fall split, and time stamps that arrive
/// in bursts, with gaps or going back; then `evaluate` groups the result by source and position.
@Suite struct ImportEverydayTests {
  static let g = 9.80665

  /// Rows of `seconds` at `rate` of a device lying still, reading +1 g up (specific force).
  static func still(_ seconds: Double, rate: Double) -> [Double] {
    (0..<Int(seconds * rate)).map { Double($0) / rate }
  }

  static func write(_ root: String, _ path: String, _ text: String) throws {
    let full = root + "/" + path
    try FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    writeFile(full, text)
  }

  static func run(_ source: String, _ checkout: String, _ out: String) throws -> CLIResult {
    let python = try #require(Tools.path("python3"), Comment(rawValue: Tools.missing("python3", package: "python3")))
    return try accelkit(
      [], shell: "'\(python)' '\(Paths.packageRoot)/scripts/import_everyday.py' \(source) '\(checkout)' '\(out)'")
  }

  /// The manifest rows of `out/manifest.csv` as [trace: (source, position, activity)].
  static func manifest(_ out: String) -> [String: [String]] {
    let rows = String(decoding: readFile(out + "/manifest.csv") ?? [], as: UTF8.self).split(separator: "\n")
    var result: [String: [String]] = [:]
    for row in rows.dropFirst() {
      let f = row.split(separator: ",").map(String.init)
      result[f[0]] = [f[2], f[3], f[4]]
    }
    return result
  }

  /// The first data row of a trace, as numbers.
  static func firstRow(_ path: String) -> [Double] {
    let lines = String(decoding: readFile(path) ?? [], as: UTF8.self).split(separator: "\n")
    return lines.count > 1 ? lines[1].split(separator: ",").compactMap { Double($0) } : []
  }

  @Test func everySourceImportsWithItsPositionsAndUnits() throws {
    let root = Paths.temporaryDirectory()
    let out = root + "/out"
    // Oxford: ns since boot, sensor type, m/s^2; the logger's first row is zeros.
    var oxford = "1000000000,2,0.0,0.0,0.0\n"
    for t in Self.still(3, rate: 100) { oxford += "\(1_000_000_000 + Int(t * 1e9)),2,0.0,0.0,\(Self.g)\n" }
    try Self.write(root, "oxford/optimisation/data/Pixel_Jamie_Hard_FrontPocket_1/accelerometer.csv", oxford)
    try Self.write(root, "oxford/optimisation/data/_Patient_1/accelerometer.csv", "")
    // UMAFall: a % header naming the sensors, then TimeStamp (ms); Sample No; X; Y; Z (g);
    // Sensor Type; Sensor ID. The phone (ID 0) stamps bursts of samples with one millisecond.
    var uma = "% Universidad de Malaga\n% MAC Address; Sensor_ID; Position; Device Model\n"
    uma += "%f8:95:c7:f3:ba:82; 0; RIGHTPOCKET; lge-LG-H815-5.1\n%C4:BE:84:71:A5:02; 2; WAIST; SensorTag\n"
    uma += "% TimeStamp; Sample No; X-Axis; Y-Axis; Z-Axis; Sensor Type; Sensor ID;\n"
    for k in 0..<600 { uma += "\(100 + (k / 4) * 20);\(k);0.0;1.0;0.0;0;0\n" }
    for k in 0..<60 { uma += "\(100 + k * 50);\(k);0.0;0.0;1.0;0;2\n\(100 + k * 50);\(k);0.1;0.1;0.1;1;2\n" }
    try Self.write(root, "umafall/scripts/extracted_files/UMAFall_Subject_01_ADL_Walking_1_2017-04-14_23-25-52.csv", uma)
    try Self.write(root, "umafall/scripts/extracted_files/UMAFall_Subject_02_Fall_forwardFall_1_2017-04-14_23-25-52.csv", uma)
    // SmartFallMM: the phone's date-time and m/s^2; a MetaMotion's header, a spreadsheet-rounded
    // epoch and the elapsed seconds, in g; a gap of a minute between two pieces.
    var phone = ""
    for t in Self.still(4, rate: 50) {
      phone += "2023-05-10 13:34:\(String(format: "%06.3f", 10 + t)),0.0,\(Self.g),0.0\n"
    }
    try Self.write(root, "smartfallmm/young/accelerometer/phone/S21A08T01.csv", phone)
    var meta = "epoch (ms),time (-11:00),elapsed (s),x-axis (g),y-axis (g),z-axis (g)\n"
    for t in Self.still(3, rate: 25) + Self.still(3, rate: 25).map({ $0 + 60 }) {
      meta += "1.65844E+12,2022-07-21T15:29:00.536,\(15 + t),0.0,0.0,1.0\n"
    }
    try Self.write(root, "smartfallmm/old/accelerometer/meta_wrist/S30A10T01.csv", meta)
    // Two MetaMotion files that hold no accelerations: the epoch in the z column, and a
    // gyroscope's deg/s (one axis pinned at its range); a third at rest for 60% of the time,
    // shaken hard (6 g) for the rest, is acceleration and kept.
    var epoch = ""
    var gyro = ""
    var hard = ""
    for (k, t) in Self.still(3, rate: 50).enumerated() {
      let stamp = 1_683_741_966_950 + 20 * k
      epoch += "\(stamp).0,2023-05-10T13:06:06.950,\(35 + t),1.04,-0.293,\(stamp).0\n"
      gyro += "\(stamp).0,2023-03-31T12:28:41.783,\(38 + t),\(k % 2 == 0 ? 6.2 : -21.5),-29.9,124.874\n"
      let x = k < 90 ? 0.0 : (k % 2 == 0 ? 6.0 : -6.0)
      hard += "\(stamp).0,2023-03-31T12:28:41.783,\(38 + t),\(x),0.0,1.0\n"
    }
    try Self.write(root, "smartfallmm/old/accelerometer/meta_hip/S21A04T04.csv", epoch)
    try Self.write(root, "smartfallmm/old/accelerometer/meta_wrist/S06A06T03.csv", gyro)
    try Self.write(root, "smartfallmm/old/accelerometer/meta_wrist/S06A06T04.csv", hard)
    // A recording of two takes, a minute apart: the second's readings are a constant -1.68e12
    // (as four of SmartFallMM's are). The recording's median is the first take's 1 g, so the
    // second piece is refused on its own and the first kept.
    var takes = ""
    for t in Self.still(4, rate: 50) { takes += "1.65844E+12,2022-07-21T15:29:00.536,\(15 + t),0.0,0.0,1.0\n" }
    for t in Self.still(3, rate: 50) {
      takes += "1.65844E+12,2022-07-21T15:29:00.536,\(75 + t),-1.68279e+12,-1.68279e+12,-1.68279e+12\n"
    }
    try Self.write(root, "smartfallmm/old/accelerometer/meta_wrist/S13A06T02.csv", takes)
    // WEDA-FALL: seconds and m/s^2 at 50 Hz; the vertical acceleration files are not traces.
    var weda = "accel_time_list,accel_x_list,accel_y_list,accel_z_list\n"
    for t in Self.still(3, rate: 50) { weda += "\(t),0.0,0.0,\(Self.g)\n" }
    try Self.write(root, "weda/dataset/50Hz/D02/U01_R01_accel.csv", weda)
    try Self.write(root, "weda/dataset/50Hz/D02/U01_R01_vertical_accel.csv", "vertical_time_list,vertical_accel\n0,1\n")
    // ASSIST-IoT: pipe-separated, a belt tag in g and a watch in its own unit (gravity 0.13).
    var assist = "SET|PARTICIPANT|TIMESTAMP|SOURCE|X|Y|Z|TYPE|ACTIVITY|IS_FALL\n"
    for t in Self.still(3, rate: 100) {
      let stamp = String(format: "2023-02-01 11:31:%06.3f", 10 + t)
      assist += "stairs|1|\(stamp)|TAG|0|0|1|A|6|0\nstairs|1|\(stamp)|WATCH_L|0.125|0|0|A|6|0\n"
    }
    try Self.write(root, "assist/data/full_acceleration/stairs/01/acceleration.csv", assist)
    // IPOL: the rate on the first line, tab-separated, m/s^2.
    var ipol = "Acquisition frequency: 100 Hz\nPacketCounter\tAcc_X\tAcc_Y\tAcc_Z\tGyr_X\tGyr_Y\tGyr_Z\n"
    for (k, _) in Self.still(3, rate: 100).enumerated() { ipol += "\(k).0\t\(Self.g)\t0\t0\t0\t0\t0\n" }
    try Self.write(root, "ipol/GaitData/1-1_lb.txt", ipol)

    for source in ["oxford", "umafall", "smartfallmm", "wedafall", "assist", "ipol"] {
      let folder = source == "wedafall" ? "weda" : source
      let r = try Self.run(source, root + "/" + folder, out)
      #expect(r.status == 0, "\(source): \(r.stderr)")
      if source == "smartfallmm" {
        #expect(
          r.stdout.contains(
            "refused 3 recordings whose median |a| is over 4 g (not accelerations in g): "
              + "smartfallmm-old-meta_hip-S21A04T04, smartfallmm-old-meta_wrist-S06A06T03, "
              + "smartfallmm-old-meta_wrist-S13A06T02-part2\n"), "\(r.stdout)")
      }
    }
    let rows = Self.manifest(out)
    let expected: [String: [String]] = [
      "oxford/oxford-Pixel_Jamie_Hard_FrontPocket_1.csv": ["oxford", "trouser-pocket", "walking"],
      "umafall/umafall-UMAFall_Subject_01_ADL_Walking_1_2017-04-14_23-25-52-trouser-pocket.csv":
        ["umafall", "trouser-pocket", "walking"],
      "umafall/umafall-UMAFall_Subject_01_ADL_Walking_1_2017-04-14_23-25-52-waist.csv": ["umafall", "waist", "walking"],
      "umafall-falls/umafall-UMAFall_Subject_02_Fall_forwardFall_1_2017-04-14_23-25-52-waist.csv":
        ["umafall-falls", "waist", "forwardfall"],
      "umafall-falls/umafall-UMAFall_Subject_02_Fall_forwardFall_1_2017-04-14_23-25-52-trouser-pocket.csv":
        ["umafall-falls", "trouser-pocket", "forwardfall"],
      "smartfallmm/smartfallmm-young-phone-S21A08T01.csv": ["smartfallmm", "hip", "walking"],
      "smartfallmm-falls/smartfallmm-old-meta_wrist-S30A10T01-part1.csv": ["smartfallmm-falls", "wrist", "fall-back"],
      "smartfallmm-falls/smartfallmm-old-meta_wrist-S30A10T01-part2.csv": ["smartfallmm-falls", "wrist", "fall-back"],
      "smartfallmm/smartfallmm-old-meta_wrist-S06A06T04.csv": ["smartfallmm", "wrist", "washing-hands"],
      "smartfallmm/smartfallmm-old-meta_wrist-S13A06T02-part1.csv": ["smartfallmm", "wrist", "washing-hands"],
      "wedafall/wedafall-D02_U01_R01.csv": ["wedafall", "wrist", "jogging"],
      "assist/assist-stairs-1-TAG-6.csv": ["assist", "waist", "stairs-fast"],
      "assist/assist-stairs-1-WATCH_L-6.csv": ["assist", "wrist", "stairs-fast"],
      "ipol/ipol-1-1_lb.csv": ["ipol", "lower-back", "walking"],
    ]
    #expect(rows == expected, "\(rows.keys.sorted())")
    // Specific force (+1 g up) becomes Apple's convention (-1 g); m/s^2 become g.
    #expect(Self.firstRow(out + "/oxford/oxford-Pixel_Jamie_Hard_FrontPocket_1.csv") == [0, -0.0, -0.0, -1])
    #expect(Self.firstRow(out + "/ipol/ipol-1-1_lb.csv") == [0, -1, -0.0, -0.0])
    #expect(Self.firstRow(out + "/smartfallmm/smartfallmm-young-phone-S21A08T01.csv") == [0, -0.0, -1, -0.0])
    // ASSIST's watch is multiplied by 7.6 into g; its tag is read as g.
    #expect(Self.firstRow(out + "/assist/assist-stairs-1-WATCH_L-6.csv") == [0, -0.95, 0, 0])
    #expect(Self.firstRow(out + "/assist/assist-stairs-1-TAG-6.csv") == [0, 0, 0, -1])
    // The phone's bursts under one stamp are spread over 5 ms each: 600 samples, 200 Hz.
    let pocket = String(
      decoding: readFile(out + "/umafall/umafall-UMAFall_Subject_01_ADL_Walking_1_2017-04-14_23-25-52-trouser-pocket.csv")!,
      as: UTF8.self
    ).split(separator: "\n")
    #expect(pocket.count == 601 && pocket[2].hasPrefix("0.005000,"), "\(pocket.prefix(3))")

    // Every trace reads; evaluate reports each source and position.
    let report = Paths.temporaryDirectory()
    let evaluated = try accelkit(["evaluate", out, "--rule", "swing", "-o", report, "--format", "csv"])
    #expect(evaluated.status == 0, "\(evaluated.stderr)")
    let groups = String(decoding: readFile(report + "/groups.csv") ?? [], as: UTF8.self)
    for name in ["source,smartfallmm-falls,", "source,umafall,", "position,lower-back,", "position,trouser-pocket,"] {
      #expect(groups.contains(name), "\(name)")
    }
  }
}
