//===- TrainJob.h - A plx.train as the planners' plain values ---*- C++ -*-===//
//
// Reads what the plain C++ planners, the lowering and the simulator need
// from the plx IR: a job's model, chip, strategy and memory
// (baselines::TrainSetup), its dataset as a sampler description, the
// chips plx-place gave its ranks, and plan.step ops to and from
// step::StepPlan. Errors are emitted on the op at fault.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_TRAINJOB_H
#define PLEXUS_PASSES_TRAIN_TRAINJOB_H

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Baselines/StepPlanners.h"
#include "passes/Fabric/CollectiveModel.h"
#include "passes/Fabric/FabricGraph.h"
#include "passes/Instantiate/BatchSampler.h"
#include "passes/Lower/StepLowering.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <optional>

namespace plexus::train {

/// The ops a plx.train names.
struct TrainOps {
  plx::TrainOp train;
  plx::ModelOp model;
  plx::DatasetOp data;
  plx::FabricOp fabric;
};
mlir::FailureOr<TrainOps> trainOps(plx::TrainOp train);

/// The job as planners see it: the transformer, the fabric's chip at the
/// default achieved efficiency, the strategy's checkpointing (`adaptive`
/// counts as selective until a stage-aware planner decides) and ZeRO stage,
/// the job's chips and the usable memory per chip (the strategy's
/// memory_limit, else the chip's HBM).
baselines::TrainSetup trainSetupOf(TrainOps ops);

/// The strategy's static layout: sp_degree (1 when the planner chooses),
/// tp, cp, pp_degree (1 when dynamic).
step::GroupLayout strategyLayout(plx::TrainOp train);

/// The dataset as a sampler description; a lengths file is resolved
/// against the directory of the .plx file the dataset came from (its
/// location), else the working directory.
instantiate::DatasetDesc datasetDescOf(plx::DatasetOp data);

/// A fabric built as a graph with the chips of a placed plan.job's ranks.
struct PlacedJob {
  std::unique_ptr<fabric::FabricGraph> graph;
  std::vector<fabric::ChipRef> chips; ///< chips[r]: the chip of rank r
  fabric::CollectiveParams params;
};
mlir::FailureOr<PlacedJob> placedJob(plan::JobOp job);

/// The ring order placement chose for each of the job's communicators
/// whose order is not plain rank order (plan.comm_group `order`; groups
/// without one are left out).
lower::RingOrders ringOrdersOf(plan::JobOp job);

/// plan.step <-> step::StepPlan. stepPlanOf reads every attribute
/// (lengths are required for lowering; missing ones give an empty list).
/// buildStepOp writes `zero` when it is >= 0 and `checkpoint` when set.
step::StepPlan stepPlanOf(plan::StepOp step);
plan::StepOp buildStepOp(mlir::OpBuilder &builder, mlir::Location loc,
                         llvm::StringRef symName, int64_t index,
                         llvm::StringRef job, const step::StepPlan &plan,
                         int64_t zero = -1,
                         std::optional<cost::Checkpointing> checkpoint = {});

/// The plan dialect's name for a checkpointing mode, and back.
plan::Checkpointing checkpointingAttrOf(cost::Checkpointing c);
cost::Checkpointing checkpointingOf(plan::Checkpointing c);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_TRAINJOB_H
