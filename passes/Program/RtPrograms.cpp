//===- RtPrograms.cpp - rt.program ops <-> per-rank programs --------------===//
#include "passes/Program/RtPrograms.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <map>
#include <string>

using namespace mlir;

namespace plexus::prog {

rt::CommKind commKindOf(GroupKind kind) {
  switch (kind) {
  case GroupKind::Sp:
    return rt::CommKind::sp;
  case GroupKind::Tp:
    return rt::CommKind::tp;
  case GroupKind::Cp:
    return rt::CommKind::cp;
  case GroupKind::Zero:
    return rt::CommKind::zero;
  case GroupKind::Dp:
    return rt::CommKind::dp;
  }
  return rt::CommKind::dp;
}

GroupKind groupKindOf(rt::CommKind kind) {
  switch (kind) {
  case rt::CommKind::sp:
    return GroupKind::Sp;
  case rt::CommKind::tp:
    return GroupKind::Tp;
  case rt::CommKind::cp:
    return GroupKind::Cp;
  case rt::CommKind::zero:
    return GroupKind::Zero;
  case rt::CommKind::dp:
    return GroupKind::Dp;
  }
  return GroupKind::Dp;
}

LogicalResult writeRtPrograms(OpBuilder &builder, Location loc,
                              const std::vector<Program> &programs) {
  auto i64 = [&](int64_t v) { return builder.getI64IntegerAttr(v); };
  // Every communicator once, as an rt.group, in the order ops first name
  // them; the ops refer to it by name.
  struct Declared {
    rt::CommKind kind;
    const Members *members;
  };
  std::map<std::string, Declared, std::less<>> groups;
  auto declare = [&](const std::string &name, rt::CommKind kind,
                     const Members &members) -> LogicalResult {
    auto [it, fresh] = groups.try_emplace(name, Declared{kind, &members});
    if (fresh) {
      builder.create<rt::GroupOp>(
          loc, builder.getStringAttr(name),
          rt::CommKindAttr::get(builder.getContext(), kind),
          builder.getDenseI64ArrayAttr(members.vec()));
      return success();
    }
    if (it->second.kind != kind || *it->second.members != members)
      return emitError(loc, "lowering: communicator '")
             << name << "' is used with two kinds or member lists";
    return success();
  };
  for (const Program &program : programs)
    for (const prog::Op &op : program.ops) {
      if (op.kind == prog::OpKind::Compute && !op.ulyssesRanks.empty() &&
          failed(declare(op.ulysses, rt::CommKind::sp, op.ulyssesRanks)))
        return failure();
      if (op.kind == prog::OpKind::Collective &&
          op.commKind != prog::CommKind::PointToPoint &&
          failed(declare(op.group, commKindOf(op.groupKind), op.ranks)))
        return failure();
    }
  for (auto [rank, program] : llvm::enumerate(programs)) {
    auto programOp = builder.create<rt::ProgramOp>(
        loc, "rank_" + std::to_string(rank), static_cast<int64_t>(rank));
    if (program.initialMemoryBytes > 0)
      programOp.setResidentAttr(
          builder.getI64IntegerAttr(program.initialMemoryBytes));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(programOp.getBody());
    for (const prog::Op &op : program.ops) {
      switch (op.kind) {
      case prog::OpKind::Compute: {
        rt::ComputeKind kind = op.computeKind == prog::ComputeKind::Bwd
                                   ? rt::ComputeKind::bwd
                               : op.computeKind == prog::ComputeKind::Recompute
                                   ? rt::ComputeKind::recompute
                                   : rt::ComputeKind::fwd;
        auto compute = builder.create<rt::ComputeOp>(
            loc, rt::ComputeKindAttr::get(builder.getContext(), kind),
            builder.getI64IntegerAttr(op.layerBegin),
            builder.getI64IntegerAttr(op.layerEnd),
            builder.getI64IntegerAttr(op.stage),
            builder.getDenseI64ArrayAttr(op.seqs),
            builder.getF64FloatAttr(op.seconds),
            builder.getF64FloatAttr(op.flops),
            op.memoryDeltaBytes != 0
                ? builder.getI64IntegerAttr(op.memoryDeltaBytes)
                : IntegerAttr(),
            op.slices.empty() ? DenseI64ArrayAttr()
                              : builder.getDenseI64ArrayAttr(op.slices),
            FlatSymbolRefAttr());
        if (!op.ulyssesRanks.empty())
          compute.setUlyssesAttr(
              FlatSymbolRefAttr::get(builder.getContext(), op.ulysses));
        break;
      }
      case prog::OpKind::Send:
      case prog::OpKind::Recv: {
        Operation *created =
            op.kind == prog::OpKind::Send
                ? builder
                      .create<rt::SendOp>(
                          loc, i64(op.peer), i64(op.bytes), i64(op.tag),
                          rt::ComputeKindAttr(), DenseI64ArrayAttr(),
                          DenseI64ArrayAttr(),
                          op.async ? builder.getUnitAttr() : UnitAttr())
                      .getOperation()
                : builder
                      .create<rt::RecvOp>(loc, i64(op.peer), i64(op.bytes),
                                          i64(op.tag), rt::ComputeKindAttr(),
                                          DenseI64ArrayAttr(),
                                          DenseI64ArrayAttr())
                      .getOperation();
        if (op.carries) {
          created->setAttr(
              "carries",
              rt::ComputeKindAttr::get(builder.getContext(),
                                       op.computeKind == prog::ComputeKind::Bwd
                                           ? rt::ComputeKind::bwd
                                           : rt::ComputeKind::fwd));
          created->setAttr("seqs", builder.getDenseI64ArrayAttr(op.seqs));
          created->setAttr("slices", builder.getDenseI64ArrayAttr(op.slices));
        }
        break;
      }
      case prog::OpKind::Collective: {
        auto comm = FlatSymbolRefAttr::get(builder.getContext(), op.group);
      auto kind = rt::CommKindAttr::get(builder.getContext(), commKindOf(op.groupKind));
        IntegerAttr bytes = builder.getI64IntegerAttr(op.bytes);
        UnitAttr async = op.async ? builder.getUnitAttr() : UnitAttr();
        Operation *created = nullptr;
        switch (op.commKind) {
        case prog::CommKind::AllToAll:
          created = builder.create<rt::AllToAllOp>(
              loc, kind, comm, bytes, async, IntegerAttr(), IntegerAttr());
          break;
        case prog::CommKind::AllReduce:
          created = builder.create<rt::AllReduceOp>(
              loc, kind, comm, bytes, async, IntegerAttr(), IntegerAttr());
          break;
        case prog::CommKind::AllGather:
          created = builder.create<rt::AllGatherOp>(
              loc, kind, comm, bytes, async, IntegerAttr(), IntegerAttr());
          break;
        case prog::CommKind::ReduceScatter:
          created = builder.create<rt::ReduceScatterOp>(
              loc, kind, comm, bytes, async, IntegerAttr(), IntegerAttr());
          break;
        case prog::CommKind::PointToPoint:
          break;
        }
        if (created && op.carriesLayers) {
          created->setAttr("layer_begin",
                           builder.getI64IntegerAttr(op.layerBegin));
          created->setAttr("layer_end",
                           builder.getI64IntegerAttr(op.layerEnd));
        }
        break;
      }
      case prog::OpKind::Wait:
        builder.create<rt::WaitOp>(loc, op.pending);
        break;
      }
    }
  }
  return success();
}

namespace {

/// Copies a send's or recv's `carries` onto the simulator's op.
void carried(Op &op, std::optional<rt::ComputeKind> kind,
             std::optional<ArrayRef<int64_t>> seqs,
             std::optional<ArrayRef<int64_t>> slices) {
  if (!kind || !seqs || !slices)
    return;
  op.carry(*kind == rt::ComputeKind::bwd ? ComputeKind::Bwd
                                         : ComputeKind::Fwd,
           std::vector<int64_t>(seqs->begin(), seqs->end()),
           std::vector<int64_t>(slices->begin(), slices->end()));
}

} // namespace

FailureOr<RtPrograms> readRtPrograms(ModuleOp module) {
  std::map<int64_t, rt::ProgramOp> byRank;
  for (auto program : module.getOps<rt::ProgramOp>()) {
    auto [it, inserted] = byRank.emplace(program.getRank(), program);
    if (!inserted) {
      InFlightDiagnostic d = program.emitOpError("rank ")
                             << program.getRank() << " has two programs";
      d.attachNote(it->second.getLoc())
          << "the other program of rank " << program.getRank() << " is here";
      return failure();
    }
  }
  RtPrograms result;
  // Each rt.group once: one shared Members per communicator.
  std::map<std::string, Members, std::less<>> groups;
  for (auto group : module.getOps<rt::GroupOp>())
    groups.try_emplace(group.getSymName().str(),
                       std::vector<int64_t>(group.getRanks().begin(),
                                            group.getRanks().end()));
  auto members = [&](Operation *op, StringRef name) -> FailureOr<Members> {
    auto it = groups.find(name);
    if (it == groups.end())
      return op->emitOpError("names communicator @\"")
             << name << "\", which no rt.group of the module declares";
    return it->second;
  };
  int64_t expected = 0;
  for (auto &[rank, program] : byRank) {
    if (rank != expected) {
      program.emitOpError("ranks must number 0..N-1 without gaps: rank ")
          << expected << " has no program";
      return failure();
    }
    ++expected;
    Program p;
    std::vector<Operation *> sources;
    p.initialMemoryBytes = program.getResident().value_or(0);
    for (Operation &op : *program.getBody()) {
      if (auto c = dyn_cast<rt::ComputeOp>(op)) {
        ComputeKind kind = c.getKind() == rt::ComputeKind::bwd
                                    ? ComputeKind::Bwd
                                : c.getKind() == rt::ComputeKind::recompute
                                    ? ComputeKind::Recompute
                                    : ComputeKind::Fwd;
        std::string label = stringifyComputeKind(c.getKind()).str() +
                            " layers " + std::to_string(c.getLayerBegin()) +
                            "-" + std::to_string(c.getLayerEnd());
        Op op =
            Op::compute(label, kind, c.getTime(), c.getMem().value_or(0));
        op.layerBegin = c.getLayerBegin();
        op.layerEnd = c.getLayerEnd();
        op.stage = c.getStage();
        op.seqs.assign(c.getSeqs().begin(), c.getSeqs().end());
        if (std::optional<ArrayRef<int64_t>> slices = c.getSlices())
          op.slices.assign(slices->begin(), slices->end());
        op.flops = c.getFlops().value_or(0);
        if (std::optional<StringRef> ulysses = c.getUlysses()) {
          FailureOr<Members> group = members(c, *ulysses);
          if (failed(group))
            return failure();
          op.ulysses = ulysses->str();
          op.ulyssesRanks = *group;
        }
        p.ops.push_back(std::move(op));
      } else if (auto s = dyn_cast<rt::SendOp>(op)) {
        p.ops.push_back(Op::send(s.getPeer(), s.getBytes(), s.getTag()));
        p.ops.back().async = s.getAsync();
        carried(p.ops.back(), s.getCarries(), s.getSeqs(), s.getSlices());
      } else if (auto r = dyn_cast<rt::RecvOp>(op)) {
        p.ops.push_back(Op::recv(r.getPeer(), r.getBytes(), r.getTag()));
        carried(p.ops.back(), r.getCarries(), r.getSeqs(), r.getSlices());
      } else if (auto coll = dyn_cast<rt::CollectiveOpInterface>(op)) {
        CommKind kind =
            isa<rt::AllToAllOp>(op)        ? CommKind::AllToAll
            : isa<rt::AllGatherOp>(op)     ? CommKind::AllGather
            : isa<rt::ReduceScatterOp>(op) ? CommKind::ReduceScatter
                                           : CommKind::AllReduce;
        FailureOr<Members> group = members(&op, coll.getComm());
        if (failed(group))
          return failure();
        p.ops.push_back(Op::collective(
            kind, groupKindOf(coll.getKind()), coll.getComm().str(), *group,
            coll.getBytes(), op.hasAttr("async")));
        auto begin = op.getAttrOfType<IntegerAttr>("layer_begin");
        auto end = op.getAttrOfType<IntegerAttr>("layer_end");
        if (begin && end)
          p.ops.back().carryLayers(begin.getInt(), end.getInt());
      } else if (auto w = dyn_cast<rt::WaitOp>(op)) {
        p.ops.push_back(Op::wait(w.getPending()));
      }
      if (sources.size() < p.ops.size())
        sources.push_back(&op);
    }
    result.ops.push_back(program);
    result.programs.push_back(std::move(p));
    result.sources.push_back(std::move(sources));
  }
  return result;
}

} // namespace plexus::prog
