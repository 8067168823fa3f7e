import AccelCore
import AccelEvaluation
import AccelGestures
import AccelIO
import AccelLearning
import ArgumentParser

struct Features: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a trace's window features (the ones accelkit train learns from), one row per window.",
    discussion: """
      Columns: start and end (seconds: the shortest window), then every feature (named \
      wWIDTH_SIGNAL_FEATURE, see docs/LEARNING.md), then label_LABEL per label of --labels (1: \
      the window is the label's, 0: none, empty: too little of an event to say) and, with \
      --model, p_LABEL: the model's probability, exactly as detection computes it (and \
      p_LABEL.sustained, its sustained classifier's, for a label that has one). A missing \
      feature (the gyroscope's, when a trace has none) is an empty field (NaN in NPY). -o \
      FILE.npy writes a structured NPY array instead of CSV. Streams in constant memory.

      Examples:
        accelkit features datasets/test/000.csv --labels \\
          datasets/test/000.events.csv -o features.csv
        accelkit features datasets/test/000.csv --window 2 --hop 0.5 -o coarse.npy
      """)

  @OptionGroup(title: "Input") var input: InputOptions

  @Argument(help: "The trace (`-` for stdin).")
  var trace: String = "-"

  @Option(
    name: .shortAndLong,
    help: ArgumentHelp("The output: CSV, or NPY for a .npy name (`-` for stdout CSV).", valueName: "path"))
  var output: String

  @Option(
    help: ArgumentHelp("An events CSV (start,end,label) whose labels each window gets.", valueName: "file"))
  var labels: String?

  @Option(
    name: .customLong("label"), help: "The labels written (repeatable; default: every label of --labels).")
  var chosenLabels: [String] = []

  @Option(
    help: ArgumentHelp("A learned model: its features and its probability per window.", valueName: "dir"))
  var model: String?

  @OptionGroup(title: "Features") var features: FeatureOptions

  func validate() throws {
    if model != nil, features.isGiven {
      throw ValidationError(
        "--model brings its own features: --window, --hop, --feature-rate, --band, --gyro, --exponential and --span go without it"
      )
    }
    if !chosenLabels.isEmpty, labels == nil {
      throw ValidationError("--label chooses among the labels of --labels FILE")
    }
  }

  func run() throws {
    let spec = try features.spec()
    let learned = try model.map { try LearnedModel.load(directory: $0) }
    var labelled: [(name: String, events: [(start: Double, end: Double)])] = []
    if let labels {
      let events = try EventsFile.read(path: labels)
      let names = chosenLabels.isEmpty ? Array(Set(events.map(\.label))).sorted() : chosenLabels
      labelled = names.map { name in (name, events.filter { $0.label == name }.map { ($0.start, $0.end) }) }
    }
    var table = try FeatureTable(spec: spec, labels: labelled, model: learned)
    let (source, byteInput) = try TraceOpener.open(path: trace, settings: try input.settings())
    let file = try OutputFile(path: output, inputs: [byteInput])
    let sink: TableSink =
      output.lowercased().hasSuffix(".npy")
      ? try NPYTableWriter(output: file, names: table.columnNames)
      : try CSVTableWriter(output: file, names: table.columnNames, exact: ["start", "end"])
    while let block = try source.next() {
      let columns = table.process(block)
      if !columns[0].isEmpty { try sink.write(columns: columns) }
    }
    try sink.finish()
    Diagnostics.reportNotes(source)
    Diagnostics.reportSkips(source)
  }
}
