import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// VQF's offline variant (the same paper; the `vqf` package's `offlineVQF`): it uses future samples
/// too. The gyroscope bias is estimated by VQF forward and backward in time and the two estimates
/// are fused by their information (inverse covariance); the gyroscope, with that bias removed, is
/// integrated; the accelerometer in the integrated frame is low-passed forward and backward (no
/// lag) and corrects every sample's inclination; the magnetometer's heading disagreement is
/// filtered forward and backward, with disturbances flagged by both runs rejected.
///
/// Constant memory: the trace goes through `store` (a scratch file) in records of 24 Doubles per
/// sample (192 bytes), read and written in chunks, in seven passes alternating direction.
public struct OfflineVQF {
  public let configuration: VQFConfiguration
  public let interval: Double
  public let magnetometer: Bool
  /// Records per chunk read from and written to the store.
  public let chunk: Int

  /// - Parameters:
  ///   - interval: the nominal sample interval in seconds.
  ///   - magnetometer: whether the heading is corrected by the magnetometer (east-north-up).
  ///   - chunk: records per read and write of the store (the memory used: 192 bytes each).
  public init(configuration: VQFConfiguration, interval: Double, magnetometer: Bool, chunk: Int = 8192) {
    self.configuration = configuration
    self.interval = interval
    self.magnetometer = magnetometer
    self.chunk = max(1, chunk)
  }

  // The record of one sample in the store: inputs, then slots reused from pass to pass (pass 1:
  // information matrix and information times bias; 2: fused bias and the disturbance flag; 3:
  // integrated quaternion and smoothed acceleration; 5: attitude, heading and the flag again).
  private static let width = 24
  private static let (t, gyr, acc, mag) = (0, 1, 4, 7)
  private static let (information, informationBias, disturbed) = (10, 16, 20)
  private static let (bias, quat, accI, delta) = (10, 13, 17, 20)

  /// Runs over the blocks from `next` (g, Apple's convention; rad/s; µT) and hands the attitudes
  /// to `emit` in order, block by block.
  public func run(
    store: RandomAccessStore, next: () throws -> SampleBlock?, emit: ([Double], [Quaternion]) throws -> Void
  ) throws {
    let scratch = Scratch(store: store, width: Self.width)
    let n = try forward(next, scratch)
    guard n > 0 else { return }
    try backward(n, scratch)
    try integrate(n, scratch)
    try smoothBackward(n, scratch)
    if magnetometer {
      try correct(n, scratch, emitting: false) { _, _ in }
      try headingBackward(n, scratch)
      try scratch.sweep(n, forward: true, chunk: chunk) { r, count in
        var t: [Double] = []
        var qs: [Quaternion] = []
        for k in 0..<count {
          let p = r + k * Self.width
          t.append(p[Self.t])
          qs.append(
            Quaternion.heading(p[Self.delta])
              * Quaternion(p[Self.quat], p[Self.quat + 1], p[Self.quat + 2], p[Self.quat + 3]))
        }
        try emit(t, qs)
        return false
      }
    } else {
      try correct(n, scratch, emitting: true, emit: emit)
    }
  }

  /// Pass 1: stores the inputs; VQF forward: its bias estimate and covariance, rest and
  /// disturbance flags.
  private func forward(_ next: () throws -> SampleBlock?, _ scratch: Scratch) throws -> Int {
    var vqf = VQFFilter(interval: interval, configuration: configuration)
    var n = 0
    var clock = IntervalClock(nominal: interval)
    var buffer = [Double](repeating: 0, count: chunk * Self.width)
    while let block = try next() {
      var i = 0
      while i < block.count {
        let count = min(chunk, block.count - i)
        for k in 0..<count {
          let j = i + k
          let o = k * Self.width
          let t = block.t[j]
          let sample = AttitudeSample(block, j, magnetometer: magnetometer, interval: clock.interval(at: t))
          vqf.update(sample)
          let (g, f, m) = (sample.gyroscope, sample.specificForce, sample.magnetometer)
          buffer[o + Self.t] = t
          (buffer[o + Self.gyr], buffer[o + Self.gyr + 1], buffer[o + Self.gyr + 2]) = (g.x, g.y, g.z)
          (buffer[o + Self.acc], buffer[o + Self.acc + 1], buffer[o + Self.acc + 2]) = (f.x, f.y, f.z)
          let mv = m ?? Vector3()
          (buffer[o + Self.mag], buffer[o + Self.mag + 1], buffer[o + Self.mag + 2]) = (mv.x, mv.y, mv.z)
          let info = vqf.biasP.inverse
          Self.store(info, at: o + Self.information, in: &buffer)
          let ib = info * vqf.bias
          (
            buffer[o + Self.informationBias], buffer[o + Self.informationBias + 1],
            buffer[o + Self.informationBias + 2]
          ) = (ib.x, ib.y, ib.z)
          buffer[o + Self.disturbed] = vqf.magDistDetected ? 1 : 0
        }
        try buffer.withUnsafeBytes {
          try scratch.store.write(
            UnsafeRawBufferPointer(rebasing: $0[0..<(count * Self.width * 8)]), at: n * Self.width * 8)
        }
        n += count
        i += count
      }
    }
    return n
  }

  /// Pass 2: VQF backward in time (the gyroscope negated); the two bias estimates fused by their
  /// information; a disturbance where both runs saw one.
  private func backward(_ n: Int, _ scratch: Scratch) throws {
    var vqf = VQFFilter(interval: interval, configuration: configuration)
    var clock = IntervalClock(nominal: interval, backward: true)
    try scratch.sweep(n, forward: false, chunk: chunk) { r, count in
      for k in stride(from: count - 1, through: 0, by: -1) {
        let p = r + k * Self.width
        let dt = clock.interval(at: p[Self.t])
        let g = Vector3(p[Self.gyr], p[Self.gyr + 1], p[Self.gyr + 2])
        let f = Vector3(p[Self.acc], p[Self.acc + 1], p[Self.acc + 2])
        let m = magnetometer ? Vector3(p[Self.mag], p[Self.mag + 1], p[Self.mag + 2]) : nil
        vqf.update(AttitudeSample(gyroscope: -g, specificForce: f, magnetometer: m, interval: dt))
        let info1 = Self.load(p, Self.information)
        let info2 = vqf.biasP.inverse
        let weighted =
          Vector3(p[Self.informationBias], p[Self.informationBias + 1], p[Self.informationBias + 2]) - info2
          * vqf.bias
        let bias = (info1 + info2).inverse * weighted
        let disturbed = p[Self.disturbed] != 0 && vqf.magDistDetected
        (p[Self.bias], p[Self.bias + 1], p[Self.bias + 2]) = (bias.x, bias.y, bias.z)
        p[Self.disturbed] = disturbed ? 1 : 0
      }
      return true
    }
  }

  /// Pass 3: the gyroscope without the fused bias integrated from the identity; the accelerometer
  /// rotated into that frame and low-passed forward (starting with the running mean).
  private func integrate(_ n: Int, _ scratch: Scratch) throws {
    var q = Quaternion.identity
    var clock = IntervalClock(nominal: interval)
    var lowpass = MeanStartLowpass<Vector3>(tau: configuration.tauAcc, interval: interval)
    try scratch.sweep(n, forward: true, chunk: chunk) { r, count in
      for k in 0..<count {
        let p = r + k * Self.width
        let dt = clock.interval(at: p[Self.t])
        let w =
          Vector3(p[Self.gyr], p[Self.gyr + 1], p[Self.gyr + 2])
          - Vector3(p[Self.bias], p[Self.bias + 1], p[Self.bias + 2])
        let norm = length(w)
        if norm > .ulpOfOne {
          let (c, s) = halfAngleCosineAndSine(norm * dt)
          let h = s / norm
          q = (q * Quaternion(c, h * w.x, h * w.y, h * w.z)).normalized
        }
        let a = lowpass.step(q.rotate(Vector3(p[Self.acc], p[Self.acc + 1], p[Self.acc + 2])))
        (p[Self.quat], p[Self.quat + 1], p[Self.quat + 2], p[Self.quat + 3]) = (q.w, q.x, q.y, q.z)
        (p[Self.accI], p[Self.accI + 1], p[Self.accI + 2]) = (a.x, a.y, a.z)
      }
      return true
    }
  }

  /// Pass 4: the same low-pass backward over the forward output, started in steady state at the
  /// last sample: together a zero-phase filter.
  private func smoothBackward(_ n: Int, _ scratch: Scratch) throws {
    var lowpass = MeanStartLowpass<Vector3>(tau: configuration.tauAcc, interval: interval)
    var started = false
    try scratch.sweep(n, forward: false, chunk: chunk) { r, count in
      for k in stride(from: count - 1, through: 0, by: -1) {
        let p = r + k * Self.width
        let x = Vector3(p[Self.accI], p[Self.accI + 1], p[Self.accI + 2])
        if !started {
          started = true
          lowpass.start(at: x)
        }
        let a = lowpass.step(x)
        (p[Self.accI], p[Self.accI + 1], p[Self.accI + 2]) = (a.x, a.y, a.z)
      }
      return true
    }
  }

  /// Pass 5: each sample's inclination corrected to the smoothed accelerometer; with a
  /// magnetometer, the heading disagreement filtered forward (kept for pass 6), else the attitude
  /// handed to `emit`.
  private func correct(
    _ n: Int, _ scratch: Scratch, emitting: Bool, emit: ([Double], [Quaternion]) throws -> Void
  ) throws {
    var accQuat = Quaternion.identity
    var heading = HeadingFilter(configuration: configuration, interval: interval)
    try scratch.sweep(n, forward: true, chunk: chunk) { r, count in
      var t: [Double] = []
      var qs: [Quaternion] = []
      for k in 0..<count {
        let p = r + k * Self.width
        _ = correctInclination(&accQuat, towards: Vector3(p[Self.accI], p[Self.accI + 1], p[Self.accI + 2]))
        let q = accQuat * Quaternion(p[Self.quat], p[Self.quat + 1], p[Self.quat + 2], p[Self.quat + 3])
        if emitting {
          t.append(p[Self.t])
          qs.append(q)
          continue
        }
        (p[Self.quat], p[Self.quat + 1], p[Self.quat + 2], p[Self.quat + 3]) = (q.w, q.x, q.y, q.z)
        let m = q.rotate(Vector3(p[Self.mag], p[Self.mag + 1], p[Self.mag + 2]))
        let disturbed = p[Self.disturbed] != 0
        p[Self.delta] = heading.step(atan2(m.x, m.y), disturbed: disturbed)
        p[Self.delta + 1] = disturbed ? 1 : 0
      }
      if emitting {
        try emit(t, qs)
        return false
      }
      return true
    }
  }

  /// Pass 6: the heading filtered again backward over the forward output.
  private func headingBackward(_ n: Int, _ scratch: Scratch) throws {
    var heading = HeadingFilter(configuration: configuration, interval: interval)
    try scratch.sweep(n, forward: false, chunk: chunk) { r, count in
      for k in stride(from: count - 1, through: 0, by: -1) {
        let p = r + k * Self.width
        p[Self.delta] = heading.step(p[Self.delta], disturbed: p[Self.delta + 1] != 0)
      }
      return true
    }
  }

  private static func store(_ m: SymmetricMatrix3, at o: Int, in buffer: inout [Double]) {
    (buffer[o], buffer[o + 1], buffer[o + 2]) = (m.m00, m.m01, m.m02)
    (buffer[o + 3], buffer[o + 4], buffer[o + 5]) = (m.m11, m.m12, m.m22)
  }

  private static func load(_ p: UnsafeMutablePointer<Double>, _ o: Int) -> SymmetricMatrix3 {
    SymmetricMatrix3(p[o], p[o + 1], p[o + 2], p[o + 3], p[o + 4], p[o + 5])
  }
}

/// The offline heading filter: the angle follows the measured disagreement with VQF's heading
/// gain, rejecting flagged disturbances, starting at the first measurement.
struct HeadingFilter {
  var gain: HeadingGain
  let rejection: Bool
  var d: Double?

  init(configuration: VQFConfiguration, interval: Double) {
    gain = HeadingGain(configuration: configuration, interval: interval, rejectedFor: 0)
    rejection = configuration.magneticDisturbanceRejection != 0
  }

  mutating func step(_ measured: Double, disturbed: Bool) -> Double {
    let current = d ?? measured
    let k = gain.next(disturbed: disturbed, rejection: rejection)
    let next = wrapAngle(current + k * wrapAngle(measured - current))
    d = next
    return next
  }
}

/// Chunked passes over the records in a store.
private struct Scratch {
  let store: RandomAccessStore
  let width: Int

  /// Reads the `n` records chunk by chunk (from the start, or from the end), hands each chunk to
  /// `body` (records in file order within it) and writes it back when `body` returns true.
  func sweep(_ n: Int, forward: Bool, chunk: Int, _ body: (UnsafeMutablePointer<Double>, Int) throws -> Bool)
    throws
  {
    let buffer = UnsafeMutablePointer<Double>.allocate(capacity: chunk * width)
    defer { buffer.deallocate() }
    let chunks = (n + chunk - 1) / chunk
    for c in 0..<chunks {
      let index = forward ? c : chunks - 1 - c
      let start = index * chunk
      let count = min(chunk, n - start)
      let bytes = UnsafeMutableRawBufferPointer(start: buffer, count: count * width * 8)
      try store.read(into: bytes, at: start * width * 8)
      if try body(buffer, count) { try store.write(UnsafeRawBufferPointer(bytes), at: start * width * 8) }
    }
  }
}
