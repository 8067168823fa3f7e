import AccelCore
import AccelIO
import ArgumentParser
import Testing

@testable import AccelKitCLI

/// Parsing in process (no child process): every command's options become the typed library
/// configuration they should, and bad values are refused at parse time with exit 64.
@Suite struct InProcessTests {
  func parse(_ arguments: [String]) throws -> ParsableCommand { try AccelKit.parseAsRoot(arguments) }

  /// The exit code and message ArgumentParser (or accelkit's own errors) give for `arguments`.
  func failure(_ arguments: [String]) -> (code: Int32, message: String)? {
    do {
      _ = try parse(arguments)
      return nil
    } catch let error as AccelError {
      return (error.exitCode, error.message)
    } catch {
      return (AccelKit.exitCode(for: error).rawValue, AccelKit.message(for: error))
    }
  }

  @Test func inputOptionsBecomeReaderSettings() throws {
    let command = try #require(
      try parse([
        "convert", "--preset", "broad", "--gyro-units", "deg/s", "--mag-units", "nT", "--keep", "movement,3", "--layout",
        "t,acc,gyro", "in.csv", "-o", "out.npy",
      ]) as? Convert)
    let settings = try command.input.settings()
    #expect(settings.units == .fixed(.metersPerSecondSquared))
    #expect(settings.convention == .specificForce)
    #expect(settings.gyroscopeUnits == .fixed(.degreesPerSecond))  // the option wins over the preset
    #expect(settings.magnetometerUnits == .fixed(.nanotesla))
    #expect(settings.keep == [.name("movement"), .index(3)])
    #expect(settings.rawLayout.channels == [.t, .x, .y, .z, .gx, .gy, .gz])
    #expect(settings.recogniseWith == nil)  // a preset was named: no recognition from the header
    let plain = try #require(try parse(["info", "walk.csv"]) as? Info)
    #expect(try plain.input.settings().recogniseWith != nil)
  }

  @Test func commandOptionsBecomeTypedConfigurations() throws {
    let butter = try #require(try parse(["filter", "butterworth", "--order", "3", "--cutoff", "4", "--zero-phase", "x.csv"]) as? Butterworth)
    #expect(butter.order == 3 && butter.zeroPhase)
    let orientation = try #require(try parse(["orientation", "--alpha", "0.2", "--angles", "aerospace", "x.csv"]) as? Orientation)
    #expect(orientation.settings.gravity == .lowpass(.alpha(0.2)))
    #expect(orientation.settings.angles == .aerospace)
    let spectrum = try #require(try parse(["spectrum", "--window", "tukey", "--tukey-alpha", "0.3", "--axes", "z,norm", "x.csv"]) as? Spectrum)
    let request = try spectrum.spectral.request()
    #expect(request.window == .tukey(alpha: 0.3) && request.channels == [.z, .norm])
  }

  @Test func badValuesAreUsageErrors() {
    for arguments in [
      ["spectrum", "--resample", "0", "x.csv"], ["orientation", "--resample=-2", "x.csv"],
      ["convert", "--channels", "acc,heat", "x.csv", "-o", "y.csv"], ["info", "--gyro-units", "rpm", "x.csv"],
      ["info", "--mag-units", "tesla", "x.csv"], ["spectrum", "--overlap", "1", "x.csv"], ["spectrum", "--axes", "w", "x.csv"],
      ["evaluate", "d", "--fail-under", "speed=1"], ["detect-shakes", "--rule", "wobble", "x.csv"],
      ["convert", "--layout", "t,acc,gx", "x.f64", "-o", "y.csv"],
    ] {
      let result = failure(arguments)
      #expect(result?.code == 64, "\(arguments): \(String(describing: result))")
    }
    #expect(failure(["spectrum", "--resample", "0", "x.csv"])?.message == "--resample must be a positive number of Hz, got 0")
  }

  @Test func everyCommandHasExamplesInItsHelp() {
    for command in AccelKit.configuration.subcommands {
      let help = command.helpMessage()
      #expect(help.contains("Examples:") || !command.configuration.subcommands.isEmpty, "\(command.configuration.commandName ?? "?")")
    }
  }
}
