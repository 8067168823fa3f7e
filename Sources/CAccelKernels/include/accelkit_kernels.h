#ifndef ACCELKIT_KERNELS_H
#define ACCELKIT_KERNELS_H

/// Where exponential features keep their state in one array of vectors of four doubles (the
/// layout `ExponentialFeatures` documents), and what a grid sample updates.
typedef struct {
  long signals, chunks, bands, band_chunks, block;
  /// The vectors' offsets: the weights (at 0), 1 minus them, the axes' covariances, the bands'
  /// filters, their delays, the signals' averages, the attitude averages.
  long keeps_at, joint_at, filters_at, delays_at, signals_at, attitude_at;
  /// Whether the values hold the directions (six after the signals' ten) for the attitude.
  long attitude;
  double rate, hysteresis;
} ak_exponential_layout;

/// One grid sample (not a segment's first) into exponential features' state: `lanes` holds
/// 4 x the vectors' count doubles, `previous` each signal's last value, `values` the signals' ten
/// values and with the attitude the six directions. The same arithmetic, lane by lane, as the
/// exported C per width; a value that is not finite leaves its signal's state as it is.
void ak_exponential_update(double *lanes, double *previous, const double *values, const ak_exponential_layout *layout);

/// 1 when ak_exponential_update runs in AVX2 (four lanes a vector instruction), else 0 (two).
int ak_exponential_update_is_wide(void);

/// ak_exponential_update compiled for the baseline whatever the processor (for the test that
/// holds both to the same bits).
void ak_exponential_update_baseline(double *lanes, double *previous, const double *values,
                                    const ak_exponential_layout *layout);

#endif
