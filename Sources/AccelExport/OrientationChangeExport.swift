import AccelGestures
import AccelOrientation

extension OrientationChangeRule: CExportable {
  var exportUsesRate: Bool { true }

  func cParts() -> CDetectorParts {
    let k = settings.classifier
    // With gyro = 1, push_gyro takes gravity from the fused attitude, as detect-shakes does for a
    // trace with a gyroscope (and then no acceleration tolerance applies); push from the low-pass.
    let fusion = settings.gyroscope == .auto ? FusedGravityC(settings.fusion, rate: rate) : nil
    // The orientations by `DeviceOrientation.index`.
    let names = DeviceOrientation.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
    let parts = CDetectorParts(
      constants: [
        ("ALPHA", .real(alpha), "gravity low-pass factor per sample (the cutoff at the rate)"),
        ("SETTLE_S", .real(settings.settle), "a new orientation must hold this long (s)"),
        (
          "HYSTERESIS", .real(k.hysteresis),
          "how far past a boundary the current orientation is kept (degrees)"
        ),
        ("FLAT_ANGLE", .real(k.flatAngle), "within this of flat the device is face up or down (degrees)"),
        ("TOLERANCE_G", .real(k.accelerationTolerance), "no orientation while | |a| - 1 g | exceeds this"),
        ("DEGREES_PER_RADIAN", .real(Attitude.degreesPerRadian), "180 / pi"),
      ],
      state: """
        int started;
        ak_detector_real gravity[3];
        int current;   /* 0 portrait, 1 portrait-upside-down, 2 landscape-left, 3 landscape-right,
                          4 face-up, 5 face-down, 6 unknown */
        int candidate; /* -1: none */
        ak_detector_real candidate_since;
        """,
      initialize: """
        s->started = 0;
        s->gravity[0] = s->gravity[1] = s->gravity[2] = 0;
        s->current = 6;
        s->candidate = -1;
        s->candidate_since = 0;
        """,
      helpers: """
        /* The seed's four classes from the up angle u (radians). */
        static inline int ak_detector_upright(ak_detector_real u) {
          if (u >= (ak_detector_real)-2.25 && u <= (ak_detector_real)-0.75) return 0;
          if (u > (ak_detector_real)-0.75 && u < (ak_detector_real)0.75) return 3;
          if (u >= (ak_detector_real)0.75 && u <= (ak_detector_real)2.25) return 1;
          return 2;
        }

        /* Whether u lies in orientation o's region widened by w radians. */
        static inline int ak_detector_contains(int o, ak_detector_real u, ak_detector_real w) {
          switch (o) {
          case 0: return u >= (ak_detector_real)-2.25 - w && u <= (ak_detector_real)-0.75 + w;
          case 3: return u > (ak_detector_real)-0.75 - w && u < (ak_detector_real)0.75 + w;
          case 1: return u >= (ak_detector_real)0.75 - w && u <= (ak_detector_real)2.25 + w;
          case 2: return u > (ak_detector_real)2.25 - w || u < (ak_detector_real)-2.25 + w;
          default: return 0;
          }
        }

        /* The class of a gravity estimate; current is 6 when none is held yet. */
        static inline int ak_detector_classify(const ak_detector_real g[3], ak_detector_real magnitude, int current) {
          ak_detector_real norm, tilt, u, h, up_limit, down_limit;
          if (!(AK_DETECTOR_FABS(magnitude - 1) <= AK_DETECTOR_TOLERANCE_G)) return 6;
          norm = AK_DETECTOR_SQRT(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
          if (!(norm > 0)) return 6;
          tilt = AK_DETECTOR_ACOS(AK_DETECTOR_MAX((ak_detector_real)-1, AK_DETECTOR_MIN((ak_detector_real)1, -g[2] / norm))) *
                 AK_DETECTOR_DEGREES_PER_RADIAN;
          if (!isfinite(tilt)) return 6;
          u = AK_DETECTOR_ATAN2(g[1], 0 - g[0]);
          h = current == 6 ? 0 : AK_DETECTOR_HYSTERESIS;
          up_limit = AK_DETECTOR_FLAT_ANGLE + (current == 4 ? h : current == 6 ? 0 : -h);
          down_limit = 180 - AK_DETECTOR_FLAT_ANGLE - (current == 5 ? h : current == 6 ? 0 : -h);
          if (tilt < up_limit) return 4;
          if (tilt > down_limit) return 5;
          if (current != 4 && current != 5 && current != 6 && ak_detector_contains(current, u, h / AK_DETECTOR_DEGREES_PER_RADIAN))
            return current;
          return ak_detector_upright(u);
        }

        static inline const char *ak_detector_orientation_name(int o) {
          switch (o) {
          case 0: return "portrait";
          case 1: return "portrait-upside-down";
          case 2: return "landscape-left";
          case 3: return "landscape-right";
          case 4: return "face-up";
          case 5: return "face-down";
          default: return "unknown";
          }
        }

        /* A gravity estimate g for time t: returns 1 and fills *e when a new orientation is announced. */
        static inline int ak_detector_announce(ak_detector_state *s, ak_detector_real t, const ak_detector_real *g,
                                               ak_detector_real magnitude, ak_detector_event *e) {
          int cls = ak_detector_classify(g, magnitude, s->current), previous;
          if (cls == 6 || cls == s->current) {
            s->candidate = -1;
            return 0;
          }
          if (s->candidate != cls) {
            s->candidate = cls;
            s->candidate_since = t;
          }
          if (!(t - s->candidate_since >= AK_DETECTOR_SETTLE_S)) return 0;
          previous = s->current;
          s->current = cls;
          s->candidate = -1;
          /* The first orientation taken is where the recording starts, not a change. */
          if (previous == 6) return 0;
          ak_detector_set_event(e, t, t, t, 0, 0, -1, ak_detector_orientation_name(cls), "orientation-change", 0);
          return 1;
        }

        """,
      push: """
        ak_detector_real magnitude = AK_DETECTOR_SQRT(x * x + y * y + z * z);
        if (!s->started) {
          s->started = 1;
          s->gravity[0] = x;
          s->gravity[1] = y;
          s->gravity[2] = z;
        }
        s->gravity[0] = x * AK_DETECTOR_ALPHA + s->gravity[0] * (1 - AK_DETECTOR_ALPHA);
        s->gravity[1] = y * AK_DETECTOR_ALPHA + s->gravity[1] * (1 - AK_DETECTOR_ALPHA);
        s->gravity[2] = z * AK_DETECTOR_ALPHA + s->gravity[2] * (1 - AK_DETECTOR_ALPHA);
        return ak_detector_announce(s, t, s->gravity, magnitude, e);
        """,
      notes: [
        "Gravity from the exponential low-pass with push; \(fusion == nil ? "the same with push_gyro (gyro = 0)" : "from the fused attitude (VQF without the magnetometer) with push_gyro, and then no acceleration tolerance applies").",
        "Orientations: \(names).",
      ])
    return fusion?.added(to: parts, returning: "ak_detector_announce(s, t, g, 1, e)") ?? parts
  }
}
