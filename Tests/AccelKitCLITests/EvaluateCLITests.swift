import Foundation
import TestSupport
import Testing

/// A small dataset: one trace with a 2 g shake at 1-2.6 s (annotated), one at rest.
func makeDataset(extraManifestRow: String? = nil, events: String = "start,end,label\n1,2.6,shake\n") -> String
{
  let dir = Paths.temporaryDirectory()
  var shake = "t,x,y,z\n"
  var rest = "t,x,y,z\n"
  for i in 0..<400 {
    let t = Double(i) / 100
    let x = t >= 1 && t < 2.6 ? 2 * sin(2 * .pi * 5 * (t - 1)) : 0
    shake += "\(t),\(x),0,-1\n"
    rest += "\(t),0,0,-1\n"
  }
  writeFile(dir + "/shake.csv", shake)
  writeFile(dir + "/rest.csv", rest)
  writeFile(dir + "/shake.events.csv", events)
  writeFile(dir + "/rest.events.csv", "start,end,label\n")
  var manifest =
    "trace,events,split,notes\nshake.csv,shake.events.csv,test,x\nrest.csv,rest.events.csv,test,y\n"
  if let extraManifestRow { manifest += extraManifestRow + "\n" }
  writeFile(dir + "/manifest.csv", manifest)
  return dir
}

@Suite struct EvaluateCLITests {
  @Test func reportsAndGates() throws {
    let dataset = makeDataset()
    let out = Paths.temporaryDirectory() + "/reports"
    let result = try accelkit(["evaluate", dataset, "--rule", "three-peak", "-o", out, "--format", "csv"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("rule,params,tp,fp,fn,precision,recall,f1,"))
    #expect(result.stdout.contains("\nthree-peak,,1,0,0,1,1,1,"))
    for name in ["summary.csv", "per-trace.csv", "detections.csv"] {
      #expect(fileExists(out + "/" + name), "\(name)")
    }
    let detections = String(decoding: readFile(out + "/detections.csv")!, as: UTF8.self)
    #expect(detections.split(separator: "\n").count == 2 && detections.contains(",1,2.6\n"))
    let passing = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--fail-under", "f1=0.9,recall=0.85", "--fail-over",
      "false_alarms_per_hour=2",
    ])
    #expect(passing.status == 0)
    let failing = try accelkit(["evaluate", dataset, "--rule", "seismic", "--fail-under", "recall=0.5"])
    #expect(failing.status == 1)
    #expect(failing.stderr.hasSuffix("Gate failed: seismic: recall 0 is under 0.5\n"))
    #expect(try accelkit(["evaluate", dataset, "--fail-under", "speed=1"]).status == 64)
    // Gates that no value could pass are usage errors, before any work.
    let impossible: [([String], String)] = [
      (["--fail-under", "f1=1.5"], "--fail-under f1=1.5 can never pass: f1 is from 0 to 1"),
      (["--fail-over", "false_alarms_per_hour=-1"], "false_alarms_per_hour is at least 0"),
      (["--fail-under", "f1=0.8", "--fail-over", "f1=0.5"], "contradict each other"),
      (["--fail-under", "f1=0.3,f1=0.4"], "f1 is gated twice by --fail-under"),
    ]
    for (gates, message) in impossible {
      let r = try accelkit(["evaluate", dataset] + gates)
      #expect(r.status == 64 && r.stderr.contains(message), "\(gates): \(r.stderr)")
    }
    // Without --rule every shake detector runs (the four rules and the learned model), and the
    // table ranks them.
    let all = try accelkit(["evaluate", Paths.packageRoot + "/datasets/test", "--format", "table"])
    let ranking =
      all.stdout.split(separator: "\n").first { $0.hasPrefix("ranked by F1, then fewer false alarms: ") }
      ?? ""
    let scores = ranking.split(separator: "(").dropFirst().compactMap { Double($0.prefix { $0 != ")" }) }
    #expect(scores.count == 5 && scores == scores.sorted(by: >), "\(all.stdout)")
    // Measured values in a failed gate are rounded to 4 significant digits.
    let rounded = try accelkit([
      "evaluate", Paths.packageRoot + "/datasets/test", "--rule", "seismic", "--fail-under", "f1=0.99",
    ])
    #expect(rounded.status == 1, "\(rounded.stderr)")
    let shown = rounded.stderr.split(separator: " ").dropFirst(4).first.map(String.init) ?? ""
    #expect(
      rounded.stderr.contains("seismic: f1 \(shown) is under 0.99") && shown.filter(\.isNumber).count <= 5,
      "\(rounded.stderr)")
  }

  @Test func sweepAndBaseline() throws {
    let dataset = makeDataset()
    let out = Paths.temporaryDirectory()
    let result = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--sweep", "three-peak.peak_g=1:3:1", "-o", out,
      "--format", "csv",
    ])
    #expect(result.status == 0)
    let sweep = String(decoding: readFile(out + "/sweep.csv")!, as: UTF8.self)
    #expect(sweep.split(separator: "\n").count == 4)
    #expect(sweep.contains("three-peak,peak_g=3,1,0,0,0\n"))  // 2 g swings never reach 3 g
    #expect(result.stderr.contains("best F1 for three-peak: 1 with peak_g=1"))
    let same = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--sweep", "three-peak.peak_g=1:3:1", "--baseline",
      out + "/summary.csv", "--fail-on-regression",
    ])
    #expect(same.status == 0 && same.stderr.contains("no change"))
    let worse = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--param", "three-peak.peak_g=2.5", "--baseline",
      out + "/summary.csv", "--fail-on-regression",
    ])
    // Parameters the baseline did not run: compared with the rule's best setting in it, and said.
    #expect(
      worse.status == 1
        && worse.stderr.contains("three-peak: parameters changed from peak_g=1 to peak_g=2.5"),
      "\(worse.stderr)")
    #expect(worse.stderr.contains("f1 fell from 1 to 0"))
    let regressed = makeDataset(events: "start,end,label\n1,2.6,shake\n3.2,3.5,shake\n")
    let r = try accelkit([
      "evaluate", regressed, "--rule", "three-peak", "--sweep", "three-peak.peak_g=1:3:1", "--baseline",
      out + "/summary.csv", "--fail-on-regression",
    ])
    #expect(r.status == 1 && r.stderr.contains("f1 fell from 1 to"))
  }

  @Test func identicalWhateverTheParallelism() throws {
    let dataset = makeDataset()
    let a = Paths.temporaryDirectory()
    let b = Paths.temporaryDirectory()
    #expect(try accelkit(["evaluate", dataset, "--jobs", "1", "-o", a, "--format", "csv"]).status == 0)
    #expect(try accelkit(["evaluate", dataset, "--jobs", "2", "-o", b, "--format", "csv"]).status == 0)
    for name in ["summary.csv", "per-trace.csv", "detections.csv"] {
      #expect(readFile(a + "/" + name) == readFile(b + "/" + name))
    }
  }

  @Test func singleTraceWithLabels() throws {
    let dataset = makeDataset()
    let result = try accelkit([
      "evaluate", dataset + "/shake.csv", "--labels", dataset + "/shake.events.csv", "--rule", "three-peak",
      "--format", "json",
    ])
    #expect(result.status == 0 && result.stdout.contains("\"f1\": 1"))
  }

  /// An Audacity label track (headerless start, end, label, tab-separated; a frequency-range line
  /// starting with a backslash) is read as annotations, and a bad one names line and column.
  @Test func audacityLabelsAreAnnotations() throws {
    let dataset = makeDataset()
    writeFile(dataset + "/labels.txt", "1.000000\t2.600000\tshake\n\\\t100.0\t2000.0\n3.5\t3.5\tnote\n")
    let result = try accelkit([
      "evaluate", dataset + "/shake.csv", "--labels", dataset + "/labels.txt", "--rule", "three-peak",
      "--format", "json",
    ])
    #expect(
      result.status == 0 && result.stdout.contains("\"tp\": 1") && result.stdout.contains("\"f1\": 1"),
      "\(result.stderr)")
    writeFile(dataset + "/bad.txt", "1\t2.6\tshake\n2\tx\tshake\n")
    let bad = try accelkit([
      "evaluate", dataset + "/shake.csv", "--labels", dataset + "/bad.txt", "--rule", "three-peak",
    ])
    #expect(bad.status == 65 && bad.stderr.contains("bad.txt:2:2"), "\(bad.stderr)")
  }

  @Test func badDatasetsFailClearly() throws {
    let missing = makeDataset(extraManifestRow: "gone.csv,rest.events.csv,test,z")
    let m = try accelkit(["evaluate", missing])
    #expect(m.status == 65)
    #expect(m.stderr.contains("manifest.csv:4:1: the manifest names \"gone.csv\", which does not exist"))
    let nul = try accelkit([
      "evaluate", makeDataset(extraManifestRow: "shake.csv\u{0}.txt,rest.events.csv,test,z"),
    ])
    #expect(
      nul.status == 65 && nul.stderr.contains("manifest.csv:4:1: the trace path holds a NUL byte"),
      "\(nul.stderr)")
    // Paths leaving the dataset folder are refused (the file is not read), unless allowed.
    let elsewhere = Paths.temporaryDirectory()
    try FileManager.default.copyItem(atPath: missing + "/shake.csv", toPath: elsewhere + "/other.csv")
    for path in [
      "../" + URL(fileURLWithPath: elsewhere).lastPathComponent + "/other.csv", elsewhere + "/other.csv",
    ] {
      let escaping = makeDataset(extraManifestRow: "\(path),rest.events.csv,test,z")
      let refused = try accelkit(["evaluate", escaping])
      #expect(
        refused.status == 65 && refused.stderr.contains("which is outside the dataset folder"),
        "\(refused.stderr)")
      #expect(try accelkit(["evaluate", escaping, "--allow-outside-paths", "--format", "csv"]).status == 0)
    }
    let backwards = try accelkit(["evaluate", makeDataset(events: "start,end,label\n2,1,shake\n")])
    #expect(
      backwards.status == 65 && backwards.stderr.contains("manifest.csv:2: ")
        && backwards.stderr.contains("ends (1 s) before it starts (2 s)"))
    let outside = try accelkit(["evaluate", makeDataset(events: "start,end,label\n10,12,shake\n")])
    #expect(outside.status == 65 && outside.stderr.contains("lies outside the trace"))
    let label = try accelkit(["evaluate", makeDataset(), "--label", "shaek"])
    #expect(label.status == 65 && label.stderr.contains("no annotation has the label \"shaek\""))
    #expect(try accelkit(["evaluate", makeDataset(), "--rule", "wobble"]).status == 64)
    #expect(try accelkit(["evaluate", makeDataset(), "--param", "seismic.nope=1"]).status == 64)
  }
}

@Suite struct MainJobTests {
  /// notebooks-out holds what the README's main command writes with the current code.
  @Test func notebooksOutIsCurrent() throws {
    let out = Paths.temporaryDirectory()
    let result = try accelkit(
      [], shell: "cd '\(Paths.packageRoot)' && ACCELKIT evaluate datasets/test -o '\(out)' --format csv")
    #expect(result.status == 0, "\(result.stderr)")
    // index.html states the commit and the date it was made, so it is not committed (the README's
    // main command leaves the tree clean); every other file is, byte for byte.
    for name in ["summary.csv", "per-trace.csv", "detections.csv", "groups.csv", "dataset.sha256"] {
      let committed = readFile(Paths.packageRoot + "/notebooks-out/" + name)
      #expect(committed != nil && committed == readFile(out + "/" + name), "notebooks-out/\(name) is stale: run the README's main command")
    }
    #expect(fileExists(out + "/index.html"))
    let ignored = try accelkit([], shell: "cd '\(Paths.packageRoot)' && git check-ignore -q notebooks-out/index.html")
    #expect(ignored.status == 0, "notebooks-out/index.html is written by the main command and must stay out of git")
  }

  /// The bundled datasets are what their README's command generates.
  @Test func datasetsAreReproducible() throws {
    for name in ["train", "test"] {
      // The command is the one the dataset's README gives.
      let readme = String(
        decoding: readFile(Paths.packageRoot + "/datasets/\(name)/README.md") ?? [], as: UTF8.self)
      let line = try #require(readme.split(separator: "\n").first { $0.hasPrefix("accelkit generate ") })
      let words = line.split(separator: " ").map(String.init)
      let out = Paths.temporaryDirectory() + "/" + name
      let arguments = Array(words.dropFirst()).enumerated().map {
        $0.offset > 0 && words[$0.offset] == "-o" ? out : $0.element
      }
      let result = try accelkit(arguments)
      #expect(result.status == 0)
      for file in ["manifest.csv", "000.csv", "005.events.csv", "011.truth.csv"] {
        #expect(
          readFile(Paths.packageRoot + "/datasets/\(name)/" + file) == readFile(out + "/" + file),
          "datasets/\(name)/\(file)")
      }
    }
  }
}

@Suite struct StandardMetricsCLITests {
  /// What `accelkit evaluate datasets/test --json` reports for every rule equals what sed_eval
  /// computes from the same detections (the fixture's test-set cases; regenerate it with
  /// scripts/make_sed_eval_references.py when a rule's detections change).
  @Test func theTestSetAgreesWithSedEvalForEveryRule() throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: Paths.fixture("sed_eval/references.json")))
    let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let cases = (document["cases"] as! [[String: Any]]).filter {
      ($0["name"] as! String).hasPrefix("datasets/test ")
    }
    let json = Paths.temporaryDirectory() + "/results.json"
    let result = try accelkit(
      ["evaluate", Paths.packageRoot + "/datasets/test", "--json", json, "--format", "csv"])
    #expect(result.status == 0)
    let results = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
    let settings = results["settings"] as! [[String: Any]]
    #expect(cases.count == settings.count && cases.count >= 4)
    for c in cases {
      let rule = c["rule"] as! String
      let setting = try #require(settings.first { $0["rule"] as? String == rule }, "\(rule)")
      let metrics = setting["metrics"] as! [String: Any]
      let overall = c["overall"] as! [String: Any]
      for (name, reference) in overall {
        let ours = metrics[name] as? Double
        let theirs = reference as? Double
        if let ours, let theirs {
          #expect(abs(ours - theirs) <= 1e-12 * max(1, abs(theirs)), "\(rule) \(name): \(ours) vs \(theirs)")
        } else {
          #expect(
            ours == nil && theirs == nil,
            "\(rule) \(name): \(String(describing: ours)) vs \(String(describing: theirs))")
        }
      }
    }
  }
}

@Suite struct AnnotationImportCLITests {
  /// The same shake annotated in each tool's format evaluates the same.
  @Test func everyAnnotationFormatEvaluatesAlike() throws {
    let formats = [
      "start,end,label\n1,2.6,shake\n", "1\t2.6\tshake\n",
      "shake\t\t00:00:01.000\t1.000\t00:00:02.600\t2.600\t\n",
      #"[{"id": 1, "data": {"csv": "/data/upload/2/9f-shake.csv"}, "annotations": [{"result": [{"value": {"start": 1, "end": 2.6, "timeserieslabels": ["shake"]}}]}]}, {"id": 2, "data": {"csv": "/data/upload/2/9f-rest.csv"}, "annotations": []}]"#,
    ]
    var summaries: [String] = []
    for events in formats {
      let dataset = makeDataset(events: events)
      let result = try accelkit(["evaluate", dataset, "--rule", "three-peak", "--format", "csv"])
      #expect(result.status == 0, "\(result.stderr)")
      // The same figures; only the dataset's hash (last column) differs.
      summaries.append(
        result.stdout.split(separator: "\n").map {
          $0.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
        }
        .joined(separator: "\n"))
    }
    #expect(Set(summaries).count == 1 && summaries[0].contains("\nthree-peak,,1,0,0,"))
    // Mapped columns in milliseconds, given to evaluate.
    let mapped = makeDataset(events: "onset;offset;what\n1000;2600;shake\n")
    writeFile(mapped + "/rest.events.csv", "onset;offset;what\n")
    let result = try accelkit([
      "evaluate", mapped, "--rule", "three-peak", "--format", "csv", "--label-columns",
      "start=onset,end=offset,label=what,unit=ms",
    ])
    #expect(
      result.stdout.split(separator: "\n").map {
        $0.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",")
      }
      .joined(separator: "\n") == summaries[0], "\(result.stderr)")
  }

  @Test func labelsConvertWritesEachFormatAndNeverItsInput() throws {
    let dir = Paths.temporaryDirectory()
    writeFile(dir + "/a.csv", "start,end,label\n1.5,2.625,shake\n10,10,tap\n")
    for (name, format) in [("a.txt", "audacity"), ("a.tsv", "elan"), ("a.json", "label-studio")] {
      let out = try accelkit(["labels", "convert", dir + "/a.csv", "-o", dir + "/" + name])
      #expect(out.status == 0, "\(format): \(out.stderr)")
      let back = try accelkit(["labels", "convert", dir + "/" + name, "--labels-format", format])
      #expect(back.stdout == "start,end,label\n1.5,2.625,shake\n10,10,tap\n", "\(format)")
    }
    let same = try accelkit(["labels", "convert", dir + "/a.csv", "-o", dir + "/a.csv"])
    #expect(
      same.status != 0
        && String(decoding: readFile(dir + "/a.csv")!, as: UTF8.self).hasPrefix("start,end,label\n1.5"))
    let bad = try accelkit(["labels", "convert", dir + "/a.txt", "--labels-format", "label-studio"])
    #expect(bad.status == 65 && bad.stderr.contains("a.txt:1: not a Label Studio export"))
  }
}

@Suite struct BaselineCLITests {
  @Test func aChangedDatasetIsSeenAndStrictFailsOnIt() throws {
    let dataset = makeDataset()
    let out = Paths.temporaryDirectory()
    #expect(
      try accelkit(["evaluate", dataset, "--rule", "three-peak", "-o", out, "--format", "csv"]).status == 0)
    let listing = String(decoding: readFile(out + "/dataset.sha256")!, as: UTF8.self)
    #expect(
      listing.split(separator: "\n").map { $0.dropFirst(66) } == [
        "manifest.csv", "shake.csv", "shake.events.csv", "rest.csv", "rest.events.csv",
      ])
    let same = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--baseline", out + "/summary.csv", "--strict",
    ])
    #expect(same.status == 0 && !same.stderr.contains("differs"), "\(same.stderr)")
    // The same results from a changed file: a warning naming it; an error with --strict.
    writeFile(dataset + "/rest.csv", "t,x,y,z\n0,0,0,-1\n1,0,0,-1\n")
    let warned = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--baseline", out + "/summary.csv",
    ])
    #expect(
      warned.status == 0 && warned.stderr.contains("the dataset differs from the baseline's")
        && warned.stderr.contains("rest.csv changed"), "\(warned.stderr)")
    let strict = try accelkit([
      "evaluate", dataset, "--rule", "three-peak", "--baseline", out + "/summary.csv", "--strict",
    ])
    #expect(strict.status == 1 && strict.stderr.contains("rest.csv changed"))
    #expect(try accelkit(["evaluate", dataset, "--strict"]).status == 64)
  }

  @Test func gatedMetricsRegressBeyondTheTolerance() throws {
    let dataset = makeDataset()
    let out = Paths.temporaryDirectory()
    #expect(
      try accelkit(["evaluate", dataset, "--rule", "three-peak", "-o", out, "--format", "csv"]).status == 0)
    // The shake annotated 0.3 s later: still found (F1 by overlap stays 1), but its onset is now
    // outside the 0.2 s collar, so the onset F1 falls from 1 to 0.
    writeFile(dataset + "/shake.events.csv", "start,end,label\n1.3,2.6,shake\n")
    let base = [
      "evaluate", dataset, "--rule", "three-peak", "--baseline", out + "/summary.csv", "--fail-on-regression",
    ]
    let ungated = try accelkit(base)
    let gated = try accelkit(base + ["--fail-under", "event_onset_f1=0"])
    let tolerated = try accelkit(base + ["--fail-under", "event_onset_f1=0", "--regression-tolerance", "1"])
    #expect(ungated.status == 0, "\(ungated.stderr)")
    #expect(gated.status == 1 && gated.stderr.contains("event_onset_f1 fell from 1 to 0"), "\(gated.stderr)")
    #expect(tolerated.status == 0, "\(tolerated.stderr)")
  }
}

@Suite struct ProgressCLITests {
  /// On a terminal (a pseudo-terminal made by `script`), evaluate and tune draw a progress line on
  /// stderr and clear it; with --quiet, or when stderr is not a terminal, nothing.
  @Test func aProgressLineOnlyOnATerminal() throws {
    try #require(try accelkit([], shell: "command -v script").status == 0, "script (util-linux) is needed")
    let dataset = Paths.packageRoot + "/datasets/test"
    let shown = try accelkit([], shell: "script -qc \"ACCELKIT evaluate '\(dataset)' --format csv >/dev/null\" /dev/null")
    #expect(shown.stdout.contains("traces: 68/68 (100% of ") && shown.stdout.contains(" rows/s") && shown.stdout.hasSuffix("\r\u{1B}[K"), "\(shown.stdout)")
    let tuned = try accelkit(
      [], shell: "script -qc \"ACCELKIT tune '\(dataset)' --rule three-peak --trials 4 >/dev/null\" /dev/null")
    #expect(tuned.stdout.contains("trials 1-"), "\(tuned.stdout)")
    let quiet = try accelkit([], shell: "script -qc \"ACCELKIT evaluate '\(dataset)' --format csv --quiet >/dev/null\" /dev/null")
    #expect(!quiet.stdout.contains("rows/s"))
    let detected = try accelkit(
      [], shell: "script -qc \"ACCELKIT detect-shakes --rule swing '\(dataset)/000.csv' '\(dataset)/001.csv' >/dev/null\" /dev/null")
    #expect(detected.stdout.contains("traces: 2/2, "), "\(detected.stdout)")
    let piped = try accelkit(["evaluate", dataset, "--format", "csv"])
    #expect(!piped.stderr.contains("rows/s"))
  }

  /// One large trace: the line advances with the bytes read within it, with the time left.
  @Test func progressAdvancesWithinALargeTrace() throws {
    let dir = Paths.temporaryDirectory()
    let made = try accelkit(
      [], shell: "awk 'BEGIN { print \"t,x,y,z\"; for (i = 0; i < 1500000; i++) printf \"%.2f,0.01,0.02,-1\\n\", i / 100 }' > '\(dir)/long.csv'")
    #expect(made.status == 0)
    writeFile(dir + "/long.events.csv", "start,end,label\n")
    writeFile(dir + "/manifest.csv", "trace,events\nlong.csv,long.events.csv\n")
    let run = try accelkit(
      [], shell: "script -qc \"ACCELKIT evaluate '\(dir)' --rule seismic --format csv >/dev/null\" /dev/null")
    let partial = run.stdout.components(separatedBy: "\r").filter { $0.hasPrefix("traces: 0/1 (") }
    // Every line within the trace says how far it got in its bytes; once some are read, the time left.
    let percents = partial.compactMap { line -> Int? in
      guard let open = line.firstIndex(of: "("), let sign = line.firstIndex(of: "%") else { return nil }
      return Int(line[line.index(after: open)..<sign])
    }
    #expect(percents.count == partial.count && partial.allSatisfy { $0.contains("% of 32 MB)") }, "\(run.stdout)")
    #expect(
      partial.contains { $0.hasSuffix(" left\u{1B}[K") } && percents.contains { $0 > 0 && $0 < 100 }, "\(run.stdout)")
  }
}
