//===- Passes.h - Training passes: static plans and lowering ----*- C++ -*-===//
#ifndef PLEXUS_PASSES_TRAIN_PASSES_H
#define PLEXUS_PASSES_TRAIN_PASSES_H

#include "passes/AdaptiveSP/AdaptiveSp.h"
#include "passes/Checkpoint/ChunkCheckpointing.h"
#include "passes/DynamicPP/Chunking.h"

#include "mlir/Pass/Pass.h"

/// The values of a checkpointing pass option (plx-dynamic-pp's checkpoint,
/// plx-checkpoint's strategy), typed as ckpt::CheckpointStrategy.
#define PLEXUS_CHECKPOINT_STRATEGY_VALUES                                      \
  ::llvm::cl::values(                                                          \
      clEnumValN(::plexus::ckpt::CheckpointStrategy::Adaptive, "adaptive",     \
                 "the stage-aware ILP"),                                       \
      clEnumValN(::plexus::ckpt::CheckpointStrategy::None, "none",             \
                 "no layer checkpointed"),                                     \
      clEnumValN(::plexus::ckpt::CheckpointStrategy::Full, "full",             \
                 "every layer of every chunk"),                                \
      clEnumValN(::plexus::ckpt::CheckpointStrategy::Uniform, "uniform",       \
                 "one layer count everywhere"))

namespace plexus::train {
#define GEN_PASS_DECL
#include "passes/Train/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Train/Passes.h.inc"

/// Registers `plx-train-pipeline`: plx-instantiate, plx-place and
/// plx-predict-train, the stages plxc runs on a spec's train jobs.
void registerTrainPipelines();
} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_PASSES_H
