/// The seed material's exponential low-pass on one channel, carrying its state across blocks:
/// ```
/// y[n] = x[n] * a + y[n-1] * (1 - a)
/// ```
/// evaluated in exactly that order, so a zero-initialised filter equals both the seeds' code and
/// scipy.signal.lfilter([a], [1, a - 1], x) bit for bit.
public struct ExponentialLowpass: Sendable {
  public let alpha: Double
  private var y = 0.0
  private var started = false
  private let initialization: FilterInit

  public init(alpha: Double, initialization: FilterInit) {
    self.alpha = alpha
    self.initialization = initialization
  }

  /// The current output (the state).
  var value: Double {
    get { y }
    set { y = newValue }
  }

  mutating func startIfNeeded(first: Double) {
    if !started {
      started = true
      if initialization == .steady { y = first }
    }
  }

  /// Filters `x` in place.
  public mutating func process(_ x: inout [Double]) {
    guard !x.isEmpty else { return }
    if !started {
      started = true
      if initialization == .steady { y = x[0] }
    }
    let a = alpha
    let b = 1 - alpha
    var state = y
    x.withUnsafeMutableBufferPointer { v in
      for i in 0..<v.count {
        state = v[i] * a + state * b
        v[i] = state
      }
    }
    y = state
  }
}

/// The seeds' simplified high-pass, `x - lowpass(x)`, on one channel.
public struct ExponentialHighpass: Sendable {
  private var lowpass: ExponentialLowpass

  public init(alpha: Double, initialization: FilterInit) {
    lowpass = ExponentialLowpass(alpha: alpha, initialization: initialization)
  }

  public mutating func process(_ x: inout [Double]) {
    var smooth = x
    lowpass.process(&smooth)
    x.withUnsafeMutableBufferPointer { v in
      smooth.withUnsafeBufferPointer { s in
        for i in 0..<v.count { v[i] -= s[i] }
      }
    }
  }
}

/// Apple's AccelerometerGraph LowpassFilter / HighpassFilter on 3-vectors, with or without the
/// adaptive rule:
/// ```
/// d = clamp(| |y| - |x| | / kAccelerometerMinStep - 1, 0, 1)
/// low-pass:  a = (1 - d) * k / kAccelerometerNoiseAttenuation + d * k;   y = x * a + y * (1 - a)
/// high-pass: a = d * k / kAccelerometerNoiseAttenuation + (1 - d) * k;   y = a * (y + x - x_prev)
/// ```
/// where |y| is the norm of the filter's current output and |x| that of the new reading. With
/// `.zero` initialisation it reproduces Apple's filters bit for bit (they start at zero).
public struct AppleFilter: Sendable {
  public enum Kind: Sendable { case lowpass, highpass }
  public let kind: Kind
  public let constant: Double
  public let adaptive: Bool
  private var y = (0.0, 0.0, 0.0)
  private var last = (0.0, 0.0, 0.0)
  private var started = false
  private let initialization: FilterInit

  public init(kind: Kind, constant: Double, adaptive: Bool, initialization: FilterInit) {
    self.kind = kind
    self.constant = constant
    self.adaptive = adaptive
    self.initialization = initialization
  }

  @inline(__always)
  static func norm(_ x: Double, _ y: Double, _ z: Double) -> Double { (x * x + y * y + z * z).squareRoot() }

  /// Filters the three axes in place.
  public mutating func process(x: inout [Double], y ys: inout [Double], z: inout [Double]) {
    let n = x.count
    guard n > 0 else { return }
    if !started {
      started = true
      if initialization == .steady {
        // The state a constant reading would have settled to.
        if kind == .lowpass {
          y = (x[0], ys[0], z[0])
        } else {
          last = (x[0], ys[0], z[0])
        }
      }
    }
    let k = constant
    let minStep = AppleFilterDesign.minStep
    let attenuation = AppleFilterDesign.noiseAttenuation
    for i in 0..<n {
      let ax = x[i], ay = ys[i], az = z[i]
      var alpha = k
      if adaptive {
        let d = min(max(abs(Self.norm(y.0, y.1, y.2) - Self.norm(ax, ay, az)) / minStep - 1.0, 0.0), 1.0)
        alpha = kind == .lowpass
          ? (1.0 - d) * k / attenuation + d * k
          : d * k / attenuation + (1.0 - d) * k
      }
      if kind == .lowpass {
        y.0 = ax * alpha + y.0 * (1.0 - alpha)
        y.1 = ay * alpha + y.1 * (1.0 - alpha)
        y.2 = az * alpha + y.2 * (1.0 - alpha)
      } else {
        y.0 = alpha * (y.0 + ax - last.0)
        y.1 = alpha * (y.1 + ay - last.1)
        y.2 = alpha * (y.2 + az - last.2)
        last = (ax, ay, az)
      }
      x[i] = y.0
      ys[i] = y.1
      z[i] = y.2
    }
  }
}
