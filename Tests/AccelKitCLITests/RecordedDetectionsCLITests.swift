import Foundation
import TestSupport
import Testing

/// `evaluate --detections`: events found elsewhere, scored as accelkit scores its own detectors.
@Suite struct RecordedDetectionsCLITests {
  /// The summary's rows without their first column (the setting's name).
  func figures(_ csv: String) -> [Substring] {
    csv.split(separator: "\n").dropFirst().map { $0.drop { $0 != "," } }
  }

  @Test func evaluatesOwnDetectionsScoreTheSameReadBack() throws {
    // Two rules on the test set (false alarms, misses, several traces): their detections.csv,
    // read back, gives every figure of the summary again, to the last digit.
    let test = Paths.packageRoot + "/datasets/test"
    let first = Paths.temporaryDirectory() + "/first"
    let run = try accelkit([
      "evaluate", test, "--rule", "three-peak", "--rule", "swing", "-o", first, "--quiet",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let again = try accelkit([
      "evaluate", test, "--detections", first + "/detections.csv", "--format", "csv", "--quiet",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    let summary = String(decoding: readFile(first + "/summary.csv")!, as: UTF8.self)
    #expect(figures(again.stdout) == figures(summary) && figures(summary).count == 2, "\(again.stdout)")
    #expect(
      again.stdout.contains("\nrecorded:\(first)/detections.csv:three-peak,,122,13,33,"), "\(again.stdout)")
  }

  @Test func aDevicesLogIsScoredByTraceBesideARule() throws {
    let dataset = makeDataset()  // shake.csv: a shake at 1-2.6 s; rest.csv: none
    let log = Paths.temporaryDirectory() + "/device.csv"
    // One detection matches the shake, one is a false alarm at rest; the traces named as the
    // manifest names them, and by their path.
    writeFile(log, "trace,start,end\nshake.csv,1.1,2.5\n\(dataset)/rest.csv,2,2.3\n")
    let r = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--detections", log, "--format", "csv", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("\nthree-peak,,1,0,0,1,1,1,"), "\(r.stdout)")
    #expect(r.stdout.contains("\nrecorded:\(log),,1,1,0,0.5,1,0.666666666667,"), "\(r.stdout)")
    // The same traces spelt with ./ and a doubled slash, the dataset too.
    writeFile(log, "trace,start,end\n./shake.csv,1.1,2.5\n\(dataset)//./rest.csv,2,2.3\n")
    let spelt = try accelkit(["evaluate", dataset + "/.", "--detections", log, "--format", "csv"])
    #expect(spelt.stdout.contains("\nrecorded:\(log),,1,1,0,"), "\(spelt.stdout) \(spelt.stderr)")
    // A cancelled detection counts only with --include-cancelled.
    writeFile(log, "trace,start,end,status\nshake.csv,1.1,2.5,cancelled\n")
    let cancelled = try accelkit(["evaluate", dataset, "--detections", log, "--format", "csv"])
    #expect(cancelled.stdout.contains("\nrecorded:\(log),,0,0,1,"), "\(cancelled.stdout)")
    let counted = try accelkit([
      "evaluate", dataset, "--detections", log, "--format", "csv", "--include-cancelled",
    ])
    #expect(counted.stdout.contains("\nrecorded:\(log),,1,0,0,"), "\(counted.stdout)")
    // A log with nothing in it is a detector that found nothing: the shake is missed.
    writeFile(log, "trace,start,end\n")
    let empty = try accelkit(["evaluate", dataset, "--detections", log, "--format", "csv"])
    #expect(empty.status == 0 && empty.stdout.contains("\nrecorded:\(log),,0,0,1,"), "\(empty.stdout)")
  }

  @Test func theExportedDetectorsLogScoresAsTheDetectorItWasExportedFrom() throws {
    // The default detector exported in double and replayed over every trace of the test set, as
    // docs/EXPORT.md's "Scoring the device's events" does: the same figures as the Swift detector.
    let cc = try ExportCLITests.compiler("cc")
    let dir = Paths.temporaryDirectory()
    let root = Paths.packageRoot
    let script = """
      set -e
      ACCELKIT export -o '\(dir)/detector' > /dev/null
      \(cc) -std=c99 -O2 -I '\(dir)/detector' '\(ExportCLITests.replay)' -o '\(dir)/replay' -lm
      (echo trace,start,end,label,rule,reported,peak_g,count,axis,status
       for f in $(tail -n +2 '\(root)/datasets/test/manifest.csv' | cut -d, -f1); do
         '\(dir)/replay' < '\(root)/datasets/test/'$f | tail -n +2 | sed "s|^|$f,|"; done) > '\(dir)/device.csv'
      ACCELKIT evaluate '\(root)/datasets/test' --rule learned-shake --detections '\(dir)/device.csv' \\
        --format csv --quiet
      """
    let r = try accelkit([], shell: script)
    #expect(r.status == 0, "\(r.stderr)")
    let rows = figures(r.stdout)
    #expect(rows.count == 2 && rows[0] == rows[1], "\(r.stdout)")
    #expect(r.stdout.contains("\nrecorded:\(dir)/device.csv:learned-shake,,134,0,21,"), "\(r.stdout)")
  }

  @Test func detectShakesOutputOfOneTraceIsReadAsItIs() throws {
    let dataset = makeDataset()
    let out = Paths.temporaryDirectory() + "/found.csv"
    let found = try accelkit(["detect-shakes", dataset + "/shake.csv", "--rule", "three-peak", "-o", out])
    #expect(found.status == 0, "\(found.stderr)")
    let r = try accelkit([
      "evaluate", dataset + "/shake.csv", "--labels", dataset + "/shake.events.csv", "--detections", out,
      "--format", "csv",
    ])
    #expect(r.status == 0 && r.stdout.contains("\nrecorded:\(out):three-peak,,1,0,0,1,1,1,"), "\(r.stdout)")
  }

  @Test func badRecordingsAreRefusedWithWhereAndWhy() throws {
    let dataset = makeDataset()
    let log = Paths.temporaryDirectory() + "/device.csv"
    let cases: [(String, Int32, String)] = [
      (
        "start,end\n1,2\n", 65,
        "\(log):1: the dataset has 2 traces, and the detections file has no trace column"
      ),
      (
        "trace,start,end\nshake.csv,1,2\nwalk.csv,1,2\n", 65,
        "\(log):3:1: the trace \"walk.csv\" is not in the dataset"
      ),
      ("trace,start,end\nshake.csv,2,1\n", 65, "\(log):2:3: the detection ends (1 s) before it starts (2 s)"),
      (
        "trace,start,end\nshake.csv,nan,1\n", 65,
        "\(log):2:2: expected a number of seconds in column \"start\""
      ),
      ("trace,start,end\nshake.csv,1,2,3\n", 65, "\(log):2:4: the row has 4 fields, the header 3"),
      (
        "trace,start,end,status\nshake.csv,1,2,done\n", 65,
        "\(log):2:4: expected the status ended or cancelled"
      ),
      ("trace,start,end,params\nshake.csv,1,2,x=y\n", 65, "\(log):2:4: expected params as NAME=VALUE;..."),
      (
        "trace,start,end\nrest.csv,100,101\n", 65,
        "\(log):2: the detection (100-101 s) lies outside the trace"
      ),
      ("stop,end\n", 65, "\(log):1: a detections file needs the columns start and end"),
      ("", 65, "\(log): the detections file is empty"),
      ("trace,start,end,label\nshake.csv,1,2,shake\nrest.csv,1,2,tap\n", 64, "records the labels shake, tap"),
    ]
    for (text, status, message) in cases {
      writeFile(log, text)
      let r = try accelkit(["evaluate", dataset, "--detections", log])
      #expect(r.status == status && r.stderr.contains(message), "\(text): \(r.status) \(r.stderr)")
    }
    writeFile(log, "trace,start,end\nshake.csv,1,2\n")
    let twice = try accelkit(["evaluate", dataset, "--detections", log, "--detections", log])
    #expect(twice.status == 64 && twice.stderr.contains("is given twice"), "\(twice.stderr)")
    let sharded = try accelkit(["evaluate", dataset, "--detections", log, "--shard", "1/2", "-o", "-"])
    #expect(sharded.status == 64 && sharded.stderr.contains("does not take --shard"), "\(sharded.stderr)")
    let missing = try accelkit(["evaluate", dataset, "--detections", log + ".missing"])
    #expect(missing.status == 66, "\(missing.stderr)")
  }
}
