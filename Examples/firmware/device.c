/* device.c: an exported detector (accelkit export) held as firmware holds it, to measure what it
 * costs a microcontroller: one static state, samples from a function the firmware provides,
 * events handed to another. Built twice for the target, once as it is and once with
 * -DACCELKIT_DEVICE_EMPTY (the same program without the detector), the difference of the two
 * images' sizes is the detector's: flash = .text + .data, static RAM = .data + .bss.
 *
 *   accelkit export --precision float -o detector
 *   arm-none-eabi-gcc $(cat Examples/firmware/cortex-m4f.flags) -fstack-usage -I detector \
 *     Examples/firmware/device.c -o device.elf -lm
 *   arm-none-eabi-size device.elf
 *
 * The stack the detector needs is in device.su (-fstack-usage): the frames of the functions
 * compiled from the header. scripts/footprint does all of this for every detector.
 */
#ifndef ACCELKIT_DEVICE_EMPTY
#include "accelkit_detector.h"
#else
typedef float ak_detector_real;
#endif

/* What the firmware provides: the next sample (0: none yet; 1: t, x, y, z; 2: with gx, gy, gz)
 * and where events go. Stand-ins here, so that the image links; volatile so that nothing is
 * optimised away. */
static volatile ak_detector_real sensor[7];
static volatile int sensor_kind;
static volatile ak_detector_real sink;

static int read_sample(ak_detector_real v[7]) {
  int i;
  for (i = 0; i < 7; i++) v[i] = sensor[i];
  return sensor_kind;
}

#ifndef ACCELKIT_DEVICE_EMPTY
static ak_detector_state state;

static void on_event(const ak_detector_event *e) { sink = e->start + e->end + e->reported; }

static void hand_out(int ended, ak_detector_event *e) {
  while (ended) {
    on_event(e);
    ended = ak_detector_next(&state, e);
  }
}

int main(void) {
  ak_detector_real v[7];
  ak_detector_event e;
  int kind;
  ak_detector_init(&state);
  while ((kind = read_sample(v)) != 0)
    hand_out(kind == 2 ? ak_detector_push_gyro(&state, v[0], v[1], v[2], v[3], v[4], v[5], v[6], &e)
                       : ak_detector_push(&state, v[0], v[1], v[2], v[3], &e),
             &e);
  hand_out(ak_detector_finish(&state, &e), &e);
  return 0;
}
#else
int main(void) {
  ak_detector_real v[7];
  while (read_sample(v) != 0) sink = v[0];
  return 0;
}
#endif
