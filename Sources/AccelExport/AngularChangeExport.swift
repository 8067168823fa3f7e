import AccelCore
import AccelGestures

extension AngularChangeRule: CExportable {
  var exportUsesRate: Bool { usesRate }

  func cParts() -> CDetectorParts {
    CDetectorParts(
      constants: [
        ("PAIRS", .integer(pairs), "the activity is the mean over this many successive pairs"),
        ("BEGIN", .real(begin), "activity (rad/s) at or above this begins a shake"),
        ("END", .real(end), "activity (rad/s) below this ends it"),
        ("MIN_S", .real(minDuration), "a shake ending sooner (s) is dropped"),
        ("MAX_S", .real(maxDuration), "a shake lasting longer (s) is cancelled"),
        ("REFRACTORY_S", .real(refractory), "no shake begins this soon (s) after the previous start"),
      ],
      state: """
        int has_previous;
        ak_detector_real pt, px, py, pz, previous_magnitude;
        int has_velocity;
        ak_detector_real previous_velocity;
        ak_detector_real changes[AK_DETECTOR_PAIRS]; /* the last PAIRS changes, in a ring */
        long change_index, change_count;
        ak_detector_real change_sum;
        int active;
        ak_detector_real active_start, active_peak;
        int has_last_start;
        ak_detector_real last_start;
        """,
      initialize: """
        long i;
        for (i = 0; i < AK_DETECTOR_PAIRS; i++) s->changes[i] = 0;
        s->has_previous = 0;
        s->pt = s->px = s->py = s->pz = s->previous_magnitude = 0;
        s->has_velocity = 0;
        s->previous_velocity = 0;
        s->change_index = s->change_count = 0;
        s->change_sum = 0;
        s->active = 0;
        s->active_start = s->active_peak = 0;
        s->has_last_start = 0;
        s->last_start = 0;
        """,
      helpers: """
        /* The state machine, fed the activity at time t. */
        static inline int ak_detector_advance(ak_detector_state *s, ak_detector_real activity, ak_detector_real magnitude,
                                              ak_detector_real t, ak_detector_event *e) {
          if (s->active) {
            s->active_peak = AK_DETECTOR_MAX(s->active_peak, magnitude);
            if (t - s->active_start > AK_DETECTOR_MAX_S) {
              ak_detector_set_event(e, s->active_start, s->pt, t, 1, s->active_peak, -1, 0,
                                    "shake", 1);
              s->active = 0;
              return 1;
            } else if (activity < AK_DETECTOR_END) {
              int ended = t - s->active_start >= AK_DETECTOR_MIN_S;
              if (ended) ak_detector_set_event(e, s->active_start, t, t, 1, s->active_peak, -1, 0, "shake", 0);
              s->active = 0;
              return ended;
            }
          } else if (activity >= AK_DETECTOR_BEGIN && (!s->has_last_start || t - s->last_start >= AK_DETECTOR_REFRACTORY_S)) {
            s->active = 1;
            s->active_start = t;
            s->active_peak = magnitude;
            s->last_start = t;
            s->has_last_start = 1;
          }
          return 0;
        }

        """,
      push: """
        int ended = 0;
        ak_detector_real magnitude = AK_DETECTOR_SQRT(x * x + y * y + z * z);
        if (s->has_previous && t > s->pt) {
          ak_detector_real angle = 0, velocity;
          if (s->previous_magnitude > 0 && magnitude > 0) {
            ak_detector_real c = (s->px * x + s->py * y + s->pz * z) / (s->previous_magnitude * magnitude);
            angle = AK_DETECTOR_ACOS(AK_DETECTOR_MAX((ak_detector_real)-1, AK_DETECTOR_MIN((ak_detector_real)1, c)));
          }
          velocity = angle / (t - s->pt);
          if (s->has_velocity) {
            /* Running mean of |change| over the last PAIRS pairs. */
            ak_detector_real change = AK_DETECTOR_FABS(velocity - s->previous_velocity);
            s->change_sum += change - s->changes[s->change_index];
            s->changes[s->change_index] = change;
            s->change_index += 1;
            if (s->change_index == AK_DETECTOR_PAIRS) s->change_index = 0;
            if (s->change_count < AK_DETECTOR_PAIRS) s->change_count += 1;
            if (s->change_count == AK_DETECTOR_PAIRS)
              ended = ak_detector_advance(s, AK_DETECTOR_MAX((ak_detector_real)0, s->change_sum) / (ak_detector_real)AK_DETECTOR_PAIRS,
                                          magnitude, t, e);
          }
          s->previous_velocity = velocity;
          s->has_velocity = 1;
        }
        s->pt = t;
        s->px = x;
        s->py = y;
        s->pz = z;
        s->previous_magnitude = magnitude;
        s->has_previous = 1;
        return ended;
        """,
      finish: """
        if (!s->active || !s->has_previous) return 0;
        s->active = 0;
        if (!(s->pt - s->active_start >= AK_DETECTOR_MIN_S)) return 0;
        ak_detector_set_event(e, s->active_start, s->pt, s->pt, 1, s->active_peak, -1, 0, "shake", 0);
        return 1;
        """)
  }
}
