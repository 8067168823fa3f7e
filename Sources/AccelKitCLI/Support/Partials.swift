import AccelCore
import AccelEvaluation
import AccelScaleOut

/// Writes a shard's partial result to DIR/partial.json (atomically) or to stdout (`-`), as
/// `evaluate`, `tune` and `merge` do.
func writePartial(_ json: String, to output: String) throws {
  if output == "-" {
    try writeStdout(json)
  } else {
    try PartialFiles.write(json, toDirectory: output)
  }
}
