import AccelCore
import AccelIO
import ArgumentParser

/// `--resample HZ`: shared by every command that can put a trace on a uniform grid first.
struct ResampleOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Put the trace on a uniform grid at this rate (linear interpolation) first.", valueName: "hz"))
  var resample: Finite?

  /// The grid's rate in Hz, or nil for the trace as recorded.
  var rate: Double? { resample?.value }

  func validate() throws {
    if let resample, !(resample > 0) {
      throw ValidationError("--resample must be a positive number of Hz, got \(formatNumber(resample.value))")
    }
  }
}

/// The format and value type of a table written by trim and decimate.
struct WrittenTableOptions: ParsableArguments {
  @Option(help: "The output format: csv, tsv, npy or raw (default: from the output extension, else csv).")
  var outputFormat: TraceFormat?

  @Option(help: "The value type of NPY and raw output: f64 or f32 (default: that of the input).")
  var dtype: SamplePrecision?
}

/// `--precision N`: significant digits of the numbers in CSV output (data files keep the
/// shortest text that reads back to the same value unless asked).
struct NumberOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Round the numbers of CSV output to this many significant digits, time excepted (default: the shortest text that reads back to the same value; NPY and raw keep every bit).",
      valueName: "digits"))
  var precision: Int?

  func validate() throws {
    if let precision, !(1...17).contains(precision) {
      throw ValidationError("--precision takes 1 to 17 significant digits, got \(precision)")
    }
  }
}
