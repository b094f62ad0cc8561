//===- DppTestModels.h - DPP cost models for tests --------------*- C++ -*-===//
//
// Models whose numbers can be checked by hand (one stage's forward +
// backward costs exactly q ((C + s)^2 - C^2) + l s + c ms), and the
// FlexSP-profiled 7B, 13B and 30B models on 4 stages of 8-way SP
// (reference flexsp_dpp.md sections 1.4 and 2.8), with batches of the
// Wikipedia length sample cut at a context limit and batches drawn from a
// GitHub-like long-tail histogram (most sequences under 16K, half a percent
// above 64K; the shape of test/unit/Instantiate's githubLike description).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_TEST_UNIT_DYNAMICPP_DPPTESTMODELS_H
#define PLEXUS_TEST_UNIT_DYNAMICPP_DPPTESTMODELS_H

#include "passes/DynamicPP/DppCostModel.h"

#include "../AdaptiveSP/WikipediaBatches.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace plexus::dpp {

/// A model where one stage's forward + backward of a piece is exactly
/// quadratic ((C + s)^2 - C^2) + linear s, plus perChunk per chunk; no
/// all-to-all; memory so large that nothing is checkpointed.
inline DppModel handModel(double quadratic, double linear, double perChunk = 0,
                          int64_t stages = 2, int64_t spDegree = 2) {
  DppModel m;
  m.activation.layers = 4 * stages;
  m.activation.stages = stages;
  m.activation.spDegree = spDegree;
  m.activation.hidden = 1024;
  m.activation.kvDim = 1024;
  m.activation.tokenMB = 1.0;
  const double gpus = static_cast<double>(stages * spDegree);
  m.alpha1 = quadratic * gpus;
  m.alpha2 = linear * gpus;
  m.beta1 = perChunk * static_cast<double>(stages);
  m.memoryMB = 1e12;
  m.modelStatesMB.assign(static_cast<size_t>(stages), 0.0);
  return m;
}

/// FlexSP's profile `name` (gpt-7b, gpt-13b or gpt-30b) on 4 stages of
/// 8-way SP (32 GPUs), `memoryGB` per GPU, the 8-GPU all-to-all bandwidth
/// of FlexSP's table (96.5 GB/s), and `chunkMs` per chunk per pipeline in
/// place of the profile's beta1 (FlexSP's per-group constant, 0.6-2.8 s,
/// is not a chunk's).
inline DppModel profiledModel(const std::string &name, double memoryGB,
                              double chunkMs = 40) {
  cost::ProfiledModel profile = *cost::findProfiledModel(name);
  DppLayout layout;
  layout.spDegree = 8;
  layout.stages = 4;
  layout.memoryGB = memoryGB;
  layout.paramsGi = profile.paramsGi192K;
  layout.allToAllGBps = 96.5;
  layout.beta1Ms = chunkMs;
  return *makeDppModel(profile, layout);
}

/// The 13B model most tests plan with.
inline DppModel gpt13b(double memoryGB, double chunkMs = 40) {
  return profiledModel("gpt-13b", memoryGB, chunkMs);
}

/// The first `count` lengths of Wikipedia global batch `index` (reference
/// section 4.1's batches), cut at `limit` tokens (the reference's DPP
/// runs truncate over-long sequences).
inline std::vector<int64_t> wikipediaLengths(int64_t index, size_t count,
                                             int64_t limit = 65536) {
  std::vector<int64_t> lengths = adaptivesp::wikipediaBatch(index);
  if (lengths.size() > count)
    lengths.resize(count);
  for (int64_t &l : lengths)
    l = std::min(l, limit);
  return lengths;
}

/// `count` lengths drawn from a GitHub-like histogram, padded to a
/// multiple of 128 and cut at `limit`: bins up to 2K, 4K, 8K, 16K, 32K,
/// 64K and 96K tokens with weights 59.2, 14, 10, 8.5, 5, 2.8 and 0.5, a
/// length uniform inside its bin. A fixed generator (splitmix64) seeded with
/// `seed`, so every platform draws the same batch.
inline std::vector<int64_t> githubLikeLengths(uint64_t seed, size_t count,
                                              int64_t limit = 98304) {
  const int64_t bounds[] = {2048, 4096, 8192, 16384, 32768, 65536, 98304};
  const double weights[] = {59.2, 14.0, 10.0, 8.5, 5.0, 2.8, 0.5};
  uint64_t state = seed;
  auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  double total = 0;
  for (double w : weights)
    total += w;
  std::vector<int64_t> out;
  for (size_t i = 0; i < count; ++i) {
    double u = static_cast<double>(next() >> 11) * 0x1.0p-53 * total;
    size_t bin = 0;
    while (bin + 1 < std::size(weights) && u >= weights[bin]) {
      u -= weights[bin];
      ++bin;
    }
    const int64_t lo = bin == 0 ? 1 : bounds[bin - 1] + 1;
    const int64_t len =
        lo + static_cast<int64_t>(next() %
                                  static_cast<uint64_t>(bounds[bin] - lo + 1));
    out.push_back(std::min((len + 127) / 128 * 128, limit));
  }
  return out;
}

} // namespace plexus::dpp

#endif // PLEXUS_TEST_UNIT_DYNAMICPP_DPPTESTMODELS_H
