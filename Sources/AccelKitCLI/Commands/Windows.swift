import AccelCore
import AccelIO
import ArgumentParser

struct Windows: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "windows",
    abstract: "Per-window statistics: mean, standard deviation, minimum and maximum of x, y and z.",
    discussion: """
      Sample i belongs to the window that starts at floor(t / width) * width, so windows line up with \
      multiples of the width (as polars' group_by_dynamic and SQL's GROUP BY floor(t / w)); a window \
      ends when the next sample belongs to another one. One row per window: t (its start), n (its \
      samples), then x_mean, x_std, x_min, x_max and the same for y and z. The standard deviation \
      divides by n - 1 (pandas' and SQL's stddev_samp) and is empty for a single value; missing \
      values (empty fields read with --allow-nonfinite) are left out. Streams in constant memory.

      Examples:
        accelkit windows datasets/test/000.csv --width 1 -o seconds.csv
        accelkit windows datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz \\
          --width 10 --precision 4 -o -
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output CSV path (`-` for stdout).", valueName: "path"))
  var output: String

  @Option(help: ArgumentHelp("The window's width.", valueName: "seconds"))
  var width: Finite = 1

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  func validate() throws {
    if !(width > 0) {
      throw ValidationError("--width must be a positive number of seconds")
    }
  }

  func run() throws {
    let (source, byteInput) = try TraceOpener.open(path: trace, settings: try input.settings())
    let file = try OutputFile(path: output, inputs: [byteInput])
    let table = try CSVTableWriter(
      output: file, names: WindowRow.columnNames, significantDigits: numbers.precision, exact: ["t", "n"])
    var windows = WindowStatistics(width: width.value)
    func write(_ rows: [WindowRow]) throws {
      guard !rows.isEmpty else { return }
      let values = rows.map(\.values)
      try table.write(columns: (0..<WindowRow.columnNames.count).map { c in values.map { $0[c] } })
    }
    // Each block's windows are computed on a background thread while the next block is parsed.
    try BackgroundStage<SampleBlock>(depth: 2) { try write(windows.process($0)) }.consume(source.next)
    try write(windows.finish().map { [$0] } ?? [])
    try table.finish()
    Diagnostics.reportNotes(source)
    Diagnostics.reportSkips(source)
  }
}
