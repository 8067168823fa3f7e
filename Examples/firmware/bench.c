/* bench.c: the throughput of an exported detector's push, on a trace held in memory.
 *
 *   cc -std=c99 -O2 -I DIR Examples/firmware/bench.c -o bench -lm
 *   (a learned model's trees stop early; add -DAK_DETECTOR_ALL_TREES to walk them all, or
 *   -DAK_DETECTOR_TREE_TABLE for its trees as a table; docs/EXPORT.md)
 *   ./bench trace.csv        (t,x,y,z or t,x,y,z,gx,gy,gz with a header; at least 1 s of work
 *                             is timed; with the gyroscope every sample goes to push_gyro)
 *
 * Prints: samples pushed, seconds, samples per second, events found per pass.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "accelkit_detector.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  FILE *f;
  char line[4096];
  ak_detector_real *data = NULL;
  long n = 0, capacity = 0, passes = 0, events = 0, i;
  int width = 0; /* 4 or 7 values a row, set by the first row */
  double start, elapsed;
  ak_detector_state *s = (ak_detector_state *)malloc(sizeof(ak_detector_state));
  ak_detector_event e;
  if (argc != 2 || !s || !(f = fopen(argv[1], "r"))) {
    fputs("usage: bench trace.csv\n", stderr);
    return 64;
  }
  if (!fgets(line, sizeof line, f)) return 65;
  while (fgets(line, sizeof line, f)) {
    double v[7];
    int k, read = sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6);
    if (width == 0) width = read >= 7 ? 7 : 4;
    if (read < width) continue;
    if (n == capacity) {
      capacity = capacity ? 2 * capacity : 1 << 16;
      data = (ak_detector_real *)realloc(data, (size_t)capacity * (size_t)width * sizeof *data);
      if (!data) return 71;
    }
    for (k = 0; k < width; k++) data[width * n + k] = (ak_detector_real)v[k];
    n++;
  }
  fclose(f);
  if (n == 0) return 65;
  start = now();
  do {
    long found = 0;
    ak_detector_init(s);
    for (i = 0; i < n; i++) {
      const ak_detector_real *r = data + width * i;
      if (width == 7 ? ak_detector_push_gyro(s, r[0], r[1], r[2], r[3], r[4], r[5], r[6], &e)
                     : ak_detector_push(s, r[0], r[1], r[2], r[3], &e))
        for (found++; ak_detector_next(s, &e); found++) continue;
    }
    if (ak_detector_finish(s, &e))
      for (found++; ak_detector_next(s, &e); found++) continue;
    events = found;
    passes++;
  } while ((elapsed = now() - start) < 1.0);
  printf("%ld samples in %.3f s: %.3g samples/s, %ld events per pass\n", n * passes, elapsed,
         (double)(n * passes) / elapsed, events);
  free(data);
  free(s);
  return 0;
}
