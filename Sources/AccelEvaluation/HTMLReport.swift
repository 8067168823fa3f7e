import AccelCore
import AccelGestures
import AccelIO
import AccelPlot

/// Confidence intervals by resampling traces (the unit that is independent: samples within a
/// trace are not). The resamples are drawn once (a seeded generator: the same intervals on every
/// run) and serve every setting and statistic of a report.
public struct Bootstrap: Sendable {
  public let traceCount: Int
  public let resamples: Int
  /// Per resample, the traces drawn (with replacement), resample after resample.
  let drawn: [Int32]

  public init(traceCount: Int, resamples: Int = 1000, seed: UInt64 = 20_261_123) {
    self.traceCount = traceCount
    self.resamples = resamples
    var generator = SeededGenerator(seed: seed)
    let n = UInt64(max(traceCount, 1))
    drawn = (0..<(traceCount >= 2 ? resamples * traceCount : 0)).map { _ in Int32(generator.next() % n) }
  }

  /// For each statistic, the 2.5th and 97.5th percentiles of its value over the resamples of
  /// `traces` (one `Metrics` per trace); nil for fewer than two traces or a statistic undefined
  /// on most resamples. A statistic sees the summed counts, durations and standard counts (not
  /// onset errors or delays: summing those lists per resample would cost more than everything
  /// else in the report).
  public func intervals(_ traces: [Metrics], statistics: [(Metrics) -> Double?]) -> [(
    low: Double, high: Double
  )?] {
    let n = traces.count
    guard n >= 2, n == traceCount else { return statistics.map { _ in nil } }
    // Each trace's twelve counts in one vector: a report of many settings over many traces makes
    // millions of these sums.
    let counts = traces.map { t -> SIMD16<Int> in
      let s = t.standard
      let row = [
        t.tp, t.fp, t.fn, s.onset.nref, s.onset.nsys, s.onset.ntp, s.onsetOffset.nref, s.onsetOffset.nsys,
        s.onsetOffset.ntp, s.segments.nref, s.segments.nsys, s.segments.ntp, 0, 0, 0, 0,
      ]
      return SIMD16(row)
    }
    let durations = traces.map(\.duration)
    var values = statistics.map { _ -> [Double] in [] }
    counts.withUnsafeBufferPointer { counts in
      durations.withUnsafeBufferPointer { durations in
        drawn.withUnsafeBufferPointer { drawn in
          for r in 0..<resamples {
            var sum = SIMD16<Int>()
            var duration = 0.0
            for i in (r * n)..<((r + 1) * n) {
              let k = Int(drawn[i])
              sum &+= counts[k]
              duration += durations[k]
            }
            var total = Metrics()
            (total.tp, total.fp, total.fn, total.duration) = (sum[0], sum[1], sum[2], duration)
            total.standard.onset = DetectionCounts(nref: sum[3], nsys: sum[4], ntp: sum[5])
            total.standard.onsetOffset = DetectionCounts(nref: sum[6], nsys: sum[7], ntp: sum[8])
            total.standard.segments = DetectionCounts(nref: sum[9], nsys: sum[10], ntp: sum[11])
            for (j, statistic) in statistics.enumerated() {
              if let v = statistic(total), v.isFinite { values[j].append(v) }
            }
          }
        }
      }
    }
    return values.map { values in
      guard values.count * 2 > resamples else { return nil }
      let sorted = values.sorted()
      func percentile(_ p: Double) -> Double {
        let position = p * Double(sorted.count - 1)
        let i = Int(position.rounded(.down))
        let f = position - Double(i)
        return i + 1 < sorted.count ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i]
      }
      return (percentile(0.025), percentile(0.975))
    }
  }
}

/// What the report says about how it was made.
public struct ReportContext: Sendable {
  public var run: RunDescription
  /// ISO 8601 UTC, or nil to leave it out.
  public var date: String?
  public var criteria: StandardCriteria

  public init(run: RunDescription, date: String?, criteria: StandardCriteria) {
    self.run = run
    self.date = date
    self.criteria = criteria
  }
}

extension EvaluationReport {
  /// index.html (offline: no network, one inline script to sort tables): how it was made
  /// (command, version, dataset hash, date), the ranked summary with 95% bootstrap intervals over
  /// traces, precision/recall with iso-F1 lines, the per-trace table (sortable), a gallery of each
  /// rule's worst misses and false alarms (the trace around them with truth and detections), and
  /// one example trace per rule. Reads the traces it draws once more, in bounded memory; with no
  /// `jobs` (the dataset is not at hand: a merge elsewhere) it says why the traces are not drawn.
  public func indexHTML(
    dataset: String, jobs: [EvaluationJob]?, annotations: [[LabeledInterval]], label: String?,
    tolerance: Double,
    context: ReportContext? = nil
  ) throws -> String {
    func f(_ v: Double?) -> String { formatSignificant(v, digits: precision) }
    var html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>accelkit evaluation</title>\n"
    html +=
      "<style>body{font-family:sans-serif;margin:2em;color:#222;max-width:1000px}table{border-collapse:collapse;margin:0.5em 0}"
    html +=
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}"
    html += "th.sort{cursor:pointer}th.sort:after{content:' \\2195';color:#999}.run{color:#555;font-size:90%}"
    html +=
      ".gallery{display:flex;flex-wrap:wrap;gap:8px}.gallery figure{margin:0}.gallery figcaption{font-size:85%;color:#444}"
    html += "svg{max-width:100%;height:auto}</style>\n"
    let labelText = label.map { "label \"\(escapeXML($0))\"" } ?? "each rule's own label"
    html += "</head><body>\n<h1>accelkit evaluation</h1>\n"
    html +=
      "<p>\(escapeXML(dataset)): \(traces.count) traces, \(formatDuration(summary.first?.duration ?? 0)), \(labelText); "
    html += "matched by overlap within \(formatNumber(tolerance)) s"
    if let c = context?.criteria {
      html +=
        "; standard metrics with a \(formatNumber(c.collar)) s collar, offsets within \(formatNumber(c.offsetFraction)) of the length, \(formatNumber(c.segment)) s segments"
    }
    html += ".</p>\n"
    if let context {
      html +=
        "<p class=\"run\">Made by <code>\(escapeXML(context.run.command.joined(separator: " ")))</code>, accelkit \(escapeXML(context.run.version))"
      if let hash = fingerprint?.hash { html += ", dataset sha256 <code>\(hash)</code>" }
      if let date = context.date { html += ", \(escapeXML(date))" }
      html += ".</p>\n"
    }

    // Summary, ranked, with intervals.
    html +=
      "<h2>Summary</h2>\n<p>Ranked by F1, then fewer false alarms per hour. Brackets: 95% bootstrap intervals over traces (1000 resamples). Definitions: docs/METRICS.md.</p>\n"
    html +=
      "<table>\n<tr><th>rank</th><th class=\"l\">rule</th><th class=\"l\">params</th><th>tp</th><th>fp</th><th>fn</th><th>precision</th><th>recall</th><th>F1</th><th>onset F1</th><th>segment F1</th><th>false alarms / h</th><th>median onset error (s)</th><th>median delay (s)</th></tr>\n"
    let order = ranking()
    let bootstrap = Bootstrap(traceCount: traces.count)
    for (rank, i) in order.enumerated() where rank < 50 {
      let s = settings[i]
      let m = summary[i]
      let intervals = bootstrap.intervals(
        traces.map { $0.metrics[i] }, statistics: [{ $0.f1 }, { $0.falseAlarmsPerHour }])
      func ci(_ interval: (low: Double, high: Double)?) -> String {
        guard let (lo, hi) = interval else { return "" }
        return " <small>[\(f(lo)), \(f(hi))]</small>"
      }
      html +=
        "<tr><td>\(rank + 1)</td><td class=\"l\">\(s.rule)</td><td class=\"l\">\(escapeXML(s.parameterText.isEmpty ? "defaults" : s.parameterText))</td>"
      html +=
        "<td>\(m.tp)</td><td>\(m.fp)</td><td>\(m.fn)</td><td>\(f(m.precision))</td><td>\(f(m.definedRecall))</td>"
      html +=
        "<td>\(f(m.f1))\(ci(intervals[0]))</td><td>\(f(m.standard.onset.f1))</td><td>\(f(m.standard.segments.f1))</td>"
      html +=
        "<td>\(f(m.falseAlarmsPerHour))\(ci(intervals[1]))</td><td>\(f(m.medianOnsetError))</td><td>\(f(m.medianDelay))</td></tr>\n"
    }
    html += "</table>\n"
    if settings.count > 50 {
      html += "<p>The 50 best of \(settings.count) settings; all are in summary.csv.</p>\n"
    }

    let rows = settings.enumerated().map { i, s in
      (
        rule: s.rule, params: s.parameterText, precision: summary[i].precision, recall: summary[i].recall,
        f1: summary[i].f1
      )
    }
    html += "<h2>Precision and recall</h2>\n"
    html += Plots.precisionRecall(
      rows: rows, title: sweeping ? "precision / recall per setting" : "precision / recall per rule")

    // Per trace: the best setting of each rule.
    let shownSettings = bestPerRule().map(\.1)
    html +=
      "<h2>Per trace</h2>\n<p>\(sweeping ? "Each rule's best setting. " : "")Click a column heading to sort.</p>\n"
    html +=
      "<table class=\"sortable\">\n<tr><th class=\"l sort\">trace</th><th class=\"l sort\">rule</th><th class=\"sort\">duration (s)</th><th class=\"sort\">tp</th><th class=\"sort\">fp</th><th class=\"sort\">fn</th><th class=\"sort\">F1</th><th class=\"sort\">onset F1</th><th class=\"sort\">segment F1</th><th class=\"sort\">false alarms / h</th></tr>\n"
    for t in traces {
      for i in shownSettings {
        let m = t.metrics[i]
        html +=
          "<tr><td class=\"l\">\(escapeXML(t.name))</td><td class=\"l\">\(settings[i].rule)</td><td>\(f(t.duration))</td>"
        html +=
          "<td>\(m.tp)</td><td>\(m.fp)</td><td>\(m.fn)</td><td>\(f(m.f1))</td><td>\(f(m.standard.onset.f1))</td>"
        html += "<td>\(f(m.standard.segments.f1))</td><td>\(f(m.falseAlarmsPerHour))</td></tr>\n"
      }
    }
    html += "</table>\n"

    // The gallery and the examples: windows of traces, each trace read once.
    var windows: [GalleryWindow] = []
    for i in shownSettings {
      let wanted = label ?? settings[i].labels[0]
      var misses: [GalleryWindow] = []
      var alarms: [GalleryWindow] = []
      for (k, t) in traces.enumerated() {
        let matched = Set(t.detections[i].compactMap(\.match))
        for a in annotations[k] where a.label == wanted && !matched.contains(a) {
          misses.append(GalleryWindow(setting: i, trace: k, focus: a, kind: "missed"))
        }
        for d in t.detections[i] where d.match == nil {
          alarms.append(GalleryWindow(setting: i, trace: k, focus: d.detection, kind: "false alarm"))
        }
      }
      // The worst: the longest missed gestures, the longest false alarms (then trace order).
      let longest: (GalleryWindow, GalleryWindow) -> Bool = {
        let a = $0.focus.end - $0.focus.start
        let b = $1.focus.end - $1.focus.start
        return a != b ? a > b : ($0.trace, $0.focus.start) < ($1.trace, $1.focus.start)
      }
      windows += misses.sorted(by: longest).prefix(4) + alarms.sorted(by: longest).prefix(4)
    }
    var examples: [(setting: Int, trace: Int)] = []
    for i in shownSettings {
      let wanted = label ?? settings[i].labels[0]
      // The first trace where this rule detected something and there is something to find.
      guard
        let k = traces.indices.first(where: {
          !traces[$0].detections[i].isEmpty && annotations[$0].contains { $0.label == wanted }
        })
          ?? traces.indices.first(where: { !traces[$0].detections[i].isEmpty })
      else { continue }
      examples.append((i, k))
    }
    // The gallery's windows and the examples' whole traces, each trace read once for all of them.
    let envelopes = try Self.windowEnvelopes(
      windows.map { ($0.trace, $0.span) } + examples.map { ($0.trace, nil) }, jobs: jobs)
    html +=
      "<h2>Gallery: worst misses and false alarms</h2>\n<p>For each rule (its best setting), the longest missed annotations and the longest false alarms, with 3 s around them: the axes and |a|, the truth band (top) and the detections (bottom).</p>\n"
    for i in shownSettings {
      let shown = windows.enumerated().filter { $0.element.setting == i }
      html += "<h3>\(settings[i].rule)</h3>\n"
      if shown.isEmpty {
        html += "<p>No miss and no false alarm.</p>\n"
        continue
      }
      html += "<div class=\"gallery\">\n"
      for (w, window) in shown {
        let name = traces[window.trace].name
        guard envelopes[w].timeRange != nil else {
          html +=
            "<p>\(escapeXML(name)): \(window.kind), \(formatSignificant(window.focus.start, digits: 6)) s (not drawn: \(jobs == nil ? "the dataset was not at hand when the report was made" : "the trace was read from a pipe")).</p>\n"
          continue
        }
        let (truth, found) = bands(setting: i, trace: window.trace, annotations: annotations, label: label)
        html +=
          "<figure>"
          + Plots.trace(
            envelope: envelopes[w], events: [truth, found], eventNames: ["truth", settings[i].rule],
            title: window.kind, width: 480, height: 240)
        html +=
          "<figcaption>\(escapeXML(name)): \(window.kind), \(formatSignificant(window.focus.start, digits: 6))-\(formatSignificant(window.focus.end, digits: 6)) s</figcaption></figure>\n"
      }
      html += "</div>\n"
    }

    html += "<h2>Examples</h2>\n"
    let whole = Array(envelopes[windows.count...])
    for (n, (i, k)) in examples.enumerated() where whole[n].timeRange != nil {
      let (truth, found) = bands(setting: i, trace: k, annotations: annotations, label: label)
      html += "<h3>\(settings[i].rule) on \(escapeXML(traces[k].name))</h3>\n"
      html += Plots.trace(
        envelope: whole[n], events: [truth, found], eventNames: ["truth", settings[i].rule],
        title: "\(traces[k].name): truth (top band) and \(settings[i].rule) (bottom band)")
    }
    html += Self.sortScript
    html += "</body></html>\n"
    return html
  }

  struct GalleryWindow {
    var setting: Int
    var trace: Int
    var focus: LabeledInterval
    var kind: String
    /// The event with 3 s either side.
    var span: (Double, Double) { (focus.start - 3, focus.end + 3) }
  }

  func bands(setting i: Int, trace k: Int, annotations: [[LabeledInterval]], label: String?) -> (
    [PlotEvent], [PlotEvent]
  ) {
    let wanted = label ?? settings[i].labels[0]
    let truth = annotations[k].filter { $0.label == wanted }.map {
      PlotEvent(start: $0.start, end: $0.end, label: $0.label)
    }
    let found = traces[k].detections[i].map { d in
      PlotEvent(
        start: d.detection.start, end: d.detection.end, label: d.match == nil ? "false alarm" : "detected")
    }
    return (truth, found)
  }

  /// An envelope per request (a trace and a time span, or the whole trace), reading each trace
  /// once whatever the number of its windows. A trace that is not a regular file (a FIFO: it was
  /// read once already) is not read again; its envelopes stay empty.
  static func windowEnvelopes(_ requests: [(trace: Int, span: (Double, Double)?)], jobs: [EvaluationJob]?)
    throws -> [Envelope]
  {
    var envelopes = requests.map { _ in Plots.traceEnvelope() }
    guard let jobs else { return envelopes }
    for k in Set(requests.map(\.trace)).sorted() where FileIdentity(path: jobs[k].trace) != nil {
      let mine = requests.indices.filter { requests[$0].trace == k }
      let (source, _) = try TraceOpener.open(path: jobs[k].trace, settings: jobs[k].readSettings)
      while let block = try source.next() {
        for j in 0..<block.count {
          let t = block.t[j]
          for r in mine where requests[r].span.map({ t >= $0.0 && t <= $0.1 }) ?? true {
            Plots.addTrace(t: t, x: block.x[j], y: block.y[j], z: block.z[j], to: &envelopes[r])
          }
        }
      }
    }
    return envelopes
  }

  /// Sorting for tables of class "sortable": click a heading to sort by its column (numbers as
  /// numbers), again to reverse. Inline: the report works offline.
  static let sortScript = """
    <script>
    document.querySelectorAll('table.sortable').forEach(function (table) {
      var headings = table.rows[0].cells;
      for (var c = 0; c < headings.length; c++) {
        (function (column) {
          var ascending = true;
          headings[column].addEventListener('click', function () {
            var rows = Array.prototype.slice.call(table.rows, 1);
            rows.sort(function (a, b) {
              var x = a.cells[column].textContent, y = b.cells[column].textContent;
              var nx = parseFloat(x), ny = parseFloat(y);
              var order = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
              return ascending ? order : -order;
            });
            ascending = !ascending;
            rows.forEach(function (row) { table.tBodies[0].appendChild(row); });
          });
        })(c);
      }
    });
    </script>

    """
}
