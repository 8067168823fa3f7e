import AccelCore
import AccelFilters
import Foundation
import TestSupport
import Testing

/// Reference vectors from scripts/make_filter_references.py (scipy version inside the files).
enum References {
  static func load(_ name: String) -> [String: Any] {
    let data = FileManager.default.contents(atPath: Paths.fixture("filters/\(name)"))!
    return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
  }
  nonisolated(unsafe) static let designs = load("butter_sos.json")
  nonisolated(unsafe) static let outputs = load("filter_outputs.json")
}

func band(_ text: String) -> FilterBand { FilterBand(rawValue: text)! }

/// Fixture numbers are stored as text and read with `Double(String)` (correctly rounded).
func numbers(_ value: Any?) -> [Double] { (value as! [String]).map { Double($0)! } }
func number(_ value: Any?) -> Double { Double(value as! String)! }
func matrix(_ value: Any?) -> [[Double]] { (value as! [[String]]).map { $0.map { Double($0)! } } }

@Suite struct ButterworthDesignTests {
  @Test func coefficientsMatchScipyButter() throws {
    let designs = References.designs["designs"] as! [[String: Any]]
    #expect(designs.count == 320)
    var worst = 0.0
    for d in designs {
      let design = try ButterworthDesign(
        order: d["order"] as! Int, cutoff: d["cutoff"] as! Double, cutoffHigh: d["cutoff_high"] as? Double,
        band: band(d["band"] as! String), rate: d["rate"] as! Double)
      let expected = matrix(d["sos"])
      #expect(design.sections.count == expected.count, "\(d)")
      guard design.sections.count == expected.count else { continue }
      for (section, row) in zip(design.sections, expected) {
        for (ours, theirs) in zip(section.row, row) {
          let scale = max(1, row.map(abs).max()!)
          worst = max(worst, abs(ours - theirs) / scale)
          #expect(abs(ours - theirs) <= 1e-12 * scale, "\(d["order"]!) \(d["band"]!) \(d["cutoff"]!) \(d["rate"]!): \(section.row) vs \(row)")
        }
      }
    }
    print("worst relative coefficient difference from scipy: \(worst)")
  }

  @Test func polesAreInsideTheUnitCircleAndGainsAreRight() throws {
    for order in 1...8 {
      for rate in [30.0, 100.0, 1000.0] {
        for b in FilterBand.allCases {
          let high = b == .bandpass || b == .bandstop ? rate * 0.2 : nil
          let design = try ButterworthDesign(order: order, cutoff: rate * 0.05, cutoffHigh: high, band: b, rate: rate)
          for p in design.zpk.poles { #expect(p.magnitude < 1, "\(order) \(b) \(rate)") }
          let dc = design.sections.reduce(1.0) { $0 * $1.dcGain }
          switch b {
          case .low, .bandstop: #expect(abs(dc - 1) < 1e-9, "DC gain \(dc)")
          case .high, .bandpass: #expect(abs(dc) < 1e-9, "DC gain \(dc)")
          }
        }
      }
    }
  }

  @Test func validationNamesTheAllowedRange() {
    #expect(throws: (any Error).self) { try ButterworthDesign(order: 4, cutoff: 60, band: .low, rate: 100) }
    do {
      _ = try ButterworthDesign(order: 4, cutoff: 60, band: .low, rate: 100)
    } catch let error as AccelError {
      #expect(error.message == "cutoff must be in (0, 50) Hz for a 100 Hz trace, got 60 Hz")
      #expect(error.exitCode == 64)
    } catch {}
    #expect(throws: (any Error).self) { try ButterworthDesign(order: 0, cutoff: 5, band: .low, rate: 100) }
    #expect(throws: (any Error).self) { try ButterworthDesign(order: 2, cutoff: 5, cutoffHigh: 4, band: .bandpass, rate: 100) }
    #expect(throws: (any Error).self) { try ButterworthDesign(order: 2, cutoff: 5, band: .bandstop, rate: 100) }
  }
}


@Suite struct FilterOutputTests {
  let x = numbers(References.outputs["x"])

  func expectClose(_ ours: [Double], _ theirs: [Double], tolerance: Double = 1e-9, _ label: String) {
    #expect(ours.count == theirs.count)
    var worst = 0.0
    for (a, b) in zip(ours, theirs) { worst = max(worst, abs(a - b) / max(1, abs(b))) }
    #expect(worst <= tolerance, "\(label): worst relative difference \(worst)")
  }

  @Test func sosfiltSteadyAndZeroPhaseMatchScipy() throws {
    for c in References.outputs["butterworth"] as! [[String: Any]] {
      let design = try ButterworthDesign(
        order: c["order"] as! Int, cutoff: c["cutoff"] as! Double, cutoffHigh: c["cutoff_high"] as? Double,
        band: band(c["band"] as! String), rate: c["rate"] as! Double)
      let label = "\(c["order"]!) \(c["band"]!)"
      var zero = SOSFilter(sections: design.sections, initialization: .zero)
      var y = x
      zero.process(&y)
      expectClose(y, numbers(c["sosfilt"]), label + " sosfilt")
      var steady = SOSFilter(sections: design.sections, initialization: .steady)
      var ys = x
      steady.process(&ys)
      expectClose(ys, numbers(c["sosfilt_steady"]), label + " sosfilt zi")
      let zp = try #require(ZeroPhase.filter(x, sections: design.sections))
      expectClose(zp, numbers(c["sosfiltfilt"]), label + " sosfiltfilt")
    }
  }

  @Test func exponentialMatchesLfilterBitForBitFromZero() {
    for c in References.outputs["exponential"] as! [[String: Any]] {
      let alpha = number(c["alpha"])
      var zero = ExponentialLowpass(alpha: alpha, initialization: .zero)
      var y = x
      zero.process(&y)
      let reference = numbers(c["lfilter"])
      let same = zip(y, reference).filter { $0.bitPattern == $1.bitPattern }.count
      #expect(same == reference.count, "alpha \(alpha): \(same) of \(reference.count) bit-identical")
      var steady = ExponentialLowpass(alpha: alpha, initialization: .steady)
      var ys = x
      steady.process(&ys)
      expectClose(ys, numbers(c["lfilter_steady"]), "alpha \(alpha) steady")
    }
  }

  @Test func chunkedEqualsOneShot() throws {
    let design = try ButterworthDesign(order: 6, cutoff: 2, cutoffHigh: 10, band: .bandpass, rate: 100)
    var rng = SeededRandom(seed: 1)
    var whole = SOSFilter(sections: design.sections, initialization: .steady)
    var expected = x
    whole.process(&expected)
    var lowWhole = ExponentialLowpass(alpha: 0.1, initialization: .steady)
    var lowExpected = x
    lowWhole.process(&lowExpected)
    var highWhole = ExponentialHighpass(alpha: 0.1, initialization: .zero)
    var highExpected = x
    highWhole.process(&highExpected)
    for _ in 0..<10 {
      var chunked = SOSFilter(sections: design.sections, initialization: .steady)
      var low = ExponentialLowpass(alpha: 0.1, initialization: .steady)
      var high = ExponentialHighpass(alpha: 0.1, initialization: .zero)
      var out: [Double] = []
      var lowOut: [Double] = []
      var highOut: [Double] = []
      var i = 0
      while i < x.count {
        let n = min(Int.random(in: 1...300, using: &rng), x.count - i)
        var block = Array(x[i..<(i + n)])
        var lowBlock = block
        var highBlock = block
        chunked.process(&block)
        low.process(&lowBlock)
        high.process(&highBlock)
        out += block
        lowOut += lowBlock
        highOut += highBlock
        i += n
      }
      #expect(out == expected)
      #expect(lowOut == lowExpected)
      #expect(highOut == highExpected)
    }
  }

  @Test func steadyInitGivesAFlatOutputOnAConstantInput() throws {
    let constant = [Double](repeating: -0.98, count: 500)
    for b in [FilterBand.low, .high, .bandpass, .bandstop] {
      let design = try ButterworthDesign(
        order: 4, cutoff: 1, cutoffHigh: b == .bandpass || b == .bandstop ? 5 : nil, band: b, rate: 100)
      var f = SOSFilter(sections: design.sections, initialization: .steady)
      var y = constant
      f.process(&y)
      let expectedLevel = (b == .low || b == .bandstop) ? -0.98 : 0
      #expect(y.allSatisfy { abs($0 - expectedLevel) < 1e-12 }, "\(b): \(y.prefix(3))")
    }
    var low = ExponentialLowpass(alpha: 0.1, initialization: .steady)
    var y = constant
    low.process(&y)
    #expect(y == constant)
    var high = ExponentialHighpass(alpha: 0.1, initialization: .steady)
    var h = constant
    high.process(&h)
    #expect(h.allSatisfy { $0 == 0 })
  }
}

@Suite struct AppleFilterTests {
  @Test func constantsAt60HzAnd5Hz() throws {
    let k = try AppleFilterDesign.lowpassConstant(cutoff: 5, rate: 60)
    #expect(abs(k - 1.0 / 13.0) < 1e-16)
    #expect(abs(try AppleFilterDesign.highpassConstant(cutoff: 5, rate: 60) - 12.0 / 13.0) < 1e-15)
  }

  @Test(arguments: [true, false])
  func sixSamplesOfOneGFromZero(adaptive: Bool) throws {
    let k = try AppleFilterDesign.lowpassConstant(cutoff: 5, rate: 60)
    var f = AppleFilter(kind: .lowpass, constant: k, adaptive: adaptive, initialization: .zero)
    var x = [Double](repeating: 0, count: 6)
    var y = x
    var z = [Double](repeating: 1, count: 6)
    f.process(x: &x, y: &y, z: &z)
    for n in 1...6 {
      #expect(abs(z[n - 1] - (1 - pow(12.0 / 13.0, Double(n)))) < 1e-15, "n = \(n)")
    }
    #expect(x.allSatisfy { $0 == 0 })
  }

  @Test func adaptiveLowpassFollowsNoiseSlowerThanSteps() throws {
    let k = 0.2
    // A small wobble (|change| < minStep): d = 0, a = k/3.
    var f = AppleFilter(kind: .lowpass, constant: k, adaptive: true, initialization: .steady)
    var x = [0.0, 0.0]
    var y = [0.0, 0.0]
    var z = [1.0, 1.01]
    f.process(x: &x, y: &y, z: &z)
    #expect(abs(z[1] - (1.01 * (k / 3) + 1 * (1 - k / 3))) < 1e-15)
    // A big step (|change| >= 2 * minStep): d = 1, a = k.
    var g = AppleFilter(kind: .lowpass, constant: k, adaptive: true, initialization: .steady)
    var x2 = [0.0, 0.0]
    var y2 = [0.0, 0.0]
    var z2 = [1.0, 1.5]
    g.process(x: &x2, y: &y2, z: &z2)
    #expect(abs(z2[1] - (1.5 * k + 1 * (1 - k))) < 1e-15)
  }

  @Test func highpassRecurrenceByHand() throws {
    let k = try AppleFilterDesign.highpassConstant(cutoff: 5, rate: 60)
    var f = AppleFilter(kind: .highpass, constant: k, adaptive: false, initialization: .zero)
    var x = [0.0, 0.0, 0.0]
    var y = [0.0, 0.0, 0.0]
    var z = [1.0, 1.0, 1.0]
    f.process(x: &x, y: &y, z: &z)
    // y1 = k*(0 + 1 - 0); y2 = k*(y1 + 1 - 1); y3 = k*y2
    #expect(z[0] == k * 1.0)
    #expect(z[1] == k * (k * 1.0 + 1.0 - 1.0))
    #expect(z[2] == k * (z[1] + 1.0 - 1.0))
    var steady = AppleFilter(kind: .highpass, constant: k, adaptive: true, initialization: .steady)
    var a = [0.3, 0.3]
    var b = [0.0, 0.0]
    var c = [-1.0, -1.0]
    steady.process(x: &a, y: &b, z: &c)
    #expect(a == [0, 0] && c == [0, 0])
  }

  @Test func appleCutoffIsBelowItsNominalValue() {
    // Apple's RC = 1/fc: the -3 dB point of the "5 Hz at 60 Hz" low-pass is near 5 / (2 pi).
    let minus3 = ExponentialDesign.minus3dB(alpha: 1.0 / 13.0, rate: 60)!
    #expect(minus3 > 0.7 && minus3 < 0.9)
    // The seeds' RC = 1/(2 pi fc) puts it at fc (to first order).
    let a = try! ExponentialDesign.alpha(cutoff: 2, rate: 100)
    #expect(abs(ExponentialDesign.minus3dB(alpha: a, rate: 100)! - 2) < 0.15)
  }
}

@Suite struct ThreeChannelTests {
  @Test func threeChannelLoopsEqualSingleChannelFilters() throws {
    var rng = SeededRandom(seed: 12)
    let n = 777
    let axes = (0..<3).map { _ in (0..<n).map { _ in Double.random(in: -2...2, using: &rng) } }
    let design = try ButterworthDesign(order: 5, cutoff: 3, band: .high, rate: 50)
    for initialization in FilterInit.allCases {
      var singles = axes
      for k in 0..<3 {
        var f = SOSFilter(sections: design.sections, initialization: initialization)
        f.process(&singles[k])
      }
      var bank = SOSFilter3(sections: design.sections, initialization: initialization)
      var x = Array(axes[0][..<300]), y = Array(axes[1][..<300]), z = Array(axes[2][..<300])
      bank.process(&x, &y, &z)
      var x2 = Array(axes[0][300...]), y2 = Array(axes[1][300...]), z2 = Array(axes[2][300...])
      bank.process(&x2, &y2, &z2)
      #expect(x + x2 == singles[0] && y + y2 == singles[1] && z + z2 == singles[2])

      var lows = axes
      for k in 0..<3 {
        var f = ExponentialLowpass(alpha: 0.07, initialization: initialization)
        f.process(&lows[k])
      }
      var low3 = ExponentialLowpass3(alpha: 0.07, initialization: initialization)
      var a = axes[0], b = axes[1], c = axes[2]
      low3.process(&a, &b, &c)
      #expect(a == lows[0] && b == lows[1] && c == lows[2])
    }
  }
}

@Suite struct ZeroPhaseTests {
  @Test func threeAtOnceEqualsOneByOne() throws {
    var rng = SeededRandom(seed: 21)
    let axes = (0..<3).map { _ in (0..<500).map { _ in Double.random(in: -1...1, using: &rng) } }
    let design = try ButterworthDesign(order: 3, cutoff: 2, cutoffHigh: 9, band: .bandstop, rate: 40)
    let three = try #require(ZeroPhase.filter3(axes[0], axes[1], axes[2], sections: design.sections))
    for k in 0..<3 { #expect(three[k] == ZeroPhase.filter(axes[k], sections: design.sections)) }
    #expect(ZeroPhase.filter3([1, 2], [1, 2], [1, 2], sections: design.sections) == nil)
  }

  /// The streaming form, fed blocks of any size and given the forward output back in reverse
  /// blocks of another size, gives exactly the in-memory values (which match scipy's sosfiltfilt).
  @Test(arguments: [(4, 5.0, FilterBand.low, 1000), (3, 2.0, .high, 31), (2, 3.0, .bandpass, 400)])
  func streamingEqualsInMemory(order: Int, cutoff: Double, band: FilterBand, count: Int) throws {
    var rng = SeededRandom(seed: UInt64(count))
    let axes = (0..<3).map { _ in (0..<count).map { _ in Double.random(in: -2...2, using: &rng) } }
    let design = try ButterworthDesign(
      order: order, cutoff: cutoff, cutoffHigh: band == .bandpass ? 12 : nil, band: band, rate: 100)
    let expected = try #require(ZeroPhase.filter3(axes[0], axes[1], axes[2], sections: design.sections))
    for trial in 0..<5 {
      var stream = ZeroPhaseStream3(sections: design.sections)
      var forward: [[Double]] = [[], [], []]
      var i = 0
      while i < count {
        // The first block must exceed the pad; later ones are any size.
        let size = i == 0 ? stream.pad + 1 + trial : Int.random(in: 1...97, using: &rng)
        let end = min(count, i + size)
        var (x, y, z) = (Array(axes[0][i..<end]), Array(axes[1][i..<end]), Array(axes[2][i..<end]))
        stream.forward(&x, &y, &z)
        forward[0] += x
        forward[1] += y
        forward[2] += z
        i = end
      }
      let turned = stream.turn()
      #expect(turned)
      var end = count
      while end > 0 {
        let start = max(0, end - Int.random(in: 1...113, using: &rng))
        var (x, y, z) = (Array(forward[0][start..<end]), Array(forward[1][start..<end]), Array(forward[2][start..<end]))
        stream.backward(&x, &y, &z)
        forward[0].replaceSubrange(start..<end, with: x)
        forward[1].replaceSubrange(start..<end, with: y)
        forward[2].replaceSubrange(start..<end, with: z)
        end = start
      }
      for k in 0..<3 { #expect(forward[k] == expected[k], "axis \(k), trial \(trial)") }
    }
  }

  @Test func streamingRefusesSignalsNoLongerThanThePad() throws {
    let design = try ButterworthDesign(order: 4, cutoff: 5, cutoffHigh: nil, band: .low, rate: 100)
    var stream = ZeroPhaseStream3(sections: design.sections)
    var (x, y, z) = ([Double](repeating: 1, count: stream.pad), [Double](repeating: 1, count: stream.pad), [Double](repeating: 1, count: stream.pad))
    _ = (x, y, z)
    let early = stream.turn()
    #expect(!early)
    x = [Double](repeating: 1, count: stream.pad + 1)
    (y, z) = (x, x)
    stream.forward(&x, &y, &z)
    let late = stream.turn()
    #expect(late)
  }
}
