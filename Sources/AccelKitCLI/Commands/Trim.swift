import AccelCore
import AccelIO
import ArgumentParser

struct Trim: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "trim",
    abstract: "Keep the samples of a time window: from <= t < to.",
    discussion: """
      Times are in the trace's own time base (seconds), or with --relative in seconds from its first \
      sample. The window is half-open, so consecutive windows (--to 10, then --from 10) share no \
      sample. Every channel and kept column is written, as convert writes them; reading stops once \
      the timestamps have passed --to.

      Examples:
        accelkit trim datasets/test/000.csv --from 5 --to 15 -o middle.csv
        accelkit trim --relative --to 60 \\
          datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz \\
          -o first-minute.npy
        accelkit trim datasets/samples/portrait-shake.csv --from 4.5 -o - | head -3
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The trace to trim (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output path (`-` for stdout).", valueName: "path"))
  var output: String

  @Option(help: ArgumentHelp("Keep samples from this time on (inclusive).", valueName: "seconds"))
  var from: Finite?

  @Option(help: ArgumentHelp("Keep samples before this time (exclusive).", valueName: "seconds"))
  var to: Finite?

  @Flag(help: "Count --from and --to from the first sample instead of the trace's time zero.")
  var relative = false

  @OptionGroup(title: "Output") var written: WrittenTableOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  func validate() throws {
    for (name, value) in [("--from", from), ("--to", to)] {
      if let value, !value.value.isFinite { throw ValidationError("\(name) must be a finite number of seconds") }
    }
    if let from, let to, !(from < to) {
      throw ValidationError("--from (\(formatNumber(from.value)) s) must come before --to (\(formatNumber(to.value)) s)")
    }
    if from == nil && to == nil { throw ValidationError("give --from, --to or both") }
  }

  func run() throws {
    let (source, byteInput) = try TraceOpener.open(path: trace, settings: try input.settings())
    let format = written.outputFormat ?? TraceFormat(pathExtensionOf: output) ?? .csv
    let file = try OutputFile(path: output, inputs: [byteInput], needsSeek: format == .npy)
    let sink = try TraceWriters.make(
      format: format, output: file, precision: written.dtype ?? source.metadata.precision,
      layout: source.metadata.layout, significantDigits: numbers.precision)
    var window = TimeWindow(from: from?.value, to: to?.value, relative: relative)
    var kept = 0
    while !window.isPast, let block = try source.next() {
      let inside = window.process(block)
      kept += inside.count
      if !inside.isEmpty { try sink.write(inside) }
    }
    guard kept > 0 else {
      throw AccelError.data(
        DataLocation(file: source.metadata.name), "no sample lies in the window",
        hint:
          "accelkit info \(trace == "-" ? "FILE" : trace) shows the trace's start and duration\(relative ? "" : "; --relative counts from its first sample")"
      )
    }
    try sink.finish()
    Diagnostics.reportNotes(source)
    Diagnostics.reportSkips(source)
  }
}
