/// AccelCore's `PrincipalAxis` in C, one helper for every exported detector that follows u's
/// principal axis (the swing rule's export and a model's swing features), so that the two headers
/// cannot drift apart: the same operations in the same order as the Swift.
enum PrincipalAxisC {
  /// `ak_detector_principal_axis(c, v, ux, uy, uz, b)`: reads u into the covariance c (xx, yy, zz,
  /// xy, xz, yz) with weight b and replaces v, the last axis, with the new one.
  static let helper = """
    /* u's exponentially weighted covariance c (xx, yy, zz, xy, xz, yz; weight b) and its principal
       axis v, which comes in as the last axis and leaves as the new one: started again from the
       device axis of the largest variance when that holds more than twice v' c v (power iteration
       cannot leave an orthogonal vector), then two steps of power iteration (stopped while |c v|
       is at most 1e-12), with the last axis' sign kept so that u's projection does not flip. */
    static inline void ak_detector_principal_axis(ak_detector_real c[6], ak_detector_real v[3], ak_detector_real ux,
                                                  ak_detector_real uy, ak_detector_real uz, ak_detector_real b) {
      ak_detector_real v0 = v[0], v1 = v[1], v2 = v[2], along, largest;
      int i;
      c[0] += b * (ux * ux - c[0]);
      c[1] += b * (uy * uy - c[1]);
      c[2] += b * (uz * uz - c[2]);
      c[3] += b * (ux * uy - c[3]);
      c[4] += b * (ux * uz - c[4]);
      c[5] += b * (uy * uz - c[5]);
      along = v0 * (c[0] * v0 + c[3] * v1 + c[4] * v2) + v1 * (c[3] * v0 + c[1] * v1 + c[5] * v2)
              + v2 * (c[4] * v0 + c[5] * v1 + c[2] * v2);
      largest = AK_DETECTOR_MAX(AK_DETECTOR_MAX(c[0], c[1]), c[2]);
      if (largest > 2 * along) {
        v0 = c[0] == largest ? 1 : 0;
        v1 = c[0] != largest && c[1] == largest ? 1 : 0;
        v2 = c[0] != largest && c[1] != largest ? 1 : 0;
      }
      for (i = 0; i < 2; i++) {
        ak_detector_real w0 = c[0] * v0 + c[3] * v1 + c[4] * v2, w1 = c[3] * v0 + c[1] * v1 + c[5] * v2;
        ak_detector_real w2 = c[4] * v0 + c[5] * v1 + c[2] * v2, n = AK_DETECTOR_SQRT(w0 * w0 + w1 * w1 + w2 * w2);
        if (!(n > (ak_detector_real)1e-12)) break;
        v0 = w0 / n;
        v1 = w1 / n;
        v2 = w2 / n;
      }
      if (v0 * v[0] + v1 * v[1] + v2 * v[2] < 0) {
        v0 = -v0;
        v1 = -v1;
        v2 = -v2;
      }
      v[0] = v0;
      v[1] = v1;
      v[2] = v2;
    }

    """
}
