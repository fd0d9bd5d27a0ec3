/* infc — the internal contract between compiler-generated model code and the runtime.
 *
 * Not part of the public ABI: the compiler (lib/Target/ModelObject.cpp) emits one
 * `infc__model_desc` per model.so with exactly this layout, and the runtime reads it. Bump
 * INFC_MODEL_DESC_VERSION whenever the layout changes. */
#ifndef INFC_RUNTIME_MODEL_DESC_H
#define INFC_RUNTIME_MODEL_DESC_H

#include <stdint.h>

#define INFC_MODEL_DESC_VERSION 10u

/* What runs the model's code (infc_model_desc.device). */
#define INFC_DEVICE_CPU 0u
#define INFC_DEVICE_CUDA 1u /* kernels on an NVIDIA GPU through the CUDA driver (cuda.c) */

/* One input or output of the model's entry point. */
typedef struct infc_io_desc {
  const char *name; /* ONNX graph input/output name, NUL-terminated */
  int32_t dtype;    /* an infc_dtype value from include/infc/runtime.h */
  int32_t rank;
  const int64_t *shape; /* rank entries; -1 marks a dim the variants disagree on */
  /* An input the model was specialized to (infc compile --input-value): the value_bytes
   * bytes every run must pass, as stored (row-major, little-endian). NULL otherwise. */
  const void *value;
  uint64_t value_bytes;
  /* v6: rank entries, each the index of the dim's name in the model's `dims`, or -1 for a
   * dim the model does not name; NULL when none is named. */
  const int32_t *dim_ids;
} infc_io_desc;

/* v6: a named dim (ONNX dim_param, "batch"). Every input dim of one name takes one value in
 * a run, within [min, max] (infc compile --dim NAME=MIN..MAX; else 0..INT64_MAX). A name
 * only outputs carry is never bound. */
typedef struct infc_dim_desc {
  const char *name;
  int64_t min;
  int64_t max;
} infc_dim_desc;

/* The entry point: args[0] is the session workspace (workspace_bytes, 64-byte aligned, may be
 * NULL when workspace_bytes == 0), then one data pointer per input in order, then one per
 * output in order. A model with `weights` takes them after the workspace (a CUDA model
 * always, as the device copy; the GPU emulator's host code too). In a CUDA model every
 * pointer is device memory, and the entry enqueues kernels through the mgpu* calls
 * (cuda.c) on the stream of the run in progress. Outputs are written in place, densely in row-major
 * order. The function reads the weights (read-only, shared) and touches no other memory, so
 * sessions can run it concurrently. */
typedef void (*infc_entry_fn)(void **args);

/* v5: one static variant of a library compiled with `infc compile --specialize`: the code
 * for one set of input shapes. A run takes the first variant whose input shapes equal its
 * inputs' exactly. */
typedef struct infc_variant_desc {
  const char *label;                   /* the dims it was compiled for: "batch=8,seq=128" */
  const int64_t *const *input_shapes;  /* per input, its rank dims (all static) */
  const int64_t *const *output_shapes; /* per output */
  infc_entry_fn entry;
  infc_entry_fn profiled_entry; /* as the model's, or NULL */
  uint64_t workspace_bytes;     /* at most the model's workspace_bytes */
  uint32_t num_kernels;
  const char *const *kernel_names;
} infc_variant_desc;

typedef struct infc_model_desc {
  uint32_t desc_version; /* INFC_MODEL_DESC_VERSION */
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t device; /* INFC_DEVICE_CPU or INFC_DEVICE_CUDA */
  const infc_io_desc *inputs;
  const infc_io_desc *outputs;
  uint64_t workspace_bytes; /* static memory plan: peak scratch bytes per session */
  const char *model_name;   /* the ONNX graph name */
  infc_entry_fn entry;
  /* The constants as one blob, passed as args[1] when not NULL (CUDA: uploaded once per
   * model and passed as the device copy). */
  const void *weights;
  uint64_t weights_bytes;
  /* v4: the entry with a timer around each kernel (infc-profile-entry), which a profiled
   * session calls instead of `entry`: it calls infc__prof_begin(k) / infc__prof_end(k)
   * around kernel k, named kernel_names[k] (the ONNX nodes it covers). NULL when the model
   * has none (compiled without `infc compile --profile`): a profile then times whole
   * runs. */
  infc_entry_fn profiled_entry;
  uint32_t num_kernels;
  const char *const *kernel_names;
  /* v5: the variants of a --specialize library (0 and NULL for a static model). Then the
   * io shapes above have -1 where the variants differ, workspace_bytes is their maximum,
   * and entry, profiled_entry and the kernels are the first variant's. */
  uint32_t num_variants;
  const infc_variant_desc *variants;
  /* v6: the names dim_ids refer to (0 and NULL when the model names no dim). */
  uint32_t num_dims;
  const infc_dim_desc *dims;
  /* v7: INFC_DESC_* bits. */
  uint32_t flags;
  /* v8: a workspace sized at each run (generic code whose symbolic dim has no largest size:
   * infc compile with no flag for it). The workspace of a run at size d of named dim
   * workspace_dim is sum(workspace_coeffs[k] * d^k) bytes, k < workspace_terms (the
   * buffers of fixed size first, workspace_bytes of them, then those of the dim's size).
   * 0, -1 and NULL otherwise. */
  uint32_t workspace_terms;
  int32_t workspace_dim;
  const uint64_t *workspace_coeffs;
  /* v9: a decoder LLM's step (infc compile --decoder), else NULL. */
  const struct infc_decoder_desc *decoder;
  /* v10: called by infc_model_create before anything else when not NULL: the weights file
   * of a model built from C source (infc compile --emit=c). Returns NULL when the model can
   * run, else why not (infc_model_create then fails with INFC_ERR_UNAVAILABLE). */
  const char *(*prepare)(void);
} infc_model_desc;

/* A decoder's geometry, for the runtime's KV cache (runtime/kv.c): the entry is generic code
 * over the step's tokens (its one named dim) taking input_ids and position_ids and giving
 * logits; it calls infc__paged_attention once per layer. */
typedef struct infc_decoder_desc {
  int32_t layers;
  int32_t heads;
  int32_t kv_heads;
  int32_t head_dim;
  int64_t max_positions; /* the rows of its position tables (RoPE's, wpe); 0: unknown */
} infc_decoder_desc;

/* The generic code of a model with symbolic dims (infc compile --dim): the io shapes have -1
 * for them, each named, with a finite range; the entry takes the named dims' sizes (int64_t
 * [num_dims], the dims' order) as the argument after the workspace (and weights), and every
 * buffer dense at the run's sizes. workspace_bytes is the plan at the dims' maxima; with a
 * dim of no largest size (max INT64_MAX), the workspace is sized per run (workspace_terms). */
#define INFC_DESC_DIMS_ARG 1u
/* The batch loop of a model that treats a batch row by row (infc compile --dim, where the
 * generic code does not apply): the entry is the static code for one row, without a dims
 * argument. Every -1 dim is dim 0 of its io, all of one name; the runtime sizes the run as
 * a generic model's and calls the entry once per row, each io with the -1 advanced by its
 * row's bytes (the others passed whole). workspace_bytes is the one row's plan. The batch
 * may have no largest size (max INT64_MAX): library-owned outputs are then sized per run. */
#define INFC_DESC_BATCH_LOOP 2u
/* Both (a batch loop around generic code: a dynamic batch and sequence): the batch is dim
 * id 0, at dim 0 of the ios that carry it; the entry is the generic code for one row, its
 * other -1 dims named as a generic model's, and it takes the dims argument, the batch's
 * size in it unused. No variants. */

/* Defined (hidden visibility) by the generated object of each model.so. */
extern const infc_model_desc infc__model_desc;

#endif /* INFC_RUNTIME_MODEL_DESC_H */
