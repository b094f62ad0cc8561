//===- Passes.h - Training passes: static plans and lowering ----*- C++ -*-===//
#ifndef PLEXUS_PASSES_TRAIN_PASSES_H
#define PLEXUS_PASSES_TRAIN_PASSES_H

#include "passes/AdaptiveSP/AdaptiveSp.h"
#include "passes/Checkpoint/ChunkCheckpointing.h"
#include "passes/DynamicPP/Chunking.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

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

/// The options of `plx-train-pipeline`, handed to its passes.
struct TrainPipelineOptions
    : public mlir::PassPipelineOptions<TrainPipelineOptions> {
  Option<int64_t> maxSimulatedRanks{
      *this, "max-simulated-ranks",
      llvm::cl::desc("jobs of more ranks are neither planned nor simulated "
                     "(a guard)"),
      llvm::cl::init(1048576)};
  Option<int64_t> maxReplicaRanks{
      *this, "max-replica-ranks",
      llvm::cl::desc("jobs of more ranks are planned and simulated as "
                     "data-parallel replicas of at most this many ranks"),
      llvm::cl::init(4096)};
  Option<bool> contention{
      *this, "contention",
      llvm::cl::desc("simulate link contention between concurrent transfers"),
      llvm::cl::init(true)};
  Option<std::string> tracePath{
      *this, "trace",
      llvm::cl::desc("write a Chrome trace of the first job's step 0 here")};
  Option<bool> progress{
      *this, "progress",
      llvm::cl::desc("print progress lines on stderr after a second"),
      llvm::cl::init(false)};
  Option<int64_t> timelineColumns{
      *this, "timeline-columns",
      llvm::cl::desc("add each job's step 0 binned into this many columns "
                     "to its prediction (0: none)"),
      llvm::cl::init(0)};
};

/// plxc's stages for train jobs, in order: plx-instantiate, plx-place,
/// plx-plan-strategy, plx-plan-baselines, plx-predict-train.
void buildTrainPipeline(mlir::OpPassManager &pm,
                        const TrainPipelineOptions &options);

/// Registers `plx-train-pipeline` (buildTrainPipeline).
void registerTrainPipelines();
} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_PASSES_H
