#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
import AccelCore
import AccelEvaluation
import AccelIO

/// The fuzz entry point: the first byte chooses the reader (CSV with recorder recognition, NPY,
/// raw t,x,y,z float64, a manifest, an events file), the rest is the file it reads. Any error is
/// fine; a crash, a trap or a hang is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func accelkitFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let kind = data[0] % 5
  let names = ["trace.csv", "trace.npy", "trace.raw", "manifest.csv", "events.csv"]
  let path = FuzzFiles.directory + "/" + names[Int(kind)]
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { return 0 }
  var written = 0
  while written < size - 1 {
    let n = write(fd, data + 1 + written, size - 1 - written)
    if n <= 0 { break }
    written += n
  }
  close(fd)
  do {
    switch kind {
    case 0, 1, 2:
      var settings = kind == 0 ? try TraceReadOptions().settings() : TraceReadSettings()
      settings.format = [TraceFormat.csv, .npy, .raw][Int(kind)]
      settings.readBufferSize = 1 << 12
      settings.blockSize = 64
      let (source, _) = try TraceOpener.open(path: path, settings: settings)
      _ = try source.readAll()
    case 3:
      _ = try Manifest.read(dataset: path)
    default:
      _ = try EventsFile.read(path: path)
    }
  } catch {}
  return 0
}

/// A private folder for the inputs, made once per process.
enum FuzzFiles {
  static let directory: String = {
    var template = Array("/tmp/accelkit-fuzz-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    return made.map { String(cString: $0) } ?? "/tmp"
  }()
}
