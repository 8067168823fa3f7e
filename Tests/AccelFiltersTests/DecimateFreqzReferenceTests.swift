import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelFilters

/// Decimation and frequency responses against scipy.signal (cheby1, decimate, sosfreqz), from
/// Tests/Fixtures/filters/decimate_freqz.json (scripts/make_decimate_freqz_references.py, which
/// records the scipy version).
@Suite struct DecimateFreqzReferenceTests {
  nonisolated(unsafe) static let fixture: [String: Any] = References.load("decimate_freqz.json")

  func close(_ a: [Double], _ b: [Double], _ tolerance: Double, _ label: String) {
    #expect(a.count == b.count, "\(label): \(a.count) values, scipy \(b.count)")
    let worst = zip(a, b).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
    #expect(worst <= tolerance, "\(label): worst difference \(worst)")
  }

  @Test func chebyshevSectionsMatchCheby1() throws {
    let designs = try #require(Self.fixture["cheby1"] as? [[String: Any]])
    #expect(designs.count == 21)
    for d in designs {
      let order = d["order"] as! Int
      let q = d["factor"] as! Int
      let ours = try ChebyshevDesign(order: order, ripple: 0.05, edge: 0.8 / Double(q)).sections.flatMap(
        \.row)
      close(ours, matrix(d["sos"]).flatMap { $0 }, 1e-9, "cheby1(\(order), 0.05, 0.8/\(q))")
      // Poles inside the unit circle; the passband's peak gain is 1 (0.05 dB ripple below it).
      let design = try ChebyshevDesign(order: order, ripple: 0.05, edge: 0.8 / Double(q))
      #expect(design.zpk.poles.allSatisfy { $0.magnitude < 1 })
      let response = FrequencyResponse(sections: design.sections, rate: 2, count: 4096)
      let passband = zip(response.frequencies, response.gain).filter { $0.0 < 0.8 / Double(q) }.map(\.1)
      #expect(abs(passband.max()! - 1) < 1e-6 && passband.min()! > pow(10, -0.05 / 20) - 1e-6)
    }
  }

  @Test func decimateMatchesScipy() throws {
    let signal = try #require(Self.fixture["signal"] as? [String: Any])
    let x = numbers(signal["x"])
    let cases = try #require(Self.fixture["decimate"] as? [[String: Any]])
    for c in cases {
      let q = c["factor"] as! Int
      let decimation = try Decimation(factor: q)
      close(try #require(decimation.apply(x)), numbers(c["zero_phase"]), 1e-9, "decimate q=\(q)")
      close(
        try #require(decimation.apply(x, zeroPhase: false)), numbers(c["causal"]), 1e-9,
        "decimate q=\(q) causal")
    }
  }

  @Test func sosfreqzMatchesScipy() throws {
    let responses = try #require(Self.fixture["sosfreqz"] as? [[String: Any]])
    for r in responses {
      let sections = matrix(r["sos"]).map { Biquad(b0: $0[0], b1: $0[1], b2: $0[2], a1: $0[4], a2: $0[5]) }
      let response = FrequencyResponse(sections: sections, rate: (r["rate"] as! NSNumber).doubleValue)
      let name = r["name"] as! String
      close(response.frequencies, numbers(r["frequency"]), 1e-12, "\(name) frequencies")
      close(response.gain, numbers(r["gain"]), 1e-9, "\(name) gain")
      close(response.phase, numbers(r["phase"]), 1e-9, "\(name) phase")
    }
    // Parseval-like check of the zero-phase response: |H|^2, no phase.
    let design = try ButterworthDesign(order: 4, cutoff: 5, band: .low, rate: 100)
    let once = FrequencyResponse(sections: design.sections, rate: 100)
    let twice = FrequencyResponse(sections: design.sections, rate: 100, zeroPhase: true)
    #expect(
      zip(once.gain, twice.gain).allSatisfy { abs($0 * $0 - $1) < 1e-15 }
        && twice.phase.allSatisfy { $0 == 0 })
  }
}
