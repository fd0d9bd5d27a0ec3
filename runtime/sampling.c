/* infc runtime — choosing the next token of a decoder LLM (infc_llm_sample) and the
 * generation loop of one sequence (infc_llm_generate): greedy, or a draw at a temperature
 * from the top_k most likely tokens and the smallest set of them whose probability reaches
 * top_p, with a seeded PCG32 generator so that a seed gives the same tokens every time. */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PCG32 (O'Neill's pcg32_random_r, XSH RR), its state one uint64_t: the increment is fixed
 * (any odd constant gives a full-period stream). */
#define INFC__PCG_MULTIPLIER 6364136223846793005ull
#define INFC__PCG_INCREMENT 1442695040888963407ull

static uint32_t pcg32(uint64_t *state) {
  uint64_t old = *state;
  *state = old * INFC__PCG_MULTIPLIER + INFC__PCG_INCREMENT;
  uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
  uint32_t rot = (uint32_t)(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

uint64_t infc_llm_seed(uint64_t seed) {
  uint64_t state = 0;
  pcg32(&state);
  state += seed;
  pcg32(&state);
  return state;
}

typedef struct candidate {
  float logit;
  int64_t token;
} candidate;

/* Most likely first; equal logits by token id (a deterministic order). */
static int by_logit(const void *a, const void *b) {
  const candidate *x = a, *y = b;
  if (x->logit != y->logit)
    return x->logit > y->logit ? -1 : 1;
  return x->token < y->token ? -1 : x->token > y->token;
}

static int64_t argmax(const float *logits, int64_t vocab) {
  int64_t best = 0;
  for (int64_t i = 1; i < vocab; ++i)
    if (logits[i] > logits[best])
      best = i;
  return best;
}

infc_status infc__llm_sample(const float *logits, int64_t vocab, const infc_llm_sampling *params,
                             uint64_t *state, int64_t *token, char *error, size_t size) {
  if (!logits || vocab <= 0 || !token || (params && !state)) {
    snprintf(error, size,
             "infc_llm_sample: logits, a vocab of at least 1, token (and state "
             "with params) are needed");
    return INFC_ERR_INVALID_ARGUMENT;
  }
  float temperature = params ? params->temperature : 0;
  int32_t top_k = params ? params->top_k : 0;
  float top_p = params && params->top_p != 0 ? params->top_p : 1; /* 0: no cut */
  if (!(temperature >= 0 && isfinite(temperature)) || top_k < 0 || !(top_p > 0 && top_p <= 1)) {
    snprintf(error, size,
             "infc_llm_sample: temperature %g (>= 0), top_k %d (>= 0) or top_p %g "
             "(in [0, 1]) out of range",
             (double)temperature, (int)top_k, (double)top_p);
    return INFC_ERR_INVALID_ARGUMENT;
  }
  /* -inf is a token never to choose; NaN and +inf say nothing about the others. */
  int finite = 0;
  for (int64_t i = 0; i < vocab; ++i) {
    if (isnan(logits[i]) || logits[i] == INFINITY) {
      snprintf(error, size, "infc_llm_sample: logit %lld is %s", (long long)i,
               isnan(logits[i]) ? "NaN" : "+inf");
      return INFC_ERR_INVALID_ARGUMENT;
    }
    finite |= isfinite(logits[i]);
  }
  if (!finite) {
    snprintf(error, size, "infc_llm_sample: every logit is -inf");
    return INFC_ERR_INVALID_ARGUMENT;
  }
  if (temperature == 0 || top_k == 1) {
    *token = argmax(logits, vocab);
    return INFC_OK;
  }
  float top = logits[argmax(logits, vocab)];
  uint64_t high = pcg32(state); /* one draw of 53 bits (two statements: a fixed order) */
  uint64_t bits = (high << 21) ^ (pcg32(state) >> 11);
  double unit = (double)(bits & ((1ull << 53) - 1)) / 9007199254740992.0;
  /* Every token's weight exp((logit - top) / T), once, unless a top_k cut keeps a few. */
  int top_k_cut = top_k > 0 && top_k < vocab, no_cut = !top_k_cut && top_p >= 1;
  int64_t cap = top_k_cut ? top_k : vocab, kept = 0;
  double *w = top_k_cut ? NULL : malloc(sizeof(double) * (size_t)vocab), all = 0;
  candidate *c = no_cut ? NULL : malloc(sizeof(candidate) * (size_t)cap);
  double *p = no_cut ? NULL : malloc(sizeof(double) * (size_t)cap);
  if ((!top_k_cut && !w) || (!no_cut && (!c || !p))) {
    free(w);
    free(c);
    free(p);
    snprintf(error, size, "infc_llm_sample: out of memory");
    return INFC_ERR_OUT_OF_MEMORY;
  }
  for (int64_t i = 0; w && i < vocab; ++i)
    all += w[i] = exp(((double)logits[i] - top) / temperature);
  if (no_cut) {
    /* No cut: the whole distribution, in token order (nothing to sort). */
    double u = unit * all, sum = 0;
    int64_t chosen = argmax(logits, vocab); /* (rounding: u at the very end) */
    for (int64_t i = 0; i < vocab; ++i)
      if ((sum += w[i]) > u) {
        chosen = i;
        break;
      }
    free(w);
    *token = chosen;
    return INFC_OK;
  }
  /* The candidates, most likely first: the top_k (kept sorted as they are found), or, for a
   * top_p cut alone, the tokens above a floor that holds top_p of the mass. */
  if (top_k_cut) {
    for (int64_t i = 0; i < vocab; ++i) {
      candidate x = {logits[i], i};
      if (kept == cap && by_logit(&x, &c[kept - 1]) >= 0)
        continue;
      int64_t at = kept < cap ? kept++ : kept - 1;
      while (at > 0 && by_logit(&x, &c[at - 1]) < 0) {
        c[at] = c[at - 1];
        --at;
      }
      c[at] = x;
    }
  } else {
    /* The tokens above a floor are the most likely ones, so the top_p prefix lies among
     * them once their mass reaches top_p of the whole: exact, with a small sort. */
    static const double windows[] = {8, 24, INFINITY};
    for (size_t k = 0; k < sizeof windows / sizeof *windows; ++k) {
      double floor = top - windows[k] * temperature, near = 0;
      kept = 0;
      for (int64_t i = 0; i < vocab; ++i)
        if (logits[i] >= floor) {
          c[kept++] = (candidate){logits[i], i};
          near += w[i];
        }
      if (near >= top_p * all || isinf(windows[k]))
        break;
    }
    qsort(c, (size_t)kept, sizeof *c, by_logit);
  }
  /* Probabilities at the temperature over the top_k (or over every token), then the top_p
   * prefix of them. */
  double total = 0;
  for (int64_t i = 0; i < kept; ++i)
    total += p[i] = w ? w[c[i].token] : exp(((double)c[i].logit - top) / temperature);
  if (!top_k_cut)
    total = all;
  if (top_p < 1) {
    double reached = 0;
    int64_t n = 0;
    while (n < kept && reached < top_p * total)
      reached += p[n++];
    kept = n > 0 ? n : 1;
    total = reached > 0 ? reached : p[0];
  }
  double u = unit * total, sum = 0;
  int64_t chosen = c[kept - 1].token;
  for (int64_t i = 0; i < kept; ++i)
    if ((sum += p[i]) > u) {
      chosen = c[i].token;
      break;
    }
  free(w);
  free(p);
  free(c);
  *token = chosen;
  return INFC_OK;
}

infc_status infc_llm_sample(const float *logits, int64_t vocab, const infc_llm_sampling *params,
                            uint64_t *state, int64_t *token) {
  char unused[160];
  return infc__llm_sample(logits, vocab, params, state, token, unused, sizeof unused);
}

/* Prompt lookup: the longest n-gram (at most `ngram` tokens, at least INFC__DRAFT_MIN_NGRAM)
 * that ends h[0 .. len) and occurs earlier in it; its most recent earlier occurrence's next
 * tokens (at most limit) go to draft. Returns their count (0: no match). */
#define INFC__DRAFT_MIN_NGRAM 1
static int32_t lookup_draft(const int64_t *h, int64_t len, int32_t ngram, int32_t limit,
                            int64_t *draft) {
  for (int64_t n = ngram < len - 1 ? ngram : len - 1; n >= INFC__DRAFT_MIN_NGRAM; --n) {
    const int64_t *suffix = h + len - n;
    for (int64_t i = len - n - 1; i >= 0; --i) {
      if (memcmp(h + i, suffix, sizeof *h * (size_t)n))
        continue;
      int64_t next = len - (i + n), count = next < limit ? next : limit;
      memcpy(draft, h + i + n, sizeof *h * (size_t)count);
      return (int32_t)count;
    }
  }
  return 0;
}

infc_status infc_llm_generate(infc_session *session, int32_t id, const int64_t *prompt,
                              size_t prompt_len, const infc_llm_generate_options *options,
                              int64_t *out, size_t *num_out) {
  if (!infc__session_is_valid(session))
    return INFC_ERR_INVALID_ARGUMENT;
  infc_session *s = session;
  if (num_out)
    *num_out = 0;
  infc_llm_generate_options o = {0};
  if (options) {
    /* struct_size 0: ABI 1.5's layout (up to the seed), what a host of 1.5 that passed 0
     * has. */
    size_t n = options->struct_size ? options->struct_size
                                    : offsetof(infc_llm_generate_options, draft_tokens);
    n = n < sizeof o ? n : sizeof o;
    memcpy(&o, options, n);
  }
  if (!prompt || !prompt_len || !out || !num_out || o.max_new_tokens <= 0 ||
      o.num_stop_tokens < 0 || (o.num_stop_tokens && !o.stop_tokens) || prompt_len > INT32_MAX)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_generate: needs a prompt, out, num_out and options with "
                      "max_new_tokens >= 1 (and stop_tokens for num_stop_tokens)");
  if (o.draft_tokens < 0 || o.draft_tokens > 64 || o.draft_ngram < 0 || o.draft_ngram > 64)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "infc_llm_generate: draft_tokens %d and draft_ngram %d must be in [0, 64]",
                      (int)o.draft_tokens, (int)o.draft_ngram);
  if (!s->llm || !s->desc->decoder)
    return infc__fail(s, INFC_ERR_INVALID_ARGUMENT,
                      "the session has no KV cache: call infc_llm_open first");
  int64_t vocab = infc__llm_vocab(s->llm);
  int32_t drafts = o.draft_tokens, ngram = o.draft_ngram ? o.draft_ngram : 3;
  /* The sequence's tokens for the lookup (prompt, then out), and a step's tokens. */
  size_t history_len = prompt_len + (size_t)o.max_new_tokens;
  float *logits = malloc(sizeof(float) * (size_t)vocab * (size_t)(drafts + 1));
  int64_t *history = drafts ? malloc(sizeof(int64_t) * history_len) : NULL;
  int64_t *feed = malloc(sizeof(int64_t) * (size_t)(drafts + 1));
  if (!logits || !feed || (drafts && !history)) {
    free(logits);
    free(history);
    free(feed);
    return infc__fail(s, INFC_ERR_OUT_OF_MEMORY, "infc_llm_generate: out of memory");
  }
  if (history)
    memcpy(history, prompt, sizeof(int64_t) * prompt_len);
  int64_t known = (int64_t)prompt_len, drafted = 0, accepted = 0;
  uint64_t state = infc_llm_seed(o.seed);
  infc_status st = INFC_OK;
  int stop = 0;
  for (int first = 1; !stop && *num_out < (size_t)o.max_new_tokens; first = 0) {
    /* The step: the prompt, or the last token and the drafts that may follow it. */
    int32_t count = 1, d = 0;
    const int64_t *tokens = feed;
    int64_t before = 0;
    if (first) {
      count = (int32_t)prompt_len;
      tokens = prompt;
    } else {
      feed[0] = out[*num_out - 1];
      int64_t room = infc__llm_room(s->llm, id) - 1,
              wanted = (int64_t)o.max_new_tokens - (int64_t)*num_out - 1;
      int32_t limit = (int32_t)(drafts < wanted ? drafts : wanted);
      limit = room < limit ? (int32_t)(room > 0 ? room : 0) : limit;
      if (limit > 0)
        d = lookup_draft(history, known, ngram, limit, feed + 1);
      count = 1 + d;
      before = infc__llm_length(s->llm, id);
    }
    if ((st = infc__llm_step(s, 1, &id, &count, tokens, logits, d > 0)) != INFC_OK)
      break;
    /* Each row's token chosen as plain decoding would, kept while the next row's input was
     * that token. */
    int32_t j = 0;
    for (;; ++j) {
      char error[160];
      int64_t token;
      if ((st = infc__llm_sample(logits + (size_t)j * (size_t)vocab, vocab, &o.sampling, &state,
                                 &token, error, sizeof error)) != INFC_OK) {
        infc__fail(s, st, "infc_llm_generate: %s", error);
        break;
      }
      out[(*num_out)++] = token;
      if (history)
        history[known++] = token;
      for (int32_t k = 0; k < o.num_stop_tokens; ++k)
        stop |= o.stop_tokens[k] == token;
      int hit = j < d && feed[1 + j] == token;
      accepted += hit;
      if (stop || !hit || *num_out == (size_t)o.max_new_tokens)
        break;
    }
    drafted += d;
    /* Positions past the kept rows (drafts after the first miss) leave the cache: it holds
     * every token in out but the last. Row j made out's last token; when its sampling
     * failed, row j - 1 did, and row j's input (out's last) leaves too. */
    if (!first && (j < d || st != INFC_OK))
      infc__llm_truncate(s->llm, id, before + j + (st == INFC_OK));
    if (st != INFC_OK)
      break;
  }
  infc__llm_count_drafts(s->llm, drafted, accepted);
  free(logits);
  free(history);
  free(feed);
  if (st == INFC_OK)
    s->error[0] = '\0';
  return st;
}
