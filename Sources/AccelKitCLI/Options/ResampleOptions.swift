import AccelCore
import AccelIO
import ArgumentParser

/// `--resample HZ`: shared by every command that can put a trace on a uniform grid first.
struct ResampleOptions: ParsableArguments {
  @Option(help: ArgumentHelp("Put the trace on a uniform grid at this rate (linear interpolation) first.", valueName: "hz"))
  var resample: Double?

  func validate() throws {
    if let resample, !(resample > 0 && resample.isFinite) {
      throw ValidationError("--resample must be a positive number of Hz, got \(formatNumber(resample))")
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
