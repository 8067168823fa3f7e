import AccelCore
import AccelIO
import ArgumentParser

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@main
struct AccelKit: ParsableCommand {
  static let version = "0.1.0"
  /// The version and the commit it was built from (`accelkit --version`; partial results must
  /// come from the same build to merge).
  static let fullVersion = "\(version) (commit \(buildCommit))"

  static let configuration = CommandConfiguration(
    commandName: "accelkit",
    abstract: "Process accelerometer traces: inspect, convert, filter, analyse and detect gestures.",
    discussion: """
      Inside accelkit, time is in seconds, acceleration in g (9.80665 m/s^2) and axes follow \
      Apple's convention (a device lying face up reads z = -1 g). Inputs are converted on the way \
      in: see --units, --convention and --preset.

      Exit codes: 0 ok, 1 a failed check, 64 usage error, 65 bad data (with file:line:column), \
      66 an input cannot be read, 73 an output cannot be created, 74 an output cannot be written \
      (full disk), 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP.
      """,
    version: fullVersion,
    subcommands: [Info.self, Convert.self, Trim.self, Windows.self, Decimate.self, Filter.self, Spectrum.self, Spectrogram.self, Orientation.self, AttitudeCommand.self, DetectShakes.self, Evaluate.self, Merge.self, Tune.self, Train.self, Features.self, Export.self, Labels.self, Generate.self, Simulate.self, Plot.self, Presets.self]
  )

  /// Runs the command and maps every error to its message and exit code, in one place.
  static func main() {
    signal(SIGPIPE, SIG_IGN)
    // A file size limit (ulimit -f) makes a write fail (exit 74, outputs untouched) instead of
    // killing the process with its temporary files left behind.
    signal(SIGXFSZ, SIG_IGN)
    #if canImport(Glibc)
      // Blocks are allocated and freed at a steady rate; keep freed memory for reuse instead of
      // handing it back to the kernel and faulting it in again for the next block.
      _ = glibcMallopt(-1, 256 << 20)  // M_TRIM_THRESHOLD
      _ = glibcMallopt(-3, 32 << 20)  // M_MMAP_THRESHOLD
    #endif
    // This process is one run: no output may replace one of its inputs or another output.
    RunFiles.isEnabled = true
    // Whatever a reader notes about a trace (units that look wrong, a time unit it told by
    // itself), every command shows once, in the same words.
    ReaderNotes.handler = { Diagnostics.warnOnce($0) }
    // Interrupted, it removes its unfinished outputs and exits 130 (SIGINT) or 143 (SIGTERM).
    TemporaryFiles.installSignalHandlers()
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch let error as AccelError {
      Diagnostics.error(error)
      terminate(error.exitCode)
    } catch is BrokenPipe {
      terminate(0)
    } catch let error as ExitCode {
      terminate(error.rawValue)
    } catch {
      exit(withError: error)
    }
  }
}

/// Ends the process with `code`.
func terminate(_ code: Int32) -> Never {
  #if canImport(Glibc)
    Glibc.exit(code)
  #else
    Darwin.exit(code)
  #endif
}

#if canImport(Glibc)
  /// glibc's `mallopt` (malloc.h is not part of the Glibc module).
  @_silgen_name("mallopt")
  func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
