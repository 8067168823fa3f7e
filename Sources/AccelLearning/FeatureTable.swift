import AccelCore

/// The rows `accelkit features` writes: per window `start` and `end` (seconds), the features in
/// the specification's order, per label `label_LABEL` (1 the label's window, 0 none, missing when
/// too little of an event covers it to say) and, with a model, `p_LABEL`: the model's
/// probability, as detection computes it (and `p_LABEL.sustained`, its sustained classifier's, for
/// a label that has one).
public struct FeatureTable {
  public let columnNames: [String]
  private var extractor: FeatureExtractor
  private let labels: [(name: String, events: [(start: Double, end: Double)])]
  private let model: LearnedModel?

  /// `model`: its specification is used and its probabilities added.
  public init(
    spec: FeatureSpec, labels: [(name: String, events: [(start: Double, end: Double)])],
    model: LearnedModel? = nil
  ) throws {
    let spec = model?.spec ?? spec
    extractor = try FeatureExtractor(spec: spec)
    self.labels = labels
    self.model = model
    columnNames =
      ["start", "end"] + spec.names + labels.map { "label_\($0.name)" }
      + (model?.labels.map { "p_\($0)" } ?? [])
      + (model.map { m in zip(m.labels, m.sustained).compactMap { $1 == nil ? nil : "p_\($0).sustained" } }
        ?? [])
  }

  /// The rows a block completes, as columns.
  public mutating func process(_ block: SampleBlock) -> [[Double]] {
    var columns = [[Double]](repeating: [], count: columnNames.count)
    let labels = self.labels
    let model = self.model
    extractor.process(block) { start, end, values in
      columns[0].append(start)
      columns[1].append(end)
      for (k, v) in values.enumerated() { columns[2 + k].append(v) }
      var c = 2 + values.count
      for label in labels {
        let target = windowTarget(start: start, end: end, events: label.events)
        columns[c].append(target < 0 ? .nan : Double(target))
        c += 1
      }
      for classifier in (model?.classifiers ?? []) + (model?.sustained.compactMap { $0 } ?? []) {
        columns[c].append(classifier.probability(values))
        c += 1
      }
    }
    return columns
  }
}
