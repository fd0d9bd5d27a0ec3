/* A product embedding a compiled model: includes only infc/runtime.h (and the per-model
 * header of --header when linked). Runs the model on a deterministic input and writes every
 * output's raw bytes to OUT_PREFIX.<index>.bin for check_embedding.py to compare.
 *   linked:  cc embed_main.c -DINFC_LINKED -include model.h model.so
 *   dlopen:  cc embed_main.c            (then: ./a.out model.so OUT_PREFIX) */
#include "infc/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef INFC_LINKED
#define CALL(fn) infc_##fn
#else
static infc_api api;
#define CALL(fn) api.fn
#endif

int main(int argc, char **argv) {
  const char *prefix = argc > 2 ? argv[2] : "out";
#ifndef INFC_LINKED
  char error[256];
  if (infc_api_open(argv[1], &api, error, sizeof error) != INFC_OK) {
    fprintf(stderr, "open: %s\n", error);
    return 1;
  }
#endif
  infc_model *model;
  if (CALL(model_create)(&model) != INFC_OK)
    return 1;
  infc_session *session;
  if (CALL(session_create)(model, NULL, &session) != INFC_OK)
    return 1;
  size_t n = CALL(model_num_inputs)(model), m = CALL(model_num_outputs)(model);
  infc_tensor *in = calloc(n, sizeof *in), *out = calloc(m, sizeof *out);
  for (size_t i = 0; i < n; ++i) {
    infc_io_info info;
    CALL(model_input_info)(model, i, &info);
    float *data = malloc(info.byte_size);
    for (size_t k = 0; k < info.byte_size / sizeof(float); ++k)
      data[k] = (float)((k * 7 + i) % 13) / 13.0f - 0.5f; /* same formula in the checker */
    in[i].data = data;
    in[i].dtype = info.dtype;
    in[i].rank = info.rank;
    in[i].shape = info.shape;
  }
  /* A wrong call first: it must fail cleanly with a message, not crash. */
  if (CALL(run)(session, in, n + 1, out, m) == INFC_OK) {
    fprintf(stderr, "a run with a wrong input count succeeded\n");
    return 1;
  }
  if (CALL(run)(session, in, n, out, m) != INFC_OK) {
    fprintf(stderr, "run: %s\n", CALL(session_error)(session));
    return 1;
  }
  for (size_t j = 0; j < m; ++j) {
    char path[512];
    snprintf(path, sizeof path, "%s.%zu.bin", prefix, j);
    FILE *f = fopen(path, "wb");
    fwrite(out[j].data, 1, out[j].byte_size, f);
    fclose(f);
  }
  for (size_t i = 0; i < n; ++i)
    free(in[i].data);
  free(in);
  free(out);
  CALL(session_release)(session);
  CALL(model_release)(model);
#ifndef INFC_LINKED
  infc_api_close(&api);
#endif
  printf("ok\n");
  return 0;
}
