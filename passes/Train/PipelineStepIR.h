//===- PipelineStepIR.h - DPP steps as plan.pipeline ops --------*- C++ -*-===//
//
// A plan.step made of pipelines (plan.pipeline > plan.chunk, plan.remat) to
// and from step::PipelinedStepPlan, as TrainJob.h does for steps made of
// micro-batches and step::StepPlan. The IR holds every field of the plain
// form; the one thing a round trip does not keep is a remat table whose rows
// are all zero, which reads back as the empty table (both mean "nothing is
// recomputed").
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_PIPELINESTEPIR_H
#define PLEXUS_PASSES_TRAIN_PIPELINESTEPIR_H

#include "dialects/Plan/IR/PlanDialect.h"
#include "passes/StepModel/PipelinePlan.h"

#include "mlir/IR/Builders.h"

#include <cstdint>
#include <vector>

namespace plexus::train {

/// Whether `step` holds plan.pipeline ops (a step planned by DPP).
bool isPipelinedStep(plan::StepOp step);

/// Reads a step of pipelines: strategy ("" when absent), world, time,
/// peak_mem, bubble (0 when absent) and lengths (empty when absent) from
/// the step; stages and SP degree from its first pipeline (the plan's
/// defaults when it has none; the verifier makes all pipelines agree).
step::PipelinedStepPlan pipelinedStepPlanOf(plan::StepOp step);

/// One pipeline: chunks in forward order, backward order, nsplit, time,
/// bubble and the remat table (rematTableOf).
step::PlannedPipeline plannedPipelineOf(plan::PipelineOp pipeline);

/// The pipeline's remat[stage][position]: empty when it has no plan.remat,
/// else `stages` rows of one count per chunk, zero for stages without one.
std::vector<std::vector<int64_t>> rematTableOf(plan::PipelineOp pipeline);

/// Creates a plan.step named `symName` at the builder's insertion point and
/// fills it from `plan`: `job` unless empty, `strategy` unless empty,
/// `lengths` unless empty, `bubble` always, one plan.pipeline per pipeline
/// with its chunks and, through setPipelineRemat, its plan.remat ops.
/// Chunk kinds must be "packed", "split" or "hybrid"; for any other, emits
/// an error at `loc`, creates nothing and returns a null op.
plan::StepOp buildPipelinedStepOp(mlir::OpBuilder &builder, mlir::Location loc,
                                  llvm::StringRef symName, int64_t index,
                                  llvm::StringRef job,
                                  const step::PipelinedStepPlan &plan);

/// Replaces the plan.remat ops of `pipeline` with `remat[stage][position]`:
/// one op, appended after the chunks, for each stage whose row has a
/// nonzero count; none at all for an empty table.
void setPipelineRemat(mlir::OpBuilder &builder, plan::PipelineOp pipeline,
                      const std::vector<std::vector<int64_t>> &remat);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_PIPELINESTEPIR_H
