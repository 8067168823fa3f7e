#ifndef ACCELKIT_CSHA256_H
#define ACCELKIT_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256's 64 round constants.
const uint32_t *ak_sha256_round_constants(void);

/// 1 when this processor has the SHA extensions (x86's SHA-NI, with SSSE3 and SSE4.1), else 0.
int ak_sha256_hardware(void);

/// SHA-256's compression of `count` 64-byte blocks from `data` into `state` (a..h), with the
/// processor's SHA instructions; only when ak_sha256_hardware() is 1.
void ak_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t count);

#endif
