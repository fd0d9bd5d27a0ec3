//===- DecoderTest.cpp - the KV cache, steps and the attention kernel (kv.c) ---===//
//
// Static link against a decoder descriptor built here (2 layers, 4 query heads over 2 KV
// heads, head_dim 8, vocab 5, at most 8 tokens a call). Its entry computes each row's
// q, k and v from the row's token and position (a fixed hash), calls the runtime's
// infc__paged_attention once per layer, and folds the outputs into logits of the rows
// infc__llm_logit_rows packs (the others NaN, as the generated code leaves them unset). The
// reference recomputes every sequence from its whole history, attention written the plain way, so
// the blocks, the block tables, the chunked steps and the online softmax are all checked
// against it: sequences growing across blocks, several in one step, removal and reuse of
// blocks, a step beyond the free blocks, and the argument checks.
//
//===----------------------------------------------------------------------===//

#include "infc/runtime.h"

extern "C" {
#include "model_desc.h"
infc_status infc__model_create_from_desc(const infc_model_desc *desc, infc_model **out);
void infc__paged_attention(int32_t layer, int64_t rows, int32_t heads, int32_t kv_heads,
                           int32_t head_dim, float scale, const float *q, const float *k,
                           const float *v, float *out);
int64_t infc__llm_logit_rows(int64_t rows, int64_t width, const float *in, float *out);
}

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int kLayers = 2, kHeads = 4, kKvHeads = 2, kDim = 8, kVocab = 5, kMaxRows = 8,
              kMaxPositions = 64;
constexpr float kScale = 0.35f;

/// A value in [-1, 1) fixed by its arguments.
float hashed(int64_t token, int64_t position, int layer, int what, int head, int i) {
  uint64_t x = (uint64_t)token * 0x9E3779B97F4A7C15ull ^
               (uint64_t)position * 0xC2B2AE3D27D4EB4Full ^
               (uint64_t)(((layer * 4 + what) * 16 + head) * 64 + i) * 0x165667B19E3779F9ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return (float)(x % 2001) / 1000.f - 1.f;
}

/// Whether the entry computes the logits of the step's used rows only (the default).
bool gPackLogits = true;

/// The entry: args = [workspace, dims, input_ids, position_ids, logits].
void decoderEntry(void **args) {
  int64_t rows = static_cast<const int64_t *>(args[1])[0];
  const int64_t *ids = static_cast<const int64_t *>(args[2]);
  const int64_t *positions = static_cast<const int64_t *>(args[3]);
  float *logits = static_cast<float *>(args[4]);
  std::vector<float> q(kHeads * rows * kDim), k(kKvHeads * rows * kDim), v(k.size()), out(q.size()),
      sum(rows * kDim, 0.f);
  for (int layer = 0; layer < kLayers; ++layer) {
    for (int64_t r = 0; r < rows; ++r)
      for (int i = 0; i < kDim; ++i) {
        for (int h = 0; h < kHeads; ++h)
          q[(h * rows + r) * kDim + i] = hashed(ids[r], positions[r], layer, 0, h, i);
        for (int h = 0; h < kKvHeads; ++h) {
          k[(h * rows + r) * kDim + i] = hashed(ids[r], positions[r], layer, 1, h, i);
          v[(h * rows + r) * kDim + i] = hashed(ids[r], positions[r], layer, 2, h, i);
        }
      }
    infc__paged_attention(layer, rows, kHeads, kKvHeads, kDim, kScale, q.data(), k.data(), v.data(),
                          out.data());
    for (int h = 0; h < kHeads; ++h)
      for (int64_t r = 0; r < rows; ++r)
        for (int i = 0; i < kDim; ++i)
          sum[r * kDim + i] += out[(h * rows + r) * kDim + i] * float(h + 1 + layer);
  }
  // The LM head over the rows the step uses only (infc.decoder_logits), packed first; or
  // over every row (a model whose head infc-recognize-attention left as a matmul).
  std::vector<float> used(sum);
  int64_t count = gPackLogits ? infc__llm_logit_rows(rows, kDim, sum.data(), used.data()) : rows;
  for (int64_t r = 0; r < count; ++r)
    for (int j = 0; j < kVocab; ++j) {
      float acc = 0;
      for (int i = 0; i < kDim; ++i)
        acc += used[r * kDim + i] * float((i + j) % 3 - 1);
      logits[r * kVocab + j] = acc;
    }
  for (int64_t r = count; r < rows; ++r) // what the generated code leaves unspecified
    std::fill(logits + r * kVocab, logits + (r + 1) * kVocab, NAN);
}

/// The logits after the last token of `history`, attention over the whole history.
std::vector<float> reference(const std::vector<int64_t> &history) {
  int64_t n = (int64_t)history.size(), last = n - 1;
  std::vector<double> sum(kDim, 0.0);
  for (int layer = 0; layer < kLayers; ++layer)
    for (int h = 0; h < kHeads; ++h) {
      int kv = h / (kHeads / kKvHeads);
      std::vector<double> scores(n);
      double top = -1e300, total = 0;
      for (int64_t j = 0; j < n; ++j) {
        double dot = 0;
        for (int i = 0; i < kDim; ++i)
          dot += (double)hashed(history[last], last, layer, 0, h, i) *
                 hashed(history[j], j, layer, 1, kv, i);
        scores[j] = dot * kScale;
        top = std::max(top, scores[j]);
      }
      for (double &s : scores)
        total += (s = std::exp(s - top));
      for (int i = 0; i < kDim; ++i) {
        double o = 0;
        for (int64_t j = 0; j < n; ++j)
          o += scores[j] / total * hashed(history[j], j, layer, 2, kv, i);
        sum[i] += o * (h + 1 + layer);
      }
    }
  std::vector<float> logits(kVocab);
  for (int j = 0; j < kVocab; ++j) {
    double acc = 0;
    for (int i = 0; i < kDim; ++i)
      acc += sum[i] * ((i + j) % 3 - 1);
    logits[j] = (float)acc;
  }
  return logits;
}

const int64_t kTokens[] = {1, -1};
const int64_t kLogits[] = {1, -1, kVocab};
const int32_t kTokensDim[] = {-1, 0};
const int32_t kLogitsDim[] = {-1, 0, -1};

struct DecoderDesc {
  infc_dim_desc dims[1] = {{"seq", 1, kMaxRows}};
  infc_io_desc inputs[2] = {{"input_ids", INFC_I64, 2, kTokens, nullptr, 0, kTokensDim},
                            {"position_ids", INFC_I64, 2, kTokens, nullptr, 0, kTokensDim}};
  infc_io_desc outputs[1] = {{"logits", INFC_F32, 3, kLogits, nullptr, 0, kLogitsDim}};
  infc_decoder_desc decoder = {kLayers, kHeads, kKvHeads, kDim, kMaxPositions};
  infc_model_desc desc = {
      INFC_MODEL_DESC_VERSION, 2, 1, 0, inputs, outputs, 0, "decoder", decoderEntry};
  DecoderDesc() {
    desc.num_dims = 1;
    desc.dims = dims;
    desc.flags = INFC_DESC_DIMS_ARG;
    desc.decoder = &decoder;
  }
};

struct Fixture : ::testing::Test {
  DecoderDesc d;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  std::map<int32_t, std::vector<int64_t>> history;

  void SetUp() override {
    gPackLogits = true;
    ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
    infc_session_options options{};
    options.struct_size = sizeof options;
    options.num_threads = 2;
    ASSERT_EQ(infc_session_create(model, &options, &session), INFC_OK);
  }
  void TearDown() override {
    infc_session_release(session);
    infc_model_release(model);
  }
  int32_t add() {
    int32_t id = -1;
    EXPECT_EQ(infc_llm_sequence_add(session, &id), INFC_OK) << infc_session_error(session);
    history[id].clear();
    return id;
  }
  /// One step of {id: tokens}, each sequence's logits checked against the reference.
  void step(const std::vector<std::pair<int32_t, std::vector<int64_t>>> &feed) {
    std::vector<int32_t> ids, counts;
    std::vector<int64_t> tokens;
    for (const auto &[id, t] : feed) {
      ids.push_back(id);
      counts.push_back((int32_t)t.size());
      tokens.insert(tokens.end(), t.begin(), t.end());
    }
    std::vector<float> logits(feed.size() * kVocab, -1.f);
    ASSERT_EQ(
        infc_llm_step(session, ids.size(), ids.data(), counts.data(), tokens.data(), logits.data()),
        INFC_OK)
        << infc_session_error(session);
    for (size_t s = 0; s < feed.size(); ++s) {
      std::vector<int64_t> &h = history[ids[s]];
      h.insert(h.end(), feed[s].second.begin(), feed[s].second.end());
      std::vector<float> want = reference(h);
      for (int j = 0; j < kVocab; ++j)
        EXPECT_NEAR(logits[s * kVocab + j], want[j], 1e-4 * (1 + std::fabs(want[j])))
            << "sequence " << ids[s] << " at length " << h.size() << " logit " << j;
      int64_t length = -1;
      ASSERT_EQ(infc_llm_sequence_length(session, ids[s], &length), INFC_OK);
      EXPECT_EQ(length, (int64_t)h.size());
    }
  }
  infc_llm_info_t info() {
    infc_llm_info_t i{};
    i.struct_size = sizeof i;
    EXPECT_EQ(infc_llm_info(session, &i), INFC_OK);
    return i;
  }
};

std::vector<int64_t> tokens(int n, int64_t seed) {
  std::vector<int64_t> t(n);
  for (int i = 0; i < n; ++i)
    t[i] = (seed * 7 + i * 3) % kVocab;
  return t;
}

TEST_F(Fixture, OneSequenceGrowsAcrossBlocksInChunkedSteps) {
  ASSERT_EQ(infc_llm_open(session, 8), INFC_OK) << infc_session_error(session);
  infc_llm_info_t i = info();
  EXPECT_EQ(i.block_tokens, 16);
  EXPECT_EQ(i.max_step_tokens, kMaxRows);
  EXPECT_EQ(i.kv_bytes_per_token, kLayers * 2 * kKvHeads * kDim * 4);
  int32_t a = add();
  step({{a, tokens(21, 1)}}); // three calls of the entry (8, 8, 5 rows), two blocks
  for (int n = 0; n < 14; ++n)
    step({{a, {n % kVocab}}}); // into the third block at position 32
  EXPECT_EQ(info().free_blocks, 8 - 3);
}

TEST_F(Fixture, SequencesShareStepsAndFreedBlocksAreReused) {
  ASSERT_EQ(infc_llm_open(session, 6), INFC_OK);
  int32_t a = add(), b = add(), c = add();
  step({{a, tokens(5, 2)}, {b, tokens(17, 3)}, {c, tokens(1, 4)}}); // 23 rows: 3 calls
  step({{c, {2}}, {a, {4}}, {b, {0}}});
  step({{b, tokens(3, 5)}, {a, {1}}});
  ASSERT_EQ(infc_llm_sequence_remove(session, b), INFC_OK);
  history.erase(b);
  EXPECT_EQ(info().free_blocks, 6 - 2);
  int32_t d = add(); // b's id and blocks again
  EXPECT_EQ(d, b);
  step({{d, tokens(30, 6)}, {c, {3}}});
  step({{a, {0}}, {d, {1}}, {c, {4}}});
}

TEST_F(Fixture, ALibraryThatComputesEveryRowsLogitsGivesTheSame) {
  gPackLogits = false;
  ASSERT_EQ(infc_llm_open(session, 6), INFC_OK);
  int32_t a = add(), b = add(), c = add();
  step({{a, tokens(5, 2)}, {b, tokens(17, 3)}, {c, tokens(1, 4)}}); // 23 rows: 3 calls
  step({{c, {2}}, {a, {4}}, {b, {0}}});
  gPackLogits = true;
  step({{b, tokens(3, 5)}, {a, {1}}});
  // Without a logits buffer no row's logits are computed; the cache still grows.
  std::vector<int32_t> ids = {a, c}, counts = {2, 9};
  std::vector<int64_t> t = tokens(11, 6);
  ASSERT_EQ(infc_llm_step(session, 2, ids.data(), counts.data(), t.data(), nullptr), INFC_OK);
  history[a].insert(history[a].end(), t.begin(), t.begin() + 2);
  history[c].insert(history[c].end(), t.begin() + 2, t.end());
  step({{c, {1}}, {a, {3}}});
}

TEST_F(Fixture, AStepBeyondTheFreeBlocksChangesNothing) {
  ASSERT_EQ(infc_llm_open(session, 2), INFC_OK);
  int32_t a = add(), b = add();
  step({{a, tokens(20, 7)}}); // both blocks
  std::vector<int32_t> ids = {a, b}, counts = {1, 1};
  std::vector<int64_t> t = {1, 2};
  EXPECT_EQ(infc_llm_step(session, 2, ids.data(), counts.data(), t.data(), nullptr),
            INFC_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "infc_llm_step: sequence 1 needs KV blocks and 0 of 2 are free (remove finished "
            "sequences, or open the cache with more blocks)");
  step({{a, {3}}}); // a still fits in its blocks, untouched by the refused step
  ASSERT_EQ(infc_llm_sequence_remove(session, a), INFC_OK);
  history.erase(a);
  step({{b, tokens(9, 8)}});
}

TEST_F(Fixture, PositionsPastTheTablesAreRefused) {
  ASSERT_EQ(infc_llm_open(session, 8), INFC_OK);
  EXPECT_EQ(info().max_positions, kMaxPositions);
  int32_t a = add();
  step({{a, tokens(60, 4)}});
  std::vector<int32_t> five = {5};
  std::vector<int64_t> t = tokens(5, 5);
  EXPECT_EQ(infc_llm_step(session, 1, &a, five.data(), t.data(), nullptr),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "infc_llm_step: sequence 0 would reach position 64, past the 64 positions of the "
            "model's position tables");
  step({{a, tokens(4, 6)}}); // up to position 63, the last
}

TEST_F(Fixture, ArgumentsAreChecked) {
  int32_t id = 0;
  EXPECT_EQ(infc_llm_sequence_add(session, &id), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "the session has no KV cache: call infc_llm_open first");
  EXPECT_EQ(infc_llm_open(session, 0), INFC_ERR_INVALID_ARGUMENT);
  ASSERT_EQ(infc_llm_open(session, 4), INFC_OK);
  EXPECT_EQ(infc_llm_open(session, 4), INFC_ERR_INVALID_ARGUMENT);
  int32_t a = add();
  std::vector<int32_t> twice = {a, a}, one = {1, 1}, zero = {0}, unknown = {7};
  std::vector<int64_t> t = {1, 2}, outside = {kVocab};
  EXPECT_EQ(infc_llm_step(session, 2, twice.data(), one.data(), t.data(), nullptr),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_step(session, 1, &a, zero.data(), t.data(), nullptr),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_step(session, 1, unknown.data(), one.data(), t.data(), nullptr),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_step(session, 1, &a, one.data(), outside.data(), nullptr),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "infc_llm_step: token 5 (entry 0) is not in the vocabulary [0, 5)");
  int64_t length = -1;
  ASSERT_EQ(infc_llm_sequence_length(session, a, &length), INFC_OK);
  EXPECT_EQ(length, 0);
  EXPECT_EQ(infc_llm_sequence_remove(session, 9), INFC_ERR_INVALID_ARGUMENT);
}

TEST(DecoderModel, APlainRunAttendsOverItsRowsAsOneSequence) {
  DecoderDesc d;
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&d.desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  std::vector<int64_t> ids = tokens(6, 9), positions = {0, 1, 2, 3, 4, 5};
  int64_t shape[] = {1, 6};
  infc_tensor in[2] = {{ids.data(), INFC_I64, 2, shape, 0, 0, 0},
                       {positions.data(), INFC_I64, 2, shape, 0, 0, 0}};
  infc_tensor out{};
  ASSERT_EQ(infc_run(session, in, 2, &out, 1), INFC_OK) << infc_session_error(session);
  const float *logits = static_cast<const float *>(out.data);
  for (int r = 0; r < 6; ++r) {
    std::vector<float> want = reference(std::vector<int64_t>(ids.begin(), ids.begin() + r + 1));
    for (int j = 0; j < kVocab; ++j)
      EXPECT_NEAR(logits[r * kVocab + j], want[j], 1e-4 * (1 + std::fabs(want[j])));
  }
  infc_llm_info_t info{};
  EXPECT_EQ(infc_llm_info(session, &info), INFC_OK);
  EXPECT_EQ(info.max_blocks, 0);
  infc_session_release(session);
  infc_model_release(model);
}

TEST(DecoderModel, OtherModelsHaveNoCache) {
  const int64_t shape[] = {2};
  infc_io_desc io[1] = {{"x", INFC_F32, 1, shape, nullptr, 0, nullptr}};
  infc_model_desc desc = {INFC_MODEL_DESC_VERSION, 1, 1, 0, io, io, 0, "plain", [](void **) {}};
  infc_model *model = nullptr;
  infc_session *session = nullptr;
  ASSERT_EQ(infc__model_create_from_desc(&desc, &model), INFC_OK);
  ASSERT_EQ(infc_session_create(model, nullptr, &session), INFC_OK);
  EXPECT_EQ(infc_llm_open(session, 4), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "infc_llm_open: the model is not a decoder (compile it with infc compile --decoder)");
  infc_session_release(session);
  infc_model_release(model);
}

} // namespace

namespace {

TEST(Sampling, GreedyTopKAndTopPAreTheirDistributions) {
  const float logits[4] = {0.f, 1.f, 2.f, 3.f};
  int64_t token = -1;
  EXPECT_EQ(infc_llm_sample(logits, 4, nullptr, nullptr, &token), INFC_OK);
  EXPECT_EQ(token, 3);
  uint64_t state = infc_llm_seed(7);
  infc_llm_sampling one{1.f, 1, 0.f};
  EXPECT_EQ(infc_llm_sample(logits, 4, &one, &state, &token), INFC_OK);
  EXPECT_EQ(token, 3);
  // Frequencies of 20000 draws against softmax(logits / T) over the kept tokens.
  auto frequencies = [&](infc_llm_sampling params, uint64_t seed) {
    uint64_t st = infc_llm_seed(seed);
    std::vector<double> f(4, 0.0);
    for (int i = 0; i < 20000; ++i) {
      int64_t t = -1;
      EXPECT_EQ(infc_llm_sample(logits, 4, &params, &st, &t), INFC_OK);
      f[t] += 1.0 / 20000;
    }
    return f;
  };
  auto expected = [&](float temperature, std::vector<int> kept) {
    std::vector<double> p(4, 0.0);
    double total = 0;
    for (int t : kept)
      total += p[t] = std::exp(logits[t] / temperature);
    for (double &x : p)
      x /= total;
    return p;
  };
  struct Case {
    infc_llm_sampling params;
    std::vector<int> kept;
  } cases[] = {{{1.f, 0, 0.f}, {0, 1, 2, 3}},  // all, at temperature 1: .032 .087 .237 .644
               {{2.f, 0, 1.f}, {0, 1, 2, 3}},  // flatter
               {{1.f, 2, 0.f}, {2, 3}},        // top 2
               {{1.f, 0, 0.8f}, {2, 3}},       // .644 < .8 <= .644 + .237
               {{1.f, 0, 0.5f}, {3}},          // .644 >= .5: the top token alone
               {{0.5f, 3, 0.95f}, {2, 3}},     // at T .5 the top 3 are .016 .117 .867
               {{0.5f, 3, 0.99f}, {1, 2, 3}}}; // .867 + .117 < .99: all three
  for (const Case &c : cases) {
    std::vector<double> got = frequencies(c.params, 11),
                        want = expected(c.params.temperature, c.kept);
    for (int t = 0; t < 4; ++t)
      EXPECT_NEAR(got[t], want[t], 0.015)
          << "T " << c.params.temperature << " top_k " << c.params.top_k << " top_p "
          << c.params.top_p << " token " << t;
  }
  // A seed gives the same draws every time; another seed others.
  infc_llm_sampling warm{1.5f, 0, 0.f};
  std::vector<int64_t> a, b, c;
  for (uint64_t seed : {42ull, 42ull, 43ull}) {
    uint64_t st = infc_llm_seed(seed);
    std::vector<int64_t> &into = a.empty() ? a : b.empty() ? b : c;
    for (int i = 0; i < 64; ++i) {
      int64_t t;
      ASSERT_EQ(infc_llm_sample(logits, 4, &warm, &st, &t), INFC_OK);
      into.push_back(t);
    }
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // A -inf logit is never drawn; NaN, +inf, all -inf and parameters out of range are refused.
  const float masked[4] = {0.f, -INFINITY, 0.f, 0.f};
  uint64_t st = infc_llm_seed(3);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_EQ(infc_llm_sample(masked, 4, &warm, &st, &token), INFC_OK);
    EXPECT_NE(token, 1);
  }
  const float bad[2] = {0.f, NAN}, plus[2] = {0.f, INFINITY}, minus[2] = {-INFINITY, -INFINITY};
  EXPECT_EQ(infc_llm_sample(bad, 2, nullptr, nullptr, &token), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_sample(plus, 2, &warm, &state, &token), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_sample(minus, 2, &warm, &state, &token), INFC_ERR_INVALID_ARGUMENT);
  infc_llm_sampling hot{INFINITY, 0, 0.f};
  EXPECT_EQ(infc_llm_sample(logits, 4, &hot, &state, &token), INFC_ERR_INVALID_ARGUMENT);
  infc_llm_sampling negative{-1.f, 0, 0.f}, wide{1.f, 0, 1.5f};
  EXPECT_EQ(infc_llm_sample(logits, 4, &negative, &state, &token), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_sample(logits, 4, &wide, &state, &token), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_sample(logits, 4, &warm, nullptr, &token), INFC_ERR_INVALID_ARGUMENT);
}

TEST_F(Fixture, GenerateIsTheLoopOfStepsAndSampling) {
  ASSERT_EQ(infc_llm_open(session, 8), INFC_OK);
  std::vector<int64_t> prompt = tokens(11, 3);
  // Greedy: the argmax of each step's reference logits, token after token.
  int32_t a = add();
  std::vector<int64_t> out(20, -1);
  size_t n = 0;
  infc_llm_generate_options greedy{};
  greedy.struct_size = sizeof greedy;
  greedy.max_new_tokens = 20;
  ASSERT_EQ(infc_llm_generate(session, a, prompt.data(), prompt.size(), &greedy, out.data(), &n),
            INFC_OK)
      << infc_session_error(session);
  ASSERT_EQ(n, 20u);
  std::vector<int64_t> history = prompt;
  for (size_t i = 0; i < n; ++i) {
    std::vector<float> want = reference(history);
    int64_t best = std::max_element(want.begin(), want.end()) - want.begin();
    EXPECT_EQ(out[i], best) << "token " << i;
    history.push_back(out[i]);
  }
  int64_t length = 0;
  ASSERT_EQ(infc_llm_sequence_length(session, a, &length), INFC_OK);
  EXPECT_EQ(length, (int64_t)(prompt.size() + n - 1)); // the last token is not run yet
  // A stop token ends it (and is kept).
  int32_t b = add();
  infc_llm_generate_options stopping = greedy;
  int64_t stop = out[4];
  stopping.stop_tokens = &stop;
  stopping.num_stop_tokens = 1;
  std::vector<int64_t> short_out(20, -1);
  ASSERT_EQ(
      infc_llm_generate(session, b, prompt.data(), prompt.size(), &stopping, short_out.data(), &n),
      INFC_OK);
  size_t first = std::find(out.begin(), out.end(), stop) - out.begin();
  EXPECT_EQ(n, first + 1);
  EXPECT_TRUE(std::equal(short_out.begin(), short_out.begin() + n, out.begin()));
  // Seeded sampling: the same seed, the same tokens.
  infc_llm_generate_options warm = greedy;
  warm.sampling = {1.5f, 0, 0.f};
  warm.seed = 5;
  std::vector<int64_t> s1(20), s2(20);
  size_t n1 = 0, n2 = 0;
  ASSERT_EQ(infc_llm_sequence_remove(session, a), INFC_OK);
  ASSERT_EQ(infc_llm_sequence_remove(session, b), INFC_OK);
  int32_t c = add(), d = add();
  ASSERT_EQ(infc_llm_generate(session, c, prompt.data(), prompt.size(), &warm, s1.data(), &n1),
            INFC_OK);
  ASSERT_EQ(infc_llm_generate(session, d, prompt.data(), prompt.size(), &warm, s2.data(), &n2),
            INFC_OK);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(infc_llm_generate(session, c, prompt.data(), 0, &warm, s1.data(), &n1),
            INFC_ERR_INVALID_ARGUMENT);
}

TEST_F(Fixture, StepAllGivesEveryRowsLogitsAndTruncateRollsBack) {
  ASSERT_EQ(infc_llm_open(session, 6), INFC_OK);
  int32_t a = add(), b = add();
  step({{a, tokens(14, 1)}});
  // 5 rows of a (across its first block's end) and 3 of b, every row's logits.
  std::vector<int64_t> ta = tokens(5, 2), tb = tokens(3, 3), all = ta;
  all.insert(all.end(), tb.begin(), tb.end());
  std::vector<int32_t> ids = {a, b}, counts = {5, 3};
  std::vector<float> logits(8 * kVocab, -1.f);
  ASSERT_EQ(infc_llm_step_all(session, 2, ids.data(), counts.data(), all.data(), logits.data()),
            INFC_OK)
      << infc_session_error(session);
  for (int row = 0; row < 8; ++row) {
    int32_t id = row < 5 ? a : b;
    std::vector<int64_t> &h = history[id];
    h.push_back(all[row]);
    std::vector<float> want = reference(h);
    for (int j = 0; j < kVocab; ++j)
      EXPECT_NEAR(logits[row * kVocab + j], want[j], 1e-4 * (1 + std::fabs(want[j])))
          << "row " << row << " logit " << j;
  }
  EXPECT_EQ(info().free_blocks, 6 - 3);
  // Back to 15 positions: a's second block is free again, and the next step overwrites the
  // dropped positions.
  ASSERT_EQ(infc_llm_sequence_truncate(session, a, 15), INFC_OK) << infc_session_error(session);
  history[a].resize(15);
  EXPECT_EQ(info().free_blocks, 6 - 2);
  step({{a, {4, 0, 2}}, {b, {1}}});
  ASSERT_EQ(infc_llm_sequence_truncate(session, b, 0), INFC_OK);
  history[b].clear();
  step({{b, tokens(2, 9)}});
  EXPECT_EQ(infc_llm_sequence_truncate(session, a, 19), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "infc_llm_sequence_truncate: sequence 0 holds 18 positions; cannot keep 19");
  EXPECT_EQ(infc_llm_sequence_truncate(session, a, -1), INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(infc_llm_sequence_truncate(session, 7, 0), INFC_ERR_INVALID_ARGUMENT);
  step({{a, {1}}});
}

TEST_F(Fixture, StructSizeZeroIsTheLayoutOfAbi15) {
  ASSERT_EQ(infc_llm_open(session, 4), INFC_OK);
  // infc_llm_info writes nothing past ABI 1.5's last field for a host that passed 0.
  size_t old_size = offsetof(infc_llm_info_t, drafted);
  std::vector<unsigned char> bytes(sizeof(infc_llm_info_t), 0xAB);
  infc_llm_info_t *info = reinterpret_cast<infc_llm_info_t *>(bytes.data());
  info->struct_size = 0;
  ASSERT_EQ(infc_llm_info(session, info), INFC_OK);
  EXPECT_EQ(info->struct_size, old_size);
  EXPECT_EQ(info->max_blocks, 4);
  EXPECT_TRUE(std::all_of(bytes.begin() + old_size, bytes.end(),
                          [](unsigned char b) { return b == 0xAB; }));
  // infc_llm_generate reads no drafts from such a host: garbage there is not read.
  std::vector<int64_t> prompt = tokens(5, 1), out(4);
  infc_llm_generate_options options;
  memset(&options, 0xFF, sizeof options);
  options.struct_size = 0;
  options.max_new_tokens = 4;
  options.stop_tokens = nullptr;
  options.num_stop_tokens = 0;
  options.sampling = {0.f, 0, 0.f};
  options.seed = 0;
  size_t n = 0;
  int32_t a = add();
  ASSERT_EQ(infc_llm_generate(session, a, prompt.data(), prompt.size(), &options, out.data(), &n),
            INFC_OK)
      << infc_session_error(session);
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(this->info().drafted, 0);
}

TEST_F(Fixture, SpeculativeGenerateGivesPlainDecodingsTokens) {
  // 4 blocks: 64 positions, the model's max_positions too, which the drafts must not pass.
  ASSERT_EQ(infc_llm_open(session, 4), INFC_OK);
  std::vector<int64_t> prompt = tokens(40, 5);
  auto generate = [&](infc_llm_generate_options o, std::vector<int64_t> &out, int64_t &length) {
    int32_t id = add();
    out.assign((size_t)o.max_new_tokens, -1);
    size_t n = 0;
    ASSERT_EQ(infc_llm_generate(session, id, prompt.data(), prompt.size(), &o, out.data(), &n),
              INFC_OK)
        << infc_session_error(session);
    out.resize(n);
    ASSERT_EQ(infc_llm_sequence_length(session, id, &length), INFC_OK);
    ASSERT_EQ(infc_llm_sequence_remove(session, id), INFC_OK);
  };
  infc_llm_generate_options plain{};
  plain.struct_size = sizeof plain;
  plain.max_new_tokens = 25; // the last run position is 63
  for (float temperature : {0.f, 1.2f}) {
    plain.sampling = {temperature, 0, 0.f};
    plain.seed = 11;
    std::vector<int64_t> want, got;
    int64_t want_length = 0, got_length = 0;
    generate(plain, want, want_length);
    EXPECT_EQ(want.size(), 25u);
    for (int32_t drafts : {1, 4, 9}) {
      infc_llm_generate_options speculative = plain;
      speculative.draft_tokens = drafts;
      speculative.draft_ngram = drafts == 9 ? 1 : 0;
      int64_t drafted = info().drafted, accepted = info().accepted;
      generate(speculative, got, got_length);
      EXPECT_EQ(got, want) << "temperature " << temperature << ", " << drafts << " drafts";
      EXPECT_EQ(got_length, want_length);
      EXPECT_GT(info().drafted, drafted);
      EXPECT_LE(info().accepted - accepted, info().drafted - drafted);
      if (temperature == 0.f) // greedy over 5 tokens repeats itself: drafts are taken
        EXPECT_GT(info().accepted, accepted) << drafts << " drafts";
    }
    // A stop token in the middle of a step's accepted drafts.
    int64_t stop = want[17];
    infc_llm_generate_options stopping = plain;
    stopping.stop_tokens = &stop;
    stopping.num_stop_tokens = 1;
    std::vector<int64_t> short_want;
    generate(stopping, short_want, want_length);
    stopping.draft_tokens = 6;
    generate(stopping, got, got_length);
    EXPECT_EQ(got, short_want);
    EXPECT_EQ(got_length, want_length);
  }
  infc_llm_generate_options wrong = plain;
  wrong.draft_tokens = 65;
  std::vector<int64_t> out(25);
  size_t n = 0;
  int32_t id = add();
  EXPECT_EQ(infc_llm_generate(session, id, prompt.data(), prompt.size(), &wrong, out.data(), &n),
            INFC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(infc_session_error(session)),
            "infc_llm_generate: draft_tokens 65 and draft_ngram 0 must be in [0, 64]");
}

} // namespace
