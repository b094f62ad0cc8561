//===- TrainFixtures.h - A small training setup for the Train tests -------===//
#ifndef PLEXUS_TEST_UNIT_TRAIN_TRAINFIXTURES_H
#define PLEXUS_TEST_UNIT_TRAIN_TRAINFIXTURES_H

#include "passes/Baselines/StepPlanners.h"
#include "passes/Simulate/EventSimulator.h"

#include <string>
#include <vector>

namespace plexus::train::fixtures {

/// 4 layers, h = 256, 4 heads (d = 64), GeLU ffn 1024, vocab 1000, on a
/// chip of 1 TFLOP/s at efficiency 1 with 1 GB usable; 8 GPUs, 4 a node,
/// selective checkpointing, ZeRO-3.
inline baselines::TrainSetup smallSetup() {
  baselines::TrainSetup s;
  s.model.shape.layers = 4;
  s.model.shape.hidden = 256;
  s.model.shape.heads = 4;
  s.model.shape.kvHeads = 4;
  s.model.shape.ffn = 1024;
  s.model.shape.vocab = 1000;
  s.model.shape.mlp = cost::MlpKind::GeLU;
  s.model.chip.bf16Flops = 1e12;
  s.model.chip.hbmBytes = 1'000'000'000;
  s.model.efficiency = 1.0;
  s.model.checkpointing = cost::Checkpointing::Selective;
  s.model.zero = 3;
  s.world = 8;
  s.chipsPerNode = 4;
  s.memoryBytes = 1'000'000'000;
  return s;
}

/// Ring collectives at `seconds` per byte a rank sends: a reduce-scatter of
/// a B-byte buffer over n ranks sends B (n - 1) / n (an all-reduce twice
/// that), an all-gather of a B-byte shard B (n - 1).
inline prog::CommTimeFn bytesOverRanks(double seconds) {
  return [seconds](const prog::CommRequest &r) {
    const double n = double(r.ranks.size()), b = double(r.bytes);
    switch (r.kind) {
    case prog::CommKind::AllGather:
      return prog::CommTime(seconds * b * (n - 1));
    case prog::CommKind::AllReduce:
      return prog::CommTime(2 * seconds * b * (n - 1) / n);
    default:
      return prog::CommTime(seconds * b * (n - 1) / n);
    }
  };
}

/// The spec IR of test/Passes/Inputs/train-4.plx (4 H100 in 2 nodes of 2,
/// 4 layers, hidden 256, 4 heads, 2 KV heads) with `strategy` as the job's
/// strategy attribute; `placed` adds the plan.job plx-place gives it.
inline std::string train4Spec(const std::string &strategy,
                              bool placed = false) {
  std::string text = R"(module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <)" +
                     strategy + ">\n";
  if (placed)
    text += R"(  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
)";
  return text + "}";
}

/// The batch train-4.plx draws (seed 3): five 256-token sequences and
/// three of 1,024.
inline const std::vector<int64_t> kTrain4Lengths{256,  256, 1024, 256,
                                                 1024, 256, 256,  1024};

} // namespace plexus::train::fixtures

#endif // PLEXUS_TEST_UNIT_TRAIN_TRAINFIXTURES_H
