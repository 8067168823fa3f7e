import AccelCore
import AccelFilters
import AccelIO
import AccelOrientation
import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension OrientationSettings.Angles: ExpressibleByArgument {}
extension GyroscopeUse: ExpressibleByArgument {}

struct Orientation: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "orientation",
    abstract:
      "Estimate roll, pitch, tilt and the device orientation of every sample, or the orientation change events.",
    discussion: """
      Gravity is estimated with the exponential low-pass (default cutoff 0.8 Hz: a time constant \
      of 0.2 s, Android's, at any rate) or taken as is with --raw (for inputs that already are \
      gravity, e.g. --preset coremotion-gravity). When the trace has a gyroscope, gravity comes \
      from the fused attitude instead (VQF, as `accelkit attitude --mag off`): it follows \
      rotations at once and is not fooled by the accelerations of shakes and translations, so \
      the angles stop flipping; --gyro off keeps the low-pass. Writes t,roll,pitch,tilt,up_angle,orientation \
      (degrees; up_angle in radians): pitch = atan2(-g_y, sqrt(g_x^2 + g_z^2)), roll = atan2(g_x, \
      -g_z) (Core Motion's naming and values); --angles aerospace writes t,roll_x,pitch_y,... from \
      the specific force (AN3461). Within 0.5 degrees of pitch +-90 roll has no direction: the \
      previous roll is held (0 at the start), so it stays finite and does not jump.

      --to npy or raw (or an output path ending in .npy or .raw) writes the same rows in binary, \
      every field a little-endian float: the class becomes orientation_code, its number in \
      0 portrait, 1 portrait-upside-down, 2 landscape-left, 3 landscape-right, 4 face-up, \
      5 face-down, 6 unknown. Writing numbers as text is half the cost of this command: NPY output is \
      about twice as fast as CSV, and --precision shortens CSV numbers.

      --events writes t,from,to: a new orientation is announced once it has held for --settle \
      seconds, the current one keeping its region widened by --hysteresis degrees; with the \
      low-pass, nothing is announced (and the class is unknown) while the reading is more than \
      --accel-tolerance from 1 g.

      Examples:
        accelkit orientation datasets/test/000.csv -o attitude.csv
        accelkit orientation --raw datasets/samples/table-rest.csv -o rest.csv
        accelkit orientation datasets/test/000.csv -o attitude.npy
        accelkit orientation --precision 4 datasets/test/000.csv -o rounded.csv
        accelkit orientation --events datasets/test/000.csv -o changes.csv
        accelkit orientation --angles aerospace \\
          datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz -o tilt.csv
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output path (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(
    help:
      "The output format: csv, tsv, npy or raw (default: from the output extension, else csv); --events writes CSV only."
  )
  var to: TraceFormat?

  @Flag(help: "Use the readings as gravity, without low-pass filtering.")
  var raw = false

  @Option(help: ArgumentHelp("The gravity low-pass factor a in (0, 1], instead of --cutoff.", valueName: "a"))
  var alpha: Finite?

  @Option(help: ArgumentHelp("The gravity low-pass cutoff (RC = 1 / (2 pi fc)).", valueName: "hz"))
  var cutoff: Finite?

  @Option(help: "coremotion (roll, pitch) or aerospace (roll_x, pitch_y on the specific force).")
  var angles: OrientationSettings.Angles = .coremotion

  @Option(
    help: "auto: gravity from the fused attitude when the trace has a gyroscope; off: the low-pass always.")
  var gyro: GyroscopeUse = .auto

  @Option(
    help: ArgumentHelp(
      "Within this many degrees of flat the device is face-up or face-down.", valueName: "degrees"))
  var flatAngle: Finite = Finite(OrientationClassifier.defaultFlatAngle)

  @Option(help: ArgumentHelp("The orientation is unknown while | |a| - 1 g | exceeds this.", valueName: "g"))
  var accelTolerance: Finite = Finite(OrientationClassifier.defaultAccelerationTolerance)

  @Flag(help: "Write orientation change events (t,from,to) instead of per-sample angles.")
  var events = false

  @Option(
    help: ArgumentHelp("How long a new orientation must hold before it is announced.", valueName: "seconds"))
  var settle: Finite = Finite(OrientationAnnouncer.defaultSettle)

  @Option(
    help: ArgumentHelp("How far past a boundary the current orientation is kept.", valueName: "degrees"))
  var hysteresis: Finite = Finite(OrientationClassifier.defaultHysteresis)

  @OptionGroup var resampling: ResampleOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  func validate() throws {
    if alpha != nil && cutoff != nil { throw ValidationError("give --alpha or --cutoff, not both") }
    if raw && (alpha != nil || cutoff != nil) { throw ValidationError("--raw takes no --alpha or --cutoff") }
    if let alpha, !(alpha > 0 && alpha <= 1) {
      throw ValidationError("alpha must be in (0, 1], got \(alpha)")
    }
    if !(flatAngle >= 0 && flatAngle < 90) {
      throw ValidationError("--flat-angle must be in [0, 90) degrees, got \(flatAngle)")
    }
    if !(accelTolerance > 0) {
      throw ValidationError("--accel-tolerance must be positive, got \(accelTolerance)")
    }
    if !(settle >= 0) { throw ValidationError("--settle must be at least 0 s, got \(settle)") }
    if !(hysteresis >= 0 && hysteresis < 45) {
      throw ValidationError("--hysteresis must be in [0, 45) degrees, got \(hysteresis)")
    }
    if events, let format, format != .csv {
      throw ValidationError("--events writes CSV (t,from,to), not \(format.rawValue)")
    }
    if events && numbers.precision != nil {
      throw ValidationError("--precision applies to per-sample rows, not to --events")
    }
  }

  /// The typed settings these options make.
  var settings: OrientationSettings {
    var s = OrientationSettings()
    if raw {
      s.gravity = .raw
    } else if let alpha {
      s.gravity = .lowpass(.alpha(alpha.value))
    } else if let cutoff {
      s.gravity = .lowpass(.cutoff(cutoff.value))
    }
    s.angles = angles
    s.gyroscope = gyro
    s.classifier = OrientationClassifier(
      flatAngle: flatAngle.value, accelerationTolerance: accelTolerance.value, hysteresis: hysteresis.value)
    s.settle = settle.value
    return s
  }

  /// The output format: --to, else the output's extension, else CSV.
  var format: TraceFormat? { to ?? TraceFormat(pathExtensionOf: output) }

  func run() throws {
    let stream = try Diagnostics.openStream(
      path: trace, settings: try input.settings(), resample: resampling.rate)
    var stage = try OrientationStage(settings, rate: stream.rate)
    if events {
      let file = try OutputFile(path: output, inputs: [stream.input])
      try file.write("t,from,to\n")
      while let block = try stream.next() {
        for e in stage.events(block) {
          try file.write("\(formatNumber(e.t)),\(e.from.rawValue),\(e.to.rawValue)\n")
        }
      }
      try file.commit()
    } else if case .csv(let delimiter) = try TableFormat(format ?? .csv) {
      let file = try OutputFile(path: output, inputs: [stream.input])
      let table = try CSVTableWriter(
        output: file, names: stage.settings.header, delimiter: delimiter, significantDigits: numbers.precision,
        pipelined: true)
      let names = DeviceOrientation.allCases.map(\.rawValue)
      while let block = try stream.next() {
        let rows = stage.rows(block)
        let labels = CategoricalColumn(names: names, codes: rows.orientation.map(\.index))
        try table.write(columns: [rows.t, rows.first, rows.second, rows.tilt, rows.upAngle], labels: labels)
      }
      try table.finish()  // waits for the rows still being written, then commits
    } else {
      let table = try TableFormat.openWriter(
        path: output, format: format, inputs: [stream.input], names: stage.settings.binaryHeader,
        precision: .float64)
      while let block = try stream.next() {
        let rows = stage.rows(block)
        try table.write(columns: [rows.t, rows.first, rows.second, rows.tilt, rows.upAngle, rows.orientationCodes])
      }
      try table.finish()
    }
    Diagnostics.reportSkips(stream.source)
  }
}
