/* infc_llm_sample alone on 49,152 logits (SmolLM2's vocabulary; a flat synthetic
 * distribution, the hard case for a top-p cut): milliseconds per sampled token for top-k +
 * top-p, top-p alone and no cut.
 *
 *   clang-22 -O2 -Iinclude -Iruntime bench/sampling.c unittests/runtime/fake_model.c \
 *     -Wl,--whole-archive build/lib/libinfc_runtime.a -Wl,--no-whole-archive -lm \
 *     -o /tmp/sampling && /tmp/sampling
 */
#include "infc/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
int main(void) {
  int V = 49152;
  float *l = malloc(sizeof(float) * V);
  for (int i = 0; i < V; ++i)
    l[i] = (float)((i * 2654435761u) % 10007) / 1000.0f;
  infc_llm_sampling cases[3] = {{0.8f, 40, 0.9f}, {0.8f, 0, 0.9f}, {1.0f, 0, 0.0f}};
  for (int c = 0; c < 3; ++c) {
    uint64_t st = infc_llm_seed(1);
    int64_t tok;
    double t = now();
    for (int i = 0; i < 50; ++i)
      infc_llm_sample(l, V, &cases[c], &st, &tok);
    printf("T %.1f top_k %d top_p %.1f: %.3f ms per sample\n", cases[c].temperature, cases[c].top_k,
           cases[c].top_p, (now() - t) / 50);
  }
}
