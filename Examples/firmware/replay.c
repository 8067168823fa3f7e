/* replay.c: runs an exported detector (accelkit export) over a CSV read on stdin and prints the
 * events CSV that `accelkit detect-shakes` prints for the same plain t,x,y,z CSV in g:
 *
 *   accelkit export --rule swing -o detector
 *   cc -std=c99 -O2 -I detector Examples/firmware/replay.c -o replay -lm
 *   ./replay < trace.csv > events.csv
 *
 * The input is t,x,y,z[,gx,gy,gz] (seconds, g, Apple's axes, rad/s; a header line is skipped);
 * rows with the gyroscope go to push_gyro, which a detector that reads none treats as push. Numbers are printed in
 * their shortest form that reads back to the same value. A malformed row ends the run with its
 * line and column on stderr and exit status 65.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelkit_detector.h"

/* The shortest %g form of v that reads back as the same ak_detector_real. */
static void print_number(ak_detector_real v) {
  char text[40];
  int digits;
  for (digits = 1; digits <= 17; digits++) {
    snprintf(text, sizeof text, "%.*g", digits, (double)v);
    if (sizeof(ak_detector_real) == sizeof(float) ? (ak_detector_real)strtof(text, NULL) == v
                                                  : (ak_detector_real)strtod(text, NULL) == v)
      break;
  }
  fputs(text, stdout);
}

static void print_event(const ak_detector_event *e) {
  print_number(e->start);
  putchar(',');
  print_number(e->end);
  printf(",%s,%s,", e->label, AK_DETECTOR_RULE);
  print_number(e->reported);
  putchar(',');
  if (e->has_peak) print_number(e->peak_g);
  putchar(',');
  if (e->count >= 0) printf("%ld", e->count);
  printf(",%s,%s\n", e->axis ? e->axis : "", e->cancelled ? "cancelled" : "ended");
}

int main(void) {
  static char line[1 << 16];
  ak_detector_state *state = (ak_detector_state *)malloc(sizeof(ak_detector_state));
  ak_detector_event event;
  long number = 0;
  if (!state) {
    fputs("replay: out of memory\n", stderr);
    return 71;
  }
  ak_detector_init(state);
  puts("start,end,label,rule,reported,peak_g,count,axis,status");
  while (fgets(line, sizeof line, stdin)) {
    double v[7];
    int n = 0;
    char *p = line, *end;
    number++;
    if (line[strspn(line, " \t\r\n")] == '\0') continue; /* blank */
    if (number == 1 && strtod(line, &end) == 0 && end == line) continue; /* the header */
    for (;;) {
      v[n] = strtod(p, &end);
      if (end == p) {
        fprintf(stderr, "Error: stdin:%ld:%ld: expected a number in column %d\n", number, (long)(p - line) + 1, n + 1);
        return 65;
      }
      n++;
      p = end;
      while (*p == ' ') p++;
      if (*p != ',' || n == 7) break;
      p++;
    }
    if (strspn(p, " \t\r\n") != strlen(p) || (n != 4 && n != 7)) {
      fprintf(stderr, "Error: stdin:%ld:%ld: expected t,x,y,z or t,x,y,z,gx,gy,gz\n", number, (long)(p - line) + 1);
      return 65;
    }
    if (n == 7 ? ak_detector_push_gyro(state, (ak_detector_real)v[0], (ak_detector_real)v[1], (ak_detector_real)v[2],
                                       (ak_detector_real)v[3], (ak_detector_real)v[4], (ak_detector_real)v[5],
                                       (ak_detector_real)v[6], &event)
               : ak_detector_push(state, (ak_detector_real)v[0], (ak_detector_real)v[1], (ak_detector_real)v[2],
                                  (ak_detector_real)v[3], &event))
      do print_event(&event);
      while (ak_detector_next(state, &event));
  }
  if (ak_detector_finish(state, &event))
    do print_event(&event);
    while (ak_detector_next(state, &event));
  free(state);
  return 0;
}
