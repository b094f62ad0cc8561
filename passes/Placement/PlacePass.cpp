//===- PlacePass.cpp - plx-place: a thin adapter around placeJobs ---------===//
//
// Reads each plx.fabric and the plan.jobs that run on it, calls the plain
// C++ placement (Placement.h), and writes the decisions back: chips on the
// job, ring order and hops on each communicator, and the circuit table of a
// RailX fabric as plan.circuits.
//
//===----------------------------------------------------------------------===//
#include "passes/Placement/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "passes/Fabric/FabricGraph.h"
#include "passes/Placement/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace plexus::placement {
#define GEN_PASS_DEF_PLACEPASS
#include "passes/Placement/Passes.h.inc"
} // namespace plexus::placement

using namespace mlir;
using namespace plexus;

namespace {

/// The job's name as the spec writes it: plan.job @t_job is train `t`.
std::string jobNameOf(plan::JobOp job) {
  llvm::StringRef name = job.getSymName();
  name.consume_back("_job");
  return name.str();
}

placement::CommKind toCommKind(plan::CommKind kind) {
  switch (kind) {
  case plan::CommKind::all_to_all:
    return placement::CommKind::AllToAll;
  case plan::CommKind::ring:
    return placement::CommKind::Ring;
  case plan::CommKind::pipeline:
    return placement::CommKind::Pipeline;
  }
  return placement::CommKind::Ring;
}

struct PlacePass : placement::impl::PlacePassBase<PlacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Jobs grouped by fabric, in module order (placement is deterministic
    // and jobs are placed in request order).
    SmallVector<plx::FabricOp> fabrics;
    for (auto fabricOp : module.getOps<plx::FabricOp>())
      fabrics.push_back(fabricOp);
    for (plx::FabricOp fabricOp : fabrics)
      if (failed(placeOn(module, fabricOp)))
        return signalPassFailure();
  }

  LogicalResult placeOn(ModuleOp module, plx::FabricOp fabricOp) {
    SmallVector<plan::JobOp> jobs;
    for (auto job : module.getOps<plan::JobOp>())
      if (job.getFabric() == fabricOp.getSymName())
        jobs.push_back(job);

    fabric::FabricGraph graph;
    fabric::FabricBuildResult built =
        graph.build(fabricOp.getTopologyShape(), fabricOp.getNodes(),
                    fabricOp.getChipsPerNode());
    if (!built.ok())
      return fabricOp.emitOpError("cannot build the fabric: ")
             << built.problems.front().message;
    placement::Faults faults = fabricOp.getFaults();

    if (!jobs.empty()) {
      std::vector<placement::JobRequest> requests;
      for (plan::JobOp job : jobs) {
        placement::JobRequest request;
        request.name = jobNameOf(job);
        request.rankCount = job.getRanks();
        for (auto group : job.getBodyRegion().getOps<plan::CommGroupOp>())
          request.communicators.push_back(
              {group.getSymName().str(), toCommKind(group.getKind()),
               std::vector<int64_t>(group.getRanks().begin(),
                                    group.getRanks().end())});
        requests.push_back(std::move(request));
      }
      placement::PlacementResult result =
          placement::placeJobs(graph, requests, faults);
      if (!result.ok()) {
        for (const placement::PlacementError &e : result.errors) {
          Operation *at = fabricOp;
          for (plan::JobOp job : jobs)
            if (jobNameOf(job) == e.job)
              at = job;
          at->emitError("no placement on fabric '")
              << fabricOp.getSymName() << "': " << e.message;
        }
        return failure();
      }
      Builder b(module.getContext());
      for (auto [job, placed] : llvm::zip(jobs, result.jobs)) {
        SmallVector<int64_t> chips;
        for (const placement::Chip &c : placed.chips)
          chips.append({c.node, c.local});
        job.setChipsAttr(b.getDenseI64ArrayAttr(chips));
        auto groups = job.getBodyRegion().getOps<plan::CommGroupOp>();
        for (auto [group, comm] : llvm::zip(groups, placed.communicators)) {
          group.setOrderAttr(b.getDenseI64ArrayAttr(comm.ringOrder));
          group.setHopsAttr(b.getI64IntegerAttr(comm.maxHops));
        }
      }
    }

    if (fabricOp.getTopologyShape().kind == fabric::TopologyKind::RailX)
      return writeCircuits(module, fabricOp, graph, faults);
    return success();
  }

  LogicalResult writeCircuits(ModuleOp module, plx::FabricOp fabricOp,
                              const fabric::FabricGraph &graph,
                              const placement::Faults &faults) {
    placement::CircuitTableResult table =
        placement::buildCircuitTable(graph, faults);
    if (!table.ok())
      return fabricOp.emitOpError("cannot build the circuit table: ")
             << table.errors.front().message;
    std::string name = (fabricOp.getSymName() + "_circuits").str();
    if (Operation *old = SymbolTable::lookupSymbolIn(module, name))
      old->erase();
    OpBuilder b(fabricOp->getContext());
    b.setInsertionPointAfter(fabricOp);
    auto circuits = b.create<plan::CircuitsOp>(fabricOp.getLoc(), name);
    Block *body = b.createBlock(&circuits.getBodyRegion());
    b.setInsertionPointToEnd(body);
    for (const placement::CircuitEntry &e : table.entries)
      b.create<plan::CircuitOp>(
          fabricOp.getLoc(),
          e.axis == placement::OcsAxis::Row ? plan::RailAxis::row
                                            : plan::RailAxis::col,
          e.index, e.rail, e.cycle, b.getDenseI64ArrayAttr(e.portPermutation));
    return success();
  }
};

} // namespace
