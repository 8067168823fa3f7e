import AccelCore
import AccelIO
import ArgumentParser

extension TraceFormat: ExpressibleByArgument {}
extension TimeUnit: ExpressibleByArgument {}
extension AxisConvention: ExpressibleByArgument {}
extension SamplePrecision: ExpressibleByArgument {}

/// How to read input traces: shared by every command that reads one.
struct InputOptions: ParsableArguments {
  @Option(name: .customLong("input-format"), help: "The input format: csv, tsv, npy, raw or hdf5 (default: from the extension or the content).")
  var format: TraceFormat?

  @Option(
    help: ArgumentHelp(
      "The HDF5 data to read: a 2-D dataset (rows of columns) or a group of 1-D datasets, one per column (default: a BROAD trial's IMU data, or the file's only 2-D dataset).",
      valueName: "name"))
  var dataset: String?

  @Option(help: ArgumentHelp("Set the CSV delimiter: comma, tab, semicolon, space or one character (default: detected).", valueName: "char"))
  var delimiter: String?

  @Flag(help: "Read CSV input that has no header row (columns by index: t,x,y,z for 4 or more, x,y,z for 3).")
  var noHeader = false

  @Option(help: ArgumentHelp("Map input columns: t=NAME,x=NAME,y=NAME,z=NAME, and gx,gy,gz (gyroscope), mx,my,mz (magnetometer) (names or 1-based indices; A+B sums two columns).", valueName: "map"))
  var columns: String?

  @Option(help: ArgumentHelp("Keep these extra numeric columns (names or 1-based indices, comma-separated) and write them after the sensors.", valueName: "names"))
  var keep: String?

  @Option(help: ArgumentHelp("Set the sample rate, for inputs without a time column.", valueName: "hz"))
  var rate: Finite?

  @Option(help: "Set the unit of the time column: s, ms, us or ns (default: s).")
  var timeUnit: TimeUnit?

  @Option(help: ArgumentHelp("Set the acceleration unit: g, mg, m/s2 or auto (default: auto, from the column names, else g).", valueName: "unit"))
  var units: String?

  @Option(help: ArgumentHelp("Set the gyroscope unit: rad/s, deg/s or auto (default: auto, from the column names, else rad/s).", valueName: "unit"))
  var gyroUnits: String?

  @Option(help: ArgumentHelp("Set the magnetometer unit: uT, nT, gauss, mG or auto (default: auto, from the column names, else uT).", valueName: "unit"))
  var magUnits: String?

  @Option(
    help:
      "Set the axis convention of the input: apple (face up reads z = -1 g) or specific-force (face up reads z = +1 g); default: the preset's or the recognised recorder's, else apple."
  )
  var convention: AxisConvention?

  @Option(
    help: ArgumentHelp("Apply the settings of a known recorder (see `accelkit presets`).", valueName: "name"),
    completion: .list(Preset.all.map(\.name)))
  var preset: String?

  @Option(help: ArgumentHelp("Set the fields of raw binary input records: txyz, xyz, or channels and groups such as t,acc,gyro,mag or t,x,y,z,gx,gy,gz.", valueName: "layout"))
  var layout: String?

  @Option(help: "Set the value type of raw binary input: f64 or f32 (default: f64, or f32 for .f32 files).")
  var rawType: SamplePrecision?

  @Flag(help: "Skip rows that do not parse and report how many on stderr, instead of stopping.")
  var skipBadRows = false

  @Flag(
    inversion: .prefixedNo,
    help:
      "Numbers have a decimal comma (1,5), as spreadsheets in many locales save them (default: told from the first row when the delimiter is ';' or a tab)."
  )
  var decimalComma: Bool?

  @Flag(help: "Accept NaN and infinite values (and read empty fields as NaN).")
  var allowNonfinite = false

  func validate() throws {
    if let rate, !(rate > 0) {
      throw ValidationError("--rate must be a positive number of Hz, got \(rate)")
    }
    if let delimiter, CSVDialect.parseDelimiter(delimiter) == nil {
      throw ValidationError("--delimiter must be comma, tab, semicolon, space or one ASCII character, got \"\(delimiter)\"")
    }
    if let units, UnitsSetting(name: units) == nil {
      throw ValidationError("--units must be g, mg, m/s2 or auto, got \"\(units)\"")
    }
    if let gyroUnits, UnitChoice<AngularRateUnit>(name: gyroUnits) == nil {
      throw ValidationError("--gyro-units must be rad/s, deg/s or auto, got \"\(gyroUnits)\"")
    }
    if let magUnits, UnitChoice<MagneticFieldUnit>(name: magUnits) == nil {
      throw ValidationError("--mag-units must be uT, nT, gauss, mG or auto, got \"\(magUnits)\"")
    }
    if let layout, let problem = RawLayout.problem(with: layout) { throw ValidationError(problem) }
    if let preset, Preset.named(preset) == nil {
      throw ValidationError(
        "unknown preset \"\(preset)\"; the presets are \(Preset.all.map(\.name).joined(separator: ", "))")
    }
  }

  /// The options as given, for the library to apply over a preset (named, or recognised).
  func options() throws -> TraceReadOptions {
    var o = TraceReadOptions()
    o.preset = preset
    o.format = format
    o.dataset = dataset
    o.delimiter = delimiter.flatMap(CSVDialect.parseDelimiter)
    o.noHeader = noHeader
    o.columns = try columns.map(ColumnSpec.init(parsing:))
    o.keep = try keep.map(ColumnSpec.parseReferences) ?? []
    o.rate = rate?.value
    o.timeUnit = timeUnit
    o.units = units.flatMap(UnitsSetting.init(name:))
    o.gyroscopeUnits = gyroUnits.flatMap(UnitChoice<AngularRateUnit>.init(name:))
    o.magnetometerUnits = magUnits.flatMap(UnitChoice<MagneticFieldUnit>.init(name:))
    o.convention = convention
    o.rawLayout = layout.flatMap(RawLayout.init(parsing:))
    o.rawPrecision = rawType
    o.skipBadRows = skipBadRows
    o.decimalComma = decimalComma
    o.allowNonFinite = allowNonfinite
    return o
  }

  /// The reader settings: the preset's values, overridden by the options given.
  func settings() throws -> TraceReadSettings { try options().settings() }
}
