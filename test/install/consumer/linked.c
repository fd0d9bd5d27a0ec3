/* Links dense.so directly and runs it through its typed header (dense.h, from
 * infc_compile_model's HEADER), printing the output. */
#include "dense.h"
#include <stdio.h>

int main(void) {
  float x[dense_input_x_COUNT], y[dense_output_z_COUNT];
  for (int i = 0; i < dense_input_x_COUNT; ++i)
    x[i] = (float)(i - 7) / 8;
  infc_model *m = NULL;
  infc_session *s = NULL;
  if (infc_model_create(&m) != INFC_OK || infc_session_create(m, NULL, &s) != INFC_OK ||
      dense_run(s, x, y) != INFC_OK) {
    fprintf(stderr, "linked: %s\n", s ? infc_session_error(s) : "cannot create the model");
    return 1;
  }
  printf("linked");
  for (int i = 0; i < dense_output_z_COUNT; ++i)
    printf(" %.9g", y[i]);
  printf("\n");
  infc_session_release(s);
  infc_model_release(m);
  return 0;
}
