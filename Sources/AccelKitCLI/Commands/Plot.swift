import AccelCore
import AccelEvaluation
import AccelFilters
import AccelIO
import AccelOrientation
import AccelPlot
import AccelSpectral
import ArgumentParser

struct Plot: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "plot",
    abstract:
      "Draw traces, events, spectra, spectrograms, precision/recall curves and orientation as plain SVG.",
    discussion: """
      Files are small, deterministic SVG written by accelkit itself. Plots stream: a trace of any \
      length is read once in bounded memory and drawn from at most 4096 time buckets (the \
      minimum and maximum of each, at their own times, so no peak is lost); a spectrogram is \
      averaged down to at most 512 time columns and 128 frequency rows.

      Examples:
        accelkit detect-shakes --rule swing datasets/test/000.csv -o detections.csv
        accelkit plot trace datasets/test/000.csv --events \\
          datasets/test/000.events.csv --events detections.csv -o trace.svg
        accelkit plot spectrum datasets/test/000.csv -o psd.svg
        accelkit plot spectrogram datasets/test/000.csv -o sg.svg
        accelkit evaluate datasets/test --sweep three-peak.peak_g=1:2:0.25 \\
          -o sweep-out --format csv
        accelkit plot pr sweep-out/sweep.csv -o pr.svg
        accelkit plot orientation datasets/test/000.csv -o attitude.svg
      """,
    subcommands: [PlotTrace.self, PlotSpectrum.self, PlotSpectrogram.self, PlotPR.self, PlotOrientation.self])
}

/// Opens a trace for plotting.
func openForPlot(_ input: InputOptions, _ path: String) throws -> TraceStream {
  try Diagnostics.openStream(path: path, settings: try input.settings(), resample: nil)
}

func writeSVG(_ text: String, to path: String, inputs: [ByteInput]) throws {
  let file = try OutputFile(path: path, inputs: inputs)
  try file.write(text)
  try file.commit()
}

struct PlotTrace: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "trace",
    abstract: "Plot x, y, z and |a| over time with event spans (truth and detections in different colours).")
  @OptionGroup(title: "Input") var input: InputOptions
  @Argument(help: "The trace.") var trace: String
  @Option(
    help: ArgumentHelp(
      "An events CSV to shade (repeatable: the first is drawn as truth, the second as detections).",
      valueName: "events.csv"))
  var events: [String] = []
  @Option(help: ArgumentHelp("Start of the time window.", valueName: "seconds")) var from: Finite?
  @Option(help: ArgumentHelp("End of the time window.", valueName: "seconds")) var to: Finite?
  @Option(name: .shortAndLong, help: ArgumentHelp("The SVG file (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  func validate() throws {
    if events.count > 2 { throw ValidationError("give at most two --events files (truth and detections)") }
  }

  func run() throws {
    let stream = try openForPlot(input, trace)
    var envelope = Plots.traceEnvelope()
    while let block = try stream.next() {
      for i in 0..<block.count
      where (from.map { block.t[i] >= $0.value } ?? true) && (to.map { block.t[i] <= $0.value } ?? true) {
        Plots.addTrace(t: block.t[i], x: block.x[i], y: block.y[i], z: block.z[i], to: &envelope)
      }
    }
    guard envelope.timeRange != nil else {
      throw AccelError.usage("no samples of \(stream.name) fall in the time window given")
    }
    let sets = try events.map { path in
      try EventsFile.read(path: path).map { PlotEvent(start: $0.start, end: $0.end, label: $0.label) }
    }
    let names = events.enumerated().map { k, path in
      (events.count == 2 ? (k == 0 ? "truth: " : "detections: ") : "")
        + String(path.split(separator: "/").last ?? "")
    }
    let svg = Plots.trace(envelope: envelope, events: sets, eventNames: names, title: stream.name)
    try writeSVG(svg, to: output, inputs: [stream.input])
  }
}

struct PlotSpectrum: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "spectrum",
    abstract: "Plot the Welch PSD of x, y, z and |a| on a log scale, dominant peaks marked.")
  @OptionGroup(title: "Input") var input: InputOptions
  @Argument(help: "The trace.") var trace: String
  @Option(help: "Samples per segment.") var segment: Int = 256
  @Option(name: .shortAndLong, help: ArgumentHelp("The SVG file (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  func run() throws {
    let stream = try openForPlot(input, trace)
    var request = SpectrumRequest()
    request.segment = segment
    try request.validate()
    let spectrum = TraceSpectrum(request, rate: stream.rate, name: stream.name)
    while let block = try stream.next() { try spectrum.add(block) }
    let result = try spectrum.finish()
    let seg = result.settings.segment
    let series = zip(result.channels, result.power).map { ($0 == .norm ? "|a|" : $0.rawValue, $1) }
    let svg = Plots.spectrum(
      frequencies: result.frequencies, series: series, unit: "PSD (g²/Hz)",
      title: "\(stream.name): Welch PSD, \(seg)-sample segments")
    try writeSVG(svg, to: output, inputs: [stream.input])
  }
}

struct PlotSpectrogram: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "spectrogram",
    abstract: "Plot the spectrogram of one channel as a heat map with a colour bar.")
  @OptionGroup(title: "Input") var input: InputOptions
  @Argument(help: "The trace.") var trace: String
  @Option(help: "The channel: x, y, z or norm.") var axis: String = "norm"
  @Option(help: "Samples per segment.") var segment: Int = 128
  @Option(name: .shortAndLong, help: ArgumentHelp("The SVG file (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  func validate() throws {
    if !["x", "y", "z", "norm"].contains(axis) {
      throw ValidationError("--axis takes x, y, z or norm, got \"\(axis)\"")
    }
  }

  func run() throws {
    let stream = try openForPlot(input, trace)
    var request = SpectrumRequest()
    request.segment = segment
    request.overlap = 0.5
    request.window = .hann
    request.channels = [SpectrumChannel(rawValue: axis)!]
    try request.validate()
    let spectrogram = TraceSpectrogram(request, rate: stream.rate, name: stream.name)
    var raster: SpectrogramRaster?
    // Rows come as columns time, frequency, power: one frame per run of `bins` rows.
    func add(_ columns: [[Double]]) {
      guard columns.count == 3, !columns[0].isEmpty else { return }
      if raster == nil { raster = SpectrogramRaster(frequencies: spectrogram.frequencies) }
      let bins = spectrogram.frequencies.count
      for start in stride(from: 0, to: columns[0].count, by: bins) {
        raster!.add(time: columns[0][start], power: Array(columns[2][start..<(start + bins)]))
      }
    }
    while let block = try stream.next() { add(try spectrogram.add(block)) }
    add(try spectrogram.finish())
    guard let raster else {
      throw AccelError.data(DataLocation(file: stream.name), "the trace holds no samples")
    }
    let svg = Plots.spectrogram(
      raster, title: "\(stream.name): spectrogram of \(axis == "norm" ? "|a|" : axis) (g²/Hz)")
    try writeSVG(svg, to: output, inputs: [stream.input])
  }
}

struct PlotPR: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pr",
    abstract: "Plot precision against recall per rule from an evaluate sweep.csv, best F1 marked.")
  @Argument(help: "A sweep.csv (or summary.csv) written by accelkit evaluate.") var sweep: String
  @Option(name: .shortAndLong, help: ArgumentHelp("The SVG file (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  func run() throws {
    let rows = try readCurve(sweep)
    try writeSVG(
      Plots.precisionRecall(rows: rows, title: "precision / recall: \(sweep)"), to: output, inputs: [])
  }
}

/// Reads rule, params, precision, recall and f1 from an evaluate CSV.
func readCurve(_ path: String) throws -> [(
  rule: String, params: String, precision: Double, recall: Double, f1: Double
)] {
  let bytes = try ByteInput.readAll(path: path)
  let lines = bytes.split(separator: UInt8(ascii: "\n")).map {
    CSVDialect.split($0, delimiter: UInt8(ascii: ","))
  }
  guard let header = lines.first, let r = header.firstIndex(of: "rule"),
    let p = header.firstIndex(of: "params"),
    let pr = header.firstIndex(of: "precision"), let re = header.firstIndex(of: "recall"),
    let f = header.firstIndex(of: "f1")
  else {
    throw AccelError.data(
      DataLocation(file: path, line: 1),
      "not an accelkit sweep.csv or summary.csv (needs rule, params, precision, recall, f1)")
  }
  return try lines.enumerated().dropFirst().map { k, row in
    guard row.count > max(r, p, pr, re, f), let a = Double(row[pr]), let b = Double(row[re]),
      let c = Double(row[f])
    else {
      throw AccelError.data(
        DataLocation(file: path, line: k + 1), "expected numbers in precision, recall and f1")
    }
    return (row[r], row[p], a, b, c)
  }
}

struct PlotOrientation: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "orientation",
    abstract: "Plot roll and pitch over time with the orientation class as a band.")
  @OptionGroup(title: "Input") var input: InputOptions
  @Argument(help: "The trace.") var trace: String
  @Flag(help: "Use the readings as gravity, without low-pass filtering.") var raw = false
  @Option(
    help: "auto: gravity from the fused attitude when the trace has a gyroscope; off: the low-pass always.")
  var gyro: GyroscopeUse = .auto
  @Option(name: .shortAndLong, help: ArgumentHelp("The SVG file (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  func run() throws {
    let stream = try openForPlot(input, trace)
    var settings = OrientationSettings()
    if raw { settings.gravity = .raw }
    settings.gyroscope = gyro
    var stage = try OrientationStage(settings, rate: stream.rate)
    var envelope = Plots.orientationEnvelope()
    let index = Dictionary(uniqueKeysWithValues: Plots.orientationClasses.enumerated().map { ($1, $0) })
    while let block = try stream.next() {
      let rows = stage.rows(block)
      for i in 0..<block.count {
        let b = envelope.bucket(for: block.t[i])
        envelope.add(rows.first[i], at: block.t[i], bucket: b, series: 0)
        envelope.add(rows.second[i], at: block.t[i], bucket: b, series: 1)
        envelope.add(
          category: index[rows.orientation[i].rawValue] ?? Plots.orientationClasses.count - 1, bucket: b)
      }
    }
    guard envelope.timeRange != nil else {
      throw AccelError.data(DataLocation(file: stream.name), "the trace holds no samples")
    }
    let svg = Plots.orientation(envelope: envelope, title: "\(stream.name): roll and pitch")
    try writeSVG(svg, to: output, inputs: [stream.input])
  }
}
