import Foundation
import TestSupport
import Testing

/// `accelkit attitude`, `orientation --gyro` and `filter gravity --method fusion` through the binary.
@Suite struct AttitudeCLITests {
  /// 4 s at 50 Hz: flat and still for 1 s, then turning about the vertical at 90 deg/s, with a
  /// magnetometer (north along +y when flat) and a kept label column.
  let trace: String = {
    var text = "time,acc_x,acc_y,acc_z,gyr_x_dps,gyr_y_dps,gyr_z_dps,mag_x_uT,mag_y_uT,mag_z_uT\n"
    for i in 0..<200 {
      let t = Double(i) / 50
      let turning = t >= 1
      let heading = turning ? (t - 1) * Double.pi / 2 : 0
      // The field seen from a sensor turned by `heading` about z: rotate (0, 20) by -heading.
      let mx = 20 * sin(heading)
      let my = 20 * cos(heading)
      text += "\(t),0,0,-1,0,0,\(turning ? 90 : 0),\(mx),\(my),-40\n"
    }
    return temporaryCSV(text, name: "turn.csv")
  }()

  @Test func writesQuaternionsAndAnglesForEverySample() throws {
    let result = try accelkit(["attitude", trace, "-o", "-"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.count == 201)
    #expect(lines[0] == "t,qw,qx,qy,qz,roll,pitch,yaw")
    let last = lines[200].split(separator: ",").map { Double($0)! }
    let q = Array(last[1...4])
    #expect(abs(q.map { $0 * $0 }.reduce(0, +) - 1) < 1e-12)
    #expect(abs(last[5]) < 0.5 && abs(last[6]) < 0.5, "flat: \(last)")
    let aero = try accelkit(["attitude", "--angles", "aerospace", "--mag", "off", trace, "-o", "-"])
    #expect(aero.stdout.hasPrefix("t,qw,qx,qy,qz,roll_x,pitch_y,yaw_z\n"))
    // Without the magnetometer the heading is relative and the rotation is the gyroscope's: the
    // first sample reads yaw 0, and 150 samples turning at 90 deg/s for 0.02 s each make 270 (-90).
    let rows = aero.stdout.split(separator: "\n").dropFirst().map {
      $0.split(separator: ",").map { Double($0)! }
    }
    #expect(abs(rows[0][7]) < 1e-9)
    #expect(abs(rows[199][7] + 90) < 0.01, "\(rows[199][7])")
  }

  @Test func methodsParametersAndFormats() throws {
    for method in ["vqf", "madgwick", "mahony", "complementary", "accel"] {
      let r = try accelkit(["attitude", "--method", method, trace, "-o", "-"])
      #expect(r.status == 0 && r.stdout.split(separator: "\n").count == 201, "\(method): \(r.stderr)")
    }
    let accel = try accelkit(["attitude", "--method", "accel", "--mag", "off", trace, "-o", "-"])
    #expect(accel.stdout.split(separator: "\n")[1].hasSuffix(","), "yaw is empty without a heading")
    let list = try accelkit(["attitude", "--list-params"])
    #expect(list.status == 0 && list.stdout.contains("tau_acc") && list.stdout.contains("k_i"))
    let tuned = try accelkit([
      "attitude", "--method", "madgwick", "--param", "gain_mag=0.1", trace, "-o", "-",
    ])
    let plain = try accelkit(["attitude", "--method", "madgwick", trace, "-o", "-"])
    #expect(tuned.status == 0 && tuned.stdout != plain.stdout)
    let dir = Paths.temporaryDirectory()
    let npy = try accelkit(["attitude", trace, "-o", dir + "/a.npy"])
    #expect(npy.status == 0)
    let back = try accelkit(["info", dir + "/a.npy", "--columns", "t=t,x=qx,y=qy,z=qz"])
    #expect(back.status == 0 && back.stdout.contains("200"), "\(back.stdout) \(back.stderr)")
    // Deterministic: the same bytes twice.
    #expect(
      try accelkit(["attitude", trace, "-o", "-"]).stdout
        == (try accelkit(["attitude", trace, "-o", "-"])).stdout)
  }

  /// --offline: VQF's offline variant through a scratch file; the same conventions and shape.
  @Test func offlineVariant() throws {
    let offline = try accelkit(["attitude", "--offline", trace, "-o", "-"])
    #expect(offline.status == 0, "\(offline.stderr)")
    let lines = offline.stdout.split(separator: "\n")
    #expect(lines.count == 201 && lines[0] == "t,qw,qx,qy,qz,roll,pitch,yaw")
    let relative = try accelkit(["attitude", "--offline", "--mag", "off", trace, "-o", "-"])
    let first = relative.stdout.split(separator: "\n")[1].split(separator: ",").map { Double($0)! }
    #expect(abs(first[7]) < 1e-9, "the first yaw is 0 without a magnetometer")
    let madgwick = try accelkit(["attitude", "--offline", "--method", "madgwick", trace, "-o", "-"])
    #expect(madgwick.status == 64 && madgwick.stderr.contains("offline"))
  }

  /// A write that fails on the output thread (a full device, more output than the 1 MB buffer)
  /// ends the command with exit 74.
  @Test func anOutputErrorOnTheSecondThreadIsReported() throws {
    var text = "time,acc_x,acc_y,acc_z,gyr_x_rps,gyr_y_rps,gyr_z_rps\n"
    for i in 0..<20_000 { text += "\(Double(i) / 100),0,0,-1,0.1,0.2,0.3\n" }
    let long = temporaryCSV(text, name: "long.csv")
    let r = try accelkit(["attitude", long, "-o", "/dev/full"])
    #expect(r.status == 74 && r.stderr.contains("/dev/full"), "\(r.stderr)")
  }

  @Test func usageErrors() throws {
    let plain = temporaryCSV("t,x,y,z\n0,0,0,-1\n0.01,0,0,-1\n0.02,0,0,-1\n", name: "plain.csv")
    let noGyro = try accelkit(["attitude", "--method", "vqf", plain, "-o", "-"])
    #expect(noGyro.status == 64)
    #expect(noGyro.stderr.contains("needs a gyroscope"))
    #expect(try accelkit(["attitude", plain, "-o", "-"]).status == 0)  // accel by default
    #expect(try accelkit(["attitude", "--mag", "on", plain, "-o", "-"]).status == 64)
    let badParam = try accelkit(["attitude", "--param", "tau_acc=-3", trace, "-o", "-"])
    #expect(badParam.status == 64 && badParam.stderr.contains("tau_acc"))
    #expect(try accelkit(["attitude", "--param", "nope=1", trace, "-o", "-"]).status == 64)
    #expect(try accelkit(["attitude", "--method", "kalman", trace]).status == 64)
    #expect(try accelkit(["filter", "gravity", "--method", "fusion", plain, "-o", "-"]).status == 64)
    #expect(
      try accelkit(["filter", "gravity", "--method", "fusion", "--cutoff", "1", trace, "-o", "-"]).status
        == 64)
  }

  /// With a gyroscope `orientation` stays put through a shake: a flat device shaken along x at
  /// 4 Hz with +-2 g (no rotation) is face up throughout with the fused gravity, while the low-pass
  /// (--gyro off) loses the class.
  @Test func orientationUsesTheGyroscope() throws {
    var text = "time,acc_x,acc_y,acc_z,gyr_x_rps,gyr_y_rps,gyr_z_rps\n"
    for i in 0..<500 {
      let t = Double(i) / 100
      let shake = t >= 2 && t < 4 ? 2 * sin(2 * Double.pi * 4 * t) : 0
      text += "\(t),\(shake),0,-1,0,0,0\n"
    }
    let shaken = temporaryCSV(text, name: "shaken.csv")
    let fused = try accelkit(["orientation", shaken, "-o", "-"])
    #expect(fused.status == 0)
    let classes = fused.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").last! }
    #expect(classes.allSatisfy { $0 == "face-up" })
    let lowpass = try accelkit(["orientation", "--gyro", "off", shaken, "-o", "-"])
    #expect(lowpass.stdout.split(separator: "\n").dropFirst().contains { !$0.hasSuffix("face-up") })
    let split = try accelkit(["filter", "gravity", "--method", "fusion", shaken, "-o", "-"])
    #expect(split.status == 0)
    #expect(
      split.stdout.hasPrefix("t,gravity_x,gravity_y,gravity_z,user_x,user_y,user_z\n0,0,0,-1,0,0,0\n"),
      "\(split.stdout.prefix(200))")
  }
}
