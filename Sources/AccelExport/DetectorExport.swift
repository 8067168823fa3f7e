import AccelCore
import AccelGestures

/// How `accelkit export` writes a detector as portable source.
public struct ExportSettings: Sendable, Equatable {
  /// The arithmetic of the exported code: `double` gives the events `detect-shakes` gives; `float`
  /// is for processors without a double-precision unit (timestamps are floats too).
  public enum Precision: String, CaseIterable, Sendable {
    case double, float
  }

  public var precision = Precision.double
  /// The prefix of every symbol (`PREFIX_state`, `PREFIX_push`, ...) and, upper-cased, of every
  /// macro: two detectors with different prefixes live in one program.
  public var prefix = ExportSettings.defaultPrefix
  /// The trace's sample rate in Hz, for rules whose constants depend on it (a cutoff, a window in
  /// seconds given as samples, a queue's capacity); nil when none is given.
  public var rate: Double?
  /// The axes the firmware's accelerometer readings come in: Apple's (face up reads z = -1 g, as
  /// inside accelkit) or specific force (Android's and most IMUs': face up reads +1 g), which
  /// push and push_gyro negate on the way in, as `--convention specific-force` does on reading.
  public var convention = AxisConvention.apple
  /// The command that wrote the file, and accelkit's version, for the header's comment.
  public var command = ""
  public var version = ""

  public static let defaultPrefix = "ak_detector"

  public init() {}

  /// Throws a usage error unless `prefix` is a C identifier that leaves room for the suffixes.
  public static func check(prefix: String) throws {
    let bytes = Array(prefix.utf8)
    func letter(_ b: UInt8) -> Bool { (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || b == 95 }
    guard let first = bytes.first, letter(first), bytes.allSatisfy({ letter($0) || ($0 >= 48 && $0 <= 57) }),
      bytes.count <= 40
    else {
      throw AccelError.usage(
        "--prefix must be a C identifier of at most 40 letters, digits and underscores, not starting with a digit; got \"\(prefix)\""
      )
    }
  }
}

/// A detector that can be written as a single-header C99 library whose `push` gives the events its
/// Swift `process` gives (`ExportSettings.Precision.double`).
///
/// The C is a second rendering of the rule, kept beside it in this module and held to it by
/// tests that run both on generated traces at random settings and on recordings, event for
/// event (the Swift detectors stay the reference: they are what `evaluate` measures).
protocol CExportable {
  /// Whether the exported constants depend on the sample rate (then `--rate` is required).
  var exportUsesRate: Bool { get }
  /// The C parts, with the constants of this detector (already made for the rate).
  func cParts() -> CDetectorParts
}

/// The pieces of one exported detector, written with the default prefix (`ak_detector_`,
/// `AK_DETECTOR_`) and the names `ak_detector_real`, `AK_DETECTOR_SQRT`, ...; `DetectorExport`
/// renames them.
struct CDetectorParts {
  /// Constants: macro suffix, value, and a comment.
  var constants: [(name: String, value: CConstant, comment: String)] = []
  /// Types and constant tables the state needs, placed before it.
  var types = ""
  /// The fields of the state struct, one declaration per line.
  var state: String
  /// The body of `init(s)`: every field set.
  var initialize: String
  /// Helper functions (`static` inline, taking the state) placed before push.
  var helpers = ""
  /// The body of `push(s, t, x, y, z, e)`: returns 1 with `*e` filled when an event ended.
  var push: String
  /// The body of `push_gyro(s, t, x, y, z, gx, gy, gz, e)`; nil: the rule reads no gyroscope, and
  /// push_gyro is push.
  var pushGyroscope: String? = nil
  /// The body of `next(s, e)`: the next event ended by the same push or finish (only a model's
  /// push can end several).
  var next = "(void)s;\n(void)e;\nreturn 0;"
  /// The body of `finish(s, e)`: the event still open at the end of the trace, if reported.
  var finish = "(void)s;\n(void)e;\nreturn 0;"
  /// What the header's comment says about this rule beyond its parameters.
  var notes: [String] = []
  /// What the user should be told when exporting (a setting the export does not carry).
  var warnings: [String] = []
  /// The parameters the header's comment lists; nil: the rule's table, with the setting's values.
  var parameters: [(name: String, value: Double, unit: String)]? = nil
  /// Whether push_gyro reads the gyroscope.
  var usesGyroscope = false
}

enum CConstant {
  case real(Double)
  case integer(Int)
}

/// Writes detectors as C99 headers.
public enum DetectorExport {
  /// The file `accelkit export` writes in its output directory.
  public static let headerName = "accelkit_detector.h"

  /// What float costs, per rule with its default parameters, on accelkit's test set
  /// (datasets/test, its traces as t,x,y,z copies): the change of F1 against the annotations
  /// (float minus double, matched as `evaluate` matches; nil where the test set has no annotations
  /// of the rule's label), and the F1 of the float events against the double ones (1: the same
  /// events within evaluate's 0.25 s). Measured by ExportCLITests.floatLossIsWhatTheHeadersSay,
  /// which fails when this table is out of date.
  public static let floatCost: [String: (f1Change: Double?, agreement: Double)] = [
    "three-peak": (0, 1), "angular-change": (0, 1), "seismic": (0, 1), "swing": (0, 1),
    "orientation-change": (nil, 1), "learned-shake": (0.007372, 0.992593),
  ]

  /// The same for gravity from the fused attitude (swing with gyro = 1, orientation-change with its
  /// default gyro = 1), on the test set's traces that have a gyroscope, fed to push_gyro.
  public static let floatCostWithGyroscope: [String: (f1Change: Double?, agreement: Double)] = [
    "swing": (0, 1), "orientation-change": (nil, 1),
  ]

  /// The rate at which `footprint` was measured, for the rules whose constants depend on it.
  public static let footprintRate = 100.0

  /// What each detector with its default parameters costs a Cortex-M4F in float (at
  /// `footprintRate` where the rate matters), in bytes, as `scripts/footprint` measures it with
  /// Debian's arm-none-eabi-gcc 12.2 (-Os, hardware float, newlib-nano): RAM is the state plus an
  /// upper bound of the stack, flash the code and constants with the libm functions it calls.
  /// Upper bounds: ExportCLITests.footprintIsWhatTheHeadersSay builds every detector of the
  /// registry and fails when one exceeds its figures or has shrunk by more than 5% below them.
  public static let footprint: [String: (ram: Int, flash: Int)] = [
    "three-peak": (148, 1016), "angular-change": (188, 1720), "seismic": (1020, 684), "swing": (364, 3380),
    "orientation-change": (1344, 11280), "learned-shake": (3900, 47_600),
  ]

  /// What a sample of datasets/test/000.csv (30 s at 100 Hz with shakes, pushed without a
  /// gyroscope) costs each detector with its default parameters in float on a Cortex-M4F, in
  /// cycles, on average and at most, as `scripts/device_time` counts them: every instruction the
  /// header's code executes (QEMU, one at a time) at the Cortex-M4's cycles for it. Upper bounds,
  /// held as `footprint` is (ExportCLITests.deviceTimeIsWhatTheHeadersSay).
  public static let deviceCycles: [String: (mean: Int, worst: Int)] = [
    "three-peak": (113, 192), "angular-change": (400, 432), "seismic": (200, 282), "swing": (865, 1140),
    "orientation-change": (412, 664), "learned-shake": (6000, 41_000),
  ]

  /// The clock `deviceCycles` is stated at in time: a wearable's Cortex-M4F runs at 48-120 MHz.
  public static let deviceClockHz = 64e6

  /// The same for a learned detector's trees as a table (the header compiled with
  /// AK_DETECTOR_TREE_TABLE defined) when its header builds them as code by default, held to the
  /// same test. (Both with the trees stopped early, as by default; every tree walked,
  /// AK_DETECTOR_ALL_TREES, takes a little less flash.) The built-in model was budgeted for its
  /// trees as a table, which its header builds by default: its footprint above is the table's.
  public static let tableFootprint: [String: (ram: Int, flash: Int)] = [:]

  /// The header's and export's words on what `setting` costs a Cortex-M4F.
  public static func footprintText(_ setting: RuleSetting, settings: ExportSettings, usesRate: Bool) -> String
  {
    let measured =
      settings.precision == .float && setting.parameterText.isEmpty && settings.convention == .apple
      && (!usesRate || settings.rate == footprintRate)
    guard measured, let cost = footprint[setting.rule] else {
      return "footprint on a Cortex-M4F measured for the default parameters in float"
        + (usesRate ? " at \(formatNumber(footprintRate)) Hz" : "")
        + " only: scripts/footprint DIR measures this header, scripts/device_time DIR its time a sample"
    }
    let time = deviceCycles[setting.rule].map {
      "; a sample (100 Hz) takes \($0.mean) cycles on average, \($0.worst) at most ("
        + cFormat("%.1f", Double($0.mean) / deviceClockHz * 1e6) + " and "
        + cFormat("%.1f", Double($0.worst) / deviceClockHz * 1e6) + " microseconds at "
        + formatNumber(deviceClockHz / 1e6) + " MHz; scripts/device_time)"
    }
    return
      "on a Cortex-M4F (float, default parameters\(usesRate ? ", \(formatNumber(footprintRate)) Hz" : "")): "
      + "RAM \(cost.ram) bytes, flash \(cost.flash) bytes (scripts/footprint)"
      + (tableFootprint[setting.rule].map {
        "; with the trees as a table (AK_DETECTOR_TREE_TABLE defined) RAM \($0.ram) bytes, flash \($0.flash) bytes"
      } ?? "") + (time ?? "")
  }

  /// What an export writes: the header, and what to tell the user about it.
  public struct Output: Sendable {
    public var header: String
    public var warnings: [String]
    /// What the detector costs a Cortex-M4F (`footprintText`).
    public var footprint: String = ""
  }

  /// The single-header C99 library of `setting`'s detector.
  ///
  /// - Throws: a usage error when the detector's constants need the sample rate and
  ///   `settings.rate` is nil.
  public static func cHeader(_ setting: RuleSetting, settings: ExportSettings) throws -> Output {
    try ExportSettings.check(prefix: settings.prefix)
    if let rate = settings.rate, !(rate > 0 && rate.isFinite) {
      throw AccelError.usage("--rate must be a positive number of Hz, got \(formatNumber(rate))")
    }
    if case .unsupported(let reason) = Detectors.export(setting.rule) {
      throw AccelError.usage("\(setting.rule) cannot be exported: \(reason)")
    }
    let detector = try setting.detector(rate: settings.rate ?? 100)
    guard let exportable = (detector as? FiniteSamplesOnly)?.inner as? any CExportable else {
      // Registered as exporting (`ExportSupport.c`) without a C rendering in this module: the
      // export tests, which run every such detector, fail here.
      throw AccelError.failure(
        "\(setting.rule) is registered as exporting to C, but AccelExport has no C for it")
    }
    if exportable.exportUsesRate && settings.rate == nil {
      throw AccelError.usage(
        "\(setting.rule) with these parameters depends on the sample rate: give it with --rate HZ (your recorder's rate: accelkit info reports it for a trace)"
      )
    }
    let parts = exportable.cParts()
    return Output(
      header: render(parts, setting: setting, settings: settings, usesRate: exportable.exportUsesRate),
      warnings: parts.warnings,
      footprint: footprintText(setting, settings: settings, usesRate: exportable.exportUsesRate))
  }

  /// Every parameter of the setting's rule with its value (the defaults included), in the table's
  /// order.
  static func parameterValues(_ setting: RuleSetting) -> [(name: String, value: Double, unit: String)] {
    let rows = Detectors.named(setting.rule).map { Detectors.parameterRows($0) } ?? []
    return rows.map { row in
      (row.name, setting.assignments.first { $0.name == row.name }?.value ?? row.defaultValue, row.unit)
    }
  }

  static func render(_ parts: CDetectorParts, setting: RuleSetting, settings: ExportSettings, usesRate: Bool)
    -> String
  {
    let float = settings.precision == .float
    var text =
      "/* \(headerName): accelkit's \(commentSafe(setting.rule)) detector as a single-header C99 library.\n"
    text += " *\n"
    text += " * Generated by accelkit \(settings.version); do not edit (export it again instead).\n"
    if !settings.command.isEmpty { text += " * Command:    \(commentSafe(settings.command))\n" }
    text += " * Rule:       \(commentSafe(setting.rule))\n"
    let values = parts.parameters ?? parameterValues(setting)
    for (i, p) in values.enumerated() {
      text +=
        " * \(i == 0 ? "Parameters: " : "            ")\(p.name) = \(formatNumber(p.value))\(p.unit.isEmpty ? "" : " (\(p.unit))")\n"
    }
    if usesRate, let rate = settings.rate {
      text += " * Rate:       \(formatNumber(rate)) Hz (the constants below are made for it)\n"
    }
    text +=
      " * Precision:  \(settings.precision.rawValue)\(float ? " (timestamps too: float steps a time near 1e5 s by 8 ms, so give\n *             push seconds since the recording started or since init, not the device's uptime)" : "")\n"
    if settings.convention == .specificForce {
      text += " * Axes:       specific force in (face up reads z = +1 g); push negates x, y, z\n"
    }
    if float, let cost = floatCost[setting.rule] {
      text += " *             What float costs this rule with its default parameters on accelkit's test set\n"
      text += " *             (docs/EXPORT.md): F1 against the annotations "
      text += cost.f1Change.map { "changes by \(cFormat("%+.4f", $0))" } ?? "not measured (no annotations)"
      text += ";\n *             float's events against double's: F1 \(cFormat("%.4f", cost.agreement)).\n"
    }
    if float && parts.usesGyroscope, let cost = floatCostWithGyroscope[setting.rule] {
      text +=
        " *             With the gyroscope (push_gyro, the test set's traces that have one): F1 against\n"
      text += " *             the annotations "
      text += cost.f1Change.map { "changes by \(cFormat("%+.4f", $0))" } ?? "not measured (no annotations)"
      text += "; float's events against double's: F1 \(cFormat("%.4f", cost.agreement)).\n"
    }
    text += " * Footprint:  \(footprintText(setting, settings: settings, usesRate: usesRate))\n"
    for note in parts.notes { text += " * \(note)\n" }
    text += """
       *
       * Usage (no allocation, no global state, nothing from the C library beyond math.h):
       *   ak_detector_state s;
       *   ak_detector_event e;
       *   ak_detector_init(&s);
       *   for each sample (t in seconds, increasing; x, y, z in g, \(settings.convention == .apple ? "Apple's axes: face up reads z = -1" : "specific force: face up reads z = +1")):
       *     if (ak_detector_push(&s, t, x, y, z, &e)) handle(&e);
       *   at the end of a recording: if (ak_detector_finish(&s, &e)) handle(&e);
       * With a gyroscope (rad/s), push_gyro(&s, t, x, y, z, gx, gy, gz, &e) in place of push (the same
       * as push for a detector that reads none: AK_DETECTOR_USES_GYROSCOPE says which). When push,
       * push_gyro or finish returns 1, ak_detector_next(&s, &e) hands out any further event the same
       * call ended (only a learned model's can end several: call it until it returns 0).
       * An event has start, end and reported (when a live detector announces it) in seconds, and,
       * where the rule fills them, peak_g, count and axis (has_peak 0, count -1 and axis NULL
       * otherwise); cancelled is 1 for an event the rule cancelled (status cancelled).
       */

      """
    let guardName = settings.prefix.uppercased() + "_H"
    text += "#ifndef \(guardName)\n#define \(guardName)\n\n#include <math.h>\n\n"
    text += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    text += """
      /* Products are not fused into multiply-adds inside the detector's functions: the arithmetic
         is the Swift detector's. (GCC contracts only in GNU modes and on processors with fused
         multiply-adds: there, build with -std=c99 or -ffp-contract=off.) */
      #if defined(__clang__) && defined(__cplusplus)
      #define AK_DETECTOR_EXACT _Pragma("clang fp contract(off)")
      #elif defined(__clang__)
      #define AK_DETECTOR_EXACT _Pragma("STDC FP_CONTRACT OFF")
      #else
      #define AK_DETECTOR_EXACT
      #endif


      """
    if float {
      text += """
        typedef float ak_detector_real;
        #define AK_DETECTOR_REAL_IS_FLOAT 1
        #define AK_DETECTOR_SQRT(v) sqrtf(v)
        #define AK_DETECTOR_FABS(v) fabsf(v)
        #define AK_DETECTOR_EXP(v) expf(v)
        #define AK_DETECTOR_ACOS(v) acosf(v)
        #define AK_DETECTOR_ATAN2(a, b) atan2f(a, b)
        #define AK_DETECTOR_COS(v) cosf(v)
        #define AK_DETECTOR_SIN(v) sinf(v)
        #define AK_DETECTOR_ROUND(v) roundf(v)

        """
    } else {
      text += """
        typedef double ak_detector_real;
        #define AK_DETECTOR_REAL_IS_FLOAT 0
        #define AK_DETECTOR_SQRT(v) sqrt(v)
        #define AK_DETECTOR_FABS(v) fabs(v)
        #define AK_DETECTOR_EXP(v) exp(v)
        #define AK_DETECTOR_ACOS(v) acos(v)
        #define AK_DETECTOR_ATAN2(a, b) atan2(a, b)
        #define AK_DETECTOR_COS(v) cos(v)
        #define AK_DETECTOR_SIN(v) sin(v)
        #define AK_DETECTOR_ROUND(v) round(v)

        """
    }
    text += """
      /* Swift's max and min (the second argument wins a tie in max, the first in min). */
      #define AK_DETECTOR_MAX(a, b) ((b) >= (a) ? (b) : (a))
      #define AK_DETECTOR_MIN(a, b) ((b) < (a) ? (b) : (a))


      """
    text += "#define AK_DETECTOR_RULE \"\(cEscaped(setting.rule))\" /* what detect-shakes calls it */\n"
    text +=
      "#define AK_DETECTOR_USES_GYROSCOPE \(parts.usesGyroscope ? 1 : 0) /* whether push_gyro reads the gyroscope */\n\n"
    if !parts.constants.isEmpty {
      text += "/* The detector's constants. */\n"
      for c in parts.constants {
        let value: String
        switch c.value {
        case .real(let v): value = "((ak_detector_real)\(cLiteral(v)))"
        case .integer(let v): value = "\(v)"
        }
        text += "#define AK_DETECTOR_\(c.name) \(value) /* \(c.comment) */\n"
      }
      text += "\n"
    }
    text += """
      typedef struct {
        ak_detector_real start, end, reported;
        ak_detector_real peak_g;
        int has_peak;
        long count;
        const char *axis;
        const char *label;
        int cancelled;
      } ak_detector_event;


      """
    if !parts.types.isEmpty { text += parts.types + "\n" }
    text += "typedef struct {\n"
    text += indented(
      parts.state
        + "\n/* What push last accepted: its time (the input guard below). */\nint input_started;\nak_detector_real input_last_t;",
      by: 2)
    text += "} ak_detector_state;\n\n"
    text += """
      static inline void ak_detector_set_event(ak_detector_event *e, ak_detector_real start, ak_detector_real end,
                                               ak_detector_real reported, int has_peak, ak_detector_real peak_g,
                                               long count, const char *axis, const char *label, int cancelled) {
        e->start = start;
        e->end = end;
        e->reported = reported;
        e->has_peak = has_peak;
        e->peak_g = has_peak ? peak_g : (ak_detector_real)0;
        e->count = count;
        e->axis = axis;
        e->label = label;
        e->cancelled = cancelled;
      }


      """
    text +=
      "/* After push, push_gyro or finish returned 1: returns 1 and fills *e with the next event they ended. */\n"
    text += "static inline int ak_detector_next(ak_detector_state *s, ak_detector_event *e) {\n"
    text += indented(parts.next, by: 2) + "}\n\n"
    if !parts.helpers.isEmpty { text += parts.helpers + "\n" }
    text += "/* Sets the state for a new recording. */\n"
    text +=
      "static inline void ak_detector_init(ak_detector_state *s) {\n"
      + indented(parts.initialize + "\ns->input_started = 0;\ns->input_last_t = 0;", by: 2)
      + "}\n\n"
    text += """
      /* The input guard: a sample whose time or reading is NaN or infinite is skipped as a gap (it
         never enters the state), as is one whose time does not advance; a time that jumps back by
         more than a second (the device's clock was reset) starts a new recording (init), dropping
         any event still open. */
      static inline int ak_detector_accepts(ak_detector_state *s, ak_detector_real t, ak_detector_real x,
                                            ak_detector_real y, ak_detector_real z) {
        if (!isfinite(t) || !isfinite(x) || !isfinite(y) || !isfinite(z)) return 0;
        if (s->input_started && !(t > s->input_last_t)) {
          if (!(t < s->input_last_t - 1)) return 0;
          ak_detector_init(s);
        }
        s->input_started = 1;
        s->input_last_t = t;
        return 1;
      }


      """
    text += "/* Feeds one sample; returns 1 and fills *e when it ends an event, 0 otherwise. */\n"
    text += """
      static inline int ak_detector_push(ak_detector_state *s, ak_detector_real t, ak_detector_real x,
                                         ak_detector_real y, ak_detector_real z, ak_detector_event *e) {

      """
    // Specific force in: negated on the way in, once (a push_gyro that hands over to push leaves
    // it to push).
    let negation =
      settings.convention == .specificForce
      ? "/* specific force in (face up reads z = +1 g): Apple's axes inside */\nx = -x;\ny = -y;\nz = -z;\n"
      : ""
    let guarded = "if (!ak_detector_accepts(s, t, x, y, z)) return 0;\n"
    text += indented(negation + guarded + parts.push, by: 2) + "}\n\n"
    text += "/* Feeds one sample with the gyroscope's reading (rad/s); as push otherwise. */\n"
    text += """
      static inline int ak_detector_push_gyro(ak_detector_state *s, ak_detector_real t, ak_detector_real x,
                                              ak_detector_real y, ak_detector_real z, ak_detector_real gx,
                                              ak_detector_real gy, ak_detector_real gz, ak_detector_event *e) {

      """
    // push_gyro checks the gyroscope's reading; a detector that reads none hands the sample over
    // to push (which guards and negates it), one that reads it guards and negates it itself.
    let gyroscopeBody =
      parts.pushGyroscope.map { negation + guarded + $0 }
      ?? "(void)gx;\n(void)gy;\n(void)gz;\nreturn ak_detector_push(s, t, x, y, z, e);"
    text +=
      indented("if (!isfinite(gx) || !isfinite(gy) || !isfinite(gz)) return 0;\n" + gyroscopeBody, by: 2)
      + "}\n\n"
    text +=
      "/* The end of the recording: returns 1 and fills *e when an event was still open and is reported. */\n"
    text += "static inline int ak_detector_finish(ak_detector_state *s, ak_detector_event *e) {\n"
    text += indented(parts.finish, by: 2) + "}\n\n"
    text += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n"
    return
      exact(text)
      .replacing("ak_detector_", with: settings.prefix + "_")
      .replacing("AK_DETECTOR_", with: settings.prefix.uppercased() + "_")
  }

  /// `AK_DETECTOR_EXACT` first in every function's body (a pragma there holds until the body ends,
  /// leaving the including code as it was).
  static func exact(_ text: String) -> String {
    var out: [Substring] = []
    var pending = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      out.append(line)
      if line.hasPrefix("static inline") { pending = true }
      if pending && line.hasSuffix("{") {
        out.append("  AK_DETECTOR_EXACT")
        pending = false
      }
    }
    return out.joined(separator: "\n")
  }

  /// `text` inside a C string literal: quotes, backslashes and line ends escaped.
  static func cEscaped(_ text: String) -> String {
    text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
  }

  /// `text` inside a comment: no comment end.
  static func commentSafe(_ text: String) -> String { text.replacing("*/", with: "* /") }

  /// A double as a C literal that reads back to the same value.
  static func cLiteral(_ v: Double) -> String {
    let text = formatNumber(v)
    return text.contains(".") || text.contains("e") || text.contains("E") ? text : text + ".0"
  }

  static func indented(_ code: String, by n: Int) -> String {
    let pad = String(repeating: " ", count: n)
    return code.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : pad + $0 }
      .joined(separator: "\n") + (code.hasSuffix("\n") ? "" : "\n")
  }
}
