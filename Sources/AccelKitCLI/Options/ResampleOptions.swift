import AccelCore
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
