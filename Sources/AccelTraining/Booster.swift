import AccelCore
import CXGBoost

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// XGBoost through its C API: a training matrix and a booster. The only place accelkit calls
/// the library; every call's failure becomes an AccelError with XGBoost's own message.
enum XGBoost {
  static func check(_ code: Int32, _ what: String) throws {
    guard code == 0 else {
      let message = XGBGetLastError().map { String(cString: $0) } ?? "unknown error"
      throw AccelError.failure("XGBoost could not \(what): \(message)")
    }
  }

  /// The library's version, as `major.minor.patch`.
  static var version: String {
    var major: Int32 = 0
    var minor: Int32 = 0
    var patch: Int32 = 0
    XGBoostVersion(&major, &minor, &patch)
    return "\(major).\(minor).\(patch)"
  }
}

/// Calls `body` with the strings as an array of C strings.
func withCStrings<R>(_ items: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>?) throws -> R)
  rethrows -> R
{
  var pointers = items.map { strdup($0) }
  defer { for p in pointers { free(p) } }
  return try pointers.withUnsafeMutableBufferPointer { buffer in
    try buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { try body($0.baseAddress) }
  }
}

/// A dense matrix of 32-bit features (NaN is missing) with labels, weights and column names.
final class TrainingMatrix {
  let handle: DMatrixHandle

  init(
    rows: Int, columns: Int, values: UnsafeBufferPointer<Float>, labels: [Float], weights: [Float]?,
    names: [String]
  ) throws {
    precondition(values.count == rows * columns && labels.count == rows)
    var out: DMatrixHandle?
    try XGBoost.check(
      XGDMatrixCreateFromMat(values.baseAddress, bst_ulong(rows), bst_ulong(columns), Float.nan, &out),
      "make a matrix of \(rows) rows")
    handle = out!
    self.names = names
    let handle = self.handle
    try labels.withUnsafeBufferPointer {
      try XGBoost.check(
        XGDMatrixSetFloatInfo(handle, "label", $0.baseAddress, bst_ulong(rows)), "set the labels")
    }
    if let weights {
      try weights.withUnsafeBufferPointer {
        try XGBoost.check(
          XGDMatrixSetFloatInfo(handle, "weight", $0.baseAddress, bst_ulong(rows)), "set the weights")
      }
    }
    try setStrings("feature_name", names)
    try setStrings("feature_type", names.map { _ in "float" })
  }

  let names: [String]

  private func setStrings(_ field: String, _ items: [String]) throws {
    try withCStrings(items) { p in
      try XGBoost.check(XGDMatrixSetStrFeatureInfo(handle, field, p, bst_ulong(items.count)), "set \(field)")
    }
  }

  deinit { XGDMatrixFree(handle) }
}

/// A gradient-boosted tree model being trained.
final class Booster {
  let handle: BoosterHandle

  init(training: TrainingMatrix, parameters: [(String, String)]) throws {
    var out: BoosterHandle?
    var matrices: [DMatrixHandle?] = [training.handle]
    try XGBoost.check(XGBoosterCreate(&matrices, 1, &out), "make a booster")
    handle = out!
    for (name, value) in parameters {
      try XGBoost.check(XGBoosterSetParam(handle, name, value), "set \(name)=\(value)")
    }
    // The model keeps the column names (its JSON's feature_names), as Python's xgboost does.
    try withCStrings(training.names) { p in
      try XGBoost.check(
        XGBoosterSetStrFeatureInfo(handle, "feature_name", p, bst_ulong(training.names.count)),
        "name the features")
    }
    try withCStrings(training.names.map { _ in "float" }) { p in
      try XGBoost.check(
        XGBoosterSetStrFeatureInfo(handle, "feature_type", p, bst_ulong(training.names.count)),
        "type the features")
    }
  }

  deinit { XGBoosterFree(handle) }

  func train(_ matrix: TrainingMatrix, rounds: Int) throws {
    for round in 0..<rounds {
      try XGBoost.check(XGBoosterUpdateOneIter(handle, Int32(round), matrix.handle), "train round \(round)")
    }
  }

  /// The model in XGBoost's JSON format.
  func json() throws -> [UInt8] {
    var length: bst_ulong = 0
    var bytes: UnsafePointer<CChar>?
    try XGBoost.check(
      XGBoosterSaveModelToBuffer(handle, "{\"format\": \"json\"}", &length, &bytes), "save the model")
    return UnsafeRawBufferPointer(start: bytes, count: Int(length)).map { $0 }
  }

  /// Probabilities from XGBoost's own predictor (the reference the tests hold accelkit's to).
  func predict(_ matrix: TrainingMatrix) throws -> [Float] {
    var length: bst_ulong = 0
    var result: UnsafePointer<Float>?
    try XGBoost.check(XGBoosterPredict(handle, matrix.handle, 0, 0, 0, &length, &result), "predict")
    return Array(UnsafeBufferPointer(start: result, count: Int(length)))
  }

  /// Loads a saved JSON model (for the tests' comparison with XGBoost's predictor).
  static func load(json: [UInt8]) throws -> Booster {
    let empty = try [Float(0)].withUnsafeBufferPointer {
      try TrainingMatrix(rows: 1, columns: 1, values: $0, labels: [0], weights: nil, names: ["f"])
    }
    let booster = try Booster(training: empty, parameters: [])
    try json.withUnsafeBufferPointer {
      try XGBoost.check(
        XGBoosterLoadModelFromBuffer(booster.handle, $0.baseAddress, bst_ulong($0.count)), "load a model")
    }
    return booster
  }
}
