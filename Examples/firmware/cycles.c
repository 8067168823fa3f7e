/* cycles.c: an exported detector fed a recording held in its image, built for the Cortex-M4F and
 * run instruction by instruction, to measure what each sample costs it (scripts/device_time).
 *
 * The samples come from samples.h (scripts/device_time writes it from a CSV):
 *   AK_SAMPLE_COUNT rows of AK_SAMPLE_WIDTH values (4: t, x, y, z; 7: with gx, gy, gz) in
 *   `static const ak_detector_real ak_samples[]`.
 * Before each sample the program calls ak_cycles_mark(), whose address the script looks for in the
 * trace of executed instructions: what runs between two marks is one sample's cost. Built with
 * -DACCELKIT_DEVICE_EMPTY, the same loop runs without the detector (nor the samples' reading),
 * and its cost a sample (the loop and the mark) is taken off.
 *
 * There is no C library start-up and no I/O but two Linux system calls (write, exit), so that the
 * image runs under an emulator's user mode: it prints the number of events the detector ended,
 * which the script checks against detect-shakes.
 */
#ifndef ACCELKIT_DEVICE_EMPTY
#include "accelkit_detector.h"
#else
typedef float ak_detector_real;
#endif

#include "samples.h"

static long ak_cycles_syscall(long number, long a, long b, long c) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r7 __asm__("r7") = number;
  __asm__ volatile("svc 0" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r7) : "memory");
  return r0;
}

/* The mark: not inlined, so that its first instruction's address is in the trace once a sample. */
__attribute__((noinline)) void ak_cycles_mark(void) { __asm__ volatile("" ::: "memory"); }

#ifndef ACCELKIT_DEVICE_EMPTY
static volatile ak_detector_real sink;
static ak_detector_state state;

static long hand_out(int ended, ak_detector_event *e) {
  long n = 0;
  while (ended) {
    sink = e->start + e->end + e->reported;
    n++;
    ended = ak_detector_next(&state, e);
  }
  return n;
}

static long run(void) {
  ak_detector_event e;
  long i, events = 0;
  ak_detector_init(&state);
  for (i = 0; i < AK_SAMPLE_COUNT; i++) {
    const ak_detector_real *r = ak_samples + AK_SAMPLE_WIDTH * i;
    ak_cycles_mark();
#if AK_SAMPLE_WIDTH == 7
    events += hand_out(ak_detector_push_gyro(&state, r[0], r[1], r[2], r[3], r[4], r[5], r[6], &e), &e);
#else
    events += hand_out(ak_detector_push(&state, r[0], r[1], r[2], r[3], &e), &e);
#endif
  }
  ak_cycles_mark();
  events += hand_out(ak_detector_finish(&state, &e), &e);
  return events;
}
#else
static long run(void) {
  long i;
  for (i = 0; i < AK_SAMPLE_COUNT; i++) ak_cycles_mark();
  ak_cycles_mark();
  return (long)(sizeof ak_samples / sizeof ak_samples[0]) - AK_SAMPLE_COUNT * AK_SAMPLE_WIDTH;
}
#endif

void _start(void) {
  char text[24];
  int n = 0, k;
  long events = run();
  char digits[24];
  do {
    digits[n++] = (char)('0' + events % 10);
    events /= 10;
  } while (events > 0);
  for (k = 0; k < n; k++) text[k] = digits[n - 1 - k];
  text[n++] = '\n';
  ak_cycles_syscall(4, 1, (long)text, n);
  ak_cycles_syscall(1, 0, 0, 0);
  for (;;) {
  }
}
