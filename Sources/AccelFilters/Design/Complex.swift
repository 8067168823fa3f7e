/// A complex number, for filter design (poles and zeros).
public struct Complex: Equatable, Sendable, CustomStringConvertible {
  public var re: Double
  public var im: Double

  public init(_ re: Double, _ im: Double = 0) {
    self.re = re
    self.im = im
  }

  public static func + (a: Complex, b: Complex) -> Complex { Complex(a.re + b.re, a.im + b.im) }
  public static func - (a: Complex, b: Complex) -> Complex { Complex(a.re - b.re, a.im - b.im) }
  public static func * (a: Complex, b: Complex) -> Complex {
    Complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
  }
  public static func * (a: Double, b: Complex) -> Complex { Complex(a * b.re, a * b.im) }
  public static func / (a: Complex, b: Complex) -> Complex {
    // Smith's algorithm, as numpy's complex division.
    if abs(b.re) >= abs(b.im) {
      let r = b.im / b.re
      let d = b.re + b.im * r
      return Complex((a.re + a.im * r) / d, (a.im - a.re * r) / d)
    } else {
      let r = b.re / b.im
      let d = b.re * r + b.im
      return Complex((a.re * r + a.im) / d, (a.im * r - a.re) / d)
    }
  }
  public static prefix func - (a: Complex) -> Complex { Complex(-a.re, -a.im) }

  public var conjugate: Complex { Complex(re, -im) }
  public var magnitude: Double { (re * re + im * im).squareRoot().isFinite ? hypot(re, im) : .infinity }
  public var isReal: Bool { im == 0 }

  /// The principal square root.
  public var squareRoot: Complex {
    if re == 0 && im == 0 { return Complex(0, 0) }
    let m = hypot(re, im)
    let r = ((m + abs(re)) / 2).squareRoot()
    if re >= 0 { return Complex(r, im / (2 * r)) }
    return Complex(abs(im) / (2 * r), im >= 0 ? r : -r)
  }

  public static func exp(_ z: Complex) -> Complex {
    let e = Foundation_exp(z.re)
    return Complex(e * Foundation_cos(z.im), e * Foundation_sin(z.im))
  }

  public var description: String {
    im == 0 ? "\(re)" : "\(re)\(im < 0 ? "-" : "+")\(abs(im))j"
  }
}

#if canImport(Glibc)
  import Glibc
  @inline(__always) func Foundation_exp(_ x: Double) -> Double { Glibc.exp(x) }
  @inline(__always) func Foundation_cos(_ x: Double) -> Double { Glibc.cos(x) }
  @inline(__always) func Foundation_sin(_ x: Double) -> Double { Glibc.sin(x) }
#elseif canImport(Darwin)
  import Darwin
  @inline(__always) func Foundation_exp(_ x: Double) -> Double { Darwin.exp(x) }
  @inline(__always) func Foundation_cos(_ x: Double) -> Double { Darwin.cos(x) }
  @inline(__always) func Foundation_sin(_ x: Double) -> Double { Darwin.sin(x) }
#endif
