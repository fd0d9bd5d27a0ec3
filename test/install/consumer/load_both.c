/* Loads two model.so files at run time and runs each on fixed inputs, printing the outputs
 * (test/e2e/check_install.py compares them with numpy). */
#include <infc/runtime.h>
#include <stdio.h>

static int run(const char *path, float *x, int64_t *shape, int rank) {
  infc_api api;
  char err[512];
  if (infc_api_open(path, &api, err, sizeof err) != INFC_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  infc_model *m = NULL;
  infc_session *s = NULL;
  infc_tensor in = {.data = x, .dtype = INFC_F32, .rank = rank, .shape = shape};
  infc_tensor out = {0};
  int ok = api.model_create(&m) == INFC_OK && api.session_create(m, NULL, &s) == INFC_OK;
  if (ok && api.run(s, &in, 1, &out, 1) == INFC_OK) {
    const float *y = out.data;
    int64_t n = 1;
    for (int d = 0; d < out.rank; ++d)
      n *= out.shape[d];
    printf("%s", path);
    for (int64_t i = 0; i < n; ++i)
      printf(" %.9g", y[i]);
    printf("\n");
  } else {
    ok = 0;
  }
  if (!ok)
    fprintf(stderr, "%s: failed\n", path);
  api.session_release(s);
  api.model_release(m);
  infc_api_close(&api);
  return !ok;
}

int main(void) {
  float x[16], a[6];
  for (int i = 0; i < 16; ++i)
    x[i] = (float)(i - 7) / 8;
  for (int i = 0; i < 6; ++i)
    a[i] = (float)i / 4;
  int64_t xs[2] = {2, 8}, as[2] = {2, 3};
  return run(DENSE_SO, x, xs, 2) | run(AFFINE_SO, a, as, 2);
}
