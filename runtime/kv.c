/* infc runtime — decoder LLMs (infc compile --decoder): the paged KV cache, steps over the
 * new tokens of several sequences, and the attention kernel the generated code calls.
 *
 * The cache is one pool per session of `max_blocks` blocks; a block holds, for every layer,
 * the keys and then the values of INFC__KV_BLOCK_TOKENS positions of one sequence (keys
 * [kv_heads][head_dim][block_tokens], transposed for the kernel; values
 * [kv_heads][block_tokens][head_dim]). A sequence owns a list of blocks (its
 * block table); its position p lives in block table[p / block_tokens], slot p %
 * block_tokens. Freed blocks go back on a free list and are reused.
 *
 * A step runs the model's entry once over T rows, the concatenated new tokens of the
 * scheduled sequences (more than the compiled maximum are run in several calls: chunked
 * prefill). The generated code calls infc__paged_attention once per layer; which rows
 * belong to which sequence is the step context, set in a thread-local around the entry
 * (the entry runs on the calling thread). Without one (a plain infc_run of a decoder
 * library), the kernel attends causally over the T rows as one sequence with no past. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#define INFC__KV_X86 1
#endif

#define INFC__KV_BLOCK_TOKENS 16
#define INFC__KV_MAX_HEAD_DIM 512
/* A call of the model takes at most this many tokens (its --dim range's maximum). */
#define INFC__KV_MAX_STEP_TOKENS (1 << 20)

typedef struct infc__llm_seq {
  int32_t active;
  int64_t length; /* positions in the cache */
  int32_t *blocks;
  int32_t num_blocks, cap_blocks;
} infc__llm_seq;

struct infc__llm {
  const infc_decoder_desc *dd;
  int32_t layers, heads, kv_heads, head_dim;
  size_t block_floats; /* one block, every layer, keys and values */
  size_t kv_floats;    /* one layer's keys (or values) of one block */
  float *pool;
  int32_t max_blocks, num_free;
  int32_t *free_blocks;
  infc__llm_seq *seqs;
  int32_t num_seqs, cap_seqs;
  int32_t ids_input, positions_input, logits_output;
  int64_t vocab, max_rows;
  /* Step scratch, grown as needed. */
  int64_t *ids, *positions;
  int32_t *row0, *rows;
  int64_t *past;
  const int32_t **tables;
  int32_t *step_seq;   /* the sequence of each of a chunk's entries */
  int64_t *saved;      /* the step's sequences' lengths before it */
  int32_t *logit_rows; /* a chunk's rows whose logits the step returns */
  int32_t cap_step;
  int64_t drafted, accepted; /* infc_llm_generate's speculative totals (infc_llm_info) */
};

/* One call's sequences: rows row0[i] .. row0[i] + rows[i] - 1 of the step are sequence i's
 * positions past[i] .. past[i] + rows[i] - 1, its blocks tables[i]. */
typedef struct infc__llm_context {
  const struct infc__llm *llm;
  int32_t num_seqs;
  const int32_t *row0, *rows;
  const int64_t *past;
  const int32_t *const *tables;
  /* The rows whose logits the step uses: every row, or logit_rows[0 .. num_logit_rows). */
  int32_t every_row, num_logit_rows;
  const int32_t *logit_rows;
  int32_t packed; /* set by infc__llm_logit_rows: the logits hold those rows alone, in order */
} infc__llm_context;

static _Thread_local infc__llm_context *current_step;

/* ---- The attention kernel ------------------------------------------------------------- */

typedef struct attention_job {
  const infc__llm_context *step; /* NULL: one sequence of `total_rows`, no cache */
  int32_t layer, heads, kv_heads, head_dim, group;
  int64_t total_rows, items;
  float scale;
  const float *q, *k, *v;
  const float *plain_keys; /* without a step: k in the blocks' key layout (below) */
  float *out;
} attention_job;

/* One block's keys are stored transposed, [head_dim][block_tokens] per KV head, so that a
 * query's scores against the block's 16 positions are head_dim multiply-adds of 16-wide
 * rows (no horizontal sums); its values row by row, [block_tokens][head_dim]. */
typedef struct kv_chunk {
  const float *keys;   /* [head_dim][INFC__KV_BLOCK_TOKENS], slot 0 first */
  const float *values; /* count rows of head_dim */
  int64_t count;
} kv_chunk;

/* The positions start .. (at most the block's end) of the first n of sequence s, KV head
 * h; start is a multiple of the block size. */
static int next_chunk(const attention_job *job, int32_t s, int32_t h, int64_t n, int64_t start,
                      kv_chunk *c) {
  if (start >= n)
    return 0;
  size_t d = (size_t)job->head_dim, block = (size_t)(start / INFC__KV_BLOCK_TOKENS);
  c->count = n - start < INFC__KV_BLOCK_TOKENS ? n - start : INFC__KV_BLOCK_TOKENS;
  if (!job->step) {
    size_t blocks = (size_t)((job->total_rows + INFC__KV_BLOCK_TOKENS - 1) / INFC__KV_BLOCK_TOKENS);
    c->keys = job->plain_keys + ((size_t)h * blocks + block) * d * INFC__KV_BLOCK_TOKENS;
    c->values = job->v + ((size_t)h * job->total_rows + start) * d;
    return 1;
  }
  const struct infc__llm *llm = job->step->llm;
  const float *base = llm->pool + (size_t)job->step->tables[s][block] * llm->block_floats +
                      (size_t)job->layer * 2 * llm->kv_floats;
  c->keys = base + (size_t)h * INFC__KV_BLOCK_TOKENS * d;
  c->values = base + llm->kv_floats + (size_t)h * INFC__KV_BLOCK_TOKENS * d;
  return 1;
}

/* e^x for x <= 0 (a score minus the running maximum) in plain arithmetic, so that a loop
 * of them vectorizes: x = n ln2 + r with |r| <= ln2 / 2, e^r by its degree-6 Taylor
 * polynomial (relative error under 2e-7 there), times 2^n through the exponent bits;
 * 2^-126 times as much below -87. A NaN stays NaN (a model's NaN reaches its logits, as
 * onnxruntime's does). */
static inline float exp_nonpositive(float x) {
  x = x < -87.0f ? -87.0f : x;
  float n = __builtin_roundevenf(x * 1.44269504f);
  n = n == n ? n : 0.0f;                               /* (NaN: any n; r and e carry the NaN) */
  float r = x - n * 0.693145752f - n * 1.42860677e-6f; /* ln2 in two parts */
  float e =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 +
                                          r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720))))));
  int32_t bits = ((int32_t)n + 127) << 23;
  float scale;
  memcpy(&scale, &bits, sizeof scale);
  return e * scale;
}

/* Key `row` into slot `slot` of a KV head's transposed block keys. */
static void store_key(float *keys, size_t slot, const float *row, int32_t d) {
  for (int32_t i = 0; i < d; ++i)
    keys[(size_t)i * INFC__KV_BLOCK_TOKENS + slot] = row[i];
}

/* The scaled scores of `ng` (1 to 3, a constant where it is inlined) query heads against a
 * block's 16 transposed keys: each key row loaded once for all of them, two independent
 * sums over the head dims per head (the multiply-adds' latency hidden). */
static inline __attribute__((always_inline)) void
block_scores(const float *const *qs, int32_t ng, const float *keys, int32_t d, float scale,
             float (*scores)[INFC__KV_BLOCK_TOKENS]) {
#if defined(__clang__)
#pragma clang fp reassociate(on)
#endif
  enum { B = INFC__KV_BLOCK_TOKENS };
  float s[3][2][B];
  for (int32_t g = 0; g < ng; ++g)
    for (int32_t j = 0; j < B; ++j)
      s[g][0][j] = s[g][1][j] = 0;
  int32_t i = 0;
  for (; i + 2 <= d; i += 2)
    for (int32_t g = 0; g < ng; ++g)
      for (int32_t j = 0; j < B; ++j) {
        s[g][0][j] += qs[g][i] * keys[(size_t)i * B + j];
        s[g][1][j] += qs[g][i + 1] * keys[(size_t)(i + 1) * B + j];
      }
  for (; i < d; ++i)
    for (int32_t g = 0; g < ng; ++g)
      for (int32_t j = 0; j < B; ++j)
        s[g][0][j] += qs[g][i] * keys[(size_t)i * B + j];
  for (int32_t g = 0; g < ng; ++g)
    for (int32_t j = 0; j < B; ++j)
      scores[g][j] = (s[g][0][j] + s[g][1][j]) * scale;
}

/* One item: row r (of the step) of sequence s, the `group` query heads of KV head h, over
 * the sequence's first n positions; an online softmax (FlashAttention's running maximum
 * and sum, the accumulator rescaled when the maximum grows), block by block. */
static inline __attribute__((always_inline)) void
attend(const attention_job *job, int32_t s, int32_t h, int64_t r, int64_t n, int32_t d) {
#if defined(__clang__)
#pragma clang fp reassociate(on)
#endif
  enum { G = 16, B = INFC__KV_BLOCK_TOKENS }; /* query heads per KV head at most */
  int32_t group = job->group;
  float acc[G][INFC__KV_MAX_HEAD_DIM];
  float m[G], l[G][B];
  const float *qs[G];
  for (int32_t g = 0; g < group; ++g) {
    int64_t head = (int64_t)h * group + g;
    qs[g] = job->q + ((size_t)head * job->total_rows + r) * d;
    m[g] = -INFINITY;
    for (int32_t j = 0; j < B; ++j)
      l[g][j] = 0;
    for (int32_t i = 0; i < d; ++i)
      acc[g][i] = 0;
  }
  kv_chunk c;
  float scores[G][B];
  for (int64_t start = 0; next_chunk(job, s, h, n, start, &c); start += B) {
    /* Every lane of the block (those past count are not used), up to three query heads at
     * a time (each key row loaded once for them), two independent sums each. */
    for (int32_t g = 0; g < group; g += 3) {
      int32_t left = group - g;
      if (left >= 3)
        block_scores(qs + g, 3, c.keys, d, job->scale, scores + g);
      else if (left == 2)
        block_scores(qs + g, 2, c.keys, d, job->scale, scores + g);
      else
        block_scores(qs + g, 1, c.keys, d, job->scale, scores + g);
    }
    /* The softmax's block on whole vectors: the maximum over the lanes below count, the
     * sum kept per lane (added up once at the end). */
    for (int32_t g = 0; g < group; ++g) {
      float *sc = scores[g];
      float v[B];
      for (int32_t j = 0; j < B; ++j)
        v[j] = j < c.count ? sc[j] : -INFINITY;
      for (int32_t half = B / 2; half > 0; half /= 2) /* a tree of vector maxima */
        for (int32_t j = 0; j < half; ++j)
          v[j] = v[j + half] > v[j] ? v[j + half] : v[j];
      float top = v[0] > m[g] ? v[0] : m[g];
      if (top > m[g]) {
        float rescale = expf(m[g] - top); /* 0 the first time (m = -inf) */
        for (int32_t j = 0; j < B; ++j)
          l[g][j] *= rescale;
        for (int32_t i = 0; i < d; ++i)
          acc[g][i] *= rescale;
        m[g] = top;
      }
      /* The block's weights at once (a vectorizable exp; lanes past count weigh 0). */
      float p[B];
      for (int32_t j = 0; j < B; ++j)
        p[j] = j < c.count ? exp_nonpositive(sc[j] - m[g]) : 0.0f;
      for (int32_t j = 0; j < B; ++j)
        l[g][j] += p[j];
      /* Two sums over the block's rows (independent chains of multiply-adds). */
      float even[INFC__KV_MAX_HEAD_DIM], odd[INFC__KV_MAX_HEAD_DIM];
      for (int32_t i = 0; i < d; ++i)
        even[i] = odd[i] = 0;
      int64_t j = 0;
      for (; j + 2 <= c.count; j += 2) {
        const float *value = c.values + (size_t)j * d;
        for (int32_t i = 0; i < d; ++i) {
          even[i] += p[j] * value[i];
          odd[i] += p[j + 1] * value[d + i];
        }
      }
      if (j < c.count)
        for (int32_t i = 0; i < d; ++i)
          even[i] += p[j] * c.values[(size_t)j * d + i];
      for (int32_t i = 0; i < d; ++i)
        acc[g][i] += even[i] + odd[i];
    }
  }
  for (int32_t g = 0; g < group; ++g) {
    int64_t head = (int64_t)h * group + g;
    float *o = job->out + ((size_t)head * job->total_rows + r) * d;
    float sum = 0;
    for (int32_t j = 0; j < B; ++j)
      sum += l[g][j];
    float inv = 1.0f / sum;
    for (int32_t i = 0; i < d; ++i)
      o[i] = acc[g][i] * inv;
  }
}

/* Items are (row, kv head) pairs, row-major over the step's rows; thread t takes items
 * t, t + team, ... (rows late in a prompt attend longer, so interleaving evens the work). */
static inline __attribute__((always_inline)) void run_items(const attention_job *job, int32_t tid,
                                                            int32_t team) {
  for (int64_t item = tid; item < job->items; item += team) {
    int64_t r = item / job->kv_heads;
    int32_t h = (int32_t)(item % job->kv_heads), s = 0;
    int64_t n = r + 1;
    if (job->step) {
      while (s + 1 < job->step->num_seqs && r >= job->step->row0[s + 1])
        ++s;
      n = job->step->past[s] + (r - job->step->row0[s]) + 1;
    }
    /* The common head sizes as constants: their loops unrolled, the accumulators in
     * registers. */
    if (job->head_dim == 64)
      attend(job, s, h, r, n, 64);
    else if (job->head_dim == 128)
      attend(job, s, h, r, n, 128);
    else
      attend(job, s, h, r, n, job->head_dim);
  }
}

static void run_items_generic(const attention_job *job, int32_t tid, int32_t team) {
  run_items(job, tid, team);
}
#ifdef INFC__KV_X86
__attribute__((target("avx2,fma"))) static void run_items_avx2(const attention_job *job,
                                                               int32_t tid, int32_t team) {
  run_items(job, tid, team);
}
__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma"))) static void
run_items_avx512(const attention_job *job, int32_t tid, int32_t team) {
  run_items(job, tid, team);
}

/* 2: AVX-512 (F, VL, BW, DQ) with the OS saving zmm state; 1: AVX2 and FMA; 0: neither. */
static int x86_level(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_FMA))
    return 0;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  if ((lo & 6) != 6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2))
    return 0;
  int avx512 = (b & bit_AVX512F) && (b & bit_AVX512VL) && (b & bit_AVX512BW) &&
               (b & bit_AVX512DQ) && (lo & 0xe0) == 0xe0;
  return avx512 ? 2 : 1;
}
#endif

typedef void (*items_fn)(const attention_job *, int32_t, int32_t);

static items_fn pick_items_fn(void) {
  static _Atomic(items_fn) chosen;
  items_fn fn = atomic_load_explicit(&chosen, memory_order_relaxed);
  if (fn)
    return fn;
  fn = run_items_generic;
#ifdef INFC__KV_X86
  int level = x86_level();
  fn = level == 2 ? run_items_avx512 : level == 1 ? run_items_avx2 : run_items_generic;
#endif
  atomic_store_explicit(&chosen, fn, memory_order_relaxed);
  return fn;
}

static void attention_region(void *ctx, int32_t tid, int32_t team) {
  const attention_job *job = ctx;
  pick_items_fn()(job, tid, team);
}

/* Called by the generated code (infc.paged_attention, lib/Conversion/InfcToLinalg/
 * Attention.cpp): q [heads][rows][head_dim], k and v [kv_heads][rows][head_dim], out like q. */
__attribute__((visibility("hidden"))) void infc__paged_attention(int32_t layer, int64_t rows,
                                                                 int32_t heads, int32_t kv_heads,
                                                                 int32_t head_dim, float scale,
                                                                 const float *q, const float *k,
                                                                 const float *v, float *out);

void infc__paged_attention(int32_t layer, int64_t rows, int32_t heads, int32_t kv_heads,
                           int32_t head_dim, float scale, const float *q, const float *k,
                           const float *v, float *out) {
  const infc__llm_context *step = current_step;
  /* The compiler checked these (PagedAttentionOp::verify, infc_llm_open against the
   * descriptor); a library that disagrees with itself computes nothing. */
  if (rows <= 0 || kv_heads <= 0 || heads % kv_heads || heads / kv_heads > 16 ||
      head_dim > INFC__KV_MAX_HEAD_DIM)
    return;
  if (step) {
    const struct infc__llm *llm = step->llm;
    if (layer < 0 || layer >= llm->layers || kv_heads != llm->kv_heads || head_dim != llm->head_dim)
      return;
    /* The step's keys and values into their sequences' slots first: a row attends to the
     * rows before it in the same step too. */
    size_t d = (size_t)head_dim;
    for (int32_t s = 0; s < step->num_seqs; ++s)
      for (int32_t i = 0; i < step->rows[s]; ++i) {
        int64_t pos = step->past[s] + i, r = step->row0[s] + i;
        float *base = llm->pool +
                      (size_t)step->tables[s][pos / INFC__KV_BLOCK_TOKENS] * llm->block_floats +
                      (size_t)layer * 2 * llm->kv_floats;
        size_t slot = (size_t)(pos % INFC__KV_BLOCK_TOKENS);
        for (int32_t h = 0; h < kv_heads; ++h) {
          store_key(base + (size_t)h * INFC__KV_BLOCK_TOKENS * d, slot,
                    k + ((size_t)h * rows + r) * d, head_dim);
          memcpy(base + llm->kv_floats + ((size_t)h * INFC__KV_BLOCK_TOKENS + slot) * d,
                 v + ((size_t)h * rows + r) * d, d * sizeof(float));
        }
      }
  }
  /* Without a step, the rows' own keys in the blocks' layout, for this call. */
  float *plain_keys = NULL;
  if (!step) {
    size_t blocks = (size_t)((rows + INFC__KV_BLOCK_TOKENS - 1) / INFC__KV_BLOCK_TOKENS),
           d = (size_t)head_dim;
    plain_keys = calloc((size_t)kv_heads * blocks * d * INFC__KV_BLOCK_TOKENS, sizeof(float));
    if (!plain_keys) { /* memory exhausted: a visible NaN rather than stale output */
      for (size_t i = 0; i < (size_t)heads * (size_t)rows * d; ++i)
        out[i] = NAN;
      return;
    }
    for (int32_t h = 0; h < kv_heads; ++h)
      for (int64_t r = 0; r < rows; ++r)
        store_key(plain_keys + ((size_t)h * blocks + (size_t)r / INFC__KV_BLOCK_TOKENS) * d *
                                   INFC__KV_BLOCK_TOKENS,
                  (size_t)r % INFC__KV_BLOCK_TOKENS, k + ((size_t)h * rows + r) * d, head_dim);
  }
  attention_job job = {
      step, layer, heads, kv_heads,   head_dim, heads / kv_heads, rows, rows * kv_heads, scale,
      q,    k,     v,     plain_keys, out};
  infc__pool_parallel(attention_region, &job);
  free(plain_keys);
}

/* infc.decoder_logits's call, on the entry's thread: the rows of in [rows, width] whose
 * logits the step uses, packed at the front of out in row order; their count. Without a
 * step (a plain infc_run), every row. */
int64_t infc__llm_logit_rows(int64_t rows, int64_t width, const float *in, float *out) {
  infc__llm_context *step = current_step;
  size_t row_bytes = sizeof(float) * (size_t)width;
  if (!step || step->every_row) {
    memcpy(out, in, row_bytes * (size_t)rows);
    if (step)
      step->packed = 1;
    return rows;
  }
  step->packed = 1;
  for (int32_t i = 0; i < step->num_logit_rows; ++i)
    memcpy(out + (size_t)i * (size_t)width, in + (size_t)step->logit_rows[i] * (size_t)width,
           row_bytes);
  return step->num_logit_rows;
}

/* ---- Sessions' decoder state ---------------------------------------------------------- */

void infc__llm_destroy(infc__llm *llm) {
  if (!llm)
    return;
  for (int32_t i = 0; i < llm->num_seqs; ++i)
    free(llm->seqs[i].blocks);
  free(llm->seqs);
  free(llm->pool);
  free(llm->free_blocks);
  free(llm->ids);
  free(llm->positions);
  free(llm->row0);
  free(llm->rows);
  free(llm->past);
  free(llm->tables);
  free(llm->step_seq);
  free(llm->saved);
  free(llm->logit_rows);
  free(llm);
}

static infc_status llm_of(infc_session *session, infc__llm **out) {
  *out = NULL; /* gcc cannot tell that the callers read it only after INFC_OK */
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  if (!session->llm)
    return infc__fail(session, INFC_ERR_INVALID_ARGUMENT,
                      "the session has no KV cache: call infc_llm_open first");
  *out = session->llm;
  return INFC_OK;
}

infc_status infc_llm_open(infc_session *session, int32_t max_blocks) {
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  infc_session *s = session;
  const infc_model_desc *d = s->desc;
  const infc_decoder_desc *dd = d->decoder;
  if (!dd)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_open: the model is not a decoder (compile it with infc compile "
                      "--decoder)");
  if (s->llm)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_llm_open: the cache is already open");
  if (max_blocks <= 0)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_open: max_blocks must be positive, got %d", (int)max_blocks);
  if (s->cuda || !(d->flags & INFC_DESC_DIMS_ARG) || d->num_dims != 1)
    return infc__fail(s, INFC_ERR_INTERNAL,
                      "infc_llm_open: a decoder library is CPU generic code "
                      "over the step's tokens");
  long ids = infc__find_io(d->inputs, d->num_inputs, "input_ids");
  long positions = infc__find_io(d->inputs, d->num_inputs, "position_ids");
  long logits = infc__find_io(d->outputs, d->num_outputs, "logits");
  if (ids < 0 || positions < 0 || logits < 0 || d->num_inputs != 2 || d->num_outputs != 1 ||
      d->inputs[ids].dtype != INFC_I64 || d->inputs[positions].dtype != INFC_I64 ||
      d->outputs[logits].dtype != INFC_F32 || d->outputs[logits].rank != 3 ||
      d->outputs[logits].shape[2] <= 0)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_open: a decoder library takes input_ids and position_ids (int64 "
                      "[1, tokens]) alone and gives logits (float32 [1, tokens, vocab])");
  infc__llm *llm = calloc(1, sizeof *llm);
  if (!llm)
    return infc__fail(s, INFC_ERR_OUT_OF_MEMORY, "infc_llm_open: out of memory");
  llm->dd = dd;
  llm->layers = dd->layers;
  llm->heads = dd->heads;
  llm->kv_heads = dd->kv_heads;
  llm->head_dim = dd->head_dim;
  llm->kv_floats = (size_t)dd->kv_heads * INFC__KV_BLOCK_TOKENS * dd->head_dim;
  llm->block_floats = llm->kv_floats * 2 * (size_t)dd->layers;
  llm->ids_input = (int32_t)ids;
  llm->positions_input = (int32_t)positions;
  llm->logits_output = (int32_t)logits;
  llm->vocab = d->outputs[logits].shape[2];
  llm->max_rows = d->dims[0].max;
  llm->max_blocks = max_blocks;
  size_t floats = llm->block_floats * (size_t)max_blocks;
  if (dd->layers <= 0 || dd->kv_heads <= 0 || dd->head_dim <= 0 ||
      dd->head_dim > INFC__KV_MAX_HEAD_DIM || dd->heads % dd->kv_heads ||
      dd->heads / dd->kv_heads > 16 || d->dims[0].min != 1 || llm->max_rows <= 0 ||
      llm->max_rows > INFC__KV_MAX_STEP_TOKENS) {
    infc__llm_destroy(llm);
    return infc__fail(s, INFC_ERR_INTERNAL, "infc_llm_open: the decoder descriptor is corrupt");
  }
  if (floats / (size_t)max_blocks != llm->block_floats || floats > SIZE_MAX / sizeof(float) ||
      !(llm->pool = malloc(floats * sizeof(float))) ||
      !(llm->free_blocks = malloc(sizeof(int32_t) * (size_t)max_blocks)) ||
      !(llm->ids = malloc(sizeof(int64_t) * (size_t)llm->max_rows)) ||
      !(llm->positions = malloc(sizeof(int64_t) * (size_t)llm->max_rows))) {
    infc__llm_destroy(llm);
    return infc__fail(s, INFC_ERR_OUT_OF_MEMORY,
                      "infc_llm_open: cannot reserve %d blocks of %zu bytes for the KV cache",
                      (int)max_blocks, llm->block_floats * sizeof(float));
  }
  /* Handed out lowest first. */
  for (int32_t b = 0; b < max_blocks; ++b)
    llm->free_blocks[b] = max_blocks - 1 - b;
  llm->num_free = max_blocks;
  s->llm = llm;
  s->error[0] = '\0';
  return INFC_OK;
}

infc_status infc_llm_sequence_add(infc_session *session, int32_t *id) {
  infc__llm *llm;
  infc_status st = llm_of(session, &llm);
  if (st != INFC_OK)
    return st;
  if (!id)
    return infc__fail(session, INFC_ERR_INVALID_ARGUMENT, "infc_llm_sequence_add: id is NULL");
  int32_t i = 0;
  while (i < llm->num_seqs && llm->seqs[i].active)
    ++i;
  if (i == llm->num_seqs) {
    if (llm->num_seqs == llm->cap_seqs) {
      int32_t cap = llm->cap_seqs ? llm->cap_seqs * 2 : 8;
      infc__llm_seq *grown = realloc(llm->seqs, sizeof *grown * (size_t)cap);
      if (!grown)
        return infc__fail(session, INFC_ERR_OUT_OF_MEMORY, "infc_llm_sequence_add: out of memory");
      llm->seqs = grown;
      llm->cap_seqs = cap;
    }
    memset(&llm->seqs[i], 0, sizeof llm->seqs[i]);
    ++llm->num_seqs;
  }
  llm->seqs[i].active = 1;
  llm->seqs[i].length = 0;
  llm->seqs[i].num_blocks = 0;
  *id = i;
  session->error[0] = '\0';
  return INFC_OK;
}

static infc__llm_seq *sequence(infc__llm *llm, int32_t id) {
  return id >= 0 && id < llm->num_seqs && llm->seqs[id].active ? &llm->seqs[id] : NULL;
}

/* The session's cache and its sequence id, or an error naming `fn` (the session's
 * message set). */
static infc_status find_sequence(infc_session *session, int32_t id, const char *fn, infc__llm **llm,
                                 infc__llm_seq **q) {
  infc_status st = llm_of(session, llm);
  if (st != INFC_OK)
    return st;
  if (!(*q = sequence(*llm, id)))
    return infc__fail(session, INFC_ERR_INVALID_ARGUMENT, "%s: no sequence %d", fn, (int)id);
  return INFC_OK;
}

infc_status infc_llm_sequence_remove(infc_session *session, int32_t id) {
  infc__llm *llm;
  infc__llm_seq *q;
  infc_status st = find_sequence(session, id, "infc_llm_sequence_remove", &llm, &q);
  if (st != INFC_OK)
    return st;
  for (int32_t b = q->num_blocks - 1; b >= 0; --b)
    llm->free_blocks[llm->num_free++] = q->blocks[b];
  q->num_blocks = 0;
  q->length = 0;
  q->active = 0;
  session->error[0] = '\0';
  return INFC_OK;
}

infc_status infc_llm_sequence_length(infc_session *session, int32_t id, int64_t *length) {
  infc__llm *llm;
  infc_status st = llm_of(session, &llm);
  if (st != INFC_OK)
    return st;
  infc__llm_seq *q = sequence(llm, id);
  if (!q || !length)
    return infc__fail(session, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_sequence_length: no sequence %d (or length is NULL)", (int)id);
  *length = q->length;
  session->error[0] = '\0';
  return INFC_OK;
}

void infc__llm_truncate(infc__llm *llm, int32_t id, int64_t length) {
  infc__llm_seq *q = sequence(llm, id);
  if (!q || length < 0 || length > q->length)
    return;
  int64_t keep = (length + INFC__KV_BLOCK_TOKENS - 1) / INFC__KV_BLOCK_TOKENS;
  while (q->num_blocks > keep)
    llm->free_blocks[llm->num_free++] = q->blocks[--q->num_blocks];
  q->length = length;
}

int64_t infc__llm_length(infc__llm *llm, int32_t id) {
  const infc__llm_seq *q = sequence(llm, id);
  return q ? q->length : 0;
}

infc_status infc_llm_sequence_truncate(infc_session *session, int32_t id, int64_t length) {
  infc__llm *llm;
  infc__llm_seq *q;
  infc_status st = find_sequence(session, id, "infc_llm_sequence_truncate", &llm, &q);
  if (st != INFC_OK)
    return st;
  if (length < 0 || length > q->length)
    return infc__fail(session, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_sequence_truncate: sequence %d holds %lld positions; cannot keep "
                      "%lld",
                      (int)id, (long long)q->length, (long long)length);
  infc__llm_truncate(llm, id, length);
  session->error[0] = '\0';
  return INFC_OK;
}

int64_t infc__llm_room(infc__llm *llm, int32_t id) {
  const infc__llm_seq *q = sequence(llm, id);
  if (!q)
    return 0;
  int64_t room = ((int64_t)q->num_blocks + llm->num_free) * INFC__KV_BLOCK_TOKENS - q->length;
  if (llm->dd->max_positions > 0 && llm->dd->max_positions - q->length < room)
    room = llm->dd->max_positions - q->length;
  return room > 0 ? room : 0;
}

void infc__llm_count_drafts(infc__llm *llm, int64_t drafted, int64_t accepted) {
  llm->drafted += drafted;
  llm->accepted += accepted;
}

infc_status infc_llm_info(infc_session *session, infc_llm_info_t *out) {
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  if (!out || !session->desc->decoder)
    return infc__fail(session, INFC_ERR_INVALID_ARGUMENT,
                      out ? "infc_llm_info: the model is not a decoder (compile it with infc "
                            "compile --decoder)"
                          : "infc_llm_info: info is NULL");
  /* Only the bytes the caller's struct has (struct_size; 0: ABI 1.5's, up to max_positions,
   * which is what a host of 1.5 that passed 0 has). */
  infc_llm_info_t all = {0}, *info = &all;
  size_t first = offsetof(infc_llm_info_t, drafted);
  size_t bytes = out->struct_size ? out->struct_size : first;
  bytes = bytes < sizeof all ? bytes : sizeof all;
  const infc_decoder_desc *dd = session->desc->decoder;
  info->struct_size = (uint32_t)bytes;
  info->layers = dd->layers;
  info->heads = dd->heads;
  info->kv_heads = dd->kv_heads;
  info->head_dim = dd->head_dim;
  info->block_tokens = INFC__KV_BLOCK_TOKENS;
  info->max_step_tokens = session->desc->num_dims == 1 ? session->desc->dims[0].max : 0;
  long logits = infc__find_io(session->desc->outputs, session->desc->num_outputs, "logits");
  info->vocab = logits >= 0 && session->desc->outputs[logits].rank == 3
                    ? session->desc->outputs[logits].shape[2]
                    : 0;
  const infc__llm *llm = session->llm;
  info->max_blocks = llm ? llm->max_blocks : 0;
  info->free_blocks = llm ? llm->num_free : 0;
  info->kv_bytes_per_token = (int64_t)dd->layers * 2 * dd->kv_heads * dd->head_dim * 4;
  info->max_positions = dd->max_positions;
  info->drafted = llm ? llm->drafted : 0;
  info->accepted = llm ? llm->accepted : 0;
  memcpy(out, info, bytes);
  session->error[0] = '\0';
  return INFC_OK;
}

static int grow_step(infc__llm *llm, int32_t n) {
  if (n <= llm->cap_step)
    return 1;
  int32_t cap = n > 2 * llm->cap_step ? n : 2 * llm->cap_step;
  /* (A failure keeps the arrays grown so far: capacity beyond cap_step is harmless.) */
#define INFC__GROW(field)                                                                          \
  do {                                                                                             \
    void *grown_ = realloc((void *)llm->field, sizeof *llm->field * (size_t)cap);                  \
    if (!grown_)                                                                                   \
      return 0;                                                                                    \
    llm->field = grown_;                                                                           \
  } while (0)
  INFC__GROW(row0);
  INFC__GROW(rows);
  INFC__GROW(past);
  INFC__GROW(tables);
  INFC__GROW(step_seq);
  INFC__GROW(saved);
  INFC__GROW(logit_rows);
#undef INFC__GROW
  llm->cap_step = cap;
  return 1;
}

/* Blocks for `q` to hold `length` positions, from the free list; 0 when there are too few
 * (nothing taken). */
static int reserve_blocks(infc__llm *llm, infc__llm_seq *q, int64_t length) {
  int64_t need = (length + INFC__KV_BLOCK_TOKENS - 1) / INFC__KV_BLOCK_TOKENS - q->num_blocks;
  if (need <= 0)
    return 1;
  if (need > llm->num_free)
    return 0;
  if (q->num_blocks + need > q->cap_blocks) {
    int64_t cap = q->num_blocks + need > 2 * (int64_t)q->cap_blocks ? q->num_blocks + need
                                                                    : 2 * (int64_t)q->cap_blocks;
    int32_t *grown = realloc(q->blocks, sizeof(int32_t) * (size_t)cap);
    if (!grown)
      return 0;
    q->blocks = grown;
    q->cap_blocks = (int32_t)cap;
  }
  for (int64_t i = 0; i < need; ++i)
    q->blocks[q->num_blocks++] = llm->free_blocks[--llm->num_free];
  return 1;
}

int64_t infc__llm_vocab(const infc__llm *llm) { return llm->vocab; }

infc_status infc_llm_step(infc_session *session, size_t num_seqs, const int32_t *ids,
                          const int32_t *counts, const int64_t *tokens, float *logits) {
  return infc__llm_step(session, num_seqs, ids, counts, tokens, logits, 0);
}

infc_status infc_llm_step_all(infc_session *session, size_t num_seqs, const int32_t *ids,
                              const int32_t *counts, const int64_t *tokens, float *logits) {
  return infc__llm_step(session, num_seqs, ids, counts, tokens, logits, 1);
}

infc_status infc__llm_step(infc_session *session, size_t num_seqs, const int32_t *ids,
                           const int32_t *counts, const int64_t *tokens, float *logits,
                           int every_row) {
  infc__llm *llm;
  infc_status st = llm_of(session, &llm);
  if (st != INFC_OK)
    return st;
  infc_session *s = session;
  if (!num_seqs || !ids || !counts || !tokens)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_step: needs at least one sequence, with ids, counts and tokens");
  if (num_seqs > INT32_MAX || !grow_step(llm, (int32_t)num_seqs))
    return infc__fail(s, INFC_ERR_OUT_OF_MEMORY, "infc_llm_step: out of memory");
  /* Everything checked before anything changes. */
  int64_t total = 0;
  for (size_t i = 0; i < num_seqs; ++i) {
    infc__llm_seq *q = sequence(llm, ids[i]);
    if (!q)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_llm_step: no sequence %d", (int)ids[i]);
    for (size_t j = 0; j < i; ++j)
      if (ids[j] == ids[i])
        return infc__fail(s, INFC_ERR_INVALID_ARGUMENT, "infc_llm_step: sequence %d is given twice",
                          (int)ids[i]);
    if (counts[i] <= 0)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_llm_step: sequence %d: count %d (at least one token)", (int)ids[i],
                        (int)counts[i]);
    /* Past the position tables the model's gathers would clamp: a wrong answer. */
    if (llm->dd->max_positions > 0 && q->length + counts[i] > llm->dd->max_positions)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_llm_step: sequence %d would reach position %lld, past the %lld "
                        "positions of the model's position tables",
                        (int)ids[i], (long long)(q->length + counts[i] - 1),
                        (long long)llm->dd->max_positions);
    total += counts[i];
  }
  for (int64_t t = 0; t < total; ++t)
    if (tokens[t] < 0 || tokens[t] >= llm->vocab)
      return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                        "infc_llm_step: token %lld (entry %lld) is not in the vocabulary [0, %lld)",
                        (long long)tokens[t], (long long)t, (long long)llm->vocab);
  /* The blocks of every sequence, or none (a step that cannot fit changes nothing). */
  int64_t needed = 0;
  for (size_t i = 0; i < num_seqs; ++i) {
    infc__llm_seq *q = sequence(llm, ids[i]);
    int64_t have = q->num_blocks,
            want = (q->length + counts[i] + INFC__KV_BLOCK_TOKENS - 1) / INFC__KV_BLOCK_TOKENS;
    needed += want > have ? want - have : 0;
    if (needed > llm->num_free)
      return infc__fail(s, INFC_ERR_OUT_OF_MEMORY,
                        "infc_llm_step: sequence %d needs KV blocks and %d of %d are free (remove "
                        "finished sequences, or open the cache with more blocks)",
                        (int)ids[i], (int)llm->num_free, (int)llm->max_blocks);
  }
  for (size_t i = 0; i < num_seqs; ++i) /* restored if a call of the model fails */
    llm->saved[i] = sequence(llm, ids[i])->length;
  for (size_t i = 0; i < num_seqs; ++i) {
    infc__llm_seq *q = sequence(llm, ids[i]);
    if (!reserve_blocks(llm, q, q->length + counts[i]))
      return infc__fail(s, INFC_ERR_OUT_OF_MEMORY, "infc_llm_step: out of memory");
  }

  /* Chunks of at most max_rows rows: (sequence i, its tokens from `done`). */
  size_t seq = 0;
  int64_t done = 0, consumed = 0;
  infc_status result = INFC_OK;
  while (seq < num_seqs) {
    int32_t n = 0;
    int64_t t = 0, chunk_start = consumed;
    while (seq < num_seqs && t < llm->max_rows) {
      infc__llm_seq *q = sequence(llm, ids[seq]);
      int64_t left = counts[seq] - done, take = left < llm->max_rows - t ? left : llm->max_rows - t;
      llm->row0[n] = (int32_t)t;
      llm->rows[n] = (int32_t)take;
      llm->past[n] = q->length;
      llm->tables[n] = q->blocks;
      llm->step_seq[n] = (int32_t)seq;
      for (int64_t r = 0; r < take; ++r) {
        llm->ids[t + r] = tokens[consumed + r];
        llm->positions[t + r] = q->length + r;
      }
      t += take;
      consumed += take;
      ++n;
      if (take == left) {
        ++seq;
        done = 0;
      } else {
        done += take;
      }
    }
    /* The rows whose logits are returned: every row, or each sequence's last in the step
     * (an entry's, unless its sequence goes on in the next chunk), or none without logits. */
    int32_t num_logit_rows = 0;
    for (int32_t e = 0; logits && !every_row && e < n; ++e)
      if (e + 1 < n || seq > (size_t)llm->step_seq[e])
        llm->logit_rows[num_logit_rows++] = llm->row0[e] + llm->rows[e] - 1;
    int64_t shape[2] = {1, t};
    infc_tensor inputs[2] = {{0}, {0}};
    inputs[llm->ids_input] = (infc_tensor){llm->ids, INFC_I64, 2, shape, 0, 0, 0};
    inputs[llm->positions_input] = (infc_tensor){llm->positions, INFC_I64, 2, shape, 0, 0, 0};
    infc_tensor outputs[1] = {{0}};
    infc__llm_context step = {llm,
                              n,
                              llm->row0,
                              llm->rows,
                              llm->past,
                              llm->tables,
                              logits && every_row,
                              num_logit_rows,
                              llm->logit_rows,
                              0};
    current_step = &step;
    result = infc__run(s, inputs, 2, outputs, 1);
    current_step = NULL;
    if (result != INFC_OK) {
      /* (What earlier calls stored past the old lengths is never read; the blocks stay.) */
      for (size_t i = 0; i < num_seqs; ++i)
        sequence(llm, ids[i])->length = llm->saved[i];
      break;
    }
    const float *rows = outputs[llm->logits_output].data;
    /* The chunk's rows are tokens chunk_start .. chunk_start + t - 1 (packed or not: all). */
    if (logits && every_row)
      memcpy(logits + (size_t)chunk_start * (size_t)llm->vocab, rows,
             sizeof(float) * (size_t)t * (size_t)llm->vocab);
    int32_t j = 0; /* the next of logit_rows */
    for (int32_t e = 0; e < n; ++e) {
      infc__llm_seq *q = sequence(llm, ids[llm->step_seq[e]]);
      q->length += llm->rows[e];
      /* A sequence's last token in this chunk: its logits out (the j-th row when the model
       * packed the rows it computed). */
      int32_t row = llm->row0[e] + llm->rows[e] - 1;
      if (logits && !every_row && j < num_logit_rows && llm->logit_rows[j] == row) {
        memcpy(logits + (size_t)llm->step_seq[e] * (size_t)llm->vocab,
               rows + (size_t)(step.packed ? j : row) * (size_t)llm->vocab,
               sizeof(float) * (size_t)llm->vocab);
        ++j;
      }
    }
  }
  if (result == INFC_OK)
    s->error[0] = '\0';
  return result;
}
