/* infc — the public C ABI of every compiled model.so; the only header a user needs.
 *
 * Ownership, threading, error and versioning rules are in docs/abi.md. In short:
 *  - a model is immutable and shared; a session owns the per-run memory (workspace, library-owned
 *    outputs, error message) and is used by one thread at a time; N sessions run in parallel
 *    with no locks;
 *  - every function validates its arguments and returns an infc_status; nothing aborts;
 *  - the runtime keeps no global mutable state, so errors of calls made without a session are
 *    reported by status only (infc_status_string gives a static text); a session keeps the
 *    message of its last failed call (infc_session_error).
 *
 * Version rule: INFC_ABI_VERSION_MAJOR changes only for incompatible changes. Minor versions
 * only add: functions, enum values, fields at the end of structs that carry struct_size. */
#ifndef INFC_RUNTIME_H
#define INFC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFC_ABI_VERSION_MAJOR 1
#define INFC_ABI_VERSION_MINOR 6
#define INFC_ABI_VERSION ((uint32_t)((INFC_ABI_VERSION_MAJOR << 16) | INFC_ABI_VERSION_MINOR))

/* Marks the functions a model.so exports (runtime/exports.map lists the same names). */
#if defined(_WIN32)
#define INFC_API
#else
#define INFC_API __attribute__((visibility("default")))
#endif

/* ---- Status and dtypes ------------------------------------------------------------------ */

typedef enum infc_status {
  INFC_OK = 0,
  INFC_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, bad count, bad index, unknown name, ... */
  INFC_ERR_SHAPE_MISMATCH = 2,   /* rank or a dim differs from the model's */
  INFC_ERR_DTYPE_MISMATCH = 3,   /* element type differs from the model's */
  INFC_ERR_OUT_OF_MEMORY = 4,
  INFC_ERR_UNAVAILABLE = 5,      /* a feature or device this build or machine lacks */
  INFC_ERR_VERSION_MISMATCH = 6, /* a library of another ABI major version */
  INFC_ERR_INTERNAL = 7          /* a corrupt model or a runtime bug */
} infc_status;

/* Element types; the numeric values are part of the ABI. BOOL is one byte (0 or 1). */
typedef enum infc_dtype {
  INFC_F32 = 1,
  INFC_F64 = 2,
  INFC_F16 = 3,
  INFC_BF16 = 4,
  INFC_I8 = 5,
  INFC_I16 = 6,
  INFC_I32 = 7,
  INFC_I64 = 8,
  INFC_U8 = 9,
  INFC_U16 = 10,
  INFC_U32 = 11,
  INFC_U64 = 12,
  INFC_BOOL = 13,
  /* Since ABI 1.1: the 8-, 4- and 2-bit types of ONNX, one element per byte (the low bits;
   * as ml_dtypes stores them). F8 names follow ONNX: FN has no infinities, FNUZ no negative
   * zero (its NaN is 0x80). */
  INFC_F8E4M3FN = 14,
  INFC_F8E4M3FNUZ = 15,
  INFC_F8E5M2 = 16,
  INFC_F8E5M2FNUZ = 17,
  INFC_F4E2M1 = 18,
  INFC_I4 = 19,
  INFC_U4 = 20,
  INFC_I2 = 21,
  INFC_U2 = 22
} infc_dtype;

/* ABI version of the library: (major << 16) | minor. Compare the major with
 * INFC_ABI_VERSION_MAJOR before using a library opened at run time (infc_api_open does). */
INFC_API uint32_t infc_abi_version(void);

/* Static, never NULL: "ok", "invalid argument", ..., "unknown status". */
INFC_API const char *infc_status_string(infc_status status);

/* Bytes per element; 0 for a value that is not an infc_dtype. */
INFC_API size_t infc_dtype_size(infc_dtype dtype);

/* Static, never NULL: "float32", "bfloat16", "int64", "bool", ...; "invalid" otherwise. */
INFC_API const char *infc_dtype_name(infc_dtype dtype);

/* ---- Tensors ----------------------------------------------------------------------------- */

/* infc_tensor.flags (ABI 1.2): data is device memory of the model's GPU (a CUdeviceptr,
 * cast), for a model compiled with --target cuda. Inputs are read and caller-owned outputs
 * written on the GPU, with no copy through the host. Refused by CPU models, for library-owned
 * outputs and for inputs specialized with --input-value. */
#define INFC_TENSOR_DEVICE 1u

/* A dense, row-major tensor in host memory (or device memory, INFC_TENSOR_DEVICE). Zero-
 * initialise it ({0}) and set what applies.
 *
 * Inputs: the caller sets every field but byte_size, which is optional (0 = not checked; else
 *   the size of the buffer at data, which must cover the tensor). shape may be NULL if rank 0.
 * Outputs, caller-owned (data != NULL): same fields as an input; the runtime checks them and
 *   writes the result into data.
 * Outputs, library-owned (data == NULL): the runtime sets data, dtype, rank, shape and
 *   byte_size; they point into the session and stay valid until the next run on that session
 *   or its release. Passing the same tensor again (data now set) writes into the same buffer.
 * Output buffers must not overlap each other or any input. */
typedef struct infc_tensor {
  void *data;
  infc_dtype dtype;
  int32_t rank;
  const int64_t *shape; /* rank dims */
  size_t byte_size;     /* see above */
  uint32_t flags;       /* 0, or INFC_TENSOR_DEVICE */
  uint32_t reserved;    /* must be 0 */
} infc_tensor;

/* ---- Models ------------------------------------------------------------------------------ */

typedef struct infc_model infc_model;

/* One input or output as the model declares it. Dynamic dims are -1. Pointers stay valid while
 * the model (or one of its sessions) is alive. */
typedef struct infc_io_info {
  const char *name;
  infc_dtype dtype;
  int32_t rank;
  const int64_t *shape; /* rank dims; NULL when rank is 0 */
  size_t byte_size;     /* dense size in bytes; 0 if a dim is dynamic */
} infc_io_info;

/* The model compiled into this library. Each call returns a new reference; models are
 * immutable, so one model can serve any number of sessions on any threads.
 * Errors: INVALID_ARGUMENT (out is NULL), OUT_OF_MEMORY, INTERNAL (corrupt model). */
INFC_API infc_status infc_model_create(infc_model **out);

/* Drops a reference; a model stays alive while a session created from it does. NULL is a
 * no-op. */
INFC_API void infc_model_release(infc_model *model);

/* Introspection. Counts and sizes are 0, names NULL, for a NULL model. */
INFC_API const char *infc_model_name(const infc_model *model);
INFC_API size_t infc_model_num_inputs(const infc_model *model);
INFC_API size_t infc_model_num_outputs(const infc_model *model);
INFC_API size_t infc_model_workspace_bytes(const infc_model *model); /* per session */
INFC_API infc_status infc_model_input_info(const infc_model *model, size_t index,
                                           infc_io_info *out);
INFC_API infc_status infc_model_output_info(const infc_model *model, size_t index,
                                            infc_io_info *out);

/* ABI 1.4: one dim of an input or output, as the model names and bounds it. */
typedef struct infc_dim_info {
  const char *name; /* the model's name for the dim (ONNX dim_param, "batch"), or NULL */
  int64_t value;    /* its size, or -1 where runs may pass several (as in infc_io_info) */
  /* The sizes a run may pass: value..value for a fixed dim; for one of -1, the range given
   * at compile time (infc compile --dim NAME=MIN..MAX, else 0..INT64_MAX), narrowed to the
   * sizes of the compiled variants (--specialize). Every input dim of one name takes one
   * size in a run. */
  int64_t min;
  int64_t max;
} infc_dim_info;

/* Dim `dim` (0..rank-1) of input/output `index`. Errors: INVALID_ARGUMENT. */
INFC_API infc_status infc_model_input_dim(const infc_model *model, size_t index, int32_t dim,
                                          infc_dim_info *out);
INFC_API infc_status infc_model_output_dim(const infc_model *model, size_t index, int32_t dim,
                                           infc_dim_info *out);

/* Index of the input/output named `name`; INVALID_ARGUMENT if there is none. */
INFC_API infc_status infc_model_find_input(const infc_model *model, const char *name,
                                           size_t *index);
INFC_API infc_status infc_model_find_output(const infc_model *model, const char *name,
                                            size_t *index);

/* ---- Sessions ---------------------------------------------------------------------------- */

typedef struct infc_session infc_session;

typedef struct infc_session_options {
  /* sizeof(infc_session_options) as the caller compiled it; 0 means the ABI 1.0 layout. The
   * runtime reads only that many bytes, so old callers keep working with newer libraries. */
  uint32_t struct_size;
  /* Threads one run uses, the caller's included; 0 = the CPUs this process may run on.
   * Each session owns its threads: N sessions share nothing. Negative is invalid. */
  int32_t num_threads;
  /* Optional: when infc_session_create fails, a NUL-terminated message is written here
   * (truncated to error_buffer_size). There is no session yet to hold it. */
  char *error_buffer;
  size_t error_buffer_size;
  /* ABI 1.2, CUDA models: a CUstream (cast) the session's runs are enqueued on, instead of
   * a stream of its own. A run whose inputs and outputs are all device memory then returns
   * once its work is enqueued (synchronize the stream before reading the outputs); a run
   * with host memory still returns when the outputs are there. Ignored by CPU models. */
  void *cuda_stream;
  /* ABI 1.3: profile the session's runs into this chrome-trace JSON file (chrome://tracing,
   * ui.perfetto.dev): one event per run, per kernel (named by the ONNX nodes it covers)
   * and per worker's share of a parallel region. Written when the session is released or
   * by infc_session_end_profiling. NULL: the INFC_PROFILE environment variable, read here,
   * names the file (the n-th profiled session of a process, n > 1, inserts ".n" before
   * the extension); unset or empty, no profiling, and runs cost nothing extra. "" (empty):
   * no profiling whatever INFC_PROFILE says. A profiled
   * run calls a second copy of the model's code with a clock read around each kernel,
   * which `infc compile --profile` builds; without it, the trace times whole runs. */
  const char *profile_path;
} infc_session_options;

/* Allocates the session's workspace (64-byte aligned) and its library-owned output buffers,
 * once; runs allocate nothing. options may be NULL (defaults). The session holds a reference
 * to the model. Errors: INVALID_ARGUMENT, OUT_OF_MEMORY, UNAVAILABLE (e.g. dynamic dims). */
INFC_API infc_status infc_session_create(const infc_model *model,
                                         const infc_session_options *options, infc_session **out);

/* Frees the session and everything it owns (library-owned outputs included). NULL is a no-op.
 * A profiling session writes its trace first (a failure is printed on stderr: call
 * infc_session_end_profiling to get it as a status). */
INFC_API void infc_session_release(infc_session *session);

/* Message of the last failed call on this session, "" after a successful one. Valid until the
 * next call on the session. Never NULL (a static text for a NULL or invalid session). */
INFC_API const char *infc_session_error(const infc_session *session);

/* The session's model (no new reference) and the threads its runs use (num_threads, or the
 * number of CPUs this process may run on when num_threads was 0). */
INFC_API const infc_model *infc_session_model(const infc_session *session);
INFC_API int32_t infc_session_num_threads(const infc_session *session);

/* ABI 1.3: writes the trace of a profiling session (infc_session_options.profile_path or
 * INFC_PROFILE) and stops profiling; later runs are not profiled. The file is written to a
 * temporary name and renamed, so it is complete or absent. Errors: INVALID_ARGUMENT (the
 * session does not profile; the file cannot be written). */
INFC_API infc_status infc_session_end_profiling(infc_session *session);

/* Runs the model. inputs[i] binds model input i and outputs[j] model output j; the counts must
 * equal the model's. Everything is validated before anything is written: on an error no output
 * is touched and infc_session_error names the offending input or output. Not reentrant on one
 * session; sessions are independent. */
INFC_API infc_status infc_run(infc_session *session, const infc_tensor *inputs, size_t num_inputs,
                              infc_tensor *outputs, size_t num_outputs);

/* Same, binding by name: every model input exactly once, in any order; any subset of the
 * outputs (the others are computed into the session's buffers and not returned). */
INFC_API infc_status infc_run_named(infc_session *session, const char *const *input_names,
                                    const infc_tensor *inputs, size_t num_inputs,
                                    const char *const *output_names, infc_tensor *outputs,
                                    size_t num_outputs);

/* ABI 1.4: checks inputs as infc_run does (dtypes, ranks, dims, named dims' sizes and ranges,
 * the variant that takes them) without running; `data` may be NULL. Afterwards
 * infc_session_output_shape gives the shapes a run with such inputs produces, so that
 * caller-owned outputs can be allocated first (a --specialize library's shapes vary). Errors
 * as infc_run's. */
INFC_API infc_status infc_session_prepare(infc_session *session, const infc_tensor *inputs,
                                          size_t num_inputs);

/* ABI 1.4: output `index`'s shape as of the session's last successful infc_session_prepare or
 * infc_run (before either: the model's, -1 for a dim that varies, or the first variant's).
 * *shape is valid until the next prepare or run on the session, or its release. Errors:
 * INVALID_ARGUMENT. */
INFC_API infc_status infc_session_output_shape(const infc_session *session, size_t index,
                                               int32_t *rank, const int64_t **shape);

/* ---- Decoder LLMs (ABI 1.5) --------------------------------------------------------------- */
/* A library compiled with `infc compile --decoder` runs steps of a decoder LLM over a KV cache
 * that the session holds in fixed-size blocks (PagedAttention): each sequence has a block
 * table, blocks come from one pool reserved by infc_llm_open and go back when a sequence is
 * removed. A step appends new tokens to any number of sequences (a prompt's, one generated
 * token, several) and returns each one's next-token logits. docs/decoder-llm.md. */

typedef struct infc_llm_info_t {
  uint32_t struct_size; /* the caller's sizeof (0: ABI 1.5's layout); the runtime fills that much */
  int32_t layers, heads, kv_heads, head_dim;
  int32_t block_tokens;       /* positions per KV block */
  int64_t vocab;              /* logits per token */
  int64_t max_step_tokens;    /* tokens one call of the model takes; longer steps are split */
  int32_t max_blocks;         /* the pool, once open (else 0) */
  int32_t free_blocks;        /* of them, free now */
  int64_t kv_bytes_per_token; /* cache bytes one position of one sequence takes */
  int64_t max_positions;      /* a sequence's most positions (its tables'); 0: unknown */
  /* ABI 1.6: the session's totals of infc_llm_generate's speculative decoding (prompt lookup):
   * draft tokens checked, and of them accepted (the model chose the drafted token). */
  int64_t drafted, accepted;
} infc_llm_info_t;

/* The decoder's geometry and the cache's use. Errors: INVALID_ARGUMENT (not a decoder). */
INFC_API infc_status infc_llm_info(infc_session *session, infc_llm_info_t *info);

/* Reserves the session's KV cache: max_blocks blocks of block_tokens positions (of every
 * layer), allocated once. Errors: INVALID_ARGUMENT (not a decoder, already open),
 * OUT_OF_MEMORY. */
INFC_API infc_status infc_llm_open(infc_session *session, int32_t max_blocks);

/* A new, empty sequence; its id is reused once removed. */
INFC_API infc_status infc_llm_sequence_add(infc_session *session, int32_t *id);
/* Frees the sequence's blocks for others. */
INFC_API infc_status infc_llm_sequence_remove(infc_session *session, int32_t id);
/* Positions the sequence holds (the tokens of its steps so far). */
INFC_API infc_status infc_llm_sequence_length(infc_session *session, int32_t id, int64_t *length);
/* ABI 1.6: keeps the sequence's first `length` positions (at most its length) and frees the
 * blocks past them: the next step continues at position `length` (a rejected draft, an edited
 * conversation). Errors: INVALID_ARGUMENT. */
INFC_API infc_status infc_llm_sequence_truncate(infc_session *session, int32_t id, int64_t length);

/* One step: sequence ids[i] gets counts[i] new tokens (tokens holds them all, sequence by
 * sequence), at the positions after its length; every sequence's tokens attend to its own
 * past and to each other causally. logits (may be NULL) receives, for each i, the vocab
 * logits after sequence i's last new token, at logits + i * vocab. Steps longer than
 * max_step_tokens run in several calls of the model. A step that needs more blocks than are
 * free changes nothing and fails with OUT_OF_MEMORY naming the sequence; the session stays
 * usable. A step that fails later (in a call of the model) leaves every sequence's length as
 * it was. Errors: INVALID_ARGUMENT (unknown or repeated id, a count below 1, a token outside
 * the vocabulary), OUT_OF_MEMORY. */
INFC_API infc_status infc_llm_step(infc_session *session, size_t num_seqs, const int32_t *ids,
                                   const int32_t *counts, const int64_t *tokens, float *logits);
/* ABI 1.6: infc_llm_step that gives the logits after every new token, not only each
 * sequence's last: logits (may be NULL) receives vocab values for each token of `tokens`, in
 * its order (what a speculative check compares its drafts with). */
INFC_API infc_status infc_llm_step_all(infc_session *session, size_t num_seqs, const int32_t *ids,
                                       const int32_t *counts, const int64_t *tokens, float *logits);

/* How the next token is chosen from a step's logits. All zero is greedy. */
typedef struct infc_llm_sampling {
  float temperature; /* 0: the most likely token (greedy); else a draw at this temperature */
  int32_t top_k;     /* > 0: from the top_k most likely tokens only */
  float top_p;       /* in (0, 1): from the fewest most likely tokens whose probability
                        reaches top_p (of the top_k); 0 or 1: no such cut */
} infc_llm_sampling;

/* A generator state for infc_llm_sample from a seed (PCG32): one seed, one stream of draws. */
INFC_API uint64_t infc_llm_seed(uint64_t seed);

/* Chooses a token from `vocab` logits: greedy when params is NULL or its temperature is 0
 * (the first of equal maxima), else a draw (advancing *state) among the top_k / top_p
 * tokens with probabilities softmax(logits / temperature); a -inf logit is never drawn.
 * Errors: INVALID_ARGUMENT (a NaN or +inf logit, every logit -inf, a parameter out of range),
 * OUT_OF_MEMORY. */
INFC_API infc_status infc_llm_sample(const float *logits, int64_t vocab,
                                     const infc_llm_sampling *params, uint64_t *state,
                                     int64_t *token);

typedef struct infc_llm_generate_options {
  uint32_t struct_size;       /* sizeof(infc_llm_generate_options) as the caller compiled it
                                 (0: ABI 1.5's layout, without the drafts) */
  int32_t max_new_tokens;     /* at least 1 */
  const int64_t *stop_tokens; /* generation ends after any of these (which is kept) */
  int32_t num_stop_tokens;
  infc_llm_sampling sampling; /* zero: greedy */
  uint64_t seed;              /* of the draws (infc_llm_seed) */
  /* ABI 1.6: prompt-lookup speculative decoding. draft_tokens > 0: before each step, the
   * longest n-gram (draft_ngram tokens at most, 3 when 0; at least 1) that ends the sequence's
   * tokens is looked up earlier in them, and up to draft_tokens tokens that followed its most
   * recent occurrence are run in the same step as the last token; each is kept while it is the
   * token the model chooses. The tokens are those of plain decoding (each chosen from its
   * own logits, with the same draws); only the number of steps changes. */
  int32_t draft_tokens;
  int32_t draft_ngram;
} infc_llm_generate_options;

/* Appends `prompt` to sequence `id` and generates up to max_new_tokens tokens after it,
 * writing them to out (room for max_new_tokens) and their count to *num_out. The sequence
 * stays (remove it when done) and holds the prompt and every new token but the last, which
 * no step has run yet: to continue, step with it first. Errors: as infc_llm_step's and
 * infc_llm_sample's; the tokens made before an error are in out. */
INFC_API infc_status infc_llm_generate(infc_session *session, int32_t id, const int64_t *prompt,
                                       size_t prompt_len, const infc_llm_generate_options *options,
                                       int64_t *out, size_t *num_out);

/* ---- Loading a model.so at run time ------------------------------------------------------ */

/* The ABI of one model.so as function pointers, so a host can use several models without
 * linking any (each .so carries its own copy of the runtime; handles of one model.so must only
 * be passed to the functions of the same infc_api). */
typedef struct infc_api {
  void *handle; /* from dlopen */
  uint32_t (*abi_version)(void);
  const char *(*status_string)(infc_status);
  size_t (*dtype_size)(infc_dtype);
  const char *(*dtype_name)(infc_dtype);
  infc_status (*model_create)(infc_model **);
  void (*model_release)(infc_model *);
  const char *(*model_name)(const infc_model *);
  size_t (*model_num_inputs)(const infc_model *);
  size_t (*model_num_outputs)(const infc_model *);
  size_t (*model_workspace_bytes)(const infc_model *);
  infc_status (*model_input_info)(const infc_model *, size_t, infc_io_info *);
  infc_status (*model_output_info)(const infc_model *, size_t, infc_io_info *);
  infc_status (*model_find_input)(const infc_model *, const char *, size_t *);
  infc_status (*model_find_output)(const infc_model *, const char *, size_t *);
  infc_status (*session_create)(const infc_model *, const infc_session_options *, infc_session **);
  void (*session_release)(infc_session *);
  const char *(*session_error)(const infc_session *);
  const infc_model *(*session_model)(const infc_session *);
  int32_t (*session_num_threads)(const infc_session *);
  infc_status (*run)(infc_session *, const infc_tensor *, size_t, infc_tensor *, size_t);
  infc_status (*run_named)(infc_session *, const char *const *, const infc_tensor *, size_t,
                           const char *const *, infc_tensor *, size_t);
  /* ABI 1.3; NULL in a library of an older minor version. */
  infc_status (*session_end_profiling)(infc_session *);
  /* ABI 1.4; NULL in a library of an older minor version. */
  infc_status (*model_input_dim)(const infc_model *, size_t, int32_t, infc_dim_info *);
  infc_status (*model_output_dim)(const infc_model *, size_t, int32_t, infc_dim_info *);
  infc_status (*session_prepare)(infc_session *, const infc_tensor *, size_t);
  infc_status (*session_output_shape)(const infc_session *, size_t, int32_t *, const int64_t **);
  /* ABI 1.5; NULL in a library of an older minor version. */
  infc_status (*llm_info)(infc_session *, infc_llm_info_t *);
  infc_status (*llm_open)(infc_session *, int32_t);
  infc_status (*llm_sequence_add)(infc_session *, int32_t *);
  infc_status (*llm_sequence_remove)(infc_session *, int32_t);
  infc_status (*llm_sequence_length)(infc_session *, int32_t, int64_t *);
  infc_status (*llm_step)(infc_session *, size_t, const int32_t *, const int32_t *, const int64_t *,
                          float *);
  uint64_t (*llm_seed)(uint64_t);
  infc_status (*llm_sample)(const float *, int64_t, const infc_llm_sampling *, uint64_t *,
                            int64_t *);
  infc_status (*llm_generate)(infc_session *, int32_t, const int64_t *, size_t,
                              const infc_llm_generate_options *, int64_t *, size_t *);
  /* ABI 1.6; NULL in a library of an older minor version. */
  infc_status (*llm_sequence_truncate)(infc_session *, int32_t, int64_t);
  infc_status (*llm_step_all)(infc_session *, size_t, const int32_t *, const int32_t *,
                              const int64_t *, float *);
} infc_api;

#if !defined(INFC_NO_DLOPEN_HELPERS) && (defined(__unix__) || defined(__APPLE__))
/* Header-only, so they need dlopen from the host: in libc since glibc 2.34; older glibc needs
 * -ldl when linking the host. Define INFC_NO_DLOPEN_HELPERS to leave them out. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Closes a library opened by infc_api_open and clears *api. Release every model and session
 * of it first. NULL or an already closed api is a no-op. */
static inline void infc_api_close(infc_api *api) {
  if (!api)
    return;
  if (api->handle)
    dlclose(api->handle);
  memset(api, 0, sizeof *api);
}

/* dlopen()s the model.so at `path` (RTLD_NOW | RTLD_LOCAL, so several models coexist), fills
 * *api and checks the ABI major version. On error *api is cleared and, if error_buffer is not
 * NULL, a message (dlerror's text included) is written there. Errors: INVALID_ARGUMENT,
 * UNAVAILABLE (cannot load, or a symbol is missing), VERSION_MISMATCH. */
static inline infc_status infc_api_open(const char *path, infc_api *api, char *error_buffer,
                                        size_t error_buffer_size) {
  infc_status status = INFC_ERR_UNAVAILABLE;
  const char *what = "";
  const char *detail = "";
  if (!api || !path) {
    if (error_buffer && error_buffer_size)
      snprintf(error_buffer, error_buffer_size, "infc_api_open: %s is NULL", api ? "path" : "api");
    if (api)
      memset(api, 0, sizeof *api);
    return INFC_ERR_INVALID_ARGUMENT;
  }
  memset(api, 0, sizeof *api);
  api->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!api->handle) {
    what = "cannot load";
    detail = dlerror();
    if (!detail)
      detail = "";
    goto fail;
  }
  /* memcpy from void *: the C and C++ friendly way to turn dlsym's result into a function. */
#define INFC__LOAD(field, symbol)                                                                  \
  do {                                                                                             \
    void *sym_ = dlsym(api->handle, #symbol);                                                      \
    if (!sym_) {                                                                                   \
      what = "missing symbol " #symbol " in";                                                      \
      detail = "";                                                                                 \
      goto fail;                                                                                   \
    }                                                                                              \
    memcpy(&api->field, &sym_, sizeof sym_);                                                       \
  } while (0)
  INFC__LOAD(abi_version, infc_abi_version);
  INFC__LOAD(status_string, infc_status_string);
  INFC__LOAD(dtype_size, infc_dtype_size);
  INFC__LOAD(dtype_name, infc_dtype_name);
  INFC__LOAD(model_create, infc_model_create);
  INFC__LOAD(model_release, infc_model_release);
  INFC__LOAD(model_name, infc_model_name);
  INFC__LOAD(model_num_inputs, infc_model_num_inputs);
  INFC__LOAD(model_num_outputs, infc_model_num_outputs);
  INFC__LOAD(model_workspace_bytes, infc_model_workspace_bytes);
  INFC__LOAD(model_input_info, infc_model_input_info);
  INFC__LOAD(model_output_info, infc_model_output_info);
  INFC__LOAD(model_find_input, infc_model_find_input);
  INFC__LOAD(model_find_output, infc_model_find_output);
  INFC__LOAD(session_create, infc_session_create);
  INFC__LOAD(session_release, infc_session_release);
  INFC__LOAD(session_error, infc_session_error);
  INFC__LOAD(session_model, infc_session_model);
  INFC__LOAD(session_num_threads, infc_session_num_threads);
  INFC__LOAD(run, infc_run);
  INFC__LOAD(run_named, infc_run_named);
#undef INFC__LOAD
  /* Functions of later minor versions: NULL where the library predates them. */
#define INFC__LOAD_OPTIONAL(field, symbol)                                                         \
  do {                                                                                             \
    void *sym_ = dlsym(api->handle, #symbol);                                                      \
    memcpy(&api->field, &sym_, sizeof sym_);                                                       \
  } while (0)
  INFC__LOAD_OPTIONAL(session_end_profiling, infc_session_end_profiling);
  INFC__LOAD_OPTIONAL(model_input_dim, infc_model_input_dim);
  INFC__LOAD_OPTIONAL(model_output_dim, infc_model_output_dim);
  INFC__LOAD_OPTIONAL(session_prepare, infc_session_prepare);
  INFC__LOAD_OPTIONAL(session_output_shape, infc_session_output_shape);
  INFC__LOAD_OPTIONAL(llm_info, infc_llm_info);
  INFC__LOAD_OPTIONAL(llm_open, infc_llm_open);
  INFC__LOAD_OPTIONAL(llm_sequence_add, infc_llm_sequence_add);
  INFC__LOAD_OPTIONAL(llm_sequence_remove, infc_llm_sequence_remove);
  INFC__LOAD_OPTIONAL(llm_sequence_length, infc_llm_sequence_length);
  INFC__LOAD_OPTIONAL(llm_step, infc_llm_step);
  INFC__LOAD_OPTIONAL(llm_seed, infc_llm_seed);
  INFC__LOAD_OPTIONAL(llm_sample, infc_llm_sample);
  INFC__LOAD_OPTIONAL(llm_generate, infc_llm_generate);
  INFC__LOAD_OPTIONAL(llm_sequence_truncate, infc_llm_sequence_truncate);
  INFC__LOAD_OPTIONAL(llm_step_all, infc_llm_step_all);
#undef INFC__LOAD_OPTIONAL
  (void)dlerror(); /* a missing one must not leave an error for the host's next dlerror */
  if ((api->abi_version() >> 16) != INFC_ABI_VERSION_MAJOR) {
    status = INFC_ERR_VERSION_MISMATCH;
    what = "ABI major version differs from this header's in";
    goto fail;
  }
  return INFC_OK;
fail:
  if (error_buffer && error_buffer_size)
    snprintf(error_buffer, error_buffer_size, "infc_api_open: %s '%s'%s%s", what, path,
             *detail ? ": " : "", detail);
  infc_api_close(api);
  return status;
}
#endif /* dlopen helpers */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFC_RUNTIME_H */
