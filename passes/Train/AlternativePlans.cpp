//===- AlternativePlans.cpp - A step's alternative plans as plan IR -------===//
#include "passes/Train/AlternativePlans.h"

#include "passes/Train/PipelineStepIR.h"
#include "passes/Train/TrainJob.h"

using namespace mlir;

namespace plexus::train {

std::string alternativeSymbol(StringRef job, int64_t index, plan::Role role,
                              size_t k) {
  return (job + "_step" + std::to_string(index) + "_" +
          plan::stringifyRole(role) + std::to_string(k))
      .str();
}

Operation *buildAlternative(OpBuilder &builder, Location loc, StringRef job,
                            int64_t index, plan::Role role, size_t k,
                            const baselines::NamedPlan &plan,
                            const baselines::TrainSetup &setup) {
  const std::string symbol = alternativeSymbol(job, index, role, k);
  MLIRContext *context = builder.getContext();
  auto roleAttr = plan::RoleAttr::get(context, role);
  if (!plan.ok())
    return builder.create<plan::UnplannedOp>(
        loc, builder.getStringAttr(symbol), builder.getI64IntegerAttr(index),
        FlatSymbolRefAttr::get(context, job), builder.getStringAttr(plan.name),
        roleAttr, builder.getStringAttr(plan.error));
  plan::StepOp step;
  if (plan.plan) {
    step = buildStepOp(
        builder, loc, symbol, index, job, *plan.plan,
        plan.model.zero != setup.model.zero ? plan.model.zero : -1,
        plan.model.checkpointing != setup.model.checkpointing
            ? std::optional<cost::Checkpointing>(plan.model.checkpointing)
            : std::nullopt);
  } else {
    step = buildPipelinedStepOp(builder, loc, symbol, index, job,
                                *plan.pipelined);
    if (!step)
      return nullptr;
    if (plan.model.zero != setup.model.zero)
      step.setZeroAttr(builder.getI64IntegerAttr(plan.model.zero));
  }
  step.setStrategyAttr(builder.getStringAttr(plan.name));
  step.setRoleAttr(roleAttr);
  const step::GroupLayout &l = plan.layout;
  std::vector<int64_t> degrees{l.ulysses, l.tp, l.cp, l.pp};
  if (l.vpp > 1)
    degrees.push_back(l.vpp);
  step.setLayoutAttr(builder.getDenseI64ArrayAttr(degrees));
  if (!plan.checkpointLabel.empty())
    step.setCheckpointLabelAttr(builder.getStringAttr(plan.checkpointLabel));
  if (plan.solverSeconds > 0)
    step.setSolverTimeAttr(builder.getF64FloatAttr(plan.solverSeconds));
  if (!plan.note.empty())
    step.setNoteAttr(builder.getStringAttr(plan.note));
  return step;
}

baselines::NamedPlan namedPlanOf(Operation *alternative,
                                 const baselines::TrainSetup &setup) {
  baselines::NamedPlan out;
  out.model = setup.model;
  if (auto unplanned = dyn_cast<plan::UnplannedOp>(alternative)) {
    out.name = unplanned.getStrategy().str();
    out.error = unplanned.getReason().str();
    return out;
  }
  auto step = cast<plan::StepOp>(alternative);
  out.name = step.getStrategy() ? step.getStrategy()->str() : "";
  if (std::optional<ArrayRef<int64_t>> l = step.getLayout();
      l && l->size() >= 4) {
    out.layout = {(*l)[0], (*l)[1], (*l)[2], (*l)[3]};
    if (l->size() == 5)
      out.layout.vpp = (*l)[4];
  }
  if (std::optional<int64_t> zero = step.getZero())
    out.model.zero = *zero;
  if (std::optional<plan::Checkpointing> c = step.getCheckpoint())
    out.model = out.model.withCheckpointing(checkpointingOf(*c));
  if (std::optional<StringRef> label = step.getCheckpointLabel())
    out.checkpointLabel = label->str();
  if (std::optional<double> solver = step.getSolverTime())
    out.solverSeconds = *solver;
  if (std::optional<StringRef> note = step.getNote())
    out.note = note->str();
  if (isPipelinedStep(step))
    out.pipelined = pipelinedStepPlanOf(step);
  else
    out.plan = stepPlanOf(step);
  return out;
}

namespace {
/// The job, step index and role of an alternative; false for other ops.
bool alternativeKey(Operation &op, StringRef &job, int64_t &index,
                    plan::Role &role) {
  if (auto step = dyn_cast<plan::StepOp>(op)) {
    if (!step.getRole() || !step.getJob())
      return false;
    job = *step.getJob();
    index = step.getIndex();
    role = *step.getRole();
    return true;
  }
  if (auto unplanned = dyn_cast<plan::UnplannedOp>(op)) {
    job = unplanned.getJob();
    index = unplanned.getIndex();
    role = unplanned.getRole();
    return true;
  }
  return false;
}
} // namespace

std::map<int64_t, StepAlternatives> alternativesOf(ModuleOp module,
                                                   StringRef job) {
  std::map<int64_t, StepAlternatives> out;
  for (Operation &op : *module.getBody()) {
    StringRef j;
    int64_t index = 0;
    plan::Role role;
    if (!alternativeKey(op, j, index, role) || j != job)
      continue;
    StepAlternatives &a = out[index];
    (role == plan::Role::candidate ? a.candidates : a.baselines)
        .push_back(&op);
  }
  return out;
}

void eraseAlternatives(ModuleOp module, StringRef job,
                       std::optional<plan::Role> only) {
  for (Operation &op : llvm::make_early_inc_range(*module.getBody())) {
    StringRef j;
    int64_t index = 0;
    plan::Role role;
    if (alternativeKey(op, j, index, role) && j == job &&
        (!only || role == *only))
      op.erase();
  }
}

} // namespace plexus::train
