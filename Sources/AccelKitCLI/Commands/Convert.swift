import AccelCore
import AccelIO
import ArgumentParser

struct Convert: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "convert",
    abstract: "Convert a trace between CSV, NPY and raw binary, optionally onto a uniform time grid.",
    discussion: """
      The output holds t, x, y, z in seconds and g, Apple's axis convention, whatever the input \
      used, then the gyroscope gx, gy, gz in rad/s and the magnetometer mx, my, mz in uT when the \
      input has them, then the columns kept with --keep. Values round-trip exactly: CSV -> NPY -> \
      CSV gives the same numbers (with --dtype f32, the same Float values). The output is written atomically: on any error nothing is left at \
      the output path and an existing file there is untouched. Streams in constant memory.

      Examples:
        accelkit convert datasets/test/000.csv -o walk.npy
        accelkit convert --preset st-mlc datasets/real/st-mlc/shake.csv \\
          -o shake.npy --dtype f32
        accelkit convert datasets/samples/portrait-shake.csv --resample 100 \\
          -o uniform.csv
        accelkit convert walk.npy -o - | head
        accelkit convert --channels acc \\
          datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz \\
          -o accel-only.csv
        accelkit convert datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz \\
          -o imu.f32 --dtype f32 --out-layout t,acc,gyro
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

  @Option(help: ArgumentHelp("The fields of raw output records: txyz, xyz, or channels and groups such as t,acc,gyro (default: t and every group the trace has).", valueName: "layout"))
  var outLayout: String?

  @Option(help: ArgumentHelp("The sensor groups to write: acc, gyro, mag, comma-separated (default: every group the input has).", valueName: "groups"))
  var channels: String?

  @OptionGroup var resampling: ResampleOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  func validate() throws {
    if let outLayout, let problem = RawLayout.problem(with: outLayout) { throw ValidationError(problem) }
    if let channels {
      do { _ = try SensorGroup.parseList(channels) } catch let error as AccelError { throw ValidationError(error.message) }
    }
  }

  func run() throws {
    let settings = try input.settings()
    let (source, byteInput) = try TraceOpener.open(path: trace, settings: settings)
    let format = to ?? TraceFormat(pathExtensionOf: output) ?? .csv
    let precision = dtype ?? source.metadata.precision
    let file = try OutputFile(path: output, inputs: [byteInput], needsSeek: format == .npy)
    var layout = source.metadata.layout
    if let channels { layout = layout.restricted(to: try SensorGroup.parseList(channels)) }
    let sink = try TraceWriters.make(
      format: format, output: file, precision: precision, layout: layout, rawLayout: outLayout.flatMap(RawLayout.init(parsing:)),
      significantDigits: numbers.precision)
    var resampler = resampling.rate.map { LinearResampler(rate: $0, name: source.metadata.name) }
    while let block = try source.next() {
      if resampler != nil {
        let out = try resampler!.process(block)
        if !out.isEmpty { try sink.write(out) }
      } else {
        try sink.write(block)
      }
    }
    try sink.finish()
    Diagnostics.reportNotes(source)
    Diagnostics.reportSkips(source)
  }
}
