import AccelCore
import AccelIO
import AccelOrientation
import ArgumentParser

extension AttitudeMethod: ExpressibleByArgument {}
extension MagnetometerUse: ExpressibleByArgument {}

struct AttitudeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "attitude",
    abstract:
      "Estimate the full attitude of every sample by fusing the gyroscope, accelerometer and magnetometer.",
    discussion: """
      Writes t,qw,qx,qy,qz,roll,pitch,yaw: the unit quaternion (Hamilton, scalar first) that maps \
      sensor-frame vectors into a world frame with z up, east-north-up when the magnetometer is \
      used (otherwise the heading is relative: the first sample's yaw is 0), and its Euler angles \
      in degrees. --angles coremotion (default): R = Rz(yaw) Rx(pitch) Ry(roll), Core Motion's \
      order, roll and pitch as `orientation` gives them, yaw the heading of the device's y axis \
      counterclockwise from north. --angles aerospace writes roll_x,pitch_y,yaw_z for \
      R = Rz(yaw) Ry(pitch) Rx(roll), yaw the heading of the x axis counterclockwise from east. \
      yaw is empty with --method accel and no magnetometer.

      Methods: vqf (default with a gyroscope; Laidig & Seel 2023, with rest detection, gyroscope \
      bias estimation and magnetic disturbance rejection), madgwick, mahony (as the Python ahrs \
      package computes them), complementary, accel (the accelerometer alone; default without a \
      gyroscope). --list-params lists every method's parameters with units and defaults; set \
      them with --param NAME=VALUE. Streams in constant memory; the gyroscope is integrated over \
      each sample's own interval, so irregular timestamps are handled. --offline runs VQF's \
      offline variant, which also uses future samples (a temporary file in $TMPDIR holds the trace).

      Examples:
        accelkit attitude datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz \\
          -o attitude.csv
        accelkit attitude --offline --angles aerospace \\
          datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz -o offline.csv
        accelkit attitude --mag off --method madgwick --param gain=0.05 \\
          datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz -o attitude.npy
        accelkit attitude --list-params
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output path (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(help: "The output format: csv, tsv, npy or raw (default: from the output extension, else csv).")
  var to: TraceFormat?

  @Option(help: "vqf, madgwick, mahony, complementary or accel (default: vqf with a gyroscope, else accel).")
  var method: AttitudeMethod?

  @Option(help: "Correct the heading with the magnetometer: auto (when the trace has one), on or off.")
  var mag: MagnetometerUse = .auto

  @Option(help: "coremotion (roll, pitch, yaw) or aerospace (roll_x, pitch_y, yaw_z).")
  var angles: OrientationSettings.Angles = .coremotion

  @Option(
    name: .customLong("param"),
    help: ArgumentHelp(
      "Set a parameter of the method (repeatable); see --list-params.", valueName: "name=value"))
  var params: [String] = []

  @Flag(
    help:
      "VQF's offline variant: uses future samples too (bias from both directions, zero-phase accelerometer and heading filters); a temporary file of 192 bytes per sample."
  )
  var offline = false

  @Flag(help: "Print each method's parameters with unit, default and meaning.")
  var listParams = false

  @OptionGroup var resampling: ResampleOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  func settings() throws -> AttitudeSettings {
    var s = AttitudeSettings()
    s.method = method
    s.magnetometer = mag
    s.angles = angles
    s.parameters = try parseAssignments(params, owner: method?.rawValue ?? "vqf").map {
      AttitudeSettings.Assignment(name: $0.0, value: $0.1)
    }
    return s
  }

  func run() throws {
    if listParams {
      try writeStdout(AttitudeSettings.parameterList)
      return
    }
    let settings = try settings()
    let stream = try Diagnostics.openStream(path: trace, settings: try input.settings(), resample: resampling.rate)
    var stage = try AttitudeStage(settings, rate: stream.rate, layout: stream.source.metadata.layout)
    let writer = try TableFormat.openWriter(
      path: output, format: to, inputs: [stream.input], names: settings.header, precision: .float64,
      significantDigits: numbers.precision)
    if offline {
      try AttitudeStage.offline(
        settings, rate: stream.rate, layout: stream.source.metadata.layout, store: try ScratchFile(),
        next: stream.next
      ) { try writer.write(columns: $0.columns) }
      try writer.finish()
      Diagnostics.reportSkips(stream.source)
      return
    }
    // The filter runs here; angles and output on a second thread, block by block in order.
    let (angles, heading) = (settings.angles, stage.hasHeading)
    let output = BackgroundStage<(t: [Double], quaternions: [Quaternion])> { item in
      try writer.write(
        columns: AttitudeRows(t: item.t, quaternions: item.quaternions, angles: angles, hasHeading: heading)
          .columns)
    }
    while let block = try stream.next() { try output.submit((block.t, stage.attitudes(block))) }
    try output.finish()
    try writer.finish()
    Diagnostics.reportSkips(stream.source)
  }
}
