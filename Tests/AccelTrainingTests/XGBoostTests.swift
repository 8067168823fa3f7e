import AccelCore
import AccelEvaluation
import AccelLearning
import AccelTuning
import TestSupport
import Testing

@testable import AccelTraining

/// Random rows with missing values and a label that depends on two of the columns.
func randomProblem(rows: Int, columns: Int, seed: UInt64) -> (values: [Float], labels: [Float]) {
  var random = SeededRandom(seed: seed)
  var values: [Float] = []
  var labels: [Float] = []
  for _ in 0..<rows {
    var row = (0..<columns).map { _ in Float(Double.random(in: -3...3, using: &random)) }
    if Double.random(in: 0...1, using: &random) < 0.1 { row[1] = .nan }
    values += row
    let score = Double(row[0]) + (row[1].isNaN ? 0.5 : Double(row[1]) * Double(row[1]) - 1)
    labels.append(score + Double.random(in: -0.5...0.5, using: &random) > 0 ? 1 : 0)
  }
  return (values, labels)
}

@Suite struct XGBoostTests {
  /// accelkit's reading of XGBoost's JSON predicts what XGBoost's own predictor predicts, missing
  /// values included (the model is the description: the C API, Python and accelkit agree).
  @Test func treesPredictAsXGBoostDoes() throws {
    let columns = 6
    let (values, labels) = randomProblem(rows: 2000, columns: columns, seed: 3)
    let names = (0..<columns).map { "f\($0)" }
    let matrix = try values.withUnsafeBufferPointer {
      try TrainingMatrix(
        rows: labels.count, columns: columns, values: $0, labels: labels, weights: nil, names: names)
    }
    var settings = TrainingSettings(labels: ["shake"])
    settings.rounds = 40
    settings.maxDepth = 4
    let booster = try Booster(training: matrix, parameters: settings.boosterParameters(positiveWeight: 2))
    try booster.train(matrix, rounds: settings.rounds)
    let json = try booster.json()
    let reference = try booster.predict(matrix)
    let ensemble = try TreeEnsemble(json: json, file: "model")
    #expect(ensemble.featureNames == names)
    var largest = 0.0
    for r in 0..<labels.count {
      let row = (0..<columns).map { Double(values[r * columns + $0]) }
      let p = row.withUnsafeBufferPointer { ensemble.probability($0) }
      largest = max(largest, abs(p - Double(reference[r])))
    }
    #expect(largest <= 1e-6, "largest difference \(largest)")
    // And the model loaded back from its JSON predicts the same.
    let loaded = try Booster.load(json: json)
    #expect(try loaded.predict(matrix) == reference)
  }

  /// The same data and seed give the same bytes, whatever the thread count.
  @Test func trainingIsDeterministic() throws {
    let columns = 5
    let (values, labels) = randomProblem(rows: 3000, columns: columns, seed: 9)
    func model(threads: Int) throws -> [UInt8] {
      let matrix = try values.withUnsafeBufferPointer {
        try TrainingMatrix(
          rows: labels.count, columns: columns, values: $0, labels: labels, weights: nil,
          names: (0..<columns).map { "c\($0)" })
      }
      var settings = TrainingSettings(labels: ["x"])
      settings.threads = threads
      let booster = try Booster(training: matrix, parameters: settings.boosterParameters(positiveWeight: 1))
      try booster.train(matrix, rounds: 30)
      return try booster.json()
    }
    let one = try model(threads: 1)
    #expect(try model(threads: 1) == one)
    #expect(try model(threads: 2) == one)
  }

  @Test func modelsAccelkitCannotRunAreRefused() throws {
    for text in [
      "{}", "{\"learner\": {\"objective\": {\"name\": \"reg:squarederror\"}}}",
      "{\"learner\": {\"objective\": {\"name\": \"binary:logistic\"}, \"feature_names\": [\"a\"], \"learner_model_param\": {\"base_score\": \"5E-1\"}, \"gradient_booster\": {\"name\": \"gbtree\", \"model\": {\"trees\": [{\"left_children\": [1, -1, -1], \"right_children\": [2, -1, -1], \"split_indices\": [7, 0, 0], \"split_conditions\": [0, 1, 2], \"default_left\": [1, 0, 0]}]}}}}",
    ] {
      #expect(throws: AccelError.self) { try TreeEnsemble(json: Array(text.utf8), file: "m.json") }
    }
  }
}

/// What train says when the bounds leave no useful decoding (worked by hand).
@Suite struct BoundNoteTests {
  @Test func aDecodingThatFindsNothingIsExplained() {
    var nothing = Metrics()
    nothing.fn = 8
    nothing.duration = 0.17 * 3600
    var some = Metrics()
    some.tp = 8
    some.fp = 1
    some.duration = 0.17 * 3600
    let quiet = ProbabilityDecoder.Configuration()
    var loud = ProbabilityDecoder.Configuration()
    loud.on = 0.9
    let settings = TrainingSettings(labels: ["shake"])
    let search = [
      (
        decoding: quiet, score: TuningScore(violation: 0, objective: 0, falseAlarmsPerHour: 0), total: nothing
      ),
      (
        decoding: loud, score: TuningScore(violation: 4.9, objective: 1, falseAlarmsPerHour: 5.9), total: some
      ),
    ]
    let notes = Trainer.boundNotes(search: search, chosen: quiet, settings: settings)
    #expect(notes.count == 1)
    #expect(
      notes.first?.hasPrefix("no decoding that finds any of the 8 events meets false_alarms_per_hour <= 1")
        == true, "\(notes)")
    #expect(notes.first?.contains("they last 0.17 h, so one false alarm is 5.88 an hour") == true, "\(notes)")
    #expect(notes.first?.contains("finds nothing (F1 0)") == true, "\(notes)")
    // A decoding that meets the bounds and finds events: nothing to say.
    #expect(Trainer.boundNotes(search: search, chosen: loud, settings: settings).count == 1)
    let fine = [
      (decoding: loud, score: TuningScore(violation: 0, objective: 1, falseAlarmsPerHour: 0), total: some)
    ]
    #expect(Trainer.boundNotes(search: fine, chosen: loud, settings: settings).isEmpty)
  }
}
