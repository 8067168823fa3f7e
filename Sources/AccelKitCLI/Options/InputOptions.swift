import AccelCore
import AccelIO
import ArgumentParser

extension TraceFormat: ExpressibleByArgument {}
extension TimeUnit: ExpressibleByArgument {}
extension AxisConvention: ExpressibleByArgument {}
extension RawLayout: ExpressibleByArgument {}
extension SamplePrecision: ExpressibleByArgument {}

/// How to read input traces: shared by every command that reads one.
struct InputOptions: ParsableArguments {
  @Option(name: .customLong("input-format"), help: "The input format: csv, tsv, npy or raw (default: from the extension or the content).")
  var format: TraceFormat?

  @Option(help: ArgumentHelp("Set the CSV delimiter: comma, tab, semicolon, space or one character (default: detected).", valueName: "char"))
  var delimiter: String?

  @Flag(help: "Read CSV input that has no header row (columns by index: t,x,y,z for 4 or more, x,y,z for 3).")
  var noHeader = false

  @Option(help: ArgumentHelp("Map input columns: t=NAME,x=NAME,y=NAME,z=NAME (names or 1-based indices; A+B sums two columns).", valueName: "map"))
  var columns: String?

  @Option(help: ArgumentHelp("Set the sample rate, for inputs without a time column.", valueName: "hz"))
  var rate: Double?

  @Option(help: "Set the unit of the time column: s, ms, us or ns (default: s).")
  var timeUnit: TimeUnit?

  @Option(help: ArgumentHelp("Set the acceleration unit: g, mg, m/s2 or auto (default: auto, from the column names, else g).", valueName: "unit"))
  var units: String?

  @Option(help: "Set the axis convention of the input: apple (face up reads z = -1 g) or specific-force (face up reads z = +1 g).")
  var convention: AxisConvention?

  @Option(help: ArgumentHelp("Apply the settings of a known recorder (see `accelkit presets`).", valueName: "name"))
  var preset: String?

  @Option(help: "Set the field order of raw binary input: txyz or xyz.")
  var layout: RawLayout?

  @Option(help: "Set the value type of raw binary input: f64 or f32 (default: f64, or f32 for .f32 files).")
  var rawType: SamplePrecision?

  @Flag(help: "Skip rows that do not parse and report how many on stderr, instead of stopping.")
  var skipBadRows = false

  @Flag(help: "Accept NaN and infinite values (and read empty fields as NaN).")
  var allowNonfinite = false

  func validate() throws {
    if let rate, !(rate > 0 && rate.isFinite) {
      throw ValidationError("--rate must be a positive number of Hz, got \(rate)")
    }
    if let delimiter, CSVDialect.parseDelimiter(delimiter) == nil {
      throw ValidationError("--delimiter must be comma, tab, semicolon, space or one ASCII character, got \"\(delimiter)\"")
    }
    if let units, UnitsSetting(name: units) == nil {
      throw ValidationError("--units must be g, mg, m/s2 or auto, got \"\(units)\"")
    }
    if let preset, Preset.named(preset) == nil {
      throw ValidationError(
        "unknown preset \"\(preset)\"; the presets are \(Preset.all.map(\.name).joined(separator: ", "))")
    }
  }

  /// The reader settings: the preset's values, overridden by the options given.
  func settings() throws -> TraceReadSettings {
    var s = TraceReadSettings()
    if let name = preset, let p = Preset.named(name) {
      if let c = p.columns { s.columns = try ColumnSpec(parsing: c) }
      s.rate = p.rate
      if let v = p.timeUnit { s.timeUnit = v }
      if let v = p.units { s.units = v }
      if let v = p.convention { s.convention = v }
      s.delimiter = p.delimiter
      if let v = p.hasHeader { s.hasHeader = v }
    }
    s.format = format
    if let delimiter { s.delimiter = CSVDialect.parseDelimiter(delimiter) }
    if noHeader { s.hasHeader = false }
    if let columns { s.columns = try ColumnSpec(parsing: columns) }
    if let rate { s.rate = rate }
    if let timeUnit { s.timeUnit = timeUnit }
    if let units { s.units = UnitsSetting(name: units)! }
    if let convention { s.convention = convention }
    if let layout { s.rawLayout = layout }
    if let rawType { s.rawPrecision = rawType }
    s.skipBadRows = skipBadRows
    s.allowNonFinite = allowNonfinite
    return s
  }
}
