//===- AlternativePlans.h - A step's alternative plans as plan IR -*- C++ -*-===//
//
// Between the planning passes and plx-predict-train, every plan of a step
// that the judge will compare lives in the module as an alternative: a
// plan.step with a `role` (`candidate`: the job's own strategy, the
// planner's plan first and then the static layouts it generalises;
// `baseline`: the standard baselines in report order) and the `layout` it
// was planned with, or a plan.unplanned saying why the plan could not be
// made. Here: baselines::NamedPlan to and from those ops.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_ALTERNATIVEPLANS_H
#define PLEXUS_PASSES_TRAIN_ALTERNATIVEPLANS_H

#include "dialects/Plan/IR/PlanDialect.h"
#include "passes/Baselines/StepPlanners.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <string>
#include <vector>

namespace plexus::train {

/// `<job>_step<index>_candidate<k>` or `<job>_step<index>_baseline<k>`.
std::string alternativeSymbol(llvm::StringRef job, int64_t index,
                              plan::Role role, size_t k);

/// Writes `plan` at the builder's insertion point as alternative `k` of
/// step `index` of `job`: a plan.step with `role`, `layout` and, where they
/// differ from the job's (`setup`), `zero` and `checkpoint`; or, when the
/// plan could not be made, a plan.unplanned with its error. Returns the op,
/// or null after emitting an error at `loc` (a pipelined plan whose chunks
/// the IR cannot hold).
mlir::Operation *buildAlternative(mlir::OpBuilder &builder, mlir::Location loc,
                                  llvm::StringRef job, int64_t index,
                                  plan::Role role, size_t k,
                                  const baselines::NamedPlan &plan,
                                  const baselines::TrainSetup &setup);

/// The plan an alternative holds, costed with `setup`'s model but for the
/// alternative's ZeRO stage and checkpointing: every field buildAlternative
/// wrote, so that plan == namedPlanOf(buildAlternative(plan)) up to a remat
/// table of zeros (PipelineStepIR.h).
baselines::NamedPlan namedPlanOf(mlir::Operation *alternative,
                                 const baselines::TrainSetup &setup);

/// The alternatives of one step, in module order.
struct StepAlternatives {
  std::vector<mlir::Operation *> candidates, baselines;
};
/// The alternatives of every step of `job` (by step index).
std::map<int64_t, StepAlternatives> alternativesOf(mlir::ModuleOp module,
                                                   llvm::StringRef job);

/// Erases the alternatives of `job` with `role` (both when unset).
void eraseAlternatives(mlir::ModuleOp module, llvm::StringRef job,
                       std::optional<plan::Role> role = std::nullopt);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_ALTERNATIVEPLANS_H
