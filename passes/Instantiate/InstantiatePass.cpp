//===- InstantiatePass.cpp - plx-instantiate: plan.job per spec job -------===//
//
// A thin adapter: reads each job's strategy and fabric, asks JobGroups.h for
// the communicators of its layout, and writes a plan.job.
//
//===----------------------------------------------------------------------===//
#include "passes/Instantiate/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Instantiate/JobGroups.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace plexus::instantiate {
#define GEN_PASS_DEF_INSTANTIATEPASS
#include "passes/Instantiate/Passes.h.inc"
} // namespace plexus::instantiate

using namespace mlir;
using namespace plexus;

namespace {

plan::CommKind toKind(instantiate::GroupKind kind) {
  switch (kind) {
  case instantiate::GroupKind::AllToAll:
    return plan::CommKind::all_to_all;
  case instantiate::GroupKind::Ring:
    return plan::CommKind::ring;
  case instantiate::GroupKind::Pipeline:
    return plan::CommKind::pipeline;
  }
  return plan::CommKind::ring;
}

struct InstantiatePass
    : instantiate::impl::InstantiatePassBase<InstantiatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> jobs;
    for (Operation &op : module.getBody()->getOperations())
      if (isa<plx::TrainOp, plx::ServeOp>(op))
        jobs.push_back(&op);
    for (Operation *op : jobs)
      if (failed(instantiate(module, op)))
        return signalPassFailure();
  }

  LogicalResult instantiate(ModuleOp module, Operation *op) {
    instantiate::GroupsResult groups;
    plx::FabricOp fabric;
    std::string name;
    int64_t ranks = 0;
    if (auto train = dyn_cast<plx::TrainOp>(op)) {
      name = train.getSymName().str();
      fabric = dyn_cast_or_null<plx::FabricOp>(
          SymbolTable::lookupSymbolIn(module, train.getFabricAttr()));
      auto model = dyn_cast_or_null<plx::ModelOp>(
          SymbolTable::lookupSymbolIn(module, train.getModelAttr()));
      if (!fabric || !model)
        return op->emitOpError("needs its model and fabric in the module");
      ranks = train.getJobChips(fabric);
      plx::TrainStrategyAttr s = train.getStrategy();
      instantiate::TrainLayout layout;
      layout.ranks = ranks;
      layout.tensor = s.getTp() * s.getCp();
      layout.sp = s.getSp() == plx::SpMode::static_
                      ? s.getSpDegree()
                      : instantiate::nodeLocalSpDegree(
                            fabric.getChipsPerNode(),
                            model.getShape().getHeads(), ranks, layout.tensor);
      layout.pp = s.getPp() == plx::PpMode::static_ ? s.getPpDegree() : 1;
      groups = instantiate::trainGroups(layout);
    } else {
      auto serve = cast<plx::ServeOp>(op);
      name = serve.getSymName().str();
      fabric = dyn_cast_or_null<plx::FabricOp>(
          SymbolTable::lookupSymbolIn(module, serve.getFabricAttr()));
      if (!fabric)
        return op->emitOpError("needs its fabric in the module");
      ranks = serve.getJobChips(fabric);
      // When the planner chooses pp or ep, the communicators are not known
      // before it runs: the job gets none (plan.serve_layout carries the
      // layout the planner chose), rather than groups of a guessed layout.
      const int64_t ep = serve.getStrategy().getEp();
      const int64_t pp = serve.getStrategy().getPp();
      const bool chosen = ep == 0 || pp == 0;
      groups =
          instantiate::serveGroups({ranks, chosen ? 1 : ep, chosen ? 1 : pp});
    }
    if (!groups.ok())
      return op->emitOpError("has no rank layout: ") << groups.error;

    std::string jobName = name + "_job";
    if (SymbolTable::lookupSymbolIn(module, jobName))
      return success(); // already instantiated
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    auto job =
        b.create<plan::JobOp>(op->getLoc(), b.getStringAttr(jobName),
                              FlatSymbolRefAttr::get(fabric.getSymNameAttr()),
                              b.getI64IntegerAttr(ranks), DenseI64ArrayAttr());
    Block *body = b.createBlock(&job.getBodyRegion());
    b.setInsertionPointToEnd(body);
    for (const instantiate::JobGroup &g : groups.groups)
      b.create<plan::CommGroupOp>(
          op->getLoc(), b.getStringAttr(g.name),
          plan::CommKindAttr::get(b.getContext(), toKind(g.kind)),
          b.getDenseI64ArrayAttr(g.ranks), DenseI64ArrayAttr(), IntegerAttr());
    return success();
  }
};

} // namespace
