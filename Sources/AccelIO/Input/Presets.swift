import AccelCore

/// Input settings for a known recorder, applied with `--preset NAME`. Options given on the command
/// line override a preset's values. Presets are plain data: add one by adding an entry to
/// `Preset.all`.
public struct Preset: Sendable {
  public var name: String
  /// One line for `accelkit presets`.
  public var summary: String
  public var columns: String?
  public var rate: Double?
  public var timeUnit: TimeUnit?
  public var units: UnitsSetting?
  public var gyroscopeUnits: UnitChoice<AngularRateUnit>?
  public var magnetometerUnits: UnitChoice<MagneticFieldUnit>?
  public var convention: AxisConvention?
  public var delimiter: UInt8?
  public var hasHeader: Bool?
  /// How to recognise the recorder's CSV from its header without `--preset`: alternatives, each
  /// a set of column names that must all be there (compared lowercased, spaces removed).
  public var signatures: [[String]]
  /// Whether a recognised file must also have no time column (ST's logs have none).
  public var signatureWithoutTime: Bool

  public static let all: [Preset] = [
    Preset(
      name: "st-mlc",
      summary: "STMicroelectronics MLC example logs (accX[g]... or A_X [mg]..., G_X [dps]...): no time column, 30 Hz",
      columns: "x=1,y=2,z=3", rate: 30, timeUnit: nil, units: .auto, gyroscopeUnits: .auto,
      convention: .specificForce,
      signatures: [["accx[g]", "accy[g]", "accz[g]"], ["a_x[mg]", "a_y[mg]", "a_z[mg]"]],
      signatureWithoutTime: true),
    Preset(
      name: "coremotion",
      summary: "Core Motion CSV (t_s, userAcc_*_g, gravity_*_g, rotRate_*_rps): the raw reading gravity + userAcc",
      columns: "t=t_s,x=gravity_x_g+userAcc_x_g,y=gravity_y_g+userAcc_y_g,z=gravity_z_g+userAcc_z_g",
      units: .fixed(.g), gyroscopeUnits: .fixed(.radiansPerSecond), convention: .apple,
      signatures: [["t_s", "useracc_x_g", "useracc_y_g", "useracc_z_g", "gravity_x_g", "gravity_y_g", "gravity_z_g"]]),
    Preset(
      name: "coremotion-gravity",
      summary: "Core Motion CSV, the gravity columns alone (gravity_*_g)",
      columns: "t=t_s,x=gravity_x_g,y=gravity_y_g,z=gravity_z_g", units: .fixed(.g),
      gyroscopeUnits: .fixed(.radiansPerSecond), convention: .apple),
    Preset(
      name: "coremotion-user",
      summary: "Core Motion CSV, the user acceleration columns alone (userAcc_*_g)",
      columns: "t=t_s,x=userAcc_x_g,y=userAcc_y_g,z=userAcc_z_g", units: .fixed(.g),
      gyroscopeUnits: .fixed(.radiansPerSecond), convention: .apple),
    Preset(
      name: "broad",
      summary: "BROAD benchmark trials as CSV (t_s, acc_*_mps2, gyr_*_rps, mag_*_uT): m/s^2, specific force",
      columns: "t=t_s,x=acc_x_mps2,y=acc_y_mps2,z=acc_z_mps2", units: .fixed(.metersPerSecondSquared),
      gyroscopeUnits: .fixed(.radiansPerSecond), magnetometerUnits: .fixed(.microtesla),
      convention: .specificForce,
      signatures: [["t_s", "acc_x_mps2", "acc_y_mps2", "acc_z_mps2"]]),
    Preset(
      name: "phyphox",
      summary: "phyphox app CSV export (\"Time (s)\", \"Acceleration x (m/s^2)\"...): m/s^2, specific force",
      columns: "t=Time (s),x=Acceleration x (m/s^2),y=Acceleration y (m/s^2),z=Acceleration z (m/s^2)",
      timeUnit: .s, units: .fixed(.metersPerSecondSquared), convention: .specificForce,
      signatures: [["time(s)", "accelerationx(m/s^2)", "accelerationy(m/s^2)", "accelerationz(m/s^2)"]]),
    Preset(
      name: "sensor-logger",
      summary:
        "Sensor Logger app exports (TotalAcceleration.csv: time in epoch ns, seconds_elapsed, z, y, x in m/s^2, Android's signs): t from seconds_elapsed",
      columns: "t=seconds_elapsed,x=x,y=y,z=z", units: .fixed(.metersPerSecondSquared),
      gyroscopeUnits: .fixed(.radiansPerSecond), magnetometerUnits: .fixed(.microtesla), convention: .specificForce,
      signatures: [["time", "seconds_elapsed", "x", "y", "z"]]),
    Preset(
      name: "sensor-logger-ios",
      summary:
        "Sensor Logger app on iOS (Accelerometer.csv: the user acceleration, gravity removed, in m/s^2 with Apple's signs): t from seconds_elapsed",
      columns: "t=seconds_elapsed,x=x,y=y,z=z", units: .fixed(.metersPerSecondSquared),
      gyroscopeUnits: .fixed(.radiansPerSecond), magnetometerUnits: .fixed(.microtesla), convention: .apple),
    Preset(
      name: "android",
      summary: "Android SensorEvent logs with columns t (ns), x, y, z in m/s^2 (specific force)",
      columns: nil, timeUnit: .ns, units: .fixed(.metersPerSecondSquared), gyroscopeUnits: .fixed(.radiansPerSecond),
      magnetometerUnits: .fixed(.microtesla), convention: .specificForce),
  ]

  public init(
    name: String, summary: String, columns: String? = nil, rate: Double? = nil, timeUnit: TimeUnit? = nil,
    units: UnitsSetting? = nil, gyroscopeUnits: UnitChoice<AngularRateUnit>? = nil,
    magnetometerUnits: UnitChoice<MagneticFieldUnit>? = nil, convention: AxisConvention? = nil,
    delimiter: UInt8? = nil, hasHeader: Bool? = nil, signatures: [[String]] = [], signatureWithoutTime: Bool = false
  ) {
    self.name = name
    self.summary = summary
    self.columns = columns
    self.rate = rate
    self.timeUnit = timeUnit
    self.units = units
    self.gyroscopeUnits = gyroscopeUnits
    self.magnetometerUnits = magnetometerUnits
    self.convention = convention
    self.delimiter = delimiter
    self.hasHeader = hasHeader
    self.signatures = signatures
    self.signatureWithoutTime = signatureWithoutTime
  }

  public static func named(_ name: String) -> Preset? {
    all.first { $0.name == name.lowercased() }
  }

  /// The preset whose signature the header matches, if any (the first in `all`).
  public static func recognising(header: [String]) -> Preset? {
    let names = Set(header.map(Self.signatureName))
    let hasTime = header.contains { ColumnSpec.defaultNames[.t]!.contains(ColumnSpec.bareName($0)) }
    return all.first { preset in
      !(preset.signatureWithoutTime && hasTime)
        && preset.signatures.contains { $0.allSatisfy(names.contains) }
    }
  }

  static func signatureName(_ name: String) -> String {
    String(name.lowercased().filter { $0 != " " && $0 != "\t" })
  }

  /// The settings this preset implies, as command-line options for `accelkit presets`.
  public var settingsDescription: String {
    var parts: [String] = []
    if let columns { parts.append("--columns " + (columns.contains(" ") ? "'\(columns)'" : columns)) }
    if let rate { parts.append("--rate \(formatNumber(rate))") }
    if let timeUnit { parts.append("--time-unit \(timeUnit.rawValue)") }
    if let units { parts.append(units.optionText) }
    if let gyroscopeUnits { parts.append(gyroscopeUnits.optionText) }
    if let magnetometerUnits { parts.append(magnetometerUnits.optionText) }
    if let convention { parts.append("--convention \(convention.rawValue)") }
    if let delimiter { parts.append("--delimiter \(CSVDialect.name(of: delimiter))") }
    if hasHeader == false { parts.append("--no-header") }
    return parts.joined(separator: " ")
  }
}

/// The input options as given on a command line (nil: not given), to be applied over a preset:
/// `--preset NAME`, or the recorder recognised from a CSV header when no preset and no
/// `--columns` are given.
public struct TraceReadOptions: Sendable {
  public var preset: String?
  public var format: TraceFormat?
  public var delimiter: UInt8?
  public var noHeader = false
  public var columns: ColumnSpec?
  public var keep: [ColumnReference] = []
  public var rate: Double?
  public var timeUnit: TimeUnit?
  public var units: UnitsSetting?
  public var gyroscopeUnits: UnitChoice<AngularRateUnit>?
  public var magnetometerUnits: UnitChoice<MagneticFieldUnit>?
  public var convention: AxisConvention?
  public var rawLayout: RawLayout?
  public var rawPrecision: SamplePrecision?
  public var skipBadRows = false
  public var allowNonFinite = false
  /// Numbers with a decimal comma (`1,5`); nil: told from the first row.
  public var decimalComma: Bool?
  /// The HDF5 dataset to read.
  public var dataset: String?
  /// Whether a CSV header may select a preset by itself (on unless a preset or columns are given).
  public var recognise = true

  public init() {}

  /// The reader settings: the preset's values, overridden by the options given.
  public func settings() throws -> TraceReadSettings {
    var s = TraceReadSettings()
    if let name = preset {
      guard let p = Preset.named(name) else {
        throw AccelError.usage(
          "unknown preset \"\(name)\"; the presets are \(Preset.all.map(\.name).joined(separator: ", "))")
      }
      try s.apply(p)
    }
    apply(to: &s)
    s.recogniseWith = preset == nil && columns == nil && recognise ? self : nil
    return s
  }

  /// `current` with a recognised recorder's preset applied under the options given (the options
  /// still win; settings that no preset sets are kept).
  func settings(recognised preset: Preset, over current: TraceReadSettings) throws -> TraceReadSettings {
    var s = current
    try s.apply(preset)
    apply(to: &s)
    s.recognisedAs = preset.name
    s.recogniseWith = nil
    return s
  }

  private func apply(to s: inout TraceReadSettings) {
    s.format = format
    if let delimiter { s.delimiter = delimiter }
    if noHeader { s.hasHeader = false }
    if let columns { s.columns = columns }
    if !keep.isEmpty { s.keep = keep }
    if let rate { s.rate = rate }
    if let timeUnit { s.timeUnit = timeUnit }
    if let units { s.units = units }
    if let gyroscopeUnits { s.gyroscopeUnits = gyroscopeUnits }
    if let magnetometerUnits { s.magnetometerUnits = magnetometerUnits }
    if let convention { s.convention = convention }
    if let rawLayout { s.rawLayout = rawLayout }
    if let rawPrecision { s.rawPrecision = rawPrecision }
    if skipBadRows { s.skipBadRows = true }
    if allowNonFinite { s.allowNonFinite = true }
    if let decimalComma { s.decimalComma = decimalComma }
    if let dataset { s.dataset = dataset }
  }
}

extension TraceReadSettings {
  mutating func apply(_ p: Preset) throws {
    if let c = p.columns { columns = try ColumnSpec(parsing: c) }
    rate = p.rate
    if let v = p.timeUnit { timeUnit = v }
    if let v = p.units { units = v }
    if let v = p.gyroscopeUnits { gyroscopeUnits = v }
    if let v = p.magnetometerUnits { magnetometerUnits = v }
    if let v = p.convention { convention = v }
    delimiter = p.delimiter
    if let v = p.hasHeader { hasHeader = v }
  }
}

/// Opens trace sources from paths and settings.
public enum TraceOpener {
  /// Opens `path` (`-` for stdin) as a trace: the format from `settings.format`, else the
  /// extension, else the first bytes (NPY magic) with CSV as the default.
  public static func open(path: String, settings: TraceReadSettings) throws -> (TraceSource, ByteInput) {
    let input = try ByteInput(path: path)
    var settings = settings
    var format = settings.format ?? TraceFormat(pathExtensionOf: path)
    if path.lowercased().hasSuffix(".f32") && settings.format == nil { settings.rawPrecision = .float32 }
    let head = try input.peekAvailable(least: 8, most: 512)
    if format == nil || format == .csv && settings.format == nil {
      format = head.starts(with: NPYHeader.magic) ? .npy : head.starts(with: HDF5Trace.magic) ? .hdf5 : .csv
    }
    if format == .hdf5 {
      guard input.path != nil, !input.isCompressed else {
        throw AccelError.usage(
          "\(input.name): HDF5 is read from a file, not from \(input.isCompressed ? "gzip-compressed data" : "a pipe")",
          hint: "HDF5 needs random access: save it as a file first")
      }
      return try HDF5Trace.open(path: path, settings: settings)
    }
    if settings.dataset != nil {
      throw AccelError.usage("--dataset chooses data in HDF5 files; \(input.name) is \(format!.rawValue.uppercased())")
    }
    if format == .csv || format == .tsv, let problem = ForeignFormat.problem(head: head, file: input.name) {
      throw problem
    }
    switch format ?? .csv {
    case .csv:
      return (try CSVTraceReader(input: input, settings: settings), input)
    case .tsv:
      if settings.delimiter == nil { settings.delimiter = UInt8(ascii: "\t") }
      return (try CSVTraceReader(input: input, settings: settings), input)
    case .npy:
      return (try BinaryTraceReader.npy(input: input, settings: settings), input)
    case .raw:
      return (try BinaryTraceReader.raw(input: input, settings: settings), input)
    case .hdf5:
      preconditionFailure("HDF5 is opened above")
    }
  }
}

/// Rows a reader skipped because of `--skip-bad-rows`.
public protocol SkipReporting {
  var skippedRows: Int { get }
  var firstSkippedError: AccelError? { get }
  /// The reader's check of the time stamps' order.
  var timeOrder: TimeOrderCheck { get }
}

extension CSVTraceReader: SkipReporting {}
extension BinaryTraceReader: SkipReporting {}
