/* infc — docs/abi.md's dlopen example: runs any model.so on zero inputs, printing its outputs. */
#include <infc/runtime.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  infc_api api;
  char err[512];
  if (argc != 2 || infc_api_open(argv[1], &api, err, sizeof err) != INFC_OK) {
    fprintf(stderr, "%s\n", argc != 2 ? "usage: dlopen model.so" : err);
    return 1;
  }
  infc_model *m;
  infc_session *s;
  if (api.model_create(&m) != INFC_OK ||
      api.session_create(m, &(infc_session_options){.num_threads = 1}, &s) != INFC_OK)
    return 1;
  size_t ni = api.model_num_inputs(m), no = api.model_num_outputs(m);
  infc_tensor *in = calloc(ni, sizeof *in), *out = calloc(no, sizeof *out);
  for (size_t i = 0; i < ni; ++i) { /* zeros shaped as the model declares */
    infc_io_info io;
    api.model_input_info(m, i, &io);
    in[i] = (infc_tensor){
        .data = calloc(1, io.byte_size + 1), .dtype = io.dtype, .rank = io.rank, .shape = io.shape};
  }
  infc_status st = api.run(s, in, ni, out, no); /* out[j] = {0}: library-owned */
  for (size_t j = 0; st == INFC_OK && j < no; ++j) {
    infc_io_info io;
    api.model_output_info(m, j, &io);
    printf("%s: %s, rank %d, %zu bytes\n", io.name, api.dtype_name(out[j].dtype), (int)out[j].rank,
           out[j].byte_size);
  }
  if (st != INFC_OK)
    fprintf(stderr, "run: %s\n", api.session_error(s));
  for (size_t i = 0; i < ni; ++i)
    free(in[i].data);
  free(in);
  free(out);
  api.session_release(s);
  api.model_release(m);
  infc_api_close(&api);
  return st != INFC_OK;
}
