/// How this process was started, for the files it writes (a parameter file's, a model's or a
/// header's provenance): `accelkit` and its arguments as given.
public enum Provenance {
  public static var commandLine: String {
    (["accelkit"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
  }
}
