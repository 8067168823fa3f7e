import AccelCore

/// How acceleration units are chosen: fixed, or read from the column names' annotations
/// (`accX[g]`, `A_X [mg]`, `Acceleration x (m/s^2)`), falling back to g.
public enum UnitsSetting: Equatable, Sendable {
  case auto
  case fixed(AccelerationUnit)

  public init?(name: String) {
    if name.lowercased() == "auto" {
      self = .auto
    } else if let unit = AccelerationUnit(name: name) {
      self = .fixed(unit)
    } else {
      return nil
    }
  }

  /// The unit for columns with these header names.
  public func resolve(names: [String], file: String) throws -> AccelerationUnit {
    switch self {
    case .fixed(let unit): return unit
    case .auto:
      let found = Set(names.compactMap(unitAnnotation(in:)))
      if found.count > 1 {
        throw AccelError.usage(
          "the columns of \(file) name different units (\(found.map(\.rawValue).sorted().joined(separator: ", ")))",
          hint: "give the unit with --units g|mg|m/s2")
      }
      return found.first ?? .g
    }
  }
}

/// The input formats accelkit reads.
public enum TraceFormat: String, CaseIterable, Sendable {
  case csv
  case tsv
  case npy
  case raw

  /// The format a file name's extension implies, if any.
  public init?(pathExtensionOf path: String) {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    switch path[path.index(after: dot)...].lowercased() {
    case "csv", "txt": self = .csv
    case "tsv", "tab": self = .tsv
    case "npy": self = .npy
    case "raw", "bin", "f32", "f64": self = .raw
    default: return nil
    }
  }
}

/// Field order of raw interleaved binary samples.
public enum RawLayout: String, CaseIterable, Sendable {
  case txyz
  case xyz

  public var fieldCount: Int { self == .txyz ? 4 : 3 }
}

/// Everything a reader needs to know besides the bytes: the options of the command line after a
/// preset has been applied.
public struct TraceReadSettings: Sendable {
  public var format: TraceFormat?
  /// The CSV delimiter; nil to detect it from the first line.
  public var delimiter: UInt8?
  public var hasHeader = true
  public var columns: ColumnSpec?
  /// The sample rate in Hz, for inputs without a time column.
  public var rate: Double?
  public var timeUnit: TimeUnit = .s
  public var units: UnitsSetting = .auto
  public var convention: AxisConvention = .apple
  public var rawLayout: RawLayout = .txyz
  public var rawPrecision: SamplePrecision = .float64
  public var skipBadRows = false
  public var allowNonFinite = false
  public var blockSize = defaultBlockSize
  /// The initial size of the CSV read buffer in bytes (it grows for longer rows). Tests make it
  /// tiny to exercise rows that straddle reads.
  public var readBufferSize = 1 << 20

  public init() {}
}

/// Turns parsed values into accelkit's internal units: time in seconds (or `index / rate` when
/// there is no time column), acceleration in g, Apple's axis signs.
struct SampleConversion {
  let timeDivisor: Double
  let unitDivisor: Double
  let negate: Bool
  let rate: Double?
  let hasTime: Bool

  init(settings: TraceReadSettings, units: AccelerationUnit, hasTime: Bool) {
    timeDivisor = settings.timeUnit.divisorToSeconds
    unitDivisor = units.divisorToG
    negate = settings.convention == .specificForce
    rate = settings.rate
    self.hasTime = hasTime
  }

  /// Builds a block from four column buffers laid out at `base`, `base + capacity`, ... and
  /// converts it. `firstIndex` is the trace index of the first sample (for `index / rate`).
  func makeBlock(
    _ base: UnsafeMutablePointer<Double>, capacity: Int, count n: Int, firstIndex: Int
  ) -> SampleBlock {
    let t: [Double]
    if hasTime {
      let tp = base
      if timeDivisor != 1 { for i in 0..<n { tp[i] /= timeDivisor } }
      t = Array(UnsafeBufferPointer(start: tp, count: n))
    } else {
      let r = rate!
      t = (0..<n).map { Double(firstIndex + $0) / r }
    }
    func axis(_ k: Int) -> [Double] {
      let p = base + k * capacity
      if negate {
        if unitDivisor != 1 {
          for i in 0..<n { p[i] = -p[i] / unitDivisor }
        } else {
          for i in 0..<n { p[i] = -p[i] }
        }
      } else if unitDivisor != 1 {
        for i in 0..<n { p[i] /= unitDivisor }
      }
      return Array(UnsafeBufferPointer(start: p, count: n))
    }
    return SampleBlock(t: t, x: axis(1), y: axis(2), z: axis(3))
  }
}
