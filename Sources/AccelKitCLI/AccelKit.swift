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

  static let configuration = CommandConfiguration(
    commandName: "accelkit",
    abstract: "Process accelerometer traces: inspect, convert, filter, analyse and detect gestures.",
    discussion: """
      Inside accelkit, time is in seconds, acceleration in g (9.80665 m/s^2) and axes follow \
      Apple's convention (a device lying face up reads z = -1 g). Inputs are converted on the way \
      in: see --units, --convention and --preset.

      Exit codes: 0 ok, 1 a failed check, 64 usage error, 65 bad data, 66 unreadable input, \
      74 output error.
      """,
    version: version,
    subcommands: [Info.self, Convert.self, Filter.self, Presets.self]
  )

  /// Runs the command and maps every error to its message and exit code, in one place.
  static func main() {
    signal(SIGPIPE, SIG_IGN)
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
