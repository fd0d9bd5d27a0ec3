/* infc unit tests — a hand-written stand-in for the compiler's output: a descriptor and an entry.
 *
 * Inputs a: f32[2,3], b: f32[3]. Outputs sum = a + b (broadcast over rows): f32[2,3],
 * row_sum = (int64) row sums of sum: i64[2], total = sum of all of sum: f64 scalar. The entry
 * stages `sum` in its 100-byte workspace so that a missing, shared or misaligned workspace
 * shows up in the results (and under ASan). */
#include "infc/runtime.h"
#include "model_desc.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define WORKSPACE_BYTES 100 /* deliberately not a multiple of the 64-byte alignment */

static const int64_t shape_2x3[] = {2, 3};
static const int64_t shape_3[] = {3};
static const int64_t shape_2[] = {2};

static const infc_io_desc inputs[] = {
    {"a", INFC_F32, 2, shape_2x3},
    {"b", INFC_F32, 1, shape_3},
};
static const infc_io_desc outputs[] = {
    {"sum", INFC_F32, 2, shape_2x3},
    {"row_sum", INFC_I64, 1, shape_2},
    {"total", INFC_F64, 0, NULL},
};

static void entry(void **args) {
  float *ws = args[0];
  const float *a = args[1], *b = args[2];
  float *sum = args[3];
  int64_t *row_sum = args[4];
  double *total = args[5];
  if (!ws || ((uintptr_t)ws & 63u) != 0) { /* the runtime broke its promise: poison */
    for (int i = 0; i < 6; ++i)
      sum[i] = NAN;
    row_sum[0] = row_sum[1] = -1;
    *total = NAN;
    return;
  }
  memset(ws, 0xab, WORKSPACE_BYTES); /* touches all of it: ASan checks the allocation size */
  for (int i = 0; i < 6; ++i)
    ws[i] = a[i] + b[i % 3];
  *total = 0;
  for (int r = 0; r < 2; ++r) {
    float row = 0;
    for (int c = 0; c < 3; ++c) {
      sum[r * 3 + c] = ws[r * 3 + c];
      row += ws[r * 3 + c];
      *total += ws[r * 3 + c];
    }
    row_sum[r] = (int64_t)row;
  }
}

__attribute__((visibility("hidden"))) const infc_model_desc infc__model_desc = {
    .desc_version = INFC_MODEL_DESC_VERSION,
    .num_inputs = 2,
    .num_outputs = 3,
    .inputs = inputs,
    .outputs = outputs,
    .workspace_bytes = WORKSPACE_BYTES,
    .model_name = "fake_add",
    .entry = entry,
};
