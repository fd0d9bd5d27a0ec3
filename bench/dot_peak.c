/* Multiply-adds a second on one core: zmm FMAs (fp32) against vdpbf16ps (bf16 pairs into
 * fp32) and, with AVX512_VNNI, vpdpbusd (u8 x s8 quads into i32). Each runs 12 independent
 * accumulator chains (enough to hide a latency of 6 at one instruction a cycle) with no
 * memory traffic, the best of 20 trials: the ceiling that the register kernels of
 * infc-tile-and-vectorize-matmul, infc-bf16-matmul and infc-vnni-matmul are measured against.
 *
 *     cc -O3 -march=native bench/dot_peak.c -o /tmp/dot_peak && /tmp/dot_peak
 *
 * On a Zen 4 core (docs/benchmarks.md, "bf16 on the CPU") vdpbf16ps does twice the
 * multiply-adds of FMAs; on Intel cores with AVX512_BF16 the same as the two FMA ports. */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 12
#define STEPS 200000

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs STEPS x CHAINS instructions `STEP` of MACS multiply-adds each, 20 times; prints the
 * best rate. OPAQUE hides the operands' values from the compiler (a known product would
 * fold to an add); the empty asm after each step keeps the steps between the clock reads
 * (pure register arithmetic may otherwise move past them) and the chains apart. */
#define PEAK(NAME, TYPE, OPAQUE, ZERO, STEP, MACS)                                                 \
  do {                                                                                             \
    double best = 0;                                                                               \
    for (int trial = 0; trial < 20; ++trial) {                                                     \
      TYPE acc[CHAINS];                                                                            \
      OPAQUE;                                                                                      \
      for (int c = 0; c < CHAINS; ++c)                                                             \
        acc[c] = ZERO;                                                                             \
      double t = now();                                                                            \
      for (int s = 0; s < STEPS; ++s)                                                              \
        for (int c = 0; c < CHAINS; ++c) {                                                         \
          acc[c] = STEP;                                                                           \
          __asm__ volatile("" : "+v"(acc[c]));                                                     \
        }                                                                                          \
      t = now() - t;                                                                               \
      double rate = (double)STEPS * CHAINS * (MACS) / t;                                           \
      best = rate > best ? rate : best;                                                            \
    }                                                                                              \
    printf("%-10s %7.1f G multiply-adds/s\n", NAME, best * 1e-9);                                  \
  } while (0)

int main(void) {
#ifdef __AVX512F__
  __m512 x = _mm512_set1_ps(1.0f), y = _mm512_set1_ps(0.5f);
  PEAK("fma", __m512, __asm__ volatile("" : "+v"(x), "+v"(y)), _mm512_setzero_ps(),
       _mm512_fmadd_ps(x, y, acc[c]), 16);
#ifdef __AVX512BF16__
  __m512bh xb = (__m512bh)_mm512_set1_epi16(0x3f80), yb = (__m512bh)_mm512_set1_epi16(0x3f00);
  PEAK("vdpbf16ps", __m512, __asm__ volatile("" : "+v"(xb), "+v"(yb)), _mm512_setzero_ps(),
       _mm512_dpbf16_ps(acc[c], xb, yb), 32);
#endif
#ifdef __AVX512VNNI__
  __m512i xi = _mm512_set1_epi8(1), yi = _mm512_set1_epi8(2);
  PEAK("vpdpbusd", __m512i, __asm__ volatile("" : "+v"(xi), "+v"(yi)), _mm512_setzero_si512(),
       _mm512_dpbusd_epi32(acc[c], xi, yi), 64);
#endif
#else
  puts("dot_peak: needs AVX-512F (-march=native on such a CPU)");
#endif
  return 0;
}
