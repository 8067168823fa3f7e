import AccelCore
import AccelGestures
import AccelIO
import AccelPlot

/// What an evaluation runs: the rule settings (each rule with its `RULE.NAME=VALUE` values, or
/// the grid of its `RULE.NAME=FROM:TO:STEP` sweeps), parsed and checked once.
public struct EvaluationPlan: Sendable {
  public let settings: [RuleSetting]
  /// Grid points a rule refused (a constraint between parameters), per rule.
  public let skipped: [(rule: String, count: Int)]
  public let sweeping: Bool

  /// - Parameters:
  ///   - rules: the rules to evaluate (empty: every rule that emits one of `labels`).
  ///   - labels: the labels the dataset annotates, for the default choice of rules.
  ///   - parameters: `RULE.NAME=VALUE` items.
  ///   - sweeps: `RULE.NAME=FROM:TO:STEP` items (a rule swept but not in `rules` is added).
  ///   - models: learned models' directories, evaluated after the rules; `model.NAME=VALUE` and
  ///     `model.NAME=FROM:TO:STEP` set and sweep their decoding.
  ///   - recorded: detections made elsewhere (`RecordedDetections`), scored after the models.
  public init(
    rules: [String], labels: Set<String> = ["shake"], parameters: [String], sweeps: [String],
    models: [String] = [],
    recorded: [RuleSetting] = []
  ) throws {
    for r in rules where !Detectors.isDetector(r) { throw Detectors.unknown(r) }
    func known(_ rule: String) -> Bool {
      Detectors.isDetector(rule) || (rule == Self.modelOwner && !models.isEmpty)
    }
    // Without --rule: every detector of the labels, unless models or recorded detections are
    // given (then only they run).
    var chosen = rules
    if rules.isEmpty, models.isEmpty, recorded.isEmpty {
      chosen = Detectors.names.filter { name in labels.contains { Detectors.namesEmitting($0).contains(name) }
      }
    }
    // With one detector running, NAME=VALUE names its parameter (as detect-shakes takes it).
    let owners = Set(chosen + (models.isEmpty ? [] : [Self.modelOwner]))
    let single = owners.count == 1 ? owners.first : nil
    func qualified(_ item: String) -> String {
      guard let single, let eq = item.firstIndex(of: "="), !item[..<eq].contains(".") else { return item }
      return single + "." + item
    }
    let form = single.map { "NAME or \($0).NAME" } ?? "RULE.NAME"
    let hint = single == nil ? "several detectors run: name the rule (or choose one with --rule)" : nil
    var fixed: [String: [(String, Double)]] = [:]
    for item in parameters.map(qualified) {
      guard let eq = item.firstIndex(of: "="), let dot = item[..<eq].firstIndex(of: "."),
        let value = Double(item[item.index(after: eq)...].trimmingBlanks())
      else {
        throw AccelError.usage(
          "--param expects \(form)=VALUE, got \"\(item)\"", hint: hint)
      }
      let rule = String(item[..<dot])
      guard known(rule) else {
        throw AccelError.usage("--param \(item): unknown rule \"\(rule)\"")
      }
      fixed[rule, default: []].append((String(item[item.index(after: dot)..<eq]), value))
    }
    var grids: [String: [(String, [Double])]] = [:]
    for item in sweeps.map(qualified) {
      guard let eq = item.firstIndex(of: "="), let dot = item[..<eq].firstIndex(of: ".") else {
        throw AccelError.usage(
          "--sweep expects \(form)=FROM:TO:STEP, got \"\(item)\"", hint: hint)
      }
      let rule = String(item[..<dot])
      let name = String(item[item.index(after: dot)..<eq])
      let range = item[item.index(after: eq)...].split(separator: ":").compactMap { Double($0) }
      guard range.count == 3, range[2] > 0, range[1] >= range[0], range.allSatisfy(\.isFinite) else {
        throw AccelError.usage("--sweep \(item): expected FROM:TO:STEP with FROM <= TO and STEP > 0")
      }
      let points = (range[1] - range[0]) / range[2]
      guard points < Double(Self.maximumGridPoints) else {
        throw AccelError.usage(
          "--sweep \(item) has \(formatNumber(points.rounded(.down) + 1)) points; at most \(Self.maximumGridPoints) per parameter",
          hint: "use a larger STEP")
      }
      var values: [Double] = []
      var k = 0
      while true {
        let v = range[0] + Double(k) * range[2]
        if v > range[1] + range[2] * 1e-9 { break }
        values.append((v * 1e12).rounded() / 1e12)
        k += 1
      }
      guard known(rule) else {
        throw AccelError.usage("--sweep \(item): unknown rule \"\(rule)\"")
      }
      grids[rule, default: []].append((name, values))
    }
    var total = 1
    for grid in grids.values {
      for (_, values) in grid { total = total.multipliedReportingOverflow(by: values.count).partialValue }
    }
    guard total <= Self.maximumSettings else {
      throw AccelError.usage(
        "the sweeps make \(total) settings; at most \(Self.maximumSettings)",
        hint: "sweep fewer parameters, or with larger steps")
    }
    var settings: [RuleSetting] = []
    var skipped: [(String, Int)] = []
    let swept = grids.keys.filter { !chosen.contains($0) && $0 != Self.modelOwner }.sorted()
    for (rule, directory) in (chosen + swept).map({ ($0, String?.none) })
      + models.map({ (Self.modelOwner, $0) })
    {
      let base = fixed[rule] ?? []
      var combos: [[(String, Double)]] = [base]
      for (name, values) in grids[rule] ?? [] {
        combos = combos.flatMap { c in values.map { v in c + [(name, v)] } }
      }
      var refused = 0
      for c in combos {
        let setting =
          try directory.map { try RuleSetting.model(directory: $0, assignments: c) }
          ?? RuleSetting(rule: rule, assignments: c)
        if grids[rule] != nil {
          // A grid may cross a rule's own constraints (angular-change needs end <= begin): skip those.
          guard (try? setting.detector(rate: 100)) != nil else {
            refused += 1
            continue
          }
        } else {
          _ = try setting.detector(rate: 100)
        }
        settings.append(setting)
      }
      if refused > 0 { skipped.append((rule, refused)) }
    }
    for r in recorded {
      guard !settings.contains(r) else {
        throw AccelError.usage("\(r.description) is given twice", hint: "give each detections file once")
      }
      settings.append(r)
    }
    self.settings = settings
    self.skipped = skipped
    sweeping = !sweeps.isEmpty
  }

  /// What `--param` and `--sweep` call the learned models: `model.on=0.6`.
  public static let modelOwner = "model"

  /// The plan for a dataset whose annotations use the labels `annotated`: without `rules`, the
  /// rules that emit `label` (when given) or the annotated labels, and the shake rules when no
  /// rule emits them.
  public init(
    rules: [String], label: String?, annotated: Set<String>, parameters: [String], sweeps: [String],
    models: [String] = [], recorded: [RuleSetting] = []
  ) throws {
    let wanted = label.map { [$0] } ?? (annotated.isEmpty ? ["shake"] : annotated)
    let emitted = wanted.contains { !Detectors.emitting($0).isEmpty } ? wanted : ["shake"]
    try self.init(
      rules: rules, labels: emitted, parameters: parameters, sweeps: sweeps, models: models,
      recorded: recorded)
  }

  /// Checks that the annotations (of `file`, with the labels `annotated`) have the label each
  /// setting is matched with (`label`, else the rule's own); a dataset without annotations passes.
  public func requireAnnotations(of annotated: Set<String>, label: String?, file: String) throws {
    guard !annotated.isEmpty else { return }
    let wanted = label.map { [$0] } ?? Array(Set(settings.map { $0.labels[0] })).sorted()
    if let missing = wanted.first(where: { !annotated.contains($0) }) {
      throw AccelError.data(
        DataLocation(file: file), "no annotation has the label \"\(missing)\"",
        hint: "the labels are \(annotated.sorted().joined(separator: ", ")); choose one with --label")
    }
  }

  /// Grid points allowed per swept parameter, and settings in all.
  public static let maximumGridPoints = 10_000
  public static let maximumSettings = 100_000
}

/// A CI gate: a metric and the bound it must not cross.
public struct Gate: Sendable, Equatable {
  public enum Kind: Sendable { case under, over }
  public let metric: String
  public let limit: Double
  public let kind: Kind

  /// The metrics gates take.
  public static let metrics =
    [
      "precision", "recall", "f1", "false_alarms_per_hour", "mean_onset_error_s", "median_onset_error_s",
      "median_delay_s",
    ] + EvaluationReport.standardColumns

  /// Parses `f1=0.9,recall=0.85` (for `--fail-under` or `--fail-over`).
  public static func parse(_ text: String?, kind: Kind) throws -> [Gate] {
    guard let text else { return [] }
    return try text.split(separator: ",").map { part in
      let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks() }
      guard pieces.count == 2, let value = Double(pieces[1]), value.isFinite else {
        throw AccelError.usage("gates are METRIC=VALUE pairs, got \"\(part)\"")
      }
      guard metrics.contains(pieces[0]) else {
        throw AccelError.usage(
          "unknown metric \"\(pieces[0])\"; gates take \(metrics.joined(separator: ", "))")
      }
      let range = Self.range(of: pieces[0])
      guard range.contains(value) else {
        let option = kind == .under ? "--fail-under" : "--fail-over"
        let bounds = range.upperBound.isFinite ? "from 0 to 1" : "at least 0"
        throw AccelError.usage(
          "\(option) \(pieces[0])=\(pieces[1]) can never pass: \(pieces[0]) is \(bounds)")
      }
      return Gate(metric: pieces[0], limit: value, kind: kind)
    }
  }

  /// The values a metric can take: precision, recall and F1 are fractions, the others are rates
  /// and times.
  public static func range(of metric: String) -> ClosedRange<Double> {
    ["precision", "recall", "f1"].contains(metric) || metric.hasSuffix("_precision")
      || metric.hasSuffix("_recall")
      || metric.contains("_f1") ? 0...1 : 0...Double.infinity
  }

  /// Both kinds of gates together: refuses a metric gated twice the same way, and a lower bound
  /// above the upper bound of the same metric (no value could pass).
  public static func parse(failUnder: String?, failOver: String?) throws -> [Gate] {
    let under = try parse(failUnder, kind: .under)
    let over = try parse(failOver, kind: .over)
    for list in [under, over] {
      var seen: Set<String> = []
      for gate in list where !seen.insert(gate.metric).inserted {
        throw AccelError.usage(
          "\(gate.metric) is gated twice by \(gate.kind == .under ? "--fail-under" : "--fail-over")")
      }
    }
    for low in under {
      for high in over where high.metric == low.metric && low.limit > high.limit {
        throw AccelError.usage(
          "--fail-under \(low.metric)=\(formatNumber(low.limit)) and --fail-over \(high.metric)=\(formatNumber(high.limit)) contradict each other: no value passes both"
        )
      }
    }
    return under + over
  }

  /// Every gate checked on every setting in `indices` (indices into the report), in that order.
  public static func outcomes(_ gates: [Gate], report: EvaluationReport, settings indices: [Int])
    -> [GateOutcome]
  {
    indices.flatMap { i in
      gates.map { gate -> GateOutcome in
        // An undefined value (no detections for a precision, no annotations for a recall) fails:
        // a gate that cannot be checked must not pass unseen.
        let v = EvaluationReport.value(gate.metric, report.summary[i]) ?? .nan
        let passed = v.isNaN ? false : gate.kind == .under ? !(v < gate.limit) : !(v > gate.limit)
        return GateOutcome(setting: i, gate: gate, value: v, passed: passed)
      }
    }
  }

  /// The failures of `settings` (indices into the report) against `gates`, one line each.
  public static func failures(_ gates: [Gate], report: EvaluationReport, settings indices: [Int]) -> [String]
  {
    outcomes(gates, report: report, settings: indices).filter { !$0.passed }.map { $0.message(report) }
  }

  /// `f1 >= 0.9` (the condition that passes).
  public var condition: String { "\(metric) \(kind == .under ? ">=" : "<=") \(formatNumber(limit))" }
}

/// A gate checked on one setting.
public struct GateOutcome: Sendable {
  /// The setting's index in the report.
  public var setting: Int
  public var gate: Gate
  /// The measured value (full precision).
  public var value: Double
  public var passed: Bool

  /// The one-line reason of a failure (the value to 4 significant digits).
  public func message(_ report: EvaluationReport) -> String {
    if value.isNaN {
      return
        "\(report.settings[setting]): \(gate.metric) is undefined (nothing detected or nothing annotated)"
    }
    return
      "\(report.settings[setting]): \(gate.metric) \(cFormat("%.4g", value)) is \(gate.kind == .under ? "under" : "over") \(formatNumber(gate.limit))"
  }
}

/// One trace to evaluate with its annotations and the settings to read it with.
public struct EvaluationJob: Sendable {
  public var trace: String
  public var events: String
  public var readSettings: TraceReadSettings
  /// The manifest row, for messages.
  public var location: DataLocation?
  /// The manifest's `source` and `position` of the trace, for the per-group figures.
  public var group = TraceGroup()

  /// The jobs of a dataset (a folder with manifest.csv, or a manifest), or one trace with its
  /// `labels`. A manifest row's preset, rate, units and convention apply over `options` (the
  /// options given win over the preset; the row wins over both).
  public static func jobs(
    dataset: String, labels: String?, options: TraceReadOptions, allowOutsidePaths: Bool = false
  ) throws -> [EvaluationJob] {
    if let labels {
      return [
        EvaluationJob(trace: dataset, events: labels, readSettings: try options.settings(), location: nil)
      ]
    }
    let entries = try Manifest.read(dataset: dataset, allowOutsidePaths: allowOutsidePaths)
    let manifestPath = dataset.hasSuffix(".csv") ? dataset : dataset + "/manifest.csv"
    return try entries.map { entry in
      let location = DataLocation(file: manifestPath, line: entry.line)
      var o = options
      if let name = entry.preset {
        guard Preset.named(name) != nil else {
          throw AccelError.data(location, "unknown preset \"\(name)\"", hint: "see `accelkit presets`")
        }
        o.preset = name
      }
      var s = try o.settings()
      if let r = entry.rate { s.rate = r }
      if let u = entry.units {
        guard let v = UnitsSetting(name: u) else { throw AccelError.data(location, "unknown units \"\(u)\"") }
        s.units = v
      }
      if let c = entry.convention {
        guard let v = AxisConvention(rawValue: c) else {
          throw AccelError.data(location, "unknown convention \"\(c)\"")
        }
        s.convention = v
      }
      var job = EvaluationJob(trace: entry.trace, events: entry.events, readSettings: s, location: location)
      job.group = TraceGroup(source: entry.source, position: entry.position, activity: entry.activity)
      return job
    }
  }

  /// The annotations of this job; errors in the events file are reported with the manifest row.
  public func annotations(_ options: AnnotationReadOptions = .init()) throws -> [LabeledInterval] {
    do {
      return try EventsFile.read(path: events, options: options, trace: trace)
    } catch let error as AccelError {
      if let location, case .data(let inner, let text, let hint) = error {
        throw AccelError.data(location, "\(inner.description): \(text)", hint: hint)
      }
      throw error
    }
  }
}
