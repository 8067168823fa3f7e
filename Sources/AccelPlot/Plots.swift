import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An event span to shade on a trace plot.
public struct PlotEvent: Sendable {
  public var start: Double
  public var end: Double
  public var label: String
  public init(start: Double, end: Double, label: String) {
    self.start = start
    self.end = end
    self.label = label
  }
}

public enum Plots {
  /// Points of one series, thinned to at most two per pixel column (its minimum and maximum), so
  /// long traces give small files that keep every peak.
  static func thin(_ points: [(t: Double, v: Double)], x: Scale, y: Scale, clamp: (Double) -> Double) -> [(
    Double, Double
  )] {
    var out: [(Double, Double)] = []
    var column = Int.min
    var lo = (0.0, Double.infinity)
    var hi = (0.0, -Double.infinity)
    func flush() {
      guard column != Int.min else { return }
      if lo.0 <= hi.0 {
        out.append((lo.0, clamp(y(lo.1))))
        if hi.0 != lo.0 { out.append((hi.0, clamp(y(hi.1)))) }
      } else {
        out.append((hi.0, clamp(y(hi.1))))
        out.append((lo.0, clamp(y(lo.1))))
      }
    }
    for (t, v) in points where v.isFinite {
      let px = x(t)
      let c = Int(px.rounded(.down))
      if c != column {
        flush()
        column = c
        lo = (px, v)
        hi = (px, v)
      } else {
        if v < lo.1 { lo = (px, v) }
        if v > hi.1 { hi = (px, v) }
      }
    }
    flush()
    return out
  }

  /// The series of a trace plot, x, y, z and |a|, gathered from blocks in bounded memory.
  public static func traceEnvelope() -> Envelope { Envelope(series: 4) }

  /// Adds samples to a `traceEnvelope()`.
  public static func addTrace(t: Double, x: Double, y: Double, z: Double, to envelope: inout Envelope) {
    let b = envelope.bucket(for: t)
    envelope.add(x, at: t, bucket: b, series: 0)
    envelope.add(y, at: t, bucket: b, series: 1)
    envelope.add(z, at: t, bucket: b, series: 2)
    envelope.add((x * x + y * y + z * z).squareRoot(), at: t, bucket: b, series: 3)
  }

  /// x, y, z and |a| against time, with event spans (the first set as truth, the second as
  /// detections, in different colours) and their labels.
  public static func trace(
    t: [Double], x: [Double], y: [Double], z: [Double], events: [[PlotEvent]], eventNames: [String],
    title: String
  ) -> String {
    var envelope = traceEnvelope()
    for i in t.indices { addTrace(t: t[i], x: x[i], y: y[i], z: z[i], to: &envelope) }
    return trace(envelope: envelope, events: events, eventNames: eventNames, title: title)
  }

  /// A trace plot from a `traceEnvelope()`.
  public static func trace(
    envelope: Envelope, events: [[PlotEvent]], eventNames: [String], title: String, width: Double = 900,
    height: Double = 360
  ) -> String {
    let range = envelope.valueRange ?? (0, 0)
    let lo = min(-1.2, range.lo)
    let hi = max(1.2, range.hi)
    let times = envelope.timeRange ?? (0, 1)
    var chart = Chart(width: width, height: height, x: (times.first, times.last), y: (lo, hi))
    let colours = [Palette.truth, Palette.detection]
    for (k, set) in events.enumerated() {
      let half: Double = chart.plotHeight / 2
      let band: (Double, Double) = k == 0 ? (chart.top, half) : (chart.top + half, half)
      let full: (Double, Double) = events.count == 1 ? (chart.top, chart.plotHeight) : band
      for e in set {
        let x0 = max(chart.left, chart.x(e.start))
        let x1 = min(chart.left + chart.plotWidth, chart.x(e.end))
        guard x1 >= x0 else { continue }
        chart.svg.rect(x0, full.0, max(1, x1 - x0), full.1, fill: colours[k % 2], opacity: 0.18)
        chart.svg.label(
          x0 + 2, full.0 + 11, e.label, size: 9, fill: colours[k % 2], within: full.0...(full.0 + full.1))
      }
    }
    var legend = [
      ("x", Palette.axes[0]), ("y", Palette.axes[1]), ("z", Palette.axes[2]), ("|a|", Palette.axes[3]),
    ]
    for (k, name) in eventNames.enumerated() { legend.append((name, colours[k % 2])) }
    chart.axes(
      xLabel: "time (s)", yLabel: "acceleration (g)", title: title, legendWidth: Chart.legendWidth(legend))
    for k in 0..<4 {
      chart.svg.polyline(
        thin(envelope.points(series: k), x: chart.x, y: chart.y, clamp: chart.clampY),
        stroke: Palette.axes[k],
        width: k == 3 ? 0.8 : 1)
    }
    chart.legend(legend)
    return chart.svg.render(title: title)
  }

  /// A filter's frequency response: the gain in dB above, the phase in degrees below (a zero-phase
  /// filter's is 0), against frequency in Hz; the -3 dB level is marked.
  public static func frequencyResponse(
    frequencies: [Double], gainDecibels: [Double], phaseDegrees: [Double], title: String
  ) -> String {
    let top = frequencies.last ?? 1
    let floor = max(-120, (gainDecibels.min() ?? -60).rounded(.down))
    var gain = Chart(height: 320, x: (0, top), y: (floor, max(3, (gainDecibels.max() ?? 0) + 3)))
    gain.axes(xLabel: "frequency (Hz)", yLabel: "gain (dB)", title: title)
    gain.svg.line(gain.left, gain.y(-3), gain.left + gain.plotWidth, gain.y(-3), stroke: "#999999")
    gain.svg.label(gain.left + gain.plotWidth - 4, gain.y(-3) - 4, "-3 dB", size: 9, anchor: "end", fill: "#666666")
    gain.svg.polyline(
      zip(frequencies, gainDecibels).map { (gain.x($0.0), gain.clampY(gain.y(max($0.1, floor)))) }, stroke: Palette.axes[0])
    let low = min(-10, (phaseDegrees.min() ?? 0).rounded(.down))
    let high = max(10, (phaseDegrees.max() ?? 0).rounded(.up))
    var phase = Chart(height: 320, x: (0, top), y: (low, high))
    phase.axes(xLabel: "frequency (Hz)", yLabel: "phase (degrees)", title: "phase")
    phase.svg.polyline(zip(frequencies, phaseDegrees).map { (phase.x($0.0), phase.clampY(phase.y($0.1))) }, stroke: Palette.axes[1])
    // The two charts one above the other in one picture.
    let width = gain.svg.width
    let height = gain.svg.height + phase.svg.height
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n"
      + "<title>\(escapeXML(title))</title>\n"
      + "<svg x=\"0\" y=\"0\" " + gain.svg.render(title: title).dropFirst("<svg ".count)
      + "<svg x=\"0\" y=\"\(Int(gain.svg.height))\" " + phase.svg.render(title: "phase").dropFirst("<svg ".count)
      + "</svg>\n"
  }

  /// Power spectra on a log scale with each series' dominant peak marked.
  public static func spectrum(
    frequencies: [Double], series: [(String, [Double])], unit: String, title: String
  ) -> String {
    let values = series.flatMap { $0.1.dropFirst() }.filter { $0 > 0 && $0.isFinite }
    let lo = values.min() ?? 1e-12
    let hi = values.max() ?? 1
    var chart = Chart(x: (0, frequencies.last ?? 1), y: (lo, hi), logY: true)
    let legend = series.enumerated().map { k, s in (s.0, Palette.axes[k % 4]) }
    chart.axes(xLabel: "frequency (Hz)", yLabel: unit, title: title, legendWidth: Chart.legendWidth(legend))
    for (k, (_, power)) in series.enumerated() {
      let colour = Palette.axes[k % 4]
      let points = zip(frequencies, power).filter { $0.1 > 0 }.map {
        (chart.x($0.0), chart.clampY(chart.y($0.1)))
      }
      chart.svg.polyline(points, stroke: colour)
      if power.count > 1, let peak = power.indices.dropFirst().max(by: { power[$0] < power[$1] }),
        power[peak] > 0
      {
        let px = chart.x(frequencies[peak])
        let py = chart.clampY(chart.y(power[peak]))
        chart.svg.circle(px, py, r: 3.5, fill: colour)
        chart.svg.label(px + 5, py - 5, cFormat("%.3g Hz", frequencies[peak]), size: 9, fill: colour)
      }
    }
    chart.legend(legend)
    return chart.svg.render(title: title)
  }

  /// A heat map of power (log scale) over time and frequency, with a colour bar.
  public static func spectrogram(times: [Double], frequencies: [Double], power: [[Double]], title: String)
    -> String
  {
    var raster = SpectrogramRaster(frequencies: frequencies)
    for (t, p) in zip(times, power) { raster.add(time: t, power: p) }
    return spectrogram(raster, title: title)
  }

  /// A heat map of a `SpectrogramRaster` (at most its columns × rows cells, whatever the trace's
  /// length), no grid over it, and a colour bar with a tick per decade of power (`unit`).
  public static func spectrogram(_ raster: SpectrogramRaster, title: String, unit: String = "g²/Hz") -> String
  {
    let cells = raster.cells
    var lo = Double.infinity
    var hi = -Double.infinity
    for cell in cells {
      for p in cell.power where p > 0 && p.isFinite {
        lo = min(lo, p)
        hi = max(hi, p)
      }
    }
    if lo > hi { (lo, hi) = (1e-12, 1) }
    (lo, hi) = (log10(lo), log10(hi))
    let step = raster.frameStep ?? 1
    let binStep = raster.frequencies.count > 1 ? raster.frequencies[1] - raster.frequencies[0] : 1
    let first = cells.first?.start ?? 0
    let last = cells.last?.end ?? 1
    var chart = Chart(
      width: 960, height: 380, x: (first - step / 2, last + step / 2), y: (0, raster.frequencies.last ?? 1),
      right: 80)
    for cell in cells {
      let x0 = chart.x(cell.start - step / 2)
      let x1 = chart.x(cell.end + step / 2)
      for (r, p) in cell.power.enumerated() {
        let span = raster.rowSpan(r)
        let y0 = chart.y(span.high + binStep / 2)
        let y1 = chart.y(span.low - binStep / 2)
        let level = p > 0 ? (log10(p) - lo) / max(hi - lo, 1e-12) : 0
        chart.svg.rect(
          x0, max(chart.top, y0), x1 - x0 + 0.3,
          min(chart.top + chart.plotHeight, y1) - max(chart.top, y0) + 0.3,
          fill: Palette.heat(level))
      }
    }
    chart.axes(xLabel: "time (s)", yLabel: "frequency (Hz)", title: title, grid: false)
    // Colour bar: the ramp, a tick and label per decade (at most 8 labels), the unit above.
    let barX = chart.left + chart.plotWidth + 14
    for i in 0..<50 {
      let level = Double(i) / 49
      let y = chart.top + chart.plotHeight * (1 - level)
      chart.svg.rect(
        barX, y - chart.plotHeight / 50, 10, chart.plotHeight / 50 + 0.5, fill: Palette.heat(level))
    }
    chart.svg.rect(barX, chart.top, 10, chart.plotHeight, fill: "none", stroke: "#444")
    let decades = Int(hi.rounded(.down)) - Int(lo.rounded(.up)) + 1
    let every = max(1, (decades + 7) / 8)
    if decades >= 1 {
      for d in stride(from: Int(lo.rounded(.up)), through: Int(hi.rounded(.down)), by: every) {
        let y = chart.top + chart.plotHeight * (1 - (Double(d) - lo) / max(hi - lo, 1e-12))
        chart.svg.line(barX + 10, y, barX + 14, y, stroke: "#444")
        chart.svg.text(barX + 16, y + 3, "1e\(d)", size: 9)
      }
    } else {
      chart.svg.text(barX + 16, chart.top + 3, cFormat("%.2g", pow(10, hi)), size: 9)
      chart.svg.text(barX + 16, chart.top + chart.plotHeight + 3, cFormat("%.2g", pow(10, lo)), size: 9)
    }
    chart.svg.text(barX + 5, chart.top - 6, unit, size: 9, anchor: "middle")
    return chart.svg.render(title: title)
  }

  /// Precision against recall per rule, the best-F1 setting marked.
  public static func precisionRecall(
    rows: [(rule: String, params: String, precision: Double, recall: Double, f1: Double)], title: String
  ) -> String {
    var chart = Chart(width: 640, height: 480, x: (0, 1), y: (0, 1))
    var rules: [String] = []
    for r in rows where !rules.contains(r.rule) { rules.append(r.rule) }
    let legend = rules.enumerated().map { k, rule in (rule, Palette.rules[k % Palette.rules.count]) }
    chart.axes(xLabel: "recall", yLabel: "precision", title: title, legendWidth: Chart.legendWidth(legend))
    // Iso-F1 lines: the (recall, precision) pairs with F1 = f, p = f r / (2r - f) for r > f / 2.
    for f in [0.2, 0.4, 0.6, 0.8] {
      let points = stride(from: f / 2 + 0.005, through: 1, by: 0.005).compactMap { r -> (Double, Double)? in
        let p = f * r / (2 * r - f)
        return p <= 1 ? (chart.x(r), chart.y(p)) : nil
      }
      chart.svg.polyline(points, stroke: "#cccccc", width: 0.8)
      chart.svg.label(
        chart.x(1) - 3, chart.y(f / (2 - f)) - 3, "F1=\(formatNumber(f))", size: 8, anchor: "end",
        fill: "#999999")
    }
    for (k, rule) in rules.enumerated() {
      let colour = Palette.rules[k % Palette.rules.count]
      let points = rows.filter { $0.rule == rule }.sorted {
        ($0.recall, $0.precision) < ($1.recall, $1.precision)
      }
      chart.svg.polyline(
        points.map { (chart.x($0.recall), chart.y($0.precision)) }, stroke: colour, width: 1.5)
      for p in points { chart.svg.circle(chart.x(p.recall), chart.y(p.precision), r: 2.5, fill: colour) }
      if let best = points.max(by: { $0.f1 < $1.f1 }) {
        let px = chart.x(best.recall)
        let py = chart.y(best.precision)
        chart.svg.circle(px, py, r: 6, fill: colour)
        let text =
          "best F1 \(formatSignificant(best.f1, digits: 4))\(best.params.isEmpty ? "" : " (\(best.params))")"
        // Labels of points near the right edge go to their left.
        let anchor = px + 8 + Double(text.count) * 9 * 0.6 > chart.left + chart.plotWidth ? "end" : "start"
        chart.svg.label(
          anchor == "end" ? px - 8 : px + 8, py + 4, text, size: 9, anchor: anchor, fill: colour)
      }
    }
    chart.legend(legend)
    return chart.svg.render(title: title)
  }

  /// A tuning's trials as F1 against false alarms per hour: every trial a grey dot, the Pareto
  /// front (no other trial has both more F1 and fewer false alarms) a line, the chosen trial
  /// marked.
  public static func pareto(
    trials: [(falseAlarmsPerHour: Double, f1: Double)], front: [Int], chosen: Int, label: String,
    title: String
  ) -> String {
    let highest = trials.map(\.falseAlarmsPerHour).filter(\.isFinite).max() ?? 1
    var chart = Chart(width: 640, height: 480, x: (0, max(1, highest * 1.05)), y: (0, 1))
    chart.axes(xLabel: "false alarms per hour", yLabel: "F1", title: title)
    for t in trials where t.falseAlarmsPerHour.isFinite {
      chart.svg.circle(chart.x(t.falseAlarmsPerHour), chart.y(t.f1), r: 2, fill: "#bbbbbb")
    }
    let line = front.map { (chart.x(trials[$0].falseAlarmsPerHour), chart.y(trials[$0].f1)) }
    chart.svg.polyline(line, stroke: Palette.detection, width: 1.5)
    for (x, y) in line { chart.svg.circle(x, y, r: 3, fill: Palette.detection) }
    if trials.indices.contains(chosen) {
      let (x, y) = (chart.x(trials[chosen].falseAlarmsPerHour), chart.y(trials[chosen].f1))
      chart.svg.circle(x, y, r: 6, fill: Palette.axes[0])
      chart.svg.text(x + 8, y + 14, label, size: 9, fill: Palette.axes[0])
    }
    chart.legend([("trials", "#bbbbbb"), ("Pareto front", Palette.detection), ("chosen", Palette.axes[0])])
    return chart.svg.render(title: title)
  }

  /// The orientation classes in the order of `orientationEnvelope()`'s categories.
  public static let orientationClasses = [
    "portrait", "portrait-upside-down", "landscape-left", "landscape-right", "face-up", "face-down",
    "unknown",
  ]

  /// Roll and pitch (series 0 and 1) with the orientation class (a category of
  /// `orientationClasses`), gathered in bounded memory.
  public static func orientationEnvelope() -> Envelope {
    Envelope(series: 2, categories: orientationClasses.count)
  }

  /// Roll and pitch over time, with the orientation class as a band underneath.
  public static func orientation(
    t: [Double], roll: [Double], pitch: [Double], classes: [String], title: String
  ) -> String {
    let index = Dictionary(uniqueKeysWithValues: orientationClasses.enumerated().map { ($1, $0) })
    let envelope = Envelope(
      t: t, series: [roll, pitch], categories: classes.map { index[$0] ?? orientationClasses.count - 1 },
      categoryCount: orientationClasses.count)
    return orientation(envelope: envelope, title: title)
  }

  /// The orientation plot from an `orientationEnvelope()`.
  public static func orientation(envelope: Envelope, title: String) -> String {
    let times = envelope.timeRange ?? (0, 1)
    var chart = Chart(width: 900, height: 380, x: (times.first, times.last), y: (-180, 180))
    chart.axes(xLabel: "time (s)", yLabel: "degrees", title: title)
    chart.svg.polyline(
      thin(envelope.points(series: 0), x: chart.x, y: chart.y, clamp: chart.clampY), stroke: Palette.axes[0])
    chart.svg.polyline(
      thin(envelope.points(series: 1), x: chart.x, y: chart.y, clamp: chart.clampY), stroke: Palette.axes[2])
    // The class band: one rectangle per run of the same class.
    let bandY = chart.top + chart.plotHeight - 10
    let runs = envelope.categoryRuns()
    for run in runs {
      let x0 = chart.x(run.start)
      let x1 = chart.x(run.end)
      chart.svg.rect(
        x0, bandY, max(0.5, x1 - x0), 10, fill: Palette.classes[orientationClasses[run.category]] ?? "#cccccc"
      )
    }
    var legend = [("roll", Palette.axes[0]), ("pitch", Palette.axes[2])]
    for (k, name) in orientationClasses.enumerated() where runs.contains(where: { $0.category == k }) {
      legend.append((name, Palette.classes[name]!))
    }
    chart.legend(legend)
    return chart.svg.render(title: title)
  }

  /// A path drawn as plain SVG: the view, the path, marked points.
  public static func path(
    width: Double, height: Double, points: [(x: Double, y: Double)], marks: [(x: Double, y: Double)],
    title: String
  ) -> String {
    var text =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(formatNumber(width))\" height=\"\(formatNumber(height))\" viewBox=\"0 0 \(formatNumber(width)) \(formatNumber(height))\">\n"
    text += "<title>\(escapeXML(title))</title>\n"
    text +=
      "<rect x=\"0\" y=\"0\" width=\"\(formatNumber(width))\" height=\"\(formatNumber(height))\" fill=\"#ffffff\" stroke=\"#333333\"/>\n"
    func r(_ v: Double) -> String { formatNumber((v * 100).rounded() / 100) }
    if !points.isEmpty {
      text += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1\" points=\""
      text += points.map { "\(r($0.0)),\(r($0.1))" }.joined(separator: " ")
      text += "\"/>\n"
      text += "<circle cx=\"\(r(points.last!.0))\" cy=\"\(r(points.last!.1))\" r=\"6\" fill=\"#1f77b4\"/>\n"
    }
    for m in marks { text += "<circle cx=\"\(r(m.0))\" cy=\"\(r(m.1))\" r=\"3\" fill=\"#d62728\"/>\n" }
    return text + "</svg>\n"
  }
}

extension Plots {
  /// Horizontal bars, one per item, longest first as given: a model's feature importances.
  public static func bars(_ items: [(name: String, value: Double)], xLabel: String, title: String) -> String {
    let rowHeight = 16.0
    let labelWidth = 260.0
    let width = 760.0
    let height = 60 + rowHeight * Double(max(1, items.count))
    var svg = SVGDocument(width: width, height: height)
    let highest = max(items.map(\.value).filter(\.isFinite).max() ?? 1, 1e-12)
    let barRoom = width - labelWidth - 80
    svg.text(10, 20, title, size: 13)
    for (i, item) in items.enumerated() {
      let y = 34 + rowHeight * Double(i)
      let value = item.value.isFinite ? max(0, item.value) : 0
      svg.text(labelWidth - 6, y + 11, item.name, size: 10, anchor: "end")
      svg.rect(labelWidth, y + 2, barRoom * value / highest, rowHeight - 4, fill: Palette.detection)
      svg.text(labelWidth + barRoom * value / highest + 4, y + 11, formatNumber(value), size: 9)
    }
    svg.text(labelWidth + barRoom / 2, height - 8, xLabel, size: 11, anchor: "middle")
    return svg.render(title: title)
  }
}
