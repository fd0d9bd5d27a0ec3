/* infc runtime — infc_run / infc_run_named: validate every tensor, bind, call the entry. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* "[2,3]" into buf (truncated if long); returns buf for use in a format argument. */
static const char *format_shape(char *buf, size_t size, const int64_t *shape, int32_t rank) {
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int32_t i = 0; i < rank && n < size; ++i)
    n += shape[i] == -1
             ? (size_t)snprintf(buf + n, size - n, i ? ",?" : "?")
             : (size_t)snprintf(buf + n, size - n, i ? ",%lld" : "%lld", (long long)shape[i]);
  if (n < size)
    snprintf(buf + n, size - n, "]");
  return buf;
}

/* An input or a caller-owned output against its model io, whose shape is `want` (a dim of -1
 * takes any value: a variant model's inputs before the variant is chosen). `kind` and `index`
 * name it in the message ("input 0 'a'"). */
static infc_status check_tensor(infc_session *s, const char *kind, size_t index,
                                const infc_io_desc *io, const int64_t *want, size_t io_bytes,
                                const infc_tensor *t, int need_data) {
  char got[128], wanted[128];
  if ((t->flags & ~INFC_TENSOR_DEVICE) || t->reserved)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "%s %zu '%s': flags and reserved must be 0 (or flags INFC_TENSOR_DEVICE)",
                      kind, index, io->name);
  if ((t->flags & INFC_TENSOR_DEVICE) && !s->cuda)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "%s %zu '%s': device memory (INFC_TENSOR_DEVICE) given to a model "
                      "compiled for the CPU",
                      kind, index, io->name);
  if ((int32_t)t->dtype != io->dtype)
    return infc__fail(s, INFC_ERR_DTYPE_MISMATCH, "%s %zu '%s': dtype %s (%d), expected %s", kind,
                      index, io->name, infc__dtype_name((int32_t)t->dtype), (int)t->dtype,
                      infc__dtype_name(io->dtype));
  if (t->rank != io->rank)
    return infc__fail(s, INFC_ERR_SHAPE_MISMATCH, "%s %zu '%s': rank %d, expected %d (shape %s)",
                      kind, index, io->name, (int)t->rank, (int)io->rank,
                      format_shape(wanted, sizeof wanted, want, io->rank));
  if (t->rank > 0 && !t->shape)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "%s %zu '%s': shape is NULL with rank %d", kind,
                      index, io->name, (int)t->rank);
  for (int32_t k = 0; k < t->rank; ++k)
    if (want[k] != -1 && t->shape[k] != want[k]) {
      char named[96] = "";
      int32_t id = io->dim_ids ? io->dim_ids[k] : -1;
      if (id >= 0)
        snprintf(named, sizeof named, " '%s'", s->desc->dims[id].name);
      return infc__fail(s, INFC_ERR_SHAPE_MISMATCH,
                        "%s %zu '%s': dim %d%s is %lld, expected %lld (shape %s, expected %s)",
                        kind, index, io->name, (int)k, named, (long long)t->shape[k],
                        (long long)want[k], format_shape(got, sizeof got, t->shape, t->rank),
                        format_shape(wanted, sizeof wanted, want, io->rank));
    }
  if (!t->data && need_data)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "%s %zu '%s': data is NULL", kind, index,
                      io->name);
  if (t->byte_size && t->byte_size < io_bytes)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "%s %zu '%s': byte_size %zu is less than the %zu bytes needed", kind, index,
                      io->name, t->byte_size, io_bytes);
  return INFC_OK;
}

static int overlap(const void *a, size_t na, const void *b, size_t nb) {
  uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  return a && b && na && nb && pa < pb + nb && pb < pa + na;
}

/* The named dims of the bound inputs (already checked for rank and static dims): every dim
 * of one name takes one value, within the name's range. */
static infc_status bind_dims(infc_session *s) {
  const infc_model_desc *d = s->desc;
  for (uint32_t n = 0; n < d->num_dims; ++n)
    s->dim_input[n] = -1;
  for (uint32_t i = 0; i < d->num_inputs; ++i) {
    const infc_io_desc *io = &d->inputs[i];
    for (int32_t k = 0; io->dim_ids && k < io->rank; ++k) {
      int32_t id = io->dim_ids[k];
      if (id < 0)
        continue;
      const infc_dim_desc *dim = &d->dims[id];
      long long value = (long long)s->in_bind[i]->shape[k];
      if (s->dim_input[id] >= 0) {
        if (value != s->dim_values[id]) {
          uint32_t first = (uint32_t)s->dim_input[id];
          return infc__fail(s, INFC_ERR_SHAPE_MISMATCH,
                            "input %u '%s': dim %d '%s' is %lld, but input %u '%s' dim %d of "
                            "the same name is %lld",
                            i, io->name, (int)k, dim->name, value, first, d->inputs[first].name,
                            (int)s->dim_index[id], (long long)s->dim_values[id]);
        }
        continue;
      }
      if (value < dim->min || value > dim->max) {
        char range[64];
        if (dim->max == INT64_MAX)
          snprintf(range, sizeof range, "at least %lld", (long long)dim->min);
        else
          snprintf(range, sizeof range, "within %lld..%lld", (long long)dim->min,
                   (long long)dim->max);
        int declared = dim->min > 0 || dim->max < INT64_MAX;
        return infc__fail(s, INFC_ERR_SHAPE_MISMATCH,
                          "input %u '%s': dim %d '%s' is %lld, must be %s%s", i, io->name, (int)k,
                          dim->name, value, range,
                          declared ? " (the range the model was compiled for)" : "");
      }
      s->dim_input[id] = (int32_t)i;
      s->dim_index[id] = k;
      s->dim_values[id] = value;
    }
  }
  return INFC_OK;
}

/* A variant model: the first variant whose input shapes are the bound inputs' (already
 * checked against the model's rank and static dims), or -1 with the session's error set. */
static int32_t choose_variant(infc_session *s) {
  const infc_model_desc *d = s->desc;
  for (uint32_t v = 0; v < d->num_variants; ++v) {
    int match = 1;
    for (uint32_t i = 0; i < d->num_inputs && match; ++i)
      for (int32_t k = 0; k < d->inputs[i].rank && match; ++k)
        match = s->in_bind[i]->shape[k] == d->variants[v].input_shapes[i][k];
    if (match)
      return (int32_t)v;
  }
  /* Other batches: the loop over the variants; other shapes: the generic code. */
  if (d->flags & (INFC_DESC_BATCH_LOOP | INFC_DESC_DIMS_ARG))
    return -1;
  /* The inputs with a varying dim, and the variants there are. */
  char msg[sizeof s->error], shape[128];
  size_t n = (size_t)snprintf(msg, sizeof msg, "no compiled variant takes these input shapes (");
  for (uint32_t i = 0, shown = 0; i < d->num_inputs && n < sizeof msg; ++i) {
    int varies = 0;
    for (int32_t k = 0; k < d->inputs[i].rank; ++k)
      varies |= d->inputs[i].shape[k] == -1;
    if (varies)
      n += (size_t)snprintf(
          msg + n, sizeof msg - n, "%s'%s' %s", shown++ ? ", " : "", d->inputs[i].name,
          format_shape(shape, sizeof shape, s->in_bind[i]->shape, d->inputs[i].rank));
  }
  for (uint32_t v = 0; v < d->num_variants && n < sizeof msg; ++v)
    n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s",
                          v ? " | " : "); compiled for: ", d->variants[v].label);
  infc__fail(s, INFC_ERR_SHAPE_MISMATCH, "%s", msg);
  return -1;
}

/* The bound inputs (in_bind) against the model: dtypes, ranks, dims and their names, the
 * variant that takes them into *chosen (-1 for a model of one). need_data: a run's, whose
 * inputs must have data (infc_session_prepare's need none). */
static infc_status check_inputs(infc_session *s, int need_data, int32_t *chosen) {
  const infc_model_desc *d = s->desc;
  *chosen = -1;
  for (size_t i = 0; i < d->num_inputs; ++i) {
    infc_status st = check_tensor(s, "input", i, &d->inputs[i], d->inputs[i].shape,
                                  s->model->io_bytes[i], s->in_bind[i], need_data);
    if (st != INFC_OK)
      return st;
  }
  if (d->num_dims) {
    infc_status st = bind_dims(s);
    if (st != INFC_OK)
      return st;
  }
  if (d->num_variants && (*chosen = choose_variant(s)) < 0 && !d->flags)
    return INFC_ERR_SHAPE_MISMATCH;
  return INFC_OK;
}

/* The output shapes of variant `chosen` into the session's (infc_session_output_shape and
 * library-owned outputs read them). */
static void set_output_shapes(infc_session *s, int32_t chosen, int64_t *storage) {
  const infc_model_desc *d = s->desc;
  int generic = d->flags != 0; /* INFC_DESC_DIMS_ARG or INFC_DESC_BATCH_LOOP */
  for (size_t j = 0; j < d->num_outputs; ++j) {
    const infc_io_desc *io = &d->outputs[j];
    for (int32_t k = 0; k < io->rank; ++k)
      storage[k] = chosen >= 0                     ? d->variants[chosen].output_shapes[j][k]
                   : generic && io->shape[k] == -1 ? s->dim_values[io->dim_ids[k]]
                                                   : io->shape[k];
    storage += io->rank;
  }
}

/* A generic model's caller-owned output `t` (checked against the model's shape) against the
 * sizes of its symbolic dims in this run. */
static infc_status check_symbolic_output(infc_session *s, size_t j, const infc_tensor *t) {
  const infc_io_desc *io = &s->desc->outputs[j];
  for (int32_t k = 0; k < io->rank; ++k) {
    if (io->shape[k] != -1)
      continue;
    int32_t id = io->dim_ids[k];
    if (t->shape[k] != s->dim_values[id])
      return infc__fail(s, INFC_ERR_SHAPE_MISMATCH,
                        "output %zu '%s': dim %d '%s' is %lld, expected %lld (its size in "
                        "this run's inputs)",
                        j, io->name, (int)k, s->desc->dims[id].name, (long long)t->shape[k],
                        (long long)s->dim_values[id]);
  }
  return INFC_OK;
}

/* Whether io `i` carries the batch loop's batch: its dim 0 is the -1 (model.c checked that
 * every -1 is one, of one name), the batch's (dim id 0) around generic code. */
static int carries_batch(const infc_model_desc *d, size_t i) {
  const infc_io_desc *io = infc__io(d, i);
  return io->rank > 0 && io->shape[0] == -1 &&
         (!(d->flags & INFC_DESC_DIMS_ARG) || io->dim_ids[0] == 0);
}

/* The first io that carries the batch (model.c checked there is one). */
static size_t first_batch_io(const infc_model_desc *d) {
  size_t i = 0;
  while (!carries_batch(d, i))
    ++i;
  return i;
}

/* The batch loop's rows of this run. */
static int64_t batch_rows(const infc_session *s) {
  return s->dim_values[infc__io(s->desc, first_batch_io(s->desc))->dim_ids[0]];
}

/* Moves the batch-carrying pointers of `io` (inputs then outputs, at their run's `bytes` for
 * `rows` rows) on by `step` rows. */
static void advance_rows(const infc_session *s, void **io, const size_t *bytes, int64_t rows,
                         int64_t step) {
  const infc_model_desc *d = s->desc;
  for (size_t i = 0; i < (size_t)d->num_inputs + d->num_outputs; ++i)
    if (carries_batch(d, i))
      io[i] = (char *)io[i] + bytes[i] / (size_t)rows * (size_t)step;
}

/* The rows variant v of a batch loop takes in one call (model.c: the same on every io with
 * the batch). */
static int64_t variant_rows(const infc_model_desc *d, uint32_t v) {
  size_t i = first_batch_io(d);
  return i < d->num_inputs ? d->variants[v].input_shapes[i][0]
                           : d->variants[v].output_shapes[i - d->num_inputs][0];
}

/* The batch loop's next call for `left` rows: the variant of the most rows at most `left`
 * (its entry into *entry, the profiled one in a profiled session when there is one;
 * model.c checked there is a variant of one row), or without variants the model's entry,
 * one row. Returns the rows. */
static int64_t next_block(const infc_session *s, int64_t left, infc_entry_fn *entry) {
  const infc_model_desc *d = s->desc;
  if (!d->num_variants) {
    *entry = s->profile && d->profiled_entry ? d->profiled_entry : d->entry;
    return 1;
  }
  int64_t best = 0;
  for (uint32_t v = 0; v < d->num_variants; ++v) {
    int64_t rows = variant_rows(d, v);
    if (rows <= left && rows > best) {
      const infc_variant_desc *var = &d->variants[v];
      best = rows;
      *entry = s->profile && var->profiled_entry ? var->profiled_entry : var->entry;
    }
  }
  return best;
}

/* Calls the batch loop's blocks on `count` rows, `args`' io pointers (at `io`) at the first
 * of them; the pointers end past the last. */
static void run_blocks(const infc_session *s, void **args, void **io, const size_t *bytes,
                       int64_t rows, int64_t count) {
  infc_entry_fn entry = NULL;
  for (int64_t r = 0, block; r < count; r += block) {
    block = next_block(s, count - r, &entry);
    entry(args);
    advance_rows(s, io, bytes, rows, block);
  }
}

/* Rows side by side: thread `tid` runs rows [tid * per, (tid + 1) * per), on one thread
 * (the entries' own regions run serially inside), on workspace copy `tid`. */
struct rows_job {
  infc_session *s;
  void **args;
  size_t num_args, io_offset;
  const size_t *bytes;
  int64_t rows, per;
  int32_t shares; /* the team's size the rows were split for */
};

static void run_rows(void *ctx, int32_t tid, int32_t team) {
  struct rows_job *job = ctx;
  infc_session *s = job->s;
  /* Thread tid's share, and those of threads the team lacks (a region run serially). */
  for (int32_t share = tid; share < job->shares; share += team) {
    void **args = s->row_args + (size_t)share * job->num_args;
    memcpy(args, job->args, job->num_args * sizeof *args);
    if (s->workspace)
      args[0] = (char *)s->workspace + (size_t)share * s->workspace_stride;
    advance_rows(s, args + job->io_offset, job->bytes, job->rows, share * job->per);
    run_blocks(s, args, args + job->io_offset, job->bytes, job->rows, job->per);
  }
}

/* Calls `entry` on `args` (its inputs and outputs at `io`, of `bytes` each in this run)
 * once, or for the batch loop (no variant of this run's shapes, `exact` 0) in blocks of
 * rows (one row, or the variants' sizes, the largest that fits first): with
 * `side_by_side` and a pool of T threads, T threads' shares side by side, one thread each,
 * the rest on the whole team. */
static void call_entry(infc_session *s, infc_entry_fn entry, void **args, void **io,
                       const size_t *bytes, int exact, int side_by_side) {
  if (!(s->desc->flags & INFC_DESC_BATCH_LOOP) || exact) {
    entry(args);
    return;
  }
  int64_t rows = batch_rows(s), done = 0;
  int32_t team = infc__pool_size(s->pool);
  if (side_by_side && team > 1 && s->row_workspaces >= team && rows >= team) {
    size_t offset = (size_t)(io - args),
           num_args = offset + s->desc->num_inputs + s->desc->num_outputs;
    struct rows_job job = {s, args, num_args, offset, bytes, rows, rows / team, team};
    infc__pool_parallel(run_rows, &job);
    done = job.per * team;
    advance_rows(s, io, bytes, rows, done);
  }
  run_blocks(s, args, io, bytes, rows, rows - done);
}

/* Runs with in_bind/out_bind filled: every input bound, out_bind[j] NULL for an output the
 * caller did not ask for. Validates everything before writing anything. */
static infc_status run_bound(infc_session *s) {
  const infc_model_desc *d = s->desc;
  const size_t *bytes = s->model->io_bytes;
  size_t ni = d->num_inputs, no = d->num_outputs;
  const infc_variant_desc *variant = NULL;
  int32_t chosen = -1;
  /* (Buffers an earlier run that failed grew out of: its outputs are gone by now.) */
  infc__session_free_retired(s);
  infc_status checked = check_inputs(s, 1, &chosen);
  if (checked != INFC_OK)
    return checked;
  /* Sizes from the named dims: generic code or the batch loop. A variant of a library with
   * generic code for other shapes is static code: no dims argument. */
  int generic = d->flags != 0, dims_arg = (d->flags & INFC_DESC_DIMS_ARG) != 0 &&
                                          !(chosen >= 0 && !(d->flags & INFC_DESC_BATCH_LOOP));
  /* [workspace, weights (when the model passes them), dims (generic code), inputs...,
   * outputs...] */
  void **args = s->args;
  args[0] = s->workspace;
  if (d->weights)
    args[1] = (void *)d->weights;
  if (dims_arg)
    args[d->weights ? 2 : 1] = s->dim_values;
  void **io = args + (d->weights ? 2 : 1) + (dims_arg ? 1 : 0);
  if (d->workspace_terms) {
    infc_status grown = infc__session_run_workspace(s);
    if (grown != INFC_OK)
      return grown;
    args[0] = s->workspace;
  }
  if (chosen >= 0) {
    variant = &d->variants[chosen];
    bytes = s->model->variant_bytes + (size_t)chosen * (ni + no);
  }
  if (generic) { /* every symbolic dim is bound and in range (bind_dims) */
    for (size_t i = 0; i < ni + no; ++i)
      if (!infc__io_bytes_at(infc__io(d, i), s->dim_values, &s->run_bytes[i]))
        return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                          "the sizes of this run overflow the address space");
    bytes = s->run_bytes;
  }
  for (size_t i = 0; i < ni; ++i) {
    if ((variant || generic) && s->in_bind[i]->byte_size && s->in_bind[i]->byte_size < bytes[i])
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "input %zu '%s': byte_size %zu is less than the %zu bytes needed", i,
                        d->inputs[i].name, s->in_bind[i]->byte_size, bytes[i]);
    /* The code was compiled for this one value (what it decides folded away). */
    if (d->inputs[i].value && (s->in_bind[i]->flags & INFC_TENSOR_DEVICE))
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "input %zu '%s': the model was compiled "
                        "for one value of this input (infc compile --input-value), which must "
                        "be passed in host memory",
                        i, d->inputs[i].name);
    if (d->inputs[i].value && (d->inputs[i].value_bytes != bytes[i] ||
                               memcmp(s->in_bind[i]->data, d->inputs[i].value, bytes[i])))
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "input %zu '%s': the model was compiled "
                        "for one value of this input (infc compile --input-value) and this "
                        "run passes another",
                        i, d->inputs[i].name);
    io[i] = s->in_bind[i]->data;
  }
  for (size_t j = 0; j < no; ++j) {
    const infc_tensor *t = s->out_bind[j];
    /* A library-owned output that outgrows its buffer gets a new one once everything is
     * checked (below; NULL until then: a fresh buffer overlaps nothing). */
    void *data = !(t && t->data) && bytes[ni + j] > s->out_capacity[j] ? NULL : s->out_buffers[j];
    if (t && ((t->flags & ~INFC_TENSOR_DEVICE) || t->reserved))
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "output %zu '%s': flags and reserved "
                        "must be 0 (or flags INFC_TENSOR_DEVICE)",
                        j, d->outputs[j].name);
    if (t && !t->data && (t->flags & INFC_TENSOR_DEVICE))
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "output %zu '%s': a library-owned output "
                        "(data NULL) is host memory; pass a device buffer to get it on the GPU",
                        j, d->outputs[j].name);
    if (t && t->data) {
      infc_status st = check_tensor(s, "output", j, &d->outputs[j],
                                    variant ? variant->output_shapes[j] : d->outputs[j].shape,
                                    bytes[ni + j], t, 1);
      if (st == INFC_OK && generic)
        st = check_symbolic_output(s, j, t);
      if (st != INFC_OK)
        return st;
      data = t->data;
    }
    io[ni + j] = data;
  }
  /* The entry reads inputs while it writes outputs: an output may alias nothing. This also
   * catches feeding a library-owned output of the last run back as an input. */
  for (size_t j = 0; j < no; ++j) {
    const void *o = io[ni + j];
    size_t on = o ? bytes[ni + j] : 0; /* (NULL: a buffer yet to grow) */
    for (size_t i = 0; i < ni; ++i)
      if (overlap(o, on, io[i], bytes[i]))
        return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                          "output %zu '%s' overlaps input %zu "
                          "'%s'",
                          j, d->outputs[j].name, i, d->inputs[i].name);
    for (size_t k = 0; k < j; ++k)
      if (overlap(o, on, io[ni + k], bytes[ni + k]))
        return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                          "output %zu '%s' overlaps output %zu "
                          "'%s'",
                          j, d->outputs[j].name, k, d->outputs[k].name);
  }

  for (size_t j = 0; j < no; ++j)
    if (!io[ni + j] && !(io[ni + j] = infc__session_output_buffer(s, j, bytes[ni + j])))
      return infc__fail(s, INFC_ERR_OUT_OF_MEMORY, "output %zu '%s': cannot allocate its %zu bytes",
                        j, d->outputs[j].name, bytes[ni + j]);

  s->error[0] = '\0';
  if (s->cuda) {
    /* A GPU run can fail: library-owned outputs are handed out only after it succeeds. */
    int64_t started = s->profile ? infc__profile_run_begin(s->profile, chosen) : 0;
    infc_status st = infc__cuda_run(s, io, s->in_bind, s->out_bind);
    if (s->profile)
      infc__profile_run_end(s->profile, started);
    if (st != INFC_OK)
      return st;
  } else if (s->profile) {
    infc__pool_enter(s->pool);
    int64_t started = infc__profile_run_begin(s->profile, chosen);
    infc_entry_fn profiled = variant ? variant->profiled_entry : d->profiled_entry;
    call_entry(s,
               profiled  ? profiled
               : variant ? variant->entry
                         : d->entry,
               args, io, bytes, variant != NULL, 0);
    infc__profile_run_end(s->profile, started);
    infc__pool_leave();
  } else {
    infc__pool_enter(s->pool);
    call_entry(s, variant ? variant->entry : d->entry, args, io, bytes, variant != NULL, 1);
    infc__pool_leave();
  }
  /* The shapes of this run: the library-owned tensors' and infc_session_output_shape's. */
  set_output_shapes(s, chosen, s->shape_storage);
  set_output_shapes(s, chosen, s->prepared_shapes);
  /* The entry has read its inputs: the buffers this run grew out of (one may have been
   * an input: the last run's output fed back) can go. */
  infc__session_free_retired(s);
  for (size_t j = 0; j < no; ++j) {
    infc_tensor *t = s->out_bind[j];
    if (t && !t->data) {
      t->data = s->out_buffers[j];
      t->dtype = (infc_dtype)d->outputs[j].dtype;
      t->rank = d->outputs[j].rank;
      t->shape = s->out_shapes[j];
      t->byte_size = bytes[ni + j];
    }
  }
  return INFC_OK;
}

infc_status infc_run(infc_session *session, const infc_tensor *inputs, size_t num_inputs,
                     infc_tensor *outputs, size_t num_outputs) {
  return infc__run(session, inputs, num_inputs, outputs, num_outputs);
}

infc_status infc__run(infc_session *session, const infc_tensor *inputs, size_t num_inputs,
                      infc_tensor *outputs, size_t num_outputs) {
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  infc_session *s = session;
  const infc_model_desc *d = s->desc;
  if (num_inputs != d->num_inputs)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_run: %zu inputs given, the model has "
                      "%u",
                      num_inputs, d->num_inputs);
  if (num_outputs != d->num_outputs)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_run: %zu outputs given, the model has "
                      "%u",
                      num_outputs, d->num_outputs);
  if (num_inputs && !inputs)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_run: inputs is NULL");
  if (num_outputs && !outputs)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_run: outputs is NULL");
  for (size_t i = 0; i < num_inputs; ++i)
    s->in_bind[i] = &inputs[i];
  for (size_t j = 0; j < num_outputs; ++j)
    s->out_bind[j] = &outputs[j];
  return run_bound(s);
}

infc_status infc_run_named(infc_session *session, const char *const *input_names,
                           const infc_tensor *inputs, size_t num_inputs,
                           const char *const *output_names, infc_tensor *outputs,
                           size_t num_outputs) {
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  infc_session *s = session;
  const infc_model_desc *d = s->desc;
  if (num_inputs && (!inputs || !input_names))
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_run_named: inputs or input_names is "
                      "NULL");
  if (num_outputs && (!outputs || !output_names))
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_run_named: outputs or output_names "
                      "is NULL");
  memset(s->in_bind, 0, d->num_inputs * sizeof *s->in_bind);
  memset(s->out_bind, 0, d->num_outputs * sizeof *s->out_bind);
  for (size_t k = 0; k < num_inputs; ++k) {
    const char *name = input_names[k];
    if (!name)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_run_named: input name %zu is NULL", k);
    long i = infc__find_io(d->inputs, d->num_inputs, name);
    if (i < 0)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_run_named: the model has no input "
                        "'%s'",
                        name);
    if (s->in_bind[i])
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_run_named: input '%s' given twice",
                        name);
    s->in_bind[i] = &inputs[k];
  }
  for (size_t i = 0; i < d->num_inputs; ++i)
    if (!s->in_bind[i])
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_run_named: input %zu '%s' is "
                        "missing",
                        i, d->inputs[i].name);
  for (size_t k = 0; k < num_outputs; ++k) {
    const char *name = output_names[k];
    if (!name)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_run_named: output name %zu is "
                        "NULL",
                        k);
    long j = infc__find_io(d->outputs, d->num_outputs, name);
    if (j < 0)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_run_named: the model has no "
                        "output '%s'",
                        name);
    if (s->out_bind[j])
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_run_named: output '%s' given "
                        "twice",
                        name);
    s->out_bind[j] = &outputs[k];
  }
  return run_bound(s);
}

infc_status infc_session_prepare(infc_session *session, const infc_tensor *inputs,
                                 size_t num_inputs) {
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  infc_session *s = session;
  const infc_model_desc *d = s->desc;
  if (num_inputs != d->num_inputs)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_session_prepare: %zu inputs given, the model has %u", num_inputs,
                      d->num_inputs);
  if (num_inputs && !inputs)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_session_prepare: inputs is NULL");
  for (size_t i = 0; i < num_inputs; ++i)
    s->in_bind[i] = &inputs[i];
  int32_t chosen;
  infc_status st = check_inputs(s, 0, &chosen);
  if (st != INFC_OK)
    return st;
  set_output_shapes(s, chosen, s->prepared_shapes);
  s->error[0] = '\0';
  return INFC_OK;
}

infc_status infc_session_output_shape(const infc_session *session, size_t index, int32_t *rank,
                                      const int64_t **shape) {
  if (!infc__session_is_valid(session) || !rank || !shape || index >= session->desc->num_outputs)
    return INFC_ERR_INVALID_ARGUMENT;
  *rank = session->desc->outputs[index].rank;
  /* out_shapes[index] lies in shape_storage; the prepared copy as far into its half. */
  *shape = *rank ? session->prepared_shapes + (session->out_shapes[index] - session->shape_storage)
                 : NULL;
  return INFC_OK;
}
