import AccelCore
import AccelIO
import ArgumentParser

struct Convert: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract: "Convert a trace between CSV, NPY and raw binary, optionally onto a uniform time grid.",
    discussion: """
      The output holds t, x, y, z in seconds and g, Apple's axis convention, whatever the input \
      used. Values round-trip exactly: CSV -> NPY -> CSV gives the same numbers (with --dtype f32, \
      the same Float values). The output is written atomically: on any error nothing is left at \
      the output path and an existing file there is untouched. Streams in constant memory.

      Examples:
        accelkit convert walk.csv -o walk.npy
        accelkit convert --preset st-mlc shake.csv -o shake.csv.npy --dtype f32
        accelkit convert jittery.csv --resample 100 -o uniform.csv
        accelkit convert trace.npy -o - | head
      """
  )

  @OptionGroup(title: "Input")
  var input: InputOptions

  @Argument(help: "The trace to convert (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output path (`-` for stdout).", valueName: "path"))
  var output: String

  @Option(help: "The output format: csv, tsv, npy or raw (default: from the output extension, else csv).")
  var to: TraceFormat?

  @Option(help: "The value type of NPY and raw output: f64 or f32 (default: that of the input).")
  var dtype: SamplePrecision?

  @Option(help: "The field order of raw output: txyz or xyz.")
  var outLayout: RawLayout = .txyz

  @Option(help: ArgumentHelp("Resample onto a uniform grid at this rate by linear interpolation.", valueName: "hz"))
  var resample: Double?

  func validate() throws {
    if let resample, !(resample > 0 && resample.isFinite) {
      throw ValidationError("--resample must be a positive number of Hz, got \(resample)")
    }
  }

  func run() throws {
    let settings = try input.settings()
    let (source, byteInput) = try TraceOpener.open(path: trace, settings: settings)
    let format = to ?? TraceFormat(pathExtensionOf: output) ?? .csv
    let precision = dtype ?? source.metadata.precision
    let file = try OutputFile(path: output, inputs: [byteInput], needsSeek: format == .npy)
    let sink = try TraceWriters.make(format: format, output: file, precision: precision, layout: outLayout)
    var resampler = resample.map { LinearResampler(rate: $0, name: source.metadata.name) }
    while let block = try source.next() {
      if resampler != nil {
        let out = try resampler!.process(block)
        if !out.isEmpty { try sink.write(out) }
      } else {
        try sink.write(block)
      }
    }
    try sink.finish()
    Diagnostics.reportSkips(source)
  }
}
