import Foundation
import TestSupport
import Testing

/// The gyroscope, magnetometer, kept columns, recorder recognition and gzip through the binary.
@Suite struct ChannelsCLITests {
  let imuCSV = """
    time,acc_x,acc_y,acc_z,gyr_x_dps,gyr_y_dps,gyr_z_dps,mag_x_uT,mag_y_uT,mag_z_uT,label
    0,0,0,-1,90,0,0,20,0,-40,1
    0.01,0,0.5,-1,0,-180,0,21,1,-39,2
    0.02,0.25,0,-1,0,0,45,22,2,-38,

    """

  @Test func convertWritesEveryGroupAndDropsWhatIsNotAsked() throws {
    let path = temporaryCSV(imuCSV, name: "imu.csv")
    let all = try accelkit(["convert", path, "--keep", "label", "-o", "-"])
    #expect(all.status == 0, "\(all.stderr)")
    let lines = all.stdout.split(separator: "\n")
    #expect(lines[0] == "t,x,y,z,gx,gy,gz,mx,my,mz,label")
    #expect(lines[3].hasSuffix(",22,2,-38,"))  // a missing kept value stays empty
    #expect(lines[2].split(separator: ",")[5] == "\(-Double.pi)")
    let accel = try accelkit(["convert", "--channels", "acc", path, "-o", "-"])
    #expect(accel.stdout.hasPrefix("t,x,y,z\n0,0,0,-1\n"))
    let gyro = try accelkit(["convert", "--channels", "acc,gyro", path, "-o", "-"])
    #expect(gyro.stdout.hasPrefix("t,x,y,z,gx,gy,gz\n"))
    let bad = try accelkit(["convert", "--channels", "acc,temp", path, "-o", "-"])
    #expect(bad.status == 64)
    #expect(bad.stderr.hasPrefix("Error: unknown sensor group \"temp\"; the groups are acc, gyro and mag"))
  }

  @Test func npyAndRawRoundTripEveryChannelExactly() throws {
    let path = temporaryCSV(imuCSV, name: "imu.csv")
    let dir = Paths.temporaryDirectory()
    #expect(try accelkit(["convert", path, "-o", "\(dir)/imu.npy"]).status == 0)
    let back = try accelkit(["convert", "\(dir)/imu.npy", "-o", "-"])
    let direct = try accelkit(["convert", path, "-o", "-"])
    #expect(back.stdout == direct.stdout)
    #expect(try accelkit(["convert", path, "-o", "\(dir)/imu.f64", "--out-layout", "t,acc,gyro,mag"]).status == 0)
    let raw = try accelkit(["convert", "\(dir)/imu.f64", "--layout", "t,acc,gyro,mag", "-o", "-"])
    #expect(raw.stdout == direct.stdout)
    let refused = try accelkit(["convert", "--channels", "acc", path, "-o", "\(dir)/x.f64", "--out-layout", "t,acc,gyro"])
    #expect(refused.status == 64)
    #expect(refused.stderr.hasPrefix("Error: the raw output layout t,x,y,z,gx,gy,gz names gx, which the trace does not have"))
    #expect(!fileExists("\(dir)/x.f64"))
    let badLayout = try accelkit(["convert", "\(dir)/imu.f64", "--layout", "t,acc,gx", "-o", "-"])
    #expect(badLayout.status == 64)
    #expect(badLayout.stderr.hasPrefix("Error: the raw layout \"t,acc,gx\" has only some axes of the gyroscope"))
  }

  @Test func infoDescribesEachGroupAndWarns() throws {
    // A gyroscope logged in deg/s under a rad/s name: 90 "rad/s" is not a rate a hand makes.
    let wrong = temporaryCSV("t,x,y,z,gx_rps,gy_rps,gz_rps\n0,0,0,-1,90,0,0\n0.01,0,0,-1,-90,0,0\n", name: "wrong.csv")
    let info = try accelkit(["info", "--format", "table", wrong])
    #expect(info.status == 0)
    #expect(info.stdout.contains("  gx (rad/s)  min -90  max 90"))
    #expect(info.stdout.contains("its unit looks like deg/s, not rad/s (pass --gyro-units deg/s)"))
    let weak = temporaryCSV("t,x,y,z,mx,my,mz\n0,0,0,-1,1,1,1\n0.01,0,0,-1,1,1,1\n", name: "weak.csv")
    let mag = try accelkit(["info", "--format", "json", weak])
    let parsed = try JSONSerialization.jsonObject(with: Data(mag.stdout.utf8)) as? [[String: Any]]
    #expect(parsed?[0]["channels"] as? String == "t x y z mx my mz")
    #expect(parsed?[0]["gx_min"] is NSNull)
    #expect((parsed?[0]["warnings"] as? [String])?.contains { $0.contains("outside the Earth's 20-70 uT") } == true)
  }

  @Test func gzipOnStdinAndResampleZeroIsAUsageErrorEverywhere() throws {
    let path = temporaryCSV(imuCSV, name: "imu.csv")
    let zipped = try accelkit([], shell: "gzip -c -n '\(path)' | ACCELKIT convert - --channels acc -o -")
    #expect(zipped.status == 0 && zipped.stdout.hasPrefix("t,x,y,z\n0,0,0,-1\n"))
    for command in [["spectrum"], ["spectrogram"], ["orientation"], ["detect-shakes"], ["filter", "lowpass"], ["convert", "-o", "-"]] {
      for value in ["0", "-1"] {
        let result = try accelkit(command + ["--resample=\(value)", path])
        #expect(result.status == 64, "\(command) --resample \(value)")
        #expect(result.stderr.hasPrefix("Error: --resample must be a positive number of Hz, got \(value)"))
      }
    }
  }

  @Test
  func knownRecordersAreRecognisedWithoutAPreset() throws {
    let root = Paths.real("")
    let result = try accelkit([
      "info", "--format", "csv", "\(root)coremotion/walk_data.csv", "\(root)broad/05_undisturbed_slow_rotation_with_breaks_B.csv.gz",
      "\(root)st-mlc/nod1.txt",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = result.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    let header = rows[0]
    let recognised = rows.dropFirst().map { $0[header.firstIndex(of: "recognised_as")!] }
    let channels = rows.dropFirst().map { $0[header.firstIndex(of: "channels")!] }
    #expect(recognised == ["coremotion", "broad", "st-mlc"])
    #expect(channels == ["t x y z gx gy gz", "t x y z gx gy gz mx my mz", "t x y z gx gy gz"])
    // --preset still overrides what the header says.
    let gravity = try accelkit(["convert", "--preset", "coremotion-gravity", "\(root)coremotion/walk_data.csv", "-o", "-"])
    #expect(gravity.stdout.split(separator: "\n")[1].hasPrefix("0,0.488391,0.871671,0.040794,"))
  }
}
