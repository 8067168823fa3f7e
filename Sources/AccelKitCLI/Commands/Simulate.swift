import AccelCore
import AccelIO
import AccelPlot
import AccelSimulation
import ArgumentParser

struct Simulate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "simulate",
    abstract: "Replay a recording through the tilt toys of the iPhone OS sample apps: the bouncing ball and the sliding butterfly.",
    subcommands: [Ball.self, Slide.self])
}

/// Options both toys share.
struct SimulationOptions: ParsableArguments {
  @OptionGroup(title: "Input") var input: InputOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output CSV (`-` for stdout).", valueName: "path"))
  var output: String = "-"

  @Option(help: ArgumentHelp("Also draw the path as SVG.", valueName: "path"))
  var svg: String?

  @Option(help: ArgumentHelp("The view size in points.", valueName: "WxH"))
  var view: String = "320x460"

  func size() throws -> (Double, Double) {
    let parts = view.lowercased().split(separator: "x").compactMap { Double($0) }
    guard parts.count == 2, parts.allSatisfy({ $0 > 0 && $0 <= 100_000 }) else {
      throw ValidationError("--view takes WIDTHxHEIGHT in points (each in (0, 100000]), e.g. 320x460; got \"\(view)\"")
    }
    return (parts[0], parts[1])
  }

  func validate() throws { _ = try size() }

  /// Claims the CSV and SVG outputs before either is written (after the trace is opened).
  func reserveOutputs() throws { try RunFiles.reserveOutputs([output] + (svg.map { [$0] } ?? [])) }

  func writeSVG(_ svg: String, to path: String, input: ByteInput) throws {
    let file = try OutputFile(path: path, inputs: [input])
    try file.write(svg)
    try file.commit()
  }
}

struct Ball: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ball",
    abstract: "Roll the sample apps' bouncing ball with each reading; write t,x,y,vx,vy,bounce.",
    discussion: """
      velocity += (a_x, -a_y), each component capped to [-cap, cap]; position += velocity; past \
      an edge of the view less the margin the position is reflected and that velocity becomes \
      -damping times itself (bounce counts the edges hit: when the phone would vibrate).

      Examples:
        accelkit simulate ball datasets/test/000.csv -o ball.csv --svg ball.svg
        accelkit simulate ball --view 390x844 --damping 0.5 datasets/test/000.csv \\
          -o ball.csv
      """)

  @OptionGroup var options: SimulationOptions

  @Option(help: "The velocity kept, reversed, at a bounce.")
  var damping: Finite = 0.75

  @Option(help: ArgumentHelp("The largest speed per step on each axis.", valueName: "points"))
  var cap: Finite = 32

  @Option(help: ArgumentHelp("The distance from the view's edges where the ball bounces.", valueName: "points"))
  var margin: Finite = 8

  func run() throws {
    let (w, h) = try options.size()
    guard margin >= 0 && 2 * margin.value < min(w, h) else { throw AccelError.usage("--margin must leave room inside the view, got \(margin)") }
    let (source, input) = try TraceOpener.open(path: options.trace, settings: try options.input.settings())
    try options.reserveOutputs()
    var ball = BouncingBall(width: w, height: h, margin: margin.value, damping: damping.value, cap: cap.value)
    let table = try CSVTableWriter(
      output: try OutputFile(path: options.output, inputs: [input]), names: BouncingBall.columns,
      significantDigits: options.numbers.precision)
    var path: ToyPath? = options.svg == nil ? nil : ToyPath()
    while let block = try source.next() { try table.write(columns: ball.replay(block, path: &path)) }
    try table.finish()
    Diagnostics.reportNotes(source)
    if let svg = options.svg, let path {
      try options.writeSVG(Plots.path(width: w, height: h, points: path.drawnPoints, marks: path.marks, title: "bouncing ball: \(source.metadata.name)"), to: svg, input: input)
    }
  }
}

struct Slide: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "slide",
    abstract: "Slide the sample apps' butterfly with each reading; write t,x,y,vx,vy,angle.",
    discussion: """
      With xx = -a_x and yy = a_y: heading = atan2(yy, xx); an axis' factor (from 2.0) grows by \
      0.85 when the tilt opposes the motion on it; velocity = -factor * xx (and yy). A timer every \
      0.03 s of trace time moves the object by its velocity on each axis separately, refusing \
      moves that leave the view, and turns it to heading + pi/2. The original's C abs() truncated \
      these floats to integers; this uses the intended fabs.

      Examples:
        accelkit simulate slide datasets/test/000.csv -o slide.csv --svg slide.svg
      """)

  @OptionGroup var options: SimulationOptions

  func run() throws {
    let (w, h) = try options.size()
    let (source, input) = try TraceOpener.open(path: options.trace, settings: try options.input.settings())
    try options.reserveOutputs()
    var object = SlidingObject(width: w, height: h)
    let table = try CSVTableWriter(
      output: try OutputFile(path: options.output, inputs: [input]), names: SlidingObject.columns,
      significantDigits: options.numbers.precision)
    var path: ToyPath? = options.svg == nil ? nil : ToyPath()
    while let block = try source.next() { try table.write(columns: object.replay(block, path: &path)) }
    try table.finish()
    Diagnostics.reportNotes(source)
    if let svg = options.svg, let path {
      try options.writeSVG(Plots.path(width: w, height: h, points: path.drawnPoints, marks: [], title: "sliding butterfly: \(source.metadata.name)"), to: svg, input: input)
    }
  }
}
