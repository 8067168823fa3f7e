import Foundation
import TestSupport
import Testing

/// The report and the plots in a real browser (headless Chromium): no script errors, no text box
/// in any SVG overlapping another, every section there, and the per-trace table sorting.
@Suite struct ReportBrowserTests {
  /// Runs before the page's own scripts: collects errors and console.error calls.
  static let probeHead = """
    <script>window.__errors = [];
    window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
    var __consoleError = console.error;
    console.error = function () { window.__errors.push(Array.prototype.join.call(arguments, ' ')); __consoleError.apply(console, arguments); };
    </script>
    """

  /// Runs after everything: overlapping text boxes per SVG, the sections, a sort of the
  /// per-trace table by F1; the findings as JSON in a <pre>.
  static let probeTail = """
    <script>(function () {
      var overlaps = [];
      document.querySelectorAll('svg').forEach(function (svg, s) {
        var boxes = [];
        svg.querySelectorAll('text').forEach(function (t) {
          var r = t.getBoundingClientRect();
          if (r.width > 0 && r.height > 0) boxes.push([r.left, r.top, r.right, r.bottom, t.textContent]);
        });
        for (var i = 0; i < boxes.length; i++) for (var j = i + 1; j < boxes.length; j++) {
          var a = boxes[i], b = boxes[j];
          var ox = Math.min(a[2], b[2]) - Math.max(a[0], b[0]), oy = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
          if (ox > 1 && oy > 1) overlaps.push('svg ' + s + ' (' + (svg.querySelector('title') || {}).textContent + '): "' + a[4] + '" overlaps "' + b[4] + '"');
        }
      });
      var sorted = null, table = document.querySelector('table.sortable');
      if (table) {
        table.rows[0].cells[6].click();
        var values = Array.prototype.slice.call(table.rows, 1).map(function (r) { return parseFloat(r.cells[6].textContent); });
        sorted = values.every(function (v, i) { return i == 0 || values[i - 1] <= v; }) && values.length > 1;
      }
      var headings = Array.prototype.map.call(document.querySelectorAll('h2'), function (h) { return h.textContent; });
      var pre = document.createElement('pre');
      pre.id = 'probe';
      pre.textContent = JSON.stringify({errors: window.__errors, overlaps: overlaps, svgs: document.querySelectorAll('svg').length, sorted: sorted, headings: headings});
      document.body.appendChild(pre);
    })();</script>
    """

  /// The page with the probes, rendered; the probe's findings.
  func render(_ html: String, in dir: String) throws -> [String: Any] {
    var page = html.replacingOccurrences(of: "<head>", with: "<head>" + Self.probeHead)
    page = page.replacingOccurrences(of: "</body>", with: Self.probeTail + "</body>")
    writeFile(dir + "/probe.html", page)
    let r = try accelkit(
      [],
      shell:
        "timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1200,900 --virtual-time-budget=5000 --dump-dom 'file://\(dir)/probe.html' 2>/dev/null"
    )
    let dom = r.stdout
    guard let start = dom.range(of: "<pre id=\"probe\">"),
      let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
    else {
      Issue.record("no probe output (status \(r.status)): \(dom.prefix(300))")
      return [:]
    }
    let text = String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
  }

  @Test func theReportRendersCleanly() throws {
    try #require(Tools.path("chromium") != nil, Comment(rawValue: Tools.missing("chromium", package: "chromium")))
    let dir = Paths.temporaryDirectory()
    // A sweep (curves, many settings) and the plain run, both.
    for (name, extra) in [("plain", [String]()), ("sweep", ["--sweep", "three-peak.peak_g=1:2.5:0.25"])] {
      let out = dir + "/" + name
      let r = try accelkit(
        ["evaluate", Paths.packageRoot + "/datasets/test", "-o", out, "--format", "csv"] + extra)
      #expect(r.status == 0, "\(r.stderr)")
      let html = String(decoding: readFile(out + "/index.html")!, as: UTF8.self)
      #expect(!html.contains("http://") || html.contains("xmlns=\"http://www.w3.org/2000/svg\""))
      #expect(!html.contains("src=\"http") && !html.contains("href=\"http"), "nothing from the network")
      #expect(
        html.contains("accelkit evaluate") && html.contains("dataset sha256") && html.contains("accelkit 0"))
      let probe = try render(html, in: out)
      #expect((probe["errors"] as? [String]) == [], "\(name): \(probe["errors"] ?? "")")
      #expect((probe["overlaps"] as? [String]) == [], "\(name): \(probe["overlaps"] ?? "")")
      #expect((probe["svgs"] as? Int ?? 0) >= 10, "\(name)")
      #expect(probe["sorted"] as? Bool == true, "\(name): the per-trace table did not sort")
      let headings = probe["headings"] as? [String] ?? []
      for wanted in [
        "Summary", "Precision and recall", "Per trace", "Gallery: worst misses and false alarms", "Examples",
      ] {
        #expect(headings.contains(wanted), "\(name): \(wanted)")
      }
    }
  }

  @Test func everyPlotKindRendersWithoutOverlappingText() throws {
    try #require(Tools.path("chromium") != nil, Comment(rawValue: Tools.missing("chromium", package: "chromium")))
    let dir = Paths.temporaryDirectory()
    // Under a long path: titles name the file, and must give way to the legends.
    let long = dir + "/a-folder-with-a-rather-long-name/and-another-one-below-it-for-good-measure"
    try FileManager.default.createDirectory(atPath: long, withIntermediateDirectories: true)
    let trace = long + "/003.csv"
    let events = long + "/003.events.csv"
    try FileManager.default.copyItem(atPath: Paths.packageRoot + "/datasets/test/003.csv", toPath: trace)
    try FileManager.default.copyItem(
      atPath: Paths.packageRoot + "/datasets/test/003.events.csv", toPath: events)
    let plots: [[String]] = [
      ["plot", "trace", trace, "--events", events, "-o", dir + "/trace.svg"],
      ["plot", "spectrum", trace, "-o", dir + "/spectrum.svg"],
      ["plot", "spectrogram", trace, "-o", dir + "/spectrogram.svg"],
      ["plot", "orientation", trace, "-o", dir + "/orientation.svg"],
    ]
    var body = ""
    for arguments in plots {
      let r = try accelkit(arguments)
      #expect(r.status == 0, "\(arguments[1]): \(r.stderr)")
      body += String(decoding: readFile(arguments.last!) ?? [], as: UTF8.self) + "\n"
    }
    let tune = try accelkit([
      "tune", Paths.packageRoot + "/datasets/train", "--rule", "three-peak", "--trials", "12", "-o",
      dir + "/tuned",
    ])
    #expect(tune.status == 0, "\(tune.stderr)")
    body += String(decoding: readFile(dir + "/tuned/pareto.svg") ?? [], as: UTF8.self)
    let probe = try render(
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\(body)</body></html>", in: dir)
    #expect((probe["errors"] as? [String]) == [])
    #expect((probe["overlaps"] as? [String]) == [], "\(probe["overlaps"] ?? "")")
    #expect(probe["svgs"] as? Int == 5)
    // The probe sees what it is for: two labels drawn on top of each other, and a script error.
    let bad = try render(
      "<!DOCTYPE html><html><head></head><body><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"50\"><title>t</title><text x=\"10\" y=\"20\">best F1 0.9</text><text x=\"20\" y=\"22\">F1=0.8</text></svg><script>undefinedFunction();</script></body></html>",
      in: dir)
    #expect((bad["overlaps"] as? [String])?.count == 1)
    #expect((bad["errors"] as? [String])?.count == 1)
  }
}
