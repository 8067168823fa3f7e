import AccelGestures
import AccelCore
import AccelOrientation

/// Gravity from the fused attitude as C: `AttitudeStage.gravity` with VQF and no magnetometer
/// (what swing and orientation-change use with a gyroscope), operation for operation. Rest
/// detection and the gyroscope bias's Kalman update are included; the magnetometer's heading
/// correction is not (gravity needs no heading). The stage turns its attitudes about the vertical
/// so that the first yaw is 0; the copy does so too, as the turn moves gravity's last bits.
///
/// Every number the filter derives from its configuration and interval comes from the stage
/// itself (`AttitudeStage.vqfConstants`), so the C cannot be made for other settings than the
/// Swift filter runs with.
struct FusedGravityC {
  let constants: [(name: String, value: CConstant, comment: String)]

  /// The C for the stage that `settings` makes at `rate`; nil when that stage is not VQF without
  /// the magnetometer.
  init?(_ settings: AttitudeSettings, rate: Double) {
    guard
      let stage = try? AttitudeStage(settings, rate: rate, layout: TraceLayout(hasGyroscope: true)),
      !stage.usesMagnetometer, let derived = stage.vqfConstants
    else { return nil }
    var constants: [(name: String, value: CConstant, comment: String)] = derived.map { c in
      let flag = c.name.hasSuffix("_ENABLED") || c.name == "MAG_REJECTION"
      return ("VQF_" + c.name, flag ? .integer(Int(c.value)) : .real(c.value), Self.meaning(c.name))
    }
    constants.append(
      ("STANDARD_GRAVITY", .real(AccelerationUnit.standardGravity), "m/s^2 per g (the filter works in m/s^2)")
    )
    self.constants = constants
  }

  static func meaning(_ name: String) -> String {
    switch name {
    case "TS": return "VQF: the nominal sample interval its coefficients are made for (s)"
    case "BIAS_CLIP": return "VQF: largest gyroscope bias estimated (rad/s)"
    case "REST_TH_GYR2": return "VQF rest: squared rate deviation threshold ((rad/s)^2)"
    case "REST_TH_ACC2": return "VQF rest: squared acceleration deviation threshold ((m/s^2)^2)"
    case "BIAS_P0": return "VQF: initial bias covariance ((0.01 deg/s)^2)"
    case "BIAS_V": return "VQF: bias covariance growth per sample ((0.01 deg/s)^2)"
    case "BIAS_MOTION_W": return "VQF: bias measurement variance in motion"
    case "BIAS_VERTICAL_W": return "VQF: bias measurement variance in motion, vertical"
    case "BIAS_REST_W": return "VQF: bias measurement variance at rest"
    case "REST_MIN_T": return "VQF: rest after this long within the thresholds (s)"
    case "REST_ENABLED": return "VQF: rest detection and bias estimation at rest"
    case "MOTION_ENABLED": return "VQF: bias estimation in motion"
    case "MAG_REJECTION": return "VQF: magnetic disturbance rejection (it keeps the rate low-pass running)"
    default:
      let filter = name.hasPrefix("ACC_") ? "tau_acc" : "rest_filter_tau"
      return name.hasSuffix("WARM_UP")
        ? "VQF: the \(filter) low-pass averages this long before it starts (s)"
        : "VQF: the \(filter) low-pass's coefficient"
    }
  }

  /// `parts` with the fusion added: its constants, types, state field, initialisation and
  /// functions, and a push_gyro that feeds it and returns `call` (C that reads gravity from `g`).
  func added(to parts: CDetectorParts, returning call: String) -> CDetectorParts {
    var parts = parts
    parts.constants += constants
    parts.types = Self.types + parts.types
    parts.state += "\nak_detector_fusion fusion; /* gravity from the fused attitude (VQF) */"
    parts.initialize += "\nak_detector_fusion_init(&s->fusion);"
    parts.helpers = Self.helpers + parts.helpers
    parts.pushGyroscope = """
      ak_detector_real g[3];
      ak_detector_fused_gravity(&s->fusion, t, x, y, z, gx, gy, gz, g);
      return \(call);
      """
    parts.usesGyroscope = true
    return parts
  }

  /// The fusion's state type (placed before the detector's state).
  static let types = """
    /* A mean-start low-pass of VQF over up to 8 lanes: the running mean while it warms up, then a
       second-order Butterworth started in steady state at that mean. */
    typedef struct {
      int started;
      ak_detector_real count;
      ak_detector_real s0[8], s1[8];
    } ak_detector_lowpass;

    /* VQF without the magnetometer: attitude = acc_quat * gyr_quat, turned by offset. */
    typedef struct {
      int started;
      ak_detector_real last_t;
      ak_detector_real gyr_quat[4], acc_quat[4], offset[4];
      int rest_detected;
      ak_detector_real rest_t;
      ak_detector_real bias[3];
      ak_detector_real bias_p[6]; /* the bias covariance's upper triangle: 00 01 02 11 12 22 */
      ak_detector_real rest_last_gyr_lp[3];
      ak_detector_lowpass acc_lp, r_lp, bias_lp, rest_gyr_lp, rest_acc_lp;
    } ak_detector_fusion;

    """

  /// The fusion's functions; `ak_detector_fused_gravity(f, t, x, y, z, gx, gy, gz, g)` is the one
  /// a detector calls.
  static let helpers = """
    static inline void ak_detector_lowpass_init(ak_detector_lowpass *f) {
      int k;
      f->started = 0;
      f->count = 0;
      for (k = 0; k < 8; k++) f->s0[k] = f->s1[k] = 0;
    }

    static inline void ak_detector_lowpass_step(ak_detector_lowpass *f, const ak_detector_real *x, ak_detector_real *y,
                                                int n, ak_detector_real b0, ak_detector_real b1, ak_detector_real b2,
                                                ak_detector_real a1, ak_detector_real a2, ak_detector_real warm) {
      int k;
      if (!f->started) {
        f->count += 1;
        for (k = 0; k < n; k++) {
          f->s1[k] += x[k]; /* the running sum until the filter starts */
          y[k] = f->s1[k] / f->count;
        }
        if (f->count * AK_DETECTOR_VQF_TS >= warm) {
          f->started = 1;
          for (k = 0; k < n; k++) {
            f->s0[k] = y[k] * (1 - b0);
            f->s1[k] = y[k] * (b2 - a2);
          }
        }
        return;
      }
      for (k = 0; k < n; k++) {
        y[k] = b0 * x[k] + f->s0[k];
        f->s0[k] = b1 * x[k] - a1 * y[k] + f->s1[k];
        f->s1[k] = b2 * x[k] - a2 * y[k];
      }
    }

    #define AK_DETECTOR_ACC_LP(f, x, y, n)                                                                    \\
      ak_detector_lowpass_step(f, x, y, n, AK_DETECTOR_VQF_ACC_B0, AK_DETECTOR_VQF_ACC_B1, AK_DETECTOR_VQF_ACC_B2, \\
                               AK_DETECTOR_VQF_ACC_A1, AK_DETECTOR_VQF_ACC_A2, AK_DETECTOR_VQF_ACC_WARM_UP)
    #define AK_DETECTOR_REST_LP(f, x, y)                                                                       \\
      ak_detector_lowpass_step(f, x, y, 3, AK_DETECTOR_VQF_REST_B0, AK_DETECTOR_VQF_REST_B1,                 \\
                               AK_DETECTOR_VQF_REST_B2, AK_DETECTOR_VQF_REST_A1, AK_DETECTOR_VQF_REST_A2,     \\
                               AK_DETECTOR_VQF_REST_WARM_UP)

    /* Hamilton product a b (w first). */
    static inline void ak_detector_quat_mul(const ak_detector_real *a, const ak_detector_real *b, ak_detector_real *q) {
      q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
      q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
      q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
      q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    }

    static inline void ak_detector_quat_normalize(ak_detector_real *q) {
      ak_detector_real n = AK_DETECTOR_SQRT(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), r;
      if (!(n > 0)) return;
      r = 1 / n;
      q[0] = q[0] * r;
      q[1] = q[1] * r;
      q[2] = q[2] * r;
      q[3] = q[3] * r;
    }

    /* v rotated by the unit quaternion q: q (0, v) q*. */
    static inline void ak_detector_quat_rotate(const ak_detector_real *q, const ak_detector_real *v, ak_detector_real *out) {
      ak_detector_real w = q[0], x = q[1], y = q[2], z = q[3];
      out[0] = (1 - 2 * y * y - 2 * z * z) * v[0] + 2 * (x * y - w * z) * v[1] + 2 * (w * y + x * z) * v[2];
      out[1] = 2 * (w * z + x * y) * v[0] + (1 - 2 * x * x - 2 * z * z) * v[1] + 2 * (y * z - w * x) * v[2];
      out[2] = 2 * (x * z - w * y) * v[0] + 2 * (w * x + y * z) * v[1] + (1 - 2 * x * x - 2 * y * y) * v[2];
    }

    /* 3x3 matrices row-major (m[3 * row + column]); symmetric ones by their upper triangle. */
    static inline ak_detector_real ak_detector_row(const ak_detector_real *m, int i, const ak_detector_real *v) {
      return m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
    }

    static inline void ak_detector_mat_mul(const ak_detector_real *a, const ak_detector_real *b, ak_detector_real *m) {
      int i, j;
      for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) m[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }

    static inline void ak_detector_transpose(const ak_detector_real *a, ak_detector_real *m) {
      int i, j;
      for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) m[3 * i + j] = a[3 * j + i];
    }

    static inline void ak_detector_sym_full(const ak_detector_real *s, ak_detector_real *m) {
      m[0] = s[0], m[1] = s[1], m[2] = s[2];
      m[3] = s[1], m[4] = s[3], m[5] = s[4];
      m[6] = s[2], m[7] = s[4], m[8] = s[5];
    }

    /* a b^T for a product known to be symmetric: its upper triangle. */
    static inline void ak_detector_sym_product(const ak_detector_real *a, const ak_detector_real *b, ak_detector_real *s) {
      s[0] = ak_detector_row(a, 0, b);
      s[1] = ak_detector_row(a, 0, b + 3);
      s[2] = ak_detector_row(a, 0, b + 6);
      s[3] = ak_detector_row(a, 1, b + 3);
      s[4] = ak_detector_row(a, 1, b + 6);
      s[5] = ak_detector_row(a, 2, b + 6);
    }

    /* The inverse of a symmetric matrix by the adjugate. */
    static inline void ak_detector_sym_inverse(const ak_detector_real *m, ak_detector_real *s) {
      ak_detector_real c00 = m[3] * m[5] - m[4] * m[4];
      ak_detector_real c01 = m[4] * m[2] - m[1] * m[5];
      ak_detector_real c02 = m[1] * m[4] - m[3] * m[2];
      ak_detector_real d = 1 / (m[0] * c00 + m[1] * c01 + m[2] * c02);
      s[0] = c00 * d;
      s[1] = c01 * d;
      s[2] = c02 * d;
      s[3] = (m[0] * m[5] - m[2] * m[2]) * d;
      s[4] = (m[2] * m[1] - m[0] * m[4]) * d;
      s[5] = (m[0] * m[3] - m[1] * m[1]) * d;
    }

    static inline void ak_detector_clip(ak_detector_real *v, ak_detector_real limit) {
      int k;
      for (k = 0; k < 3; k++) v[k] = AK_DETECTOR_MIN(AK_DETECTOR_MAX(v[k], -limit), limit);
    }

    static inline void ak_detector_fusion_init(ak_detector_fusion *f) {
      int k;
      f->started = 0;
      f->last_t = 0;
      for (k = 0; k < 4; k++) f->gyr_quat[k] = f->acc_quat[k] = f->offset[k] = k == 0 ? 1 : 0;
      f->rest_detected = 0;
      f->rest_t = 0;
      for (k = 0; k < 3; k++) f->bias[k] = f->rest_last_gyr_lp[k] = 0;
      for (k = 0; k < 6; k++) f->bias_p[k] = k == 0 || k == 3 || k == 5 ? AK_DETECTOR_VQF_BIAS_P0 : 0;
      ak_detector_lowpass_init(&f->acc_lp);
      ak_detector_lowpass_init(&f->r_lp);
      ak_detector_lowpass_init(&f->bias_lp);
      ak_detector_lowpass_init(&f->rest_gyr_lp);
      ak_detector_lowpass_init(&f->rest_acc_lp);
    }

    /* The gyroscope bias's Kalman update from the corrected acceleration's direction. */
    static inline void ak_detector_vqf_bias(ak_detector_fusion *f, const ak_detector_real *acc_earth) {
      ak_detector_real q[4], r[9], eight[8], three[3], lp[3], rf[9], e[3], h[9], w[3], p[9], ht[9], pht[9], pht_t[9];
      ak_detector_real sm[6], si[6], sf[9], k[9], kp[6], ke[3];
      int measured = 1, rest_step, i;
      ak_detector_quat_mul(f->acc_quat, f->gyr_quat, q);
      r[0] = 1 - 2 * q[2] * q[2] - 2 * q[3] * q[3];
      r[1] = 2 * (q[2] * q[1] - q[0] * q[3]);
      r[2] = 2 * (q[0] * q[2] + q[3] * q[1]);
      r[3] = 2 * (q[0] * q[3] + q[2] * q[1]);
      r[4] = 1 - 2 * q[1] * q[1] - 2 * q[3] * q[3];
      r[5] = 2 * (q[2] * q[3] - q[1] * q[0]);
      r[6] = 2 * (q[3] * q[1] - q[0] * q[2]);
      r[7] = 2 * (q[0] * q[1] + q[3] * q[2]);
      r[8] = 1 - 2 * q[1] * q[1] - 2 * q[2] * q[2];
      /* R and the bias in the frame of R's first two rows, low-passed alike. */
      AK_DETECTOR_ACC_LP(&f->r_lp, r, eight, 8);
      three[0] = r[8];
      three[1] = ak_detector_row(r, 0, f->bias);
      three[2] = ak_detector_row(r, 1, f->bias);
      AK_DETECTOR_ACC_LP(&f->bias_lp, three, lp, 3);
      for (i = 0; i < 8; i++) rf[i] = eight[i];
      rf[8] = lp[0];
      rest_step = f->rest_detected && AK_DETECTOR_VQF_REST_ENABLED;
      if (rest_step) {
        for (i = 0; i < 3; i++) e[i] = f->rest_last_gyr_lp[i] - f->bias[i];
        for (i = 0; i < 9; i++) h[i] = i % 4 == 0 ? 1 : 0;
        w[0] = w[1] = w[2] = AK_DETECTOR_VQF_BIAS_REST_W;
      } else if (AK_DETECTOR_VQF_MOTION_ENABLED) {
        e[0] = -acc_earth[1] / AK_DETECTOR_VQF_TS + lp[1] - ak_detector_row(rf, 0, f->bias);
        e[1] = acc_earth[0] / AK_DETECTOR_VQF_TS + lp[2] - ak_detector_row(rf, 1, f->bias);
        e[2] = -ak_detector_row(rf, 2, f->bias);
        for (i = 0; i < 9; i++) h[i] = rf[i];
        w[0] = w[1] = AK_DETECTOR_VQF_BIAS_MOTION_W;
        w[2] = AK_DETECTOR_VQF_BIAS_VERTICAL_W;
      } else {
        measured = 0;
      }
      /* The covariance grows while it is below its initial value (forgetting). */
      if (f->bias_p[0] < AK_DETECTOR_VQF_BIAS_P0) f->bias_p[0] += AK_DETECTOR_VQF_BIAS_V;
      if (f->bias_p[3] < AK_DETECTOR_VQF_BIAS_P0) f->bias_p[3] += AK_DETECTOR_VQF_BIAS_V;
      if (f->bias_p[5] < AK_DETECTOR_VQF_BIAS_P0) f->bias_p[5] += AK_DETECTOR_VQF_BIAS_V;
      if (!measured) return;
      ak_detector_clip(e, AK_DETECTOR_VQF_BIAS_CLIP);
      /* K = P H^T (W + H P H^T)^-1; P -= K H P. */
      ak_detector_sym_full(f->bias_p, p);
      if (rest_step) {
        for (i = 0; i < 9; i++) pht[i] = p[i];
        for (i = 0; i < 6; i++) sm[i] = f->bias_p[i];
      } else {
        ak_detector_transpose(h, ht);
        ak_detector_mat_mul(p, ht, pht);
        ak_detector_transpose(pht, pht_t);
        ak_detector_sym_product(h, pht_t, sm);
      }
      sm[0] = sm[0] + w[0];
      sm[1] = sm[1] + 0;
      sm[2] = sm[2] + 0;
      sm[3] = sm[3] + w[1];
      sm[4] = sm[4] + 0;
      sm[5] = sm[5] + w[2];
      ak_detector_sym_inverse(sm, si);
      ak_detector_sym_full(si, sf);
      ak_detector_mat_mul(pht, sf, k);
      for (i = 0; i < 3; i++) ke[i] = ak_detector_row(k, i, e);
      for (i = 0; i < 3; i++) f->bias[i] = f->bias[i] + ke[i];
      ak_detector_sym_product(k, pht, kp);
      for (i = 0; i < 6; i++) f->bias_p[i] = f->bias_p[i] - kp[i];
      ak_detector_clip(f->bias, AK_DETECTOR_VQF_BIAS_CLIP);
    }

    /* Rest detection's rate test and the strapdown integration of the unbiased rate. */
    static inline void ak_detector_vqf_gyro(ak_detector_fusion *f, const ak_detector_real *gyr, ak_detector_real interval) {
      ak_detector_real lp[3], d[3], u[3], dq[4], q[4], squared, largest, norm;
      int i;
      if (AK_DETECTOR_VQF_REST_ENABLED || AK_DETECTOR_VQF_MAG_REJECTION) {
        AK_DETECTOR_REST_LP(&f->rest_gyr_lp, gyr, lp);
        for (i = 0; i < 3; i++) d[i] = gyr[i] - lp[i];
        squared = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        largest = AK_DETECTOR_MAX(AK_DETECTOR_MAX(AK_DETECTOR_FABS(lp[0]), AK_DETECTOR_FABS(lp[1])), AK_DETECTOR_FABS(lp[2]));
        if (squared >= AK_DETECTOR_VQF_REST_TH_GYR2 || largest > AK_DETECTOR_VQF_BIAS_CLIP) {
          f->rest_t = 0;
          f->rest_detected = 0;
        }
        for (i = 0; i < 3; i++) f->rest_last_gyr_lp[i] = lp[i];
      }
      for (i = 0; i < 3; i++) u[i] = gyr[i] - f->bias[i];
      norm = AK_DETECTOR_SQRT(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
      if (norm > (ak_detector_real)2.220446049250313e-16) {
        /* cos and sin of half the angle: below 0.2 rad their series to the x^10 term. */
        ak_detector_real x = norm * interval / 2, c, sn, x2, k;
        if (!(AK_DETECTOR_FABS(x) < (ak_detector_real)0.1)) {
          c = AK_DETECTOR_COS(x);
          sn = AK_DETECTOR_SIN(x);
        } else {
          x2 = x * x;
          c = 1 - x2 * (ak_detector_real)0.5 *
                    (1 - x2 * ((ak_detector_real)1 / 12) *
                             (1 - x2 * ((ak_detector_real)1 / 30) * (1 - x2 * ((ak_detector_real)1 / 56) * (1 - x2 * ((ak_detector_real)1 / 90)))));
          sn = x * (1 - x2 * ((ak_detector_real)1 / 6) *
                            (1 - x2 * ((ak_detector_real)1 / 20) *
                                     (1 - x2 * ((ak_detector_real)1 / 42) * (1 - x2 * ((ak_detector_real)1 / 72) * (1 - x2 * ((ak_detector_real)1 / 110))))));
        }
        k = sn / norm;
        dq[0] = c;
        dq[1] = k * u[0];
        dq[2] = k * u[1];
        dq[3] = k * u[2];
        ak_detector_quat_mul(f->gyr_quat, dq, q);
        ak_detector_quat_normalize(q);
        for (i = 0; i < 4; i++) f->gyr_quat[i] = q[i];
      }
    }

    /* Rest detection's acceleration test, the inclination correction and the bias update. */
    static inline void ak_detector_vqf_acc(ak_detector_fusion *f, const ak_detector_real *acc) {
      ak_detector_real lp[3], d[3], v[3], low[3], up[3], corr[4], q[4], n, qw;
      int i;
      if (acc[0] == 0 && acc[1] == 0 && acc[2] == 0) return;
      if (AK_DETECTOR_VQF_REST_ENABLED) {
        AK_DETECTOR_REST_LP(&f->rest_acc_lp, acc, lp);
        for (i = 0; i < 3; i++) d[i] = acc[i] - lp[i];
        if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= AK_DETECTOR_VQF_REST_TH_ACC2) {
          f->rest_t = 0;
          f->rest_detected = 0;
        } else {
          f->rest_t += AK_DETECTOR_VQF_TS;
          if (f->rest_t >= AK_DETECTOR_VQF_REST_MIN_T) f->rest_detected = 1;
        }
      }
      /* The acceleration in the almost inertial frame, low-passed, then in the corrected frame:
         its deviation from vertical is the inclination correction. */
      ak_detector_quat_rotate(f->gyr_quat, acc, v);
      AK_DETECTOR_ACC_LP(&f->acc_lp, v, low, 3);
      ak_detector_quat_rotate(f->acc_quat, low, up);
      n = AK_DETECTOR_SQRT(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
      if (n != 0)
        for (i = 0; i < 3; i++) up[i] = up[i] / n;
      qw = AK_DETECTOR_SQRT((up[2] + 1) / 2);
      if (qw > (ak_detector_real)1e-6) {
        corr[0] = qw;
        corr[1] = (ak_detector_real)0.5 * up[1] / qw;
        corr[2] = (ak_detector_real)-0.5 * up[0] / qw;
        corr[3] = 0;
      } else {
        corr[0] = 0, corr[1] = 1, corr[2] = 0, corr[3] = 0;
      }
      ak_detector_quat_mul(corr, f->acc_quat, q);
      ak_detector_quat_normalize(q);
      for (i = 0; i < 4; i++) f->acc_quat[i] = q[i];
      if (AK_DETECTOR_VQF_MOTION_ENABLED || AK_DETECTOR_VQF_REST_ENABLED) ak_detector_vqf_bias(f, up);
    }

    /* Feeds one sample (g, Apple's axes; rad/s) and sets g to gravity in g: the world's down seen
       from the sensor. The gyroscope is integrated over the time since the previous sample (the
       nominal interval for the first, and after a gap of more than ten). */
    static inline void ak_detector_fused_gravity(ak_detector_fusion *f, ak_detector_real t, ak_detector_real x,
                                                 ak_detector_real y, ak_detector_real z, ak_detector_real gx,
                                                 ak_detector_real gy, ak_detector_real gz, ak_detector_real *g) {
      ak_detector_real identity[4] = {1, 0, 0, 0};
      ak_detector_real gyr[3], acc[3], a[4], q[4], o[4], interval = AK_DETECTOR_VQF_TS;
      int i;
      if (f->started) {
        ak_detector_real d = t - f->last_t;
        interval = d <= 10 * AK_DETECTOR_VQF_TS ? AK_DETECTOR_MAX(d, 0) : AK_DETECTOR_VQF_TS;
      }
      f->last_t = t;
      gyr[0] = gx, gyr[1] = gy, gyr[2] = gz;
      acc[0] = x * -AK_DETECTOR_STANDARD_GRAVITY;
      acc[1] = y * -AK_DETECTOR_STANDARD_GRAVITY;
      acc[2] = z * -AK_DETECTOR_STANDARD_GRAVITY;
      ak_detector_vqf_gyro(f, gyr, interval);
      ak_detector_vqf_acc(f, acc);
      ak_detector_quat_mul(f->acc_quat, f->gyr_quat, a);
      ak_detector_quat_mul(identity, a, q); /* the heading correction, none without a magnetometer */
      if (!f->started) {
        /* The turn about the vertical that makes the first yaw 0. */
        ak_detector_real yaw = AK_DETECTOR_ATAN2(0 - 2 * (q[1] * q[2] - q[0] * q[3]), 1 - 2 * (q[1] * q[1] + q[3] * q[3]));
        ak_detector_real angle = -yaw;
        f->offset[0] = AK_DETECTOR_COS(angle / 2);
        f->offset[1] = f->offset[2] = 0;
        f->offset[3] = AK_DETECTOR_SIN(angle / 2);
        f->started = 1;
      }
      if (!(f->offset[0] == 1 && f->offset[1] == 0 && f->offset[2] == 0 && f->offset[3] == 0)) {
        ak_detector_quat_mul(f->offset, q, o);
        for (i = 0; i < 4; i++) q[i] = o[i];
      }
      g[0] = 0 - 2 * (q[1] * q[3] - q[0] * q[2]);
      g[1] = 0 - 2 * (q[0] * q[1] + q[2] * q[3]);
      g[2] = 0 - (1 - 2 * q[1] * q[1] - 2 * q[2] * q[2]);
    }

    """
}
