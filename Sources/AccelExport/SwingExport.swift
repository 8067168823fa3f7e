import AccelCore
import AccelGestures

extension SwingRule: CExportable {
  var exportUsesRate: Bool { c.gyroscope == 1 }

  func cParts() -> CDetectorParts {
    // With gyro = 1, push_gyro takes gravity from the fused attitude, as detect-shakes does for a
    // trace with a gyroscope; push (no gyroscope) from the low-passes.
    let fusion = c.gyroscope == 1 ? FusedGravityC(Self.fusion, rate: rate) : nil
    let notes =
      fusion == nil
      ? []
      : [
        "push_gyro takes gravity from the fused attitude (VQF without the magnetometer), push from the low-passes."
      ]
    let parts = CDetectorParts(
      constants: [
        ("GRAVITY_TAU_S", .real(c.gravityTauSeconds), "time constant of each gravity low-pass (s)"),
        ("AXIS_TAU_S", .real(c.axisTauSeconds), "time constant of the swing axis' covariance (s)"),
        ("HYSTERESIS_G", .real(c.hysteresisG), "a swing changes direction once past this (g)"),
        ("SWING_G", .real(c.swingG), "a half-swing counts when it reaches this (g)"),
        ("SHORTEST_S", .real(shortest), "half-swings last at least 1 / (2 max_hz) (s)"),
        ("LONGEST_S", .real(longest), "and at most 1 / (2 min_hz) (s)"),
        ("MIN_SWINGS", .integer(c.minSwings), "counted half-swings in a row that make a shake"),
        ("BALANCE", .real(c.balance), "the weaker direction's share of the stronger's"),
        ("BRIDGE_S", .real(bridge), "a reported shake goes on through a pause this long (s)"),
        (
          "RAIL_FLOOR_G", .real(Self.railFloor),
          "readings at their maximum count as clipped from this size (g)"
        ),
        (
          "FREE_FALL_LIMIT_G", .real(Self.freeFallLimit),
          "a clipped run's free direction must exceed this (g)"
        ),
      ],
      state: """
        int started;
        ak_detector_real previous_time;
        ak_detector_real g1[3], g2[3]; /* gravity: two cascaded one-pole low-passes */
        ak_detector_real cov[6];       /* xx, yy, zz, xy, xz, yz */
        ak_detector_real axis[3];
        int sign; /* the current half-swing's direction (0 before the first) */
        ak_detector_real half_start, half_peak;
        ak_detector_real last_sign, last_zero, last_value, before_last;
        ak_detector_real rail;
        long half_at_rail;
        /* The run of counted half-swings. */
        ak_detector_real run_start, run_end;
        long run_count;
        int run_last_sign;
        ak_detector_real run_peaks[2], run_durations[2]; /* sums per direction (- then +) */
        long run_counts[2], run_clipped[2];
        ak_detector_real run_strength;
        int run_has_reported;
        ak_detector_real run_reported;
        long axis_votes[3];
        """,
      initialize: """
        int k;
        s->started = 0;
        s->previous_time = 0;
        for (k = 0; k < 3; k++) s->g1[k] = s->g2[k] = s->axis[k] = 0;
        s->axis[0] = 1;
        for (k = 0; k < 6; k++) s->cov[k] = 0;
        s->sign = 0;
        s->half_start = s->half_peak = 0;
        s->last_sign = s->last_zero = s->last_value = s->before_last = 0;
        s->rail = 0;
        s->half_at_rail = 0;
        ak_detector_reset_run(s);
        for (k = 0; k < 3; k++) s->axis_votes[k] = 0;
        """,
      helpers: PrincipalAxisC.helper + """
        static inline void ak_detector_reset_run(ak_detector_state *s) {
          s->run_start = s->run_end = 0;
          s->run_count = 0;
          s->run_last_sign = 0;
          s->run_peaks[0] = s->run_peaks[1] = 0;
          s->run_durations[0] = s->run_durations[1] = 0;
          s->run_counts[0] = s->run_counts[1] = 0;
          s->run_clipped[0] = s->run_clipped[1] = 0;
          s->run_strength = 0;
          s->run_has_reported = 0;
          s->run_reported = 0;
        }

        /* Ends the current run; returns 1 with its shake if it qualified. */
        static inline int ak_detector_close_run(ak_detector_state *s, ak_detector_event *e) {
          int qualifies = s->run_count > 0 && s->run_has_reported;
          if (qualifies) {
            int k = 0, i;
            for (i = 1; i < 3; i++)
              if (s->axis_votes[k] < s->axis_votes[i]) k = i;
            ak_detector_set_event(e, s->run_start, s->run_end, s->run_reported, 1,
                                  s->run_strength / (ak_detector_real)s->run_count, s->run_count, k == 0 ? "x" : k == 1 ? "y" : "z", "shake", 0);
          }
          ak_detector_reset_run(s);
          return qualifies;
        }

        static inline int ak_detector_is_balanced(const ak_detector_state *s) {
          ak_detector_real p0, p1, d0, d1, free_peak, cut_peak;
          if (!(s->run_counts[0] > 0 && s->run_counts[1] > 0)) return 0;
          p0 = s->run_peaks[0] / (ak_detector_real)s->run_counts[0];
          p1 = s->run_peaks[1] / (ak_detector_real)s->run_counts[1];
          d0 = s->run_durations[0] / (ak_detector_real)s->run_counts[0];
          d1 = s->run_durations[1] / (ak_detector_real)s->run_counts[1];
          if (s->run_clipped[0] == 0 && s->run_clipped[1] == 0)
            return AK_DETECTOR_MIN(p0, p1) >= AK_DETECTOR_BALANCE * AK_DETECTOR_MAX(p0, p1) &&
                   AK_DETECTOR_MIN(d0, d1) >= AK_DETECTOR_BALANCE * AK_DETECTOR_MAX(d0, d1);
          if (s->run_clipped[0] > 0 && s->run_clipped[1] > 0)
            return AK_DETECTOR_MIN(d0, d1) >= AK_DETECTOR_BALANCE * AK_DETECTOR_BALANCE * AK_DETECTOR_MAX(d0, d1);
          free_peak = s->run_clipped[0] > 0 ? p1 : p0;
          cut_peak = s->run_clipped[0] > 0 ? p0 : p1;
          return free_peak >= AK_DETECTOR_MAX(AK_DETECTOR_BALANCE * cut_peak, AK_DETECTOR_FREE_FALL_LIMIT_G) &&
                 AK_DETECTOR_MIN(d0, d1) >= AK_DETECTOR_BALANCE * AK_DETECTOR_BALANCE * AK_DETECTOR_MAX(d0, d1);
        }

        static inline void ak_detector_add(ak_detector_state *s, ak_detector_real end, ak_detector_real duration) {
          int k = s->sign > 0 ? 1 : 0;
          if (s->run_count == 0) {
            ak_detector_reset_run(s);
            s->run_start = s->half_start;
            s->axis_votes[0] = s->axis_votes[1] = s->axis_votes[2] = 0;
          }
          /* The first half-swing of a run is the ramp into it: it counts, but the balance is
             judged on the ones after it. */
          if (s->run_count > 0) {
            s->run_peaks[k] += s->half_peak;
            s->run_durations[k] += duration;
            s->run_counts[k] += 1;
          }
          s->run_strength += s->half_peak;
          s->run_count += 1;
          if (s->half_at_rail >= 2) s->run_clipped[k] += 1;
          s->run_end = end;
          s->run_last_sign = s->sign;
          if (!s->run_has_reported && s->run_count >= AK_DETECTOR_MIN_SWINGS && ak_detector_is_balanced(s)) {
            s->run_reported = end;
            s->run_has_reported = 1;
          }
        }

        /* The half-swing from half_start to end is complete. */
        static inline int ak_detector_end_half_swing(ak_detector_state *s, ak_detector_real end, ak_detector_event *e) {
          ak_detector_real duration = end - s->half_start;
          int counts = s->half_peak >= AK_DETECTOR_SWING_G && duration >= AK_DETECTOR_SHORTEST_S && duration <= AK_DETECTOR_LONGEST_S;
          int continues;
          if (!counts) return s->run_has_reported ? 0 : ak_detector_close_run(s, e);
          continues = s->run_has_reported ? s->half_start - s->run_end <= AK_DETECTOR_BRIDGE_S
                                          : s->sign != s->run_last_sign && AK_DETECTOR_FABS(s->half_start - s->run_end) <= (ak_detector_real)1e-9;
          if (s->run_count > 0 && !continues) {
            int ended = ak_detector_close_run(s, e);
            ak_detector_add(s, end, duration);
            return ended;
          }
          ak_detector_add(s, end, duration);
          return 0;
        }

        /* One sample; gravity from fused (from the fused attitude) when it is not null, else
           from the low-passes (kept running either way). */
        static inline int ak_detector_step(ak_detector_state *s, ak_detector_real t, ak_detector_real x, ak_detector_real y,
                                           ak_detector_real z, const ak_detector_real *fused, ak_detector_event *e) {
          ak_detector_real previous, dt, extreme, a, b, u[3], v[3], sv, earlier, later;
          int k, ended = 0, direction;
          ak_detector_event found;
          if (!(isfinite(x) && isfinite(y) && isfinite(z))) return 0;
          if (!s->started) {
            s->started = 1;
            s->previous_time = t;
            s->g1[0] = s->g2[0] = x;
            s->g1[1] = s->g2[1] = y;
            s->g1[2] = s->g2[2] = z;
            s->last_zero = t;
            return 0;
          }
          previous = s->previous_time;
          dt = AK_DETECTOR_MAX((ak_detector_real)0, t - previous);
          s->previous_time = t;
          /* A sensor at the end of its range reads the same extreme value again and again. */
          extreme = AK_DETECTOR_MAX(AK_DETECTOR_MAX(AK_DETECTOR_FABS(x), AK_DETECTOR_FABS(y)), AK_DETECTOR_FABS(z));
          if (extreme > s->rail) {
            s->rail = extreme;
          } else if (extreme == s->rail && s->rail >= AK_DETECTOR_RAIL_FLOOR_G) {
            s->half_at_rail += 1;
          }
          a = 1 - AK_DETECTOR_EXP(-dt / AK_DETECTOR_GRAVITY_TAU_S);
          s->g1[0] = s->g1[0] + a * (x - s->g1[0]);
          s->g1[1] = s->g1[1] + a * (y - s->g1[1]);
          s->g1[2] = s->g1[2] + a * (z - s->g1[2]);
          s->g2[0] = s->g2[0] + a * (s->g1[0] - s->g2[0]);
          s->g2[1] = s->g2[1] + a * (s->g1[1] - s->g2[1]);
          s->g2[2] = s->g2[2] + a * (s->g1[2] - s->g2[2]);
          u[0] = x - (fused ? fused[0] : s->g2[0]);
          u[1] = y - (fused ? fused[1] : s->g2[1]);
          u[2] = z - (fused ? fused[2] : s->g2[2]);
          /* u's covariance and its principal axis v. */
          b = 1 - AK_DETECTOR_EXP(-dt / AK_DETECTOR_AXIS_TAU_S);
          ak_detector_principal_axis(s->cov, s->axis, u[0], u[1], u[2], b);
          v[0] = s->axis[0];
          v[1] = s->axis[1];
          v[2] = s->axis[2];
          sv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];

          if (sv != 0 && (sv > 0 ? 1 : -1) != s->last_sign) {
            /* The crossing, interpolated between the two samples. */
            if (s->last_sign != 0) s->last_zero = previous + dt * s->last_value / (s->last_value - sv);
            s->last_sign = sv > 0 ? 1 : -1;
          }
          earlier = s->before_last;
          later = s->last_value;
          s->before_last = s->last_value;
          s->last_value = sv;
          direction = sv > AK_DETECTOR_HYSTERESIS_G ? 1 : sv < -AK_DETECTOR_HYSTERESIS_G ? -1 : 0;
          if (direction != 0 && direction != s->sign) {
            /* The half-swing in progress ended at the last zero crossing. */
            if (s->sign != 0 && ak_detector_end_half_swing(s, s->last_zero, &found)) {
              *e = found;
              ended = 1;
            }
            s->sign = direction;
            s->half_start = s->last_zero;
            s->half_peak = 0;
            s->half_at_rail = 0;
          }
          if (s->sign != 0) {
            ak_detector_real y0 = AK_DETECTOR_FABS(earlier), y1 = AK_DETECTOR_FABS(later), y2 = AK_DETECTOR_FABS(sv);
            ak_detector_real curvature = y0 - 2 * y1 + y2;
            s->half_peak = AK_DETECTOR_MAX(s->half_peak, AK_DETECTOR_FABS(sv));
            /* A peak between samples: the vertex of the parabola through the last three |s|. */
            if (y1 >= y0 && y1 >= y2 && curvature < 0 && (earlier > 0) == (later > 0) && (later > 0) == (sv > 0)) {
              ak_detector_real offset = (ak_detector_real)0.5 * (y0 - y2) / curvature;
              if (AK_DETECTOR_FABS(offset) <= (ak_detector_real)0.5)
                s->half_peak = AK_DETECTOR_MAX(s->half_peak, y1 - (ak_detector_real)0.25 * (y0 - y2) * offset);
            }
            if (t - s->half_start > AK_DETECTOR_LONGEST_S) {
              /* Too slow to be a shake: this half-swing does not count. */
              s->sign = 0;
              if (!s->run_has_reported && ak_detector_close_run(s, &found)) {
                *e = found;
                ended = 1;
              }
            }
          }
          if (s->run_has_reported && t - s->run_end > AK_DETECTOR_LONGEST_S + AK_DETECTOR_BRIDGE_S) {
            /* A reported shake ends when no counted half-swing has continued it for a while. */
            if (ak_detector_close_run(s, &found)) {
              *e = found;
              ended = 1;
            }
          }
          if (s->sign != 0 && AK_DETECTOR_FABS(sv) > AK_DETECTOR_HYSTERESIS_G) {
            k = AK_DETECTOR_FABS(v[0]) >= AK_DETECTOR_FABS(v[1]) && AK_DETECTOR_FABS(v[0]) >= AK_DETECTOR_FABS(v[2]) ? 0
                : AK_DETECTOR_FABS(v[1]) >= AK_DETECTOR_FABS(v[2])                                                ? 1
                                                                                                                     : 2;
            s->axis_votes[k] += 1;
          }
          return ended;
        }

        """,
      push: "return ak_detector_step(s, t, x, y, z, 0, e);",
      finish: "return ak_detector_close_run(s, e);",
      notes: notes)
    return fusion?.added(to: parts, returning: "ak_detector_step(s, t, x, y, z, g, e)") ?? parts
  }
}
