import AccelCore
import AccelFilters
import AccelIO
import ArgumentParser

struct Decimate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "decimate",
    abstract: "Downsample by an integer factor after an anti-alias filter, as scipy.signal.decimate.",
    discussion: """
      The filter is scipy.signal.decimate's default: a Chebyshev type I low-pass of --order 8 with \
      0.05 dB of passband ripple and its edge at 0.8 x the new Nyquist frequency, run forward and \
      backward (zero phase, as sosfiltfilt with its padding) or, with --causal, forward from rest \
      (as sosfilt); then every factor-th sample from the first is kept, with its timestamp. \
      Writes t,x,y,z (the gyroscope and magnetometer are not decimated). Zero phase streams in \
      bounded memory (the forward pass goes to a scratch file, as filter --zero-phase). scipy's FIR \
      variant (ftype='fir') is not offered.

      Examples:
        accelkit decimate --factor 4 datasets/test/000.csv -o 25hz.csv
        accelkit decimate --factor 10 --causal \\
          datasets/real/broad/02_undisturbed_slow_rotation_B.csv.gz -o slow.npy
        accelkit info 25hz.csv
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The trace to decimate (`-` for stdin).")
  var trace: String = "-"

  @Option(name: .shortAndLong, help: ArgumentHelp("The output path (`-` for stdout).", valueName: "path"))
  var output: String

  @Option(help: "Keep one sample in this many (2 to 1000).")
  var factor: Int

  @Option(help: "The order of the Chebyshev anti-alias filter.")
  var order = 8

  @Flag(help: "Filter forward only, from rest (scipy's zero_phase=False): the output lags.")
  var causal = false

  @OptionGroup(title: "Output") var written: WrittenTableOptions

  @OptionGroup(title: "Numbers") var numbers: NumberOptions

  func validate() throws {
    do { _ = try Decimation(factor: factor, order: order) } catch let error as AccelError {
      throw ValidationError(error.message)
    }
  }

  func run() throws {
    let decimation = try Decimation(factor: factor, order: order)
    let stream = try Diagnostics.openStream(path: trace, settings: try input.settings(), resample: nil)
    let writer = try TableFormat.openWriter(
      path: output, format: written.outputFormat, inputs: [stream.input], names: ["t", "x", "y", "z"],
      precision: written.dtype ?? stream.source.metadata.precision, significantDigits: numbers.precision)
    // Every factor-th row of the filtered stream, counted from the first.
    var index = 0
    let q = decimation.factor
    func keep(_ columns: [[Double]]) throws {
      let n = columns[0].count
      let first = (q - index % q) % q
      index += n
      guard first < n else { return }
      try writer.write(
        columns: columns.map { column in stride(from: first, to: n, by: q).map { column[$0] } })
    }
    if causal {
      var filter = SOSFilter3(sections: decimation.design.sections, initialization: .zero)
      while let block = try stream.next() {
        var (x, y, z) = (block.x, block.y, block.z)
        filter.process(&x, &y, &z)
        try keep([block.t, x, y, z])
      }
    } else {
      try ZeroPhaseRunner.run(
        sections: decimation.design.sections, name: stream.name, store: try ScratchFile(), next: stream.next,
        write: keep)
    }
    try writer.finish()
    Diagnostics.reportSkips(stream.source)
  }
}
