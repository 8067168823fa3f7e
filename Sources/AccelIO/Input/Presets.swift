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
  public var convention: AxisConvention?
  public var delimiter: UInt8?
  public var hasHeader: Bool?

  public static let all: [Preset] = [
    Preset(
      name: "st-mlc",
      summary: "STMicroelectronics MLC example logs (accX[g]... or A_X [mg]...): no time column, 30 Hz",
      columns: "x=1,y=2,z=3", rate: 30, timeUnit: nil, units: .auto, convention: .specificForce),
    Preset(
      name: "coremotion",
      summary: "Core Motion CSV (t_s, userAcc_*_g, gravity_*_g): the raw reading gravity + userAcc",
      columns: "t=t_s,x=gravity_x_g+userAcc_x_g,y=gravity_y_g+userAcc_y_g,z=gravity_z_g+userAcc_z_g",
      units: .fixed(.g), convention: .apple),
    Preset(
      name: "coremotion-gravity",
      summary: "Core Motion CSV, the gravity columns alone (gravity_*_g)",
      columns: "t=t_s,x=gravity_x_g,y=gravity_y_g,z=gravity_z_g", units: .fixed(.g), convention: .apple),
    Preset(
      name: "coremotion-user",
      summary: "Core Motion CSV, the user acceleration columns alone (userAcc_*_g)",
      columns: "t=t_s,x=userAcc_x_g,y=userAcc_y_g,z=userAcc_z_g", units: .fixed(.g), convention: .apple),
    Preset(
      name: "broad",
      summary: "BROAD benchmark trials as CSV (t_s, acc_*_mps2): m/s^2, specific force",
      columns: "t=t_s,x=acc_x_mps2,y=acc_y_mps2,z=acc_z_mps2", units: .fixed(.metersPerSecondSquared),
      convention: .specificForce),
    Preset(
      name: "phyphox",
      summary: "phyphox app CSV export (\"Time (s)\", \"Acceleration x (m/s^2)\"...): m/s^2, specific force",
      columns: "t=Time (s),x=Acceleration x (m/s^2),y=Acceleration y (m/s^2),z=Acceleration z (m/s^2)",
      timeUnit: .s, units: .fixed(.metersPerSecondSquared), convention: .specificForce),
    Preset(
      name: "android",
      summary: "Android SensorEvent logs with columns t (ns), x, y, z in m/s^2 (specific force)",
      columns: nil, timeUnit: .ns, units: .fixed(.metersPerSecondSquared), convention: .specificForce),
  ]

  public init(
    name: String, summary: String, columns: String? = nil, rate: Double? = nil, timeUnit: TimeUnit? = nil,
    units: UnitsSetting? = nil, convention: AxisConvention? = nil, delimiter: UInt8? = nil,
    hasHeader: Bool? = nil
  ) {
    self.name = name
    self.summary = summary
    self.columns = columns
    self.rate = rate
    self.timeUnit = timeUnit
    self.units = units
    self.convention = convention
    self.delimiter = delimiter
    self.hasHeader = hasHeader
  }

  public static func named(_ name: String) -> Preset? {
    all.first { $0.name == name.lowercased() }
  }

  /// The settings this preset implies, as `key=value` text for `accelkit presets`.
  public var settingsDescription: String {
    var parts: [String] = []
    if let columns { parts.append("--columns " + (columns.contains(" ") ? "'\(columns)'" : columns)) }
    if let rate { parts.append("--rate \(formatNumber(rate))") }
    if let timeUnit { parts.append("--time-unit \(timeUnit.rawValue)") }
    if let units {
      switch units {
      case .auto: parts.append("--units auto")
      case .fixed(let u): parts.append("--units \(u.rawValue)")
      }
    }
    if let convention { parts.append("--convention \(convention.rawValue)") }
    if let delimiter { parts.append("--delimiter \(CSVDialect.name(of: delimiter))") }
    if hasHeader == false { parts.append("--no-header") }
    return parts.joined(separator: " ")
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
    if format == nil {
      format = try input.peek(6) == NPYHeader.magic ? .npy : .csv
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
    }
  }
}

/// Rows a reader skipped because of `--skip-bad-rows`.
public protocol SkipReporting {
  var skippedRows: Int { get }
  var firstSkippedError: AccelError? { get }
}

extension CSVTraceReader: SkipReporting {}
extension BinaryTraceReader: SkipReporting {}
