import AccelCore
import AccelPlot
import Foundation
import Testing

func count(_ text: String, _ needle: String) -> Int { text.components(separatedBy: needle).count - 1 }

@Suite struct PlotTests {
  let t = (0..<1000).map { Double($0) / 100 }
  var x: [Double] { t.map { sin(2 * .pi * 2 * $0) } }

  func wellFormed(_ svg: String) {
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(svg.hasSuffix("</svg>\n"))
    #expect(count(svg, "<text") == count(svg, "</text>"))
    #expect(!svg.contains("nan") && !svg.contains("inf"))
  }

  @Test func traceWithTwoEventSets() {
    let svg = Plots.trace(
      t: t, x: x, y: t.map { _ in 0 }, z: t.map { _ in -1 },
      events: [[PlotEvent(start: 2, end: 3, label: "shake")], [PlotEvent(start: 2.1, end: 3.2, label: "detected")]],
      eventNames: ["truth", "three-peak"], title: "a & b")
    wellFormed(svg)
    #expect(count(svg, "<polyline") == 4)  // x, y, z, |a|
    #expect(svg.contains("fill=\"#009E73\" fill-opacity=\"0.18\"") && svg.contains("fill=\"#D55E00\" fill-opacity=\"0.18\""))
    #expect(svg.contains("<title>a &amp; b</title>"))
    #expect(svg.contains(">time (s)<") && svg.contains(">acceleration (g)<"))
    // Thinned: at most two points per pixel column of a 820-pixel plot.
    #expect(svg.utf8.count < 120_000)
    #expect(svg == Plots.trace(
      t: t, x: x, y: t.map { _ in 0 }, z: t.map { _ in -1 },
      events: [[PlotEvent(start: 2, end: 3, label: "shake")], [PlotEvent(start: 2.1, end: 3.2, label: "detected")]],
      eventNames: ["truth", "three-peak"], title: "a & b"))
  }

  @Test func spectrumSpectrogramPROrientation() {
    let f = (0..<129).map { Double($0) * 100 / 256 }
    let spectrum = Plots.spectrum(frequencies: f, series: [("x", f.map { 1 / (1 + abs($0 - 5)) })], unit: "PSD", title: "s")
    wellFormed(spectrum)
    #expect(spectrum.contains(">5.08 Hz<") || spectrum.contains("Hz<"))
    let sg = Plots.spectrogram(times: [1, 2, 3], frequencies: [0, 10, 20], power: [[1, 2, 3], [3, 2, 1], [1e-3, 0, 5]], title: "sg")
    wellFormed(sg)
    #expect(count(sg, "<rect") >= 9 + 50)  // cells and the colour bar
    let pr = Plots.precisionRecall(rows: [("a", "k=1", 1, 0.2, 0.33), ("a", "k=2", 0.8, 0.6, 0.69), ("b", "", 0.5, 0.5, 0.5)], title: "pr")
    wellFormed(pr)
    #expect(pr.contains("best F1 0.69 (k=2)") && count(pr, ">F1=0.") == 4)  // and the iso-F1 lines
    let o = Plots.orientation(t: [0, 1, 2, 3], roll: [0, 10, 20, 30], pitch: [0, 0, 45, 90], classes: ["face-up", "face-up", "portrait", "portrait"], title: "o")
    wellFormed(o)
    #expect(o.contains("fill=\"#2ca02c\"") && o.contains("fill=\"#1f77b4\""))
  }

  @Test func niceTicks() {
    let s = Scale(low: 0, high: 9.7, pixelLow: 0, pixelHigh: 100)
    #expect(s.ticks().map(\.1) == ["0", "2", "4", "6", "8"])
    let l = Scale(low: 1e-6, high: 1, pixelLow: 0, pixelHigh: 100, logarithmic: true)
    #expect(l.ticks().first?.1 == "1e-6" && l.ticks().last?.1 == "1e0")
  }
}

/// The bounded-memory summaries plots are drawn from.
@Suite struct EnvelopeTests {
  /// A short series is held exactly: one bucket per sample.
  @Test func aShortSeriesIsHeldExactly() {
    let t = (0..<100).map { Double($0) * 0.01 }
    let v = t.map { sin(7 * $0) }
    let envelope = Envelope(t: t, series: [v])
    #expect(envelope.points(series: 0).map(\.t) == t)
    #expect(envelope.points(series: 0).map(\.v) == v)
  }

  /// A long series ends in at most `capacity` buckets; every bucket's extremes are real samples
  /// at their own times, the global extremes survive, and merging is the same whatever the
  /// series' length at which it happens.
  @Test func aLongSeriesKeepsItsExtremesInBoundedBuckets() {
    var random = SeededGenerator(seed: 5)
    let n = 1_000_003
    var envelope = Envelope(series: 2, capacity: 64)
    var values: [Double: Double] = [:]
    var lo = (t: 0.0, v: Double.infinity), hi = (t: 0.0, v: -Double.infinity)
    for i in 0..<n {
      let t = Double(i) * 0.005
      let v = Double.random(in: -1...1, using: &random) + (i == 777_777 ? 9 : 0)
      let b = envelope.bucket(for: t)
      envelope.add(v, at: t, bucket: b, series: 0)
      envelope.add(.nan, at: t, bucket: b, series: 1)
      if i % 1000 == 0 || i == 777_777 { values[t] = v }
      if v < lo.v { lo = (t, v) }
      if v > hi.v { hi = (t, v) }
    }
    let points = envelope.points(series: 0)
    #expect(points.count <= 2 * 64 && points.count >= 64)
    #expect(zip(points, points.dropFirst()).allSatisfy { $0.t < $1.t })
    #expect(points.contains { $0.t == hi.t && $0.v == hi.v } && hi.v > 8)
    #expect(points.contains { $0.t == lo.t && $0.v == lo.v })
    #expect(envelope.points(series: 1).isEmpty)  // NaN is not drawn
    #expect(envelope.valueRange?.lo == lo.v && envelope.valueRange?.hi == hi.v)
    #expect(envelope.timeRange?.first == 0 && envelope.timeRange?.last == Double(n - 1) * 0.005)
  }

  /// Categories: the band shows each bucket's most frequent class, in runs.
  @Test func categoryRunsFollowTheMajority() {
    let t = (0..<10).map(Double.init)
    let envelope = Envelope(t: t, series: [t], categories: [0, 0, 0, 1, 1, 1, 1, 2, 2, 2], categoryCount: 3)
    let runs = envelope.categoryRuns()
    #expect(runs.map(\.category) == [0, 1, 2])
    #expect(runs.map(\.start) == [0, 3, 7] && runs.map(\.end) == [3, 7, 9])
  }

  /// A spectrogram raster averages power: the mean over all cells (weighted by the frames and
  /// bins they hold) equals the mean of the input, and it never exceeds its size.
  @Test func aSpectrogramRasterIsBoundedAndKeepsTheMean() {
    let frequencies = (0..<1000).map { Double($0) * 0.05 }
    var raster = SpectrogramRaster(frequencies: frequencies, maxColumns: 16, maxRows: 10)
    var total = 0.0
    let frames = 64  // a power of two: every column ends up with the same frames
    for f in 0..<frames {
      let power = frequencies.indices.map { Double(($0 * 7 + f * 13) % 17) }
      total += power.reduce(0, +)
      raster.add(time: Double(f) * 0.5, power: power)
    }
    let cells = raster.cells
    #expect(cells.count <= 16 && cells.allSatisfy { $0.power.count == 10 })
    let mean = cells.flatMap(\.power).reduce(0, +) / Double(cells.count * 10)
    #expect(abs(mean - total / Double(frames * frequencies.count)) < 1e-12)
    #expect(raster.rowSpan(0) == (0, 99 * 0.05) && raster.frameStep == 0.5)
    #expect(cells.first?.start == 0 && cells.last?.end == 31.5)
  }
}
