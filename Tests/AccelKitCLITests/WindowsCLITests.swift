import Foundation
import TestSupport
import Testing

@Suite struct WindowsCLITests {
  @Test func writesOneRowPerWindowAndKeepsTimesAndCountsExact() throws {
    let csv = temporaryCSV("t,x,y,z\n0,1,0,0.5\n0.5,2,0,0.5\n1,3,-1,0.5\n1.5,5,1,0.5\n2.25,7.123456,,0.5\n")
    let result = try accelkit(["windows", csv, "--allow-nonfinite", "--width", "1", "-o", "-"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout == """
        t,n,x_mean,x_std,x_min,x_max,y_mean,y_std,y_min,y_max,z_mean,z_std,z_min,z_max
        0,2,1.5,0.7071067811865476,1,2,0,0,0,0,0.5,0,0.5,0.5
        1,2,4,1.4142135623730951,3,5,0,1.4142135623730951,-1,1,0.5,0,0.5,0.5
        2,1,7.123456,,7.123456,7.123456,,,,,0.5,,0.5,0.5

        """)
    let rounded = try accelkit([
      "windows", csv, "--allow-nonfinite", "--width", "1", "--precision", "2", "-o", "-",
    ])
    #expect(rounded.stdout.split(separator: "\n")[3] == "2,1,7.1,,7.1,7.1,,,,,0.5,,0.5,0.5")
  }

  @Test func refusesAWidthThatIsNotPositive() throws {
    for width in ["0", "-1", "nan"] {
      let result = try accelkit(["windows", "--width=\(width)", "-o", "-"])
      #expect(result.status == 64, "\(width)")
      // NaN is refused as it parses (the option is Finite); 0 and -1 by the command's check.
      #expect(
        result.stderr.contains(
          width == "nan" ? "The value 'nan' is invalid for '--width <seconds>'" : "--width must be a positive number of seconds"),
        "\(result.stderr)")
    }
  }
}
