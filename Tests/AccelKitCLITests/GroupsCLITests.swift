import Foundation
import TestSupport
import Testing

/// The manifest's source and position columns: evaluate reports false alarms per hour and F1 per
/// source and per position (stdout and groups.csv), and a sharded run merges into the same file.
@Suite struct GroupsCLITests {
  /// datasets/test with a source and a position for each trace (and an activity, with
  /// `activities`).
  static func dataset(activities: Bool = false) throws -> String {
    let dir = Paths.temporaryDirectory()
    let test = Paths.packageRoot + "/datasets/test"
    let manifest = String(decoding: readFile(test + "/manifest.csv")!, as: UTF8.self).split(separator: "\n")
    // The generated manifest's own source and position (the last two columns) are replaced.
    func withoutGroup(_ row: Substring) -> String { row.split(separator: ",").dropLast(2).joined(separator: ",") }
    var text = withoutGroup(manifest[0]) + ",source,position" + (activities ? ",activity\n" : "\n")
    for (k, row) in manifest.dropFirst().enumerated() {
      text += withoutGroup(row) + (k % 2 == 0 ? ",lab-a" : ",lab-b") + (k % 3 == 0 ? ",wrist" : ",pocket")
      text += activities ? (k % 4 == 0 ? ",sustained\n" : ",brief\n") : "\n"
    }
    writeFile(dir + "/manifest.csv", text)
    for name in try FileManager.default.contentsOfDirectory(atPath: test) where name != "manifest.csv" {
      try FileManager.default.copyItem(atPath: test + "/" + name, toPath: dir + "/" + name)
    }
    return dir
  }

  @Test func evaluateReportsEachSourceAndPosition() throws {
    let dataset = try Self.dataset()
    let out = Paths.temporaryDirectory()
    let r = try accelkit(["evaluate", dataset, "--rule", "seismic", "--rule", "swing", "-o", out + "/whole", "--format", "table"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("seismic defaults, per source and position:"), "\(r.stdout)")
    for name in ["source    lab-a", "source    lab-b", "position  pocket", "position  wrist"] {
      #expect(r.stdout.contains(name), "\(name)")
    }
    let groups = String(decoding: readFile(out + "/whole/groups.csv")!, as: UTF8.self).split(separator: "\n")
    #expect(groups.count == 1 + 2 * 4, "\(groups)")
    // Two shards merged: the same file, byte for byte.
    for k in 1...2 {
      let shard = try accelkit([
        "evaluate", dataset, "--rule", "seismic", "--rule", "swing", "--shard", "\(k)/2", "-o", out + "/part\(k)", "--quiet",
      ])
      #expect(shard.status == 0, "\(shard.stderr)")
    }
    let merged = try accelkit(["merge", out + "/part1", out + "/part2", "-o", out + "/merged", "--format", "csv"])
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(readFile(out + "/merged/groups.csv") == readFile(out + "/whole/groups.csv"))
  }

  @Test func evaluateReportsEachActivityToo() throws {
    let dataset = try Self.dataset(activities: true)
    let out = Paths.temporaryDirectory()
    let r = try accelkit(["evaluate", dataset, "--rule", "swing", "-o", out + "/whole", "--format", "table"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("swing defaults, per source, position and activity:"), "\(r.stdout)")
    let groups = String(decoding: readFile(out + "/whole/groups.csv")!, as: UTF8.self).split(separator: "\n")
    #expect(groups.count == 1 + 6 && groups[5].hasPrefix("swing,,activity,brief,"), "\(groups)")
    // The activities' traces add up to the whole dataset's.
    func traces(_ row: Substring) -> Int {
      Int(row.split(separator: ",", omittingEmptySubsequences: false)[4])!
    }
    #expect(traces(groups[5]) + traces(groups[6]) == traces(groups[1]) + traces(groups[2]))
    #expect(groups[6].hasPrefix("swing,,activity,sustained,17,"), "\(groups[6])")
    // Sharded and merged, the activities survive: the same file.
    for k in 1...2 {
      let shard = try accelkit([
        "evaluate", dataset, "--rule", "swing", "--shard", "\(k)/2", "-o", out + "/part\(k)",
      ])
      #expect(shard.status == 0, "\(shard.stderr)")
    }
    let merged = try accelkit(["merge", out + "/part1", out + "/part2", "-o", out + "/merged", "--format", "csv"])
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(readFile(out + "/merged/groups.csv") == readFile(out + "/whole/groups.csv"))
  }
}

/// tune --cv source --worst-source: folds by source, and a sharded search that merges into the
/// same choice.
@Suite struct SourceTuningCLITests {
  @Test func tuneBySourceShardedEqualsOneRun() throws {
    let dataset = try GroupsCLITests.dataset()
    let out = Paths.temporaryDirectory()
    let common = [
      "tune", dataset, "--rule", "seismic", "--cv", "source", "--worst-source", "--subject-to",
      "false_alarms_per_hour<=400", "--trials", "12", "--quiet",
    ]
    let whole = try accelkit(common + ["-o", out + "/whole"])
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(whole.stdout.contains("cross-validated (2 folds, one source left out at a time)"), "\(whole.stdout)")
    let folds = String(decoding: readFile(out + "/whole/folds.csv")!, as: UTF8.self).split(separator: "\n")
    #expect(folds.count == 3 && folds[1].hasPrefix("lab-a,1,") && folds[2].hasPrefix("lab-b,2,"), "\(folds)")
    // A round at a time over two shards, resumed until finished.
    var state: String? = nil
    for round in 0..<6 {
      for k in 1...2 {
        let r = try accelkit(
          common + ["--shard", "\(k)/2", "-o", out + "/r\(round)-\(k)"] + (state.map { ["--resume", $0] } ?? []))
        #expect(r.status == 0, "\(r.stderr)")
      }
      let merged = try accelkit(["merge", out + "/r\(round)-1", out + "/r\(round)-2", "-o", out + "/m\(round)"])
      #expect(merged.status == 0, "\(merged.stderr)")
      state = out + "/m\(round)/partial.json"
      if FileManager.default.fileExists(atPath: out + "/m\(round)/best.params") {
        #expect(readFile(out + "/m\(round)/folds.csv") == readFile(out + "/whole/folds.csv"))
        #expect(readFile(out + "/m\(round)/trials.csv") == readFile(out + "/whole/trials.csv"))
        return
      }
    }
    Issue.record("the sharded search did not finish in six rounds")
  }

  @Test func oneSourceIsAUsageError() throws {
    let r = try accelkit(["tune", Paths.packageRoot + "/datasets/test", "--rule", "seismic", "--cv", "source", "--trials", "4"])
    #expect(r.status == 64 && r.stderr.contains("--cv source needs traces from two sources or more"), "\(r.stderr)")
  }
}
