import Foundation
import TestSupport
import Testing

/// `accelkit generate` gives the same bytes as the commands in the committed datasets' READMEs:
/// a change to the generator (a new scenario's draws) leaves the existing sets reproducible.
@Suite struct GenerateCLITests {
  @Test func theCommittedSetsAreRegeneratedByteForByte() throws {
    let dir = Paths.temporaryDirectory()
    for (set, arguments) in [
      ("test", ["--seed", "2", "--scenario", "shakes", "--split", "test"]),
      ("train", ["--seed", "1", "--scenario", "mixed"]),
    ] {
      let out = dir + "/" + set
      let r = try accelkit(["generate", "-o", out, "--traces", "3"] + arguments)
      #expect(r.status == 0, "\(r.stderr)")
      for name in ["000.csv", "000.events.csv", "001.csv", "002.events.csv", "002.truth.csv"] {
        let made = readFile(out + "/" + name)
        #expect(
          made != nil && made == readFile(Paths.packageRoot + "/datasets/\(set)/" + name), "\(set)/\(name)")
      }
    }
  }
}
