//===- StepBound.cpp - A lower bound on a train job's step time -----------===//
#include "passes/Train/StepBound.h"

#include "passes/Train/FlexSpModel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace plexus::train {

StepBound stepLowerBound(const baselines::TrainSetup &setup,
                         const std::vector<int64_t> &lengths,
                         const BoundChoices &choices,
                         const prog::CommTimeFn &comm) {
  StepBound out;
  const step::TrainModel &model = setup.model;
  if (!(model.chip.bf16Flops * model.efficiency > 0) || setup.world < 1) {
    out.error = "the chip has no BF16 peak or the job no chip";
    return out;
  }
  // Forward and backward without recompute: what every plan computes.
  step::TrainModel plain = model;
  plain.checkpointing = cost::Checkpointing::None;
  const FlopsPolynomial f = trainFlopsPolynomial(plain);
  const FlopsPolynomial secs = trainSecondsFloorPolynomial(plain);
  double seconds = 0;
  for (int64_t s : lengths) {
    const double t = static_cast<double>(s);
    out.flops += f.quadratic * t * t + f.linear * t;
    seconds += secs.quadratic * t * t + secs.linear * t;
  }
  out.computeSeconds = seconds / static_cast<double>(setup.world);

  // The cheapest data-parallel synchronisation over the allowed depths.
  const int64_t params = step::carriedParameters(model.shape, 0,
                                                  model.shape.layers);
  const int64_t element = cost::bytesPerElement(model.shape.dtype);
  double cheapest = std::numeric_limits<double>::infinity();
  for (int64_t p : choices.pipelineDepths) {
    const int64_t shard = std::max<int64_t>(1, choices.tp) * p;
    if (p < 1 || setup.world % shard != 0)
      continue;
    const int64_t ways = setup.world / shard;
    double seconds = std::numeric_limits<double>::infinity();
    if (ways <= 1)
      seconds = 0;
    // The ranks that hold the same share sit either strided (one per
    // tp x pp block, as pure data and Ulysses parallelism place them) or
    // contiguous (a stage's block, as a pipeline with sp or cp places
    // them); the cheaper of the two stands for any placement.
    for (bool contiguous : {false, true}) {
      if (ways <= 1)
        break;
      std::vector<int64_t> ranks;
      for (int64_t i = 0; i < ways; ++i)
        ranks.push_back(contiguous ? i : i * shard);
      const int64_t bytes = (params / shard * element) / ways * ways;
      prog::CommRequest reduce;
      reduce.kind = model.zero == 0 ? prog::CommKind::AllReduce
                                    : prog::CommKind::ReduceScatter;
      reduce.ranks = ranks;
      reduce.bytes = bytes;
      prog::CommTime t = comm(reduce);
      if (!t.error.empty()) {
        out.error = t.error;
        return out;
      }
      double pattern = t.seconds;
      if (model.zero > 0) {
        // The updated (or, under ZeRO-3, the forward's) parameters are
        // gathered back: the other half of an all-reduce.
        prog::CommRequest gather = reduce;
        gather.kind = prog::CommKind::AllGather;
        gather.bytes = bytes / ways;
        prog::CommTime g = comm(gather);
        if (!g.error.empty()) {
          out.error = g.error;
          return out;
        }
        pattern += g.seconds;
      }
      seconds = std::min(seconds, pattern);
    }
    if (seconds < cheapest) {
      cheapest = seconds;
      out.gradientDepth = p;
    }
  }
  out.gradientSeconds = std::isfinite(cheapest) ? cheapest : 0;
  out.seconds = std::max(out.computeSeconds, out.gradientSeconds);
  return out;
}

} // namespace plexus::train
