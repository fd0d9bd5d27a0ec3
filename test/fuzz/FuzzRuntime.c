/* FuzzRuntime.c - libFuzzer target: infc_run's checks of the caller's tensors.
 *
 * The input bytes describe a call: how many inputs and outputs, and for each tensor its
 * dtype, rank, dims, byte_size and whether data and shape are given. The session is the
 * unit tests' fake model (a: f32[2,3], b: f32[3] -> sum, row_sum, total). A call either
 * fails with a status and a message or succeeds with descriptors that match the model;
 * the runtime must never read or write outside the buffers it was given (ASan). */
#include "infc/runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *p;
  size_t n;
} bytes;

static uint8_t take(bytes *b) {
  if (!b->n)
    return 0;
  b->n--;
  return *b->p++;
}

static infc_session *session(void) {
  static infc_model *m;
  static infc_session *s;
  if (!s && (infc_model_create(&m) != INFC_OK || infc_session_create(m, NULL, &s) != INFC_OK))
    abort();
  return s;
}

/* A tensor from the bytes. Its buffer comes from malloc, exactly byte_size bytes when that is
 * given, so that ASan sees any access past what the caller promised; byte_size 0 means "not
 * checked" (the caller promises enough), so then it is larger than any tensor of the model. */
static void *fill(bytes *b, infc_tensor *t, int64_t *shape, int is_output) {
  t->dtype = (infc_dtype)(take(b) % 20);
  int32_t rank = (int32_t)(take(b) % 6);
  t->rank = rank - (take(b) == 255); /* 0..5, sometimes one less (-1) */
  for (int k = 0; k < 8; ++k)
    shape[k] = (int64_t)(int8_t)take(b);
  uint8_t flags = take(b);
  t->shape = (flags & 1) ? NULL : shape;
  size_t given = (size_t)take(b);
  t->byte_size = (flags & 2) ? 0 : given;
  size_t allocated = t->byte_size ? given : 256;
  void *data = NULL;
  if (!(flags & 4) || !is_output) {
    data = (flags & 8) ? NULL : malloc(allocated ? allocated : 1);
    /* Bytes below 0x40 make finite floats under 1 (the fake model converts sums to int64). */
    if (data)
      memset(data, take(b) & 0x3f, allocated);
  }
  t->data = data;
  t->flags = (flags & 16) ? INFC_TENSOR_DEVICE : 0; /* refused: a CPU model */
  t->reserved = 0;
  return data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bytes b = {data, size};
  infc_tensor in[3], out[4];
  int64_t in_shapes[3][8], out_shapes[4][8];
  void *owned[7] = {0};
  memset(in, 0, sizeof in);
  memset(out, 0, sizeof out);
  size_t ni = take(&b) % 4, no = take(&b) % 5;
  for (size_t i = 0; i < ni; ++i)
    owned[i] = fill(&b, &in[i], in_shapes[i], 0);
  for (size_t j = 0; j < no; ++j)
    owned[3 + j] = fill(&b, &out[j], out_shapes[j], 1);
  infc_session *s = session();
  infc_status st = infc_run(s, in, ni, out, no);
  if (st != INFC_OK && !infc_session_error(s)[0])
    abort(); /* a refusal always says why */
  for (int k = 0; k < 7; ++k)
    free(owned[k]);
  return 0;
}
