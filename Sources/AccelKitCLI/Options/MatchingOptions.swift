import AccelEvaluation
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
  var tolerance: Finite = 0.25

  @Option(
    help: ArgumentHelp(
      "The standard (sed_eval) event-based metrics: onsets may differ by this much (and offsets by at least this much).",
      valueName: "seconds"))
  var collar: Finite = 0.2

  @Option(
    help: ArgumentHelp(
      "The standard onset+offset metrics: offsets may differ by this fraction of the annotation's length (when more than the collar).",
      valueName: "fraction"))
  var offsetFraction: Finite = 0.5

  @Option(help: ArgumentHelp("The segment length of the segment-based metrics.", valueName: "seconds"))
  var segment: Finite = 1

  @OptionGroup var annotations: AnnotationOptions

  func annotationOptions() throws -> AnnotationReadOptions { try annotations.readOptions() }

  var criteria: StandardCriteria {
    StandardCriteria(collar: collar.value, offsetFraction: offsetFraction.value, segment: segment.value)
  }

  @Flag(help: "No progress line on stderr (it is shown only on a terminal).")
  var quiet = false

  @Flag(help: "Let the manifest name files outside the dataset folder (absolute paths, ../).")
  var allowOutsidePaths = false

  @Option(help: "Traces evaluated at once (default: all cores).")
  var jobs: Int?

  func validate() throws {
    if !(tolerance >= 0) {
      throw ValidationError("--tolerance must be at least 0 s, got \(tolerance)")
    }
    if !(collar >= 0) {
      throw ValidationError("--collar must be at least 0 s, got \(collar)")
    }
    if !(offsetFraction >= 0) {
      throw ValidationError("--offset-fraction must be at least 0, got \(offsetFraction)")
    }
    if !(segment > 0) {
      throw ValidationError("--segment must be more than 0 s, got \(segment)")
    }
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
  }
}
