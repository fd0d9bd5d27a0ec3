/* infc runtime — sessions: options, the one-time allocations, error messages. */
#include "internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Size of the ABI 1.0 options (up to its last field); struct_size 0 stands for it. Fields are
 * only ever appended, so this stays the end of error_buffer_size. */
#define INFC__SESSION_OPTIONS_V1_SIZE                                                              \
  (offsetof(infc_session_options, error_buffer_size) + sizeof(size_t))

int infc__session_is_valid(const infc_session *session) {
  return session && session->magic == INFC__SESSION_MAGIC;
}

infc_status infc__fail(infc_session *session, infc_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(session->error, sizeof session->error, fmt, ap);
  va_end(ap);
  return status;
}

/* Creation errors go to the caller's buffer: there is no session to hold them. */
static infc_status create_fail(const infc_session_options *opts, infc_status status,
                               const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static infc_status create_fail(const infc_session_options *opts, infc_status status,
                               const char *fmt, ...) {
  if (opts && opts->error_buffer && opts->error_buffer_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(opts->error_buffer, opts->error_buffer_size, fmt, ap);
    va_end(ap);
  }
  return status;
}

static void *aligned_alloc_64(size_t bytes) {
  void *p = NULL;
  /* At least one line, so even an empty tensor gets a unique non-NULL buffer: library-owned
   * outputs are recognised by data == NULL. */
  if (posix_memalign(&p, INFC__ALIGNMENT, bytes ? bytes : INFC__ALIGNMENT) != 0)
    return NULL;
  return p;
}

/* Writes and drops the session's profile; 0, or -1 with the message in the session. */
static int end_profiling(infc_session *s) {
  if (!s->profile)
    return 0;
  infc__pool_set_profile(s->pool, NULL);
  int rc = infc__profile_write(s->profile, s->error, sizeof s->error);
  infc__profile_destroy(s->profile);
  s->profile = NULL;
  return rc;
}

static void session_free(infc_session *s) {
  if (s->profile && end_profiling(s) != 0)
    fprintf(stderr, "infc: %s\n", s->error); /* release has no status to return it by */
  if (s->out_buffers)
    for (uint32_t j = 0; j < s->desc->num_outputs; ++j)
      free(s->out_buffers[j]);
  free(s->out_buffers);
  free(s->out_capacity);
  if (s->out_retired)
    for (uint32_t j = 0; j < s->desc->num_outputs; ++j)
      free(s->out_retired[j]);
  free(s->out_retired);
  free(s->out_shapes);
  free(s->shape_storage);
  free(s->args);
  free(s->in_bind);
  free(s->out_bind);
  free(s->dim_values);
  free(s->dim_input);
  free(s->dim_index);
  free(s->run_bytes);
  free(s->row_args);
  infc__llm_destroy(s->llm);
  free(s->workspace);
  infc__cuda_session_destroy(s->cuda);
  infc__pool_destroy(s->pool);
  if (s->model)
    infc__model_unref(s->model);
  s->magic = 0;
  free(s);
}

/* Reads the caller's options whatever version of the header it was compiled with. */
static infc_status read_options(const infc_session_options *in, infc_session_options *out) {
  memset(out, 0, sizeof *out);
  if (!in)
    return INFC_OK;
  size_t n = in->struct_size ? in->struct_size : INFC__SESSION_OPTIONS_V1_SIZE;
  if (n < INFC__SESSION_OPTIONS_V1_SIZE)
    return INFC_ERR_INVALID_ARGUMENT; /* error_buffer lies beyond what the caller gave */
  /* A newer caller: fields this runtime does not know must be left at zero (their default). */
  for (size_t i = sizeof *out; i < n; ++i)
    if (((const unsigned char *)in)[i] != 0)
      return create_fail(in, INFC_ERR_UNAVAILABLE,
                         "infc_session_create: options set fields newer than this runtime "
                         "(ABI %d.%d)",
                         INFC_ABI_VERSION_MAJOR, INFC_ABI_VERSION_MINOR);
  memcpy(out, in, n < sizeof *out ? n : sizeof *out);
  return INFC_OK;
}

/* INFC_PROFILE's file for the next session that profiles by it: the first takes the name
 * as given, the n-th inserts ".n" before the extension (trace.json, trace.2.json, ...), so
 * the sessions of one process do not overwrite each other. NULL when unset or too long. */
static const char *env_profile_path(char buf[4096]) {
  static atomic_uint sessions;
  const char *env = getenv("INFC_PROFILE");
  if (!env || !*env || strlen(env) + 16 > 4096)
    return NULL;
  unsigned n = atomic_fetch_add(&sessions, 1u) + 1;
  if (n == 1)
    return env;
  const char *slash = strrchr(env, '/'), *dot = strrchr(env, '.');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - env) : strlen(env);
  snprintf(buf, 4096, "%.*s.%u%s", (int)stem, env, n, env + stem);
  return buf;
}

infc_status infc_session_create(const infc_model *model, const infc_session_options *options,
                                infc_session **out) {
  if (out)
    *out = NULL; /* on every failure */
  infc_session_options opts;
  infc_status st = read_options(options, &opts);
  if (st != INFC_OK)
    return st;
  if (!out)
    return create_fail(&opts, INFC_ERR_INVALID_ARGUMENT, "infc_session_create: out is NULL");
  if (!model)
    return create_fail(&opts, INFC_ERR_INVALID_ARGUMENT, "infc_session_create: model is NULL");
  if (!infc__model_is_valid(model))
    return create_fail(&opts, INFC_ERR_INVALID_ARGUMENT,
                       "infc_session_create: model is not a valid infc_model");
  if (opts.num_threads < 0)
    return create_fail(&opts, INFC_ERR_INVALID_ARGUMENT,
                       "infc_session_create: num_threads is %d, must be >= 0 (0 = default)",
                       (int)opts.num_threads);

  const infc_model_desc *d = model->desc;
  for (size_t i = 0; i < (size_t)d->num_inputs + d->num_outputs; ++i) {
    int is_out = i >= d->num_inputs;
    const infc_io_desc *io = is_out ? &d->outputs[i - d->num_inputs] : &d->inputs[i];
    for (int32_t k = 0; k < io->rank && !d->num_variants && !d->flags; ++k)
      if (io->shape[k] < 0)
        return create_fail(&opts, INFC_ERR_UNAVAILABLE,
                           "infc_session_create: %s '%s' has dynamic dim %d; this runtime "
                           "supports static shapes only",
                           is_out ? "output" : "input", io->name, (int)k);
  }
  if (d->workspace_bytes > SIZE_MAX)
    return create_fail(&opts, INFC_ERR_OUT_OF_MEMORY,
                       "infc_session_create: workspace of %llu bytes exceeds the address space",
                       (unsigned long long)d->workspace_bytes);

  infc_session *s = calloc(1, sizeof *s);
  if (!s)
    return create_fail(&opts, INFC_ERR_OUT_OF_MEMORY, "infc_session_create: out of memory");
  s->model = (infc_model *)model; /* only the reference count is mutated */
  infc__model_retain(s->model);
  s->desc = d;
  s->num_threads = opts.num_threads ? opts.num_threads : infc__default_threads();
  if (d->device == INFC_DEVICE_CUDA)
    s->num_threads = 1; /* the host only enqueues kernels */
  if (!(s->pool = infc__pool_create(s->num_threads))) {
    session_free(s);
    return create_fail(&opts, INFC_ERR_OUT_OF_MEMORY,
                       "infc_session_create: cannot start %d threads", (int)s->num_threads);
  }
  size_t ni = d->num_inputs, no = d->num_outputs, shape_len = 0;
  for (size_t j = 0; j < no; ++j)
    shape_len += (size_t)d->outputs[j].rank;
  /* +1s keep calloc away from size 0, where NULL would look like a failure. */
  s->out_buffers = calloc(no + 1, sizeof *s->out_buffers);
  s->out_capacity = calloc(no + 1, sizeof *s->out_capacity);
  s->out_retired = calloc(no + 1, sizeof *s->out_retired);
  s->out_shapes = calloc(no + 1, sizeof *s->out_shapes);
  s->shape_storage = calloc(2 * shape_len + 1, sizeof *s->shape_storage);
  s->prepared_shapes = s->shape_storage ? s->shape_storage + shape_len : NULL;
  s->args = calloc(3 + ni + no, sizeof *s->args); /* weights and dims slots too */
  s->run_bytes = calloc(ni + no + 1, sizeof *s->run_bytes);
  s->in_bind = calloc(ni + 1, sizeof *s->in_bind);
  s->out_bind = calloc(no + 1, sizeof *s->out_bind);
  s->dim_values = calloc((size_t)d->num_dims + 1, sizeof *s->dim_values);
  s->dim_input = calloc((size_t)d->num_dims + 1, sizeof *s->dim_input);
  s->dim_index = calloc((size_t)d->num_dims + 1, sizeof *s->dim_index);
  if (!s->out_buffers || !s->out_capacity || !s->out_retired || !s->out_shapes ||
      !s->shape_storage || !s->args || !s->in_bind || !s->out_bind || !s->dim_values ||
      !s->dim_input || !s->dim_index || !s->run_bytes) {
    session_free(s);
    return create_fail(&opts, INFC_ERR_OUT_OF_MEMORY, "infc_session_create: out of memory");
  }
  if (d->device == INFC_DEVICE_CUDA) {
    char message[512];
    infc_status cst =
        infc__cuda_session_create(model, opts.cuda_stream, &s->cuda, message, sizeof message);
    if (cst != INFC_OK) {
      session_free(s);
      return create_fail(&opts, cst, "infc_session_create: %s", message);
    }
  } else {
    /* The batch loop runs a row per thread, each on its own workspace. */
    int32_t copies = (d->flags & INFC_DESC_BATCH_LOOP) ? infc__pool_size(s->pool) : 1;
    size_t stride =
        ((size_t)d->workspace_bytes + INFC__ALIGNMENT - 1) / INFC__ALIGNMENT * INFC__ALIGNMENT;
    if (copies > 1 && (!(s->row_args = calloc((size_t)copies * (3 + ni + no), sizeof(void *))) ||
                       (stride && (size_t)copies > SIZE_MAX / stride)))
      copies = 1; /* rows one after another */
    if (d->workspace_bytes && copies > 1 &&
        !(s->workspace = aligned_alloc_64(stride * (size_t)copies)))
      copies = 1; /* rows one after another, on one workspace */
    /* (A workspace sized per run comes with the first run: infc__session_run_workspace.) */
    if (d->workspace_bytes && !d->workspace_terms && !s->workspace &&
        !(s->workspace = aligned_alloc_64(stride))) {
      session_free(s);
      return create_fail(&opts, INFC_ERR_OUT_OF_MEMORY,
                         "infc_session_create: cannot allocate the %llu byte workspace%s",
                         (unsigned long long)d->workspace_bytes * (uint64_t)copies,
                         copies > 1 ? " (one per thread for the batch loop)" : "");
    }
    s->row_workspaces = copies;
    s->workspace_stride = stride;
  }
  int64_t *shape = s->shape_storage;
  for (size_t j = 0; j < no; ++j) {
    const infc_io_desc *io = &d->outputs[j];
    /* A variant model's buffers hold its largest variant's output; a generic one's its
     * output at the dims' maxima, or, with a batch of no largest size (max_bytes 0), the
     * first run's (infc__session_output_buffer). */
    size_t bytes = model->max_bytes ? model->max_bytes[ni + j] : model->io_bytes[ni + j];
    s->out_capacity[j] = bytes;
    if (!(s->out_buffers[j] = aligned_alloc_64(bytes))) {
      session_free(s);
      return create_fail(&opts, INFC_ERR_OUT_OF_MEMORY,
                         "infc_session_create: cannot allocate %zu bytes for output %zu '%s'",
                         bytes, j, io->name);
    }
    if (io->rank) /* a variant model's: set by each run */
      memcpy(shape, d->num_variants ? d->variants[0].output_shapes[j] : io->shape,
             (size_t)io->rank * sizeof *shape);
    s->out_shapes[j] = io->rank ? shape : NULL;
    memcpy(shape + shape_len, shape, (size_t)io->rank * sizeof *shape);
    shape += io->rank;
  }
  /* Last: a session that fails before this point has no trace to write (and takes no
   * INFC_PROFILE file number). An empty profile_path opts out of INFC_PROFILE. */
  char env_path[4096];
  const char *profile_path = opts.profile_path ? opts.profile_path : env_profile_path(env_path);
  if (profile_path && *profile_path) {
    if (!(s->profile = infc__profile_create(d, profile_path, s->num_threads))) {
      session_free(s);
      return create_fail(&opts, INFC_ERR_OUT_OF_MEMORY, "infc_session_create: out of memory");
    }
    infc__pool_set_profile(s->pool, s->profile);
  }
  s->magic = INFC__SESSION_MAGIC;
  *out = s;
  return INFC_OK;
}

infc_status infc__session_run_workspace(infc_session *s) {
  const infc_model_desc *d = s->desc;
  /* sum(c[k] * size^k) with every step checked (the coefficients are not negative). */
  uint64_t size = (uint64_t)s->dim_values[d->workspace_dim], power = 1, bytes = 0;
  int overflow = 0;
  for (uint32_t k = 0; k < d->workspace_terms && !overflow; ++k) {
    uint64_t term;
    if (k && __builtin_mul_overflow(power, size, &power))
      overflow = 1;
    else if (__builtin_mul_overflow(d->workspace_coeffs[k], power, &term) ||
             __builtin_add_overflow(bytes, term, &bytes))
      overflow = 1;
  }
  if (overflow || bytes > SIZE_MAX)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "dim '%s' is %lld: the workspace of that size overflows the address space",
                      d->dims[d->workspace_dim].name, (long long)size);
  if (bytes > s->workspace_capacity || !s->workspace) {
    void *grown = aligned_alloc_64((size_t)bytes);
    if (!grown)
      return infc__fail(s, INFC_ERR_OUT_OF_MEMORY,
                        "cannot allocate the %llu byte workspace of dim '%s' at %lld",
                        (unsigned long long)bytes, d->dims[d->workspace_dim].name, (long long)size);
    free(s->workspace);
    s->workspace = grown;
    s->workspace_capacity = (size_t)bytes;
  }
  return INFC_OK;
}

void *infc__session_output_buffer(infc_session *s, size_t j, size_t bytes) {
  if (bytes > s->out_capacity[j]) {
    void *grown = aligned_alloc_64(bytes);
    if (!grown)
      return NULL;
    free(s->out_retired[j]); /* (one grown out of earlier in this run: nothing reads it) */
    s->out_retired[j] = s->out_buffers[j];
    s->out_buffers[j] = grown;
    s->out_capacity[j] = bytes;
  }
  return s->out_buffers[j];
}

void infc__session_free_retired(infc_session *s) {
  for (uint32_t j = 0; j < s->desc->num_outputs; ++j) {
    free(s->out_retired[j]);
    s->out_retired[j] = NULL;
  }
}

void infc_session_release(infc_session *session) {
  if (infc__session_is_valid(session))
    session_free(session);
}

const char *infc_session_error(const infc_session *session) {
  if (!session)
    return "infc_session is NULL";
  if (!infc__session_is_valid(session))
    return "not a valid infc_session";
  return session->error;
}

const infc_model *infc_session_model(const infc_session *session) {
  return infc__session_is_valid(session) ? session->model : NULL;
}

int32_t infc_session_num_threads(const infc_session *session) {
  return infc__session_is_valid(session) ? session->num_threads : 0;
}

infc_status infc_session_end_profiling(infc_session *session) {
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  if (!session->profile)
    return infc__fail(session, INFC_ERR_INVALID_ARGUMENT,
                      "infc_session_end_profiling: the session does not profile (set "
                      "infc_session_options.profile_path or INFC_PROFILE)");
  session->error[0] = '\0';
  return end_profiling(session) == 0 ? INFC_OK : INFC_ERR_INVALID_ARGUMENT;
}
