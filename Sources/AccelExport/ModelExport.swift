import AccelCore
import AccelGestures
import AccelLearning

/// A learned model in C: the feature extractor's grid, gravity, rings and window statistics in
/// the Swift extractor's order of operations (the four-lane sums included), a radix-2 FFT in
/// place of FFTW, every tree as nested comparisons in single precision as XGBoost evaluates
/// them (or, with AK_DETECTOR_TREE_TABLE, the same comparisons as a table of nodes), and each
/// label's probability decoder. The FFT rounds differently from FFTW's (the
/// spectral features agree to about 1e-15 relative), so a feature within that of a tree's
/// threshold could go the other way; the tests compare events on the test set, recordings and
/// models trained with other specifications.
extension ModelDetector: CExportable {
  var exportUsesRate: Bool { false }

  func cParts() -> CDetectorParts {
    let model = runner.model
    let spec = model.spec
    let decoding = runner.decoding
    let widths = spec.windowSamples
    let signals = spec.signals.count
    let bandCount = spec.bands.count
    let labels = model.labels.count
    // Rows one push can complete: every grid point of the longest interpolated interval.
    let gridPoints = Int((FeatureExtractor.maximumGapSeconds * spec.rateHz).rounded(.up)) + 1
    let queue = labels * (gridPoints / spec.hopSamples + 2)
    let transform = FeatureSpec.transformSize(widths.max()!)

    func list<T>(_ values: [T], _ text: (T) -> String) -> String { Self.list(values, text) }
    let real = Self.real
    let windowed = spec.kind == .windows
    var tables = windowed ? Self.windowTables(spec) : Self.exponentialTables(spec)
    tables += """
      /* Each label's event decoding. */
      static const char *const ak_detector_labels[AK_DETECTOR_LABELS] = {\(list(model.labels) { "\"\($0)\"" })};
      /* The row as the trees read it: 32-bit floats, as XGBoost does. */
      #if AK_DETECTOR_REAL_IS_FLOAT
      #define AK_DETECTOR_ROW_FLOATS(s) ((const float *)(s)->row)
      #else
      #define AK_DETECTOR_ROW_FLOATS(s) ((const float *)(s)->features)
      #endif

      """
    for (name, key) in [
      ("on", "on"), ("off", "off"), ("min_duration", "min_duration_s"), ("max_duration", "max_duration_s"),
      ("merge_gap", "merge_gap_s"), ("hold", "hold"), ("hold_time", "hold_s"),
      ("sustained_on", "sustained_on"), ("sustained_off", "sustained_off"), ("extend", "extend"),
      ("smooth_time", "smooth_s"), ("smoothed_on", "smoothed_on"),
    ] {
      tables +=
        "static const ak_detector_real ak_detector_\(name)[AK_DETECTOR_LABELS] = {\(list(decoding) { real($0.value(of: key)!) })};\n"
    }
    // The labels' classifiers, then the sustained ones, as detection scores them.
    let (ensembles, sustainedIndex) = model.ensembles(decoding: decoding)
    let structure = ensembles.map(\.classifier.structure)
    return CDetectorParts(
      constants: [
        ("RATE_HZ", .real(spec.rateHz), "the features' grid (Hz)"),
        ("STEP_S", .real(spec.step), "the grid's interval (s)"),
        (
          "MAX_GAP_S", .real(FeatureExtractor.maximumGapSeconds),
          "a longer interval starts the grid afresh (s)"
        ),
        ("ALPHA", .real(spec.gravityAlpha), "each gravity low-pass' weight of a new grid sample"),
        ("HYSTERESIS", .real(FeatureExtractor.crossingHysteresis), "crossings count past this (g, rad/s)"),
        ("HALF_WIDTH_S", .real(spec.halfSpanSeconds), "a row's centre is its end minus this (s)"),
        (
          "RUN_BREAK_S", .real(ProbabilityDecoder.runBreakSeconds),
          "more than this between two rows breaks a run toward hold_time (s)"
        ),
        ("SIGNALS", .integer(signals), "signals per grid sample"),
        ("WIDTHS", .integer(widths.count), "window widths"),
        ("CAPACITY", .integer(widths.max()!), "samples of the longest window"),
        (
          "SHORTEST", .integer(spec.firstRowSamples),
          "samples of the shortest window and the span: the first row needs them"
        ),
        ("HOP", .integer(spec.hopSamples), "grid samples between rows"),
        ("BANDS", .integer(bandCount), "frequency bands per signal"),
        ("FEATURES", .integer(spec.names.count), "features per row"),
        (
          "LABELS", .integer(labels),
          "labels, one classifier each (classifiers past them: their sustained ones)"
        ),
        ("QUEUE", .integer(queue), "events one push can end (after an interval of MAX_GAP_S)"),
      ]
        + (spec.swing ? Self.swingConstants(spec) : [])
        + (windowed
          ? [("TRANSFORM", .integer(transform), "the longest window's transform (zero-padded)")] : []),
      types: Self.types + "\n" + tables,
      state: Self.state(windowed: windowed, attitude: spec.attitude, swing: spec.swing),
      initialize: Self.initialize(windowed: windowed, attitude: spec.attitude, swing: spec.swing),
      helpers: Self.helpers(windowed: windowed, attitude: spec.attitude, shape: spec.shape, swing: spec.swing)
        + "\n"
        + Self.trees(
          structure, names: spec.names, tableByDefault: model.treesAsTable,
          stops: ensembles.map { classifier, floor in
            classifier.marginSurelyBelow(floor).map { (limit: $0, most: classifier.mostRemaining) }
          })
        + Self.classify(sustained: sustainedIndex)
        + Self.gridCode(windowed: windowed, attitude: spec.attitude, swing: spec.swing),
      push:
        "return ak_detector_read(s, t, x, y, z, (ak_detector_real)NAN, (ak_detector_real)NAN, (ak_detector_real)NAN, e);",
      pushGyroscope: spec.gyroscope
        ? "s->has_gyroscope = 1;\nreturn ak_detector_read(s, t, x, y, z, gx, gy, gz, e);" : nil,
      next: """
        if (s->queued == 0) return 0;
        *e = s->queue[s->queue_head];
        s->queue_head = (s->queue_head + 1) % AK_DETECTOR_QUEUE;
        s->queued--;
        return 1;
        """,
      finish: """
        int l;
        for (l = 0; l < AK_DETECTOR_LABELS; l++) {
          if (s->decoders[l].is_open) ak_detector_close(&s->decoders[l]);
          ak_detector_release(s, l);
        }
        return ak_detector_next(s, e);
        """,
      notes: [
        windowed
          ? "Features: \(spec.names.count) per row over windows of \(spec.widthsSeconds.map(formatNumber).joined(separator: ", ")) s every \(formatNumber(spec.hopSeconds)) s on a \(formatNumber(spec.rateHz)) Hz grid\(spec.gyroscope ? ", the gyroscope's included (push_gyro)" : "");"
          : "Features: \(spec.names.count) per row every \(formatNumber(spec.hopSeconds)) s from exponential averages of widths \(spec.widthsSeconds.map(formatNumber).joined(separator: ", ")) s (time constants of half of each) kept sample by sample on a \(formatNumber(spec.rateHz)) Hz grid\(spec.gyroscope ? ", the gyroscope's included (push_gyro)" : "");",
        windowed
          ? "\(structure.map(\.trees.count).reduce(0, +)) trees. The state holds the windows: sizeof(ak_detector_state) bytes (about \(Self.stateBytes(signals: signals, capacity: widths.max()!, transform: transform, features: spec.names.count) / 1024) KiB with 8-byte doubles and longs)."
          : "\(structure.map(\.trees.count).reduce(0, +)) trees. The state holds no window, only the averages: sizeof(ak_detector_state) bytes, whatever the widths.",
        "Events are timed to the microsecond, as detect-shakes times a model's.",
      ],
      parameters: zip(model.labels, decoding).flatMap { label, c in
        c.parameterRows.map { (name: "\(label).\($0.name)", value: $0.defaultValue, unit: $0.unit) }
      },
      usesGyroscope: spec.gyroscope)
  }

  /// The window kind's tables: windows, transforms, the bands' bins and the signed signals.
  static func windowTables(_ spec: FeatureSpec) -> String {
    let widths = spec.windowSamples
    let bins = widths.map { spec.bandBins(windowSamples: $0) }
    return """
      /* Each window's samples on the grid and its transform's size. */
      static const int ak_detector_width_samples[AK_DETECTOR_WIDTHS] = {\(list(widths) { "\($0)" })};
      static const int ak_detector_transform_size[AK_DETECTOR_WIDTHS] = {\(list(widths) { "\(FeatureSpec.transformSize($0))" })};
      /* Each band's first and last bin in each window's transform (-1: no bin; one spare column). */
      static const int ak_detector_band_low[AK_DETECTOR_WIDTHS][AK_DETECTOR_BANDS + 1] = {\(list(bins) { "{\(list($0) { "\($0?.lowerBound ?? -1)" }), -1}" })};
      static const int ak_detector_band_high[AK_DETECTOR_WIDTHS][AK_DETECTOR_BANDS + 1] = {\(list(bins) { "{\(list($0) { "\($0?.upperBound ?? -1)" }), -1}" })};
      /* The signals, in the features' order: \(spec.signals.joined(separator: ", ")); 1 for those that swing about zero. */
      static const int ak_detector_signed[AK_DETECTOR_SIGNALS] = {\(list(spec.signals) { FeatureSpec.signedSignals.contains($0) ? "1" : "0" })};
      /* Turns of side are counted modulo this type's range, which a window cannot fill. */
      typedef \(widths.max()! < 65535 ? "unsigned short" : "unsigned long") ak_detector_turns;

      """
  }

  /// The exponential kind's tables: each width's weights and each band's filter.
  static func exponentialTables(_ spec: FeatureSpec) -> String {
    let weights = spec.exponentialWeights
    let filters = spec.bandFilters.map { [$0.b0, $0.b1, $0.b2, $0.a1, $0.a2] } + [[0, 0, 0, 0, 0]]
    return """
      /* Each width's weight of a new grid sample (a time constant of half the width) and 1 minus it. */
      static const ak_detector_real ak_detector_weight[AK_DETECTOR_WIDTHS] = {\(list(weights, real))};
      static const ak_detector_real ak_detector_keep[AK_DETECTOR_WIDTHS] = {\(list(weights.map { 1 - $0 }, real))};
      /* Each band's filter on the grid: b0, b1, b2, a1, a2 (a0 = 1; one spare row). */
      static const ak_detector_real ak_detector_filter[AK_DETECTOR_BANDS + 1][5] = {\(list(filters) { "{\(list($0, real))}" })};

      """
  }

  static func list<T>(_ values: [T], _ text: (T) -> String) -> String {
    values.map(text).joined(separator: ", ")
  }
  static func real(_ v: Double) -> String { "(ak_detector_real)\(DetectorExport.cLiteral(v))" }

  /// What the state takes, roughly (for the header's note).
  static func stateBytes(signals: Int, capacity: Int, transform: Int, features: Int) -> Int {
    signals * 2 * capacity * (8 + 1 + 1 + 2) + signals * capacity * 8 + 2 * capacity * 8 + 4 * transform * 8
      + features * 12
  }

  static let types = """
    /* A decoded event while it is open or waits for the merge gap to pass. */
    typedef struct {
      ak_detector_real start, end;
      long windows;
    } ak_detector_decoded;

    /* One label's decoder: the event open, the one waiting, the run of rows as likely as hold, the
       stretch of rows as likely as extend with where the open and the waiting event reach back to,
       and q's average with the row it was last updated at. */
    typedef struct {
      int is_open, has_open_reported, is_pending, has_pending_reported, has_run;
      int has_reach, has_open_earliest, has_pending_earliest, has_average;
      ak_detector_decoded open, pending, run;
      ak_detector_real open_reported, pending_reported;
      ak_detector_real reach_start, reach_last, open_earliest, pending_earliest;
      ak_detector_real average, average_last;
    } ak_detector_decoder;

    """

  static func state(windowed: Bool, attitude: Bool, swing: Bool) -> String {
    """
    /* A row (the trees read it as floats: in float precision the row itself), first in the state
       so that the trees reach it with short offsets on a microcontroller. */
    ak_detector_real row[AK_DETECTOR_FEATURES];
    #if !AK_DETECTOR_REAL_IS_FLOAT
    float features[AK_DETECTOR_FEATURES];
    #endif
    /* The grid: its origin, the next point's index, the previous reading (t, x, y, z, gx, gy, gz). */
    int has_origin, has_gyroscope;
    ak_detector_real origin;
    long next_index;
    ak_detector_real previous[7];
    /* Gravity: two cascaded one-pole low-passes. */
    int gravity_started;
    ak_detector_real g1[3], g2[3];
    \(windowed ? windowState : exponentialState)\(attitude ? attitudeState : "")\(swing ? swingState : "")
    /* The decoders, and the events ended but not yet handed out. */
    ak_detector_decoder decoders[AK_DETECTOR_LABELS];
    ak_detector_event queue[AK_DETECTOR_QUEUE];
    int queue_head, queued;
    """
  }

  static let windowState = """
    /* The last CAPACITY values of every signal, each written twice (at head and head + CAPACITY)
       so that a window is one run; whether a value is a local maximum; the signed signals' side of
       zero (-1, 0, 1) and the turns of side so far (modulo the count type's range). */
    ak_detector_real ring[AK_DETECTOR_SIGNALS][2 * AK_DETECTOR_CAPACITY];
    unsigned char peaks[AK_DETECTOR_SIGNALS][2 * AK_DETECTOR_CAPACITY];
    signed char sides[AK_DETECTOR_SIGNALS][2 * AK_DETECTOR_CAPACITY];
    ak_detector_turns turns[AK_DETECTOR_SIGNALS][2 * AK_DETECTOR_CAPACITY];
    int last_side[AK_DETECTOR_SIGNALS];
    unsigned long turn_count[AK_DETECTOR_SIGNALS];
    int head, filled, since_row;
    long rows_in_segment;
    /* Scratch space for a row. */
    ak_detector_real taper[AK_DETECTOR_SIGNALS][AK_DETECTOR_CAPACITY];
    ak_detector_real hann[AK_DETECTOR_WIDTHS][AK_DETECTOR_CAPACITY];
    int hann_length[AK_DETECTOR_WIDTHS];
    int spectral_slot[AK_DETECTOR_SIGNALS];
    ak_detector_real twiddle[AK_DETECTOR_TRANSFORM]; /* cos and sin of -2 pi k / TRANSFORM, k < TRANSFORM / 2 */
    ak_detector_real buffer[2 * AK_DETECTOR_TRANSFORM];
    ak_detector_real powers[AK_DETECTOR_TRANSFORM + 2];
    """

  static let exponentialState = """
    /* Per signal and width: the exponential mean, variance, energy, envelope, crossing rate, maximum,
       minimum and energy of the steps, the last side of the mean (-1, 0, 1); each band's power; per signal and band the filter's delays;
       per width the axes' covariances (xy, xz, yz) and, while a sample is read, their deviations. */
    ak_detector_real mean[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS], variance[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS];
    ak_detector_real energy[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS], envelope[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS];
    ak_detector_real crossing[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS];
    ak_detector_real maximum[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS], minimum[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS];
    ak_detector_real jerk[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS], last_value[AK_DETECTOR_SIGNALS];
    signed char side[AK_DETECTOR_SIGNALS][AK_DETECTOR_WIDTHS];
    ak_detector_real power[AK_DETECTOR_SIGNALS][AK_DETECTOR_BANDS + 1][AK_DETECTOR_WIDTHS];
    ak_detector_real delay[AK_DETECTOR_SIGNALS][AK_DETECTOR_BANDS + 1][2];
    ak_detector_real covariance[AK_DETECTOR_WIDTHS][3], deviation[AK_DETECTOR_WIDTHS][3];
    int filled, since_row;
    long rows_in_segment;
    """

  static let swingState = """
    /* The swing features: u's covariance (xx, yy, zz, xy, xz, yz) and principal axis, the last
       sign of s and the half-swing's direction, the segment's grid samples, the last zero
       crossing and the half-swing's start (in samples), its peak; per width the counted
       half-swings' rate and their peaks up and down. */
    ak_detector_real swing_cov[6], swing_axis[3], swing_peak;
    int swing_sign, swing_direction;
    long swing_sample, swing_zero, swing_start;
    ak_detector_real swing_rate[AK_DETECTOR_WIDTHS], swing_up[AK_DETECTOR_WIDTHS], swing_down[AK_DETECTOR_WIDTHS];

    """

  /// The swing features' constants: the axis' weight and the swing rule's defaults.
  static func swingConstants(_ spec: FeatureSpec) -> [(String, CConstant, String)] {
    [
      ("SWING_B", .real(spec.swingAxisWeight), "the swing axis' covariance's weight"),
      ("SWING_HYSTERESIS_G", .real(FeatureSpec.swingHysteresisG), "a half-swing turns past this (g)"),
      ("SWING_G", .real(FeatureSpec.swingG), "a half-swing counts when its peak reaches this (g)"),
      (
        "SWING_SHORTEST", .integer(spec.swingSampleBounds.shortest),
        "a counted half-swing lasts at least this many grid samples"
      ),
      ("SWING_LONGEST", .integer(spec.swingSampleBounds.longest), "and at most this many"),
    ]
  }

  /// The swing features' update (SwingFeatureState's, in its order) and their start.
  static let swingCode = """
    /* The swing features from the start: everything at 0, the axis at x. */
    static inline void ak_detector_swing_start(ak_detector_state *s) {
      int i;
      for (i = 0; i < 6; i++) s->swing_cov[i] = 0;
      s->swing_axis[0] = 1;
      s->swing_axis[1] = s->swing_axis[2] = 0;
      s->swing_sign = s->swing_direction = 0;
      s->swing_sample = s->swing_zero = s->swing_start = 0;
      s->swing_peak = 0;
      for (i = 0; i < AK_DETECTOR_WIDTHS; i++) s->swing_rate[i] = s->swing_up[i] = s->swing_down[i] = 0;
    }

    /* One grid sample's user acceleration into the swing features: the covariance and its
       principal axis, s on it, its half-swings, and each width's averages of the counted ones. */
    static inline void ak_detector_swing(ak_detector_state *s, ak_detector_real ux, ak_detector_real uy,
                                         ak_detector_real uz, int first) {
      ak_detector_real v0, v1, v2, value, r, up, down;
      int i, sign, now, counted = 0;
      ak_detector_real peak = 0;
      if (first) ak_detector_swing_start(s);
      ak_detector_principal_axis(s->swing_cov, s->swing_axis, ux, uy, uz, AK_DETECTOR_SWING_B);
      v0 = s->swing_axis[0];
      v1 = s->swing_axis[1];
      v2 = s->swing_axis[2];
      value = ux * v0 + uy * v1 + uz * v2;
      sign = (value > 0) - (value < 0);
      if (sign != 0 && sign != s->swing_sign) {
        if (s->swing_sign != 0) s->swing_zero = s->swing_sample;
        s->swing_sign = sign;
      }
      now = (value > AK_DETECTOR_SWING_HYSTERESIS_G) - (value < -AK_DETECTOR_SWING_HYSTERESIS_G);
      if (now != 0 && now != s->swing_direction) {
        if (s->swing_direction != 0 && s->swing_peak >= AK_DETECTOR_SWING_G &&
            s->swing_zero - s->swing_start >= AK_DETECTOR_SWING_SHORTEST &&
            s->swing_zero - s->swing_start <= AK_DETECTOR_SWING_LONGEST) {
          counted = s->swing_direction;
          peak = s->swing_peak;
        }
        s->swing_direction = now;
        s->swing_start = s->swing_zero;
        s->swing_peak = 0;
      }
      if (s->swing_direction != 0) {
        s->swing_peak = AK_DETECTOR_MAX(s->swing_peak, AK_DETECTOR_FABS(value));
        if (s->swing_sample - s->swing_start > AK_DETECTOR_SWING_LONGEST) s->swing_direction = 0;
      }
      r = counted != 0 ? AK_DETECTOR_RATE_HZ : 0;
      up = counted > 0 ? peak : 0;
      down = counted < 0 ? peak : 0;
      for (i = 0; i < AK_DETECTOR_WIDTHS; i++) {
        ak_detector_real a = ak_detector_weight[i];
        s->swing_rate[i] += a * (r - s->swing_rate[i]);
        s->swing_up[i] += a * (up - s->swing_up[i]);
        s->swing_down[i] += a * (down - s->swing_down[i]);
      }
      s->swing_sample += 1;
    }

    """

  /// Each width's swing features: the rate and the balance of the peaks up and down.
  static let swingRow = """
        /* The swing features: counted half-swings a second, and the balance of their peaks. */
        {
          ak_detector_real larger = AK_DETECTOR_MAX(s->swing_up[i], s->swing_down[i]);
          s->row[k++] = s->swing_rate[i];
          s->row[k++] = larger > (ak_detector_real)1e-12 ? AK_DETECTOR_MIN(s->swing_up[i], s->swing_down[i]) / larger : 0;
        }

    """

  static let attitudeState = """
    /* Per width the averages of the reading's direction (x, y, z) and of gravity's. */
    ak_detector_real direction[AK_DETECTOR_WIDTHS][6];

    """

  static func initialize(windowed: Bool, attitude: Bool, swing: Bool) -> String {
    """
    int i, j;
    s->has_origin = 0;
    s->has_gyroscope = 0;
    s->origin = 0;
    s->next_index = 0;
    for (i = 0; i < 7; i++) s->previous[i] = 0;
    s->gravity_started = 0;
    for (i = 0; i < 3; i++) s->g1[i] = s->g2[i] = 0;
    s->filled = s->since_row = 0;
    s->rows_in_segment = 0;
    for (i = 0; i < AK_DETECTOR_FEATURES; i++) {
      s->row[i] = 0;
    #if !AK_DETECTOR_REAL_IS_FLOAT
      s->features[i] = 0;
    #endif
    }
    \(windowed ? windowInitialize : exponentialInitialize)\(attitude ? "\nfor (i = 0; i < AK_DETECTOR_WIDTHS; i++)\n  for (j = 0; j < 6; j++) s->direction[i][j] = 0;" : "")\(swing ? "\nak_detector_swing_start(s);" : "")
    for (i = 0; i < AK_DETECTOR_LABELS; i++) {
      s->decoders[i].is_open = s->decoders[i].has_open_reported = 0;
      s->decoders[i].is_pending = s->decoders[i].has_pending_reported = 0;
      s->decoders[i].open.start = s->decoders[i].open.end = 0;
      s->decoders[i].open.windows = 0;
      s->decoders[i].pending = s->decoders[i].run = s->decoders[i].open;
      s->decoders[i].has_run = 0;
      s->decoders[i].open_reported = s->decoders[i].pending_reported = 0;
      s->decoders[i].has_reach = s->decoders[i].has_open_earliest = s->decoders[i].has_pending_earliest = 0;
      s->decoders[i].reach_start = s->decoders[i].reach_last = 0;
      s->decoders[i].open_earliest = s->decoders[i].pending_earliest = 0;
      s->decoders[i].has_average = 0;
      s->decoders[i].average = s->decoders[i].average_last = 0;
    }
    s->queue_head = s->queued = 0;
    """
  }

  static let windowInitialize = """
    for (i = 0; i < AK_DETECTOR_SIGNALS; i++) {
      for (j = 0; j < 2 * AK_DETECTOR_CAPACITY; j++) {
        s->ring[i][j] = 0;
        s->peaks[i][j] = 0;
        s->sides[i][j] = 0;
        s->turns[i][j] = 0;
      }
      for (j = 0; j < AK_DETECTOR_CAPACITY; j++) s->taper[i][j] = 0;
      s->last_side[i] = 0;
      s->turn_count[i] = 0;
      s->spectral_slot[i] = -1;
    }
    s->head = 0;
    for (i = 0; i < AK_DETECTOR_WIDTHS; i++) s->hann_length[i] = 0;
    for (i = 0; i < AK_DETECTOR_TRANSFORM / 2; i++) {
      ak_detector_real angle = -2 * (ak_detector_real)3.141592653589793 * (ak_detector_real)i / (ak_detector_real)AK_DETECTOR_TRANSFORM;
      s->twiddle[2 * i] = AK_DETECTOR_COS(angle);
      s->twiddle[2 * i + 1] = AK_DETECTOR_SIN(angle);
    }
    """

  /// The exponential state is set at a segment's first sample; zeros until then.
  static let exponentialInitialize = """
    for (i = 0; i < AK_DETECTOR_SIGNALS; i++) {
      for (j = 0; j < AK_DETECTOR_WIDTHS; j++) {
        int b;
        s->mean[i][j] = s->variance[i][j] = s->energy[i][j] = s->envelope[i][j] = s->crossing[i][j] = 0;
        s->maximum[i][j] = s->minimum[i][j] = s->jerk[i][j] = 0;
        s->side[i][j] = 0;
        for (b = 0; b < AK_DETECTOR_BANDS + 1; b++) s->power[i][b][j] = 0;
      }
      for (j = 0; j < AK_DETECTOR_BANDS + 1; j++) s->delay[i][j][0] = s->delay[i][j][1] = 0;
      s->last_value[i] = 0;
    }
    for (i = 0; i < AK_DETECTOR_WIDTHS; i++)
      for (j = 0; j < 3; j++) s->covariance[i][j] = s->deviation[i][j] = 0;
    """

  /// The helpers: the decoder, the features' code (windows or exponential averages) and the row.
  static func helpers(windowed: Bool, attitude: Bool, shape: Bool, swing: Bool) -> String {
    decodingHelpers + (windowed ? windowFeatures : "") + jointHelpers
      + (swing ? PrincipalAxisC.helper + swingCode : "")
      + (windowed ? windowRow : exponentialRow(attitude: attitude, shape: shape, swing: swing))
  }

  static let decodingHelpers = """
    /* A time to the microsecond. */
    static inline ak_detector_real ak_detector_microseconds(ak_detector_real t) {
      return AK_DETECTOR_FABS(t) < (ak_detector_real)1e12 ? AK_DETECTOR_ROUND(t * (ak_detector_real)1e6) / (ak_detector_real)1e6 : t;
    }

    /* Hands an ended event to the queue (the oldest is dropped when next was not called). */
    static inline void ak_detector_enqueue(ak_detector_state *s, int label, const ak_detector_decoded *d,
                                           ak_detector_real reported, int cancelled) {
      ak_detector_event *e;
      if (s->queued == AK_DETECTOR_QUEUE) {
        s->queue_head = (s->queue_head + 1) % AK_DETECTOR_QUEUE;
        s->queued--;
      }
      e = &s->queue[(s->queue_head + s->queued) % AK_DETECTOR_QUEUE];
      s->queued++;
      ak_detector_set_event(e, ak_detector_microseconds(d->start), ak_detector_microseconds(d->end),
                            ak_detector_microseconds(reported), 0, 0, d->windows, 0, ak_detector_labels[label], cancelled);
    }

    /* The decoder, given a row's probability p and its sustained classifier's q (p when the label
       has none): an event begins at a row where p reaches on or q sustained_on (or, with hold_time
       above 0, at the first of rows whose q stayed as likely as hold for hold_time, a gap over
       RUN_BREAK_S apart breaking them), goes on while p stays as likely as off or q as
       sustained_off (or, once it is min_duration long, while either stays as likely as extend),
       continues one that ended within merge_gap, and is reported once it is min_duration long.
       With extend below 1, a reported event starts where the rows leading up to it without a
       break first stayed as likely as extend, and a waiting event waits while such a stretch that
       began within its merge gap goes on. With smooth_time above 0, an event also begins where q's
       exponential average over that time constant (afresh after a gap over RUN_BREAK_S) reaches
       smoothed_on. */
    static inline void ak_detector_note_reported(ak_detector_decoder *d, int l, ak_detector_real end) {
      if (d->has_open_reported || !d->is_open || !(d->open.end - d->open.start >= ak_detector_min_duration[l])) return;
      d->open_reported = end;
      d->has_open_reported = 1;
    }

    static inline void ak_detector_close(ak_detector_decoder *d) {
      d->is_open = 0;
      d->pending = d->open;
      d->is_pending = 1;
      d->pending_reported = d->open_reported;
      d->has_pending_reported = d->has_open_reported;
      d->has_open_reported = 0;
      d->pending_earliest = d->open_earliest;
      d->has_pending_earliest = d->has_open_earliest;
      d->has_open_earliest = 0;
    }

    static inline void ak_detector_release(ak_detector_state *s, int l) {
      ak_detector_decoder *d = &s->decoders[l];
      int reported = d->has_pending_reported, reaches = d->has_pending_earliest;
      if (!d->is_pending) return;
      d->is_pending = 0;
      d->has_pending_reported = 0;
      d->has_pending_earliest = 0;
      if (!reported || !(d->pending.end - d->pending.start >= ak_detector_min_duration[l])) return;
      if (reaches && d->pending_earliest < d->pending.start) d->pending.start = d->pending_earliest;
      ak_detector_enqueue(s, l, &d->pending, d->pending_reported,
                          d->pending.end - d->pending.start > ak_detector_max_duration[l]);
    }

    static inline void ak_detector_decode(ak_detector_state *s, int l, ak_detector_real center, ak_detector_real end,
                                          ak_detector_real p, ak_detector_real q) {
      ak_detector_decoder *d = &s->decoders[l];
      int held, fresh = 0, averaged = 0;
      if (ak_detector_smooth_time[l] > 0) {
        ak_detector_real m = q;
        if (d->has_average && center - d->average_last <= AK_DETECTOR_RUN_BREAK_S)
          m = d->average +
              (1 - AK_DETECTOR_EXP(-(center - d->average_last) / ak_detector_smooth_time[l])) * (q - d->average);
        d->average = m;
        d->average_last = center;
        d->has_average = 1;
        averaged = m >= ak_detector_smoothed_on[l];
      }
      if (ak_detector_extend[l] < 1) {
        if (p >= ak_detector_extend[l] || q >= ak_detector_extend[l]) {
          if (d->has_reach && center - d->reach_last <= AK_DETECTOR_RUN_BREAK_S) {
            d->reach_last = center;
          } else {
            d->reach_start = d->reach_last = center;
            d->has_reach = 1;
          }
        } else {
          d->has_reach = 0;
        }
      }
      if (ak_detector_hold_time[l] > 0) {
        if (q >= ak_detector_hold[l]) {
          if (d->has_run && center - d->run.end <= AK_DETECTOR_RUN_BREAK_S) {
            d->run.end = center;
            d->run.windows += 1;
          } else {
            d->run.start = d->run.end = center;
            d->run.windows = 1;
            d->has_run = 1;
          }
        } else {
          d->has_run = 0;
        }
      }
      if (d->is_open) {
        if (p >= ak_detector_off[l] || q >= ak_detector_sustained_off[l] ||
            (d->has_open_reported && (p >= ak_detector_extend[l] || q >= ak_detector_extend[l]))) {
          d->open.end = center;
          d->open.windows += 1;
          ak_detector_note_reported(d, l, end);
          return;
        }
        ak_detector_close(d);
      }
      /* A run, or a stretch as likely as extend, that began within the merge gap may still begin an
         event that continues the pending one: it waits. */
      if (d->is_pending && center - d->pending.end > ak_detector_merge_gap[l] &&
          !(d->has_run && d->run.start - d->pending.end <= ak_detector_merge_gap[l]) &&
          !(d->has_reach && d->reach_start - d->pending.end <= ak_detector_merge_gap[l]))
        ak_detector_release(s, l);
      /* A run (kept only with hold_time) that held long enough begins at its first row. */
      held = d->has_run && center - d->run.start >= ak_detector_hold_time[l];
      if (held || p >= ak_detector_on[l] || q >= ak_detector_sustained_on[l] || averaged) {
        if (d->is_pending) {
          d->open = d->pending;
          d->open.windows += held ? d->run.windows : 1;
          d->open_reported = d->pending_reported;
          d->has_open_reported = d->has_pending_reported;
          d->open_earliest = d->pending_earliest;
          d->has_open_earliest = d->has_pending_earliest;
          d->is_pending = 0;
          d->has_pending_reported = 0;
          d->has_pending_earliest = 0;
        } else if (held) {
          d->open = d->run;
          d->has_open_reported = 0;
          fresh = 1;
        } else {
          d->open.start = center;
          d->open.windows = 1;
          d->has_open_reported = 0;
          fresh = 1;
        }
        if (fresh) {
          d->has_open_earliest = d->has_reach;
          d->open_earliest = d->has_reach && d->reach_start < d->open.start ? d->reach_start : d->open.start;
        }
        d->open.end = center;
        d->is_open = 1;
        ak_detector_note_reported(d, l, end);
      }
    }

    """

  static let windowFeatures = """
    /* How often x[0..n) crosses level: a sample's side is 1 above level + HYSTERESIS, -1 below
       level - HYSTERESIS, 0 between; a crossing is a side opposite to the last nonzero one. */
    static inline long ak_detector_crossings(const ak_detector_real *x, int n, ak_detector_real level) {
      long count = 0;
      int last = 0, j, side;
      for (j = 0; j < n; j++) {
        ak_detector_real d = x[j] - level;
        side = d > AK_DETECTOR_HYSTERESIS ? 1 : d < -AK_DETECTOR_HYSTERESIS ? -1 : 0;
        if (side != 0) {
          if (last != 0 && side != last) count++;
          last = side;
        }
      }
      return count;
    }

    /* The zero crossings of signal sig in the window of n samples from first: the turns after its
       first sample off zero. */
    static inline long ak_detector_zero_crossings(const ak_detector_state *s, int sig, int first, int n) {
      int last = first + n - 1;
      if (s->turns[sig][last] == s->turns[sig][first]) return 0;
      while (s->sides[sig][first] == 0) first++;
      /* Counts kept modulo the type's range, which is wider than a window: the difference is exact. */
      return (long)(ak_detector_turns)(s->turns[sig][last] - s->turns[sig][first]);
    }

    /* One signal's statistics over its window (n samples from first), from row index k; leaves the
       window mean-removed and tapered in taper. Sums run in four lanes (sample j in lane j mod 4,
       the lanes added as (0 + 1) + (2 + 3)), as the Swift extractor sums. */
    static inline int ak_detector_signal_statistics(ak_detector_state *s, int sig, int first, int n, long zero_crossings,
                                                    int wi, int k) {
      const ak_detector_real *x = &s->ring[sig][first];
      const unsigned char *is_peak = &s->peaks[sig][first];
      const ak_detector_real *hann = s->hann[wi];
      ak_detector_real *taper = s->taper[sig];
      ak_detector_real sums[4] = {0, 0, 0, 0}, squares[4] = {0, 0, 0, 0}, m2s[4] = {0, 0, 0, 0}, m3s[4] = {0, 0, 0, 0};
      ak_detector_real lows[4], highs[4];
      ak_detector_real seconds = (ak_detector_real)n / AK_DETECTOR_RATE_HZ;
      ak_detector_real low, high, sum, square_sum, mean, m2, m3, variance, sd, skewness, floor_value;
      long peaks = 0;
      int j;
      for (j = 0; j < 4; j++) {
        lows[j] = (ak_detector_real)HUGE_VAL;
        highs[j] = -(ak_detector_real)HUGE_VAL;
      }
      for (j = 0; j < n; j++) {
        ak_detector_real v = x[j];
        sums[j & 3] += v;
        squares[j & 3] += v * v;
        if (v < lows[j & 3]) lows[j & 3] = v;
        if (v > highs[j & 3]) highs[j & 3] = v;
      }
      low = AK_DETECTOR_MIN(AK_DETECTOR_MIN(lows[0], lows[1]), AK_DETECTOR_MIN(lows[2], lows[3]));
      high = AK_DETECTOR_MAX(AK_DETECTOR_MAX(highs[0], highs[1]), AK_DETECTOR_MAX(highs[2], highs[3]));
      sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
      square_sum = (squares[0] + squares[1]) + (squares[2] + squares[3]);
      mean = sum / (ak_detector_real)n;
      for (j = 0; j < n; j++) {
        ak_detector_real d = x[j] - mean, d2 = d * d;
        taper[j] = hann[j] * d;
        m2s[j & 3] += d2;
        m3s[j & 3] += d2 * d;
      }
      m2 = (m2s[0] + m2s[1]) + (m2s[2] + m2s[3]);
      m3 = (m3s[0] + m3s[1]) + (m3s[2] + m3s[3]);
      variance = m2 / (ak_detector_real)n;
      sd = AK_DETECTOR_SQRT(variance);
      skewness = variance > (ak_detector_real)1e-12 ? (m3 / (ak_detector_real)n) / (variance * sd) : 0;
      /* A window whose standard deviation is under 1e-6 is constant: what is left after the mean
         is rounding (float's and double's differ); it has no spectrum and no peaks. */
      if (!(variance > (ak_detector_real)1e-12)) {
        for (j = 0; j < n; j++) taper[j] = 0;
      } else {
        /* Peaks: local maxima above mean + sd / 2, the window's ends excluded. */
        floor_value = mean + (ak_detector_real)0.5 * sd;
        for (j = 1; j < n - 1; j++) peaks += is_peak[j] && x[j] > floor_value ? 1 : 0;
      }
      s->row[k] = mean;
      s->row[k + 1] = variance;
      s->row[k + 2] = low;
      s->row[k + 3] = high;
      s->row[k + 4] = high - low;
      s->row[k + 5] = square_sum / (ak_detector_real)n;
      s->row[k + 6] = (ak_detector_real)ak_detector_crossings(x, n, mean) / seconds;
      s->row[k + 7] = (ak_detector_real)peaks / seconds;
      s->row[k + 8] = skewness;
      k += 9;
      if (ak_detector_signed[sig]) {
        s->row[k] = (ak_detector_real)zero_crossings / seconds;
        k += 1;
      }
      return k;
    }

    /* An in-place radix-2 FFT of the size complex values in buffer (a power of two). */
    static inline void ak_detector_fft(ak_detector_state *s, int size) {
      ak_detector_real *z = s->buffer;
      int i, j = 0, bit, length, k;
      for (i = 1; i < size; i++) {
        for (bit = size >> 1; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
          ak_detector_real re = z[2 * i], im = z[2 * i + 1];
          z[2 * i] = z[2 * j];
          z[2 * i + 1] = z[2 * j + 1];
          z[2 * j] = re;
          z[2 * j + 1] = im;
        }
      }
      for (length = 2; length <= size; length <<= 1) {
        int half = length >> 1, stride = AK_DETECTOR_TRANSFORM / length;
        for (k = 0; k < half; k++) {
          ak_detector_real wr = s->twiddle[2 * k * stride], wi = s->twiddle[2 * k * stride + 1];
          for (i = k; i < size; i += length) {
            ak_detector_real *a = z + 2 * i, *b = z + 2 * (i + half);
            ak_detector_real tr = b[0] * wr - b[1] * wi, ti = b[0] * wi + b[1] * wr;
            b[0] = a[0] - tr;
            b[1] = a[1] - ti;
            a[0] += tr;
            a[1] += ti;
          }
        }
      }
    }

    /* The dominant frequency, its share and the bands' shares of signals a and b (b < 0: none),
       from their tapered windows: one complex transform of a + ib, split into two power spectra. */
    static inline void ak_detector_spectra(ak_detector_state *s, int a, int b, int n, int wi) {
      int size = ak_detector_transform_size[wi], bins = size / 2 + 1, whole = bins & ~1, j, c, bin, band;
      ak_detector_real resolution = AK_DETECTOR_RATE_HZ / (ak_detector_real)size;
      ak_detector_real *p = s->powers;
      for (j = 0; j < n; j++) {
        s->buffer[2 * j] = s->taper[a][j];
        s->buffer[2 * j + 1] = b >= 0 ? s->taper[b][j] : 0;
      }
      for (j = 2 * n; j < 2 * size; j++) s->buffer[j] = 0;
      ak_detector_fft(s, size);
      for (j = 0; j < bins; j++) {
        int m = (size - j) & (size - 1);
        const ak_detector_real *z = s->buffer;
        ak_detector_real sr = z[2 * j] + z[2 * m], si = z[2 * j + 1] + z[2 * m + 1];
        ak_detector_real dr = z[2 * j] - z[2 * m], di = z[2 * j + 1] - z[2 * m + 1];
        p[2 * j] = (ak_detector_real)0.25 * (sr * sr + di * di);
        p[2 * j + 1] = (ak_detector_real)0.25 * (dr * dr + si * si);
      }
      p[0] = p[1] = 0;
      for (c = 0; c < 2; c++) {
        int slot = c == 0 ? s->spectral_slot[a] : b >= 0 ? s->spectral_slot[b] : -1;
        ak_detector_real even = 0, odd = 0, total, best = -1;
        int at = 0;
        if (slot < 0) continue;
        /* Totals in two lanes (even and odd bins, then the last); the first bin of the most power. */
        for (bin = 0; bin < whole; bin += 2) {
          even += p[2 * bin + c];
          odd += p[2 * bin + 2 + c];
        }
        total = even + odd;
        if (whole < bins) total += p[2 * whole + c];
        for (bin = 0; bin < bins; bin++)
          if (p[2 * bin + c] > best) {
            best = p[2 * bin + c];
            at = bin;
          }
        /* A constant window (variance at most 1e-12) has no spectrum: what a transform shared with
           another signal leaves in it is that signal's rounding (larger in float than in double). */
        if (!(total > (ak_detector_real)1e-18) || !(s->row[slot - 8 - ak_detector_signed[c == 0 ? a : b]] > (ak_detector_real)1e-12)) {
          for (j = 0; j < 2 + AK_DETECTOR_BANDS; j++) s->row[slot + j] = 0;
          continue;
        }
        s->row[slot] = (ak_detector_real)at * resolution;
        s->row[slot + 1] = best / total;
        for (band = 0; band < AK_DETECTOR_BANDS; band++) {
          int low = ak_detector_band_low[wi][band], high = ak_detector_band_high[wi][band];
          ak_detector_real first = 0, second = 0;
          if (low >= 0) {
            for (bin = low; bin < high; bin += 2) {
              first += p[2 * bin + c];
              second += p[2 * bin + 2 + c];
            }
            if (bin == high) first += p[2 * high + c];
          }
          s->row[slot + 2 + band] = (first + second) / total;
        }
      }
    }

    """

  static let jointHelpers = """
    /* The largest eigenvalue of a symmetric 3x3 matrix (xx, yy, zz, xy, xz, yz). */
    static inline ak_detector_real ak_detector_largest_eigenvalue(const ak_detector_real *c) {
      ak_detector_real p1 = c[3] * c[3] + c[4] * c[4] + c[5] * c[5];
      ak_detector_real q = (c[0] + c[1] + c[2]) / 3, p2, p, b[6], det, r, s, y, inverse;
      int i;
      if (p1 < (ak_detector_real)1e-300) return AK_DETECTOR_MAX(AK_DETECTOR_MAX(c[0], c[1]), c[2]);
      p2 = (c[0] - q) * (c[0] - q) + (c[1] - q) * (c[1] - q) + (c[2] - q) * (c[2] - q) + 2 * p1;
      p = AK_DETECTOR_SQRT(p2 / 6);
      if (!(p > 0)) return q;
      inverse = 1 / p;
      b[0] = (c[0] - q) * inverse;
      b[1] = (c[1] - q) * inverse;
      b[2] = (c[2] - q) * inverse;
      b[3] = c[3] * inverse;
      b[4] = c[4] * inverse;
      b[5] = c[5] * inverse;
      det = b[0] * (b[1] * b[2] - b[5] * b[5]) - b[3] * (b[3] * b[2] - b[5] * b[4]) + b[4] * (b[3] * b[5] - b[1] * b[4]);
      r = AK_DETECTOR_MAX(-1, AK_DETECTOR_MIN(1, det / 2));
      /* cos(acos(r) / 3) without a trigonometric function: 1/2 + s y with s = sqrt(1 + r) and y the
         simple root of 4 s y^3 + 6 y^2 - 1, two Halley steps from a line (docs/LEARNING.md). */
      s = AK_DETECTOR_SQRT(1 + r);
      y = (ak_detector_real)0.40224 - (ak_detector_real)0.035484 * s;
      for (i = 0; i < 2; i++) {
        ak_detector_real y2 = y * y, k = 4 * s * y2 * y + 6 * y2 - 1, k1 = 12 * s * y2 + 12 * y, k2 = 24 * s * y + 12;
        y = y - 2 * k * k1 / (2 * k1 * k1 - k * k2);
      }
      return q + 2 * p * ((ak_detector_real)0.5 + s * y);
    }

    static inline ak_detector_real ak_detector_correlation(ak_detector_real cov, ak_detector_real a, ak_detector_real b) {
      return a > (ak_detector_real)1e-12 && b > (ak_detector_real)1e-12
                 ? AK_DETECTOR_MAX(-1, AK_DETECTOR_MIN(1, cov / AK_DETECTOR_SQRT(a * b)))
                 : 0;
    }

    /* The correlations between the axes, the linearity and the principal direction's size from the
       covariance c (xx, yy, zz, xy, xz, yz), into the row from k. */
    static inline int ak_detector_write_joint(ak_detector_state *s, const ak_detector_real *c, int k) {
      ak_detector_real largest, trace;
      s->row[k] = ak_detector_correlation(c[3], c[0], c[1]);
      s->row[k + 1] = ak_detector_correlation(c[4], c[0], c[2]);
      s->row[k + 2] = ak_detector_correlation(c[5], c[1], c[2]);
      largest = ak_detector_largest_eigenvalue(c);
      trace = c[0] + c[1] + c[2];
      s->row[k + 3] = trace > (ak_detector_real)1e-12 ? AK_DETECTOR_MIN(1, largest / trace) : (ak_detector_real)1.0 / (ak_detector_real)3.0;
      s->row[k + 4] = AK_DETECTOR_SQRT(AK_DETECTOR_MAX(0, largest));
      return k + 5;
    }

    """

  static let windowRow = """
    /* Correlations between the axes of u, and how much of u lies along one direction. */
    static inline int ak_detector_joint(ak_detector_state *s, int first, int n, const int *axes, int k) {
      const ak_detector_real *x = &s->ring[0][first], *y = &s->ring[1][first], *z = &s->ring[2][first];
      ak_detector_real mx = s->row[axes[0]], my = s->row[axes[1]], mz = s->row[axes[2]];
      ak_detector_real xy[4] = {0, 0, 0, 0}, xz[4] = {0, 0, 0, 0}, yz[4] = {0, 0, 0, 0}, c[6];
      int j;
      for (j = 0; j < n; j++) {
        ak_detector_real dx = x[j] - mx, dy = y[j] - my, dz = z[j] - mz;
        xy[j & 3] += dx * dy;
        xz[j & 3] += dx * dz;
        yz[j & 3] += dy * dz;
      }
      c[0] = s->row[axes[0] + 1];
      c[1] = s->row[axes[1] + 1];
      c[2] = s->row[axes[2] + 1];
      c[3] = ((xy[0] + xy[1]) + (xy[2] + xy[3])) / (ak_detector_real)n;
      c[4] = ((xz[0] + xz[1]) + (xz[2] + xz[3])) / (ak_detector_real)n;
      c[5] = ((yz[0] + yz[1]) + (yz[2] + yz[3])) / (ak_detector_real)n;
      return ak_detector_write_joint(s, c, k);
    }

    /* The row's features, every width in turn. */
    static inline void ak_detector_compute_row(ak_detector_state *s) {
      int k = 0, wi, sig, j, pending;
      for (wi = 0; wi < AK_DETECTOR_WIDTHS; wi++) {
        int n = ak_detector_width_samples[wi] < s->filled ? ak_detector_width_samples[wi] : s->filled;
        int first = s->head + AK_DETECTOR_CAPACITY - n, axes[3] = {0, 0, 0};
        if (s->hann_length[wi] != n) {
          for (j = 0; j < n; j++)
            s->hann[wi][j] = n > 1 ? (ak_detector_real)0.5 - (ak_detector_real)0.5 * AK_DETECTOR_COS(2 * (ak_detector_real)3.141592653589793 * (ak_detector_real)j / (ak_detector_real)(n - 1)) : 1;
          s->hann_length[wi] = n;
        }
        for (sig = 0; sig < AK_DETECTOR_SIGNALS; sig++) {
          if (sig >= 6 && !s->has_gyroscope) {
            int count = 9 + ak_detector_signed[sig] + 2 + AK_DETECTOR_BANDS;
            for (j = 0; j < count; j++) s->row[k + j] = (ak_detector_real)NAN;
            k += count;
            s->spectral_slot[sig] = -1;
            continue;
          }
          if (sig < 3) axes[sig] = k;
          k = ak_detector_signal_statistics(s, sig, first, n, ak_detector_signed[sig] ? ak_detector_zero_crossings(s, sig, first, n) : 0, wi, k);
          s->spectral_slot[sig] = k;
          k += 2 + AK_DETECTOR_BANDS;
        }
        /* The spectra, two signals to a transform. */
        pending = -1;
        for (sig = 0; sig < AK_DETECTOR_SIGNALS; sig++) {
          if (s->spectral_slot[sig] < 0) continue;
          if (pending < 0) {
            pending = sig;
          } else {
            ak_detector_spectra(s, pending, sig, n, wi);
            pending = -1;
          }
        }
        if (pending >= 0) ak_detector_spectra(s, pending, -1, n, wi);
        k = ak_detector_joint(s, first, n, axes, k);
      }
    }

    """

  /// The attitude features' averages at a segment's first sample and at every other (a
  /// direction that is not finite leaves them as they are), and the row's three per width.
  static let attitudeStart = """
      for (b = 0; b < 6; b++) {
        ak_detector_real v = values[10 + b];
        if (!isfinite(v)) continue;
        for (i = 0; i < AK_DETECTOR_WIDTHS; i++) s->direction[i][b] = v;
      }
    """
  static let attitudeUpdate = """
      for (b = 0; b < 6; b++) {
        ak_detector_real v = values[10 + b];
        if (!isfinite(v)) continue;
        for (i = 0; i < AK_DETECTOR_WIDTHS; i++) s->direction[i][b] += ak_detector_weight[i] * (v - s->direction[i][b]);
      }
    """
  static let attitudeRow = """
        /* The attitude features: user acceleration's share along gravity, the spread of the
           reading's direction and of gravity's. */
        {
          ak_detector_real norm = s->energy[3][i], vert = s->energy[4][i];
          s->row[k++] = norm > (ak_detector_real)1e-12 ? AK_DETECTOR_MIN(1, vert / norm) : 0;
          for (b = 0; b < 2; b++) {
            const ak_detector_real *m = s->direction[i] + 3 * b;
            s->row[k++] = AK_DETECTOR_MAX(0, 1 - AK_DETECTOR_SQRT(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]));
          }
        }
    """

  /// The shape features, signal by signal: the crest factor and the asymmetry, from the signal's
  /// own averages (missing for the gyroscope's without one).
  static let shapeRow = """
        /* The shape features: each signal's crest factor and asymmetry about its mean. */
        for (sig = 0; sig < AK_DETECTOR_SIGNALS; sig++) {
          ak_detector_real e = s->energy[sig][i], top = s->maximum[sig][i], bottom = s->minimum[sig][i];
          ak_detector_real range = top - bottom;
          if (sig >= 6 && !s->has_gyroscope) {
            s->row[k++] = (ak_detector_real)NAN;
            s->row[k++] = (ak_detector_real)NAN;
            continue;
          }
          s->row[k++] = e > (ak_detector_real)1e-12 ? s->envelope[sig][i] / AK_DETECTOR_SQRT(e) : 0;
          s->row[k++] = range > (ak_detector_real)1e-12
                          ? AK_DETECTOR_MIN(1, AK_DETECTOR_MAX(-1, (top + bottom - 2 * s->mean[sig][i]) / range))
                          : 0;
        }

    """

  static func exponentialRow(attitude: Bool, shape: Bool, swing: Bool) -> String {
    """
    /* A segment's first sample: the means at the values, the energies at their squares, the envelopes
       at their sizes, the rest at 0; the filters start from rest and read the value. */
    static inline void ak_detector_start(ak_detector_state *s, const ak_detector_real *values) {
      int sig, i, b;
      for (sig = 0; sig < AK_DETECTOR_SIGNALS; sig++) {
        ak_detector_real v = values[sig];
        if (!isfinite(v)) continue;
        for (i = 0; i < AK_DETECTOR_WIDTHS; i++) {
          s->mean[sig][i] = v;
          s->variance[sig][i] = 0;
          s->energy[sig][i] = v * v;
          s->envelope[sig][i] = AK_DETECTOR_FABS(v);
          s->maximum[sig][i] = s->minimum[sig][i] = v;
          s->jerk[sig][i] = 0;
          s->crossing[sig][i] = 0;
          s->side[sig][i] = 0;
          for (b = 0; b < AK_DETECTOR_BANDS; b++) s->power[sig][b][i] = 0;
        }
        for (b = 0; b < AK_DETECTOR_BANDS; b++) {
          const ak_detector_real *f = ak_detector_filter[b];
          ak_detector_real y = f[0] * v;
          s->delay[sig][b][0] = f[1] * v - f[3] * y;
          s->delay[sig][b][1] = f[2] * v - f[4] * y;
        }
        s->last_value[sig] = v;
      }
      for (i = 0; i < AK_DETECTOR_WIDTHS; i++)
        for (b = 0; b < 3; b++) s->covariance[i][b] = s->deviation[i][b] = 0;
    \(attitude ? attitudeStart : "")}

    /* One grid sample's signals into the exponential averages, in the Swift extractor's order of
       operations; a value that is not finite leaves its signal as it is. */
    static inline void ak_detector_update(ak_detector_state *s, const ak_detector_real *values, int first) {
      int sig, i, b;
      ak_detector_real deviation[AK_DETECTOR_WIDTHS];
      if (first) {
        ak_detector_start(s, values);
        return;
      }
      for (sig = 0; sig < AK_DETECTOR_SIGNALS; sig++) {
        ak_detector_real v = values[sig], square, magnitude, change, change_square;
        if (!isfinite(v)) continue;
        square = v * v;
        magnitude = AK_DETECTOR_FABS(v);
        change = v - s->last_value[sig];
        change_square = change * change;
        s->last_value[sig] = v;
        /* The averages width by width (a loop a compiler vectorizes), then the crossings. */
        for (i = 0; i < AK_DETECTOR_WIDTHS; i++) {
          ak_detector_real a = ak_detector_weight[i], keep = ak_detector_keep[i], d, envelope, maximum, minimum;
          d = v - s->mean[sig][i];
          deviation[i] = d;
          s->mean[sig][i] += a * d;
          s->variance[sig][i] = keep * (s->variance[sig][i] + a * d * d);
          s->energy[sig][i] += a * (square - s->energy[sig][i]);
          envelope = keep * s->envelope[sig][i];
          s->envelope[sig][i] = AK_DETECTOR_MAX(magnitude, envelope);
          maximum = keep * s->maximum[sig][i];
          s->maximum[sig][i] = AK_DETECTOR_MAX(v, maximum);
          minimum = keep * s->minimum[sig][i];
          s->minimum[sig][i] = AK_DETECTOR_MIN(v, minimum);
          s->jerk[sig][i] += a * (change_square - s->jerk[sig][i]);
        }
        for (i = 0; i < AK_DETECTOR_WIDTHS; i++) {
          /* A crossing: the side of v - mean (1 above the hysteresis, -1 below, else 0) turns to
             the opposite of the last nonzero one. */
          ak_detector_real e = v - s->mean[sig][i];
          int side = (e > AK_DETECTOR_HYSTERESIS) - (e < -AK_DETECTOR_HYSTERESIS), last = s->side[sig][i];
          s->crossing[sig][i] += ak_detector_weight[i] * ((side * last < 0 ? AK_DETECTOR_RATE_HZ : 0) - s->crossing[sig][i]);
          s->side[sig][i] = (signed char)(side != 0 ? side : last);
        }
        if (sig < 3)
          for (i = 0; i < AK_DETECTOR_WIDTHS; i++) s->deviation[i][sig] = deviation[i];
        /* The bands: each filter once, its output's power at every width (the widths of a band
           side by side). */
        for (b = 0; b < AK_DETECTOR_BANDS; b++) {
          const ak_detector_real *f = ak_detector_filter[b];
          ak_detector_real *z = s->delay[sig][b], y, y2;
          y = f[0] * v + z[0];
          z[0] = f[1] * v - f[3] * y + z[1];
          z[1] = f[2] * v - f[4] * y;
          y2 = y * y;
          for (i = 0; i < AK_DETECTOR_WIDTHS; i++) s->power[sig][b][i] += ak_detector_weight[i] * (y2 - s->power[sig][b][i]);
        }
      }
      for (i = 0; i < AK_DETECTOR_WIDTHS; i++) {
        ak_detector_real *c = s->covariance[i], a = ak_detector_weight[i], keep = ak_detector_keep[i];
        ak_detector_real dx = s->deviation[i][0], dy = s->deviation[i][1], dz = s->deviation[i][2];
        c[0] = keep * (c[0] + a * dx * dy);
        c[1] = keep * (c[1] + a * dx * dz);
        c[2] = keep * (c[2] + a * dy * dz);
      }
    \(attitude ? attitudeUpdate : "")}

    /* The row from the averages: each width's statistics and band shares (a band's power over the
       variance, 0 while that is at most 1e-12) of every signal, then its joint features. */
    static inline void ak_detector_compute_row(ak_detector_state *s) {
      int k = 0, i, sig, b;
      for (i = 0; i < AK_DETECTOR_WIDTHS; i++) {
        ak_detector_real c[6];
        for (sig = 0; sig < AK_DETECTOR_SIGNALS; sig++) {
          ak_detector_real v = s->variance[sig][i], inverse = 1 / v; /* read only where v > 1e-12 */
          if (sig >= 6 && !s->has_gyroscope) {
            for (b = 0; b < 8 + AK_DETECTOR_BANDS; b++) s->row[k + b] = (ak_detector_real)NAN;
            k += 8 + AK_DETECTOR_BANDS;
            continue;
          }
          s->row[k] = s->mean[sig][i];
          s->row[k + 1] = v;
          s->row[k + 2] = s->energy[sig][i];
          s->row[k + 3] = s->envelope[sig][i];
          s->row[k + 4] = s->maximum[sig][i];
          s->row[k + 5] = s->minimum[sig][i];
          s->row[k + 6] = s->crossing[sig][i];
          s->row[k + 7] = v > (ak_detector_real)1e-12 ? AK_DETECTOR_SQRT(s->jerk[sig][i] * inverse) : 0;
          k += 8;
          for (b = 0; b < AK_DETECTOR_BANDS; b++) s->row[k++] = v > (ak_detector_real)1e-12 ? s->power[sig][b][i] * inverse : 0;
        }
        c[0] = s->variance[0][i];
        c[1] = s->variance[1][i];
        c[2] = s->variance[2][i];
        c[3] = s->covariance[i][0];
        c[4] = s->covariance[i][1];
        c[5] = s->covariance[i][2];
        k = ak_detector_write_joint(s, c, k);
    \(attitude ? attitudeRow : "")\(shape ? (attitude ? "\n" : "") + shapeRow : "")\(swing ? ((attitude || shape) ? "\n" : "") + swingRow : "")  }
    }

    """
  }

  static func gridCode(windowed: Bool, attitude: Bool, swing: Bool) -> String {
    """
    /* One sample on the grid: gravity, the signals into the rings, and a row when one is due. */
    static inline void ak_detector_grid_point(ak_detector_state *s, ak_detector_real t, ak_detector_real ax,
                                              ak_detector_real ay, ak_detector_real az, ak_detector_real gx,
                                              ak_detector_real gy, ak_detector_real gz) {
      ak_detector_real ux, uy, uz, gn, norm, vert, horiz, values[\(attitude ? 16 : 10)];
      if (!s->gravity_started) {
        s->g1[0] = s->g2[0] = ax;
        s->g1[1] = s->g2[1] = ay;
        s->g1[2] = s->g2[2] = az;
        s->gravity_started = 1;
      } else {
        s->g1[0] += AK_DETECTOR_ALPHA * (ax - s->g1[0]);
        s->g1[1] += AK_DETECTOR_ALPHA * (ay - s->g1[1]);
        s->g1[2] += AK_DETECTOR_ALPHA * (az - s->g1[2]);
        s->g2[0] += AK_DETECTOR_ALPHA * (s->g1[0] - s->g2[0]);
        s->g2[1] += AK_DETECTOR_ALPHA * (s->g1[1] - s->g2[1]);
        s->g2[2] += AK_DETECTOR_ALPHA * (s->g1[2] - s->g2[2]);
      }
      ux = ax - s->g2[0];
      uy = ay - s->g2[1];
      uz = az - s->g2[2];
      gn = AK_DETECTOR_SQRT(s->g2[0] * s->g2[0] + s->g2[1] * s->g2[1] + s->g2[2] * s->g2[2]);
      norm = AK_DETECTOR_SQRT(ux * ux + uy * uy + uz * uz);
      vert = 0;
      horiz = norm;
      if (gn > (ak_detector_real)1e-9) {
        vert = (ux * s->g2[0] + uy * s->g2[1] + uz * s->g2[2]) / gn;
        horiz = AK_DETECTOR_SQRT(AK_DETECTOR_MAX(0, norm * norm - vert * vert));
      }
      values[0] = ux;
      values[1] = uy;
      values[2] = uz;
      values[3] = norm;
      values[4] = vert;
      values[5] = horiz;
      values[6] = gx;
      values[7] = gy;
      values[8] = gz;
      values[9] = AK_DETECTOR_SQRT(gx * gx + gy * gy + gz * gz);\(attitude ? "\n" + attitudeValues : "")
      \(swing ? "ak_detector_swing(s, ux, uy, uz, s->filled == 0);\n  " : "")\(windowed ? windowStore : "ak_detector_update(s, values, s->filled == 0);")
      s->filled = s->filled + 1 < AK_DETECTOR_CAPACITY ? s->filled + 1 : AK_DETECTOR_CAPACITY;
      s->since_row += 1;
      if (!(s->filled >= AK_DETECTOR_SHORTEST && (s->rows_in_segment == 0 || s->since_row >= AK_DETECTOR_HOP))) return;
      s->since_row = 0;
      s->rows_in_segment += 1;
      ak_detector_compute_row(s);
    #if !AK_DETECTOR_REAL_IS_FLOAT
      {
        int i;
        for (i = 0; i < AK_DETECTOR_FEATURES; i++) s->features[i] = (float)s->row[i];
      }
    #endif
      ak_detector_classify(s, t - AK_DETECTOR_HALF_WIDTH_S, t);
    }

    /* A reading: interpolated onto the grid; an interval longer than MAX_GAP_S starts the grid
       and the windows afresh (gravity carries on). Returns what next returns. */
    static inline int ak_detector_read(ak_detector_state *s, ak_detector_real t, ak_detector_real x, ak_detector_real y,
                                       ak_detector_real z, ak_detector_real gx, ak_detector_real gy, ak_detector_real gz,
                                       ak_detector_event *e) {
      ak_detector_real *p = s->previous;
      if (!(isfinite(t) && isfinite(x) && isfinite(y) && isfinite(z))) return ak_detector_next(s, e);
      if (!s->has_origin || !(t - p[0] <= AK_DETECTOR_MAX_GAP_S)) {
        s->has_origin = 1;
        s->origin = t;
        s->next_index = 1;
        s->filled = 0;
        s->since_row = 0;
        s->rows_in_segment = 0;
        ak_detector_grid_point(s, t, x, y, z, gx, gy, gz);
      } else {
        if (!(t > p[0])) return ak_detector_next(s, e);
        for (;;) {
          ak_detector_real g = s->origin + (ak_detector_real)s->next_index * AK_DETECTOR_STEP_S;
          if (g > t) break;
          if (g > p[0]) {
            if (g == t) {
              ak_detector_grid_point(s, g, x, y, z, gx, gy, gz);
            } else {
              ak_detector_real w = (g - p[0]) / (t - p[0]);
              ak_detector_grid_point(s, g, p[1] + w * (x - p[1]), p[2] + w * (y - p[2]), p[3] + w * (z - p[3]),
                                     p[4] + w * (gx - p[4]), p[5] + w * (gy - p[5]), p[6] + w * (gz - p[6]));
            }
          }
          s->next_index += 1;
        }
      }
      p[0] = t;
      p[1] = x;
      p[2] = y;
      p[3] = z;
      p[4] = gx;
      p[5] = gy;
      p[6] = gz;
      return ak_detector_next(s, e);
    }

    """
  }

  /// The reading's direction and gravity's, after the signals (attitude features).
  static let attitudeValues = """
    {
        ak_detector_real size = AK_DETECTOR_SQRT(ax * ax + ay * ay + az * az);
        int j;
        for (j = 10; j < 16; j++) values[j] = (ak_detector_real)NAN;
        if (size > (ak_detector_real)1e-9) {
          values[10] = ax / size;
          values[11] = ay / size;
          values[12] = az / size;
        }
        if (gn > (ak_detector_real)1e-9) {
          values[13] = s->g2[0] / gn;
          values[14] = s->g2[1] / gn;
          values[15] = s->g2[2] / gn;
        }
      }
    """

  /// The window kind's grid step, a block of its own: the signals into the rings, with their peak
  /// flags and sides.
  static let windowStore = """
    {
        int sig, known = s->filled >= 2, position = s->head;
        for (sig = 0; sig < AK_DETECTOR_SIGNALS; sig++) {
          int at = position + AK_DETECTOR_CAPACITY;
          s->ring[sig][position] = s->ring[sig][at] = values[sig];
          /* The sample before this one is now known to be a local maximum or not. */
          s->peaks[sig][at] = s->peaks[sig][position] = 0;
          if (known) {
            ak_detector_real v = s->ring[sig][at - 1];
            unsigned char peak = v > s->ring[sig][at - 2] && v >= s->ring[sig][at] ? 1 : 0;
            s->peaks[sig][at - 1] = peak;
            s->peaks[sig][position >= 1 ? at - 1 - AK_DETECTOR_CAPACITY : at - 1 + AK_DETECTOR_CAPACITY] = peak;
          }
          if (ak_detector_signed[sig]) {
            ak_detector_real v = values[sig];
            int side = (v > AK_DETECTOR_HYSTERESIS ? 1 : 0) - (v < -AK_DETECTOR_HYSTERESIS ? 1 : 0);
            if (side != 0) {
              if (side == -s->last_side[sig]) s->turn_count[sig] += 1;
              s->last_side[sig] = side;
            }
            s->sides[sig][position] = s->sides[sig][at] = (signed char)side;
            s->turns[sig][position] = s->turns[sig][at] = (ak_detector_turns)s->turn_count[sig];
          }
        }
        s->head = (s->head + 1) % AK_DETECTOR_CAPACITY;
      }
    """

  /// Every label's trees and margin, in two forms of the same comparisons and sums (the events
  /// are the same): as code (`treeCode`, the default: the faster on a desktop processor) or, with
  /// AK_DETECTOR_TREE_TABLE defined when the header is compiled, as a table (`treeTable`: about
  /// 40% less flash for the built-in model, docs/EXPORT.md). Either form stops a row's trees
  /// early (`treeCode`) unless AK_DETECTOR_ALL_TREES is defined.
  static func trees(
    _ structure: [(baseMargin: Float, trees: [[TreeEnsemble.Split]])], names: [String],
    tableByDefault: Bool = false,
    stops: [(limit: Double, most: [Double])?]
  ) -> String {
    let form =
      tableByDefault
      ? """
      /* The model was budgeted for its trees as a table (train --trees table): they are built so
         unless AK_DETECTOR_TREE_CODE asks for nested comparisons (more flash, a little faster). */
      #if !defined(AK_DETECTOR_TREE_CODE) && !defined(AK_DETECTOR_TREE_TABLE)
      #define AK_DETECTOR_TREE_TABLE
      #endif

      """ : ""
    let early =
      stops.contains { $0 != nil }
      ? """
      /* A row stops walking the trees once those walked prove its probability below everything the
         decoding compares with (about a third of the trees on everyday motion): the events are the
         same as with every tree walked, which AK_DETECTOR_ALL_TREES defined asks for (a little less
         flash, slower). */
      #if !defined(AK_DETECTOR_ALL_TREES) && !defined(AK_DETECTOR_EARLY_STOP)
      #define AK_DETECTOR_EARLY_STOP
      #endif
      #ifdef AK_DETECTOR_EARLY_STOP
      #define AK_DETECTOR_STOP_BELOW(m, limit) if ((m) < (limit)) return -INFINITY
      #else
      #define AK_DETECTOR_STOP_BELOW(m, limit) (void)0
      #endif

      """ : ""
    return form + early + "#ifdef AK_DETECTOR_TREE_TABLE\n" + treeTable(structure, names: names, stops: stops)
      + "#else\n"
      + treeCode(structure, names: names, stops: stops) + "#endif\n\n"
  }

  /// Every tree as a function of the row's features in single precision, and each label's margin.
  /// With a stop (`TreeEnsemble.marginSurelyBelow` of the decoding's floor and the most each
  /// group of eight trees and the later ones can add) and AK_DETECTOR_EARLY_STOP defined (`trees`
  /// defines it, and AK_DETECTOR_STOP_BELOW, unless AK_DETECTOR_ALL_TREES is), the margin is minus
  /// infinity (a probability of 0) as soon as the trees added so far prove it below the limit, as
  /// `TreeEnsemble.Evaluator.probability(_:unlessBelow:)` does (there the sum plus the bound
  /// below the limit, here the sum below the limit minus the bound, rounded down to a float).
  static func treeCode(
    _ structure: [(baseMargin: Float, trees: [[TreeEnsemble.Split]])], names: [String],
    stops: [(limit: Double, most: [Double])?]
  ) -> String {
    var text = ""
    for (l, ensemble) in structure.enumerated() {
      for (t, nodes) in ensemble.trees.enumerated() {
        text += "static inline float ak_detector_tree_\(l)_\(t)(const float *f) {\n"
        func emit(_ i: Int, _ depth: Int) {
          let pad = String(repeating: "  ", count: depth)
          let node = nodes[i]
          guard let left = node.left else {
            text += "\(pad)return \(floatLiteral(node.value));\n"
            return
          }
          let v = "f[\(node.feature)]"
          let threshold = floatLiteral(node.value)
          // A missing value (NaN) goes to the default side.
          let condition = node.defaultLeft ? "!(\(v) >= \(threshold))" : "\(v) < \(threshold)"
          text += "\(pad)if (\(condition)) { /* \(names[node.feature]) */\n"
          emit(left, depth + 1)
          text += "\(pad)}\n"
          emit(node.right, depth)
        }
        emit(0, 1)
        text += "}\n\n"
      }
      let stop = stops[l]
      text +=
        "/* Classifier \(l)'s margin: the base and every tree's leaf, added in single precision in order"
        + (stop == nil
          ? ". */\n"
          : "; minus infinity once the later trees cannot lift it to what the decoding compares with. */\n")
      text += "static inline float ak_detector_margin_\(l)(const float *f) {\n"
      text += "  float m = \(floatLiteral(ensemble.baseMargin));\n"
      for t in ensemble.trees.indices {
        if let stop, t % 8 == 0 {
          let below = stop.limit - stop.most[t / 8]
          let rounded = Float(below)
          text +=
            "  AK_DETECTOR_STOP_BELOW(m, \(floatLiteral(Double(rounded) > below ? rounded.nextDown : rounded)));\n"
        }
        text += "  m += ak_detector_tree_\(l)_\(t)(f);\n"
      }
      text += "  return m;\n}\n\n"
    }
    return text
  }

  /// The same trees as a table of nodes and one walk (AK_DETECTOR_TREE_TABLE): a node holds its
  /// split condition (a leaf its value), the feature it reads with a flag for a missing value's
  /// side and one for a leaf, and its left child's index, the right child next to it (a leaf: its
  /// own index, so that a walk of the deepest tree's depth stays on it); the nodes are laid out
  /// breadth first so that children are neighbours. Eight bytes a node with 16-bit indices (as
  /// code, a comparison and a branch take about sixteen); the stop as in `treeCode`, read from a
  /// table of limits.
  static func treeTable(
    _ structure: [(baseMargin: Float, trees: [[TreeEnsemble.Split]])], names: [String],
    stops: [(limit: Double, most: [Double])?]
  ) -> String {
    // The index type: 16 bits while every label's nodes and the features fit (the top bit of a
    // node's feature is its missing value's side).
    let most = structure.map { $0.trees.reduce(0) { $0 + $1.count } }.max() ?? 0
    let narrow = ModelCost.narrowTable(nodes: most, features: names.count)
    var text = """
      /* A tree's node: its split condition (a leaf's value), the feature it reads with two flags
         (AK_DETECTOR_MISSING_LEFT: a missing value, NaN, goes left; AK_DETECTOR_LEAF: a leaf) and its
         left child, the right one next to it (a leaf: itself). */
      typedef \(narrow ? "unsigned short" : "unsigned long") ak_detector_index;
      #define AK_DETECTOR_MISSING_LEFT ((ak_detector_index)\(narrow ? "0x8000u" : "0x80000000ul"))
      #define AK_DETECTOR_LEAF ((ak_detector_index)\(narrow ? "0x4000u" : "0x40000000ul"))
      #define AK_DETECTOR_FEATURE ((ak_detector_index)\(narrow ? "0x3fffu" : "0x3ffffffful"))
      typedef struct {
        float value;
        ak_detector_index feature, left;
      } ak_detector_node;

      /* One tree's leaf for a row, `depth` steps from its root (a leaf stays where it is): a
         feature below the condition goes left. No branch but the loop's. */
      static inline float ak_detector_walk(const ak_detector_node *nodes, ak_detector_index i, const float *f, int depth) {
        int d;
        for (d = 0; d < depth; d++) {
          ak_detector_index feature = nodes[i].feature;
          float v = f[feature & AK_DETECTOR_FEATURE];
          int right = (v != v ? (feature & AK_DETECTOR_MISSING_LEFT) == 0 : !(v < nodes[i].value)) & ((feature & AK_DETECTOR_LEAF) == 0);
          i = (ak_detector_index)(nodes[i].left + right);
        }
        return nodes[i].value;
      }


      """
    for (l, ensemble) in structure.enumerated() {
      // Breadth first within each tree: a node's children take the next two free places.
      var table: [(value: Float, feature: Int, defaultLeft: Bool, left: Int)] = []
      var roots: [Int] = []
      var depth = 0
      for nodes in ensemble.trees {
        roots.append(table.count)
        var queue = [(0, table.count, 0)]
        table.append((0, 0, false, 0))
        var head = 0
        while head < queue.count {
          let (i, at, level) = queue[head]
          head += 1
          let node = nodes[i]
          guard let left = node.left else {
            table[at] = (node.value, -1, false, at)
            continue
          }
          let children = table.count
          table.append((0, 0, false, 0))
          table.append((0, 0, false, 0))
          table[at] = (node.value, node.feature, node.defaultLeft, children)
          queue.append((left, children, level + 1))
          queue.append((node.right, children + 1, level + 1))
          depth = max(depth, level + 1)
        }
      }
      let rows = table.map { node in
        let feature =
          node.feature < 0
          ? "AK_DETECTOR_LEAF"
          : node.defaultLeft ? "\(node.feature) | AK_DETECTOR_MISSING_LEFT" : "\(node.feature)"
        return "{\(floatLiteral(node.value)), \(feature), \(node.left)}"
      }
      text +=
        "/* Classifier \(l)'s \(ensemble.trees.count) trees: \(table.count) nodes and each tree's root. */\n"
      text += "static const ak_detector_node ak_detector_nodes_\(l)[\(table.count)] = {\n"
      for start in stride(from: 0, to: rows.count, by: 4) {
        text += "  " + rows[start..<min(start + 4, rows.count)].joined(separator: ", ") + ",\n"
      }
      text += "};\n"
      text +=
        "static const ak_detector_index ak_detector_roots_\(l)[\(roots.count)] = {\(list(roots) { "\($0)" })};\n"
      let stop = stops[l]
      if let stop {
        let limits = stride(from: 0, to: ensemble.trees.count, by: 8).map { t -> String in
          let below = stop.limit - stop.most[t / 8]
          let rounded = Float(below)
          return floatLiteral(Double(rounded) > below ? rounded.nextDown : rounded)
        }
        text += """
          #ifdef AK_DETECTOR_EARLY_STOP
          /* Before each eight trees: a margin below this cannot reach what the decoding compares with. */
          static const float ak_detector_stop_\(l)[\(limits.count)] = {\(limits.joined(separator: ", "))};
          #endif

          """
      }
      text += """
        /* Classifier \(l)'s margin: the base and every tree's leaf, added in single precision in order\(stop == nil ? "" : " (with AK_DETECTOR_EARLY_STOP, minus infinity once the later trees cannot lift it to what the decoding compares with)"). */
        static inline float ak_detector_margin_\(l)(const float *f) {
          float m = \(floatLiteral(ensemble.baseMargin));
          int t;
          for (t = 0; t < \(ensemble.trees.count); t++) {
        \(stop == nil ? "" : "#ifdef AK_DETECTOR_EARLY_STOP\n    if (t % 8 == 0 && m < ak_detector_stop_\(l)[t / 8]) return -INFINITY;\n#endif\n")    m += ak_detector_walk(ak_detector_nodes_\(l), ak_detector_roots_\(l)[t], f, \(depth));
          }
          return m;
        }


        """
    }
    return text
  }

  /// Each label's probability (and its sustained classifier's, ensemble `sustained[l]`) into its
  /// decoder.
  static func classify(sustained: [Int?]) -> String {
    var text = """
      /* Each label's probability of the row (and its sustained classifier's), into its decoder. */
      static inline void ak_detector_classify(ak_detector_state *s, ak_detector_real center, ak_detector_real end) {
        ak_detector_real p, q;

      """
    func probability(_ k: Int) -> String {
      "(ak_detector_real)(1.0f / (1.0f + expf(-ak_detector_margin_\(k)(AK_DETECTOR_ROW_FLOATS(s)))))"
    }
    for (l, k) in sustained.enumerated() {
      text += "  p = \(probability(l));\n"
      text += "  q = \(k.map(probability) ?? "p");\n"
      text += "  ak_detector_decode(s, \(l), center, end, p, q);\n"
    }
    return text + "}\n\n"
  }

  /// A float as a C literal that reads back to the same float.
  static func floatLiteral(_ v: Float) -> String {
    let text = "\(v)"
    return (text.contains(".") || text.contains("e") ? text : text + ".0") + "f"
  }
}
