import AccelCore
import AccelEvaluation
import ArgumentParser

extension AnnotationFormat: ExpressibleByArgument {}

/// How annotation files are read: shared by evaluate, tune and labels convert.
struct AnnotationOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The annotation files' format: auto, csv, audacity, elan or label-studio (auto: from their content).",
      valueName: "format"))
  var labelsFormat: AnnotationFormat = .auto

  @Option(
    help: ArgumentHelp(
      "Annotation CSV columns: start=COL,end=COL,label=COL (or duration=COL, value=TEXT; unit=s|ms|us|ns|min|h).",
      valueName: "mapping"))
  var labelColumns: String?

  @Option(
    help: ArgumentHelp("The task of a Label Studio export that holds several (or FILE#ID).", valueName: "id"))
  var labelsTask: String?

  func readOptions() throws -> AnnotationReadOptions {
    AnnotationReadOptions(
      format: labelsFormat, columns: try labelColumns.map { try AnnotationColumns(parsing: $0) },
      task: labelsTask)
  }

  func validate() throws {
    if let labelColumns {
      do { _ = try AnnotationColumns(parsing: labelColumns) } catch let error as AccelError {
        throw ValidationError(error.message)
      }
    }
  }
}
