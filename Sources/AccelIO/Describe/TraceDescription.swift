import AccelCore

/// What `accelkit info` reports about one trace: timing, each sensor group's ranges, the units
/// and convention it was read in, the recorder it was recognised as, and warnings about likely
/// mistakes (wrong units, clipping, a gyroscope in deg/s read as rad/s, a magnetometer field
/// outside the Earth's range, jitter, gaps).
public struct TraceDescription: Sendable {
  public var name: String
  public var summary: TraceSummary
  public var metadata: TraceMetadata
  public var warnings: [String]
  /// Where the time stamps first fail to advance, when they do (also among `warnings`).
  public var timeOrderWarning: String?
  /// Rows skipped with `--skip-bad-rows`, and the first one's error.
  public var skippedRows: Int
  public var firstSkippedError: AccelError?

  /// Reads the trace at `path` to its end and describes it. Memory is bounded whatever its length.
  public static func make(path: String, settings: TraceReadSettings) throws -> TraceDescription {
    let (source, _) = try TraceOpener.open(path: path, settings: settings)
    // The statistics of each block are taken on a background thread while the reader parses the
    // next: the same operations in the same order as on one thread, so the same numbers.
    var summary = TraceSummary()
    try BackgroundStage<SampleBlock>(depth: 2) { summary.add($0) }.consume(source.next)
    let skips = source as? SkipReporting
    // Where the times first fail to advance comes from the reader, which knows the line.
    var timeOrderWarning: String? = nil
    if let order = skips?.timeOrder, order.policy == .report, let first = order.firstError {
      timeOrderWarning =
        "\(order.count) time stamp\(order.count == 1 ? " does" : "s do") not advance; the first: \(first.message)"
        + " (every other command stops there; --skip-bad-rows drops such rows)"
    }
    return TraceDescription(
      name: source.metadata.name, summary: summary, metadata: source.metadata,
      warnings: warnings(summary, source.metadata) + (timeOrderWarning.map { [$0] } ?? []),
      timeOrderWarning: timeOrderWarning, skippedRows: skips?.skippedRows ?? 0,
      firstSkippedError: skips?.firstSkippedError)
  }

  /// The Earth's field is 25-65 µT at the surface; a norm outside 20-70 µT is a disturbance, an
  /// uncalibrated sensor or a wrong unit.
  public static let plausibleMagneticField = 20.0...70.0
  /// No hand or vehicle turns a phone or an IMU at 35 rad/s (2000 deg/s, the largest common
  /// gyroscope range); such rates are deg/s read as rad/s.
  public static let implausibleAngularRate = 35.0

  public static func warnings(_ s: TraceSummary, _ metadata: TraceMetadata) -> [String] {
    var w = metadata.notes
    // Units that look wrong, an implausible rate and times that do not advance are the reader's
    // to say (its notes, in the words every command uses, and the time-order warning).
    if let jitter = s.relativeJitter, jitter > 0.05 {
      w.append(
        "sample intervals jitter by \(short(jitter * 100))% of the median: filters assume a uniform rate; "
          + "use --resample HZ")
    }
    if s.gapCount > 0, let longest = s.largestGaps.first {
      w.append(
        "\(s.gapCount) gap\(s.gapCount == 1 ? "" : "s") (intervals over 1.5x the median), the longest "
          + "\(short(longest.interval)) s at t = \(short(longest.start)) s: consider --resample HZ")
    }
    for (axis, stats) in s.accelerometer.axes {
      for (value, count) in [(stats.max, stats.countAtMax), (stats.min, stats.countAtMin)]
      where count >= 3 && abs(value) >= 1.5 {
        w.append(
          "\(axis) reaches \(short(value)) g in \(count) samples: the sensor is probably clipping at its rail"
        )
      }
    }
    if let g = s.gyroscope {
      let peak = g.axes.map { max(abs($0.stats.min), abs($0.stats.max)) }.max() ?? 0
      if peak > implausibleAngularRate && metadata.sourceGyroscopeUnits == .radiansPerSecond {
        w.append(
          "the gyroscope reaches \(short(peak)) rad/s (\(short(peak * 180 / .pi)) deg/s): its unit looks like "
            + "deg/s, not rad/s (pass --gyro-units deg/s)")
      }
      for (axis, stats) in g.axes {
        for (value, count) in [(stats.max, stats.countAtMax), (stats.min, stats.countAtMin)]
        where count >= 3 && abs(value) >= 3 {
          w.append(
            "g\(axis) reaches \(short(value)) rad/s in \(count) samples: the gyroscope is probably saturating"
          )
        }
      }
    }
    if let m = s.magnetometer, m.magnitude.count > 0, !plausibleMagneticField.contains(m.magnitude.mean) {
      w.append(
        "mean |m| is \(short(m.magnitude.mean)) uT, outside the Earth's 20-70 uT: check --mag-units, the "
          + "calibration, or magnetic disturbances")
    }
    if s.rows < 2 { w.append("the trace has fewer than 2 samples") }
    return w
  }

  static func short(_ v: Double) -> String {
    guard v.isFinite else { return "\(v)" }
    return cFormat("%.4g", v)
  }

  // MARK: - Fields

  /// Name and value of each field, in output order. Values are exact (shortest round-trip) text.
  /// The gyroscope and magnetometer fields are always there (empty when the trace lacks them), so
  /// the CSV of several traces has one header.
  public var fields: [(String, String)] {
    let s = summary
    func n(_ v: Double?) -> String { v.map { $0.isFinite ? formatNumber($0) : "" } ?? "" }
    func rounded(_ v: Double?) -> String {
      v.map { cFormat("%.9g", $0) }.flatMap { Double($0) }.map(n) ?? ""
    }
    var f: [(String, String)] = [
      ("file", name),
      ("rows", "\(s.rows)"),
      ("start_s", n(s.firstTime)),
      ("duration_s", n(s.duration)),
      ("rate_hz", rounded(s.estimatedRate)),
      ("nominal_rate_hz", n(metadata.nominalRate)),
      ("median_interval_s", rounded(s.medianInterval)),
      ("interval_std_s", rounded(s.intervalStd)),
      ("jitter_pct", rounded(s.relativeJitter.map { $0 * 100 })),
      ("gaps", "\(s.gapCount)"),
      ("longest_gap_s", n(s.largestGaps.first?.interval)),
      ("longest_gap_at_s", n(s.largestGaps.first?.start)),
      ("non_increasing", "\(s.nonIncreasing)"),
    ]
    for group in SensorGroup.allCases {
      let stats = s.stats(group)
      let prefix = group == .accelerometer ? "" : String(group.channels[0].name.first!)
      for (axis, a) in (stats ?? TraceSummary.GroupStats()).axes {
        let name = prefix + axis
        let has = stats != nil && a.count > 0
        f += [
          ("\(name)_min", n(has ? a.min : nil)), ("\(name)_max", n(has ? a.max : nil)),
          ("\(name)_mean", rounded(has ? a.mean : nil)), ("\(name)_std", rounded(has ? a.std : nil)),
          ("\(name)_at_min", stats == nil ? "" : "\(a.countAtMin)"),
          ("\(name)_at_max", stats == nil ? "" : "\(a.countAtMax)"),
        ]
      }
      let norm = stats?.magnitude
      let normName = group == .accelerometer ? "mean_norm" : "\(prefix)_mean_norm"
      f.append((normName, rounded(norm.flatMap { $0.count > 0 ? $0.mean : nil })))
      if group == .accelerometer { f.append(("nonfinite_rows", "\(s.nonFinite)")) }
    }
    f += [
      ("channels", metadata.layout.columnNames.joined(separator: " ")),
      ("units_in", metadata.sourceUnits.rawValue),
      ("gyro_units_in", metadata.sourceGyroscopeUnits?.rawValue ?? ""),
      ("mag_units_in", metadata.sourceMagnetometerUnits?.rawValue ?? ""),
      ("convention_in", metadata.sourceConvention.rawValue),
      ("recognised_as", metadata.recognisedAs ?? ""),
      ("warnings", warnings.joined(separator: "; ")),
    ]
    return f
  }

  private static let textFields: Set<String> = [
    "file", "channels", "units_in", "gyro_units_in", "mag_units_in", "convention_in", "recognised_as",
    "warnings",
  ]

  /// One header row and a row per trace.
  public static func csv(_ reports: [TraceDescription]) -> String {
    guard let first = reports.first else { return "" }
    var text = first.fields.map(\.0).joined(separator: ",") + "\n"
    for report in reports {
      text += report.fields.map { csvField($0.1) }.joined(separator: ",") + "\n"
    }
    return text
  }

  /// An array of one object per trace; numbers as numbers, missing values as null.
  public static func json(_ reports: [TraceDescription]) -> String {
    let objects = reports.map { report -> String in
      let members = report.fields.map { key, value -> String in
        let rendered: String
        if key == "warnings" {
          rendered = "[" + report.warnings.map(jsonString).joined(separator: ", ") + "]"
        } else if textFields.contains(key) {
          rendered = value.isEmpty && key != "file" ? "null" : jsonString(value)
        } else {
          // A number that overflowed (times near the largest Double) has no JSON form: null.
          rendered = value.isEmpty || Double(value).map({ !$0.isFinite }) == true ? "null" : value
        }
        return "    \(jsonString(key)): \(rendered)"
      }
      return "  {\n" + members.joined(separator: ",\n") + "\n  }"
    }
    return "[\n" + objects.joined(separator: ",\n") + "\n]\n"
  }

  /// The text for people.
  public var table: String {
    let s = summary
    var lines: [String] = [name]
    func row(_ label: String, _ value: String) { lines.append("  " + label.padded(to: 12) + value) }
    func axisLine(_ a: TraceSummary.AxisStats) -> String {
      guard a.count > 0 else { return "no finite values" }
      return "min \(Self.short(a.min))  max \(Self.short(a.max))  mean \(Self.short(a.mean))  "
        + "std \(Self.short(a.std))  (at min/max: \(a.countAtMin)/\(a.countAtMax))"
    }
    row("rows", "\(s.rows)")
    row("duration", "\(Self.short(s.duration)) s (from t = \(Self.short(s.firstTime ?? 0)) s)")
    if let rate = s.estimatedRate, let median = s.medianInterval {
      var text = "\(Self.short(rate)) Hz (median interval \(Self.short(median)) s"
      if let jitter = s.relativeJitter { text += ", jitter " + cFormat("%.3f", jitter * 100) + "%" }
      row("rate", text + ")")
    } else {
      row("rate", "unknown (fewer than 2 increasing timestamps)")
    }
    if let longest = s.largestGaps.first {
      row(
        "gaps",
        "\(s.gapCount) (longest \(Self.short(longest.interval)) s at t = \(Self.short(longest.start)) s)")
    } else {
      row("gaps", "none")
    }
    row("timestamps", s.nonIncreasing == 0 ? "increasing" : "\(s.nonIncreasing) do not increase")
    row("channels", metadata.layout.columnNames.joined(separator: ","))
    for (axis, a) in s.accelerometer.axes { row("\(axis) (g)", axisLine(a)) }
    row("mean |a|", s.magnitude.count > 0 ? "\(Self.short(s.magnitude.mean)) g" : "n/a")
    if let g = s.gyroscope {
      for (axis, a) in g.axes { row("g\(axis) (rad/s)", axisLine(a)) }
      row("mean |w|", g.magnitude.count > 0 ? "\(Self.short(g.magnitude.mean)) rad/s" : "n/a")
    }
    if let m = s.magnetometer {
      for (axis, a) in m.axes { row("m\(axis) (uT)", axisLine(a)) }
      row("mean |m|", m.magnitude.count > 0 ? "\(Self.short(m.magnitude.mean)) uT" : "n/a")
    }
    var input = "\(metadata.sourceUnits.rawValue), \(metadata.sourceConvention.rawValue) convention"
    if let u = metadata.sourceGyroscopeUnits { input += "; gyroscope \(u.rawValue)" }
    if let u = metadata.sourceMagnetometerUnits { input += "; magnetometer \(u.rawValue)" }
    row("input", input)
    if let preset = metadata.recognisedAs {
      let summary = (Preset.named(preset) ?? (preset == HDF5Trace.broad.name ? HDF5Trace.broad : nil))?.summary ?? preset
      row("recorder", "recognised as \(preset) (\(summary)); --preset overrides")
    }
    if s.nonFinite > 0 { row("non-finite", "\(s.nonFinite) rows") }
    for warning in warnings { row("warning", warning) }
    return lines.joined(separator: "\n") + "\n"
  }
}
