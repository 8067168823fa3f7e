import AccelCore
import AccelEvaluation
import AccelGestures
import AccelScaleOut

extension RuleSetting {
  /// The setting --rule or --model, --param and --params-file choose (the file's items first,
  /// --param overriding); without --rule, the one rule the file sets, else `fallback`.
  public static func chosen(
    rule: String?, model: String?, params: [String], paramsFile: String?, fallback: String?
  ) throws -> RuleSetting {
    let fromFile = try paramsFile.map { try ParameterFile.read(path: $0) } ?? []
    if let model {
      let owner = EvaluationPlan.modelOwner
      return try RuleSetting.model(
        directory: model,
        assignments: try parseAssignments(
          fromFile.filter { $0.hasPrefix(owner + ".") } + params, owner: owner))
    }
    let rules = Set(fromFile.compactMap { $0.split(separator: ".").first.map(String.init) })
    guard let rule = rule ?? (rules.count <= 1 ? rules.first ?? fallback : nil) else {
      throw AccelError.usage(
        rules.count > 1
          ? "the parameter file sets \(rules.count) rules; choose one with --rule"
          : "give the rule with --rule")
    }
    return try RuleSetting.parse(
      rule: rule, parameters: fromFile.filter { $0.hasPrefix(rule + ".") } + params)
  }
}
