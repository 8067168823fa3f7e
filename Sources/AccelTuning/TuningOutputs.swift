import AccelCore
import AccelEvaluation
import AccelPlot
import AccelScaleOut

extension TuningResult {
  /// What tune prints: the best trial and the cross-validated estimate.
  public var summary: String {
    let result = self
    let rule = result.settings.rule
    let best = result.trials[result.best]
    let m = best.total
    var summary = "best of \(result.trials.count) trials: \(rule) \(best.setting.parameterText)\n"
    summary += "  on every trace: f1 \(cFormat("%.4g", m.f1)), precision \(cFormat("%.4g", m.precision)), "
    summary +=
      "recall \(cFormat("%.4g", m.recall)), false alarms per hour \(cFormat("%.4g", m.falseAlarmsPerHour))"
    let aim = result.settings.objective.metric
    let standard = EvaluationReport.standardColumns.contains(aim)
    if standard { summary += ", \(aim) \(formatSignificant(EvaluationReport.value(aim, m), digits: 4))" }
    let bySource = result.settings.worstSource ? " on every source" : ""
    summary +=
      result.settings.score(best, over: Array(best.perTrace.indices)).violation == 0
      ? "\n" : " (misses --subject-to\(bySource): no trial meets it)\n"
    if let cv = result.crossValidated {
      let heldOut = result.settings.foldsBySource ? "one source left out at a time" : "held-out traces"
      summary +=
        "  cross-validated (\(result.folds.count) folds, \(heldOut)): f1 \(cFormat("%.4g", cv.f1)), "
      summary += "precision \(cFormat("%.4g", cv.precision)), recall \(cFormat("%.4g", cv.recall)), "
      summary += "false alarms per hour \(cFormat("%.4g", cv.falseAlarmsPerHour))"
      if standard { summary += ", \(aim) \(formatSignificant(EvaluationReport.value(aim, cv), digits: 4))" }
      summary += "\n"
    }
    return summary
  }

  /// best.params, trials.csv, folds.csv and pareto.svg.
  public func outputs(command: String) throws -> [(String, String)] {
    let result = self
    let rule = result.settings.rule
    let m = result.trials[result.best].total
    let svg = Plots.pareto(
      trials: result.trials.map { ($0.total.falseAlarmsPerHour, $0.total.f1) }, front: result.paretoFront,
      chosen: result.best, label: "trial \(result.best): F1 \(cFormat("%.3f", m.f1))",
      title: "\(rule): F1 against false alarms per hour, \(result.trials.count) trials")
    return [
      ("best.params", result.parameterFile(command: command)), ("trials.csv", result.trialsCSV()),
      ("folds.csv", result.foldsCSV()), ("pareto.svg", svg),
    ]
  }
}
