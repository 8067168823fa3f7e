import AccelCore
import AccelSpectral
import Foundation
import TestSupport
import Testing

/// Cross-spectral density and coherence against scipy.signal.csd and coherence, from
/// Tests/Fixtures/spectral/cross.json (scripts/make_cross_spectral_references.py, which records
/// the scipy version).
@Suite struct CrossSpectralReferenceTests {
  nonisolated(unsafe) static let data: [String: Any] = {
    let bytes = FileManager.default.contents(atPath: Paths.fixture("spectral/cross.json"))!
    return try! JSONSerialization.jsonObject(with: bytes) as! [String: Any]
  }()

  static func numbers(_ value: Any?) -> [Double] { (value as! [String]).map { Double($0)! } }

  /// Within 1e-9 of the largest value (bins near zero are compared on that scale).
  func close(_ ours: [Double], _ theirs: [Double], _ label: String) {
    #expect(ours.count == theirs.count, "\(label): \(ours.count) vs \(theirs.count)")
    let scale = max(theirs.map(abs).max() ?? 1, 1e-300)
    let worst = zip(ours, theirs).map { abs($0 - $1) / scale }.max() ?? 0
    #expect(worst <= 1e-9, "\(label): worst difference \(worst) of the largest value")
  }

  @Test func csdAndCoherenceMatchScipyFedInAnyChunks() throws {
    let x = Self.numbers(Self.data["x"])
    let y = Self.numbers(Self.data["y"])
    let rate = (Self.data["rate"] as! NSNumber).doubleValue
    let cases = try #require(Self.data["cases"] as? [[String: Any]])
    var generator = SeededGenerator(seed: 7)
    for c in cases {
      let name = c["name"] as! String
      let length = c["length"] as! Int
      let segment = min(c["segment"] as! Int, length)
      let overlap = (c["overlap"] as? Int) ?? segment / 2
      let settings = try SpectralSettings(
        rate: rate, segment: segment, overlap: overlap, nfft: c["nfft"] as? Int,
        window: window(c["window"] as! String), detrend: Detrend(rawValue: c["detrend"] as! String)!,
        scaling: SpectralScaling(rawValue: c["scaling"] as! String)!)
      let estimator = CrossSpectralEstimator(settings)
      var at = 0
      while at < length {
        let n = min(length - at, 1 + Int(generator.next() % 700))
        estimator.add(Array(x[at..<(at + n)]), Array(y[at..<(at + n)]))
        at += n
      }
      let result = try #require(estimator.result())
      close(settings.frequencies, Self.numbers(c["frequency"]), "\(name): frequencies")
      close(result.re, Self.numbers(c["re"]), "\(name): csd real part")
      close(result.im, Self.numbers(c["im"]), "\(name): csd imaginary part")
      close(result.coherence, Self.numbers(c["coherence"]), "\(name): coherence")
      #expect(result.coherence.allSatisfy { $0 >= 0 && $0 <= 1 + 1e-12 }, "\(name): coherence in [0, 1]")
    }
  }

  /// A signal with itself: the cross spectrum is the power spectrum (real), the coherence 1.
  @Test func aSignalWithItselfIsItsPowerSpectrum() throws {
    let x = Self.numbers(Self.data["x"])
    let settings = try SpectralSettings(
      rate: 100, segment: 256, overlap: 128, window: .hann, detrend: .constant, scaling: .density)
    let cross = CrossSpectralEstimator(settings)
    cross.add(x, x)
    let welch = WelchEstimator(settings)
    welch.add(x)
    let result = try #require(cross.result())
    let power = try #require(welch.result())
    #expect(zip(result.re, power).allSatisfy { abs($0 - $1) <= 1e-12 * max(1, $1) })
    #expect(result.im.allSatisfy { abs($0) < 1e-15 })
    #expect(result.coherence.allSatisfy { abs($0 - 1) < 1e-9 })
  }

  /// Shorter than a segment: one segment of its own length, as scipy, with a warning.
  @Test func aShortPairIsOneSegment() throws {
    let x = Self.numbers(Self.data["x"])
    let y = Self.numbers(Self.data["y"])
    let cases = try #require(Self.data["cases"] as? [[String: Any]])
    let short = try #require(cases.first { $0["length"] as? Int == 200 })
    let cross = TraceCrossSpectrum(SpectrumRequest(), rate: 100, name: "short")
    try cross.add(first: Array(x[..<120]))
    try cross.add(first: Array(x[120..<200]), second: Array(y[..<200]))
    let result = try cross.finish()
    #expect(cross.warnings.count == 1 && result.settings.segment == 200)
    close(result.re, Self.numbers(short["re"]), "short: csd real part")
    close(result.coherence, Self.numbers(short["coherence"]), "short: coherence")
  }

  /// Blocks of two streams of different lengths and block sizes pair sample by sample: the same
  /// result as the paired arrays, the longer's tail counted as unpaired; one stream's two
  /// channels pair with themselves.
  @Test func streamsPairInOrderWhateverTheirBlocks() throws {
    let x = Self.numbers(Self.data["x"])
    let y = Self.numbers(Self.data["y"])
    let n = min(x.count, y.count, 900)
    func blocks(_ values: ArraySlice<Double>, size: Int) -> () -> SampleBlock? {
      var rest = values
      return {
        guard !rest.isEmpty else { return nil }
        let part = Array(rest.prefix(size))
        rest = rest.dropFirst(size)
        let zeros = [Double](repeating: 0, count: part.count)
        return SampleBlock(t: zeros, x: part, y: zeros, z: zeros)
      }
    }
    let reference = TraceCrossSpectrum(SpectrumRequest(), rate: 100, name: "arrays")
    try reference.add(first: Array(x[..<n]), second: Array(y[..<n]))
    let expected = try reference.finish()
    let streams = TraceCrossSpectrum(SpectrumRequest(), rate: 100, name: "streams")
    try streams.add(
      first: blocks(x[..<n], size: 37), second: blocks(y[..<(n + 11)], size: 256), channels: (.x, .x))
    let paired = try streams.finish()
    #expect(paired.re == expected.re && paired.im == expected.im && paired.coherence == expected.coherence)
    #expect(streams.unpaired == 11)
    // One stream, two channels: x against y of the same blocks.
    let zeros = [Double](repeating: 0, count: n)
    var once: SampleBlock? = SampleBlock(t: zeros, x: Array(x[..<n]), y: Array(y[..<n]), z: zeros)
    let own = TraceCrossSpectrum(SpectrumRequest(), rate: 100, name: "channels")
    try own.add(
      first: {
        defer { once = nil }
        return once
      }, second: nil, channels: (.x, .y))
    #expect(try own.finish().re == expected.re && own.unpaired == 0)
  }

  /// The table: csd's magnitude and phase (atan2(im, re), numpy's angle) beside its parts, then
  /// coherence; by hand on the quadrants.
  @Test func theTableHoldsMagnitudeAndPhase() throws {
    let settings = try SpectralSettings(
      rate: 4, segment: 8, overlap: 4, window: .hann, detrend: .constant, scaling: .density)
    let cross = CrossSpectrum(
      settings: settings, re: [1, 0, -1, 0, 3], im: [0, 1, 0, -1, 4], coherence: [1, 0.5, 0, 0.25, 1])
    let (names, columns) = cross.table(csd: true, coherence: true)
    #expect(names == ["frequency", "csd_re", "csd_im", "csd_abs", "csd_phase", "coherence"])
    #expect(columns[0] == [0, 0.5, 1, 1.5, 2])
    #expect(columns[3] == [1, 1, 1, 1, 5])
    #expect(columns[4] == [0, Double.pi / 2, Double.pi, -Double.pi / 2, atan2(4, 3)])
    #expect(cross.table(csd: false, coherence: true).names == ["frequency", "coherence"])
    #expect(cross.table(csd: true, coherence: false).columns.count == 5)
  }
}
