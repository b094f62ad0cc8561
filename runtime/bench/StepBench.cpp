//===- StepBench.cpp - Time one training step on one process --------------===//
//
// plxrt-step-bench [--seqs N] [--seed S] [--lengths a,b,...] [--steps K]
//                  [--checkpoint none|full] [--mlp swiglu|gelu]
//
// Runs K training steps (forward, backward, Adam) of the model of
// examples/tiny-cpu.plx (4 layers, hidden 256, 4 heads, ffn 1Ki, vocab 1Ki,
// fp32) on one process, over a batch drawn like its dataset: N lengths from
// exp(N(5, 0.8^2)) tokens, clamped to 2Ki and rounded up to a multiple of 8.
// Prints each phase's time and the model FLOP rate (runtime::forwardFlops).
//
//===----------------------------------------------------------------------===//
#include "runtime/Model.h"
#include "runtime/Optimizer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace plexus::runtime;

namespace {

double seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// exp(N(5, 0.8^2)) tokens, clamped to [8, 2048], rounded up to 8.
std::vector<int64_t> drawLengths(uint64_t seed, int64_t n) {
  const double kPi = 3.14159265358979323846;
  const uint64_t key = streamKey(seed, 0x1e9);
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < n; ++i) {
    // In (0, 1): log(u1) stays finite.
    double u1 = uniformAt(key, static_cast<uint64_t>(2 * i)) + 0x1p-25;
    double u2 = uniformAt(key, static_cast<uint64_t>(2 * i + 1));
    double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * kPi * u2);
    double len = std::min(2048.0, std::max(8.0, std::exp(5.0 + 0.8 * z)));
    lengths.push_back((static_cast<int64_t>(std::ceil(len)) + 7) / 8 * 8);
  }
  return lengths;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "plxrt-step-bench: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  int64_t seqs = 16, steps = 1;
  uint64_t seed = 1;
  std::vector<int64_t> lengths;
  Checkpoint mode = Checkpoint::None;
  ModelConfig config;
  config.layers = 4;
  config.hidden = 256;
  config.heads = 4;
  config.ffn = 1024;
  config.vocab = 1024;
  config.mlp = MlpKind::SwiGLU;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!value)
      return fail("missing value after " + arg);
    ++i;
    if (arg == "--seqs")
      seqs = std::atoll(value);
    else if (arg == "--seed")
      seed = std::strtoull(value, nullptr, 10);
    else if (arg == "--steps")
      steps = std::atoll(value);
    else if (arg == "--lengths") {
      std::string list = value;
      for (size_t pos = 0; pos < list.size();) {
        size_t comma = list.find(',', pos);
        lengths.push_back(std::atoll(list.substr(pos, comma - pos).c_str()));
        pos = comma == std::string::npos ? list.size() : comma + 1;
      }
    } else if (arg == "--checkpoint")
      mode = std::string(value) == "full" ? Checkpoint::Full : Checkpoint::None;
    else if (arg == "--mlp")
      config.mlp =
          std::string(value) == "gelu" ? MlpKind::GeLU : MlpKind::SwiGLU;
    else
      return fail("unknown option " + arg);
  }
  if (lengths.empty())
    lengths = drawLengths(seed, seqs);

  Result<ModelWeights<float>> weights =
      initWeights<float>(config, wholeModel(config), seed);
  if (!weights.ok())
    return fail(weights.message());
  ModelWeights<float> grads = zerosLike(*weights);

  std::vector<std::vector<int32_t>> sequences;
  std::vector<Slice> slices;
  std::vector<int32_t> tokens, targets;
  int64_t total = 0;
  for (size_t s = 0; s < lengths.size(); ++s) {
    sequences.push_back(syntheticTokens(seed, static_cast<int64_t>(s),
                                        lengths[s], config.vocab));
    slices.push_back({lengths[s], 0});
    tokens.insert(tokens.end(), sequences.back().begin(),
                  sequences.back().end());
    std::vector<int32_t> t = nextTokenTargets(sequences.back(), 0, lengths[s]);
    targets.insert(targets.end(), t.begin(), t.end());
    total += lengths[s];
  }
  const double scale = 1.0 / static_cast<double>(targetCount(sequences));
  const double flops = 3 * forwardFlops(config, slices, 0, config.layers, true);
  std::printf("model: %lld layers, hidden %lld, %lld heads, ffn %lld, vocab "
              "%lld, %s, %lld parameters\n",
              static_cast<long long>(config.layers),
              static_cast<long long>(config.hidden),
              static_cast<long long>(config.heads),
              static_cast<long long>(config.ffn),
              static_cast<long long>(config.vocab),
              config.mlp == MlpKind::SwiGLU ? "swiglu" : "gelu",
              static_cast<long long>(parameterCount(*weights)));
  std::printf("batch: %zu sequences, %lld tokens (longest %lld)\n",
              lengths.size(), static_cast<long long>(total),
              static_cast<long long>(
                  *std::max_element(lengths.begin(), lengths.end())));

  Adam<float> adam;
  for (int64_t step = 0; step < steps; ++step) {
    auto t0 = std::chrono::steady_clock::now();
    Tensor x, y, dy, dx;
    std::vector<LayerActivations<float>> acts;
    HeadActivations<float> head;
    Status st = embedForward(config, *weights, tokens, x);
    if (st.ok())
      st = layersForward(config, *weights, 0, config.layers, slices, nullptr, x,
                         nullptr, mode, acts, y);
    Result<double> loss =
        st.ok() ? headForward(config, *weights, y, targets, scale, head)
                : Result<double>(st);
    if (!loss.ok())
      return fail(loss.message());
    auto t1 = std::chrono::steady_clock::now();
    st = headBackward(config, *weights, head, dy, grads);
    if (st.ok())
      st = layersBackward(config, *weights, 0, config.layers, slices, nullptr,
                          nullptr, acts, dy, nullptr, dx, grads, nullptr);
    if (st.ok())
      st = embedBackward(config, tokens, dx, grads);
    if (!st.ok())
      return fail(st.message());
    auto t2 = std::chrono::steady_clock::now();
    st = adam.step(*weights, grads);
    if (!st.ok())
      return fail(st.message());
    grads = zerosLike(grads);
    auto t3 = std::chrono::steady_clock::now();
    const double fwd = seconds(t0, t1), bwd = seconds(t1, t2),
                 opt = seconds(t2, t3);
    std::printf("step %lld: loss %.6f  forward %.3f s  backward %.3f s  "
                "adam %.3f s  total %.3f s  %.0f tokens/s  %.2f GFLOP/s\n",
                static_cast<long long>(step), *loss, fwd, bwd, opt,
                fwd + bwd + opt, static_cast<double>(total) / (fwd + bwd + opt),
                flops / (fwd + bwd) / 1e9);
  }
  return 0;
}
