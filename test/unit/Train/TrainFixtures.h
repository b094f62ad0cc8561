//===- TrainFixtures.h - A small training setup for the Train tests -------===//
#ifndef PLEXUS_TEST_UNIT_TRAIN_TRAINFIXTURES_H
#define PLEXUS_TEST_UNIT_TRAIN_TRAINFIXTURES_H

#include "passes/Baselines/StepPlanners.h"
#include "passes/Simulate/EventSimulator.h"

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

} // namespace plexus::train::fixtures

#endif // PLEXUS_TEST_UNIT_TRAIN_TRAINFIXTURES_H
