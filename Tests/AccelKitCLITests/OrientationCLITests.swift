import Foundation
import TestSupport
import Testing

@Suite struct OrientationCLITests {
  /// 1 s face up, then 2 s portrait upright, at 50 Hz (Apple's convention).
  let trace: String = {
    var text = "t,x,y,z\n"
    for i in 0..<150 {
      let t = Double(i) / 50
      text += i < 50 ? "\(t),0,0,-1\n" : "\(t),0,-1,0\n"
    }
    return temporaryCSV(text)
  }()

  @Test func perSampleColumns() throws {
    let result = try accelkit(["orientation", "--raw", trace, "-o", "-"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n")
    #expect(lines[0] == "t,roll,pitch,tilt,up_angle,orientation")
    #expect(lines[1] == "0,0,0,0,0,face-up")
    #expect(lines[60].hasSuffix(",0,90,90,-1.5707963267948966,portrait"))  // roll held at the pole
    let aero = try accelkit(["orientation", "--raw", "--angles", "aerospace", trace, "-o", "-"])
    #expect(aero.stdout.hasPrefix("t,roll_x,pitch_y,tilt,up_angle,orientation\n0,0,0,0,0,face-up\n"))
  }

  @Test func events() throws {
    let result = try accelkit(["orientation", "--events", trace, "-o", "-"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[0] == "t,from,to")
    #expect(lines[1] == "0.3,unknown,face-up")
    #expect(lines[2].hasSuffix(",face-up,portrait"))
  }

  @Test func validation() throws {
    #expect(try accelkit(["orientation", "--flat-angle", "95", trace]).status == 64)
    #expect(try accelkit(["orientation", "--raw", "--cutoff", "2", trace]).status == 64)
    #expect(try accelkit(["orientation", "--cutoff", "30", trace]).status == 64)  // at Nyquist of 50 Hz
  }
}
