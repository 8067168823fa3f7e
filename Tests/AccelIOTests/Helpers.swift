import AccelCore
import Foundation
import TestSupport
import Testing

@testable import AccelIO

/// Writes `text` to a fresh temporary file named `name` and returns its path.
func temporaryFile(_ name: String, _ bytes: [UInt8]) -> String {
  let path = Paths.temporaryDirectory() + "/" + name
  writeFile(path, bytes)
  return path
}

func temporaryFile(_ name: String, _ text: String) -> String {
  temporaryFile(name, Array(text.utf8))
}

/// Reads the whole trace at `path` with `settings`.
func readTrace(_ path: String, _ settings: TraceReadSettings = TraceReadSettings()) throws -> (SampleBlock, TraceSource) {
  let (source, _) = try TraceOpener.open(path: path, settings: settings)
  return (try source.readAll(), source)
}

/// Reads CSV text (written to a temporary file called `name`).
func readCSV(_ text: String, name: String = "trace.csv", _ settings: TraceReadSettings = TraceReadSettings()) throws -> SampleBlock {
  try readTrace(temporaryFile(name, text), settings).0
}

/// The error thrown by `body`, which must throw an AccelError.
func accelError(_ body: () throws -> Void) -> AccelError? {
  do {
    try body()
    return nil
  } catch let error as AccelError {
    return error
  } catch {
    return nil
  }
}

/// The bare file name part used in messages: tests compare messages after replacing the directory.
func message(_ error: AccelError?, in path: String) -> String? {
  guard let error else { return nil }
  let directory = String(path[..<path.lastIndex(of: "/")!]) + "/"
  return error.diagnostic.replacingOccurrences(of: directory, with: "")
}
