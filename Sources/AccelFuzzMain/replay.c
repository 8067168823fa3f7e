/* The entry point of accelkit-fuzz when it is built without libFuzzer (a plain `swift build`):
 * it replays the files named on the command line through the fuzz entry point, so the target
 * always builds and a corpus or a crash input can be re-run. Built with -sanitize=fuzzer,
 * libFuzzer's own (strong) main takes the place of this weak one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__attribute__((weak)) int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "cannot open %s\n", argv[i]);
      return 66;
    }
    size_t capacity = 1 << 16, size = 0, n;
    uint8_t *data = malloc(capacity);
    while ((n = fread(data + size, 1, capacity - size, f)) > 0) {
      size += n;
      if (size == capacity) data = realloc(data, capacity *= 2);
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
  }
  return 0;
}
