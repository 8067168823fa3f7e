import AccelSpectral
import Foundation
import TestSupport
import Testing

@Suite struct RealFFTTests {
  func naiveDFT(_ x: [Double]) -> [(Double, Double)] {
    let n = x.count
    return (0...(n / 2)).map { k in
      var re = 0.0
      var im = 0.0
      for j in 0..<n {
        let angle = -2 * Double.pi * Double(j * k) / Double(n)
        re += x[j] * cos(angle)
        im += x[j] * sin(angle)
      }
      return (re, im)
    }
  }

  @Test(arguments: [1, 2, 7, 16, 100, 255])
  func matchesTheDefinition(_ n: Int) {
    var rng = SeededRandom(seed: UInt64(n))
    let x = (0..<n).map { _ in Double.random(in: -1...1, using: &rng) }
    let fft = RealFFT(size: n)
    let ours = fft.transform(x)
    let reference = naiveDFT(x)
    #expect(ours.count == n / 2 + 1)
    for (a, b) in zip(ours, reference) {
      #expect(abs(a.re - b.0) < 1e-10 && abs(a.im - b.1) < 1e-10)
    }
  }

  /// Two sequences through one complex transform give each one's power spectrum, zero-padded;
  /// a shorter input after a longer one is padded with zeros again.
  @Test(arguments: [2, 8, 128, 512])
  func aPairGivesBothPowerSpectra(_ size: Int) {
    var rng = SeededRandom(seed: UInt64(size))
    let pair = RealFFTPair(size: size)
    func power(_ bins: [(Double, Double)], _ k: Int) -> Double {
      bins[k].0 * bins[k].0 + bins[k].1 * bins[k].1
    }
    for count in [size, max(1, size / 3), size / 2, 0] {
      // One value more than used, so that the buffers are never empty.
      let a = (0...count).map { _ in Double.random(in: -1...1, using: &rng) }
      let b = (0...count).map { _ in Double.random(in: -2...2, using: &rng) }
      let zeros = [Double](repeating: 0, count: size - count)
      let expected = (naiveDFT(Array(a.prefix(count)) + zeros), naiveDFT(Array(b.prefix(count)) + zeros))
      var both = [Double](repeating: .nan, count: 2 * pair.binCount)
      var one = both
      pair.powers(a, b, count: count, into: &both)
      pair.powers(a, nil, count: count, into: &one)
      for k in 0...(size / 2) {
        let (pa, pb) = (power(expected.0, k), power(expected.1, k))
        #expect(abs(both[2 * k] - pa) <= 1e-9 * max(1, pa), "size \(size) count \(count) bin \(k)")
        #expect(abs(both[2 * k + 1] - pb) <= 1e-9 * max(1, pb), "size \(size) count \(count) bin \(k)")
        // Without a second sequence: the first's spectrum, the second's zero.
        #expect(abs(one[2 * k] - pa) <= 1e-9 * max(1, pa))
        #expect(abs(one[2 * k + 1]) <= 1e-9)
      }
    }
  }

  @Test func planningFromManyThreadsAtOnceIsSafe() async {
    await withTaskGroup(of: Bool.self) { group in
      for i in 0..<32 {
        group.addTask {
          let n = 64 + i * 3
          let x = (0..<n).map { Double($0 % 5) }
          let fft = RealFFT(size: n)
          let out = fft.transform(x)
          return abs(out[0].re - x.reduce(0, +)) < 1e-9
        }
      }
      for await ok in group { #expect(ok) }
    }
  }
}
