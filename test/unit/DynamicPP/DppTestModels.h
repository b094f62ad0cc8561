//===- DppTestModels.h - DPP cost models for tests --------------*- C++ -*-===//
//
// Models whose numbers can be checked by hand (one stage's forward +
// backward costs exactly q ((C + s)^2 - C^2) + l s + c ms), and the
// FlexSP-profiled 13B model on 4 stages of 8-way SP (reference
// flexsp_dpp.md sections 1.4 and 2.8), with a batch of the Wikipedia
// length sample cut at 64K tokens.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_TEST_UNIT_DYNAMICPP_DPPTESTMODELS_H
#define PLEXUS_TEST_UNIT_DYNAMICPP_DPPTESTMODELS_H

#include "passes/DynamicPP/DppCostModel.h"

#include "../AdaptiveSP/WikipediaBatches.h"

#include <algorithm>

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

/// gpt-13b from FlexSP's profile on 4 stages of 8-way SP (32 GPUs),
/// `memoryGB` per GPU, the 8-GPU all-to-all bandwidth of FlexSP's table
/// (96.5 GB/s), and `chunkMs` per chunk per pipeline in place of the
/// profile's beta1 (FlexSP's per-group constant, 1.1 s, is not a chunk's).
inline DppModel gpt13b(double memoryGB, double chunkMs = 40) {
  cost::ProfiledModel profile = *cost::findProfiledModel("gpt-13b");
  DppLayout layout;
  layout.spDegree = 8;
  layout.stages = 4;
  layout.memoryGB = memoryGB;
  layout.paramsGi = profile.paramsGi192K;
  layout.allToAllGBps = 96.5;
  layout.beta1Ms = chunkMs;
  return *makeDppModel(profile, layout);
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

} // namespace plexus::dpp

#endif // PLEXUS_TEST_UNIT_DYNAMICPP_DPPTESTMODELS_H
