import AccelSpectral
import Foundation
import TestSupport
import Testing

enum SpectralReferences {
  nonisolated(unsafe) static let data: [String: Any] = {
    let bytes = FileManager.default.contents(atPath: Paths.fixture("spectral/spectra.json"))!
    return try! JSONSerialization.jsonObject(with: bytes) as! [String: Any]
  }()
  static func numbers(_ value: Any?) -> [Double] { (value as! [String]).map { Double($0)! } }
  static func signal(_ n: Int) -> [Double] { numbers((data["signals"] as! [String: Any])[String(n)]) }
}

func window(_ name: String, alpha: Double? = nil) -> WindowKind {
  switch name {
  case "hann": .hann
  case "hamming": .hamming
  case "blackman": .blackman
  case "boxcar": .boxcar
  default: .tukey(alpha: alpha ?? 0.5)
  }
}

/// |a - b| <= 1e-9 * |b|, or <= 1e-15 absolute for near-zero bins.
func expectSpectraClose(_ ours: [Double], _ theirs: [Double], _ label: String) {
  #expect(ours.count == theirs.count, "\(label): \(ours.count) bins vs \(theirs.count)")
  var worst = 0.0
  for (a, b) in zip(ours, theirs) {
    let error = abs(a - b)
    if error > 1e-15 { worst = max(worst, error / abs(b)) }
  }
  #expect(worst <= 1e-9, "\(label): worst relative difference \(worst)")
}

@Suite struct SpectralReferenceTests {
  @Test func welchAndPeriodogramMatchScipy() throws {
    let cases = SpectralReferences.data["cases"] as! [[String: Any]]
    #expect(cases.count == 202)
    var rng = SeededRandom(seed: 3)
    for c in cases {
      let n = c["n"] as! Int
      let x = SpectralReferences.signal(n)
      let kind = c["kind"] as! String
      var segment = kind == "periodogram" ? n : c["segment"] as! Int
      segment = min(segment, n)  // a short signal is one segment, as scipy
      let settings = try SpectralSettings(
        rate: 100, segment: segment, overlap: kind == "periodogram" ? 0 : c["overlap"] as! Int,
        nfft: c["nfft"] as? Int, window: window(c["window"] as! String),
        detrend: Detrend(rawValue: c["detrend"] as! String)!, scaling: SpectralScaling(rawValue: c["scaling"] as! String)!)
      let welch = WelchEstimator(settings, average: WelchEstimator.Average(rawValue: c["average"] as? String ?? "mean")!)
      var i = 0
      while i < n {  // in random blocks: streaming must equal scipy's one-shot
        let m = min(Int.random(in: 1...200, using: &rng), n - i)
        welch.add(Array(x[i..<(i + m)]))
        i += m
      }
      let label = "\(kind) n=\(n) \(c["window"]!) seg=\(segment) ov=\(c["overlap"] ?? 0) nfft=\(String(describing: c["nfft"])) \(c["detrend"]!) \(c["scaling"]!) \(c["average"] ?? "")"
      let power = try #require(welch.result(), "\(label)")
      expectSpectraClose(power, SpectralReferences.numbers(c["power"]), label)
      expectSpectraClose(settings.frequencies, SpectralReferences.numbers(c["frequencies"]), label + " frequencies")
    }
  }

  @Test func spectrogramMatchesScipy() throws {
    let x = SpectralReferences.signal(1000)
    for c in SpectralReferences.data["spectrograms"] as! [[String: Any]] {
      let settings = try SpectralSettings(
        rate: 100, segment: c["segment"] as! Int, overlap: c["overlap"] as! Int,
        window: window(c["window"] as! String, alpha: c["alpha"] as? Double), detrend: .constant, scaling: .density)
      let estimator = SpectrogramEstimator(settings)
      var frames: [(time: Double, power: [Double])] = []
      for start in stride(from: 0, to: x.count, by: 37) {
        frames += estimator.add(Array(x[start..<min(start + 37, x.count)]))
      }
      let times = SpectralReferences.numbers(c["times"])
      let power = (c["power"] as! [[String]]).map { $0.map { Double($0)! } }
      #expect(frames.map(\.time) == times)
      #expect(frames.count == power.count)
      for (frame, reference) in zip(frames, power) { expectSpectraClose(frame.power, reference, "spectrogram \(c["segment"]!)") }
    }
  }
}

@Suite struct SpectralPhysicsTests {
  @Test func aSineOfAmplitudeAPeaksAtASquaredOverTwo() throws {
    let rate = 100.0
    let f0 = 12.5  // on a bin of a 256-point FFT at 100 Hz
    let amplitude = 0.7
    let x = (0..<4096).map { amplitude * sin(2 * Double.pi * f0 * Double($0) / rate) }
    let settings = try SpectralSettings(rate: rate, segment: 256, overlap: 128, window: .hann, detrend: .constant, scaling: .spectrum)
    let welch = WelchEstimator(settings)
    welch.add(x)
    let power = try #require(welch.result())
    let k = power.indices.max { power[$0] < power[$1] }!
    #expect(settings.frequencies[k] == f0)
    #expect(abs(power[k] - amplitude * amplitude / 2) < 1e-12)
  }

  @Test func densityIntegratesToTheVariance() throws {
    var rng = SeededRandom(seed: 8)
    let n = 1 << 14
    let x = (0..<n).map { _ in Double.random(in: -1...1, using: &rng) }
    let mean = x.reduce(0, +) / Double(n)
    let variance = x.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(n)
    // Parseval for the boxcar periodogram of the whole signal: exact.
    let settings = try SpectralSettings(rate: 50, segment: n, overlap: 0, window: .boxcar, detrend: .constant, scaling: .density)
    let periodogram = WelchEstimator(settings)
    periodogram.add(x)
    let p = try #require(periodogram.result())
    let integral = p.reduce(0, +) * 50 / Double(n)
    #expect(abs(integral - variance) < 1e-12 * variance)
    // White noise: a flat Welch density at variance / (rate / 2).
    let welchSettings = try SpectralSettings(rate: 50, segment: 256, overlap: 128, window: .hann, detrend: .constant, scaling: .density)
    let welch = WelchEstimator(welchSettings)
    welch.add(x)
    let w = try #require(welch.result())
    let level = variance / 25
    let inner = w[5..<(w.count - 5)]
    let average = inner.reduce(0, +) / Double(inner.count)
    #expect(abs(average - level) < 0.05 * level)
    #expect(inner.allSatisfy { $0 > 0.5 * level && $0 < 1.6 * level })
  }

  @Test func summaryInterpolatesBetweenBins() throws {
    let rate = 100.0
    let f0 = 7.3  // between bins (df = 100/256 = 0.39 Hz)
    let x = (0..<8192).map { sin(2 * Double.pi * f0 * Double($0) / rate) }
    let settings = try SpectralSettings(rate: rate, segment: 256, overlap: 128, window: .hann, detrend: .constant, scaling: .density)
    let welch = WelchEstimator(settings)
    welch.add(x)
    let p = try #require(welch.result())
    let summary = SpectrumSummary(
      power: p, frequencies: settings.frequencies, binWidth: rate / 256, density: true, bands: [(5, 10), (20, 30)])
    #expect(abs(summary.dominantFrequency - f0) < 0.05)
    #expect(abs(summary.totalPower - 0.5) < 0.01)  // the variance of a unit sine
    #expect(summary.bandPowers[0] > 0.49 && summary.bandPowers[1] < 1e-4)
  }
}
