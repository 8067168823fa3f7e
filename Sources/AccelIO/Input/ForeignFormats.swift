import AccelCore

/// Formats people have that accelkit does not read, known by their first bytes: a clear error
/// naming the format and the way to a format accelkit reads, instead of CSV errors about binary
/// text.
public enum ForeignFormat {
  /// The error for a file whose first bytes (`head`, after gzip is inflated) show a format that
  /// is not CSV text, or nil.
  public static func problem(head: [UInt8], file: String) -> AccelError? {
    func starts(_ magic: [UInt8]) -> Bool { head.starts(with: magic) }
    func text(_ s: String) -> [UInt8] { Array(s.utf8) }
    let found: (String, String)?
    if starts([0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]) {
      found = ("an HDF5 file", "read it with --input-format hdf5 (or name it .h5)")
    } else if starts(text("PAR1")) {
      found = (
        "a Parquet file",
        "accelkit reads no Parquet: no maintained Parquet library comes with the system's packages. Convert it to NPY with "
          + "python3 -c \"import pandas as pd, numpy as np; np.save('out.npy', pd.read_parquet('\(file)').to_records(index=False))\" "
          + "(or polars: pl.read_parquet(...).to_pandas()), then read out.npy"
      )
    } else if starts(text("ARROW1")) {
      found = (
        "an Arrow IPC (Feather) file",
        "convert it to NPY: python3 -c \"import pandas as pd, numpy as np; np.save('out.npy', pd.read_feather('\(file)').to_records(index=False))\""
      )
    } else if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) {
      found = (
        "a ZIP archive (an .xlsx workbook, or a zipped export such as Sensor Logger's)",
        "unzip it and read the CSV inside; save a workbook's sheet as CSV"
      )
    } else if starts([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
      found = ("an Excel 97-2003 workbook", "save the sheet as CSV (UTF-8)")
    } else if starts(text("SQLite format 3")) {
      found = (
        "an SQLite database (such as Sensor Logger's SQLite export)",
        "export a table as CSV: sqlite3 -header -csv '\(file)' 'SELECT * FROM TotalAcceleration' > out.csv"
      )
    } else if starts(text("BZh")) && head.count > 3 && (0x31...0x39).contains(head[3]) {
      found = ("bzip2-compressed data", "decompress it: bzip2 -dc '\(file)' | accelkit ... -")
    } else if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) {
      found = ("xz-compressed data", "decompress it: xz -dc '\(file)' | accelkit ... -")
    } else if starts([0x28, 0xB5, 0x2F, 0xFD]) {
      found = ("zstd-compressed data", "decompress it: zstd -dc '\(file)' | accelkit ... -")
    } else if starts([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) {
      found = ("a 7-Zip archive", "extract it and read the CSV inside")
    } else if starts(text("MATLAB 5.0 MAT-file")) {
      found = (
        "a MATLAB .mat file",
        "convert it to NPY: python3 -c \"import scipy.io, numpy as np; m = scipy.io.loadmat('\(file)'); np.save('out.npy', m['NAME'])\""
      )
    } else if starts(text("%PDF")) {
      found = ("a PDF document", "export the data behind it as CSV")
    } else if starts([0x89, 0x50, 0x4E, 0x47]) || starts([0xFF, 0xD8, 0xFF]) {
      found = ("an image", "accelkit reads traces: CSV, NPY or raw samples")
    } else if starts([0xFF, 0xFE]) || starts([0xFE, 0xFF]) {
      found = (
        "UTF-16 text (as Excel's \"Unicode text\" saves it)",
        "save it as CSV UTF-8, or convert it: iconv -f UTF-16 -t UTF-8 '\(file)' > out.csv"
      )
    } else if let first = head.first(where: { !CSVDialect.isBlank($0) && $0 != 0x0A && $0 != 0x0D }),
      first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    {
      found = (
        "JSON (such as Sensor Logger's JSON export), not CSV",
        "export CSV instead, or convert it: python3 -c \"import pandas as pd; pd.read_json('\(file)').to_csv('out.csv', index=False)\""
      )
    } else if head.prefix(512).contains(0) {
      found = (
        "binary data, not CSV text",
        "for raw samples give --input-format raw with --layout (and --raw-type f32 for floats), or --input-format npy"
      )
    } else {
      found = nil
    }
    guard let (what, hint) = found else { return nil }
    return AccelError.data(DataLocation(file: file), "this is \(what)", hint: hint)
  }
}
