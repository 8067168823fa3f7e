/// Puts a trace on a uniform time grid by linear interpolation, block by block.
///
/// The grid starts at the first sample's time `t0` and has points `t0 + k / rate` for
/// k = 0, 1, ... up to the last sample's time. A grid point that falls exactly on a sample takes
/// that sample's values; otherwise
/// ```
/// v(g) = v0 + (g - t0) / (t1 - t0) * (v1 - v0)
/// ```
/// between the samples (t0, v0) and (t1, v1) around it. Timestamps must increase strictly.
public struct LinearResampler: Sendable {
  public let rate: Double
  private var origin: Double?
  private var k: Int = 0
  private var previous: (t: Double, x: Double, y: Double, z: Double)?
  private var samplesSeen = 0
  private let name: String

  /// - Parameters:
  ///   - rate: the output rate in Hz, > 0.
  ///   - name: the trace's name, for error messages.
  public init(rate: Double, name: String) {
    precondition(rate > 0 && rate.isFinite)
    self.rate = rate
    self.name = name
  }

  /// Resamples one block; the result may be empty.
  public mutating func process(_ block: SampleBlock) throws -> SampleBlock {
    var out = SampleBlock(capacity: Int(Double(block.count) * 1.1) + 4)
    for i in 0..<block.count {
      let cur = (t: block.t[i], x: block.x[i], y: block.y[i], z: block.z[i])
      samplesSeen += 1
      guard let prev = previous, let origin else {
        origin = cur.t
        previous = cur
        out.append(t: cur.t, x: cur.x, y: cur.y, z: cur.z)
        k = 1
        continue
      }
      guard cur.t > prev.t else {
        throw AccelError.data(
          DataLocation(file: name),
          "sample \(samplesSeen) (t = \(cur.t) s) does not come after the previous one "
            + "(t = \(prev.t) s); resampling needs increasing timestamps",
          hint: "run `accelkit info \(name)` to see where the timestamps go wrong")
      }
      while true {
        let g = origin + Double(k) / rate
        if g > cur.t { break }
        if g == cur.t {
          out.append(t: g, x: cur.x, y: cur.y, z: cur.z)
        } else {
          let w = (g - prev.t) / (cur.t - prev.t)
          out.append(
            t: g, x: prev.x + w * (cur.x - prev.x), y: prev.y + w * (cur.y - prev.y),
            z: prev.z + w * (cur.z - prev.z))
        }
        k += 1
      }
      previous = cur
    }
    return out
  }
}
