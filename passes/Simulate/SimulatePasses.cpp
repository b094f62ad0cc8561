//===- SimulatePasses.cpp - plx-verify-rt and plx-simulate ----------------===//
//
// Thin adapters: read the module's rt.program ops into the simulator's plain
// programs, check the order of split sequences' slices (SliceOrder.h), run
// EventSimulator, and report errors on the ops or attach the results to the
// module.
//
//===----------------------------------------------------------------------===//
#include "passes/Simulate/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "dialects/Rt/IR/RtDialect.h"
#include "passes/Fabric/CollectiveModel.h"
#include "passes/Program/RtPrograms.h"
#include "passes/Fabric/FabricGraph.h"
#include "passes/Simulate/ChromeTrace.h"
#include "passes/Simulate/EventSimulator.h"
#include "passes/Simulate/FabricCommTime.h"
#include "passes/Simulate/SliceOrder.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <tuple>

namespace plexus::sim {
#define GEN_PASS_DEF_VERIFYRTPASS
#define GEN_PASS_DEF_SIMULATEPASS
#include "passes/Simulate/Passes.h.inc"
} // namespace plexus::sim

using namespace mlir;
using namespace plexus;

namespace {

using Programs = prog::RtPrograms;

/// Reports a simulator error on the first program it concerns, with a note
/// on every other program involved.
void reportError(Programs &programs, const sim::SimResult &result,
                 ModuleOp module) {
  std::vector<int64_t> ranks = result.errorRanks;
  if (ranks.empty() || ranks.front() >= (int64_t)programs.ops.size()) {
    module.emitError("the rt programs are not runnable: ") << result.error;
    return;
  }
  InFlightDiagnostic d = programs.ops[ranks.front()].emitOpError()
                         << "violates the plan contract ("
                         << sim::toString(result.errorKind)
                         << "): " << result.error;
  for (size_t i = 1; i < ranks.size(); ++i)
    if (ranks[i] < (int64_t)programs.ops.size())
      d.attachNote(programs.ops[ranks[i]].getLoc())
          << "rank " << ranks[i] << " is involved";
}

/// Reports the first rank whose split sequences run their slices out of
/// order (SliceOrder.h) on the op at fault, with a note on the op it
/// conflicts with.
LogicalResult verifySliceOrder(const Programs &programs) {
  for (size_t r = 0; r < programs.programs.size(); ++r) {
    std::optional<sim::SliceOrderViolation> v =
        sim::checkSliceOrder(programs.programs[r]);
    if (!v)
      continue;
    const std::vector<Operation *> &sources = programs.sources[r];
    InFlightDiagnostic d = sources[v->op]->emitOpError(v->message);
    d.attachNote(sources[v->other]->getLoc()) << v->note;
    return failure();
  }
  return success();
}

/// What a message carries, as text for diagnostics.
std::string carriedText(const sim::Op &op) {
  if (!op.carries)
    return "nothing named";
  auto list = [](const std::vector<int64_t> &v) {
    std::string text = "[";
    for (size_t i = 0; i < v.size(); ++i)
      text += (i ? ", " : "") + std::to_string(v[i]);
    return text + "]";
  };
  return std::string(op.computeKind == sim::ComputeKind::Bwd ? "bwd" : "fwd") +
         " seqs " + list(op.seqs) + " slices " + list(op.slices);
}

/// The k-th send from a to b with tag t meets the k-th receive of b from a
/// with tag t (the simulator's matching); both must say the same about
/// what the message carries.
LogicalResult verifyCarriedMessages(const Programs &programs) {
  using Key = std::tuple<int64_t, int64_t, int64_t>; // from, to, tag
  std::map<Key, std::vector<std::pair<size_t, size_t>>> sends, recvs;
  for (size_t r = 0; r < programs.programs.size(); ++r)
    for (size_t i = 0; i < programs.programs[r].ops.size(); ++i) {
      const sim::Op &op = programs.programs[r].ops[i];
      if (op.kind == sim::OpKind::Send)
        sends[{static_cast<int64_t>(r), op.peer, op.tag}].push_back({r, i});
      else if (op.kind == sim::OpKind::Recv)
        recvs[{op.peer, static_cast<int64_t>(r), op.tag}].push_back({r, i});
    }
  for (auto &[key, list] : sends) {
    auto it = recvs.find(key);
    if (it == recvs.end())
      continue; // an unmatched send is the simulator's to report
    for (size_t k = 0; k < std::min(list.size(), it->second.size()); ++k) {
      auto [sr, si] = list[k];
      auto [rr, ri] = it->second[k];
      const sim::Op &send = programs.programs[sr].ops[si];
      const sim::Op &recv = programs.programs[rr].ops[ri];
      if (send.carries == recv.carries &&
          (!send.carries ||
           (send.computeKind == recv.computeKind && send.seqs == recv.seqs &&
            send.slices == recv.slices)))
        continue;
      InFlightDiagnostic d = programs.sources[rr][ri]->emitOpError("receives ")
                             << carriedText(recv)
                             << " but the matching send carries "
                             << carriedText(send);
      d.attachNote(programs.sources[sr][si]->getLoc()) << "the send is here";
      return failure();
    }
  }
  return success();
}

/// With an rt.batch, every sequence id and slice index the programs name
/// exists in it.
LogicalResult verifyAgainstBatch(ModuleOp module, const Programs &programs) {
  auto batches = llvm::to_vector(module.getOps<rt::BatchOp>());
  if (batches.empty())
    return success();
  rt::BatchOp batch = batches.front();
  const int64_t count = static_cast<int64_t>(batch.getLengths().size());
  for (size_t r = 0; r < programs.programs.size(); ++r)
    for (size_t i = 0; i < programs.programs[r].ops.size(); ++i) {
      const sim::Op &op = programs.programs[r].ops[i];
      for (size_t j = 0; j < op.seqs.size(); ++j) {
        if (op.seqs[j] >= count)
          return programs.sources[r][i]->emitOpError("names sequence ")
                 << op.seqs[j] << " but the batch has " << count;
        int64_t slice = j < op.slices.size() ? op.slices[j] : 0;
        if (slice >= batch.sliceCount(op.seqs[j]))
          return programs.sources[r][i]->emitOpError("names slice ")
                 << slice << " of sequence " << op.seqs[j]
                 << ", which the batch cuts into "
                 << batch.sliceCount(op.seqs[j]) << " slice(s)";
      }
    }
  return success();
}

struct VerifyRtPass : sim::impl::VerifyRtPassBase<VerifyRtPass> {
  void runOnOperation() override {
    FailureOr<Programs> programs = prog::readRtPrograms(getOperation());
    if (failed(programs))
      return signalPassFailure();
    if (failed(verifySliceOrder(*programs)) ||
        failed(verifyCarriedMessages(*programs)) ||
        failed(verifyAgainstBatch(getOperation(), *programs)))
      return signalPassFailure();
    sim::SimOptions options;
    options.commTime = [](const sim::CommRequest &) {
      return sim::CommTime(0.0);
    };
    sim::SimResult result = sim::simulate(programs->programs, options);
    if (!result.ok()) {
      reportError(*programs, result, getOperation());
      return signalPassFailure();
    }
  }
};

struct SimulatePass : sim::impl::SimulatePassBase<SimulatePass> {
  using SimulatePassBase::SimulatePassBase;

  /// The chips plx-place gave the ranks of plan.job @jobName, and its
  /// fabric built as a graph.
  LogicalResult placedChips(ModuleOp module, size_t ranks,
                            fabric::FabricGraph &graph,
                            std::vector<fabric::ChipRef> &chips,
                            fabric::CollectiveParams &params, double &peak,
                            cost::Overlap &overlap) {
    auto job = dyn_cast_or_null<plan::JobOp>(
        SymbolTable::lookupSymbolIn(module, jobName));
    if (!job)
      return module.emitError("plx-simulate: no plan.job named '")
             << jobName << "'";
    if (!job.getChips())
      return job.emitOpError("has no chips: run plx-place first");
    if (job.getRanks() != static_cast<int64_t>(ranks))
      return job.emitOpError("has ")
             << job.getRanks() << " ranks but the module has " << ranks
             << " rt programs";
    auto fabricOp = dyn_cast_or_null<plx::FabricOp>(
        SymbolTable::lookupSymbolIn(module, job.getFabricAttr()));
    if (!fabricOp)
      return job.emitOpError("names no plx.fabric in the module");
    fabric::FabricBuildResult built =
        graph.build(fabricOp.getTopologyShape(), fabricOp.getNodes(),
                    fabricOp.getChipsPerNode());
    if (!built.ok())
      return fabricOp.emitOpError("cannot build the fabric: ")
             << built.problems.front().message;
    params.intraNodeBandwidth =
        static_cast<double>(fabricOp.getIntraNodeBandwidth());
    if (peak == 0)
      peak = fabricOp.getChip().getBf16Flops();
    overlap = cost::Overlap::of(fabricOp.getChip().toChipSpec());
    for (int64_t r = 0; r < job.getRanks(); ++r) {
      auto [node, local] = job.chipOf(r);
      chips.push_back({node, local});
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!(linkBandwidth > 0) || !(latency >= 0)) {
      module.emitError(
          "plx-simulate needs link-bandwidth > 0 and latency >= 0");
      return signalPassFailure();
    }
    FailureOr<Programs> programs = prog::readRtPrograms(module);
    if (failed(programs))
      return signalPassFailure();
    sim::SimOptions options;
    fabric::FabricGraph graph;
    std::vector<fabric::ChipRef> chips;
    fabric::CollectiveParams params;
    double peak = peakFlops;
    if (!(peak >= 0)) {
      module.emitError("plx-simulate needs peak-flops >= 0");
      return signalPassFailure();
    }
    if (!jobName.empty()) {
      if (failed(placedChips(module, programs->programs.size(), graph, chips,
                             params, peak, options.overlap)))
        return signalPassFailure();
      if (!(commEfficiency > 0) || commEfficiency > 1) {
        module.emitError("plx-simulate needs 0 < comm-efficiency <= 1");
        return signalPassFailure();
      }
      sim::FabricCommOptions fabricOptions;
      fabricOptions.efficiency = commEfficiency;
      fabricOptions.contention = contention;
      options.commTime =
          sim::fabricCommTime(graph, chips, params, fabricOptions);
    } else {
      const double bw = linkBandwidth, alpha = latency;
      options.commTime = [bw, alpha](const sim::CommRequest &r) {
        double p = static_cast<double>(r.ranks.size());
        double s = static_cast<double>(r.bytes);
        switch (r.kind) {
        case sim::CommKind::PointToPoint:
          return sim::CommTime(alpha + s / bw);
        case sim::CommKind::AllReduce:
          return sim::CommTime(
              p <= 1 ? 0.0 : 2 * (p - 1) / p * s / bw + 2 * (p - 1) * alpha);
        case sim::CommKind::AllGather:
          s *= p; // the op's bytes are one rank's part of the result
          [[fallthrough]];
        default:
          return sim::CommTime(p <= 1 ? 0.0
                                      : (p - 1) / p * s / bw + (p - 1) * alpha);
        }
      };
    }
    const double flops = prog::totalComputeFlops(programs->programs);
    options.totalFlops = flops;
    if (peak > 0)
      options.peakFlopsPerRank = peak;
    sim::SimResult result = sim::simulate(programs->programs, options);
    if (!result.ok()) {
      reportError(*programs, result, module);
      return signalPassFailure();
    }
    Builder b(module.getContext());
    module->setAttr("plx.sim.flops", b.getF64FloatAttr(flops));
    if (result.mfu)
      module->setAttr("plx.sim.mfu", b.getF64FloatAttr(*result.mfu));
    module->setAttr("plx.sim.step_time", b.getF64FloatAttr(result.stepSeconds));
    module->setAttr("plx.sim.bubble_fraction",
                    b.getF64FloatAttr(result.bubbleFraction()));
    for (auto [program, rank] : llvm::zip(programs->ops, result.ranks)) {
      program->setAttr("plx.sim.compute_time",
                       b.getF64FloatAttr(rank.computeSeconds));
      program->setAttr("plx.sim.comm_time",
                       b.getF64FloatAttr(rank.commSeconds));
      program->setAttr("plx.sim.overlapped_comm_time",
                       b.getF64FloatAttr(rank.overlappedCommSeconds));
      program->setAttr("plx.sim.idle_time",
                       b.getF64FloatAttr(rank.idleSeconds));
      program->setAttr("plx.sim.peak_mem",
                       b.getI64IntegerAttr(rank.peakMemoryBytes));
    }
    if (!tracePath.empty()) {
      std::string error = sim::writeChromeTrace(result, tracePath);
      if (!error.empty()) {
        module.emitError("cannot write the trace: ") << error;
        return signalPassFailure();
      }
    }
  }
};

} // namespace
