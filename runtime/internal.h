/* infc runtime — structures and hidden helpers shared by the runtime's files (not installed).
 *
 * Rule: an exported infc_* function never calls another exported one; both call the hidden
 * infc__* helpers instead. When a host links model A and dlopen()s model B, B's internal calls
 * to an exported name would bind to A's copy (ELF interposition); hidden names cannot. */
#ifndef INFC_RUNTIME_INTERNAL_H
#define INFC_RUNTIME_INTERNAL_H

#include "infc/runtime.h"

#include <stdarg.h>
#include <stdatomic.h>

/* The compiler defines the descriptor with hidden visibility; declaring it hidden here too lets
 * the runtime reach it PC-relatively instead of through the GOT. */
#pragma GCC visibility push(hidden)
#include "model_desc.h"
#pragma GCC visibility pop

/* Guards against handles of another kind or of a runtime with another struct layout. */
#define INFC__MODEL_MAGIC 0x314d4649u   /* "IFM1" */
#define INFC__SESSION_MAGIC 0x31534649u /* "IFS1" */

/* Alignment of the workspace and of library-owned outputs: a cache line, and what the
 * compiler's memory plan assumes. */
#define INFC__ALIGNMENT 64u

struct infc_model {
  uint32_t magic;
  atomic_uint refs;            /* model handles + sessions; the model is freed at 0 */
  const infc_model_desc *desc; /* validated at creation; read-only afterwards */
  size_t *io_bytes;            /* dense bytes of inputs then outputs; 0 if dynamic */
  /* A --specialize library (desc->num_variants > 0): the dense bytes of inputs then outputs
   * of variant v at variant_bytes[v * (inputs + outputs) + i], and each io's largest. */
  size_t *variant_bytes;
  size_t *max_bytes; /* also a generic model's (INFC_DESC_DIMS_ARG), at the dims' maxima */
};

typedef struct infc__pool infc__pool;
typedef struct infc__cuda_session infc__cuda_session;
typedef struct infc__profile infc__profile;
typedef struct infc__llm infc__llm;

struct infc_session {
  uint32_t magic;
  int32_t num_threads;
  infc__pool *pool;  /* num_threads threads, the caller's included */
  infc_model *model; /* a reference */
  const infc_model_desc *desc;
  void *workspace;             /* desc->workspace_bytes, or NULL when that is 0 (CPU) */
  size_t workspace_capacity;   /* its bytes, when sized per run (desc->workspace_terms) */
  infc__cuda_session *cuda;    /* a CUDA model's device state, else NULL */
  void **out_buffers;          /* library-owned outputs, one per output */
  size_t *out_capacity;        /* the bytes each holds (grown by runs that need more) */
  void **out_retired;          /* buffers a run grew out of, freed once nothing can read
                                  them: after it ran, or at the next run or the release */
  const int64_t **out_shapes;  /* their shapes, handed out in library-owned tensors */
  int64_t *shape_storage;      /* backs out_shapes; then, as many, the prepared shapes */
  int64_t *prepared_shapes;    /* infc_session_output_shape's: set by prepare and by runs */
  void **args;                 /* entry arguments: workspace, inputs..., outputs... */
  const infc_tensor **in_bind; /* per-run binding scratch, so runs allocate nothing */
  infc_tensor **out_bind;
  /* Per-run scratch of the named dims' check (run.c): each name's value in this run and the
   * input (dim_input) and dim (dim_index) it was first seen at, or -1 while unseen. */
  int64_t *dim_values;
  int32_t *dim_input;
  int32_t *dim_index;
  size_t *run_bytes; /* a generic model's: each io's bytes at this run's dims */
  /* The batch loop (INFC_DESC_BATCH_LOOP) with threads: rows run side by side, one per
   * thread, each with its own workspace (`row_workspaces` of them, `workspace_stride` bytes
   * apart from `workspace`) and entry arguments (row_args, one array per thread). */
  int32_t row_workspaces;
  size_t workspace_stride;
  void **row_args;
  infc__profile *profile; /* NULL unless the session profiles (profile.c) */
  infc__llm *llm;         /* a decoder's KV cache once infc_llm_open reserved it (kv.c) */
  char error[512];
};

/* status.c */
size_t infc__dtype_size(int32_t dtype);
const char *infc__dtype_name(int32_t dtype);

/* model.c */
/* Validates desc and wraps it in a model with one reference (also how the tests feed the
 * runtime descriptors that no generated model would contain). */
infc_status infc__model_create_from_desc(const infc_model_desc *desc, infc_model **out);
int infc__model_is_valid(const infc_model *model);
void infc__model_retain(infc_model *model);
void infc__model_unref(infc_model *model);
/* The entry's io `i`: input i, or output i - num_inputs. */
static inline const infc_io_desc *infc__io(const infc_model_desc *d, size_t i) {
  return i < d->num_inputs ? &d->inputs[i] : &d->outputs[i - d->num_inputs];
}
/* Dense bytes of `io` with its -1 dims at the sizes of their names; 0 if one has no name or
 * the size overflows. */
int infc__io_bytes_at(const infc_io_desc *io, const int64_t *sizes, size_t *bytes);
/* Index of the io named `name` among n descs, or -1. */
long infc__find_io(const infc_io_desc *ios, uint32_t n, const char *name);

/* run.c: infc_run's work (the exported name is not called from inside: see above). */
infc_status infc__run(infc_session *session, const infc_tensor *inputs, size_t num_inputs,
                      infc_tensor *outputs, size_t num_outputs);

/* kv.c: a decoder's KV cache (a session's, once infc_llm_open made it) and its steps. */
void infc__llm_destroy(infc__llm *llm);
int64_t infc__llm_vocab(const infc__llm *llm);
/* every_row: logits after every token (infc_llm_step_all), else after each sequence's last. */
infc_status infc__llm_step(infc_session *session, size_t num_seqs, const int32_t *ids,
                           const int32_t *counts, const int64_t *tokens, float *logits,
                           int every_row);
/* Positions sequence id can still take in a step: its blocks' free slots and the free
 * blocks, at most up to the model's max_positions (0 for an unknown id). */
int64_t infc__llm_room(infc__llm *llm, int32_t id);
/* Sequence id's length (0 for an unknown id); infc_llm_sequence_truncate's work, without
 * touching the session's message (nothing for an unknown id or a length past the end). */
int64_t infc__llm_length(infc__llm *llm, int32_t id);
void infc__llm_truncate(infc__llm *llm, int32_t id, int64_t length);
/* Adds to the session's speculative totals (infc_llm_info's drafted and accepted). */
void infc__llm_count_drafts(infc__llm *llm, int64_t drafted, int64_t accepted);
/* sampling.c: infc_llm_sample's work, its message formatted into error. */
infc_status infc__llm_sample(const float *logits, int64_t vocab, const infc_llm_sampling *params,
                             uint64_t *state, int64_t *token, char *error, size_t size);

/* session.c */
int infc__session_is_valid(const infc_session *session);
/* Library-owned output j's buffer, grown to hold `bytes` (an output of a size beyond those
 * before; the old buffer is retired, not freed: a run's input may be the last run's output,
 * still in it); NULL when out of memory. */
void *infc__session_output_buffer(infc_session *session, size_t j, size_t bytes);
/* Frees the buffers runs grew out of (infc__session_output_buffer). */
void infc__session_free_retired(infc_session *session);
/* The workspace of a model that sizes it per run (desc->workspace_terms) grown, in
 * session->workspace, to hold this run's (s->dim_values bound); an error when it cannot. */
infc_status infc__session_run_workspace(infc_session *session);

/* cuda.c: a CUDA model's session (device buffers, stream; the driver opened at the first),
 * and a run (inputs to the device, the kernels, outputs back). Errors are formatted into
 * error/the session. host_io: the run's input pointers, then its output pointers (host or,
 * with INFC_TENSOR_DEVICE, device memory). */
infc_status infc__cuda_session_create(const infc_model *model, void *stream,
                                      infc__cuda_session **out, char *error, size_t size);
void infc__cuda_session_destroy(infc__cuda_session *cuda);
infc_status infc__cuda_run(infc_session *session, void *const *host_io,
                           const infc_tensor *const *in, infc_tensor *const *out);

/* threads.c: the session's pool, entered around each call of the model's entry. */
int32_t infc__default_threads(void);
infc__pool *infc__pool_create(int32_t size);
void infc__pool_destroy(infc__pool *pool);
void infc__pool_enter(infc__pool *pool);
void infc__pool_leave(void);
/* Runs of this pool report their workers' share of each region to `profile` (NULL: none).
 * Set between runs only. */
void infc__pool_set_profile(infc__pool *pool, infc__profile *profile);
/* Threads in the pool's team, the caller's included. */
int32_t infc__pool_size(const infc__pool *pool);
/* Runs fn(ctx, tid, team) on every thread of the team of the pool entered on this thread
 * (infc__pool_enter), as one parallel region: code it calls runs its own regions serially. */
void infc__pool_parallel(void (*fn)(void *ctx, int32_t tid, int32_t team), void *ctx);

/* profile.c: events of a profiled session, written as a chrome trace (JSON) to `path`. */
infc__profile *infc__profile_create(const infc_model_desc *desc, const char *path,
                                    int32_t num_threads);
void infc__profile_destroy(infc__profile *profile);
const char *infc__profile_path(const infc__profile *profile);
int64_t infc__profile_now(void);
/* Around a run on the calling thread: the run's event, and the profile the profiled entry's
 * infc__prof_begin/end calls record into. */
int64_t infc__profile_run_begin(infc__profile *profile, int32_t variant);
void infc__profile_run_end(infc__profile *profile, int64_t start_ns);
/* Worker `lane` (1..threads-1) ran its share of the current kernel's region. */
void infc__profile_worker(infc__profile *profile, int32_t lane, int64_t start_ns, int64_t end_ns);
/* Writes the trace; 0, or -1 with a message in error. */
int infc__profile_write(const infc__profile *profile, char *error, size_t size);

/* Formats the session's error message and returns status, for `return infc__fail(...)`. */
infc_status infc__fail(infc_session *session, infc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* INFC_RUNTIME_INTERNAL_H */
