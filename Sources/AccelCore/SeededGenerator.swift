#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SplitMix64: a small, fast, seedable generator. Same seed, same sequence, on every platform.
/// Reference: G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014, doi:10.1145/2660193.2660195.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in [a, b), from the top 53 bits (platform-independent, unlike Double.random).
  public mutating func uniform(_ a: Double, _ b: Double) -> Double {
    a + (b - a) * Double(next() >> 11) / Double(1 << 53)
  }

  /// A standard normal value (Box-Muller).
  public mutating func normal() -> Double {
    let u1 = max(uniform(0, 1), 1e-300)
    let u2 = uniform(0, 1)
    return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
  }

  /// An integer in [a, b].
  public mutating func integer(_ a: Int, _ b: Int) -> Int { a + Int(next() % UInt64(b - a + 1)) }

  public mutating func chance(_ p: Double) -> Bool { uniform(0, 1) < p }

  public mutating func pick<T>(_ items: [T]) -> T { items[integer(0, items.count - 1)] }
}
