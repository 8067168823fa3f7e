/* Exponential features' update, the hot loop of detect-shakes' default: the arithmetic
   ExponentialFeatures documents, four widths at a time in vectors of four doubles. It is compiled
   twice, for the baseline (SSE2 on x86-64: two doubles an instruction) and for AVX2 (four),
   and the processor chooses at run time. Only vector adds, subtractions, multiplications,
   comparisons and selections, never contracted into fused multiply-adds: both give the same bits
   as the exported C computing one width at a time. */
#include "accelkit_kernels.h"

#include <math.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma STDC FP_CONTRACT OFF
#endif

typedef double ak_v4 __attribute__((vector_size(32), aligned(8)));
typedef long long ak_m4 __attribute__((vector_size(32), aligned(8)));

#define AK_SPLAT(x) ((ak_v4){(x), (x), (x), (x)})

/* Where the mask m is set a, else b (a macro: vectors passed by value would change the ABI). */
#define AK_PICK(m, a, b) ((ak_v4)((((ak_m4)(a)) & (m)) | (((ak_m4)(b)) & ~(m))))

static inline __attribute__((always_inline)) void ak_update_body(double *lanes_d, double *previous,
                                                                 const double *values,
                                                                 const ak_exponential_layout *l) {
  ak_v4 *lanes = (ak_v4 *)lanes_d;
  const long signals = l->signals, chunks = l->chunks, bands = l->bands, band_chunks = l->band_chunks;
  const long block = l->block, keeps = l->keeps_at, joint = l->joint_at, filters = l->filters_at;
  const long delays = l->delays_at, blocks = l->signals_at;
  const ak_v4 rate = AK_SPLAT(l->rate), zero = AK_SPLAT(0.0), one = AK_SPLAT(1.0), minus = AK_SPLAT(-1.0);
  const ak_v4 h = AK_SPLAT(l->hysteresis), nh = AK_SPLAT(-l->hysteresis);
  long s, c, k, j;
  for (s = 0; s < signals; s++) {
    const double v = values[s];
    double change;
    ak_v4 value, square, magnitude, change_square;
    if (!isfinite(v)) continue;
    change = v - previous[s];
    previous[s] = v;
    value = AK_SPLAT(v);
    square = AK_SPLAT(v * v);
    magnitude = AK_SPLAT(fabs(v));
    change_square = AK_SPLAT(change * change);
    /* The bands: each filter once, its output's power at every width below. */
    for (c = 0; c < band_chunks; c++) {
      const long f = filters + 6 * c, z = delays + 2 * (s * band_chunks + c);
      const ak_v4 y = lanes[f] * value + lanes[z];
      lanes[z] = lanes[f + 1] * value - lanes[f + 3] * y + lanes[z + 1];
      lanes[z + 1] = lanes[f + 2] * value - lanes[f + 4] * y;
      lanes[f + 5] = y * y;
    }
    for (c = 0; c < chunks; c++) {
      const long at = blocks + (s * chunks + c) * block;
      const ak_v4 a = lanes[c], keep = lanes[keeps + c];
      const ak_v4 d = value - lanes[at];
      const ak_v4 mean = lanes[at] + a * d;
      ak_v4 envelope, maximum, minimum, e, side, last, crossed;
      lanes[at] = mean;
      lanes[at + 1] = keep * (lanes[at + 1] + a * d * d);
      lanes[at + 2] = lanes[at + 2] + a * (square - lanes[at + 2]);
      /* max(p, q) is q >= p ? q : p and min(p, q) is q < p ? q : p, as in Swift and the C. */
      envelope = keep * lanes[at + 3];
      lanes[at + 3] = AK_PICK(envelope >= magnitude, envelope, magnitude);
      maximum = keep * lanes[at + 6];
      lanes[at + 6] = AK_PICK(maximum >= value, maximum, value);
      minimum = keep * lanes[at + 7];
      lanes[at + 7] = AK_PICK(minimum < value, minimum, value);
      lanes[at + 8] = lanes[at + 8] + a * (change_square - lanes[at + 8]);
      /* A crossing: the side of v - mean turns to the opposite of the last nonzero one. */
      e = value - mean;
      side = AK_PICK(e > h, one, zero);
      side = AK_PICK(e < nh, minus, side);
      last = lanes[at + 5];
      crossed = AK_PICK(side * last < zero, rate, zero);
      lanes[at + 5] = AK_PICK(side != zero, side, last);
      lanes[at + 4] = lanes[at + 4] + a * (crossed - lanes[at + 4]);
      if (s < 3) lanes[joint + 6 * c + 3 + s] = d;
      for (k = 0; k < band_chunks; k++) {
        const ak_v4 squares = lanes[filters + 6 * k + 5];
        const long n = bands - 4 * k < 4 ? bands - 4 * k : 4;
        for (j = 0; j < n; j++) {
          const long p = at + 9 + 4 * k + j;
          lanes[p] = lanes[p] + a * (AK_SPLAT(squares[j]) - lanes[p]);
        }
      }
    }
  }
  for (c = 0; c < chunks; c++) {
    const ak_v4 a = lanes[c], keep = lanes[keeps + c];
    const long at = joint + 6 * c;
    const ak_v4 dx = lanes[at + 3], dy = lanes[at + 4], dz = lanes[at + 5];
    lanes[at] = keep * (lanes[at] + a * dx * dy);
    lanes[at + 1] = keep * (lanes[at + 1] + a * dx * dz);
    lanes[at + 2] = keep * (lanes[at + 2] + a * dy * dz);
  }
  if (!l->attitude) return;
  for (j = 0; j < 6; j++) {
    const double v = values[10 + j];
    if (!isfinite(v)) continue;
    for (c = 0; c < chunks; c++) {
      const long m = l->attitude_at + 6 * c + j;
      lanes[m] = lanes[m] + lanes[c] * (AK_SPLAT(v) - lanes[m]);
    }
  }
}

void ak_exponential_update_baseline(double *lanes, double *previous, const double *values,
                                    const ak_exponential_layout *l) {
  ak_update_body(lanes, previous, values, l);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2"))) static void ak_update_avx2(double *lanes, double *previous, const double *values,
                                                           const ak_exponential_layout *l) {
  ak_update_body(lanes, previous, values, l);
}

int ak_exponential_update_is_wide(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") ? 1 : 0;
}

void ak_exponential_update(double *lanes, double *previous, const double *values, const ak_exponential_layout *l) {
  /* The processor's answer, asked once (threads that race here store the same value). */
  static int wide = -1;
  int known = __atomic_load_n(&wide, __ATOMIC_RELAXED);
  if (known < 0) {
    known = ak_exponential_update_is_wide();
    __atomic_store_n(&wide, known, __ATOMIC_RELAXED);
  }
  if (known)
    ak_update_avx2(lanes, previous, values, l);
  else
    ak_exponential_update_baseline(lanes, previous, values, l);
}
#else
int ak_exponential_update_is_wide(void) { return 0; }

void ak_exponential_update(double *lanes, double *previous, const double *values, const ak_exponential_layout *l) {
  ak_exponential_update_baseline(lanes, previous, values, l);
}
#endif
