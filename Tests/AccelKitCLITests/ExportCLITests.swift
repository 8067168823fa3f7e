import AccelCore
import AccelEvaluation
import AccelExport
import AccelGestures
import AccelIO
import AccelLearning
import Foundation
import TestSupport
import Testing

/// accelkit export: every rule's C header, compiled with Examples/firmware/replay.c by the
/// system's C compiler, prints the events CSV detect-shakes prints, byte for byte, on the test
/// set, on real recordings and on generated traces at random settings (a change to a rule in
/// Swift that the exporter does not follow fails here).
@Suite struct ExportCLITests {
  /// Every registered detector that states it exports (`Detectors.export`): the rules, then the
  /// built-in learned models. A rule added to the registry is proved here with no edit.
  static let detectors = Detectors.exportable
  /// Those of them that are rules (their parameters are drawn at random).
  static let rules = Detectors.all.filter { $0.export == .c }.map { $0.name }
  static let replay = Paths.packageRoot + "/Examples/firmware/replay.c"

  /// cc and g++ come from scripts/deps, clang and clang++ with the Swift toolchain.
  static func compiler(_ name: String) throws -> String {
    try #require(
      Tools.path(name),
      Comment(
        rawValue: Tools.missing(
          name, package: name.hasPrefix("clang") ? "nothing: clang comes with Swift" : "gcc and g++")))
  }

  /// Plain t,x,y,z copies (g, Apple's axes) of `traces` in `dir`, with the rate detect-shakes
  /// works out for each (exactly: 1 / the median interval of the first block, to 9 digits).
  /// With `gyroscope`, t,x,y,z,gx,gy,gz copies (rad/s) instead, named `g0.csv`, `g1.csv`, ...
  static func plainCopies(_ traces: [String], in dir: String, gyroscope: Bool = false) throws -> [(
    path: String, rate: String
  )] {
    var script = "set -e\n"
    let (channels, name) = gyroscope ? ("acc,gyro", "g") : ("acc", "")
    for (i, trace) in traces.enumerated() {
      script += "ACCELKIT convert --channels \(channels) '\(trace)' -o '\(dir)/\(name)\(i).csv'\n"
    }
    let result = try accelkit([], shell: script)
    try #require(result.status == 0, "\(result.stderr)")
    return try traces.indices.map { i in
      let path = "\(dir)/\(name)\(i).csv"
      return (
        path, formatNumber(try TraceStream(path: path, settings: TraceReadSettings(), resample: nil).rate)
      )
    }
  }

  /// Exports `rule` with `params` at `rate`, compiles replay.c against it, runs it and
  /// detect-shakes on every trace; returns the traces whose outputs differ, with both outputs.
  /// With `model`, the model in that directory is exported and run (`rule` only names the files);
  /// `defines` are given to the compiler as -D (a model's AK_DETECTOR_ALL_TREES,
  /// AK_DETECTOR_TREE_TABLE).
  static func differences(
    rule: String, params: [String], traces: [(path: String, rate: String)], in dir: String,
    precision: String = "double", model: String? = nil, defines: [String] = []
  ) throws -> [String] {
    let cc = try compiler("cc")
    let byRate = Dictionary(grouping: traces.indices) { traces[$0].rate }
    var script = "set -e\n"
    let paramArgs = params.map { "--param '\($0)'" }.joined(separator: " ")
    let detector = model.map { "--model '\($0)'" } ?? "--rule \(rule)"
    for (k, (rate, members)) in byRate.sorted(by: { $0.key < $1.key }).enumerated() {
      let out = "\(dir)/\(rule)-\(precision)-\(k)"
      script +=
        "ACCELKIT export \(detector) \(paramArgs) --rate \(rate) --precision \(precision) -o '\(out)'\n"
      script +=
        "'\(cc)' -std=c99 -O2 -Wall -Wextra -pedantic -Werror \(defines.map { "-D\($0) " }.joined())-I '\(out)' '\(replay)' -o '\(out)/replay' -lm\n"
      for i in members {
        script += "'\(out)/replay' < '\(traces[i].path)' > '\(traces[i].path).\(rule).c.csv'\n"
        script +=
          "ACCELKIT detect-shakes \(detector) \(paramArgs) '\(traces[i].path)' > '\(traces[i].path).\(rule).swift.csv'\n"
      }
    }
    let result = try accelkit([], shell: script)
    try #require(result.status == 0, "\(result.stderr)")
    var differing: [String] = []
    for trace in traces {
      let c = String(decoding: readFile(trace.path + ".\(rule).c.csv") ?? [], as: UTF8.self)
      let swift = String(decoding: readFile(trace.path + ".\(rule).swift.csv") ?? [], as: UTF8.self)
      if c != swift || !swift.hasPrefix("start,end,label,rule,") {
        differing.append("\(rule) \(params) on \(trace.path):\n--- exported\n\(c)--- detect-shakes\n\(swift)")
      }
    }
    return differing
  }

  static func testTraces() throws -> [String] {
    let test = Paths.packageRoot + "/datasets/test"
    let manifest = String(decoding: readFile(test + "/manifest.csv") ?? [], as: UTF8.self)
    return manifest.split(separator: "\n").dropFirst().map { "\(test)/\($0.split(separator: ",")[0])" }
  }

  /// The test set's traces that have a gyroscope, and the real recording with one (BROAD's).
  static func gyroscopeTraces() throws -> [String] {
    try testTraces().filter {
      String(decoding: (readFile($0) ?? []).prefix(40), as: UTF8.self).hasPrefix("t,x,y,z,gx,gy,gz")
    } + [Paths.packageRoot + "/datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz"]
  }

  /// The events of every trace's outputs that `differences` wrote for `rule`.
  static func eventCount(_ traces: [(path: String, rate: String)], rule: String) -> Int {
    traces.reduce(0) {
      $0
        + String(decoding: readFile($1.path + ".\(rule).swift.csv") ?? [], as: UTF8.self)
        .split(separator: "\n").count - 1
    }
  }

  @Test func everyRuleGivesDetectShakesEventsOnTheTestSetAndRealRecordings() throws {
    let dir = Paths.temporaryDirectory()
    let real = ["st-mlc/shake.csv", "st-mlc/motion.csv", "broad/02_undisturbed_slow_rotation_B.csv.gz"].map {
      Paths.packageRoot + "/datasets/real/" + $0
    }
    let traces = try Self.plainCopies(try Self.testTraces() + real, in: dir)
    #expect(traces.count > 60)
    var events = 0
    // The models' trees stop early here, as by default (floatLossIsWhatTheHeadersSay walks them all).
    for rule in Self.detectors {
      let differing = try Self.differences(rule: rule, params: [], traces: traces, in: dir)
      #expect(differing.isEmpty, "\(differing.count) traces differ; the first: \(differing.first ?? "")")
      events += Self.eventCount(traces, rule: rule)
    }
    // Enough events that equality says something (every rule finds some).
    #expect(events > 400, "\(events)")
    // The built-in model's trees in the other form than its header's default (code when it was
    // budgeted as a table), walked in full.
    let other = BuiltInModels.shake.treesAsTable ? "AK_DETECTOR_TREE_CODE" : "AK_DETECTOR_TREE_TABLE"
    let table = try Self.differences(
      rule: "learned-shake", params: [], traces: traces, in: dir, defines: [other, "AK_DETECTOR_ALL_TREES"])
    #expect(table.isEmpty, "\(table.count) traces differ; the first: \(table.first ?? "")")
    #expect(Self.eventCount(traces, rule: "learned-shake") > 50)
  }

  /// With a gyroscope, swing (gyro=1) and orientation-change (gyro=1, its default) take gravity
  /// from the fused attitude; the exported push_gyro does too and gives detect-shakes' events.
  @Test func gravityFromTheFusedAttitudeGivesDetectShakesEvents() throws {
    let dir = Paths.temporaryDirectory()
    let traces = try Self.plainCopies(try Self.gyroscopeTraces(), in: dir, gyroscope: true)
    #expect(traces.count > 30)
    var events: [String: Int] = [:]
    for (rule, params) in [("swing", ["gyro=1"]), ("orientation-change", [])] {
      let differing = try Self.differences(rule: rule, params: params, traces: traces, in: dir)
      #expect(differing.isEmpty, "\(differing.count) traces differ; the first: \(differing.first ?? "")")
      events[rule] = Self.eventCount(traces, rule: rule)
    }
    #expect(events["swing", default: 0] > 40 && events["orientation-change", default: 0] > 100, "\(events)")
  }

  /// The exported fused gravity is `filter gravity --method fusion`'s (the attitude stage's, VQF
  /// without the magnetometer), bit for bit, on every sample of the test set's traces with a
  /// gyroscope and of the BROAD recording (a long real rotation at 286 Hz).
  @Test func exportedFusedGravityIsTheAttitudeStagesBitForBit() throws {
    let dir = Paths.temporaryDirectory()
    let cc = try Self.compiler("cc")
    let traces = try Self.plainCopies(try Self.gyroscopeTraces(), in: dir, gyroscope: true)
    let driver = """
      #include <stdio.h>
      #include "accelkit_detector.h"
      int main(void) {
        static char line[4096];
        static ak_detector_state s;
        double v[7], g[3];
        ak_detector_init(&s);
        if (!fgets(line, sizeof line, stdin)) return 65;
        while (fgets(line, sizeof line, stdin)) {
          if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6) != 7) return 65;
          ak_detector_fused_gravity(&s.fusion, v[0], v[1], v[2], v[3], v[4], v[5], v[6], g);
          printf("%.17g,%.17g,%.17g\\n", g[0], g[1], g[2]);
        }
        return 0;
      }

      """
    writeFile(dir + "/gravity.c", driver)
    var script = "set -e\n"
    for (i, trace) in traces.enumerated() {
      let out = "\(dir)/fused\(i)"
      script += "ACCELKIT export --rule swing --param gyro=1 --rate \(trace.rate) -o '\(out)'\n"
      script +=
        "'\(cc)' -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I '\(out)' '\(dir)/gravity.c' -o '\(out)/gravity' -lm\n"
      script += "'\(out)/gravity' < '\(trace.path)' > '\(out)/c.csv'\n"
      script +=
        "ACCELKIT filter gravity --method fusion --rate \(trace.rate) '\(trace.path)' -o '\(out)/swift.csv'\n"
    }
    let result = try accelkit([], shell: script)
    try #require(result.status == 0, "\(result.stderr)")
    var samples = 0
    var differing: [String] = []
    for i in traces.indices {
      let c = String(decoding: readFile("\(dir)/fused\(i)/c.csv") ?? [], as: UTF8.self).split(separator: "\n")
      let swift = String(decoding: readFile("\(dir)/fused\(i)/swift.csv") ?? [], as: UTF8.self)
        .split(separator: "\n").dropFirst()
      #expect(c.count == swift.count, "\(traces[i].path)")
      for (a, b) in zip(c, swift) {
        let ours = a.split(separator: ",").map { Double($0) }
        let theirs = b.split(separator: ",").prefix(4).dropFirst().map { Double($0) }
        samples += 1
        if ours != theirs || ours.contains(nil) {
          differing.append("\(traces[i].path): \(a) against \(b)")
          break
        }
      }
    }
    #expect(differing.isEmpty, "\(differing.count) traces differ; the first: \(differing.first ?? "")")
    #expect(samples > 100_000, "\(samples)")
  }

  /// Random settings of every parameter (around the defaults, within each one's range) on freshly
  /// generated traces: the exported code follows every branch of the Swift rule.
  @Test func randomSettingsAgreeOnGeneratedTraces() throws {
    let dir = Paths.temporaryDirectory()
    let generated = try accelkit(["generate", "-o", dir + "/gen", "--traces", "10", "--seed", "41"])
    try #require(generated.status == 0, "\(generated.stderr)")
    // With the gyroscope: swing's and orientation-change's gyro = 1 take gravity from it.
    let traces = try Self.plainCopies(
      (0..<10).map { String(format: "%@/gen/%03d.csv", dir, $0) }, in: dir, gyroscope: true)
    var random = SeededRandom(seed: 7)
    // Parameters whose default 0 switches them off, with the values they take when on.
    let whenOn: [String: ClosedRange<Double>] = [
      "three-peak.gravity_cutoff": 0.3...5, "angular-change.window_s": 0.04...0.3,
    ]
    let integral: Set<String> = ["movements", "flag", "pairs", "preset", "samples", "count"]
    var tried = 0
    for rule in Self.rules {
      let rows = Detectors.parameterRows(try #require(Detectors.named(rule)))
      var settings = 0
      var attempts = 0
      while settings < 4 && attempts < 40 {
        attempts += 1
        let params = rows.map { row -> String in
          var value: Double
          if let on = whenOn["\(rule).\(row.name)"] {
            value = Bool.random(using: &random) ? 0 : Double.random(in: on, using: &random)
          } else if row.unit == "flag" || row.unit == "preset" {
            value = Double(
              Int.random(in: Int(row.range.lowerBound)...Int(row.range.upperBound), using: &random))
          } else {
            value = row.defaultValue * Double.random(in: 0.6...1.6, using: &random)
          }
          value = min(row.range.upperBound, max(row.range.lowerBound, value))
          if integral.contains(row.unit) { value = max(row.range.lowerBound, value.rounded()) }
          return "\(row.name)=\(value)"
        }
        // A setting the rule refuses (min_hz above max_hz, ...) is drawn again.
        let check = try accelkit(
          ["export", "--rule", rule, "--rate", "100", "-o", dir + "/probe"]
            + params.flatMap { ["--param", $0] })
        guard check.status == 0 else { continue }
        settings += 1
        tried += 1
        let differing = try Self.differences(rule: rule, params: params, traces: traces, in: dir)
        #expect(differing.isEmpty, "\(differing.count) traces differ; the first: \(differing.first ?? "")")
      }
    }
    #expect(tried == 4 * Self.rules.count)
  }
}

extension ExportCLITests {
  /// A model trained here with another specification than the built-in one (a 100 Hz grid,
  /// windows of 0.5 and 2 s, the gyroscope's features, two labels) gives detect-shakes' events:
  /// on the test set as recorded (with the gyroscope) and as t,x,y,z copies (its features
  /// missing), on sparse copies whose every reading ends several rows (so one push ends
  /// several events, handed out by next), at its own decoding, at a loose one that ends many
  /// events of both labels, some cancelled, and at one whose events all begin by the hold path;
  /// with windows, and with exponential features whose rows span 1 s (`--span`: the centre
  /// further back than the shortest width's), attitude, shape and swing features; at the latter two decodings
  /// with the trees stopped early.
  @Test(arguments: [false, true])
  func trainedModelsGiveDetectShakesEvents(exponential: Bool) throws {
    let dir = Paths.temporaryDirectory()
    let trained = try accelkit(
      [
        "train", Paths.packageRoot + "/datasets/train", "--label", "shake", "--label", "jiggle", "--rounds",
        "20",
        "--depth", "4", "--window", "0.5", "--window", "2", "--hop", "0.05", "--feature-rate", "100",
        "--gyro",
        "--folds", "2", "--quiet", "-o", dir + "/model",
      ] + (exponential ? ["--exponential", "--span", "1", "--attitude", "--shape", "--swing"] : []))
    try #require(trained.status == 0, "\(trained.stderr)")
    let names = Array(try Self.testTraces().prefix(12))
    let plain = try Self.plainCopies(names, in: dir)
    // The recordings as they are (outputs go beside the traces: copies in dir), and every fifth
    // reading of the plain copies: intervals of 0.05 to 0.1 s, ten grid points each.
    var script = "set -e\n"
    for (i, trace) in plain.enumerated() {
      script += "cp '\(names[i])' '\(dir)/recorded\(i).csv'\n"
      script += "awk 'NR == 1 || NR % 5 == 2' '\(trace.path)' > '\(dir)/sparse\(i).csv'\n"
    }
    let thinned = try accelkit([], shell: script)
    try #require(thinned.status == 0, "\(thinned.stderr)")
    let recorded = plain.indices.map { (path: "\(dir)/recorded\($0).csv", rate: "100") }
    let sparse = plain.indices.map { (path: "\(dir)/sparse\($0).csv", rate: "100") }
    let loose = ["on=0.2", "off=0.1", "min_duration_s=0", "merge_gap_s=0", "max_duration_s=0.5"]
    // On out of reach: every event begins by the hold path, some continuing a pending one.
    let held = ["on=1", "off=0.3", "min_duration_s=0", "merge_gap_s=0.5", "hold=0.5", "hold_s=0.3"]
    var counts: [String: Int] = [:]
    for (k, params) in [[], loose, held].enumerated() {
      let traces = recorded + plain + sparse
      // Every row's trees walked at the model's decoding, as code and as a table; stopped early
      // (the default) at the others', as code at the loose one and as a table on the hold path.
      let differing = try Self.differences(
        rule: "trained\(k)", params: params, traces: traces, in: dir, model: dir + "/model",
        defines: k == 0 ? ["AK_DETECTOR_ALL_TREES"] : k == 1 ? [] : ["AK_DETECTOR_TREE_TABLE"])
      #expect(differing.isEmpty, "\(differing.count) traces differ; the first: \(differing.first ?? "")")
      if k == 0 {
        let table = try Self.differences(
          rule: "trained\(k)", params: params, traces: traces, in: dir, model: dir + "/model",
          defines: ["AK_DETECTOR_ALL_TREES", "AK_DETECTOR_TREE_TABLE"])
        #expect(table.isEmpty, "\(table.count) traces differ; the first: \(table.first ?? "")")
      }
      #expect(differing.isEmpty, "\(differing.count) traces differ; the first: \(differing.first ?? "")")
      for trace in traces {
        for line in String(decoding: readFile(trace.path + ".trained\(k).swift.csv") ?? [], as: UTF8.self)
          .split(separator: "\n").dropFirst()
        {
          let fields = line.split(separator: ",", omittingEmptySubsequences: false)
          counts["\(fields[2]) \(fields[8])", default: 0] += 1
          if k == 2 { counts["held", default: 0] += 1 }
        }
      }
    }
    // Both labels, both statuses, and enough of them that equality says something.
    #expect(counts["shake ended", default: 0] > 100, "\(counts)")
    #expect(counts["jiggle ended", default: 0] > 0 && counts["shake cancelled", default: 0] > 0, "\(counts)")
    #expect(counts["held", default: 0] > 50, "\(counts)")
  }

  /// A model with a sustained classifier (`train --sustained`), budgeted for its trees as a table,
  /// gives detect-shakes' events: at its own decoding with every tree walked, at one where only the
  /// sustained classifier begins and keeps events (stopped early, as the table its header builds
  /// by default), at one where only its hold path begins them (as code,
  /// AK_DETECTOR_TREE_CODE), and at a strict one with and without `extend` (which keeps its
  /// events longer), on generated sustained shaking and the test set.
  @Test func sustainedClassifiersGiveDetectShakesEvents() throws {
    let dir = Paths.temporaryDirectory()
    let made = try accelkit(
      [],
      shell: "set -e\nACCELKIT generate -o '\(dir)/sus' --traces 8 --seed 4 --scenario sustained >/dev/null")
    try #require(made.status == 0, "\(made.stderr)")
    let trained = try accelkit([
      "train", Paths.packageRoot + "/datasets/train", "--sustained", dir + "/sus", "--label", "shake",
      "--rounds", "20", "--depth", "4", "--exponential", "--span", "1", "--folds", "2", "--flash", "40KiB",
      "--trees", "table", "--quiet", "-o", dir + "/model",
    ])
    try #require(trained.status == 0, "\(trained.stderr)")
    let cc = try Self.compiler("cc")
    let form = try accelkit(
      [],
      shell: """
        set -e
        ACCELKIT export --model '\(dir)/model' -o '\(dir)/h' 2>/dev/null
        printf '#include "accelkit_detector.h"\\n#ifdef AK_DETECTOR_TREE_TABLE\\nint main(void) { return 0; }\\n#else\\nint main(void) { return 1; }\\n#endif\\n' > '\(dir)/m.c'
        \(cc) -std=c99 -I '\(dir)/h' '\(dir)/m.c' -o '\(dir)/table' -lm && '\(dir)/table'
        \(cc) -std=c99 -DAK_DETECTOR_TREE_CODE -I '\(dir)/h' '\(dir)/m.c' -o '\(dir)/code' -lm && ! '\(dir)/code'
        """)
    #expect(form.status == 0, "\(form.stderr)")
    var traces = (0..<8).map { (path: "\(dir)/sus/\(String(format: "%03d", $0)).csv", rate: "50") }
    traces += try Self.plainCopies(Array(try Self.testTraces().prefix(6)), in: dir)
    let sustained = ["on=1", "off=1", "sustained_on=0.7", "sustained_off=0.3", "merge_gap_s=0.5"]
    let held = ["on=1", "off=1", "sustained_on=1", "sustained_off=0.4", "hold=0.6", "hold_s=0.5"]
    let strict = ["on=1", "off=1", "sustained_on=0.7", "sustained_off=0.7", "min_duration_s=0.2", "hold_s=0"]
    let averaged = ["on=1", "off=1", "sustained_on=1", "sustained_off=0.4", "smooth_s=2", "smoothed_on=0.6"]
    var counts: [Int] = []
    var seconds: [Double] = []
    for (k, (params, defines)) in [
      ([String](), ["AK_DETECTOR_ALL_TREES"]), (sustained, []), (held, ["AK_DETECTOR_TREE_CODE"]),
      (strict, []), (strict + ["extend=0.2"], []), (averaged, []),
    ].enumerated() {
      let differing = try Self.differences(
        rule: "sustained\(k)", params: params, traces: traces, in: dir, model: dir + "/model",
        defines: defines)
      #expect(differing.isEmpty, "\(differing.count) traces differ; the first: \(differing.first ?? "")")
      let events = traces.flatMap { trace in
        String(decoding: readFile(trace.path + ".sustained\(k).swift.csv") ?? [], as: UTF8.self)
          .split(separator: "\n").dropFirst()
      }
      counts.append(events.count)
      seconds.append(
        events.reduce(0) { total, line in
          let fields = line.split(separator: ",", omittingEmptySubsequences: false)
          return total + (Double(fields[1]) ?? 0) - (Double(fields[0]) ?? 0)
        })
    }
    #expect(counts.allSatisfy { $0 > 5 }, "\(counts)")
    // extend keeps the strict decoding's events longer.
    #expect(seconds[4] > seconds[3] + 5, "\(seconds)")
  }

  /// A learned model's header stops the trees early unless told to walk them all: the built-in
  /// model's header defines AK_DETECTOR_EARLY_STOP by itself, not with AK_DETECTOR_ALL_TREES.
  @Test func theTreesStopEarlyByDefault() throws {
    let cc = try Self.compiler("cc")
    let dir = Paths.temporaryDirectory()
    let check = """
      ACCELKIT export --precision float -o '\(dir)/h' >/dev/null
      printf '#include "accelkit_detector.h"\\n#ifdef AK_DETECTOR_EARLY_STOP\\nint main(void) { return 0; }\\n#else\\nint main(void) { return 1; }\\n#endif\\n' > '\(dir)/m.c'
      \(cc) -std=c99 -I '\(dir)/h' '\(dir)/m.c' -o '\(dir)/on' -lm && '\(dir)/on'
      \(cc) -std=c99 -DAK_DETECTOR_ALL_TREES -I '\(dir)/h' '\(dir)/m.c' -o '\(dir)/off' -lm && ! '\(dir)/off'
      """
    let run = try accelkit([], shell: "set -e\n" + check)
    #expect(run.status == 0, "\(run.stderr)")
  }

  /// Every header, in both precisions, compiles without a warning as C99 and as C++ with both
  /// compilers; two detectors with different prefixes live in one program; nothing allocates and
  /// nothing is static but the functions.
  @Test func headersBuildCleanlyAndTwoLiveInOneProgram() throws {
    let dir = Paths.temporaryDirectory()
    let compilers = [
      ("cc", "-std=c99"), ("clang", "-std=c99"), ("g++", "-std=c++11"), ("clang++", "-std=c++11"),
    ]
    for (name, _) in compilers { _ = try Self.compiler(name) }
    var script = "set -e\n"
    for rule in Self.detectors {
      for precision in ExportSettings.Precision.allCases {
        let out = "\(dir)/\(rule)-\(precision)"
        script +=
          "ACCELKIT export --rule \(rule) --rate 50 --precision \(precision) --prefix p_\(precision) -o '\(out)'\n"
        script +=
          "printf '#include \"accelkit_detector.h\"\\nint main(void) { p_\(precision)_state s; p_\(precision)_event e; p_\(precision)_init(&s); return p_\(precision)_push(&s, 0, 0, 0, -1, &e) + p_\(precision)_finish(&s, &e); }\\n' > '\(out)/main.c'\n"
        // A learned model's other forms too: its trees as a table, and every tree walked (the
        // macros take the prefix).
        let macro = "P_\(precision.rawValue.uppercased())"
        let variants =
          rule == Detectors.recommended
          ? [
            "", "-D\(macro)_TREE_TABLE ", "-D\(macro)_ALL_TREES ",
            "-D\(macro)_TREE_TABLE -D\(macro)_ALL_TREES ",
          ]
          : [""]
        for (cc, std) in compilers {
          let language = cc.hasSuffix("++") ? "-x c++" : ""
          for defines in variants {
            script +=
              "\(cc) \(std) -Wall -Wextra -pedantic -Werror \(defines)\(language) -I '\(out)' '\(out)/main.c' -o '\(out)/main' -lm\n"
          }
        }
      }
    }
    // Two detectors, one program: the prefixes keep their symbols and macros apart.
    script += """
      printf '#include "\(dir)/swing-double/accelkit_detector.h"\\n#include "\(dir)/seismic-float/accelkit_detector.h"\\nint main(void) { p_double_state a; p_float_state b; p_double_init(&a); p_float_init(&b); return 0; }\\n' > '\(dir)/two.c'
      cc -std=c99 -Wall -Wextra -pedantic -Werror '\(dir)/two.c' -o '\(dir)/two' -lm

      """
    let result = try accelkit([], shell: script)
    #expect(result.status == 0, "\(result.stderr)")
    for rule in Self.detectors {
      let header = String(
        decoding: readFile("\(dir)/\(rule)-double/accelkit_detector.h") ?? [], as: UTF8.self)
      #expect(header.contains("p_double_push"))
      #expect(!header.contains("ak_detector") && !header.contains("AK_DETECTOR"), "a symbol left unprefixed")
      for word in ["malloc", "calloc", "free(", "#include <stdio", "#include <stdlib"] {
        #expect(!header.contains(word), "\(rule): \(word)")
      }
      // Functions and constant tables only: no static mutable state.
      for line in header.split(separator: "\n") where line.contains("static") && !line.hasPrefix(" *") {
        #expect(line.hasPrefix("static inline ") || line.hasPrefix("static const "), "\(rule): \(line)")
      }
    }
  }

  /// A model directory whose name holds a quote, a backslash and a comment's end still gives a
  /// header that compiles (the name is escaped in the string and broken in the comments), and its
  /// rows with a gyroscope go through push_gyro, which is push for a rule.
  @Test func oddModelPathsAndGyroscopeRowsCompileAndRun() throws {
    let dir = Paths.temporaryDirectory()
    let odd = dir + "/we\"ird\\*/model"
    try makeDirectories(odd)
    for file in ["detector.json", "shake.xgb.json", "shake.sustained.xgb.json"] {
      guard let bytes = readFile(Paths.packageRoot + "/models/shake/" + file) else { continue }
      writeFile(odd + "/" + file, bytes)
    }
    let cc = try Self.compiler("cc")
    let exported = try accelkit(["export", "--model", odd, "-o", dir + "/out"])
    try #require(exported.status == 0, "\(exported.stderr)")
    let header = String(decoding: readFile(dir + "/out/accelkit_detector.h") ?? [], as: UTF8.self)
    #expect(
      header.contains("#define AK_DETECTOR_RULE \"model:\(dir)/we\\\"ird\\\\*/model\""),
      "\(header.prefix(2000))")
    // A rule's push_gyro is its push: the recorded trace (with the gyroscope) gives the events of
    // its t,x,y,z copy.
    let trace = try Self.testTraces()[0]
    let script = """
      set -e
      '\(cc)' -std=c99 -Wall -Wextra -pedantic -Werror -I '\(dir)/out' '\(Self.replay)' -o '\(dir)/model-replay' -lm
      ACCELKIT export --rule three-peak -o '\(dir)/rule'
      '\(cc)' -std=c99 -O2 -Wall -Wextra -pedantic -Werror -I '\(dir)/rule' '\(Self.replay)' -o '\(dir)/rule-replay' -lm
      '\(dir)/rule-replay' < '\(trace)' > '\(dir)/with-gyro.csv'
      cut -d, -f1-4 '\(trace)' | '\(dir)/rule-replay' > '\(dir)/without.csv'
      ACCELKIT detect-shakes --rule three-peak '\(trace)' > '\(dir)/accelkit.csv'

      """
    let run = try accelkit([], shell: script)
    try #require(run.status == 0, "\(run.stderr)")
    let withGyro = String(decoding: readFile(dir + "/with-gyro.csv") ?? [], as: UTF8.self)
    #expect(withGyro == String(decoding: readFile(dir + "/without.csv") ?? [], as: UTF8.self))
    #expect(withGyro == String(decoding: readFile(dir + "/accelkit.csv") ?? [], as: UTF8.self))
    #expect(withGyro.split(separator: "\n").count > 1, "no events to compare")
  }

  /// The registry and the export agree: every detector that states `.c` gives a header, any
  /// other is refused with the reason its registration gives, and the proof above ran on all the
  /// exporting ones (none is left out by a list kept by hand).
  @Test func everyRegisteredDetectorExportsOrSaysWhyNot() throws {
    #expect(Self.detectors.count >= 6 && Self.detectors.contains(Detectors.recommended), "\(Self.detectors)")
    var settings = ExportSettings()
    settings.rate = 100
    for name in Detectors.names {
      let setting = try RuleSetting(rule: name)
      switch Detectors.export(name) {
      case .c:
        let output = try DetectorExport.cHeader(setting, settings: settings)
        #expect(output.header.contains("ak_detector_push"), "\(name)")
      case .unsupported(let reason):
        #expect(throws: AccelError.usage("\(name) cannot be exported: \(reason)")) {
          try DetectorExport.cHeader(setting, settings: settings)
        }
      case nil:
        Issue.record("\(name) is listed but not registered")
      }
    }
  }

  @Test func exportRefusesWhatItCannotWrite() throws {
    let dir = Paths.temporaryDirectory()
    let noRate = try accelkit(["export", "--rule", "seismic", "-o", dir + "/a"])
    #expect(noRate.status == 64 && noRate.stderr.contains("--rate"), "\(noRate.stderr)")
    #expect(!fileExists(dir + "/a/accelkit_detector.h"))
    let prefix = try accelkit(["export", "--rule", "swing", "--prefix", "9lives", "-o", dir + "/b"])
    #expect(prefix.status == 64 && prefix.stderr.contains("--prefix"), "\(prefix.stderr)")
    let unknown = try accelkit(["export", "--rule", "wobble", "-o", dir + "/c"])
    #expect(unknown.status == 64 && unknown.stderr.contains("unknown rule"), "\(unknown.stderr)")
    let model = try accelkit(["export", "--model", dir + "/no-such-model", "-o", dir + "/d"])
    #expect(model.status == 66, "\(model.status) \(model.stderr)")
    #expect(!fileExists(dir + "/d/accelkit_detector.h"))
    let badParam = try accelkit(["export", "--rule", "swing", "--param", "min_hz=20", "-o", dir + "/e"])
    #expect(badParam.status == 64 && badParam.stderr.contains("min_hz"), "\(badParam.stderr)")
    writeFile(dir + "/file", "")
    let blocked = try accelkit(["export", "--rule", "swing", "-o", dir + "/file"])
    #expect(blocked.status == 73, "\(blocked.status) \(blocked.stderr)")
    // Rate-free rules need no --rate, but gravity from the fused attitude does (its filter's
    // coefficients are made for the rate).
    let gyro = try accelkit(["export", "--rule", "swing", "--param", "gyro=1", "-o", dir + "/f"])
    #expect(gyro.status == 64 && gyro.stderr.contains("--rate"), "\(gyro.stderr)")
    let plain = try accelkit(["export", "--rule", "swing", "-o", dir + "/g"])
    // It says what it wrote, and nothing else.
    #expect(
      plain.status == 0 && plain.stderr.hasPrefix("wrote \(dir)/g/accelkit_detector.h: swing, double; ")
        && plain.stderr.split(separator: "\n").count == 1, "\(plain.stderr)")
    // The same command writes the same bytes.
    let again = try accelkit(["export", "--rule", "swing", "-o", dir + "/h"])
    #expect(again.status == 0)
    let first = String(decoding: readFile(dir + "/g/accelkit_detector.h") ?? [], as: UTF8.self)
    let second = String(decoding: readFile(dir + "/h/accelkit_detector.h") ?? [], as: UTF8.self)
    #expect(
      first.replacingOccurrences(of: dir + "/g", with: "")
        == second.replacingOccurrences(of: dir + "/h", with: ""))
  }

  /// The F1 each rule (default parameters) loses in float on the test set, against its
  /// annotations, as `DetectorExport.floatF1Change` records it and float headers print it.
  /// Every detector of the registry, exported in float with its defaults, built for a Cortex-M4F
  /// by the target's own compiler (scripts/footprint): its RAM and flash are within what the
  /// header and export state (DetectorExport.footprint), and not more than 5% below (a table
  /// that is out of date fails).
  @Test func footprintIsWhatTheHeadersSay() throws {
    try #require(
      Tools.path("arm-none-eabi-gcc") != nil,
      Comment(
        rawValue: Tools.missing("arm-none-eabi-gcc", package: "gcc-arm-none-eabi and libnewlib-arm-none-eabi")
      ))
    let dir = Paths.temporaryDirectory()
    let rate = formatNumber(DetectorExport.footprintRate)
    let docs = String(decoding: readFile(Paths.packageRoot + "/docs/EXPORT.md") ?? [], as: UTF8.self)
    for name in Detectors.exportable {
      let out = dir + "/" + name
      let export = try accelkit(["export", "--rule", name, "--precision", "float", "--rate", rate, "-o", out])
      #expect(export.status == 0, "\(name): \(export.stderr)")
      let stated = try #require(
        DetectorExport.footprint[name], "\(name) has no footprint in DetectorExport.footprint")
      let words = "RAM \(stated.ram) bytes, flash \(stated.flash) bytes"
      // docs/EXPORT.md's table has the detector's row with the same figures.
      #expect(
        docs.split(separator: "\n").contains {
          $0.hasPrefix("| \(name) ")
            && $0.hasSuffix("| \(thousands(stated.ram)) | \(thousands(stated.flash)) |")
        }, "docs/EXPORT.md has no row for \(name) with RAM \(stated.ram) and flash \(stated.flash)")
      let header = String(decoding: readFile(out + "/accelkit_detector.h") ?? [], as: UTF8.self)
      #expect(header.contains(" * Footprint:  on a Cortex-M4F") && header.contains(words), "\(name)")
      #expect(export.stderr.contains(words), "\(name): \(export.stderr)")
      let measured = try accelkit([], shell: "'\(Paths.packageRoot)/scripts/footprint' '\(out)'")
      try #require(measured.status == 0, "\(name): \(measured.stderr)")
      let row = measured.stdout.split(separator: "\n")[1].split(separator: ",").compactMap { Int($0) }
      let (flash, ram) = (row[0], row[3])
      #expect(
        ram <= stated.ram && Double(ram) >= 0.95 * Double(stated.ram),
        "\(name): RAM \(ram), stated \(stated.ram)")
      #expect(
        flash <= stated.flash && Double(flash) >= 0.95 * Double(stated.flash),
        "\(name): flash \(flash), stated \(stated.flash)")
      // A learned model's trees as a table: stated beside, in the table too, and held likewise.
      guard let table = DetectorExport.tableFootprint[name] else { continue }
      let tableWords = "(AK_DETECTOR_TREE_TABLE defined) RAM \(table.ram) bytes, flash \(table.flash) bytes"
      #expect(header.contains(tableWords) && export.stderr.contains(tableWords), "\(name)")
      #expect(
        docs.split(separator: "\n").contains {
          $0.hasPrefix("| \(name), trees as a table (`-DAK_DETECTOR_TREE_TABLE`) ")
            && $0.hasSuffix("| \(thousands(table.ram)) | \(thousands(table.flash)) |")
        }, "docs/EXPORT.md has no row for \(name)'s table with RAM \(table.ram) and flash \(table.flash)")
      let tabled = try accelkit(
        [], shell: "'\(Paths.packageRoot)/scripts/footprint' '\(out)' AK_DETECTOR_TREE_TABLE")
      try #require(tabled.status == 0, "\(name): \(tabled.stderr)")
      let tableRow = tabled.stdout.split(separator: "\n")[1].split(separator: ",").compactMap { Int($0) }
      #expect(
        tableRow[3] <= table.ram && Double(tableRow[3]) >= 0.95 * Double(table.ram),
        "\(name) as a table: RAM \(tableRow[3]), stated \(table.ram)")
      #expect(
        tableRow[0] <= table.flash && Double(tableRow[0]) >= 0.95 * Double(table.flash),
        "\(name) as a table: flash \(tableRow[0]), stated \(table.flash)")
      // Less flash than as code, or the table is not worth its walk.
      #expect(tableRow[0] < flash * 3 / 4, "\(name): \(tableRow[0]) against \(flash)")
    }
    // Another setting is not what the table measured: the header says how to measure it.
    let other = try accelkit([
      "export", "--rule", "swing", "--param", "swing_g=1.5", "--precision", "float", "-o", dir + "/o",
    ])
    #expect(
      other.stderr.contains(
        "scripts/footprint DIR measures this header, scripts/device_time DIR its time a sample"),
      "\(other.stderr)")
  }

  /// Every detector of the registry, exported in float with its defaults, built for a Cortex-M4F
  /// and run instruction by instruction on datasets/test/000.csv (scripts/device_time): it ends
  /// the events detect-shakes ends there, and its cycles a sample, on average and at most, are
  /// within what the header, export and docs/EXPORT.md state (DetectorExport.deviceCycles) and
  /// not more than 5% below.
  @Test func deviceTimeIsWhatTheHeadersSay() throws {
    try #require(
      Tools.path("arm-none-eabi-gcc") != nil,
      Comment(
        rawValue: Tools.missing("arm-none-eabi-gcc", package: "gcc-arm-none-eabi and libnewlib-arm-none-eabi")
      ))
    try #require(
      Tools.path("qemu-arm") != nil, Comment(rawValue: Tools.missing("qemu-arm", package: "qemu-user")))
    let dir = Paths.temporaryDirectory()
    let trace = Paths.packageRoot + "/datasets/test/000.csv"
    let docs = String(decoding: readFile(Paths.packageRoot + "/docs/EXPORT.md") ?? [], as: UTF8.self)
    for name in Detectors.exportable {
      let out = dir + "/" + name
      let export = try accelkit([
        "export", "--rule", name, "--precision", "float", "--rate", "100", "-o", out,
      ])
      #expect(export.status == 0, "\(name): \(export.stderr)")
      let stated = try #require(
        DetectorExport.deviceCycles[name], "\(name) has no time in DetectorExport.deviceCycles")
      let words = "a sample (100 Hz) takes \(stated.mean) cycles on average, \(stated.worst) at most"
      let header = String(decoding: readFile(out + "/accelkit_detector.h") ?? [], as: UTF8.self)
      #expect(header.contains(words) && export.stderr.contains(words), "\(name): \(export.stderr)")
      #expect(
        docs.split(separator: "\n").contains {
          $0.hasPrefix("| \(name) ")
            && $0.hasSuffix("| \(thousands(stated.mean)) | \(thousands(stated.worst)) |")
        }, "docs/EXPORT.md has no row for \(name) with \(stated.mean) and \(stated.worst) cycles")
      let measured = try accelkit([], shell: "'\(Paths.packageRoot)/scripts/device_time' '\(out)' '\(trace)'")
      try #require(measured.status == 0, "\(name): \(measured.stderr)")
      let row = measured.stdout.split(separator: "\n")[1].split(separator: ",").map(String.init)
      let (events, mean, worst) = (Int(row[1]), Int(row[3]) ?? -1, Int(row[4]) ?? -1)
      let detected = try accelkit(["detect-shakes", "--rule", name, "--rate", "100", trace])
      #expect(events == detected.stdout.split(separator: "\n").count - 1, "\(name): \(row[1]) events")
      #expect(
        mean <= stated.mean && Double(mean) >= 0.95 * Double(stated.mean),
        "\(name): \(mean) cycles a sample, stated \(stated.mean)")
      #expect(
        worst <= stated.worst && Double(worst) >= 0.95 * Double(stated.worst),
        "\(name): \(worst) cycles at most, stated \(stated.worst)")
    }
    // The cycles, worked by hand: two stand-in headers whose push runs only the instructions
    // given: a nop (1 cycle); a square root and a division in the FPU (14 cycles each on the
    // Cortex-M4), a load (2), a branch (1 and 2 for the refill) and the nop.
    func standIn(_ name: String, _ instructions: String) throws -> [Int] {
      let header = """
        typedef float ak_detector_real;
        typedef struct { int unused; } ak_detector_state;
        typedef struct { ak_detector_real start, end, reported; } ak_detector_event;
        static inline void ak_detector_init(ak_detector_state *s) { s->unused = 0; }
        static inline int ak_detector_push(ak_detector_state *s, ak_detector_real t, ak_detector_real x,
                                           ak_detector_real y, ak_detector_real z, ak_detector_event *e) {
          (void)s; (void)t; (void)x; (void)y; (void)z; (void)e;
          __asm__ volatile(\(instructions) ::: "r3", "s15", "memory");
          return 0;
        }
        static inline int ak_detector_next(ak_detector_state *s, ak_detector_event *e) { (void)s; (void)e; return 0; }
        static inline int ak_detector_finish(ak_detector_state *s, ak_detector_event *e) { (void)s; (void)e; return 0; }

        """
      try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
      writeFile(dir + "/" + name + "/accelkit_detector.h", header)
      let run = try accelkit(
        [], shell: "'\(Paths.packageRoot)/scripts/device_time' '\(dir)/\(name)' '\(trace)' --samples 50")
      try #require(run.status == 0, "\(name): \(run.stderr)")
      return run.stdout.split(separator: "\n")[1].split(separator: ",").compactMap { Int($0) }
    }
    let nop = try standIn("nop", #""nop""#)
    let more = try standIn(
      "more", #""vsqrt.f32 s15, s15\n vdiv.f32 s15, s15, s15\n ldr r3, [sp]\n b.w 1f\n 1: nop""#)
    // The loop, the mark and the empty push's arguments are taken off: the nop is all that is left.
    #expect(nop == [50, 0, 1, 1, 1], "\(nop)")
    #expect(more == [50, 0, 5, 34, 34], "\(more)")
    // Bad samples name their file, line and column; a directory without a header is unreadable.
    writeFile(dir + "/bad.csv", "t,x,y,z\n0,0,0,-1\n0.01,0,x1,-1\n")
    let bad = try accelkit(
      [], shell: "'\(Paths.packageRoot)/scripts/device_time' '\(dir)/nop' '\(dir)/bad.csv'")
    #expect(bad.status == 65 && bad.stderr.contains("\(dir)/bad.csv:3:8: not a number"), "\(bad.stderr)")
    let none = try accelkit([], shell: "'\(Paths.packageRoot)/scripts/device_time' '\(dir)/nowhere'")
    #expect(none.status == 66 && none.stderr.contains("no accelkit_detector.h"), "\(none.stderr)")
  }

  /// train --ram 4KiB --flash 32KiB: the model it writes, exported in float and built for the
  /// Cortex-M4F, fits both, and its estimate is an upper bound within 10% of what is measured;
  /// train says what the budget chose and shows the unbudgeted model's held-out figures beside;
  /// a RAM no model fits is refused with what the smallest needs. With exponential features too
  /// (their estimate is within 15%: it is calibrated on fewer models), and with attitude, shape
  /// and swing features;
  /// and with `--trees table`, the trees budgeted and built as a table (AK_DETECTOR_TREE_TABLE).
  @Test(arguments: [
    (false, false, false), (true, false, false), (true, true, false), (false, false, true),
    (true, false, true),
  ])
  func aBudgetedModelFitsItsBudget(exponential: Bool, attitude: Bool, table: Bool) throws {
    try #require(
      Tools.path("arm-none-eabi-gcc") != nil,
      Comment(
        rawValue: Tools.missing("arm-none-eabi-gcc", package: "gcc-arm-none-eabi and libnewlib-arm-none-eabi")
      ))
    let dir = Paths.temporaryDirectory()
    let kind =
      (exponential ? ["--exponential"] : []) + (attitude ? ["--attitude", "--shape", "--swing"] : [])
    let form = table ? ["--trees", "table"] : []
    let train = try accelkit(
      [
        "train", Paths.packageRoot + "/datasets/train", "--label", "shake", "--ram", "4KiB", "--flash",
        "32KiB",
        "--quiet",
        "-o", dir + "/m",
      ] + kind + form)
    try #require(train.status == 0, "\(train.stderr)")
    #expect(
      train.stdout.contains(
        "budget (RAM <= 4096, flash <= 32768 bytes on a Cortex-M4F in float\(table ? ", trees as a table" : ""))"
      ),
      "\(train.stdout)")
    #expect(train.stdout.contains("shake unbudgeted: f1 "), "\(train.stdout)")
    let extras = attitude ? " with attitude, shape and swing features" : ""
    #expect(
      train.stdout.contains(exponential ? "exponential widths of 1, 4 s\(extras)" : "windows of "),
      "\(train.stdout)")
    let description = String(decoding: readFile(dir + "/m/detector.json") ?? [], as: UTF8.self)
    let estimate = try #require(
      description.split(separator: "\n").first { $0.contains("\"budget\"") }.map { line in
        line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
      })
    // ram, flash, estimated_ram, estimated_flash
    #expect(estimate.count == 4 && estimate[0] == 4096 && estimate[1] == 32768, "\(estimate)")
    let export = try accelkit([
      "export", "--model", dir + "/m", "--precision", "float", "--rate", "50", "-o", dir + "/e",
    ])
    try #require(export.status == 0, "\(export.stderr)")
    #expect(description.contains("\"trees\": \"table\"") == table)
    let measured = try accelkit(
      [],
      shell: "'\(Paths.packageRoot)/scripts/footprint' '\(dir)/e'\(table ? " AK_DETECTOR_TREE_TABLE" : "")")
    try #require(measured.status == 0, "\(measured.stderr)")
    let row = measured.stdout.split(separator: "\n")[1].split(separator: ",").compactMap { Int($0) }
    let (flash, ram) = (row[0], row[3])
    #expect(ram <= 4096 && flash <= 32768, "RAM \(ram), flash \(flash)")
    let within = exponential ? 0.85 : 0.9
    #expect(
      ram <= estimate[2] && Double(ram) >= within * Double(estimate[2]),
      "RAM \(ram), estimated \(estimate[2])")
    #expect(
      flash <= estimate[3] && Double(flash) >= within * Double(estimate[3]),
      "flash \(flash), estimated \(estimate[3])")
    let tiny = try accelkit(
      [
        "train", Paths.packageRoot + "/datasets/train", "--label", "shake", "--ram", "1KiB", "--quiet", "-o",
        dir + "/x",
      ] + kind)
    #expect(
      tiny.status == 64 && tiny.stderr.contains("no feature set fits 1024 bytes of RAM"), "\(tiny.stderr)")
    let bad = try accelkit([
      "train", Paths.packageRoot + "/datasets/train", "--label", "shake", "--flash", "lots", "-o", dir + "/x",
    ])
    #expect(bad.status == 64 && bad.stderr.contains("4KiB"), "\(bad.stderr)")
    let formless = try accelkit([
      "train", Paths.packageRoot + "/datasets/train", "--label", "shake", "--trees", "table", "-o",
      dir + "/x",
    ])
    #expect(formless.status == 64 && formless.stderr.contains("give --flash"), "\(formless.stderr)")
    #expect(!fileExists(dir + "/x"))
  }

  @Test func floatLossIsWhatTheHeadersSay() throws {
    let dir = Paths.temporaryDirectory()
    let test = Paths.packageRoot + "/datasets/test"
    let names = try Self.testTraces()
    let traces = try Self.plainCopies(names, in: dir)
    let manifest = String(decoding: readFile(test + "/manifest.csv") ?? [], as: UTF8.self).split(
      separator: "\n")
    let allEvents = manifest.dropFirst().map { "\(test)/\($0.split(separator: ",")[1])" }
    // The traces with a gyroscope, for gravity from the fused attitude (push_gyro).
    let withGyroscope = Set(try Self.gyroscopeTraces())
    let gyroscopeIndices = names.indices.filter { withGyroscope.contains(names[$0]) }
    let gyroscopeCopies = try Self.plainCopies(gyroscopeIndices.map { names[$0] }, in: dir, gyroscope: true)
    var report = ""
    let runs =
      Self.detectors.map { (rule: $0, params: [String](), gyroscope: false) } + [
        (rule: "swing", params: ["gyro=1"], gyroscope: true),
        (rule: "orientation-change", params: [], gyroscope: true),
      ]
    for (rule, params, gyroscope) in runs {
      let traces = gyroscope ? gyroscopeCopies : traces
      let eventsFiles = gyroscope ? gyroscopeIndices.map { allEvents[$0] } : allEvents
      var f1 = [Double?]()
      var events = [[[LabeledInterval]]]()
      let label = try #require(Detectors.named(rule)?.labels[0] ?? BuiltInModels.named(rule)?.labels[0])
      for precision in ["double", "float"] {
        // Every tree walked (the equality tests stop them early, as by default).
        _ = try Self.differences(
          rule: rule, params: params, traces: traces, in: dir, precision: precision,
          defines: ["AK_DETECTOR_ALL_TREES"])
        var total = Metrics()
        var found = [[LabeledInterval]]()
        var annotated = false
        for (i, trace) in traces.enumerated() {
          found.append(try EventsFile.read(path: trace.path + ".\(rule).c.csv"))
          let truth = try EventsFile.read(path: eventsFiles[i])
          annotated = annotated || truth.contains { $0.label == label }
          let m = Metrics.evaluate(
            detections: found[i], annotations: truth, label: label, tolerance: 0.25, includeCancelled: false,
            duration: 0
          ).0
          total.tp += m.tp
          total.fp += m.fp
          total.fn += m.fn
        }
        f1.append(annotated ? total.f1 : nil)
        events.append(found)
      }
      // Float's events against double's, as detections against annotations; and each double
      // event beside the float event nearest to it, whose start and end are both within 0.25 s of
      // its own (one to one): the largest change of a start or an end, and how many are reported
      // at another time.
      var agreement = Metrics()
      var (paired, largest, reportedElsewhere) = (0, 0.0, 0)
      for i in traces.indices {
        let m = Metrics.evaluate(
          detections: events[1][i], annotations: events[0][i], label: label, tolerance: 0.25,
          includeCancelled: true,
          duration: 0
        ).0
        agreement.tp += m.tp
        agreement.fp += m.fp
        agreement.fn += m.fn
        var left = events[1][i]
        for e in events[0][i] {
          func distance(_ f: LabeledInterval) -> Double { max(abs(f.start - e.start), abs(f.end - e.end)) }
          guard let k = left.indices.min(by: { distance(left[$0]) < distance(left[$1]) }),
            distance(left[k]) <= 0.25
          else { continue }
          let f = left.remove(at: k)
          paired += 1
          largest = max(largest, abs(f.start - e.start), abs(f.end - e.end))
          if let a = e.reported, let b = f.reported, abs(a - b) > 1e-5 { reportedElsewhere += 1 }
        }
      }
      let change = f1[0].flatMap { d in f1[1].map { $0 - d } }
      report +=
        "\(rule)\(gyroscope ? " with the gyroscope" : ""): f1 double \(f1[0].map { "\($0)" } ?? "-") float \(f1[1].map { "\($0)" } ?? "-"), "
        + "float vs double events: f1 \(agreement.f1) (\(agreement.tp + agreement.fn) double events, "
        + "\(paired) paired with float's, their starts and ends within \(largest) s, "
        + "\(reportedElsewhere) reported more than 1e-5 s apart)\n"
      let recorded = try #require(
        (gyroscope ? DetectorExport.floatCostWithGyroscope : DetectorExport.floatCost)[rule],
        "no float figure recorded for \(rule)")
      #expect(
        (recorded.f1Change == nil) == (change == nil),
        "\(rule): \(String(describing: recorded.f1Change)) \(String(describing: change))")
      if let a = recorded.f1Change, let b = change {
        #expect(abs(a - b) < 5e-5, "\(rule): recorded \(a), measured \(b)")
      }
      #expect(
        abs(recorded.agreement - agreement.f1) < 5e-5,
        "\(rule): recorded \(recorded.agreement), measured \(agreement.f1)")
    }
    print(report)
  }
}

/// `n` with a comma between thousands, as the docs' tables write it.
private func thousands(_ n: Int) -> String {
  n < 1000 ? "\(n)" : thousands(n / 1000) + cFormat(",%03d", n % 1000)
}
