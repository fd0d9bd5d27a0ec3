/* infc e2e — runs a model.so built for another architecture, under qemu-user: the C host a
 * product on that machine would be, through infc_api_open and the C ABI only.
 *
 *   cross_runner MODEL.so OUTDIR IN0.bin [IN1.bin ...]
 *
 * Input i is the raw bytes of model input i (its static shape, row-major); each output is
 * written as OUTDIR/out<j>.bin, and one line per output goes to stdout:
 * "out<j> <name> <dtype> <dim0>x<dim1>... <bytes>". Exit 0 on success, 1 with a message on
 * stderr otherwise. Built by check_cross.py with clang --target for the model's triple. */
#include "infc/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc(n > 0 ? (size_t)n : 1);
  if (data && n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = n > 0 ? (size_t)n : 0;
  return data;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cross_runner MODEL.so OUTDIR IN0.bin ...\n");
    return 1;
  }
  char message[512];
  infc_api api;
  if (infc_api_open(argv[1], &api, message, sizeof message) != INFC_OK) {
    fprintf(stderr, "%s\n", message);
    return 1;
  }
  infc_model *model = NULL;
  infc_session *session = NULL;
  int rc = 1;
  if (api.model_create(&model) != INFC_OK || api.session_create(model, NULL, &session) != INFC_OK) {
    fprintf(stderr, "cannot create the model or its session\n");
    goto done;
  }
  size_t ni = api.model_num_inputs(model), no = api.model_num_outputs(model);
  if ((size_t)argc != 3 + ni) {
    fprintf(stderr, "the model has %zu inputs, %d files given\n", ni, argc - 3);
    goto done;
  }
  infc_tensor *in = calloc(ni + 1, sizeof *in), *out = calloc(no + 1, sizeof *out);
  void **data = calloc(ni + 1, sizeof *data);
  for (size_t i = 0; i < ni; ++i) {
    infc_io_info info;
    api.model_input_info(model, i, &info);
    size_t size = 0;
    data[i] = read_file(argv[3 + i], &size);
    if (!data[i] || size != info.byte_size) {
      fprintf(stderr, "input %zu '%s': %s holds %zu bytes, expected %zu\n", i, info.name,
              argv[3 + i], size, info.byte_size);
      goto done;
    }
    in[i] = (infc_tensor){data[i], info.dtype, info.rank, info.shape, size, 0, 0};
  }
  if (api.run(session, in, ni, out, no) != INFC_OK) {
    fprintf(stderr, "run: %s\n", api.session_error(session));
    goto done;
  }
  for (size_t j = 0; j < no; ++j) {
    infc_io_info info;
    api.model_output_info(model, j, &info);
    char path[4096];
    snprintf(path, sizeof path, "%s/out%zu.bin", argv[2], j);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(out[j].data, 1, out[j].byte_size, f) != out[j].byte_size) {
      fprintf(stderr, "cannot write %s\n", path);
      if (f)
        fclose(f);
      goto done;
    }
    fclose(f);
    printf("out%zu %s %s ", j, info.name, api.dtype_name(out[j].dtype));
    for (int32_t k = 0; k < out[j].rank; ++k)
      printf("%s%lld", k ? "x" : "", (long long)out[j].shape[k]);
    printf(" %zu\n", out[j].byte_size);
  }
  rc = 0;
done:
  if (session)
    api.session_release(session);
  if (model)
    api.model_release(model);
  infc_api_close(&api);
  return rc;
}
