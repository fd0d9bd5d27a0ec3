/* The runtime's decoder attention kernel alone (runtime/kv.c, infc__paged_attention), as a
 * plain call: one sequence of T rows attending causally to itself (SmolLM2's geometry: 9
 * query heads over 3 KV heads of 64), the best of 7 calls and its multiply-adds per second
 * (QK^T and PV, the causal half), on one thread (no session pool entered).
 *
 *   clang-22 -O2 -Iinclude -Iruntime bench/paged_attention.c unittests/runtime/fake_model.c \
 *     -Wl,--whole-archive build/lib/libinfc_runtime.a -Wl,--no-whole-archive -lm \
 *     -o /tmp/paged_attention && /tmp/paged_attention 512
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void infc__paged_attention(int32_t layer, int64_t rows, int32_t heads, int32_t kv_heads,
                           int32_t head_dim, float scale, const float *q, const float *k,
                           const float *v, float *out);
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
int main(int argc, char **argv) {
  int T = argc > 1 ? atoi(argv[1]) : 512, H = 9, KV = 3, D = 64;
  float *q = malloc(sizeof(float) * H * T * D), *k = malloc(sizeof(float) * KV * T * D),
        *v = malloc(sizeof(float) * KV * T * D), *o = malloc(sizeof(float) * H * T * D);
  for (long i = 0; i < (long)H * T * D; ++i)
    q[i] = (float)((i * 2654435761u) % 1000) / 1000 - 0.5f;
  for (long i = 0; i < (long)KV * T * D; ++i) {
    k[i] = (float)((i * 40503u) % 1000) / 1000 - 0.5f;
    v[i] = (float)((i * 9973u) % 1000) / 1000 - 0.5f;
  }
  double best = 1e9;
  for (int r = 0; r < 7; ++r) {
    double t = now();
    infc__paged_attention(0, T, H, KV, D, 0.125f, q, k, v, o);
    t = now() - t;
    if (t < best)
      best = t;
  }
  double macs = (double)H * T * (T + 1) / 2 * D * 2;
  printf("T %d: %.2f ms, %.2f G MAC/s, out[7] %g\n", T, best, macs / best / 1e6, o[7]);
  return 0;
}
