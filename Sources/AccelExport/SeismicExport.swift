import AccelCore
import AccelGestures

extension SeismicRule: CExportable {
  var exportUsesRate: Bool { true }

  func cParts() -> CDetectorParts {
    CDetectorParts(
      constants: [
        ("THRESHOLD_SQUARED", .real(thresholdSquared), "|a|^2 above this (g^2) is accelerating"),
        ("WINDOW_S", .real(window), "the queue keeps samples this recent (s)"),
        ("MIN_QUEUE", .integer(minQueue), "the queue is never purged below this many samples"),
        ("STRICT", .integer(strict ? 1 : 0), "1: 75% accelerating instead of (n>>1)+(n>>2)"),
        ("QUEUE", .integer(queueCapacity), "the queue's room: 2 x window x rate + 2 samples"),
      ],
      state: """
        ak_detector_real times[AK_DETECTOR_QUEUE];
        ak_detector_real magnitudes[AK_DETECTOR_QUEUE];
        unsigned char accelerating[AK_DETECTOR_QUEUE];
        long head, size; /* the queue: size samples from head, in a ring */
        long accelerating_count;
        """,
      initialize: """
        long i;
        for (i = 0; i < AK_DETECTOR_QUEUE; i++) {
          s->times[i] = 0;
          s->magnitudes[i] = 0;
          s->accelerating[i] = 0;
        }
        s->head = 0;
        s->size = 0;
        s->accelerating_count = 0;
        """,
      push: """
        ak_detector_real m2 = x * x + y * y + z * z;
        int is_accelerating = m2 > AK_DETECTOR_THRESHOLD_SQUARED;
        ak_detector_real cutoff = t - AK_DETECTOR_WINDOW_S;
        long n, tail, i;
        int enough;
        /* Purge samples older than the window, but never below the minimum queue size; a full
           queue (samples closer than half the rate's interval) drops its oldest. */
        while ((s->size >= AK_DETECTOR_MIN_QUEUE && cutoff - s->times[s->head] > 0) || s->size == AK_DETECTOR_QUEUE) {
          if (s->accelerating[s->head]) s->accelerating_count -= 1;
          s->head = (s->head + 1) % AK_DETECTOR_QUEUE;
          s->size -= 1;
        }
        tail = (s->head + s->size) % AK_DETECTOR_QUEUE;
        s->times[tail] = t;
        s->accelerating[tail] = (unsigned char)is_accelerating;
        s->magnitudes[tail] = AK_DETECTOR_SQRT(m2);
        s->size += 1;
        if (is_accelerating) s->accelerating_count += 1;
        n = s->size;
        enough = AK_DETECTOR_STRICT ? s->accelerating_count * 4 >= n * 3
                                    : s->accelerating_count >= (n >> 1) + (n >> 2);
        if (t - s->times[s->head] >= AK_DETECTOR_WINDOW_S / 2 && enough) {
          ak_detector_real peak = s->magnitudes[s->head];
          for (i = 1; i < n; i++) {
            ak_detector_real m = s->magnitudes[(s->head + i) % AK_DETECTOR_QUEUE];
            if (peak < m) peak = m;
          }
          ak_detector_set_event(e, s->times[s->head], t, t, 1, peak, s->accelerating_count, 0, "shake", 0);
          s->head = 0;
          s->size = 0;
          s->accelerating_count = 0;
          return 1;
        }
        return 0;
        """)
  }
}
