import AccelCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The system's HDF5 library (libhdf5), loaded when an HDF5 file is first read: accelkit builds
/// and runs without it, and says how to install it when a file needs it. Every call goes through
/// one lock: the library as packaged (the serial build) is not thread-safe.
final class HDF5Library: @unchecked Sendable {
  typealias Open = @convention(c) () -> Int32
  typealias SetAuto = @convention(c) (Int64, UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
  typealias FileOpen = @convention(c) (UnsafePointer<CChar>, UInt32, Int64) -> Int64
  typealias Close = @convention(c) (Int64) -> Int32
  typealias OpenAt = @convention(c) (Int64, UnsafePointer<CChar>, Int64) -> Int64
  typealias Exists = @convention(c) (Int64, UnsafePointer<CChar>, Int64) -> Int32
  typealias GetID = @convention(c) (Int64) -> Int64
  typealias Ndims = @convention(c) (Int64) -> Int32
  typealias Dims =
    @convention(c) (Int64, UnsafeMutablePointer<UInt64>?, UnsafeMutablePointer<UInt64>?) -> Int32
  typealias SelectHyperslab =
    @convention(c) (
      Int64, Int32, UnsafePointer<UInt64>, UnsafePointer<UInt64>?, UnsafePointer<UInt64>,
      UnsafePointer<UInt64>?
    ) -> Int32
  typealias CreateSimple = @convention(c) (Int32, UnsafePointer<UInt64>, UnsafePointer<UInt64>?) -> Int64
  typealias Read = @convention(c) (Int64, Int64, Int64, Int64, Int64, UnsafeMutableRawPointer) -> Int32
  typealias TypeClass = @convention(c) (Int64) -> Int32
  typealias AttributeExists = @convention(c) (Int64, UnsafePointer<CChar>) -> Int32
  typealias AttributeOpen = @convention(c) (Int64, UnsafePointer<CChar>, Int64) -> Int64
  typealias AttributeRead = @convention(c) (Int64, Int64, UnsafeMutableRawPointer) -> Int32
  typealias Visit =
    @convention(c) (Int64, UnsafePointer<CChar>?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32
  typealias Iterate =
    @convention(c) (
      Int64, Int32, Int32, UnsafeMutablePointer<UInt64>?, Visit, UnsafeMutableRawPointer?
    ) -> Int32

  let fileOpen: FileOpen
  let fileClose: Close
  let datasetOpen: OpenAt
  let datasetClose: Close
  let groupOpen: OpenAt
  let groupClose: Close
  let linkExists: Exists
  let datasetSpace: GetID
  let spaceClose: Close
  let spaceRank: Ndims
  let spaceDims: Dims
  let selectHyperslab: SelectHyperslab
  let createSimple: CreateSimple
  let datasetRead: Read
  let datasetType: GetID
  let typeClass: TypeClass
  let typeClose: Close
  let attributeExists: AttributeExists
  let attributeOpen: AttributeOpen
  let attributeRead: AttributeRead
  let attributeSpace: GetID
  let attributeClose: Close
  let iterate: Iterate?
  /// H5T_NATIVE_DOUBLE.
  let nativeDouble: Int64
  private let lock = Lock()

  /// The library names tried, newest first (Debian and Ubuntu ship the serial build under its own name).
  static let candidates = [
    "libhdf5_serial.so.310", "libhdf5.so.310", "libhdf5_serial.so.200", "libhdf5.so.200",
    "libhdf5_serial.so.103",
    "libhdf5.so.103", "libhdf5_serial.so", "libhdf5.so", "libhdf5.dylib",
  ]

  /// The loaded library, or the reason it cannot be loaded.
  static let shared: Result<HDF5Library, AccelError> = {
    do {
      return .success(try HDF5Library())
    } catch let error as AccelError {
      return .failure(error)
    } catch {
      return .failure(AccelError.usage("the HDF5 library cannot be used: \(error)"))
    }
  }()

  private init() throws {
    guard let handle = Self.candidates.lazy.compactMap({ name in dlopen(name, RTLD_NOW | RTLD_LOCAL) }).first
    else {
      throw AccelError.usage(
        "reading HDF5 needs the HDF5 library (libhdf5), which is not installed",
        hint:
          "install it: apt-get install libhdf5-103-1 (Debian 12; libhdf5-dev on any Debian or Ubuntu), or brew install hdf5"
      )
    }
    func symbol<T>(_ name: String, as type: T.Type) throws -> T {
      guard let p = dlsym(handle, name) else {
        throw AccelError.usage("the HDF5 library found lacks \(name); accelkit needs HDF5 1.10 or newer")
      }
      return unsafeBitCast(p, to: type)
    }
    let open = try symbol("H5open", as: Open.self)
    _ = open()
    // The library prints its error stack on stderr by default; accelkit reports errors itself.
    _ = try symbol("H5Eset_auto2", as: SetAuto.self)(0, nil, nil)
    fileOpen = try symbol("H5Fopen", as: FileOpen.self)
    fileClose = try symbol("H5Fclose", as: Close.self)
    datasetOpen = try symbol("H5Dopen2", as: OpenAt.self)
    datasetClose = try symbol("H5Dclose", as: Close.self)
    groupOpen = try symbol("H5Gopen2", as: OpenAt.self)
    groupClose = try symbol("H5Gclose", as: Close.self)
    linkExists = try symbol("H5Lexists", as: Exists.self)
    datasetSpace = try symbol("H5Dget_space", as: GetID.self)
    spaceClose = try symbol("H5Sclose", as: Close.self)
    spaceRank = try symbol("H5Sget_simple_extent_ndims", as: Ndims.self)
    spaceDims = try symbol("H5Sget_simple_extent_dims", as: Dims.self)
    selectHyperslab = try symbol("H5Sselect_hyperslab", as: SelectHyperslab.self)
    createSimple = try symbol("H5Screate_simple", as: CreateSimple.self)
    datasetRead = try symbol("H5Dread", as: Read.self)
    datasetType = try symbol("H5Dget_type", as: GetID.self)
    typeClass = try symbol("H5Tget_class", as: TypeClass.self)
    typeClose = try symbol("H5Tclose", as: Close.self)
    attributeExists = try symbol("H5Aexists", as: AttributeExists.self)
    attributeOpen = try symbol("H5Aopen", as: AttributeOpen.self)
    attributeRead = try symbol("H5Aread", as: AttributeRead.self)
    attributeSpace = try symbol("H5Aget_space", as: GetID.self)
    attributeClose = try symbol("H5Aclose", as: Close.self)
    let iterateSymbol = dlsym(handle, "H5Literate2") ?? dlsym(handle, "H5Literate")
    iterate = iterateSymbol.map { unsafeBitCast($0, to: Iterate.self) }
    let native = try symbol("H5T_NATIVE_DOUBLE_g", as: UnsafeMutableRawPointer.self)
    nativeDouble = native.load(as: Int64.self)
  }

  /// Runs `body` holding the library's lock.
  func locked<R>(_ body: () throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }
}

/// An HDF5 file read as a trace: the BROAD benchmark's trials as they are published (`imu_acc`,
/// `imu_gyr`, `imu_mag` and the `sampling_rate` attribute), a 2-D numeric dataset (rows of
/// columns, as h5py and pandas write them), or a group of 1-D numeric datasets of one length
/// (one per column, named like CSV columns). The samples are streamed in blocks: the file is
/// presented to the NPY reader as an NPY stream, so columns, units and conventions work as for
/// CSV and NPY.
public enum HDF5Trace {
  /// The magic bytes that start an HDF5 file (at offset 0; the format also allows 512, 1024, ...).
  public static let magic: [UInt8] = [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]

  /// The BROAD trials' preset: m/s^2 as specific force, rad/s, µT, no time column.
  static let broad = Preset(
    name: "broad-hdf5",
    summary: "BROAD benchmark trials as published (HDF5: imu_acc, imu_gyr, imu_mag, sampling_rate)",
    units: .fixed(.metersPerSecondSquared), gyroscopeUnits: .fixed(.radiansPerSecond),
    magnetometerUnits: .fixed(.microtesla), convention: .specificForce)

  /// Opens `path` as a trace.
  public static func open(path: String, settings: TraceReadSettings) throws -> (TraceSource, ByteInput) {
    let library = try HDF5Library.shared.get()
    let file = try library.locked { () throws -> HDF5File in try HDF5File(library: library, path: path) }
    var settings = settings
    let plan = try file.plan(dataset: settings.dataset)
    if plan.isBroad {
      if let options = settings.recogniseWith {
        settings = try options.settings(recognised: broad, over: settings)
      } else if settings.recognisedAs == nil && settings.columns == nil {
        try settings.apply(broad)
      }
      if settings.rate == nil { settings.rate = plan.rate }
    }
    let input = ByteInput(name: path + (plan.dataset.map { "#" + $0 } ?? ""), producer: plan.stream(file))
    return (try BinaryTraceReader.npy(input: input, settings: settings), input)
  }
}

/// An open HDF5 file.
final class HDF5File {
  let library: HDF5Library
  let path: String
  let id: Int64

  init(library: HDF5Library, path: String) throws {
    self.library = library
    self.path = path
    id = library.fileOpen(path, 0, 0)
    guard id >= 0 else {
      throw AccelError.data(DataLocation(file: path), "HDF5 cannot open the file (damaged or truncated?)")
    }
  }

  deinit {
    library.locked {
      for d in opened { _ = library.datasetClose(d) }
      _ = library.fileClose(id)
    }
  }

  /// One source of columns: a dataset, read `columns` wide.
  struct Source {
    var id: Int64
    var columns: Int
  }

  /// How the file is read: its sources side by side, their column names, the row count.
  struct Plan {
    var dataset: String?
    var sources: [Source]
    var names: [String]?
    var rows: Int
    var isBroad: Bool
    var rate: Double?

    /// The NPY stream of the plan: the header, then the records, a block at a time.
    func stream(_ file: HDF5File) -> (UnsafeMutableRawPointer, Int) throws -> Int {
      let width = names?.count ?? sources.reduce(0) { $0 + $1.columns }
      // The bytes not yet handed out, from `served` on: the header, then each block of records.
      var pending = Self.header(names: names, width: width, rows: rows)
      var served = 0
      var row = 0
      let blockRows = max(1, (1 << 20) / max(1, width * 8))
      let sources = self.sources
      let total = rows
      return { buffer, count in
        if served == pending.count && row < total {
          let n = min(blockRows, total - row)
          var block = [Double](repeating: 0, count: n * width)
          try file.library.locked {
            var column = 0
            for source in sources {
              try file.read(source, rows: row..<(row + n), into: &block, column: column, width: width)
              column += source.columns
            }
          }
          row += n
          pending = block.withUnsafeBytes { Array($0) }
          served = 0
        }
        let k = min(count, pending.count - served)
        pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + served, byteCount: k) }
        served += k
        return k
      }
    }

    /// An NPY 1.0 header: a structured array of f8 fields with `names`, or a 2-D f8 array.
    static func header(names: [String]?, width: Int, rows: Int) -> [UInt8] {
      var dict: String
      if let names {
        let descr = names.map { "('\($0.replacingQuotes)', '<f8')" }.joined(separator: ", ")
        dict = "{'descr': [\(descr)], 'fortran_order': False, 'shape': (\(rows),), }"
      } else {
        dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (\(rows), \(width)), }"
      }
      let unpadded = 10 + dict.utf8.count + 1
      let total = (unpadded + 63) / 64 * 64
      dict += String(repeating: " ", count: total - unpadded) + "\n"
      let length = dict.utf8.count
      return NPYHeader.magic + [1, 0, UInt8(length & 0xFF), UInt8(length >> 8)] + Array(dict.utf8)
    }
  }

  /// Reads rows `rows` of `source` into `block` (rows of `width` doubles) from `column` on.
  func read(_ source: Source, rows: Range<Int>, into block: inout [Double], column: Int, width: Int) throws {
    let space = library.datasetSpace(source.id)
    defer { _ = library.spaceClose(space) }
    let rank = library.spaceRank(space)
    var start: [UInt64] = rank == 2 ? [UInt64(rows.lowerBound), 0] : [UInt64(rows.lowerBound)]
    var count: [UInt64] = rank == 2 ? [UInt64(rows.count), UInt64(source.columns)] : [UInt64(rows.count)]
    guard library.selectHyperslab(space, 0, &start, nil, &count, nil) >= 0 else {
      throw AccelError.data(DataLocation(file: path), "HDF5 cannot select rows \(rows) of a dataset")
    }
    let memory = library.createSimple(rank, &count, nil)
    defer { _ = library.spaceClose(memory) }
    var values = [Double](repeating: 0, count: rows.count * source.columns)
    let status = values.withUnsafeMutableBytes {
      library.datasetRead(source.id, library.nativeDouble, memory, space, 0, $0.baseAddress!)
    }
    guard status >= 0 else {
      throw AccelError.data(
        DataLocation(file: path),
        "HDF5 cannot read rows \(rows.lowerBound + 1)-\(rows.upperBound) (damaged file?)")
    }
    for r in 0..<rows.count {
      for c in 0..<source.columns { block[r * width + column + c] = values[r * source.columns + c] }
    }
  }

  /// What to read: `dataset` (a 2-D dataset or a group of 1-D ones), else a BROAD trial, else
  /// the file's only 2-D dataset.
  func plan(dataset: String?) throws -> Plan {
    try library.locked {
      if let dataset {
        return try plan(at: dataset)
      }
      if exists("imu_acc") {
        let acc = try numeric(dataset: "imu_acc", columns: 3)
        var sources = [acc.source]
        var names = ["x", "y", "z"]
        for (name, group) in [("imu_gyr", ["gx", "gy", "gz"]), ("imu_mag", ["mx", "my", "mz"])]
        where exists(name) {
          let d = try numeric(dataset: name, columns: 3)
          guard d.rows == acc.rows else {
            throw AccelError.data(
              DataLocation(file: path), "\(name) has \(d.rows) rows and imu_acc \(acc.rows): they must match")
          }
          sources.append(d.source)
          names += group
        }
        guard let rate = try rootAttribute("sampling_rate"), rate > 0, rate.isFinite else {
          throw AccelError.data(
            DataLocation(file: path),
            "a BROAD-like file (imu_acc) without a positive sampling_rate attribute",
            hint: "give the rate with --rate HZ and the dataset with --dataset imu_acc")
        }
        return Plan(dataset: nil, sources: sources, names: names, rows: acc.rows, isBroad: true, rate: rate)
      }
      // The one thing to read, if there is one: a 2-D dataset, or a group of 1-D columns.
      let found = candidates(in: "/", depth: 0)
      if found.count == 1 { return try plan(at: found[0].path) }
      throw AccelError.usage(
        "\(path): choose the data with --dataset NAME",
        hint: found.isEmpty
          ? "the file holds no 2-D numeric dataset and no group of 1-D ones"
          : "it could be " + found.prefix(12).map { "\($0.path) (\($0.description))" }.joined(separator: ", ")
      )
    }
  }

  /// The plan for the object `name`: a 2-D dataset, or a group of 1-D datasets.
  private func plan(at name: String) throws -> Plan {
    guard name == "/" || exists(name) else {
      let contents = members(of: "/")
      throw AccelError.usage(
        "\(path) has no dataset \(quotedField(name))",
        hint: contents.isEmpty
          ? nil
          : "it holds " + contents.prefix(12).map { "\($0.name) (\($0.description))" }.joined(separator: ", ")
      )
    }
    let dataset = library.datasetOpen(id, name, 0)
    if dataset >= 0 {
      let (rank, dims) = shape(dataset)
      let kind = numericKind(dataset)
      _ = library.datasetClose(dataset)
      guard kind else {
        throw AccelError.data(
          DataLocation(file: path),
          "\(name) is not numeric (strings, and compound tables such as pandas' format='table' writes, are not read)",
          hint: "save the columns with h5py as one 2-D array or one dataset per column, or convert to NPY")
      }
      guard rank == 2 else {
        throw AccelError.data(
          DataLocation(file: path),
          "\(name) is \(rank)-D; accelkit reads a 2-D dataset (rows of columns) or a group of 1-D ones")
      }
      let d = try numeric(dataset: name, columns: Int(dims[1]))
      return Plan(dataset: name, sources: [d.source], names: nil, rows: d.rows, isBroad: false, rate: nil)
    }
    // A group: its 1-D numeric datasets, as columns named after them (in the file's order).
    let columns = members(of: name).filter { $0.kind == "1-D" }
    guard !columns.isEmpty else {
      throw AccelError.data(
        DataLocation(file: path), "\(name) is a group without 1-D numeric datasets to read as columns")
    }
    var sources: [Source] = []
    var rows: Int?
    for c in columns {
      let full = name == "/" ? "/" + c.name : name + "/" + c.name
      let d = try numeric(dataset: full, columns: 1)
      if let rows, rows != d.rows {
        throw AccelError.data(
          DataLocation(file: path),
          "the datasets of \(name) differ in length (\(c.name) has \(d.rows) rows, not \(rows))")
      }
      rows = d.rows
      sources.append(d.source)
    }
    return Plan(
      dataset: name, sources: sources, names: columns.map(\.name), rows: rows!, isBroad: false, rate: nil)
  }

  private var opened: [Int64] = []

  /// Opens a numeric dataset of `columns` columns (or 1-D for 1); kept open until the file closes.
  private func numeric(dataset name: String, columns: Int) throws -> (source: Source, rows: Int) {
    let d = library.datasetOpen(id, name, 0)
    guard d >= 0 else { throw AccelError.data(DataLocation(file: path), "HDF5 cannot open \(name)") }
    let (rank, dims) = shape(d)
    guard numericKind(d), rank == 1 || rank == 2, rank == 1 ? columns == 1 : Int(dims[1]) == columns else {
      _ = library.datasetClose(d)
      throw AccelError.data(
        DataLocation(file: path),
        "\(name) is not a numeric dataset of \(columns) column\(columns == 1 ? "" : "s")")
    }
    opened.append(d)
    return (Source(id: d, columns: columns), Int(dims[0]))
  }

  private func shape(_ dataset: Int64) -> (Int32, [UInt64]) {
    let space = library.datasetSpace(dataset)
    defer { _ = library.spaceClose(space) }
    let rank = library.spaceRank(space)
    var dims = [UInt64](repeating: 0, count: max(1, Int(rank)))
    _ = library.spaceDims(space, &dims, nil)
    return (rank, dims)
  }

  private func numericKind(_ dataset: Int64) -> Bool {
    let type = library.datasetType(dataset)
    defer { _ = library.typeClose(type) }
    let c = library.typeClass(type)
    return c == 0 || c == 1  // H5T_INTEGER, H5T_FLOAT
  }

  private func exists(_ name: String) -> Bool { library.linkExists(id, name, 0) > 0 }

  private func rootAttribute(_ name: String) throws -> Double? {
    let root = library.groupOpen(id, "/", 0)
    guard root >= 0 else { return nil }
    defer { _ = library.groupClose(root) }
    guard library.attributeExists(root, name) > 0 else { return nil }
    let a = library.attributeOpen(root, name, 0)
    guard a >= 0 else { return nil }
    defer { _ = library.attributeClose(a) }
    var value = 0.0
    guard library.attributeRead(a, library.nativeDouble, &value) >= 0 else { return nil }
    return value
  }

  /// What could be read as a trace under `group` (groups followed 8 deep): each 2-D numeric
  /// dataset, and each group holding 1-D numeric datasets (as columns).
  private func candidates(in group: String, depth: Int) -> [(path: String, description: String)] {
    guard depth < 8 else { return [] }
    let list = members(of: group)
    var found: [(path: String, description: String)] = []
    let columns = list.filter { $0.kind == "1-D" }
    if !columns.isEmpty {
      found.append(
        (
          group,
          "columns " + columns.prefix(6).map(\.name).joined(separator: ", ")
            + (columns.count > 6 ? ", ..." : "")
        ))
    }
    for m in list {
      let full = group == "/" ? "/" + m.name : group + "/" + m.name
      if m.kind == "2-D" { found.append((full, m.description)) }
      if m.kind == "group" { found += candidates(in: full, depth: depth + 1) }
    }
    return found
  }

  /// The members of the group `group`: names with what they are ("2-D", "1-D", "group", "other").
  private func members(of group: String) -> [(name: String, kind: String, description: String)] {
    guard let iterate = library.iterate else { return [] }
    let g = library.groupOpen(id, group, 0)
    guard g >= 0 else { return [] }
    defer { _ = library.groupClose(g) }
    final class Names { var list: [String] = [] }
    let names = Names()
    let visit: HDF5Library.Visit = { _, name, _, data in
      let box = Unmanaged<Names>.fromOpaque(data!).takeUnretainedValue()
      if let name { box.list.append(String(cString: name)) }
      return 0
    }
    _ = iterate(g, 0, 0, nil, visit, Unmanaged.passUnretained(names).toOpaque())
    return names.list.map { name in
      let full = group == "/" ? "/" + name : group + "/" + name
      let d = library.datasetOpen(id, full, 0)
      guard d >= 0 else { return (name, "group", "a group") }
      defer { _ = library.datasetClose(d) }
      let (rank, dims) = shape(d)
      guard numericKind(d) else { return (name, "other", "not numeric") }
      let size = dims.prefix(Int(rank)).map(String.init).joined(separator: " x ")
      return (name, rank == 2 ? "2-D" : rank == 1 ? "1-D" : "other", size)
    }
  }
}

extension String {
  /// Without single quotes (a field name inside an NPY header literal).
  fileprivate var replacingQuotes: String { String(map { $0 == "'" ? "_" : $0 }) }
}
