import AccelLearning
import Foundation
import TestSupport
import Testing

/// A CSV file's rows as records keyed by its header (an unreadable file: none).
func csvRecords(_ path: String) -> [[String: String]] {
  let lines = String(decoding: readFile(path) ?? [], as: UTF8.self).split(separator: "\n")
  let header = lines.first.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  return lines.dropFirst().map { line in
    Dictionary(
      uniqueKeysWithValues: zip(
        header ?? [], line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
  }
}

/// accelkit train, features and --model end to end: a model is written the same twice, detects
/// and evaluates like a rule, and Python's xgboost reads it and predicts what accelkit predicts.
@Suite struct ModelCLITests {
  static let train = Paths.packageRoot + "/datasets/train"
  static let test = Paths.packageRoot + "/datasets/test"

  func trainSmall(_ output: String, _ more: [String] = []) throws -> CLIResult {
    try accelkit(
      [
        "train", Self.train, "--label", "shake", "--folds", "3", "--rounds", "30", "--quiet", "-o", output,
      ] + more)
  }

  @Test func aModelIsWrittenTheSameTwiceAndDetectsLikeARule() throws {
    let dir = Paths.temporaryDirectory()
    let first = try trainSmall(dir + "/m1")
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains("shake: on "), "\(first.stdout)")
    for name in [
      "detector.json", "shake.xgb.json", "folds.csv", "sources.csv", "decoding.csv", "shake.importance.svg",
    ] {
      #expect(fileExists(dir + "/m1/" + name), "\(name)")
    }
    #expect(try trainSmall(dir + "/m2").status == 0)
    for name in ["shake.xgb.json", "folds.csv", "decoding.csv", "shake.importance.svg"] {
      #expect(readFile(dir + "/m1/" + name) == readFile(dir + "/m2/" + name), "\(name) differs between runs")
    }
    // detect-shakes --model: the events CSV every rule writes, the model named as the rule.
    let events = try accelkit(["detect-shakes", "--model", dir + "/m1", Self.test + "/000.csv"])
    #expect(events.status == 0, "\(events.stderr)")
    #expect(events.stdout.hasPrefix("start,end,label,rule,reported"))
    #expect(events.stdout.contains(",shake,model:\(dir)/m1,"), "\(events.stdout)")
    // --param sets the decoding: a threshold of 1 leaves nothing above it.
    let strict = try accelkit([
      "detect-shakes", "--model", dir + "/m1", "--param", "on=1", "--param", "off=1", Self.test + "/000.csv",
    ])
    #expect(strict.status == 0 && strict.stdout.split(separator: "\n").count <= 1, "\(strict.stdout)")
    // evaluate --model beside a rule, in the same report.
    let report = try accelkit([
      "evaluate", Self.test, "--model", dir + "/m1", "--rule", "swing", "--format", "csv",
    ])
    #expect(report.status == 0, "\(report.stderr)")
    let rows = report.stdout.split(separator: "\n")
    #expect(rows.count == 3 && rows[2].hasPrefix("model:"), "\(report.stdout)")
    // model.NAME=VALUE sets every model's decoding in evaluate: nothing reaches a threshold of 1.
    let strictReport = try accelkit([
      "evaluate", Self.test, "--model", dir + "/m1", "--param", "model.on=1", "--param", "model.off=1",
      "--format",
      "csv",
    ])
    let strictRow = strictReport.stdout.split(separator: "\n").last.map { $0.split(separator: ",") } ?? []
    #expect(
      strictReport.status == 0 && strictRow.count > 4 && strictRow[1] == "off=1;on=1" && strictRow[2] == "0",
      "\(strictReport.stdout)\(strictReport.stderr)")
    // A gate on the model's figures fails as a rule's does.
    let gated = try accelkit(["evaluate", Self.test, "--model", dir + "/m1", "--fail-under", "f1=1.01"])
    #expect(gated.status == 64 || gated.status == 1, "\(gated.status) \(gated.stderr)")
  }

  /// The saved model loads in Python's xgboost and gives, on the features accelkit writes, the
  /// probabilities accelkit writes (scripts/check_xgboost_interop.py, to 1e-6).
  @Test func pythonXGBoostReadsTheModel() throws {
    let python = Tools.python(importing: ["numpy", "xgboost"])
    #expect(python != nil, Comment(rawValue: Tools.missing("python3 with xgboost", package: "xgboost-cpu")))
    guard let python else { return }
    let dir = Paths.temporaryDirectory()
    #expect(try trainSmall(dir + "/m").status == 0)
    let features = try accelkit([
      "features", Self.test + "/003.csv", "--labels", Self.test + "/003.events.csv", "--model", dir + "/m",
      "-o", dir + "/f.csv",
    ])
    #expect(features.status == 0, "\(features.stderr)")
    let header = String(decoding: readFile(dir + "/f.csv") ?? [], as: UTF8.self).prefix { $0 != "\n" }
    #expect(header.hasPrefix("start,end,w1_x_mean,") && header.hasSuffix(",label_shake,p_shake"))
    let check = try accelkit(
      [], shell: "\(python) \(Paths.packageRoot)/scripts/check_xgboost_interop.py \(dir)/m \(dir)/f.csv")
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("shake: largest difference"), "\(check.stdout)")
  }

  /// The built-in model never learned from chops or steering; on 20 generated minutes of them
  /// (`generate --scenario hard-negatives`) it raises no false alarm, where swing raises several
  /// (docs/GESTURES.md has the hours).
  @Test func theBuiltInModelIsQuietOnChopsAndSteering() throws {
    let dir = Paths.temporaryDirectory()
    let generated = try accelkit([
      "generate", "-o", dir + "/hard", "--traces", "40", "--seed", "23", "--scenario", "hard-negatives",
    ])
    try #require(generated.status == 0, "\(generated.stderr)")
    let evaluated = try accelkit([
      "evaluate", dir + "/hard", "--rule", "learned-shake", "--rule", "swing", "--format", "csv",
      "-o", dir + "/e",
    ])
    try #require(evaluated.status == 0, "\(evaluated.stderr)")
    let rows = csvRecords(dir + "/e/summary.csv")
    let falseAlarms = Dictionary(
      uniqueKeysWithValues: rows.map { ($0["rule"] ?? "", Int($0["fp"] ?? "") ?? -1) })
    #expect(falseAlarms["learned-shake"] == 0, "\(rows)")
    #expect((falseAlarms["swing"] ?? 0) >= 3, "\(rows)")
  }

  /// The benchmark's peer (benchmarks/peers/learned_shake.py: numpy's features, Python's xgboost,
  /// its own decoder) finds detect-shakes' events with the built-in model on generated sustained
  /// shaking, where the sustained classifier's hold path begins the event and `extend` keeps it
  /// going (without either, the events differ).
  @Test func thePeerFindsDetectShakesEvents() throws {
    let python = try #require(
      Tools.python(importing: ["numpy", "scipy", "xgboost"]),
      Comment(rawValue: Tools.missing("python3 with xgboost and scipy", package: "xgboost-cpu scipy")))
    let dir = Paths.temporaryDirectory()
    let generated = try accelkit([
      "generate", "-o", dir + "/sus", "--traces", "1", "--seed", "5", "--scenario", "sustained",
    ])
    try #require(generated.status == 0, "\(generated.stderr)")
    let description = String(
      decoding: readFile(Paths.packageRoot + "/models/shake/detector.json") ?? [], as: UTF8.self)
    #expect(
      description.contains("\"hold_s\": ") && description.contains("\"extend\": "),
      "the built-in model decodes without a hold or an extension: \(description.prefix(400))")
    func rows(_ text: String, _ columns: [String]) -> [[Double]] {
      let lines = text.split(separator: "\n")
      let header = lines.first.map { $0.split(separator: ",").map(String.init) } ?? []
      let at = columns.compactMap { header.firstIndex(of: $0) }
      return lines.dropFirst().map { line in
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        return at.map { Double(fields[$0]) ?? .nan }
      }
    }
    let trace = dir + "/sus/000.csv"
    let ours = try accelkit(["detect-shakes", trace])
    let withoutHold = try accelkit(["detect-shakes", "--param", "hold_s=0", trace])
    let withoutExtension = try accelkit(["detect-shakes", "--param", "extend=1", trace])
    let peer = try accelkit(
      [],
      shell:
        "\(python) \(Paths.packageRoot)/benchmarks/peers/learned_shake.py --events \(dir)/peer.csv \(trace)")
    #expect(ours.status == 0 && withoutHold.status == 0 && peer.status == 0, "\(ours.stderr)\(peer.stderr)")
    let columns = ["start", "end", "reported"]
    let expected = rows(ours.stdout, columns)
    let found = rows(String(decoding: readFile(dir + "/peer.csv") ?? [], as: UTF8.self), columns)
    #expect(!expected.isEmpty && expected != rows(withoutHold.stdout, columns), "\(ours.stdout)")
    #expect(expected != rows(withoutExtension.stdout, columns), "\(ours.stdout)")
    #expect(found.count == expected.count, "peer \(found), accelkit \(expected)")
    for (a, b) in zip(found, expected) {
      #expect(a.count == 3 && zip(a, b).allSatisfy { abs($0 - $1) < 1e-6 }, "peer \(a), accelkit \(b)")
    }
  }

  /// The features written independently with numpy and scipy (benchmarks/peers/learned_shake.py,
  /// from docs/LEARNING.md's definitions) agree with `accelkit features` to 1e-9 on a jittered
  /// trace with shakes: a model's windows, the built-in model's exponential averages whose rows
  /// span 1 s, and a model's with shape and swing features (beside which `--shape` is refused, as
  /// any feature option is); a value changed by a thousandth fails the check (a mean, and a
  /// swing rate where the trace shakes), and the peer refuses
  /// windows with a span and attitude features, which it does not compute.
  @Test func numpyComputesTheSameFeatures() throws {
    let python = Tools.python(importing: ["numpy", "scipy"])
    #expect(python != nil, Comment(rawValue: Tools.missing("python3 with numpy and scipy", package: "scipy")))
    guard let python else { return }
    let dir = Paths.temporaryDirectory()
    #expect(try trainSmall(dir + "/m").status == 0)
    #expect(try trainSmall(dir + "/h", ["--exponential", "--span", "1", "--shape", "--swing"]).status == 0)
    let builtIn = Paths.packageRoot + "/models/shake"
    let models = [(dir + "/m", "w"), (builtIn, "e"), (dir + "/h", "h")]
    for (model, name) in models {
      let features = try accelkit([
        "features", Self.test + "/003.csv", "--model", model, "-o", "\(dir)/\(name).csv",
      ])
      #expect(features.status == 0, "\(features.stderr)")
    }
    // A model brings its own features: a span beside it is refused.
    let both = try accelkit([
      "features", Self.test + "/003.csv", "--model", dir + "/m", "--span", "1", "-o", dir + "/g.csv",
    ])
    #expect(both.status == 64 && both.stderr.contains("--span go without it"), "\(both.stderr)")
    let shaped = try accelkit([
      "features", Self.test + "/003.csv", "--model", dir + "/h", "--shape", "-o", dir + "/g.csv",
    ])
    #expect(shaped.status == 64, "\(shaped.stderr)")
    let peer = "\(python) \(Paths.packageRoot)/benchmarks/peers/learned_shake.py"
    for (model, name) in models {
      let check = try accelkit(
        [], shell: "\(peer) --model '\(model)' --check-features \(dir)/\(name).csv \(Self.test)/003.csv")
      #expect(
        check.status == 0 && check.stdout.contains("features: "), "\(name): \(check.stdout)\(check.stderr)")
    }
    // One value of the built-in model's row 10 (its first feature, a mean) off by a thousandth,
    // and of the swing model's first row with swinging in it.
    for (model, name, feature) in [(builtIn, "e", "e0.25_x_mean"), (dir + "/h", "h", "e4_swing_rate")] {
      var lines = String(decoding: readFile("\(dir)/\(name).csv") ?? [], as: UTF8.self).split(separator: "\n")
        .map(String.init)
      let header = lines[0].split(separator: ",").map(String.init)
      let k = try #require(header.firstIndex(of: feature))
      let row = try #require(
        lines.indices.dropFirst(10).first {
          Double(lines[$0].split(separator: ",", omittingEmptySubsequences: false)[k]) ?? 0 > 0
        })
      var fields = lines[row].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      fields[k] = String((Double(fields[k]) ?? 0) * 1.001 + 1e-6)
      lines[row] = fields.joined(separator: ",")
      writeFile(dir + "/changed.csv", lines.joined(separator: "\n") + "\n")
      let changed = try accelkit(
        [], shell: "\(peer) --model '\(model)' --check-features \(dir)/changed.csv \(Self.test)/003.csv")
      #expect(changed.status == 1 && changed.stdout.contains(feature), "\(changed.stdout)\(changed.stderr)")
    }
    #expect(try trainSmall(dir + "/s", ["--span", "1"]).status == 0)
    let refused = try accelkit(
      [], shell: "\(peer) --model \(dir)/s --check-features \(dir)/w.csv \(Self.test)/003.csv")
    #expect(refused.status == 2 && refused.stderr.contains("span_s"), "\(refused.stderr)")
    #expect(try trainSmall(dir + "/a", ["--exponential", "--attitude"]).status == 0)
    let attitude = try accelkit(
      [], shell: "\(peer) --model \(dir)/a --check-features \(dir)/e.csv \(Self.test)/003.csv")
    #expect(attitude.status == 2 && attitude.stderr.contains("attitude features"), "\(attitude.stderr)")
  }

  /// scripts/decode_held_out.py decodes `train --scores`' held-out probabilities with the numpy
  /// peer's decoder: with the model's own decoding it gives sources.csv's counts exactly, and
  /// positions.csv's and activities.csv's grouped by those (`--by`); a parameter given replaces the decoding's (600 s of minimum keeps no event); a value that is
  /// not a number is a usage error; a model that is not there exits 66.
  @Test func decodeHeldOutGivesTheTrainingsCounts() throws {
    let python = Tools.python(importing: ["numpy", "scipy"])
    #expect(python != nil, Comment(rawValue: Tools.missing("python3 with numpy and scipy", package: "scipy")))
    guard let python else { return }
    let dir = Paths.temporaryDirectory()
    let sustained = try accelkit([
      "generate", "-o", dir + "/sus", "--traces", "4", "--seed", "3", "--scenario", "sustained",
    ])
    try #require(sustained.status == 0, "\(sustained.stderr)")
    let options = ["--exponential", "--span", "1", "--rounds", "20", "--depth", "3", "--scores"]
    let trained = try trainSmall(dir + "/m", options + ["--sustained", dir + "/sus"])
    try #require(trained.status == 0, "\(trained.stderr)")
    let script = "\(python) \(Paths.packageRoot)/scripts/decode_held_out.py \(dir)/m"
    func counts(_ text: String) -> [String: [String]] {
      var rows: [String: [String]] = [:]
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: ",").map(String.init)
        rows[fields[0]] = [fields[1], fields[3]]
      }
      return rows
    }
    // Grouped by source (the default), position or activity: the group file's counts.
    for (option, kind, file) in [
      ("", "source", "sources"), ("--by position ", "position", "positions"),
      ("--by=activity ", "activity", "activities"),
    ] {
      let own = try accelkit(
        [], shell: "\(python) \(Paths.packageRoot)/scripts/decode_held_out.py \(option)\(dir)/m")
      #expect(own.status == 0 && own.stdout.hasPrefix(kind + ","), "\(own.stderr)")
      let expected = Dictionary(
        uniqueKeysWithValues: csvRecords(dir + "/m/\(file).csv").map {
          ($0[kind] ?? "", [$0["tp"] ?? "", $0["fp"] ?? ""])
        })
      #expect(!expected.isEmpty && counts(own.stdout) == expected, "\(option): \(own.stdout)")
      #expect(expected.values.contains { $0[0] != "0" })
    }
    let byWhat = try accelkit(
      [], shell: "\(python) \(Paths.packageRoot)/scripts/decode_held_out.py --by subject \(dir)/m")
    #expect(byWhat.status == 64 && byWhat.stderr.contains("--by takes"), "\(byWhat.stderr)")
    let none = try accelkit([], shell: script + " min_duration_s=600")
    #expect(none.status == 0 && counts(none.stdout).values.allSatisfy { $0 == ["0", "0"] }, "\(none.stdout)")
    let bad = try accelkit([], shell: script + " on=high")
    #expect(bad.status == 64 && bad.stderr.contains("on=high"), "\(bad.stderr)")
    let missing = try accelkit([], shell: script + "/none")
    #expect(missing.status == 66 && missing.stderr.contains("detector.json"), "\(missing.stderr)")
    // A rule as a second way in: none of its events passes a gate above 1; with no gate at all
    // every one joins, finding no fewer and adding events.
    let gated =
      "\(python) \(Paths.packageRoot)/scripts/decode_held_out.py --gate swing --accelkit ACCELKIT \(dir)/m"
    let own = try accelkit([], shell: script)
    let shut = try accelkit([], shell: gated + " gate_on=2")
    #expect(shut.status == 0 && shut.stdout == own.stdout, "\(shut.stderr)")
    let wide = try accelkit([], shell: gated + " gate_on=0 gate_s=0")
    try #require(wide.status == 0, "\(wide.stderr)")
    let (before, after) = (counts(own.stdout), counts(wide.stdout))
    func sum(_ rows: [String: [String]]) -> Int { rows.values.reduce(0) { $0 + Int($1[0])! + Int($1[1])! } }
    #expect(before.keys == after.keys && sum(after) > sum(before), "\(own.stdout)\(wide.stdout)")
    #expect(before.allSatisfy { Int(after[$0.key]![0])! >= Int($0.value[0])! }, "\(wide.stdout)")
    let noRule = try accelkit([], shell: gated.replacingOccurrences(of: "swing", with: "sway"))
    #expect(noRule.status == 64 && noRule.stderr.contains("sway"), "\(noRule.stderr)")
    let noBinary = try accelkit([], shell: gated.replacingOccurrences(of: "ACCELKIT", with: dir + "/none"))
    #expect(noBinary.status == 66 && noBinary.stderr.contains("--accelkit"), "\(noBinary.stderr)")
  }

  /// scripts/held_out_at_rate trains the built-in model's recipe without each real source in turn
  /// and scores that source at its own rate and resampled: on a WORK of a few generated traces,
  /// two sustained ones standing for MotionSense-ESP's bouts and two for OpenUAT's boxes.
  @Test func heldOutAtRateScoresEachRealSourceWithoutIt() throws {
    let python = Tools.python(importing: ["csv"])
    #expect(python != nil, Comment(rawValue: Tools.missing("python3", package: "python3")))
    guard python != nil else { return }
    let work = Paths.temporaryDirectory()
    var sets = [
      ("gen-negatives", "13", "negatives", 2), ("everyday", "14", "negatives", 2),
      ("shakes", "15", "sustained", 4),
    ]
    for model in ["sine", "strokes", "twist", "walking"] {
      sets += [("gen-" + model, "11", "shakes", 2), ("sus-" + model, "11", "sustained", 2)]
    }
    for (folder, seed, scenario, traces) in sets {
      var arguments = [
        "generate", "-o", "\(work)/\(folder)", "--traces", "\(traces)", "--seed", seed, "--scenario",
        scenario,
      ]
      if folder.hasPrefix("gen-") && scenario == "shakes" || folder.hasPrefix("sus-") {
        arguments += ["--shake-models", String(folder.split(separator: "-")[1])]
      }
      let made = try accelkit(arguments)
      try #require(made.status == 0, "\(made.stderr)")
    }
    writeFile(
      work + "/everyday/manifest.csv",
      "trace,events,source,position\n000.csv,000.events.csv,everyday,waist\n001.csv,001.events.csv,everyday,waist\n"
    )
    let real = [
      ("000", "motionsense-esp", "sustained"), ("001", "motionsense-esp", "sustained"),
      ("002", "openuat", "shake"), ("003", "openuat", "shake"),
    ]
    let shakes =
      "trace,events,source,position,activity\n"
      + real.map { "\($0.0).csv,\($0.0).events.csv,\($0.1),hand,\($0.2)\n" }.joined()
    writeFile(work + "/shakes/manifest.csv", shakes)
    writeFile(work + "/shakes/train.csv", shakes)
    var events: [String: Int] = [:]
    for (trace, source, _) in real {
      events[source, default: 0] +=
        csvRecords("\(work)/shakes/\(trace).events.csv").filter { $0["label"] == "shake" }.count
    }
    let out = Paths.temporaryDirectory()
    let script = "\(Paths.packageRoot)/scripts/held_out_at_rate"
    let run = try accelkit(
      [], shell: "\(script) --accelkit ACCELKIT \(work) \(Paths.packageRoot)/models/shake 25 \(out)")
    try #require(run.status == 0, "\(run.stderr)")
    let rows = run.stdout.split(separator: "\n").drop { !$0.hasPrefix("source,rate,") }.dropFirst().map {
      $0.split(separator: ",").map(String.init)
    }
    // Each source at its own rate and at 25 Hz, its events all there, found no more than there are.
    #expect(
      rows.map { $0[0] + " " + $0[1] } == [
        "motionsense-esp own", "motionsense-esp 25", "openuat own", "openuat 25",
      ])
    #expect(
      rows.allSatisfy { $0.count == 8 && Int($0[3]) == events[$0[0]] && Int($0[2])! <= Int($0[3])! },
      "\(run.stdout)")
    #expect(events.values.allSatisfy { $0 > 0 }, "\(events)")
    // Each model learned without the source it scores, and with the other.
    for (without, with) in [("motionsense-esp", "openuat"), ("openuat", "motionsense-esp")] {
      let learned = Set(csvRecords("\(out)/without-\(without)/sources.csv").compactMap { $0["source"] })
      #expect(!learned.contains(without) && learned.contains(with), "\(without): \(learned)")
    }
    let usage = try accelkit([], shell: "\(script) --accelkit ACCELKIT \(work)")
    #expect(usage.status == 64 && usage.stderr.contains("held_out_at_rate"), "\(usage.stderr)")
    let noBinary = try accelkit([], shell: "\(script) --accelkit \(work)/none \(work) m 25 \(out)")
    #expect(noBinary.status == 66 && noBinary.stderr.contains("--accelkit"), "\(noBinary.stderr)")
    let noModel = try accelkit([], shell: "\(script) --accelkit ACCELKIT \(work) \(work)/none 25 \(out)")
    #expect(noModel.status == 66 && noModel.stderr.contains("none/detector.json"), "\(noModel.stderr)")
  }

  @Test func featuresWriteNPYWithTheSameColumns() throws {
    let dir = Paths.temporaryDirectory()
    let csv = try accelkit([
      "features", Self.test + "/000.csv", "--window", "2", "--hop", "0.5", "-o", dir + "/f.csv",
    ])
    let npy = try accelkit([
      "features", Self.test + "/000.csv", "--window", "2", "--hop", "0.5", "-o", dir + "/f.npy",
    ])
    #expect(csv.status == 0 && npy.status == 0, "\(csv.stderr)\(npy.stderr)")
    let bytes = readFile(dir + "/f.npy") ?? []
    let header = String(decoding: bytes.prefix(4096), as: UTF8.self)
    #expect(header.contains("'w2_x_mean'") && !header.contains("'w1_"))
    let lines = String(decoding: readFile(dir + "/f.csv") ?? [], as: UTF8.self).split(separator: "\n")
    #expect(header.contains("(\(lines.count - 1),)"), "rows: \(lines.count - 1)")
  }

  @Test func badModelsAndTrainingsAreRefused() throws {
    let dir = Paths.temporaryDirectory()
    let missing = try accelkit(["detect-shakes", "--model", dir + "/none", Self.test + "/000.csv"])
    #expect(missing.status == 66, "\(missing.stderr)")
    try FileManager.default.createDirectory(atPath: dir + "/bad", withIntermediateDirectories: true)
    writeFile(dir + "/bad/detector.json", "{\"format\": \"accelkit-detector\", \"labels\": [\"shake\"]")
    let broken = try accelkit(["evaluate", Self.test, "--model", dir + "/bad"])
    #expect(broken.status == 65 && broken.stderr.contains("detector.json:"), "\(broken.stderr)")
    #expect(try accelkit(["train", Self.train, "-o", dir + "/x"]).status == 64)
    let unknown = try accelkit(["train", Self.train, "--label", "wave", "--quiet", "-o", dir + "/x"])
    #expect(unknown.status == 64 && unknown.stderr.contains("\"wave\""), "\(unknown.stderr)")
    #expect(!fileExists(dir + "/x"))
    let both = try accelkit([
      "detect-shakes", "--model", dir + "/x", "--rule", "swing", Self.test + "/000.csv",
    ])
    #expect(both.status == 64)
  }

  /// train --sustained: the label's own classifier learns from the datasets alone (the same bytes
  /// as without --sustained), the sustained one from those and the sustained datasets too, the
  /// same twice; detection reads both, and an event can begin by either.
  @Test func aSustainedClassifierIsTrainedBesideTheLabelsOwn() throws {
    let dir = Paths.temporaryDirectory()
    let generated = try accelkit([
      "generate", "-o", dir + "/sus", "--traces", "6", "--seed", "3", "--scenario", "sustained",
    ])
    try #require(generated.status == 0, "\(generated.stderr)")
    let options = ["--exponential", "--span", "1", "--rounds", "20", "--depth", "3"]
    let first = try trainSmall(dir + "/m1", options + ["--sustained", dir + "/sus", "--scores"])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout.contains("learned from 26 traces"), "\(first.stdout)")
    #expect(try trainSmall(dir + "/m2", options + ["--sustained", dir + "/sus"]).status == 0)
    #expect(try trainSmall(dir + "/alone", options).status == 0)
    // (--scores, in m1 only, changes none of the other files.)
    for name in ["shake.xgb.json", "shake.sustained.xgb.json", "folds.csv", "decoding.csv", "held-out.csv"] {
      #expect(readFile(dir + "/m1/" + name) == readFile(dir + "/m2/" + name), "\(name) differs between runs")
    }
    // The held-out scores are what the decoding was chosen on: decoded with it, every trace gives
    // as many events as held-out.csv counts (tp + fp), and every window is there.
    #expect(!fileExists(dir + "/m2/held-out-scores.csv"))
    let scores = csvRecords(dir + "/m1/held-out-scores.csv")
    let decoding = try LearnedModel.load(directory: dir + "/m1").decoding[0]
    let counted = csvRecords(dir + "/m1/held-out.csv")
    let json = String(decoding: readFile(dir + "/m1/detector.json") ?? [], as: UTF8.self)
    #expect(json.contains("\"windows\": \(scores.count),"), "\(scores.count) rows")
    #expect(counted.count == 26 && scores.allSatisfy { Double($0["q"] ?? "") != nil })
    var detected = 0
    for trace in counted {
      var decoder = ProbabilityDecoder(configuration: decoding)
      var events = 0
      for row in scores where row["trace"] == trace["trace"] {
        let (center, end) = (Double(row["center"] ?? "") ?? .nan, Double(row["end"] ?? "") ?? .nan)
        let (p, q) = (Double(row["p"] ?? "") ?? .nan, Double(row["q"] ?? "") ?? .nan)
        events += decoder.add(center: center, end: end, probability: p, sustained: q) == nil ? 0 : 1
      }
      events += decoder.finish().count
      detected += events
      #expect(events == (Int(trace["tp"] ?? "") ?? -1) + (Int(trace["fp"] ?? "") ?? -1), "\(trace)")
    }
    #expect(detected > 0)
    #expect(readFile(dir + "/m1/shake.xgb.json") == readFile(dir + "/alone/shake.xgb.json"))
    #expect(readFile(dir + "/m1/shake.sustained.xgb.json") != readFile(dir + "/m1/shake.xgb.json"))
    // features --model writes both classifiers' probabilities.
    let features = try accelkit([
      "features", dir + "/sus/000.csv", "--model", dir + "/m1", "-o", dir + "/f.csv",
    ])
    let header = String(decoding: readFile(dir + "/f.csv") ?? [], as: UTF8.self).prefix { $0 != "\n" }
    #expect(features.status == 0 && header.hasSuffix(",p_shake,p_shake.sustained"), "\(features.stderr)")
    let description = String(decoding: readFile(dir + "/m1/detector.json") ?? [], as: UTF8.self)
    #expect(
      description.contains("\"sustained\": {\"shake\": \"shake.sustained.xgb.json\"}"), "\(description)")
    // Only the sustained classifier can begin an event: events, and others with the label's own
    // classifier in its place.
    let trace = dir + "/sus/000.csv"
    let onlySustained = [
      "--param", "on=1", "--param", "off=1", "--param", "sustained_on=0.6", "--param", "sustained_off=0.3",
    ]
    let sustained = try accelkit(["detect-shakes", "--model", dir + "/m1"] + onlySustained + [trace])
    #expect(sustained.status == 0 && sustained.stdout.split(separator: "\n").count > 1, "\(sustained.stdout)")
    writeFile(dir + "/m2/shake.sustained.xgb.json", readFile(dir + "/m1/shake.xgb.json") ?? [])
    let swapped = try accelkit(["detect-shakes", "--model", dir + "/m2"] + onlySustained + [trace])
    #expect(swapped.status == 0 && swapped.stdout != sustained.stdout, "\(swapped.stdout)")
    // A sustained classifier named but missing is unreadable input; one for no label, bad data.
    try FileManager.default.removeItem(atPath: dir + "/m2/shake.sustained.xgb.json")
    let missing = try accelkit(["detect-shakes", "--model", dir + "/m2", trace])
    #expect(missing.status == 66 && missing.stderr.contains("shake.sustained.xgb.json"), "\(missing.stderr)")
    writeFile(
      dir + "/m2/detector.json",
      description.replacingOccurrences(of: "\"sustained\": {\"shake\"", with: "\"sustained\": {\"wave\""))
    let stray = try accelkit(["detect-shakes", "--model", dir + "/m2", trace])
    #expect(stray.status == 65 && stray.stderr.contains("\"wave\""), "\(stray.stderr)")
    // A budget shares the flash between the two classifiers: 20 trees of depth 3 would fit 12,000
    // bytes alone, so each gets 20 of depth 2, and the estimate stays within it.
    let budgeted = try trainSmall(dir + "/b", options + ["--sustained", dir + "/sus", "--flash", "12000"])
    #expect(
      budgeted.status == 0 && budgeted.stdout.contains("20 trees of depth 2 in each of 2 classifiers "),
      "\(budgeted.stdout)")
    let budget = String(decoding: readFile(dir + "/b/detector.json") ?? [], as: UTF8.self)
    let estimate = budget.range(of: #""estimated_flash": [0-9]+"#, options: .regularExpression).map {
      Int(budget[$0].split(separator: " ")[1]) ?? .max
    }
    #expect((estimate ?? .max) <= 12000 && (estimate ?? 0) > 8000, "\(budget)")
  }

  /// scripts/explain_model.py on the built-in model and generated shakes: the feature that raises
  /// the probability most is the generator's straight line (`e0.25_linearity`), as docs/LEARNING.md
  /// says.
  /// Held out one source at a time, the reports give each source's share of annotated time
  /// covered (segment recall) with its interval, from the per-trace counts held-out.csv lists,
  /// and --maximize chooses the decoding by it.
  /// datasets/train as two sources in `folder`, its traces alternating between "even" and "odd".
  static func twoSources(_ folder: String) throws {
    let rows = String(decoding: readFile(Self.train + "/manifest.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").map(String.init)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    var manifest = "trace,events,source,activity\n"
    for (k, row) in rows.dropFirst().enumerated() {
      let fields = row.split(separator: ",").map(String.init)
      for file in fields[0...1] { writeFile(folder + "/" + file, readFile(Self.train + "/" + file) ?? []) }
      manifest += "\(fields[0]),\(fields[1]),\(k % 2 == 0 ? "even" : "odd")"
      manifest += k % 3 == 0 ? ",third\n" : ",rest\n"
    }
    writeFile(folder + "/manifest.csv", manifest)
  }

  /// --source-weight: a weight of 1 is no weight (the same bytes), another moves the trees and is
  /// recorded; an unknown source, a weight out of range or a malformed one is a usage error.
  @Test func sourceWeightsMoveTheBalanceAmongSources() throws {
    let dir = Paths.temporaryDirectory()
    try Self.twoSources(dir + "/two")
    func train(_ name: String, _ weights: [String]) throws -> CLIResult {
      try accelkit(
        [
          "train", dir + "/two", "--label", "shake", "--cv", "source", "--rounds", "20", "--quiet", "-o",
          dir + "/" + name,
        ] + weights.flatMap { ["--source-weight", $0] })
    }
    func classifier(_ name: String) -> [UInt8] { readFile(dir + "/" + name + "/shake.xgb.json") ?? [] }
    func description(_ name: String) -> String {
      String(decoding: readFile(dir + "/" + name + "/detector.json") ?? [], as: UTF8.self)
    }
    for (name, weights) in [("plain", []), ("one", ["even=1"]), ("odd", ["odd=8"]), ("odd2", ["odd=8"])] {
      let r = try train(name, weights)
      try #require(r.status == 0, "\(name): \(r.stderr)")
    }
    #expect(!classifier("plain").isEmpty && classifier("one") == classifier("plain"))
    #expect(classifier("odd") != classifier("plain") && classifier("odd") == classifier("odd2"))
    #expect(!description("plain").contains("source_weights"))
    #expect(description("one").contains("\"source_weights\": {\"even\": 1},"), "\(description("one"))")
    #expect(description("odd").contains("\"source_weights\": {\"odd\": 8},"))
    for (weights, message) in [
      (["none=2"], "no trace's manifest gives as its source"), (["odd=0"], "must be in (0, 1000]"),
      (["odd"], "takes source=weight"), (["odd=2", "odd=3"], "gives \"odd\" twice"),
    ] {
      let r = try train("bad", weights)
      #expect(r.status == 64 && r.stderr.contains(message), "\(weights): \(r.stderr)")
      #expect(!fileExists(dir + "/bad"))
    }
  }

  @Test func heldOutFiguresGiveTheTimeCoveredPerSource() throws {
    let dir = Paths.temporaryDirectory()
    try Self.twoSources(dir + "/two")
    let trained = try accelkit([
      "train", dir + "/two", "--label", "shake", "--cv", "source", "--rounds", "20", "--maximize",
      "segment_recall", "-o", dir + "/m",
    ])
    try #require(trained.status == 0, "\(trained.stderr)")
    #expect(trained.stdout.contains("of the annotated time covered"), "\(trained.stdout)")
    let description = String(decoding: readFile(dir + "/m/detector.json") ?? [], as: UTF8.self)
    #expect(description.contains("\"objective\": \"maximise segment_recall subject to"), "\(description)")
    let sources = csvRecords(dir + "/m/sources.csv")
    let traces = csvRecords(dir + "/m/held-out.csv")
    #expect(sources.map { $0["source"] ?? "" } == ["even", "odd"])
    // Per activity (the manifest's column): the same traces, grouped otherwise.
    let activities = csvRecords(dir + "/m/activities.csv")
    #expect(activities.map { $0["activity"] ?? "" } == ["rest", "third"], "\(activities)")
    func total(_ rows: [[String: String]], _ column: String) -> Int {
      rows.reduce(0) { $0 + (Int($1[column] ?? "") ?? -1000) }
    }
    for column in ["tp", "fp", "fn"] {
      #expect(total(activities, column) == total(sources, column), "\(column)")
    }
    let manifestRows = String(decoding: readFile(dir + "/two/manifest.csv") ?? [], as: UTF8.self)
      .split(separator: "\n").dropFirst()
    let thirds = manifestRows.filter { $0.hasSuffix(",third") }.count
    #expect(activities.last?["traces"].flatMap { Int($0) } == thirds && thirds > 0, "\(activities)")
    // held-out.csv names each trace's activity, as the manifest gives it.
    let given = Dictionary(
      uniqueKeysWithValues: manifestRows.map { row in
        let fields = row.split(separator: ",").map(String.init)
        return (dir + "/two/" + fields[0], fields[3])
      })
    #expect(traces.count == manifestRows.count && traces.count > 0)
    for t in traces {
      #expect(t["activity"] != nil && t["activity"] == given[t["trace"] ?? ""], "\(t)")
    }
    for source in sources {
      let own = traces.filter { $0["source"] == source["source"] }
      let annotated = own.reduce(0) { $0 + (Int($1["annotated_segments"] ?? "") ?? 0) }
      let covered = own.reduce(0) { $0 + (Int($1["covered_segments"] ?? "") ?? 0) }
      let share = Double(source["segment_recall"] ?? "") ?? -1
      let (low, high) = (
        Double(source["segment_recall_low"] ?? "") ?? 2, Double(source["segment_recall_high"] ?? "") ?? -1
      )
      #expect(annotated > 0 && abs(share - Double(covered) / Double(annotated)) < 1e-6, "\(source)")
      #expect(low <= share && share <= high, "\(source)")
      #expect(
        Double(source["recall_low"] ?? "") != nil && Double(source["f1_high"] ?? "") != nil, "\(source)")
    }
    let refused = try accelkit([
      "train", dir + "/two", "--label", "shake", "--maximize", "false_alarms_per_hour", "-o", dir + "/no",
    ])
    #expect(refused.status == 64 && refused.stderr.contains("--maximize takes"), "\(refused.stderr)")
    #expect(!fileExists(dir + "/no"))
  }

  @Test func explainModelNamesWhatTheBuiltInModelLeansOn() throws {
    let python = try #require(
      Tools.python(importing: ["numpy", "xgboost"]),
      Comment(rawValue: Tools.missing("python3 with xgboost", package: "xgboost-cpu")))
    let dir = Paths.temporaryDirectory()
    #expect(
      try accelkit(["generate", "-o", dir + "/g", "--traces", "4", "--seed", "5", "--scenario", "shakes"])
        .status == 0)
    var files: [String] = []
    for k in 0..<4 {
      let name = "00\(k)"
      let f = try accelkit([
        "features", "\(dir)/g/\(name).csv", "--labels", "\(dir)/g/\(name).events.csv", "--model",
        Paths.packageRoot + "/models/shake", "-o", "\(dir)/f\(k).csv",
      ])
      #expect(f.status == 0, "\(f.stderr)")
      files.append("'\(dir)/f\(k).csv'")
    }
    let r = try accelkit(
      [],
      shell:
        "'\(python)' '\(Paths.packageRoot)/scripts/explain_model.py' '\(Paths.packageRoot)/models/shake' shake \(files.joined(separator: " "))"
    )
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    let raising = try #require(lines.firstIndex(of: "raising"), "\(r.stdout)")
    #expect(lines.first?.hasSuffix("median probability 1.000") == true, "\(r.stdout)")
    #expect(lines[raising + 1].hasPrefix("  e0.25_linearity "), "\(r.stdout)")
  }

  /// --band and --exclude-feature: the bands name the features on a slower grid; an excluded
  /// feature is still a column but no tree splits on it, and the model says what was excluded;
  /// a band above half the grid's rate or a pattern that names nothing is refused.
  @Test func bandsAndExcludedFeaturesShapeTheModel() throws {
    let dir = Paths.temporaryDirectory()
    let r = try accelkit([
      "train", Self.train, "--label", "shake", "--folds", "3", "--rounds", "20", "--quiet", "--feature-rate",
      "25",
      "--window", "2", "--band", "1-4", "--band", "4-12.5", "--exclude-feature", "*_linearity",
      "--exclude-feature", "w2_norm_variance", "-o", dir + "/m",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let description = String(decoding: readFile(dir + "/m/detector.json") ?? [], as: UTF8.self)
    #expect(description.contains("\"bands_hz\": [[1, 4], [4, 12.5]]"), "\(description)")
    #expect(description.contains("\"excluded_features\": [\"*_linearity\", \"w2_norm_variance\"]"))
    // Sustained shaking is one event: the decoding cancels nothing under 600 s.
    #expect(description.contains("\"max_duration_s\": 600"), "\(description)")
    // XGBoost's JSON: every split's feature index, by name.
    let model = try #require(
      try JSONSerialization.jsonObject(with: Data(readFile(dir + "/m/shake.xgb.json") ?? []))
        as? [String: Any])
    let learner = try #require(model["learner"] as? [String: Any])
    let names = try #require(learner["feature_names"] as? [String])
    #expect(names.contains("w2_x_band_4_12.5_hz") && names.contains("w2_linearity"))
    let trees = try #require(
      ((learner["gradient_booster"] as? [String: Any])?["model"] as? [String: Any])?["trees"]
        as? [[String: Any]])
    var used = Set<String>()
    for tree in trees {
      let children = tree["left_children"] as? [Int] ?? []
      for (i, feature) in (tree["split_indices"] as? [Int] ?? []).enumerated() where children[i] >= 0 {
        used.insert(names[feature])
      }
    }
    #expect(!used.isEmpty)
    #expect(!used.contains("w2_linearity") && !used.contains("w2_norm_variance"), "\(used.sorted())")
    // The model detects as any other.
    let events = try accelkit(["detect-shakes", "--model", dir + "/m", Self.test + "/000.csv"])
    #expect(events.status == 0, "\(events.stderr)")
    let high = try accelkit([
      "train", Self.train, "--label", "shake", "--feature-rate", "25", "--band", "8-16", "--quiet", "-o",
      dir + "/x",
    ])
    #expect(high.status == 64 && high.stderr.contains("12.5 Hz"), "\(high.stderr)")
    let nothing = try accelkit([
      "train", Self.train, "--label", "shake", "--exclude-feature", "*_jerk", "--quiet", "-o", dir + "/x",
    ])
    #expect(nothing.status == 64 && nothing.stderr.contains("names no feature"), "\(nothing.stderr)")
    let malformed = try accelkit([
      "train", Self.train, "--label", "shake", "--band", "4", "--quiet", "-o", dir + "/x",
    ])
    #expect(malformed.status == 64 && malformed.stderr.contains("LOW-HIGH"), "\(malformed.stderr)")
    #expect(!fileExists(dir + "/x"))
  }
}

/// The built-in detector: what the binary carries is models/shake, byte for byte, and running
/// it by default, by name or from the directory gives the same events.
@Suite struct BuiltInModelTests {
  @Test func theEmbeddedModelIsTheDirectory() throws {
    let source = String(
      decoding: readFile(Paths.packageRoot + "/Sources/AccelLearning/BuiltInShakeModel.swift") ?? [],
      as: UTF8.self)
    // scripts/embed_model.py's literals: each file's text between two line breaks.
    let description = String(
      decoding: readFile(Paths.packageRoot + "/models/shake/detector.json") ?? [], as: UTF8.self)
    #expect(
      source.contains("static let description = ######\"\"\"\n\(description)\n\"\"\"######"),
      "Sources/AccelLearning/BuiltInShakeModel.swift's description is not models/shake/detector.json: run scripts/embed_model.py"
    )
    let classifiers = try FileManager.default.contentsOfDirectory(atPath: Paths.packageRoot + "/models/shake")
      .filter { $0.hasSuffix(".xgb.json") }.sorted()
    #expect(classifiers.first == "shake.sustained.xgb.json" || classifiers == ["shake.xgb.json"])
    for file in classifiers {
      let text = String(decoding: readFile(Paths.packageRoot + "/models/shake/" + file) ?? [], as: UTF8.self)
      #expect(
        source.contains("\"\(file)\": ######\"\"\"\n\(text)\n\"\"\"######,"),
        "Sources/AccelLearning/BuiltInShakeModel.swift's \(file) is not models/shake/\(file): run scripts/embed_model.py"
      )
    }
    #expect(source.components(separatedBy: ".xgb.json\": ######").count == classifiers.count + 1)
  }

  @Test func byDefaultByNameAndFromTheDirectoryTheSameEvents() throws {
    let trace = Paths.packageRoot + "/datasets/test/004.csv"
    let byDefault = try accelkit(["detect-shakes", trace])
    let byName = try accelkit(["detect-shakes", "--rule", "learned-shake", trace])
    let fromDirectory = try accelkit(["detect-shakes", "--model", Paths.packageRoot + "/models/shake", trace])
    #expect(byDefault.status == 0 && byName.status == 0 && fromDirectory.status == 0, "\(byDefault.stderr)")
    #expect(byDefault.stdout.contains(",learned-shake,"))
    #expect(byDefault.stdout == byName.stdout)
    func withoutRule(_ text: String) -> [String] {
      text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        .map { row in
          row.enumerated().filter { $0.offset != 3 }.map { String($0.element) }.joined(separator: ",")
        }
    }
    #expect(withoutRule(byDefault.stdout) == withoutRule(fromDirectory.stdout))
    let list = try accelkit(["detect-shakes", "--list-params"])
    #expect(list.stdout.contains("learned-shake") && list.stdout.contains("merge_gap_s"))
    // Its decoding sweeps like a rule's parameters; settings with off above on are skipped.
    let sweep = try accelkit([
      "evaluate", trace, "--labels", Paths.packageRoot + "/datasets/test/004.events.csv", "--rule",
      "learned-shake",
      "--sweep", "learned-shake.on=0.9:0.99:0.09", "--sweep", "learned-shake.off=0.9:0.99:0.09", "--format",
      "csv",
    ])
    #expect(
      sweep.status == 0 && sweep.stdout.split(separator: "\n").count == 4, "\(sweep.stdout)\(sweep.stderr)")
    #expect(sweep.stderr.contains("skipped 1 learned-shake settings"), "\(sweep.stderr)")
    let contradictory = try accelkit(["detect-shakes", "--param", "off=0.999", trace])
    #expect(contradictory.status == 64 && contradictory.stderr.contains("must be at most"))
    let tune = try accelkit(["tune", Paths.packageRoot + "/datasets/train", "--rule", "learned-shake"])
    #expect(tune.status == 64 && tune.stderr.contains("learned model"), "\(tune.stderr)")
  }

  /// The hold path in a model's files: detector.json may name hold and hold_s (the decoder then
  /// runs as --param sets them) or leave them out (older models load unchanged), and one whose off
  /// is above hold is refused with the file named. The built-in model's trees with a decoding set
  /// here, whatever decoding its training chose.
  @Test func aModelsDecodingCarriesTheHoldPath() throws {
    let dir = Paths.temporaryDirectory()
    let original = String(
      decoding: readFile(Paths.packageRoot + "/models/shake/detector.json") ?? [], as: UTF8.self)
    let decoding = try #require(
      original.range(of: #""shake": \{"on": [^}]*\}"#, options: .regularExpression))
    // On out of reach: every event begins by the hold path, and without it there is none.
    let fixed =
      "\"on\": 1, \"off\": 0.5, \"min_duration_s\": 0, \"max_duration_s\": 600, \"merge_gap_s\": 0.25"
    func model(_ name: String, hold: String) throws -> String {
      let folder = dir + "/" + name
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      for file in ["shake.xgb.json", "shake.sustained.xgb.json"] {
        guard let bytes = readFile(Paths.packageRoot + "/models/shake/" + file) else { continue }
        writeFile(folder + "/" + file, bytes)
      }
      // With a sustained classifier the hold path reads its probability, which sustained_off
      // keeps going (at most hold); it begins nothing by itself here.
      let sustained =
        fileExists(folder + "/shake.sustained.xgb.json") && !hold.contains("0.3,")
        ? ", \"sustained_on\": 1, \"sustained_off\": 0.5" : ""
      let shake = "\"shake\": {\(fixed)\(hold.isEmpty ? "" : ", " + hold)\(sustained)}"
      writeFile(folder + "/detector.json", original.replacingCharacters(in: decoding, with: shake))
      return folder
    }
    let trace = Paths.packageRoot + "/datasets/test/000.csv"
    let held = try model("held", hold: "\"hold\": 0.6, \"hold_s\": 0.3")
    let unheld = try model("plain", hold: "")
    let fromFile = try accelkit(["detect-shakes", "--model", held, trace])
    let byParam = try accelkit([
      "detect-shakes", "--model", unheld, "--param", "hold=0.6", "--param", "hold_s=0.3", trace,
    ])
    let plain = try accelkit(["detect-shakes", "--model", unheld, trace])
    #expect(fromFile.status == 0 && byParam.status == 0, "\(fromFile.stderr)\(byParam.stderr)")
    func rows(_ text: String) -> [String] {
      text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        .map { row in
          row.enumerated().filter { $0.offset != 3 }.map { String($0.element) }.joined(separator: ",")
        }
    }
    #expect(rows(fromFile.stdout) == rows(byParam.stdout))
    #expect(
      rows(fromFile.stdout).count > 2 && rows(plain.stdout).count == 1, "\(fromFile.stdout)\(plain.stdout)")
    let bad = try model("bad", hold: "\"hold\": 0.3, \"hold_s\": 1")
    let refused = try accelkit(["detect-shakes", "--model", bad, trace])
    #expect(refused.status == 65 && refused.stderr.contains("bad/detector.json"), "\(refused.stderr)")
    #expect(refused.stderr.contains("must be at most shake.hold"), "\(refused.stderr)")
    // Where: the label's decoding, and a value that is not a number (not taken as absent).
    let before = original[..<decoding.lowerBound]
    let line = before.filter { $0 == "\n" }.count + 1
    let column = before.distance(
      from: before.lastIndex(of: "\n").map(before.index(after:))!, to: before.endIndex)
    #expect(refused.stderr.contains("bad/detector.json:\(line):\(column + 10): "), "\(refused.stderr)")
    let text = try accelkit([
      "detect-shakes", "--model", try model("text", hold: "\"hold_s\": 1, \"hold\": \"0.6\""), trace,
    ])
    let at = column + 10 + 1 + fixed.count + 23
    #expect(
      text.status == 65 && text.stderr.contains("text/detector.json:\(line):\(at): ")
        && text.stderr.contains("has a hold that is not a number"), "\(text.stderr)")
    // A label that is not a string is refused where it is (not dropped).
    let numbered = try model("numbered", hold: "")
    let described = String(decoding: readFile(numbered + "/detector.json") ?? [], as: UTF8.self)
    let labels = try #require(described.range(of: "\"labels\": [\"shake\"]"))
    writeFile(
      numbered + "/detector.json",
      described.replacingCharacters(in: labels, with: "\"labels\": [\"shake\", 7]"))
    let seven = try accelkit(["detect-shakes", "--model", numbered, trace])
    let labelsLine = described[..<labels.lowerBound].filter { $0 == "\n" }.count + 1
    #expect(
      seven.status == 65
        && seven.stderr.contains("numbered/detector.json:\(labelsLine):23: a label that is not"),
      "\(seven.stderr)")
  }
}
