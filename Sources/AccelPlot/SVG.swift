import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A number for SVG attributes: at most 2 decimals, no trailing zeros (small, deterministic files).
func n(_ v: Double) -> String {
  let r = (v * 100).rounded() / 100
  if r == r.rounded() && abs(r) < 1e15 { return String(Int(r)) }
  var s = String(r)
  if s.hasSuffix(".0") { s.removeLast(2) }
  return s
}

/// Text escaped for SVG/HTML.
public func escapeXML(_ text: String) -> String {
  var out = ""
  for c in text {
    switch c {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    default: out.append(c)
    }
  }
  return out
}

/// A plain SVG document built element by element.
public struct SVGDocument {
  public let width: Double
  public let height: Double
  private var body: [String] = []
  /// The boxes of the labels placed so far (x0, y0, x1, y1), so that later ones avoid them.
  private var labelBoxes: [(Double, Double, Double, Double)] = []

  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  public mutating func add(_ element: String) { body.append(element) }

  /// How many elements the document has (the index the next one gets).
  public var elementCount: Int { body.count }

  /// Replaces the element at `index` (an index `elementCount` gave).
  public mutating func replace(_ index: Int, with element: String) { body[index] = element }

  public mutating func line(
    _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width w: Double = 1,
    dash: String? = nil
  ) {
    add(
      "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(w))\"\(dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")/>"
    )
  }

  public mutating func rect(
    _ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, opacity: Double? = nil,
    stroke: String? = nil
  ) {
    add(
      "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(0, w)))\" height=\"\(n(max(0, h)))\" fill=\"\(fill)\"\(opacity.map { " fill-opacity=\"\(n($0))\"" } ?? "")\(stroke.map { " stroke=\"\($0)\"" } ?? "")/>"
    )
  }

  public mutating func text(
    _ x: Double, _ y: Double, _ s: String, size: Double = 11, anchor: String = "start", rotate: Bool = false,
    fill: String = "#222"
  ) {
    add(Self.textElement(x, y, s, size: size, anchor: anchor, rotate: rotate, fill: fill))
  }

  static func textElement(
    _ x: Double, _ y: Double, _ s: String, size: Double = 11, anchor: String = "start", rotate: Bool = false,
    fill: String = "#222"
  ) -> String {
    let transform = rotate ? " transform=\"rotate(-90 \(n(x)) \(n(y)))\"" : ""
    return
      "<text x=\"\(n(x))\" y=\"\(n(y))\" font-family=\"sans-serif\" font-size=\"\(n(size))\" text-anchor=\"\(anchor)\" fill=\"\(fill)\"\(transform)>\(escapeXML(s))</text>"
  }

  /// The box a text would take: about 0.6 em per character, an em high, above its baseline.
  static func box(_ x: Double, _ y: Double, _ s: String, size: Double, anchor: String) -> (
    Double, Double, Double, Double
  ) {
    let w = Double(s.count) * size * 0.6
    let x0 = anchor == "middle" ? x - w / 2 : anchor == "end" ? x - w : x
    return (x0, y - size, x0 + w, y + size * 0.25)
  }

  /// A data label (a peak, a best point, an event name) placed where it overlaps no earlier
  /// label: at (x, y), else moved down or up by a line at a time (within `within` pixels
  /// vertically). Returns false, drawing nothing, when no place is free.
  @discardableResult
  public mutating func label(
    _ x: Double, _ y: Double, _ s: String, size: Double = 9, anchor: String = "start", fill: String = "#222",
    within: ClosedRange<Double>? = nil
  ) -> Bool {
    let step = size + 2
    for k in 0..<12 {
      let dy = Double((k + 1) / 2) * step * (k % 2 == 1 ? 1 : -1)
      let b = Self.box(x, y + dy, s, size: size, anchor: anchor)
      if let within, b.1 < within.lowerBound || b.3 > within.upperBound { continue }
      let free = labelBoxes.allSatisfy { o in b.2 <= o.0 || o.2 <= b.0 || b.3 <= o.1 || o.3 <= b.1 }
      if free {
        labelBoxes.append(b)
        text(x, y + dy, s, size: size, anchor: anchor, fill: fill)
        return true
      }
    }
    return false
  }

  /// Marks a region as taken by text drawn otherwise (titles, legends), so labels avoid it.
  public mutating func reserve(_ x: Double, _ y: Double, _ s: String, size: Double, anchor: String = "start")
  {
    labelBoxes.append(Self.box(x, y, s, size: size, anchor: anchor))
  }

  public mutating func polyline(_ points: [(Double, Double)], stroke: String, width w: Double = 1) {
    guard !points.isEmpty else { return }
    add(
      "<polyline fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(n(w))\" points=\""
        + points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ") + "\"/>")
  }

  public mutating func circle(_ x: Double, _ y: Double, r: Double, fill: String) {
    add("<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(r))\" fill=\"\(fill)\"/>")
  }

  public func render(title: String) -> String {
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\">\n"
      + "<title>\(escapeXML(title))</title>\n<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>\n"
      + body.joined(separator: "\n") + "\n</svg>\n"
  }
}

/// An axis mapping data values to pixels, linear or logarithmic, with "nice" ticks (1, 2, 5 x 10^k).
public struct Scale {
  public var low: Double
  public var high: Double
  public var pixelLow: Double
  public var pixelHigh: Double
  public var logarithmic: Bool

  public init(low: Double, high: Double, pixelLow: Double, pixelHigh: Double, logarithmic: Bool = false) {
    var lo = low
    var hi = high
    if logarithmic {
      lo = log10(max(lo, 1e-300))
      hi = log10(max(hi, 1e-300))
    }
    if !(hi > lo) {
      lo -= 0.5
      hi += 0.5
    }
    self.low = lo
    self.high = hi
    self.pixelLow = pixelLow
    self.pixelHigh = pixelHigh
    self.logarithmic = logarithmic
  }

  public func callAsFunction(_ v: Double) -> Double {
    let x = logarithmic ? log10(max(v, 1e-300)) : v
    return pixelLow + (x - low) / (high - low) * (pixelHigh - pixelLow)
  }

  /// Tick values and labels.
  public func ticks(count: Int = 6) -> [(Double, String)] {
    if logarithmic {
      let first = Int(ceil(low))
      let last = Int(floor(high))
      guard first <= last else { return [] }
      let step = max(1, (last - first + 1) / count)
      return stride(from: first, through: last, by: step).map { (pow(10, Double($0)), "1e\($0)") }
    }
    let raw = (high - low) / Double(count)
    let magnitude = pow(10, floor(log10(raw)))
    let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
    var v = ceil(low / step) * step
    var out: [(Double, String)] = []
    while v <= high + step * 1e-9 {
      let rounded = (v / step).rounded() * step
      out.append((rounded, label(rounded, step: step)))
      v += step
    }
    return out
  }

  func label(_ v: Double, step: Double) -> String {
    let decimals = max(0, -Int(floor(log10(step))))
    var s = cFormat("%.*f", Int32(decimals), v)
    if s == "-0" { s = "0" }
    return s
  }
}

/// A chart frame: plot area, axes with ticks and labels, a legend.
public struct Chart {
  public var svg: SVGDocument
  public let x: Scale
  public let y: Scale
  public let left = 60.0, top = 30.0, bottom = 45.0
  /// The margin right of the plot area (room for a colour bar).
  public let right: Double
  public var plotWidth: Double { svg.width - left - right }
  public var plotHeight: Double { svg.height - top - bottom }

  public init(
    width: Double = 900, height: Double = 360, x: (Double, Double), y: (Double, Double), logY: Bool = false,
    right: Double = 20
  ) {
    svg = SVGDocument(width: width, height: height)
    self.right = right
    self.x = Scale(low: x.0, high: x.1, pixelLow: 60, pixelHigh: width - right)
    self.y = Scale(low: y.0, high: y.1, pixelLow: height - 45, pixelHigh: 30, logarithmic: logY)
  }

  /// Draws the frame, ticks, grid (not over heat maps: `grid` false) and axis labels; the title
  /// is shortened with "..." where it would run into the legend (`legendWidth` pixels at the top
  /// right).
  public mutating func axes(
    xLabel: String, yLabel: String, title: String, grid: Bool = true, legendWidth: Double = 0
  ) {
    svg.rect(left, top, plotWidth, plotHeight, fill: "none", stroke: "#444")
    for (v, label) in x.ticks() {
      let px = x(v)
      if grid { svg.line(px, top, px, top + plotHeight, stroke: "#e5e5e5") }
      svg.line(px, top + plotHeight, px, top + plotHeight + 4, stroke: "#444")
      svg.text(px, top + plotHeight + 16, label, size: 10, anchor: "middle")
    }
    for (v, label) in y.ticks() {
      let py = y(v)
      if grid { svg.line(left, py, left + plotWidth, py, stroke: "#e5e5e5") }
      svg.line(left - 4, py, left, py, stroke: "#444")
      svg.text(left - 6, py + 3, label, size: 10, anchor: "end")
    }
    svg.text(left + plotWidth / 2, svg.height - 8, xLabel, size: 11, anchor: "middle")
    svg.text(14, top + plotHeight / 2, yLabel, size: 11, anchor: "middle", rotate: true)
    self.title = (title, svg.elementCount)
    let shown = Self.shortened(title, toFit: svg.width - right - legendWidth - 12 - left)
    svg.text(left, 18, shown, size: 13)
    svg.reserve(left, 18, shown, size: 13)
  }

  /// The title and the index of its element, to shorten it when a legend comes.
  private var title: (String, Int)?

  /// `text` at 13 px, cut with "..." to fit `width` pixels.
  static func shortened(_ text: String, toFit width: Double) -> String {
    let room = max(10, Int(width / (13 * 0.6)))
    return text.count <= room ? text : String(text.prefix(room - 3)) + "..."
  }

  /// The width `legend(items)` takes.
  public static func legendWidth(_ items: [(String, String)]) -> Double {
    items.reduce(0) { $0 + Double($1.0.count) * 6.5 + 22 }
  }

  /// A legend of coloured swatches at the top right.
  public mutating func legend(_ items: [(String, String)]) {
    var px = svg.width - right
    for (name, colour) in items.reversed() {
      let w = Double(name.count) * 6.5 + 22
      px -= w
      svg.rect(px, 10, 12, 8, fill: colour)
      svg.text(px + 16, 18, name, size: 10)
      svg.reserve(px, 18, String(repeating: "m", count: name.count + 3), size: 10)
    }
    // A title drawn before the legend was known is shortened to end before it.
    if let (text, index) = title {
      let shown = Self.shortened(text, toFit: px - 12 - left)
      if shown != text { svg.replace(index, with: SVGDocument.textElement(left, 18, shown, size: 13)) }
    }
  }

  /// Keeps a line inside the plot area.
  public func clampY(_ v: Double) -> Double { min(top + plotHeight, max(top, v)) }
}

/// Colours for x, y, z, |a| and events, from the Okabe-Ito palette (told apart with the common
/// colour-vision deficiencies): the axes in blue, sky blue and reddish purple, |a| dark grey, the
/// truth band bluish green and the detections vermillion, so no axis shares a colour with a band.
public enum Palette {
  public static let axes = ["#0072B2", "#56B4E9", "#CC79A7", "#444444"]
  public static let truth = "#009E73"
  public static let detection = "#D55E00"
  public static let rules = ["#0072B2", "#E69F00", "#CC79A7", "#009E73", "#D55E00", "#56B4E9"]
  public static let classes: [String: String] = [
    "portrait": "#1f77b4", "portrait-upside-down": "#17becf", "landscape-left": "#ff7f0e",
    "landscape-right": "#d62728",
    "face-up": "#2ca02c", "face-down": "#9467bd", "unknown": "#cccccc",
  ]

  /// A viridis-like ramp for heat maps, t in [0, 1].
  public static func heat(_ t: Double) -> String {
    let stops: [(Double, Double, Double)] = [
      (68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37),
    ]
    let s = max(0, min(1, t)) * Double(stops.count - 1)
    let i = min(stops.count - 2, Int(s))
    let f = s - Double(i)
    func mix(_ a: Double, _ b: Double) -> Int { Int((a + (b - a) * f).rounded()) }
    let c = (
      mix(stops[i].0, stops[i + 1].0), mix(stops[i].1, stops[i + 1].1), mix(stops[i].2, stops[i + 1].2)
    )
    return cFormat("#%02lx%02lx%02lx", c.0, c.1, c.2)
  }
}
