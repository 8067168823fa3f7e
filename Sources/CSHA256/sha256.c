// SHA-256's compression function on the processor's SHA instructions (x86 SHA-NI), for
// AccelCore's SHA256, which keeps its portable Swift compression for other processors.
#include "csha256.h"

// SHA-256's round constants (FIPS 180-4, 4.2.2).
static const uint32_t round_constants[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

const uint32_t *ak_sha256_round_constants(void) { return round_constants; }

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

int ak_sha256_hardware(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  int ssse3 = (c >> 9) & 1;
  int sse41 = (c >> 19) & 1;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  int sha = (b >> 29) & 1;
  return ssse3 && sse41 && sha;
}


__attribute__((target("sha,sse4.1,ssse3")))
void ak_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t count) {
  // The instructions keep the working variables as (a, b, e, f) and (c, d, g, h), a and c in
  // the top lane; the state is a..h in memory order.
  const __m128i big_endian = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
  __m128i abcd = _mm_loadu_si128((const __m128i *)state);
  __m128i efgh = _mm_loadu_si128((const __m128i *)(state + 4));
  __m128i badc = _mm_shuffle_epi32(abcd, 0xB1);
  __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);
  __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xF0);
  for (; count > 0; count--, data += 64) {
    const __m128i abef_before = abef;
    const __m128i cdgh_before = cdgh;
    // The message schedule in groups of four words, the last four groups kept.
    __m128i w[4];
    for (int group = 0; group < 16; group++) {
      __m128i words;
      if (group < 4) {
        words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), big_endian);
      } else {
        const __m128i back4 = w[group & 3];
        const __m128i back3 = w[(group + 1) & 3];
        const __m128i back2 = w[(group + 2) & 3];
        const __m128i back1 = w[(group + 3) & 3];
        words = _mm_sha256msg1_epu32(back4, back3);
        words = _mm_add_epi32(words, _mm_alignr_epi8(back1, back2, 4));
        words = _mm_sha256msg2_epu32(words, back1);
      }
      w[group & 3] = words;
      // Four rounds, two at a time: each pair's result is the next (a, b, e, f), and the last
      // (a, b, e, f) becomes (c, d, g, h).
      __m128i added = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)(round_constants + 4 * group)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, added);
      added = _mm_shuffle_epi32(added, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, added);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)state, _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}

#else

int ak_sha256_hardware(void) { return 0; }

void ak_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t count) {
  (void)state;
  (void)data;
  (void)count;
}

#endif
