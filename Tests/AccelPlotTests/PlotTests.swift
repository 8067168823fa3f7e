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
    #expect(svg.contains("fill=\"#2ca02c\" fill-opacity=\"0.18\"") && svg.contains("fill=\"#ff7f0e\" fill-opacity=\"0.18\""))
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
    #expect(pr.contains("best F1 0.690 (k=2)"))
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
