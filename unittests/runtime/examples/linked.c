/* infc — docs/abi.md's linked example: a host linked with the fake model.so (a + b). */
#include <infc/runtime.h>
#include <stdio.h>

int main(void) {
  float a[2][3] = {{1, 2, 3}, {4, 5, 6}}, b[3] = {10, 20, 30}, sum[2][3];
  infc_model *m;
  infc_session *s;
  if (infc_model_create(&m) != INFC_OK || infc_session_create(m, NULL, &s) != INFC_OK)
    return 1;
  infc_tensor in[2] = {{.data = a, .dtype = INFC_F32, .rank = 2, .shape = (int64_t[]){2, 3}},
                       {.data = b, .dtype = INFC_F32, .rank = 1, .shape = (int64_t[]){3}}};
  infc_tensor out[3] = {{.data = sum, .dtype = INFC_F32, .rank = 2, .shape = (int64_t[]){2, 3}}};
  /* out[1] and out[2] are {0}: library-owned, filled in by infc_run. */
  infc_status st = infc_run(s, in, 2, out, 3);
  if (st != INFC_OK)
    fprintf(stderr, "infc_run: %s: %s\n", infc_status_string(st), infc_session_error(s));
  else
    printf("sum[1][2] = %g, total = %g\n", sum[1][2], *(double *)out[2].data);
  infc_session_release(s);
  infc_model_release(m);
  return st != INFC_OK;
}
