import AccelCore
import AccelIO

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A learned detector as `accelkit train` writes it in a directory: `detector.json` (the feature
/// specification, the labels, each label's event decoding) and, per label, XGBoost's own JSON
/// model `LABEL.xgb.json` whose `feature_names` are the specification's names. A label may also
/// have a sustained classifier, `LABEL.sustained.xgb.json` (`detector.json` lists it under
/// `"sustained"`), read on the same rows: its probability drives the decoding's hold path and
/// `sustained_on`/`sustained_off` (`ProbabilityDecoder`; `train --sustained` trains one).
public struct LearnedModel: Sendable {
  public static let descriptionFile = "detector.json"
  public static let format = "accelkit-detector"

  public let spec: FeatureSpec
  public let labels: [String]
  public let classifiers: [TreeEnsemble]
  /// Each label's sustained classifier, or nil.
  public let sustained: [TreeEnsemble?]
  public let decoding: [ProbabilityDecoder.Configuration]
  /// Whether the model was budgeted for its trees as a table (`train --trees table`, recorded in
  /// `detector.json`'s training budget): its exported header builds them so unless told otherwise.
  public let treesAsTable: Bool

  public init(
    spec: FeatureSpec, labels: [String], classifiers: [TreeEnsemble],
    sustained: [TreeEnsemble?]? = nil, decoding: [ProbabilityDecoder.Configuration],
    treesAsTable: Bool = false
  ) {
    self.spec = spec
    self.labels = labels
    self.classifiers = classifiers
    self.sustained = sustained ?? classifiers.map { _ in nil }
    self.decoding = decoding
    self.treesAsTable = treesAsTable
  }

  /// The file of `label`'s classifier, relative to the directory.
  public static func classifierFile(_ label: String) -> String { "\(label).xgb.json" }

  /// Every ensemble a row is scored by, in the order detection and the exported C evaluate them:
  /// the labels' classifiers, then the sustained ones (label k's at `sustainedIndex[k]`), each
  /// with the lowest probability `decoding` compares it with (`ProbabilityDecoder.Configuration`'s
  /// floors: below it a probability may be given as 0).
  public func ensembles(decoding: [ProbabilityDecoder.Configuration]) -> (
    ensembles: [(classifier: TreeEnsemble, floor: Double)], sustainedIndex: [Int?]
  ) {
    var ensembles = zip(classifiers, zip(sustained, decoding)).map { classifier, other in
      (classifier, other.0 == nil ? other.1.floor : other.1.primaryFloor)
    }
    var sustainedIndex = [Int?](repeating: nil, count: classifiers.count)
    for (k, classifier) in sustained.enumerated() {
      guard let classifier else { continue }
      sustainedIndex[k] = ensembles.count
      ensembles.append((classifier, decoding[k].sustainedFloor))
    }
    return (ensembles, sustainedIndex)
  }

  /// The file of `label`'s sustained classifier, relative to the directory.
  public static func sustainedClassifierFile(_ label: String) -> String { "\(label).sustained.xgb.json" }

  /// Loads a model directory; a missing file is unreadable input, a file accelkit cannot use is
  /// bad data naming it.
  public static func load(directory: String) throws -> LearnedModel {
    let base = directory.hasSuffix("/") ? directory : directory + "/"
    let path = base + descriptionFile
    return try parse(
      description: try ByteInput.readAll(path: path), file: path,
      classifier: { name in
        let file = base + name
        return (try ByteInput.readAll(path: file), file)
      })
  }

  /// Reads a model from its files' bytes: `description` (detector.json's, named `file` in
  /// errors) and each classifier from `classifier` given its file name in the directory
  /// (`classifierFile`, `sustainedClassifierFile`): its bytes and the name errors give it.
  public static func parse(
    description: [UInt8], file path: String,
    classifier: (_ name: String) throws -> (bytes: [UInt8], file: String)
  ) throws -> LearnedModel {
    let document = try JSONDocument(description, file: path)
    let root = document.root
    // Errors name the line and column of the value at fault (of the object that lacks a member).
    func fail(_ text: String, _ at: String...) -> AccelError { AccelError.data(document.location(at), text) }
    guard root["format"]?.string == format else {
      throw fail("not an accelkit detector (no \"format\": \"\(format)\")", "format")
    }
    guard root["features"] != nil else { throw fail("no \"features\"") }
    let spec = try FeatureSpec(json: document, at: ["features"])
    guard let items = root["labels"]?.array, !items.isEmpty else { throw fail("no \"labels\"", "labels") }
    if let k = items.firstIndex(where: { $0.string == nil }) {
      throw fail("a label that is not a string", "labels", String(k))
    }
    let labels = items.compactMap(\.string)
    var classifiers: [TreeEnsemble] = []
    var sustained: [TreeEnsemble?] = []
    var decoding: [ProbabilityDecoder.Configuration] = []
    func ensemble(_ name: String) throws -> TreeEnsemble {
      let (bytes, file) = try classifier(name)
      let model = try TreeEnsemble(json: bytes, file: file)
      guard model.featureNames == spec.names else {
        throw AccelError.data(
          DataLocation(file: file), "its feature_names are not the features \(descriptionFile) describes")
      }
      return model
    }
    if case .object(let listed)? = root["sustained"],
      let stray = listed.first(where: { !labels.contains($0.0) })
    {
      throw fail("\"sustained\" names \(quotedField(stray.0)), which is not a label", "sustained", stray.0)
    }
    for (k, label) in labels.enumerated() {
      guard isSafeLabel(label) else {
        throw fail("the label \(quotedField(label)) is not a plain name", "labels", String(k))
      }
      classifiers.append(try ensemble(classifierFile(label)))
      if let named = root["sustained"]?[label] {
        guard named.string == sustainedClassifierFile(label) else {
          throw fail(
            "the sustained classifier of \(quotedField(label)) must be \(sustainedClassifierFile(label))",
            "sustained", label)
        }
        sustained.append(try ensemble(sustainedClassifierFile(label)))
      } else {
        sustained.append(nil)
      }
      guard let items = root["decoding"]?[label] else {
        throw fail("no decoding for \(quotedField(label))", "decoding", label)
      }
      var c = ProbabilityDecoder.Configuration()
      for parameter in ProbabilityDecoder.Configuration.parameters {
        let absent = ProbabilityDecoder.Configuration.optionalParameters[parameter.name]
        let given = items[parameter.name]
        if let given, given.number == nil {
          throw fail(
            "the decoding of \(quotedField(label)) has a \(parameter.name) that is not a number",
            "decoding", label, parameter.name)
        }
        guard let v = given?.number ?? absent else {
          throw fail("the decoding of \(quotedField(label)) has no \(parameter.name)", "decoding", label)
        }
        do { try c.set(parameter.name, to: v, owner: label) } catch let error as AccelError {
          throw fail(error.message, "decoding", label, parameter.name)
        }
      }
      do { try c.validate(owner: label, sustained: sustained.last! != nil) } catch let error as AccelError {
        throw fail(error.message, "decoding", label)
      }
      decoding.append(c)
    }
    return LearnedModel(
      spec: spec, labels: labels, classifiers: classifiers, sustained: sustained, decoding: decoding,
      treesAsTable: root["training"]?["budget"]?["trees"]?.string == "table")
  }

  /// Labels become file names: letters, digits, `-`, `_` and `.` (not leading).
  public static func isSafeLabel(_ label: String) -> Bool {
    !label.isEmpty && label.first != "." && label.utf8.count <= 64
      && label.unicodeScalars.allSatisfy {
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
      }
  }

  /// `detector.json`'s text; `training` is an extra JSON object recorded as is (how it was made);
  /// `sustained` names the labels that have a sustained classifier.
  public static func descriptionJSON(
    spec: FeatureSpec, labels: [String], decoding: [ProbabilityDecoder.Configuration], training: String,
    sustained: Set<String> = []
  ) -> String {
    var text = "{\n  \"format\": \"\(format)\",\n  \"version\": 1,\n"
    text += "  \"labels\": [\(labels.map(jsonString).joined(separator: ", "))],\n"
    text +=
      "  \"classifiers\": {\(labels.map { "\(jsonString($0)): \(jsonString(classifierFile($0)))" }.joined(separator: ", "))},\n"
    let withSustained = labels.filter(sustained.contains)
    if !withSustained.isEmpty {
      text +=
        "  \"sustained\": {\(withSustained.map { "\(jsonString($0)): \(jsonString(sustainedClassifierFile($0)))" }.joined(separator: ", "))},\n"
    }
    text += "  \"decoding\": {\n"
    text += zip(labels, decoding).map { label, c in
      "    \(jsonString(label)): {"
        + ProbabilityDecoder.Configuration.parameters.filter {
          // A decoding without the hold path or the sustained thresholds is written as before
          // they existed.
          switch $0.name {
          case "hold", "hold_s": c.holdSeconds > 0
          case "sustained_on", "sustained_off": c.hasSustainedThresholds
          case "extend": c.extend < 1
          case "smooth_s", "smoothed_on": c.smoothing > 0
          default: true
          }
        }.map {
          "\"\($0.name)\": \(formatNumber(c.value(of: $0.name)!))"
        }
        .joined(separator: ", ") + "}"
    }.joined(separator: ",\n")
    text += "\n  },\n"
    text += "  \"features\": \(spec.json),\n"
    text += "  \"training\": \(training)\n}\n"
    return text
  }
}

/// The models accelkit carries inside itself, by name.
public enum BuiltInModels {
  /// The recommended shake detector: models/shake, trained as docs/LEARNING.md says.
  public static let shakeName = "learned-shake"
  public static var names: [String] { [shakeName] }

  /// The model called `name`, or nil.
  public static func named(_ name: String) -> LearnedModel? { name == shakeName ? shake : nil }

  public static let shake: LearnedModel = {
    do {
      return try LearnedModel.parse(
        description: Array(BuiltInShakeModel.description.utf8), file: "models/shake/detector.json",
        classifier: { name in
          (Array((BuiltInShakeModel.classifiers[name] ?? "").utf8), "models/shake/\(name)")
        })
    } catch {
      preconditionFailure("the built-in shake model does not load: \(error)")
    }
  }()
}

/// Runs a learned model over a trace: features, each label's probability, and its decoder.
public struct ModelRunner {
  public let model: LearnedModel
  private var extractor: FeatureExtractor
  private var decoders: [ProbabilityDecoder]
  private let halfWidth: Double
  /// Every ensemble a row is scored by (`LearnedModel.ensembles`) and the margin below which its
  /// probability makes no difference to the decoding (a row whose first trees prove it below is
  /// not scored further: the events are the same).
  private let ensembles: [TreeEnsemble]
  private let limits: [Double]
  private let sustainedIndex: [Int?]

  /// `decoding` replaces the model's own (one per label), as `--param` sets it.
  public init(model: LearnedModel, decoding: [ProbabilityDecoder.Configuration]? = nil) throws {
    self.model = model
    extractor = try FeatureExtractor(spec: model.spec)
    decoders = (decoding ?? model.decoding).map { ProbabilityDecoder(configuration: $0) }
    halfWidth = model.spec.halfSpanSeconds
    let (scored, sustainedIndex) = model.ensembles(decoding: decoders.map(\.configuration))
    ensembles = scored.map(\.classifier)
    limits = scored.map { $0.classifier.marginSurelyBelow($0.floor) ?? -.infinity }
    self.sustainedIndex = sustainedIndex
  }

  /// Each label's event decoding, as this runner decodes.
  public var decoding: [ProbabilityDecoder.Configuration] { decoders.map(\.configuration) }

  /// Feeds a block; returns the events it completes with their labels, in order of completion.
  public mutating func process(_ block: SampleBlock) -> [(label: String, event: ProbabilityDecoder.Event)] {
    var out: [(label: String, event: ProbabilityDecoder.Event)] = []
    let labels = model.labels
    var decoders = self.decoders
    let halfWidth = self.halfWidth
    let (ensembles, limits, sustainedIndex) = (self.ensembles, self.limits, self.sustainedIndex)
    // The trees and decoders read in place: a row copies nothing and counts no references.
    // One single-precision copy of the row for every row of the block.
    var scratch = [Float](repeating: 0, count: extractor.rowLength)
    TreeEnsemble.withEvaluators(ensembles) { evaluators in
      evaluators.withUnsafeBufferPointer { ensembles in
        limits.withUnsafeBufferPointer { limits in
          labels.withUnsafeBufferPointer { labels in
            decoders.withUnsafeMutableBufferPointer { decoders in
              scratch.withUnsafeMutableBufferPointer { scratch in
                extractor.process(block) { _, end, values in
                  // The row in single precision, as the trees compare it, once for every ensemble.
                  for i in values.indices { scratch[i] = Float(values[i]) }
                  for k in labels.indices {
                    let p = ensembles[k].probability(floats: scratch, unlessBelow: limits[k])
                    let q = sustainedIndex[k].map {
                      ensembles[$0].probability(floats: scratch, unlessBelow: limits[$0])
                    }
                    if let event = decoders[k].add(
                      center: end - halfWidth, end: end, probability: p, sustained: q)
                    {
                      out.append((labels[k], event))
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    self.decoders = decoders
    return out
  }

  public mutating func finish() -> [(label: String, event: ProbabilityDecoder.Event)] {
    var out: [(label: String, event: ProbabilityDecoder.Event)] = []
    for k in decoders.indices { out += decoders[k].finish().map { (model.labels[k], $0) } }
    return out
  }
}
