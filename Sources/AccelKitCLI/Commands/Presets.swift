import AccelIO
import ArgumentParser

struct Presets: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "presets",
    abstract: "List the input presets for known recorders.",
    discussion: """
      A preset sets the input options for a recorder's files; options given on the command line \
      override it.

      Examples:
        accelkit presets
        accelkit info --preset st-mlc datasets/real/st-mlc/shake.csv
        accelkit convert --preset android datasets/samples/android/walk.csv \\
          -o walk.npy
      """
  )

  func run() throws {
    let width = Preset.all.map(\.name.count).max() ?? 0
    var text = ""
    for preset in Preset.all {
      text += preset.name.padded(to: width) + "  " + preset.summary + "\n"
      text += String(repeating: " ", count: width) + "  " + preset.settingsDescription + "\n"
    }
    try writeStdout(text)
  }
}

