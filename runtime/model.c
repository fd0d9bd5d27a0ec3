/* infc runtime — models: descriptor validation, reference counting and introspection. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall */
#endif
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Dense byte size of an io into *bytes (0 if a dim is dynamic); 0 if the desc is corrupt or
 * the size overflows. */
static int io_byte_size(const infc_io_desc *io, size_t *bytes) {
  size_t n = infc__dtype_size(io->dtype);
  int dynamic = 0;
  if (!io->name || n == 0 || io->rank < 0 || (io->rank > 0 && !io->shape))
    return 0;
  for (int32_t i = 0; i < io->rank; ++i) {
    int64_t d = io->shape[i];
    if (d == -1) {
      dynamic = 1;
      continue;
    }
    if (d < 0 || (uint64_t)d > SIZE_MAX)
      return 0;
    if (d != 0 && n > SIZE_MAX / (size_t)d)
      return 0;
    n *= (size_t)d;
  }
  *bytes = dynamic ? 0 : n;
  return 1;
}

/* The named dims: sane ranges, every dim_ids entry -1 or a name's index. */
static int dims_valid(const infc_model_desc *desc) {
  if (desc->num_dims && !desc->dims)
    return 0;
  for (uint32_t k = 0; k < desc->num_dims; ++k)
    if (!desc->dims[k].name || desc->dims[k].min < 0 || desc->dims[k].min > desc->dims[k].max)
      return 0;
  size_t num_ios = (size_t)desc->num_inputs + desc->num_outputs;
  for (size_t i = 0; i < num_ios; ++i) {
    const infc_io_desc *io = infc__io(desc, i);
    for (int32_t k = 0; io->dim_ids && k < io->rank; ++k)
      if (io->dim_ids[k] < -1 || io->dim_ids[k] >= (int64_t)desc->num_dims)
        return 0;
  }
  return 1;
}

/* A variant's static shape of `io` into *bytes: 0 if it is corrupt (a negative dim, another
 * value where the model's dim is static) or its size overflows. */
static int variant_byte_size(const infc_io_desc *io, const int64_t *shape, size_t *bytes) {
  size_t n = infc__dtype_size(io->dtype);
  if (io->rank > 0 && !shape)
    return 0;
  for (int32_t i = 0; i < io->rank; ++i) {
    int64_t d = shape[i];
    if (d < 0 || (uint64_t)d > SIZE_MAX || (io->shape[i] != -1 && io->shape[i] != d))
      return 0;
    if (d != 0 && n > SIZE_MAX / (size_t)d)
      return 0;
    n *= (size_t)d;
  }
  *bytes = n;
  return 1;
}

/* Dense bytes of `io` with each -1 dim at `sizes[dim_id]` (a named dim's size) into *bytes; 0
 * if a -1 has no name or the size overflows. */
int infc__io_bytes_at(const infc_io_desc *io, const int64_t *sizes, size_t *bytes) {
  size_t n = infc__dtype_size(io->dtype);
  for (int32_t k = 0; k < io->rank; ++k) {
    int64_t d = io->shape[k];
    if (d == -1) {
      if (!io->dim_ids || io->dim_ids[k] < 0)
        return 0;
      d = sizes[io->dim_ids[k]];
    }
    if (d < 0 || (uint64_t)d > SIZE_MAX || (d != 0 && n > SIZE_MAX / (size_t)d))
      return 0;
    n *= (size_t)d;
  }
  *bytes = n;
  return 1;
}

/* A generic model (INFC_DESC_DIMS_ARG): every -1 dim named, with a finite range, and an
 * output's named by an input; each io's largest size into m->max_bytes. The batch of a batch
 * loop, and the dim of generic code alone (its workspace sized per run, or of no buffer of
 * the dim's size), may have no largest size (max INT64_MAX: infc compile with no flag for
 * it): its ios' max_bytes are 0, sized at each run. 0 if corrupt. */
static int size_generic(const infc_model_desc *desc, infc_model *m) {
  /* (Variants beside generic code: the shapes they were compiled for run them, the others
   * the generic code; beside the batch loop: its blocks.) */
  if (desc->device != INFC_DEVICE_CPU)
    return 0;
  int64_t *maxima = malloc(((size_t)desc->num_dims + 1) * (sizeof *maxima + sizeof(int)));
  if (!maxima)
    return 0;
  int *bound = (int *)(maxima + desc->num_dims + 1), ok = 1;
  for (uint32_t k = 0; k < desc->num_dims; ++k) {
    maxima[k] = desc->dims[k].max;
    bound[k] = 0;
  }
  size_t ni = desc->num_inputs, nio = ni + desc->num_outputs;
  for (size_t i = 0; i < ni; ++i)
    for (int32_t k = 0; desc->inputs[i].dim_ids && k < desc->inputs[i].rank; ++k)
      if (desc->inputs[i].dim_ids[k] >= 0)
        bound[desc->inputs[i].dim_ids[k]] = 1;
  /* The dim id that may have no largest size (-1: any, -2: none): the batch loop's batch
   * (dim id 0 around generic code, else every -1 is the batch's); generic code alone, its
   * one symbolic dim (the compiler placed what depends on it by polynomials,
   * workspace_terms, or nothing does). */
  int32_t open = -2;
  if (desc->flags & INFC_DESC_BATCH_LOOP)
    open = (desc->flags & INFC_DESC_DIMS_ARG) ? 0 : -1;
  else if (desc->flags == INFC_DESC_DIMS_ARG && !desc->num_variants)
    open = desc->workspace_terms ? desc->workspace_dim : -1;
  for (size_t i = 0; i < nio && ok; ++i) {
    const infc_io_desc *io = infc__io(desc, i);
    int per_run = 0;
    for (int32_t k = 0; k < io->rank && ok; ++k) {
      int32_t id = io->dim_ids ? io->dim_ids[k] : -1;
      int unbounded = id >= 0 && maxima[id] == INT64_MAX;
      ok = io->shape[k] != -1 || (id >= 0 && bound[id] && (!unbounded || open == -1 || id == open));
      per_run |= io->shape[k] == -1 && unbounded;
    }
    if (per_run)
      m->max_bytes[i] = 0;
    else
      ok = ok && infc__io_bytes_at(io, maxima, &m->max_bytes[i]);
  }
  free(maxima);
  return ok;
}

/* The batch loop (INFC_DESC_BATCH_LOOP): every -1 dim is dim 0 of its io, of one name; with
 * variants (the loop's blocks), each takes the same rows on every such io, one takes 1.
 * Around generic code (INFC_DESC_DIMS_ARG too): the batch is dim id 0, only at dim 0, and
 * no variants; the other -1 dims are size_generic's. */
static int batch_rows_valid(const infc_model_desc *desc) {
  int around_generic = (desc->flags & INFC_DESC_DIMS_ARG) != 0, carriers = 0;
  int32_t loop = around_generic ? 0 : -1;
  size_t nio = (size_t)desc->num_inputs + desc->num_outputs;
  if (around_generic && desc->num_variants)
    return 0;
  for (size_t i = 0; i < nio; ++i) {
    const infc_io_desc *io = infc__io(desc, i);
    for (int32_t k = 0; k < io->rank; ++k) {
      if (io->shape[k] != -1 || (around_generic && io->dim_ids && io->dim_ids[k] != 0))
        continue;
      if (k != 0 || !io->dim_ids || (loop >= 0 && io->dim_ids[0] != loop))
        return 0;
      loop = io->dim_ids[0];
      ++carriers;
    }
  }
  if (!carriers)
    return 0;
  int one_row = desc->num_variants == 0;
  for (uint32_t v = 0; v < desc->num_variants; ++v) {
    int64_t rows = -1;
    for (size_t i = 0; i < nio; ++i) {
      const infc_io_desc *io = infc__io(desc, i);
      if (io->rank == 0 || io->shape[0] != -1)
        continue;
      int64_t r = i < desc->num_inputs ? desc->variants[v].input_shapes[i][0]
                                       : desc->variants[v].output_shapes[i - desc->num_inputs][0];
      if (r < 1 || (rows >= 0 && r != rows))
        return 0;
      rows = r;
    }
    one_row |= rows == 1;
  }
  return loop >= 0 && one_row;
}

/* The variants' sizes into m (allocated for them); 0 if a variant is corrupt. */
static int size_variants(const infc_model_desc *desc, infc_model *m) {
  size_t ni = desc->num_inputs, nio = ni + desc->num_outputs;
  for (size_t i = 0; i < nio; ++i)
    m->max_bytes[i] = 0;
  for (uint32_t v = 0; v < desc->num_variants; ++v) {
    const infc_variant_desc *var = &desc->variants[v];
    if (!var->label || !var->entry || (ni && !var->input_shapes) ||
        (desc->num_outputs && !var->output_shapes) || (var->num_kernels && !var->kernel_names) ||
        var->workspace_bytes > desc->workspace_bytes)
      return 0;
    for (size_t i = 0; i < nio; ++i) {
      const infc_io_desc *io = infc__io(desc, i);
      const int64_t *shape = i < ni ? var->input_shapes[i] : var->output_shapes[i - ni];
      size_t *bytes = &m->variant_bytes[(size_t)v * nio + i];
      if (!variant_byte_size(io, shape, bytes))
        return 0;
      if (*bytes > m->max_bytes[i])
        m->max_bytes[i] = *bytes;
    }
  }
  return 1;
}

long infc__find_io(const infc_io_desc *ios, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; ++i)
    if (strcmp(ios[i].name, name) == 0)
      return (long)i;
  return -1;
}

/* By-name binding needs names unique within the inputs and within the outputs. */
static int names_unique(const infc_io_desc *ios, uint32_t n) {
  for (uint32_t i = 1; i < n; ++i)
    if (infc__find_io(ios, i, ios[i].name) >= 0)
      return 0;
  return 1;
}

/* Linux hands out AMX tile state only to processes that ask for it (arch_prctl
 * ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); a tile instruction before that faults. Models
 * compiled for a CPU with AMX use it for int8 matmuls. Asking is harmless elsewhere (the
 * call fails and nothing changes) and the permission is per process, for every thread. */
static void request_amx_permission(void) {
#if defined(__linux__) && defined(__x86_64__)
  enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };
  syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
#endif
}

infc_status infc__model_create_from_desc(const infc_model_desc *desc, infc_model **out) {
  if (!out)
    return INFC_ERR_INVALID_ARGUMENT;
  request_amx_permission();
  *out = NULL;
  if (!desc || desc->desc_version != INFC_MODEL_DESC_VERSION || !desc->entry ||
      desc->device > INFC_DEVICE_CUDA || (desc->weights_bytes && !desc->weights) ||
      (desc->device == INFC_DEVICE_CUDA && !desc->weights) || (desc->num_inputs && !desc->inputs) ||
      (desc->num_outputs && !desc->outputs) || (desc->num_kernels && !desc->kernel_names) ||
      (desc->num_variants && (!desc->variants || desc->device != INFC_DEVICE_CPU)))
    return INFC_ERR_INTERNAL;
  if (desc->prepare && desc->prepare())
    return INFC_ERR_UNAVAILABLE;
  size_t num_ios = (size_t)desc->num_inputs + desc->num_outputs;
  /* Sized per run from the named dims: generic code, the batch loop, or both. */
  int generic = (desc->flags & (INFC_DESC_DIMS_ARG | INFC_DESC_BATCH_LOOP)) != 0;
  if (desc->flags & ~(INFC_DESC_DIMS_ARG | INFC_DESC_BATCH_LOOP))
    return INFC_ERR_INTERNAL;
  /* io_bytes, then for a variant model variant_bytes and max_bytes, for a generic one
   * max_bytes */
  size_t sizes =
      num_ios * (1 + (desc->num_variants ? (size_t)desc->num_variants + 1 : 0) + (generic ? 1 : 0));
  infc_model *m = malloc(sizeof *m + sizes * sizeof(size_t));
  if (!m)
    return INFC_ERR_OUT_OF_MEMORY;
  m->io_bytes = (size_t *)(m + 1);
  m->variant_bytes = desc->num_variants ? m->io_bytes + num_ios : NULL;
  m->max_bytes = desc->num_variants ? m->variant_bytes + num_ios * desc->num_variants
                 : generic          ? m->io_bytes + num_ios
                                    : NULL;
  for (size_t i = 0; i < num_ios; ++i) {
    const infc_io_desc *io = infc__io(desc, i);
    if (!io_byte_size(io, &m->io_bytes[i])) {
      free(m);
      return INFC_ERR_INTERNAL;
    }
  }
  if (desc->num_variants && !size_variants(desc, m)) {
    free(m);
    return INFC_ERR_INTERNAL;
  }
  /* A workspace sized per run: the generic code (not around the batch loop) of a named dim,
   * on the CPU. */
  int per_run = desc->workspace_terms != 0;
  if (per_run && (desc->flags != INFC_DESC_DIMS_ARG || !desc->workspace_coeffs ||
                  desc->workspace_dim < 0 || (uint32_t)desc->workspace_dim >= desc->num_dims ||
                  desc->workspace_terms > 8 || desc->num_variants)) {
    free(m);
    return INFC_ERR_INTERNAL;
  }
  if (!names_unique(desc->inputs, desc->num_inputs) ||
      !names_unique(desc->outputs, desc->num_outputs) || !dims_valid(desc) ||
      (generic && !size_generic(desc, m)) ||
      ((desc->flags & INFC_DESC_BATCH_LOOP) && !batch_rows_valid(desc))) {
    free(m);
    return INFC_ERR_INTERNAL;
  }
  m->magic = INFC__MODEL_MAGIC;
  atomic_init(&m->refs, 1u);
  m->desc = desc;
  *out = m;
  return INFC_OK;
}

int infc__model_is_valid(const infc_model *model) {
  return model && model->magic == INFC__MODEL_MAGIC;
}

void infc__model_retain(infc_model *model) {
  atomic_fetch_add_explicit(&model->refs, 1u, memory_order_relaxed);
}

void infc__model_unref(infc_model *model) {
  /* acq_rel: the last owner must see every other owner's writes before freeing. */
  if (atomic_fetch_sub_explicit(&model->refs, 1u, memory_order_acq_rel) == 1u) {
    model->magic = 0;
    free(model);
  }
}

infc_status infc_model_create(infc_model **out) {
  return infc__model_create_from_desc(&infc__model_desc, out);
}

void infc_model_release(infc_model *model) {
  if (infc__model_is_valid(model))
    infc__model_unref(model);
}

const char *infc_model_name(const infc_model *model) {
  if (!infc__model_is_valid(model))
    return NULL;
  return model->desc->model_name ? model->desc->model_name : "";
}

size_t infc_model_num_inputs(const infc_model *model) {
  return infc__model_is_valid(model) ? model->desc->num_inputs : 0;
}

size_t infc_model_num_outputs(const infc_model *model) {
  return infc__model_is_valid(model) ? model->desc->num_outputs : 0;
}

size_t infc_model_workspace_bytes(const infc_model *model) {
  if (!infc__model_is_valid(model))
    return 0;
  /* A plan over SIZE_MAX cannot be allocated; session creation reports it. */
  uint64_t n = model->desc->workspace_bytes;
  return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

static infc_status io_info(const infc_model *model, int output, size_t index, infc_io_info *out) {
  if (!infc__model_is_valid(model) || !out)
    return INFC_ERR_INVALID_ARGUMENT;
  const infc_model_desc *d = model->desc;
  size_t count = output ? d->num_outputs : d->num_inputs;
  if (index >= count)
    return INFC_ERR_INVALID_ARGUMENT;
  const infc_io_desc *io = output ? &d->outputs[index] : &d->inputs[index];
  out->name = io->name;
  out->dtype = (infc_dtype)io->dtype;
  out->rank = io->rank;
  out->shape = io->rank ? io->shape : NULL;
  out->byte_size = model->io_bytes[output ? d->num_inputs + index : index];
  return INFC_OK;
}

infc_status infc_model_input_info(const infc_model *model, size_t index, infc_io_info *out) {
  return io_info(model, 0, index, out);
}

infc_status infc_model_output_info(const infc_model *model, size_t index, infc_io_info *out) {
  return io_info(model, 1, index, out);
}

static infc_status find(const infc_model *model, int output, const char *name, size_t *index) {
  if (!infc__model_is_valid(model) || !name || !index)
    return INFC_ERR_INVALID_ARGUMENT;
  const infc_model_desc *d = model->desc;
  long i = output ? infc__find_io(d->outputs, d->num_outputs, name)
                  : infc__find_io(d->inputs, d->num_inputs, name);
  if (i < 0)
    return INFC_ERR_INVALID_ARGUMENT;
  *index = (size_t)i;
  return INFC_OK;
}

infc_status infc_model_find_input(const infc_model *model, const char *name, size_t *index) {
  return find(model, 0, name, index);
}

infc_status infc_model_find_output(const infc_model *model, const char *name, size_t *index) {
  return find(model, 1, name, index);
}

static infc_status dim_info(const infc_model *model, int output, size_t index, int32_t dim,
                            infc_dim_info *out) {
  if (!infc__model_is_valid(model) || !out)
    return INFC_ERR_INVALID_ARGUMENT;
  const infc_model_desc *d = model->desc;
  if (index >= (output ? d->num_outputs : d->num_inputs))
    return INFC_ERR_INVALID_ARGUMENT;
  const infc_io_desc *io = output ? &d->outputs[index] : &d->inputs[index];
  if (dim < 0 || dim >= io->rank)
    return INFC_ERR_INVALID_ARGUMENT;
  int32_t id = io->dim_ids ? io->dim_ids[dim] : -1;
  out->name = id >= 0 ? d->dims[id].name : NULL;
  out->value = io->shape[dim];
  if (out->value != -1) {
    out->min = out->max = out->value;
    return INFC_OK;
  }
  out->min = id >= 0 ? d->dims[id].min : 0;
  out->max = id >= 0 ? d->dims[id].max : INT64_MAX;
  if (d->num_variants && !d->flags) { /* only the variants' sizes run (no generic code) */
    int64_t lo = INT64_MAX, hi = 0;
    for (uint32_t v = 0; v < d->num_variants; ++v) {
      int64_t n = (output ? d->variants[v].output_shapes : d->variants[v].input_shapes)[index][dim];
      lo = n < lo ? n : lo;
      hi = n > hi ? n : hi;
    }
    out->min = lo > out->min ? lo : out->min;
    out->max = hi < out->max ? hi : out->max;
  }
  return INFC_OK;
}

infc_status infc_model_input_dim(const infc_model *model, size_t index, int32_t dim,
                                 infc_dim_info *out) {
  return dim_info(model, 0, index, dim, out);
}

infc_status infc_model_output_dim(const infc_model *model, size_t index, int32_t dim,
                                  infc_dim_info *out) {
  return dim_info(model, 1, index, dim, out);
}
