import AccelCore

/// Parameters of a segment-based spectral estimate, as scipy.signal.welch / spectrogram take them.
public struct SpectralSettings: Equatable, Sendable {
  public var rate: Double
  public var segment: Int
  public var overlap: Int
  public var nfft: Int
  public var window: WindowKind
  public var detrend: Detrend
  public var scaling: SpectralScaling

  /// - Parameters:
  ///   - segment: samples per segment (nperseg), >= 1.
  ///   - overlap: samples shared by successive segments (noverlap), 0 <= overlap < segment.
  ///   - nfft: FFT length >= segment (zero padding), default the segment length.
  public init(
    rate: Double, segment: Int, overlap: Int, nfft: Int? = nil, window: WindowKind, detrend: Detrend,
    scaling: SpectralScaling
  ) throws {
    guard segment >= 1 else { throw AccelError.usage("--segment must be at least 1, got \(segment)") }
    guard overlap >= 0 && overlap < segment else {
      throw AccelError.usage(
        "the overlap must be from 0 to \(segment - 1) samples for \(segment)-sample segments, got \(overlap)")
    }
    let n = nfft ?? segment
    guard n >= segment else {
      throw AccelError.usage("--nfft must be at least the segment length \(segment), got \(n)")
    }
    let limit = Self.maximumLength
    guard segment <= limit && n <= limit else {
      throw AccelError.usage(
        "segments and the FFT length are limited to \(limit) samples (2^24), got \(max(segment, n))",
        hint: "a longer segment than that needs gigabytes of memory; use Welch's average of shorter segments")
    }
    guard rate > 0 && rate.isFinite else {
      throw AccelError.usage("the sample rate must be positive, got \(rate)")
    }
    self.rate = rate
    self.segment = segment
    self.overlap = overlap
    self.nfft = n
    self.window = window
    self.detrend = detrend
    self.scaling = scaling
  }

  /// The longest segment and FFT: 2^24 samples (46 hours at 100 Hz), about 0.5 GB of working
  /// memory per channel at that length.
  public static let maximumLength = 1 << 24

  public var hop: Int { segment - overlap }
  public var binCount: Int { nfft / 2 + 1 }

  /// The bin frequencies in Hz: k * rate / nfft.
  public var frequencies: [Double] { (0..<binCount).map { Double($0) * rate / Double(nfft) } }
}

/// Computes one-sided power spectra of segments: detrend, window, zero-pad to nfft, FFT,
/// |X|^2 times the scale, doubled except at 0 Hz (and Nyquist when nfft is even).
public final class SegmentSpectrum {
  public let settings: SpectralSettings
  private let window: [Double]
  private let scale: Double
  private let fft: RealFFT
  private var buffer: [Double]

  /// - Parameter measure: plan the FFT with FFTW_MEASURE (slower to plan, faster to run; worth it
  ///   with saved wisdom).
  public init(_ settings: SpectralSettings, measure: Bool = false) {
    self.settings = settings
    window = settings.window.values(count: settings.segment)
    switch settings.scaling {
    case .density: scale = 1 / (settings.rate * window.reduce(0) { $0 + $1 * $1 })
    case .spectrum:
      let s = window.reduce(0, +)
      scale = 1 / (s * s)
    }
    fft = RealFFT(size: settings.nfft, measure: measure)
    buffer = Array(repeating: 0, count: settings.nfft)
  }

  /// Detrends and windows `segment` into the buffer, zero-padded to nfft.
  private func prepare(_ segment: ArraySlice<Double>) {
    let n = settings.segment
    precondition(segment.count == n)
    let start = segment.startIndex
    switch settings.detrend {
    case .none:
      for i in 0..<n { buffer[i] = segment[start + i] }
    case .constant:
      var sum = 0.0
      for i in 0..<n { sum += segment[start + i] }
      let mean = sum / Double(n)
      for i in 0..<n { buffer[i] = segment[start + i] - mean }
    case .linear:
      // Least-squares line over i = 0..n-1, removed.
      let nn = Double(n)
      let meanI = (nn - 1) / 2
      var sumY = 0.0
      for i in 0..<n { sumY += segment[start + i] }
      let meanY = sumY / nn
      var sxy = 0.0
      var sxx = 0.0
      for i in 0..<n {
        let di = Double(i) - meanI
        sxy += di * (segment[start + i] - meanY)
        sxx += di * di
      }
      let slope = sxx > 0 ? sxy / sxx : 0
      for i in 0..<n { buffer[i] = segment[start + i] - (meanY + slope * (Double(i) - meanI)) }
    }
    for i in 0..<n { buffer[i] *= window[i] }
    for i in n..<settings.nfft { buffer[i] = 0 }
  }

  /// The bins that a one-sided spectrum doubles: 1 up to Nyquist (excluded when nfft is even).
  private var lastDoubled: Int { settings.nfft % 2 == 0 ? settings.binCount - 2 : settings.binCount - 1 }

  /// Adds the spectrum of `segment` (exactly `settings.segment` samples) into `out` (binCount
  /// values), multiplied by `weight`.
  public func accumulate(_ segment: ArraySlice<Double>, into out: inout [Double], weight: Double = 1) {
    prepare(segment)
    let lastDoubled = self.lastDoubled
    let s = scale * weight
    buffer.withUnsafeBufferPointer { input in
      fft.transform(input) { k, re, im in
        var p = (re * re + im * im) * s
        if k >= 1 && k <= lastDoubled { p *= 2 }
        out[k] += p
      }
    }
  }

  /// Adds the cross spectrum conj(A) B of two segments (as scipy.signal.csd: A of the first, B of
  /// the second; scaled and doubled as the power spectrum) into `re` and `im`, and each segment's
  /// power spectrum into `pxx` and `pyy` (the same numbers `accumulate` gives), from one transform
  /// of each segment.
  public func accumulateCross(
    _ a: ArraySlice<Double>, _ b: ArraySlice<Double>, re: inout [Double], im: inout [Double],
    pxx: inout [Double], pyy: inout [Double]
  ) {
    prepare(a)
    buffer.withUnsafeBufferPointer { input in fft.transform(input) { k, r, i in first[k] = (r, i) } }
    prepare(b)
    let lastDoubled = self.lastDoubled
    let s = scale
    buffer.withUnsafeBufferPointer { input in
      fft.transform(input) { k, r, i in
        let (ar, ai) = first[k]
        let factor = k >= 1 && k <= lastDoubled ? 2.0 : 1.0
        // conj(A) * B
        re[k] += (ar * r + ai * i) * s * factor
        im[k] += (ar * i - ai * r) * s * factor
        pxx[k] += (ar * ar + ai * ai) * s * factor
        pyy[k] += (r * r + i * i) * s * factor
      }
    }
  }

  /// The first segment's transform in `accumulateCross`.
  private lazy var first = [(re: Double, im: Double)](repeating: (0, 0), count: settings.binCount)
}

/// The cross-spectral density of two signals sampled together (scipy.signal.csd) and their
/// magnitude-squared coherence (scipy.signal.coherence: |Pxy|^2 / Pxx / Pyy), by Welch's method
/// with mean averaging, fed block by block in constant memory.
public final class CrossSpectralEstimator {
  public let settings: SpectralSettings
  private let spectrum: SegmentSpectrum
  private var first: SegmentQueue
  private var second: SegmentQueue
  private var re: [Double]
  private var im: [Double]
  private var pxx: [Double]
  private var pyy: [Double]
  public private(set) var segments = 0

  public init(_ settings: SpectralSettings, measure: Bool = false) {
    self.settings = settings
    spectrum = SegmentSpectrum(settings, measure: measure)
    first = SegmentQueue(segment: settings.segment, hop: settings.hop)
    second = SegmentQueue(segment: settings.segment, hop: settings.hop)
    let zeros = [Double](repeating: 0, count: settings.binCount)
    (re, im, pxx, pyy) = (zeros, zeros, zeros, zeros)
  }

  /// Adds samples of both signals: as many of each (sample i of `a` with sample i of `b`).
  public func add(_ a: [Double], _ b: [Double]) {
    precondition(a.count == b.count)
    var segmentsA: [ArraySlice<Double>] = []
    first.add(a) { segmentsA.append(Array($0)[...]) }
    var k = 0
    second.add(b) { segmentB in
      let segmentA = segmentsA[k]
      k += 1
      spectrum.accumulateCross(segmentA, segmentB, re: &re, im: &im, pxx: &pxx, pyy: &pyy)
      segments += 1
    }
  }

  /// The estimate (nil when not even one segment was seen): the cross spectrum's real and
  /// imaginary parts, and the coherence.
  public func result() -> (re: [Double], im: [Double], coherence: [Double])? {
    guard segments > 0 else { return nil }
    let n = Double(segments)
    let r = re.map { $0 / n }
    let i = im.map { $0 / n }
    let coherence = (0..<settings.binCount).map { k in
      (r[k] * r[k] + i[k] * i[k]) / (pxx[k] / n) / (pyy[k] / n)
    }
    return (r, i, coherence)
  }
}

/// Welch's averaged periodogram, fed block by block (segments are consumed as samples arrive, so
/// memory does not grow with the length of the signal, except with median averaging, which keeps
/// every segment's spectrum).
///
/// Reference: P. D. Welch, "The use of fast Fourier transform for the estimation of power spectra",
/// IEEE Trans. Audio Electroacoust. 15(2), 1967, doi:10.1109/TAU.1967.1161901.
public final class WelchEstimator {
  public enum Average: String, CaseIterable, Sendable { case mean, median }
  public let settings: SpectralSettings
  public let average: Average
  private let spectrum: SegmentSpectrum
  private var queue: SegmentQueue
  private var sum: [Double]
  private var perSegment: [[Double]] = []
  public private(set) var segments = 0

  public init(_ settings: SpectralSettings, average: Average = .mean, measure: Bool = false) {
    self.settings = settings
    self.average = average
    spectrum = SegmentSpectrum(settings, measure: measure)
    queue = SegmentQueue(segment: settings.segment, hop: settings.hop)
    sum = Array(repeating: 0, count: settings.binCount)
  }

  public func add(_ samples: [Double]) {
    queue.add(samples) { segment in
      if average == .mean {
        spectrum.accumulate(segment, into: &sum)
      } else {
        var one = Array(repeating: 0.0, count: settings.binCount)
        spectrum.accumulate(segment, into: &one)
        perSegment.append(one)
      }
      segments += 1
    }
  }

  /// The estimate (nil when not even one segment was seen).
  public func result() -> [Double]? {
    guard segments > 0 else { return nil }
    switch average {
    case .mean:
      return sum.map { $0 / Double(segments) }
    case .median:
      let bias = segments > 1 ? Self.medianBias(segments) : 1
      return (0..<settings.binCount).map { k in
        let values = perSegment.map { $0[k] }.sorted()
        let m = values.count
        let median = m % 2 == 1 ? values[m / 2] : (values[m / 2 - 1] + values[m / 2]) / 2
        return median / bias
      }
    }
  }

  /// The bias of the median of n chi-squared(2) variables relative to their mean, as scipy:
  /// 1 + sum_{k=1}^{(n-1)/2} (1/(2k+1) - 1/(2k)).
  static func medianBias(_ n: Int) -> Double {
    var bias = 1.0
    let upper = (n - 1) / 2
    if upper >= 1 {
      for k in 1...upper { bias += 1 / Double(2 * k + 1) - 1 / Double(2 * k) }
    }
    return bias
  }
}

/// The short-time spectrum, fed block by block: each complete segment's spectrum is returned with
/// its time (the segment's centre, nperseg/2 + k*hop samples from the start, over the rate).
public final class SpectrogramEstimator {
  public let settings: SpectralSettings
  private let spectrum: SegmentSpectrum
  private var queue: SegmentQueue
  private var emitted = 0

  public init(_ settings: SpectralSettings, measure: Bool = false) {
    self.settings = settings
    spectrum = SegmentSpectrum(settings, measure: measure)
    queue = SegmentQueue(segment: settings.segment, hop: settings.hop)
  }

  /// Adds samples and returns the (time, spectrum) of each segment completed by them.
  public func add(_ samples: [Double]) -> [(time: Double, power: [Double])] {
    var out: [(Double, [Double])] = []
    queue.add(samples) { segment in
      var power = Array(repeating: 0.0, count: settings.binCount)
      spectrum.accumulate(segment, into: &power)
      let centre = (Double(settings.segment) / 2 + Double(emitted * settings.hop)) / settings.rate
      out.append((centre, power))
      emitted += 1
    }
    return out
  }
}

/// Samples waiting to form segments of `segment` samples every `hop`: each complete segment is
/// handed out once, and consumed samples are dropped, so memory is about a segment and a block.
struct SegmentQueue {
  let segment: Int
  let hop: Int
  private var pending: [Double] = []
  private var position = 0

  init(segment: Int, hop: Int) {
    self.segment = segment
    self.hop = hop
  }

  mutating func add(_ samples: [Double], _ body: (ArraySlice<Double>) -> Void) {
    pending.append(contentsOf: samples)
    while pending.count - position >= segment {
      body(pending[position..<(position + segment)])
      position += hop
    }
    if position > 0 && position >= pending.count / 2 {
      let drop = min(position, pending.count)
      pending.removeFirst(drop)
      position -= drop
    }
  }
}

/// A summary of a spectrum: the dominant frequency (parabolic interpolation between bins), its
/// power, the total power and the power in bands.
public struct SpectrumSummary: Equatable, Sendable {
  public var dominantFrequency: Double
  public var dominantPower: Double
  public var totalPower: Double
  public var bandPowers: [Double]

  /// - Parameters:
  ///   - power: one-sided spectrum values at `frequencies` (density or spectrum scaling).
  ///   - binWidth: rate / nfft; for density scaling, powers are integrated with it.
  ///   - bands: [low, high) in Hz.
  public init(
    power: [Double], frequencies: [Double], binWidth: Double, density: Bool, bands: [(Double, Double)]
  ) {
    // The dominant peak above 0 Hz.
    var k = power.count > 1 ? 1 : 0
    for i in 1..<max(1, power.count) where power[i] > power[k] { k = i }
    var f = frequencies[k]
    var peak = power[k]
    if k >= 1 && k + 1 < power.count {
      let a = power[k - 1]
      let b = power[k]
      let c = power[k + 1]
      let denominator = a - 2 * b + c
      if denominator != 0 {
        let delta = 0.5 * (a - c) / denominator
        if abs(delta) <= 0.5 {
          f = frequencies[k] + delta * binWidth
          peak = b - 0.25 * (a - c) * delta
        }
      }
    }
    dominantFrequency = f
    dominantPower = peak
    let weight = density ? binWidth : 1
    totalPower = power.reduce(0, +) * weight
    bandPowers = bands.map { band in
      var s = 0.0
      for (i, fi) in frequencies.enumerated() where fi >= band.0 && fi < band.1 { s += power[i] }
      return s * weight
    }
  }
}
