import ArgumentParser

/// How detections are matched with annotations, and how a dataset is read: shared by evaluate
/// and tune.
struct MatchingOptions: ParsableArguments {
  @Option(
    help:
      "The annotation label detections are matched with (default: the label each rule emits, \"shake\" for the shake rules)."
  )
  var label: String?

  @Option(
    help: ArgumentHelp("Widen both intervals by this much before testing overlap.", valueName: "seconds"))
  var tolerance: Double = 0.25

  @Flag(help: "Let the manifest name files outside the dataset folder (absolute paths, ../).")
  var allowOutsidePaths = false

  @Option(help: "Traces evaluated at once (default: all cores).")
  var jobs: Int?

  func validate() throws {
    if !(tolerance >= 0 && tolerance.isFinite) {
      throw ValidationError("--tolerance must be at least 0 s, got \(tolerance)")
    }
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
  }
}
