/* infc unit tests — a second fake model (y = 2 * x on i32[4], no workspace), so tests can tell
 * two model.so apart when one is linked and the other dlopen()ed. */
#include "infc/runtime.h"
#include "model_desc.h"

#include <stdint.h>

static const int64_t shape_4[] = {4};
static const infc_io_desc inputs[] = {{"x", INFC_I32, 1, shape_4}};
static const infc_io_desc outputs[] = {{"y", INFC_I32, 1, shape_4}};

static void entry(void **args) {
  const int32_t *x = args[1];
  int32_t *y = args[2];
  for (int i = 0; i < 4; ++i)
    y[i] = 2 * x[i] + (args[0] != 0); /* the workspace must be NULL when workspace_bytes is 0 */
}

__attribute__((visibility("hidden"))) const infc_model_desc infc__model_desc = {
    .desc_version = INFC_MODEL_DESC_VERSION,
    .num_inputs = 1,
    .num_outputs = 1,
    .inputs = inputs,
    .outputs = outputs,
    .workspace_bytes = 0,
    .model_name = "doubler",
    .entry = entry,
};
