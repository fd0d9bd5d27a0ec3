//===- Generate.cpp - infc generate: a decoder library's tokens from a prompt --===//
//
// Loads a `--decoder` library with infc_api_open, as a product would, opens its KV cache
// and generates from a prompt of token ids through the ABI's step and sampling calls,
// timing the prefill (time to first token) and each decode step (time per output token).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "infc/Runner/LoadedModel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace infc;

namespace {
struct GenerateOptions {
  std::string library;
  std::vector<int64_t> prompt, stop;
  int maxNewTokens = 32, threads = 0, maxBlocks = 0;
  int draftTokens = 0, draftNgram = 0; // prompt-lookup speculative decoding (0: off)
  infc_llm_sampling sampling{0.f, 0, 0.f};
  uint64_t seed = 0;
};

bool parseIds(const std::string &list, std::vector<int64_t> &ids) {
  ids.clear();
  const char *p = list.c_str();
  while (*p) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || (*end && *end != ','))
      return false;
    ids.push_back(v);
    p = *end ? end + 1 : end;
  }
  return !ids.empty();
}

bool parseGenerateArgs(const Args &args, GenerateOptions &o, std::string &error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string v;
    auto next = [&]() {
      if (i + 1 >= args.size()) {
        error = a + " needs a value";
        return false;
      }
      v = args[++i];
      return true;
    };
    auto integer = [&](int &out, int min) {
      if (!next())
        return false;
      char *end;
      long n = strtol(v.c_str(), &end, 10);
      if (*end || v.empty() || n < min || n > 1 << 30) {
        error = a + " needs an integer >= " + std::to_string(min) + ", got '" + v + "'";
        return false;
      }
      out = (int)n;
      return true;
    };
    auto real = [&](float &out) {
      if (!next())
        return false;
      char *end;
      out = strtof(v.c_str(), &end);
      if (*end || v.empty()) {
        error = a + " needs a number, got '" + v + "'";
        return false;
      }
      return true;
    };
    bool ok = true;
    if (a == "--prompt-ids") {
      if ((ok = next()) && !parseIds(v, o.prompt)) {
        error = "--prompt-ids needs token ids, comma-separated (1,2,3), got '" + v + "'";
        ok = false;
      }
    } else if (a == "--stop") {
      if ((ok = next()) && !parseIds(v, o.stop)) {
        error = "--stop needs token ids, comma-separated, got '" + v + "'";
        ok = false;
      }
    } else if (a == "--max-new-tokens") {
      ok = integer(o.maxNewTokens, 1);
    } else if (a == "--threads") {
      ok = integer(o.threads, 0);
    } else if (a == "--max-blocks") {
      ok = integer(o.maxBlocks, 1);
    } else if (a == "--draft-tokens") {
      ok = integer(o.draftTokens, 0);
    } else if (a == "--draft-ngram") {
      ok = integer(o.draftNgram, 1);
    } else if (a == "--temperature") {
      ok = real(o.sampling.temperature);
    } else if (a == "--top-k") {
      ok = integer(o.sampling.top_k, 0);
    } else if (a == "--top-p") {
      ok = real(o.sampling.top_p);
    } else if (a == "--seed") {
      char *end = nullptr;
      if ((ok = next())) {
        o.seed = strtoull(v.c_str(), &end, 10);
        if (v.empty() || *end || v[0] == '-') {
          error = "--seed needs a non-negative integer, got '" + v + "'";
          ok = false;
        }
      }
    } else if (!a.empty() && a[0] == '-') {
      error = "unknown option '" + a + "' for generate (see infc --help)";
      ok = false;
    } else if (!o.library.empty()) {
      error = "more than one library given ('" + o.library + "' and '" + a + "')";
      ok = false;
    } else {
      o.library = a;
    }
    if (!ok)
      return false;
  }
  if (o.library.empty() || o.prompt.empty()) {
    error = "generate needs a library and a prompt: infc generate LLM.so --prompt-ids 1,2,3";
    return false;
  }
  return true;
}

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

void printIds(const std::vector<int64_t> &ids) {
  for (size_t i = 0; i < ids.size(); ++i)
    printf("%s%lld", i ? "," : "", (long long)ids[i]);
  printf("\n");
}

// --draft-tokens: the runtime's own loop (infc_llm_generate), which drafts, checks and rolls
// back; timed as a whole, with the drafts it checked and kept.
int generateSpeculative(const GenerateOptions &o, const infc_api &api, infc_session *s, int32_t seq,
                        const infc_llm_info_t &before) {
  if (!api.llm_generate || !api.llm_step_all)
    return fail(o.library + ": the library predates speculative decoding (ABI 1.6); compile "
                            "it again");
  infc_llm_generate_options options{};
  options.struct_size = sizeof options;
  options.max_new_tokens = o.maxNewTokens;
  options.stop_tokens = o.stop.data();
  options.num_stop_tokens = (int32_t)o.stop.size();
  options.sampling = o.sampling;
  options.seed = o.seed;
  options.draft_tokens = o.draftTokens;
  options.draft_ngram = o.draftNgram;
  std::vector<int64_t> out((size_t)o.maxNewTokens);
  size_t made = 0;
  auto start = std::chrono::steady_clock::now();
  infc_status st =
      api.llm_generate(s, seq, o.prompt.data(), o.prompt.size(), &options, out.data(), &made);
  double ms = msSince(start);
  out.resize(made);
  printIds(out);
  if (st != INFC_OK)
    return fail(o.library + ": generating: " + api.session_error(s));
  infc_llm_info_t after{};
  after.struct_size = sizeof after;
  api.llm_info(s, &after);
  long long drafted = after.drafted - before.drafted, accepted = after.accepted - before.accepted;
  fprintf(stderr,
          "infc: %zu prompt tokens, %zu generated in %.2f ms with the prompt's step (%.2f ms a "
          "token); %lld draft tokens checked, %lld accepted (%.0f%%)\n",
          o.prompt.size(), made, ms, made ? ms / (double)made : 0.0, drafted, accepted,
          drafted ? 100.0 * (double)accepted / (double)drafted : 0.0);
  return 0;
}
} // namespace

int infc::generateCommand(const Args &args) {
  GenerateOptions o;
  std::string error;
  if (!parseGenerateArgs(args, o, error))
    return fail(error);
  LoadedModel m;
  if (!m.open(o.library, o.threads, error))
    return fail(error);
  const infc_api &api = m.api;
  if (!api.llm_info || !api.llm_step || !api.llm_sample)
    return fail(o.library + ": the library predates decoders (ABI 1.5); compile it again");
  infc_session *s = m.session;
  auto check = [&](infc_status st, const char *what) {
    if (st != INFC_OK)
      fail(o.library + ": " + what + ": " + api.session_error(s));
    return st == INFC_OK;
  };
  infc_llm_info_t info{};
  info.struct_size = sizeof info;
  if (!check(api.llm_info(s, &info), "not a decoder library"))
    return 1;
  int64_t positions = (int64_t)o.prompt.size() + o.maxNewTokens;
  int blocks =
      o.maxBlocks ? o.maxBlocks : (int)((positions + info.block_tokens - 1) / info.block_tokens);
  int32_t seq = -1;
  if (!check(api.llm_open(s, blocks), "opening the KV cache") ||
      !check(api.llm_sequence_add(s, &seq), "adding a sequence"))
    return 1;
  std::vector<float> logits((size_t)info.vocab);
  std::vector<int64_t> out;
  {
    // The sampling parameters, checked before any step (on logits of zeros).
    uint64_t probe = api.llm_seed(0);
    int64_t token = 0;
    if (api.llm_sample(logits.data(), info.vocab, &o.sampling, &probe, &token) != INFC_OK)
      return fail("--temperature (finite, >= 0), --top-k (>= 0) or --top-p (in [0, 1]) is out "
                  "of range");
  }
  auto print = [&] { printIds(out); };
  if (o.draftTokens > 0)
    return generateSpeculative(o, api, s, seq, info);
  std::vector<double> steps;
  uint64_t state = api.llm_seed(o.seed);
  int32_t count = (int32_t)o.prompt.size();
  const int64_t *feed = o.prompt.data();
  double ttft = 0;
  for (int i = 0; i < o.maxNewTokens; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!check(api.llm_step(s, 1, &seq, &count, feed, logits.data()), "the step")) {
      print(); // the tokens made before it
      return 1;
    }
    if (i == 0)
      ttft = msSince(start);
    else
      steps.push_back(msSince(start));
    int64_t token = 0;
    if (api.llm_sample(logits.data(), info.vocab, &o.sampling, &state, &token) != INFC_OK) {
      print();
      return fail(o.library + ": sampling failed: a NaN or +inf logit (the model's output)");
    }
    out.push_back(token);
    if (std::find(o.stop.begin(), o.stop.end(), token) != o.stop.end())
      break;
    count = 1;
    feed = &out.back();
  }
  print();
  std::sort(steps.begin(), steps.end());
  auto at = [&](double p) { return steps.empty() ? 0.0 : steps[(size_t)(p * (steps.size() - 1))]; };
  fprintf(stderr,
          "infc: %zu prompt tokens, %zu generated; time to first token %.2f ms; per output "
          "token P50 %.2f ms, P95 %.2f ms, P99 %.2f ms (%zu steps)\n",
          o.prompt.size(), out.size(), ttft, at(0.5), at(0.95), at(0.99), steps.size());
  return 0;
}
