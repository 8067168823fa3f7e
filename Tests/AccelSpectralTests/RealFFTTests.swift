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
