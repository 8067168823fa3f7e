import AccelCore
import AccelFilters
import AccelGestures
import AccelIO

// Read a trace (any format and recorder accelkit knows), low-pass it, run a shake rule over it.
let path = CommandLine.arguments.dropFirst().first ?? "datasets/samples/portrait-shake.csv"
let stream = try TraceStream(path: path, settings: try TraceReadOptions().settings(), resample: nil)
let design = TraceFilterKind.butterworth(order: 2, cutoff: 8, cutoffHigh: nil, band: .low, zeroPhase: false)
var lowpass = try TraceFilter(design, rate: stream.rate, initialization: .steady)
var rule = try RuleSetting(rule: "three-peak", assignments: [("move_g", 0.6)]).detector(rate: stream.rate)
var shakes: [DetectorEvent] = []
while var block = try stream.next() {
  let smooth = lowpass.process(&block)  // t, x, y, z
  shakes += rule.process(SampleBlock(t: smooth[0], x: smooth[1], y: smooth[2], z: smooth[3]))
}
shakes += rule.finish()
print("\(shakes.count) shakes:", shakes.map { "\(formatNumber($0.start))-\(formatNumber($0.end)) s" }.joined(separator: ", "))
