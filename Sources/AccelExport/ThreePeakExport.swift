import AccelCore
import AccelGestures

extension ThreePeakRule: CExportable {
  var exportUsesRate: Bool { usesRate }

  func cParts() -> CDetectorParts {
    CDetectorParts(
      constants: [
        ("ALPHA", .real(alpha), "gravity low-pass factor per sample"),
        ("MOVE_G", .real(moveG), "a swing at least this large (g) is a movement"),
        ("PEAK_G", .real(peakG), "the largest registered movement must reach this (g)"),
        ("GAP_S", .real(gap), "a longer pause (s) ends the group"),
        ("MIN_MOVES", .integer(minMoves), "registered movements a shake needs"),
        (
          "PAUSE_FROM_MOVEMENT", .integer(pauseFromMovement ? 1 : 0),
          "1: the pause is timed from any movement"
        ),
      ],
      state: """
        int has_gravity;
        ak_detector_real gravity_x, gravity_y;
        int has_swing; /* the swing in progress */
        int swing_axis, swing_registered;
        ak_detector_real swing_sign, swing_peak;
        ak_detector_real last_direction[2];
        long count;
        long per_axis[2];
        ak_detector_real group_start, group_end;
        int has_last_registered;
        ak_detector_real last_registered;
        int has_last_moving;
        ak_detector_real last_moving;
        ak_detector_real largest;
        """,
      initialize: """
        s->has_gravity = 0;
        s->gravity_x = s->gravity_y = 0;
        s->has_swing = 0;
        s->swing_axis = s->swing_registered = 0;
        s->swing_sign = s->swing_peak = 0;
        s->last_direction[0] = s->last_direction[1] = 0;
        s->count = 0;
        s->per_axis[0] = s->per_axis[1] = 0;
        s->group_start = s->group_end = 0;
        s->has_last_registered = 0;
        s->last_registered = 0;
        s->has_last_moving = 0;
        s->last_moving = 0;
        s->largest = 0;
        """,
      helpers: """
        /* Ends the group of registered movements at t: a shake when it qualifies; then resets. */
        static inline int ak_detector_close_group(ak_detector_state *s, ak_detector_real t, ak_detector_event *e) {
          int qualifies = s->count >= AK_DETECTOR_MIN_MOVES && s->largest >= AK_DETECTOR_PEAK_G;
          if (qualifies)
            ak_detector_set_event(e, s->group_start, s->group_end, t, 1, s->largest, s->count,
                                  s->per_axis[0] >= s->per_axis[1] ? "x" : "y", "shake", 0);
          s->last_direction[0] = s->last_direction[1] = 0;
          s->count = 0;
          s->per_axis[0] = s->per_axis[1] = 0;
          s->has_last_registered = 0;
          s->has_last_moving = 0;
          s->largest = 0;
          return qualifies;
        }

        """,
      push: """
        int ended = 0;
        int has_last = AK_DETECTOR_PAUSE_FROM_MOVEMENT ? s->has_last_moving : s->has_last_registered;
        ak_detector_real last = AK_DETECTOR_PAUSE_FROM_MOVEMENT ? s->last_moving : s->last_registered;
        ak_detector_real ux, uy, value, magnitude, sign;
        int axis, registers;
        (void)z; /* the rule reads x and y */
        if (has_last && t - last > AK_DETECTOR_GAP_S) ended = ak_detector_close_group(s, t, e);
        /* Gravity on x and y, steady-started on the first sample. */
        if (!s->has_gravity) {
          s->gravity_x = x;
          s->gravity_y = y;
          s->has_gravity = 1;
        }
        s->gravity_x = x * AK_DETECTOR_ALPHA + s->gravity_x * (1 - AK_DETECTOR_ALPHA);
        s->gravity_y = y * AK_DETECTOR_ALPHA + s->gravity_y * (1 - AK_DETECTOR_ALPHA);
        ux = x - s->gravity_x;
        uy = y - s->gravity_y;
        axis = AK_DETECTOR_FABS(ux) >= AK_DETECTOR_FABS(uy) ? 0 : 1;
        value = axis == 0 ? ux : uy;
        magnitude = AK_DETECTOR_FABS(value);
        if (magnitude >= AK_DETECTOR_MOVE_G && s->has_last_registered) {
          s->last_moving = t;
          s->has_last_moving = 1;
        }
        if (s->has_swing) {
          if (s->swing_axis == axis && magnitude >= AK_DETECTOR_MOVE_G && (value > 0) == (s->swing_sign > 0)) {
            s->swing_peak = AK_DETECTOR_MAX(s->swing_peak, magnitude);
            if (s->swing_registered) {
              s->largest = AK_DETECTOR_MAX(s->largest, magnitude);
              s->group_end = t;
            }
            return ended;
          }
          s->has_swing = 0; /* the swing is over */
        }
        if (!(magnitude >= AK_DETECTOR_MOVE_G)) return ended;
        sign = value > 0 ? 1 : -1;
        registers = s->last_direction[axis] == 0 || s->last_direction[axis] * sign < 0;
        s->has_swing = 1;
        s->swing_axis = axis;
        s->swing_sign = sign;
        s->swing_peak = magnitude;
        s->swing_registered = registers;
        if (registers) {
          if (!s->has_last_registered) s->group_start = t;
          s->last_direction[axis] = sign;
          s->count += 1;
          s->per_axis[axis] += 1;
          s->last_registered = t;
          s->has_last_registered = 1;
          s->last_moving = t;
          s->has_last_moving = 1;
          s->largest = AK_DETECTOR_MAX(s->largest, magnitude);
          s->group_end = t;
        }
        return ended;
        """,
      finish: """
        int has_last = AK_DETECTOR_PAUSE_FROM_MOVEMENT ? s->has_last_moving : s->has_last_registered;
        ak_detector_real last = AK_DETECTOR_PAUSE_FROM_MOVEMENT ? s->last_moving : s->last_registered;
        if (!has_last) return 0;
        return ak_detector_close_group(s, last + AK_DETECTOR_GAP_S, e);
        """)
  }
}
