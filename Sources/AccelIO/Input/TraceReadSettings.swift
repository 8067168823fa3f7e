import AccelCore

/// How a sensor group's unit is chosen: fixed, or read from the column names' annotations
/// (`accX[g]`, `A_X [mg]`, `gyr_x_rps`, `G_X [dps]`, `mag_x_uT`), falling back to accelkit's own
/// unit for the group.
public enum UnitChoice<Unit: SensorUnit>: Equatable, Sendable {
  case auto
  case fixed(Unit)

  public init?(name: String) {
    if name.lowercased() == "auto" {
      self = .auto
    } else if let unit = Unit(name: name) {
      self = .fixed(unit)
    } else {
      return nil
    }
  }

  /// The unit for columns with these header names.
  public func resolve(names: [String], file: String) throws -> Unit {
    switch self {
    case .fixed(let unit): return unit
    case .auto:
      let found = Set(names.compactMap(Unit.annotation(in:)))
      if found.count > 1 {
        throw AccelError.usage(
          "the columns of \(file) name different units (\(found.map(\.rawValue).sorted().joined(separator: ", ")))",
          hint: "give the unit with \(Unit.optionName)")
      }
      return found.first ?? Unit.fallback
    }
  }

  /// The option text that sets this choice (`--units mg`).
  public var optionText: String {
    switch self {
    case .auto: "\(Unit.optionName) auto"
    case .fixed(let u): "\(Unit.optionName) \(u.rawValue)"
    }
  }
}

/// How acceleration units are chosen.
public typealias UnitsSetting = UnitChoice<AccelerationUnit>

/// The input formats accelkit reads.
public enum TraceFormat: String, CaseIterable, Sendable {
  case csv
  case tsv
  case npy
  case raw
  case hdf5

  /// The format a file name's extension implies, if any.
  public init?(pathExtensionOf path: String) {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    switch path[path.index(after: dot)...].lowercased() {
    case "csv", "txt": self = .csv
    case "tsv", "tab": self = .tsv
    case "npy": self = .npy
    case "raw", "bin", "f32", "f64": self = .raw
    case "h5", "hdf5", "he5", "hdf": self = .hdf5
    default: return nil
    }
  }
}

/// Field order of raw interleaved binary samples: which channels each record holds, in order.
///
/// Written as `txyz` or `xyz` (the accelerometer alone), or as a comma-separated list of channels
/// and groups: `t,x,y,z,gx,gy,gz`, `t,acc,gyro,mag`, `acc,gyro`. The accelerometer is required;
/// the gyroscope and the magnetometer come with all three axes or not at all.
public struct RawLayout: Equatable, Sendable, CustomStringConvertible {
  public private(set) var channels: [Channel]

  public static let txyz = RawLayout(checked: [.t, .x, .y, .z])
  public static let xyz = RawLayout(checked: [.x, .y, .z])

  private init(checked channels: [Channel]) { self.channels = channels }

  /// The layout of `t` (when `time`) and every group of `layout`, in storage order.
  public init(_ layout: TraceLayout, time: Bool = true) {
    channels = (time ? [.t] : []) + layout.groups.flatMap(\.channels)
  }

  /// Parses a layout; nil (with the reason in `problem(with:)`) when it is not one.
  public init?(parsing text: String) {
    guard let channels = try? Self.parse(text) else { return nil }
    self.channels = channels
  }

  /// Why `text` is not a layout, or nil when it is one.
  public static func problem(with text: String) -> String? {
    do {
      _ = try parse(text)
      return nil
    } catch {
      return (error as? AccelError)?.message ?? "\(error)"
    }
  }

  private static func parse(_ text: String) throws -> [Channel] {
    let lower = text.lowercased()
    if lower == "txyz" { return [.t, .x, .y, .z] }
    if lower == "xyz" { return [.x, .y, .z] }
    var channels: [Channel] = []
    for part in lower.split(separator: ",", omittingEmptySubsequences: false) {
      let word = part.trimmingSpaces()
      if let c = Channel(name: word) {
        channels.append(c)
      } else if let g = SensorGroup(name: word) {
        channels += g.channels
      } else {
        throw AccelError.usage(
          "unknown channel \"\(word)\" in the raw layout \"\(text)\"; use t, x, y, z, gx, gy, gz, mx, my, mz, "
            + "acc, gyro, mag (or txyz, xyz)")
      }
    }
    if Set(channels).count != channels.count {
      throw AccelError.usage("the raw layout \"\(text)\" names a channel twice")
    }
    for group in SensorGroup.allCases {
      let present = group.channels.filter(channels.contains)
      if group == .accelerometer && present.count < 3 {
        throw AccelError.usage("the raw layout \"\(text)\" needs the accelerometer's x, y and z")
      }
      if !present.isEmpty && present.count < 3 {
        throw AccelError.usage("the raw layout \"\(text)\" has only some axes of the \(group.rawValue)")
      }
    }
    return channels
  }

  public var fieldCount: Int { channels.count }
  public var hasTime: Bool { channels.contains(.t) }

  /// The trace layout of the groups the records hold.
  public var traceLayout: TraceLayout {
    TraceLayout(hasGyroscope: channels.contains(.gx), hasMagnetometer: channels.contains(.mx))
  }

  public var description: String {
    if channels == [.t, .x, .y, .z] { return "txyz" }
    if channels == [.x, .y, .z] { return "xyz" }
    return channels.map(\.name).joined(separator: ",")
  }
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
  /// The time column's unit; nil: seconds, unless its first value is an epoch time in ms, us or
  /// ns (then that unit, with a note in the metadata).
  public var timeUnit: TimeUnit?
  public var units: UnitsSetting = .auto
  public var gyroscopeUnits: UnitChoice<AngularRateUnit> = .auto
  public var magnetometerUnits: UnitChoice<MagneticFieldUnit> = .auto
  /// Extra columns to keep by name or index (`--keep`).
  public var keep: [ColumnReference] = []
  public var convention: AxisConvention = .apple
  public var rawLayout: RawLayout = .txyz
  public var rawPrecision: SamplePrecision = .float64
  public var skipBadRows = false
  /// What to do with time stamps that do not advance: `.reject` (the default; `.skip` with
  /// `skipBadRows`) or `.report` (describe the file as it is).
  public var timeOrder: TimeOrderPolicy = .reject
  /// The policy in force: `timeOrder`, with `.reject` turned into `.skip` by `skipBadRows`.
  public var timeOrderPolicy: TimeOrderPolicy {
    timeOrder == .reject && skipBadRows ? .skip : timeOrder
  }
  public var allowNonFinite = false
  /// The HDF5 dataset (or group of 1-D datasets) to read; nil: a BROAD trial, or the file's only
  /// 2-D dataset.
  public var dataset: String?
  /// Numbers with a decimal comma (`1,5`, as spreadsheets in many locales save them); nil: when
  /// the delimiter is `;` or a tab and a field of the first row reads like `1,5`.
  public var decimalComma: Bool?
  /// The preset recognised from the header (set by the reader, reported in the metadata).
  public var recognisedAs: String?
  /// The options to apply over a preset recognised from a CSV header; nil: no recognition.
  public var recogniseWith: TraceReadOptions?
  public var blockSize = defaultBlockSize
  /// The initial size of the CSV read buffer in bytes (it grows for longer rows). Tests make it
  /// tiny to exercise rows that straddle reads.
  public var readBufferSize = 1 << 20
  /// Threads that parse plain CSV rows (1 or 2; 2 is used only on a machine with two cores).
  public var parseThreads = 2

  public init() {}
}

/// Turns parsed values into accelkit's internal units: time in seconds (or `index / rate` when
/// there is no time column), acceleration in g with Apple's signs, angular rate in rad/s,
/// magnetic field in µT; kept columns as they are.
struct SampleConversion {
  var timeDivisor: Double
  /// Whether the time unit is to be told from the first timestamp.
  var detectsTimeUnit: Bool
  /// The unit told from the first timestamp, when it was not seconds.
  private(set) var detectedTimeUnit: TimeUnit?
  let rate: Double?
  let hasTime: Bool
  let layout: TraceLayout
  /// Per storage slot (`layout.columnNames`), the conversion and whether to negate.
  let scales: [UnitScale]
  let negates: [Bool]

  init(settings: TraceReadSettings, units: ResolvedUnits, layout: TraceLayout, hasTime: Bool) {
    timeDivisor = (settings.timeUnit ?? .s).divisorToSeconds
    detectsTimeUnit = settings.timeUnit == nil && hasTime
    rate = settings.rate
    self.hasTime = hasTime
    self.layout = layout
    var scales: [UnitScale] = [.identity]
    var negates = [false]
    for group in layout.groups {
      let scale: UnitScale
      switch group {
      case .accelerometer: scale = units.acceleration.toInternal
      case .gyroscope: scale = (units.gyroscope ?? .radiansPerSecond).toInternal
      case .magnetometer: scale = (units.magnetometer ?? .microtesla).toInternal
      }
      scales += Array(repeating: scale, count: 3)
      // Only the accelerometer's sign depends on the convention (see `AxisConvention`).
      negates += Array(repeating: group == .accelerometer && settings.convention == .specificForce, count: 3)
    }
    scales += Array(repeating: .identity, count: layout.extras.count)
    negates += Array(repeating: false, count: layout.extras.count)
    self.scales = scales
    self.negates = negates
  }

  /// Builds a block from the column buffers laid out at `base`, `base + capacity`, ... (one per
  /// storage slot) and converts it. `firstIndex` is the trace index of the first sample (for
  /// `index / rate`).
  mutating func makeBlock(
    _ base: UnsafeMutablePointer<Double>, capacity: Int, count n: Int, firstIndex: Int
  ) -> SampleBlock {
    var columns: [[Double]] = []
    columns.reserveCapacity(scales.count)
    if detectsTimeUnit && n > 0 {
      detectsTimeUnit = false
      if let unit = TimeUnit.epoch(base[0]) {
        detectedTimeUnit = unit
        timeDivisor = unit.divisorToSeconds
      }
    }
    if hasTime {
      let tp = base
      if timeDivisor != 1 { for i in 0..<n { tp[i] /= timeDivisor } }
      columns.append(Array(UnsafeBufferPointer(start: tp, count: n)))
    } else {
      let r = rate!
      columns.append((0..<n).map { Double(firstIndex + $0) / r })
    }
    for k in 1..<scales.count {
      let p = base + k * capacity
      let negate = negates[k]
      switch scales[k] {
      case .identity:
        if negate { for i in 0..<n { p[i] = -p[i] } }
      case .divide(let d):
        if negate {
          for i in 0..<n { p[i] = -p[i] / d }
        } else {
          for i in 0..<n { p[i] /= d }
        }
      case .multiply(let m):
        if negate {
          for i in 0..<n { p[i] = -p[i] * m }
        } else {
          for i in 0..<n { p[i] *= m }
        }
      }
      columns.append(Array(UnsafeBufferPointer(start: p, count: n)))
    }
    return SampleBlock(columns: columns, layout: layout)
  }
}

/// The units an input's groups were found to be in.
struct ResolvedUnits {
  var acceleration: AccelerationUnit
  var gyroscope: AngularRateUnit?
  var magnetometer: MagneticFieldUnit?

  /// The units of `layout`'s groups: as set, or read from the header names of each group's
  /// columns (`names`; empty without a header).
  init(settings: TraceReadSettings, layout: TraceLayout, names: [SensorGroup: [String]], file: String) throws
  {
    acceleration = try settings.units.resolve(names: names[.accelerometer] ?? [], file: file)
    gyroscope =
      layout.hasGyroscope
      ? try settings.gyroscopeUnits.resolve(names: names[.gyroscope] ?? [], file: file) : nil
    magnetometer =
      layout.hasMagnetometer
      ? try settings.magnetometerUnits.resolve(names: names[.magnetometer] ?? [], file: file) : nil
  }

  /// The metadata of a trace read with these units.
  func metadata(
    name: String, settings: TraceReadSettings, layout: TraceLayout, hasTime: Bool, precision: SamplePrecision
  ) -> TraceMetadata {
    TraceMetadata(
      name: name, nominalRate: settings.rate, timeFromRate: !hasTime, precision: precision,
      sourceUnits: acceleration, sourceConvention: settings.convention, layout: layout,
      sourceGyroscopeUnits: gyroscope, sourceMagnetometerUnits: magnetometer,
      recognisedAs: settings.recognisedAs)
  }
}

extension SampleConversion {
  /// The note for a time unit told from the first timestamp (`first`, as read).
  func timeUnitNote(first: Double) -> String? {
    detectedTimeUnit.map { unit in
      "the time column holds Unix epoch times in \(unit.rawValue) (the first is \(formatNumber(first))): read as \(unit.rawValue); --time-unit chooses another unit"
    }
  }
}
