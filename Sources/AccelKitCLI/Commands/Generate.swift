import AccelCore
import AccelIO
import AccelSynthesis
import ArgumentParser

extension Scenario: ExpressibleByArgument {}

struct Generate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "generate",
    abstract: "Generate annotated accelerometer traces from a motion and a sensor model, seeded and reproducible.",
    discussion: """
      Writes NNN.csv, NNN.events.csv (every intentional shake annotated from its true start to \
      end; taps and drops with their own labels), NNN.truth.csv (true gravity, roll, pitch), \
      manifest.csv and a README with the exact command. The same options give the same bytes.

      Examples:
        accelkit generate -o my-train --traces 20 --seed 1
        accelkit generate -o my-test --traces 12 --seed 2
        accelkit generate -o negatives --scenario negatives --traces 5
        accelkit generate -o twists --scenario shakes --shake-models twist --traces 5
      """)

  @Option(name: .shortAndLong, help: ArgumentHelp("The folder to write (created if missing).", valueName: "dir"))
  var output: String

  @Option(help: "How many traces.")
  var traces: Int = 10

  @Option(help: "The random seed.")
  var seed: UInt64 = 1

  @Option(
    help:
      "mixed, shakes (a shake after most stretches), sustained (8-60 s of shaking in bursts, 90 s traces), negatives (no shakes) or hard-negatives (no shakes: chopping and rocking like a steering wheel).")
  var scenario: Scenario = .mixed

  @Option(
    help: ArgumentHelp(
      "The motion models shakes are drawn from: all, or a comma list of sine, strokes, twist, walking (the manifest's source names them).",
      valueName: "models"))
  var shakeModels: String = "all"

  @Option(help: "The split name written into the manifest.")
  var split: String?

  var styles: [MotionSegment.ShakeStyle]? {
    if shakeModels == "all" { return MotionSegment.ShakeStyle.allCases }
    let names = shakeModels.split(separator: ",").map(String.init)
    let styles = names.compactMap(MotionSegment.ShakeStyle.init(name:))
    return styles.count == names.count && !styles.isEmpty && Set(names).count == names.count ? styles : nil
  }

  func validate() throws {
    if styles == nil {
      throw ValidationError(
        "--shake-models takes all or a comma list of \(MotionSegment.ShakeStyle.allCases.map(\.name).joined(separator: ", ")), got \"\(shakeModels)\"")
    }
    if traces < 1 || traces > 10_000 { throw ValidationError("--traces must be from 1 to 10000, got \(traces)") }
  }

  func run() throws {
    try makeDirectories(output)
    // Every file is written whole before any is renamed into place: a failure (a full disk) leaves
    // an existing dataset in the folder as it was, not half replaced.
    var staged = StagedOutputs()
    let splitName = split ?? String(output.split(separator: "/").last ?? "set")
    let command = "accelkit generate -o \(output) --traces \(traces) --seed \(seed) --scenario \(scenario.rawValue)" + (split.map { " --split \($0)" } ?? "")
      + (shakeModels == "all" ? "" : " --shake-models \(shakeModels)")
    try Generator.writeDataset(
      directory: output, count: traces, seed: seed, scenario: scenario, split: splitName, command: command,
      shakeModels: styles!
    ) { name, text in
      let file = try OutputFile(path: output + "/" + name)
      try file.write(text)
      try staged.add(file)
    }
    try staged.commit()
  }
}
