import AccelCore
import CFFTW

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// FFTW's planner is not thread-safe by itself; this makes it so, once per process (every plan in
/// this module touches it first).
let plannerIsThreadSafe: Void = { fftw_make_planner_thread_safe() }()

/// A forward real-to-complex FFT of one size, planned once with FFTW and reused.
///
/// For input `x[0..<n]` it computes, for k = 0...n/2,
/// ```
/// X[k] = sum_{j=0}^{n-1} x[j] * exp(-2*pi*i*j*k/n)
/// ```
/// (unnormalised, as numpy.fft.rfft). An instance owns aligned buffers and is not itself safe to
/// use from two threads at once; create one per thread (planning is thread-safe).
public final class RealFFT {
  /// The transform length.
  public let size: Int
  /// The number of output bins, n/2 + 1.
  public var binCount: Int { size / 2 + 1 }
  private let input: UnsafeMutablePointer<Double>
  private let output: UnsafeMutablePointer<fftw_complex>
  private let plan: fftw_plan

  /// Plans a transform of `size` >= 1 points. `measure` asks FFTW to time candidate algorithms
  /// (slower to plan, faster to run; uses wisdom when loaded).
  public init(size: Int, measure: Bool = false) {
    precondition(size >= 1, "FFT size must be at least 1")
    _ = plannerIsThreadSafe
    self.size = size
    input = fftw_alloc_real(size)!
    output = fftw_alloc_complex(size / 2 + 1)!
    let flags = measure ? UInt32(FFTW_MEASURE) : UInt32(FFTW_ESTIMATE)
    plan = fftw_plan_dft_r2c_1d(Int32(size), input, output, flags)!
  }

  deinit {
    fftw_destroy_plan(plan)
    fftw_free(input)
    fftw_free(output)
  }

  /// Transforms `x` (exactly `size` values) and calls `body` with the real and imaginary parts of
  /// each of the `binCount` bins.
  public func transform(_ x: UnsafeBufferPointer<Double>, _ body: (Int, Double, Double) -> Void) {
    precondition(x.count == size)
    input.update(from: x.baseAddress!, count: size)
    fftw_execute(plan)
    for k in 0..<binCount { body(k, output[k].0, output[k].1) }
  }

  /// Transforms `x` (exactly `size` values) and writes each bin's power, re^2 + im^2, into
  /// `power` (`binCount` values): the loop without a call per bin.
  public func power(_ x: UnsafeBufferPointer<Double>, into power: UnsafeMutableBufferPointer<Double>) {
    precondition(x.count == size && power.count >= binCount)
    input.update(from: x.baseAddress!, count: size)
    fftw_execute(plan)
    for k in 0..<binCount { power[k] = output[k].0 * output[k].0 + output[k].1 * output[k].1 }
  }

  /// Transforms `x` and returns the bins as (re, im) pairs.
  public func transform(_ x: [Double]) -> [(re: Double, im: Double)] {
    var result: [(re: Double, im: Double)] = []
    result.reserveCapacity(binCount)
    x.withUnsafeBufferPointer { buffer in transform(buffer) { _, re, im in result.append((re, im)) } }
    return result
  }
}

/// FFTW wisdom: accumulated planning knowledge, saved to and loaded from a file.
public enum FFTWisdom {
  /// Loads wisdom from `path`; false when the file cannot be read or is not wisdom.
  public static func load(from path: String) -> Bool {
    _ = plannerIsThreadSafe
    RunFiles.noteInput(path, role: role)
    return fftw_import_wisdom_from_filename(path) != 0
  }

  /// The role of a wisdom file among a run's files: read, then saved back over itself.
  public static let role = "FFTW wisdom"

  /// The wisdom gathered so far, as FFTW's text (to be written atomically by the caller).
  public static func exported() -> String {
    guard let text = fftw_export_wisdom_to_string() else { return "" }
    defer { free(text) }
    return String(cString: text)
  }
}
