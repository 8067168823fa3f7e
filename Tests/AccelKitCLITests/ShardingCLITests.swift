import AccelTuning
import Foundation
import TestSupport
import Testing

/// evaluate --shard, tune --shard and merge: sharded runs merge into exactly the unsharded
/// outputs, whatever the number of shards, the engine, the order or the grouping of the merge;
/// partial results that do not belong together are refused.
@Suite struct ShardingCLITests {
  static let root = Paths.packageRoot
  /// The report files that must be byte for byte those of an unsharded run.
  static let exactFiles = ["summary.csv", "per-trace.csv", "detections.csv", "dataset.sha256"]

  /// GNU parallel (scripts/deps installs it; a test without it fails with that).
  static var engine: String? { Tools.path("parallel") }

  static let noParallel = Tools.missing("GNU parallel", package: "parallel")

  static func shell(_ text: String) throws -> CLIResult {
    try accelkit([], shell: "cd '\(root)' && " + text)
  }

  static func text(_ path: String) -> String { String(decoding: readFile(path) ?? [], as: UTF8.self) }

  /// index.html without its run paragraph (how it was made: command, date).
  static func reportBody(_ path: String) -> String {
    text(path).split(separator: "\n", omittingEmptySubsequences: false).filter {
      !$0.contains("class=\"run\"")
    }
    .joined(separator: "\n")
  }

  /// The unsharded reference run of `arguments` into `dir`: its stdout (CSV).
  static func unsharded(_ arguments: String, into dir: String, format: String = "csv") throws -> String {
    let run = try shell("ACCELKIT evaluate \(arguments) -o '\(dir)' --format \(format)")
    #expect(run.status == 0, "\(run.stderr)")
    return run.stdout
  }

  /// Shards `arguments` N ways with GNU parallel (or a loop) into dir/parts/K.
  static func shard(_ arguments: String, ways n: Int, into dir: String, by key: String = "hash") throws {
    let shards = (1...n).map(String.init).joined(separator: " ")
    let command =
      "ACCELKIT evaluate \(arguments) --shard {}/\(n) --shard-by \(key) -o '\(dir)/parts/{}' --quiet"
    let run: CLIResult
    if let engine {
      run = try shell("\(engine) --halt now,fail=1 \(command) ::: \(shards)")
    } else {
      Issue.record(Comment(rawValue: Self.noParallel))
      run = try shell(
        "for k in \(shards); do \(command.replacingOccurrences(of: "{}", with: "$k")) || exit 1; done")
    }
    #expect(run.status == 0, "\(run.stderr)")
  }

  @Test(arguments: [1, 2, 3, 7])
  func shardedRunsMergeIntoTheUnshardedReport(ways n: Int) throws {
    let dir = Paths.temporaryDirectory()
    let expected = try Self.unsharded("datasets/test", into: dir + "/whole")
    try Self.shard("datasets/test", ways: n, into: dir)
    let merged = try Self.shell("ACCELKIT merge '\(dir)'/parts/* -o '\(dir)/merged' --format csv")
    #expect(merged.status == 0, "\(merged.stderr)")
    #expect(merged.stdout == expected)
    for name in Self.exactFiles {
      #expect(readFile("\(dir)/merged/\(name)") == readFile("\(dir)/whole/\(name)"), "\(name), \(n) shards")
    }
    #expect(Self.reportBody(dir + "/merged/index.html") == Self.reportBody(dir + "/whole/index.html"))
    #expect(Self.text(dir + "/merged/index.html").contains("<svg"), "the merged report draws the traces")
    // Every trace in exactly one shard.
    let counts = (1...n).map { k in
      Self.text("\(dir)/parts/\(k)/partial.json").components(separatedBy: "{\"index\": ").count - 1
    }
    #expect(counts.reduce(0, +) == 68)
    let json = try Self.shell("ACCELKIT merge '\(dir)'/parts/* --format json")
    let whole = try Self.shell("ACCELKIT evaluate datasets/test --format json")
    #expect(json.stdout == whole.stdout && !json.stdout.isEmpty)
  }

  @Test func mergeOrderAndGroupingDoNotMatter() throws {
    let dir = Paths.temporaryDirectory()
    let expected = try Self.unsharded("datasets/test", into: dir + "/whole")
    try Self.shard("datasets/test", ways: 5, into: dir, by: "index")
    let p = (1...5).map { "'\(dir)/parts/\($0)'" }
    let reversed = try Self.shell(
      "ACCELKIT merge \(p.reversed().joined(separator: " ")) -o '\(dir)/reversed' --format csv")
    #expect(reversed.status == 0 && reversed.stdout == expected, "\(reversed.stderr)")
    // A tree: (5 + 2) + ((1 + 4) + 3), with a quoted glob for one step.
    for (name, items) in [("a", [p[4], p[1]]), ("b", [p[0], p[3]])] {
      let run = try Self.shell(
        "ACCELKIT merge --partial \(items.joined(separator: " ")) -o '\(dir)/tree/\(name)'")
      #expect(run.status == 0, "\(run.stderr)")
    }
    #expect(try Self.shell("ACCELKIT merge --partial '\(dir)/tree/b' \(p[2]) -o '\(dir)/tree/c'").status == 0)
    let tree = try Self.shell(
      "ACCELKIT merge '\(dir)/tree/[ac]/partial.json' -o '\(dir)/tree/report' --format csv")
    #expect(tree.status == 0 && tree.stdout == expected, "\(tree.stderr)")
    for name in Self.exactFiles {
      #expect(readFile("\(dir)/tree/report/\(name)") == readFile("\(dir)/whole/\(name)"), "\(name)")
    }
    // The merged partials are the same file whatever the grouping.
    #expect(
      try Self.shell("ACCELKIT merge --partial \(p.joined(separator: " ")) -o '\(dir)/flat'").status == 0)
    #expect(
      try Self.shell("ACCELKIT merge --partial '\(dir)/tree/a' '\(dir)/tree/c' -o '\(dir)/grouped'").status
        == 0)
    #expect(readFile(dir + "/flat/partial.json") == readFile(dir + "/grouped/partial.json"))
  }

  @Test func partialsThroughStdinAndSweeps() throws {
    let dir = Paths.temporaryDirectory()
    let arguments = "datasets/test --sweep three-peak.peak_g=1:2:0.5 --rule three-peak --rule seismic"
    let expected = try Self.unsharded(arguments, into: dir + "/whole")
    let engine = try #require(Self.engine, Comment(rawValue: Self.noParallel))
    let producer = "\(engine) -k ACCELKIT evaluate \(arguments) --shard {}/3 -o - --quiet ::: 1 2 3"
    let run = try Self.shell("\(producer) | ACCELKIT merge - -o '\(dir)/merged' --format csv")
    #expect(run.status == 0 && run.stdout == expected, "\(run.stderr)")
    for name in Self.exactFiles + ["sweep.csv"] {
      #expect(readFile("\(dir)/merged/\(name)") == readFile("\(dir)/whole/\(name)"), "\(name)")
    }
  }

  @Test func gatesAndBaselinesWorkOnTheMergedResult() throws {
    let dir = Paths.temporaryDirectory()
    try Self.shard("datasets/test", ways: 2, into: dir)
    let whole = try Self.shell(
      "ACCELKIT evaluate datasets/test --rule three-peak --fail-under f1=0.99 --junit '\(dir)/a.xml' --format csv"
    )
    try Self.shard("datasets/test --rule three-peak", ways: 2, into: dir + "/tp")
    let merged = try Self.shell(
      "ACCELKIT merge '\(dir)'/tp/parts/* --fail-under f1=0.99 --junit '\(dir)/b.xml' --format csv")
    #expect(whole.status == 1 && merged.status == 1)
    #expect(merged.stderr.contains("Gate failed: three-peak: f1"))
    // The same JUnit but for the command that made it.
    func junit(_ path: String) -> String {
      Self.text(path).split(separator: "\n").filter { !$0.contains("name=\"command\"") }.joined(
        separator: "\n")
    }
    #expect(junit(dir + "/a.xml") == junit(dir + "/b.xml") && junit(dir + "/a.xml").contains("<failure"))
    let baseline = try Self.shell(
      "ACCELKIT merge '\(dir)'/parts/* -o '\(dir)/r' && ACCELKIT merge '\(dir)'/parts/* --baseline '\(dir)/r/summary.csv' --strict --fail-on-regression"
    )
    #expect(baseline.status == 0, "\(baseline.stderr)")
    #expect(baseline.stderr.contains("no change from"))
  }

  @Test func partialsThatDoNotBelongTogetherAreRefused() throws {
    let dir = Paths.temporaryDirectory()
    try Self.shard("datasets/test", ways: 3, into: dir)
    let parts = (1...3).map { "\(dir)/parts/\($0)/partial.json" }
    func merge(_ items: [String]) throws -> CLIResult {
      try accelkit(["merge"] + items + ["-o", dir + "/out"])
    }
    // Missing and duplicated shards.
    var run = try merge([parts[0], parts[2]])
    #expect(run.status == 65 && run.stderr.contains("shard 2 of 3 is missing"), "\(run.stderr)")
    run = try merge([parts[0], parts[1], parts[1], parts[2]])
    #expect(run.status == 65 && run.stderr.contains("shard 2/3 is also in"), "\(run.stderr)")
    // Edited after it was written, and cut short (a killed writer).
    let original = Self.text(parts[1])
    let edited = dir + "/edited.json"
    writeFile(edited, original.replacingOccurrences(of: "\"rows\": ", with: "\"rows\": 1"))
    #expect(Self.text(edited) != original)
    run = try merge([parts[0], edited, parts[2]])
    #expect(run.status == 65 && run.stderr.contains("does not match its sha256"), "\(run.stderr)")
    let cut = dir + "/cut.json"
    writeFile(cut, String(original.prefix(original.count / 2)))
    run = try merge([parts[0], cut, parts[2]])
    #expect(run.status == 65 && run.stderr.contains("cut.json"), "\(run.stderr)")
    writeFile(cut, "")
    run = try merge([parts[0], cut, parts[2]])
    #expect(run.status == 65 && run.stderr.contains("empty"), "\(run.stderr)")
    // Another tolerance, another shard count, another dataset.
    #expect(
      try Self.shell("ACCELKIT evaluate datasets/test --shard 2/3 --tolerance 0.5 -o '\(dir)/tol' --quiet")
        .status == 0)
    run = try merge([parts[0], dir + "/tol", parts[2]])
    #expect(run.status == 65 && run.stderr.contains("tolerance \"0.5\", not \"0.25\""), "\(run.stderr)")
    #expect(
      try Self.shell("ACCELKIT evaluate datasets/test --shard 2/4 -o '\(dir)/four' --quiet").status == 0)
    run = try merge([parts[0], dir + "/four", parts[2]])
    #expect(run.status == 65 && run.stderr.contains("shard count"), "\(run.stderr)")
    #expect(
      try Self.shell("ACCELKIT evaluate datasets/train --shard 2/3 -o '\(dir)/train' --quiet").status == 0)
    run = try merge([parts[0], dir + "/train", parts[2]])
    #expect(run.status == 65 && run.stderr.contains("dataset"), "\(run.stderr)")
    // A partial relabelled as another shard, with its digest made to fit: its traces are not that shard's.
    let relabelled = original.replacingOccurrences(of: "\"shards\": [2]", with: "\"shards\": [3]")
    let body = String(relabelled.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)[2])
    let digest = try Self.shell(
      "printf '%s' '\(body.replacingOccurrences(of: "'", with: "'\\''"))' | sha256sum")
    let resigned = "{\n\"sha256\": \"\(digest.stdout.prefix(64))\",\n" + body
    writeFile(dir + "/relabelled.json", resigned)
    run = try merge([parts[0], dir + "/relabelled.json"])
    #expect(run.status == 65 && run.stderr.contains("does not belong to its shards"), "\(run.stderr)")
    // Nothing was written by any refused merge.
    #expect(!fileExists(dir + "/out"))
  }

  /// Merged elsewhere, the report draws the traces where --dataset-path says the dataset is, and
  /// says why it does not when the dataset is not at hand.
  @Test func theMergedReportFindsTheDatasetOrSaysWhy() throws {
    let dir = Paths.temporaryDirectory()
    try Self.shard("datasets/test", ways: 2, into: dir)
    let elsewhere = try accelkit([], shell: "cd '\(dir)' && ACCELKIT merge parts/* -o away --format csv")
    #expect(elsewhere.status == 0 && elsewhere.stderr.contains("draws no traces"), "\(elsewhere.stderr)")
    let away = Self.text(dir + "/away/index.html")
    #expect(away.contains("not drawn: the dataset was not at hand") && !away.contains("<figure>"))
    let found = try accelkit(
      [],
      shell:
        "cd '\(dir)' && ACCELKIT merge parts/* -o found --dataset-path '\(Self.root)/datasets/test' --format csv"
    )
    #expect(found.status == 0 && !found.stderr.contains("draws no traces"), "\(found.stderr)")
    #expect(Self.text(dir + "/found/index.html").contains("<figure>"))
  }

  @Test func shardOptionsAreCheckedAsUsage() throws {
    for arguments in [
      ["evaluate", "datasets/test", "--shard", "0/3", "-o", "x"],
      ["evaluate", "datasets/test", "--shard", "4/3", "-o", "x"],
      ["evaluate", "datasets/test", "--shard", "1/3"],
      ["evaluate", "datasets/test", "--shard", "1/3", "-o", "x", "--fail-under", "f1=0.5"],
      ["tune", "datasets/train", "--rule", "seismic", "--resume", "x"],
      ["merge", "--partial", "x", "--junit", "j.xml"],
    ] {
      let run = try accelkit(arguments)
      #expect(run.status == 64, "\(arguments): \(run.stderr)")
    }
    let run = try accelkit(["merge", Paths.temporaryDirectory() + "/nothing-*.json"])
    #expect(run.status == 66, "\(run.stderr)")
  }

  /// --resume takes a tuning shard's state: a partial evaluation there is bad data, named.
  @Test func aPartialEvaluationIsNoTuningState() throws {
    let dir = Paths.temporaryDirectory()
    let train = Paths.packageRoot + "/datasets/train"
    let shard = try accelkit(["evaluate", train, "--rule", "seismic", "--shard", "1/2", "-o", dir + "/e"])
    try #require(shard.status == 0, "\(shard.stderr)")
    let run = try accelkit([
      "tune", train, "--rule", "seismic", "--shard", "1/2", "--resume", dir + "/e/partial.json", "-o", dir + "/t",
    ])
    #expect(run.status == 65, "\(run.stderr)")
    #expect(run.stderr.contains("partial.json: a partial evaluation, not the state of a tuning"), "\(run.stderr)")
    #expect(!fileExists(dir + "/t/partial.json"))
  }

  /// A shard killed while it reads leaves no partial.json: its results are written whole or not at all.
  @Test func aKilledShardLeavesNoPartialResult() throws {
    let dir = Paths.temporaryDirectory()
    try FileManager.default.createDirectory(atPath: dir + "/set", withIntermediateDirectories: true)
    writeFile(dir + "/set/manifest.csv", "trace,events\nt.csv,t.events.csv\n")
    writeFile(dir + "/set/t.events.csv", "start,end,label\n1,2,shake\n")
    mkfifo(dir + "/set/t.csv", 0o600)
    let run = try Running(["evaluate", dir + "/set", "--shard", "1/1", "-o", dir + "/part"])
    try run.feed(dir + "/set/t.csv", Data("t,x,y,z\n0,0,0,-1\n0.01,0,0,-1\n".utf8), thenClose: false)
    usleep(300_000)
    kill(run.process.processIdentifier, SIGTERM)
    #expect(run.wait() == 143)
    run.closeFIFO()
    #expect(!fileExists(dir + "/part/partial.json"))
    let left = (try? FileManager.default.contentsOfDirectory(atPath: dir + "/part")) ?? []
    #expect(left.isEmpty, "\(left)")
  }

  /// tune's search runs a round at a time over the shards; the merged rounds give exactly the
  /// unsharded trials, folds and Pareto plot, and a finished search stays finished.
  @Test func shardedTuningRoundsGiveTheUnshardedSearch() throws {
    let dir = Paths.temporaryDirectory()
    let arguments = "datasets/train --rule seismic --trials 16 --folds 3"
    let whole = try Self.shell("ACCELKIT tune \(arguments) -o '\(dir)/whole'")
    #expect(whole.status == 0, "\(whole.stderr)")
    var resume = ""
    var last = ""
    for round in 1...6 {
      let shards = try Self.shell(
        "for k in 1 2 3; do ACCELKIT tune \(arguments) --shard $k/3 --shard-by index \(resume) -o '\(dir)/r\(round)/'$k --quiet || exit 1; done"
      )
      #expect(shards.status == 0, "round \(round): \(shards.stderr)")
      let merged = try Self.shell("ACCELKIT merge '\(dir)/r\(round)'/* -o '\(dir)/state\(round)'")
      #expect(merged.status == 0, "round \(round): \(merged.stderr)")
      resume = "--resume '\(dir)/state\(round)'"
      last = merged.stdout
    }
    #expect(last == whole.stdout)
    for name in ["trials.csv", "folds.csv", "pareto.svg"] {
      #expect(readFile("\(dir)/state5/\(name)") == readFile("\(dir)/whole/\(name)"), "\(name)")
      #expect(readFile("\(dir)/state6/\(name)") == readFile("\(dir)/whole/\(name)"), "\(name)")
    }
    #expect(!fileExists("\(dir)/state4/trials.csv"), "an unfinished search writes only its state")
    // A round's parts with the state of another round are refused.
    let stale = try Self.shell(
      "ACCELKIT tune \(arguments) --shard 1/3 --shard-by index --resume '\(dir)/state1' -o '\(dir)/stale' --quiet && ACCELKIT merge '\(dir)/stale' '\(dir)/r3/2' '\(dir)/r3/3' -o '\(dir)/x'"
    )
    #expect(stale.status == 65 && stale.stderr.contains("another state"), "\(stale.stderr)")
    // Another search resumed from this state is refused.
    let other = try Self.shell(
      "ACCELKIT tune datasets/train --rule seismic --trials 18 --folds 3 --shard 1/3 --shard-by index --resume '\(dir)/state2' -o '\(dir)/other'"
    )
    #expect(other.status == 65 && other.stderr.contains("does not belong to this tuning"), "\(other.stderr)")
  }

  // MARK: The examples

  static let examples = root + "/Examples/scale-out"

  /// Runs an example script from the repository root with the built binary first on PATH.
  static func example(_ text: String) throws -> CLIResult {
    try shell("export PATH=\"$(dirname ACCELKIT):$PATH\" && " + text)
  }

  @Test func theGNUParallelExamplesRun() throws {
    try #require(Self.engine != nil, Comment(rawValue: Self.noParallel))
    let dir = Paths.temporaryDirectory()
    // The examples' merge prints the table, as evaluate does.
    let expected = try Self.unsharded("datasets/test", into: dir + "/whole", format: "table")
    let run = try Self.example(
      "'\(Self.examples)/parallel.sh' datasets/test '\(dir)/out' 4 > '\(dir)/stdout'")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(Self.text(dir + "/stdout") == expected)
    for name in Self.exactFiles {
      #expect(Self.text("\(dir)/out/report/\(name)") == Self.text("\(dir)/whole/\(name)"), "\(name)")
    }
    let tuneOptions = "--trials 12 --folds 2"
    let whole = try Self.shell("ACCELKIT tune datasets/train --rule seismic \(tuneOptions) -o '\(dir)/tuned'")
    let tune = try Self.example(
      "'\(Self.examples)/parallel-tune.sh' datasets/train seismic '\(dir)/tune' 3 \(tuneOptions)")
    #expect(tune.status == 0, "\(tune.stderr)")
    #expect(tune.stdout == whole.stdout && whole.stdout.contains("best of 12 trials"))
    for name in ["trials.csv", "folds.csv", "pareto.svg"] {
      #expect(readFile("\(dir)/tune/state/\(name)") == readFile("\(dir)/tuned/\(name)"), "\(name)")
    }
  }

  /// The Slurm scripts, run as the array's tasks and the dependent merge job would run them.
  @Test func theSlurmExampleRuns() throws {
    let dir = Paths.temporaryDirectory()
    let expected = try Self.unsharded("datasets/test", into: dir + "/whole", format: "table")
    let tasks = (1...3).map {
      "SLURM_ARRAY_TASK_ID=\($0) SLURM_ARRAY_TASK_COUNT=3 '\(Self.examples)/slurm-shard.sh' datasets/test '\(dir)/parts'"
    }
    let run = try Self.example(
      tasks.joined(separator: " && ") + " && '\(Self.examples)/slurm-merge.sh' '\(dir)/parts' '\(dir)/report'"
    )
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == expected)
    for name in Self.exactFiles {
      #expect(Self.text("\(dir)/report/\(name)") == Self.text("\(dir)/whole/\(name)"), "\(name)")
    }
  }

  /// The GitHub Actions example: its matrix of shard steps and its merge step, run as written
  /// from a checkout (download-artifact puts each part in parts/part-K).
  @Test func theGitHubActionsExampleRuns() throws {
    let workflow = Self.text(Self.examples + "/github-actions.yml")
    let steps = workflow.split(separator: "\n").filter { $0.contains(".build/release/accelkit") }.map {
      String($0.drop { $0 != "." }).replacingOccurrences(of: ".build/release/accelkit", with: "ACCELKIT")
    }
    #expect(steps.count == 2)
    let matrix = try #require(workflow.split(separator: "\n").first { $0.contains("shard: [") })
    let shards = matrix.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }.split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    #expect(shards == ["1", "2", "3", "4"])
    let dir = Paths.temporaryDirectory()
    var script = "cd '\(dir)' && ln -s '\(Self.root)/datasets' datasets"
    for k in shards {
      script += " && " + steps[0].replacingOccurrences(of: "${{ matrix.shard }}", with: k)
      script += " && mkdir -p downloaded && mv parts/\(k) downloaded/part-\(k)"
    }
    script += " && rmdir parts && mv downloaded parts && " + steps[1]
    let run = try accelkit([], shell: script)
    #expect(run.status == 0, "\(run.stderr)")
    let whole = try Self.shell("ACCELKIT evaluate datasets/test --rule learned-shake -o '\(dir)/whole'")
    #expect(whole.status == 0)
    #expect(readFile(dir + "/results/report/summary.csv") == readFile(dir + "/whole/summary.csv"))
    #expect(Self.text(dir + "/results/junit.xml").contains("<testcase"))
  }
}
