//===- RtProgramsTest.cpp - rt IR <-> programs, both ways -----------------===//
//
// The one conversion between plain programs and rt.program ops: every op
// kind and every field written by writeRtPrograms is read back equal by
// readRtPrograms (a compute op's label, a display name rt does not hold,
// is rebuilt from its kind and layers), and the module verifies.
//
//===----------------------------------------------------------------------===//
#include "passes/Program/RtPrograms.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::prog;

namespace {

/// An empty module with the rt dialect, a builder at its end.
struct RtModule {
  mlir::MLIRContext context;
  mlir::OpBuilder builder{&context};
  mlir::Location loc = builder.getUnknownLoc();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  RtModule() {
    context.loadDialect<rt::RtDialect>();
    builder.setInsertionPointToEnd(module->getBody());
  }
};

/// Two ranks that between them hold every op kind and optional field.
std::vector<Program> everyKindOfOp() {
  std::vector<Program> programs(2);
  for (int64_t r = 0; r < 2; ++r) {
    Program &p = programs[static_cast<size_t>(r)];
    p.initialMemoryBytes = r == 0 ? 4096 : 0;
    Op fwd = Op::compute("fwd mb0", ComputeKind::Fwd, 0.25, 1024);
    fwd.layerBegin = 0;
    fwd.layerEnd = 2;
    fwd.stage = r;
    fwd.seqs = {3, 5};
    fwd.slices = {0, 1};
    fwd.flops = 1.5e12;
    fwd.ulysses = "sp:0-1"; // the all-to-all's group, in its ring order
    fwd.ulyssesRanks = {1, 0};
    p.ops.push_back(fwd);
    Op rec = Op::compute("rec", ComputeKind::Recompute, 0.125);
    rec.seqs = {3};
    p.ops.push_back(rec);
    Op bwd = Op::compute("bwd", ComputeKind::Bwd, 0.5, -1024);
    bwd.seqs = {3};
    p.ops.push_back(bwd);
    const int64_t peer = 1 - r;
    Op send = Op::send(peer, 64, 7);
    send.carry(ComputeKind::Fwd, {3}, {1});
    Op recv = Op::recv(peer, 64, 7);
    recv.carry(ComputeKind::Fwd, {3}, {1});
    if (r == 0) {
      p.ops.push_back(send);
      p.ops.push_back(Op::recv(peer, 32, 8));
    } else {
      p.ops.push_back(recv);
      p.ops.push_back(Op::send(peer, 32, 8));
    }
    const std::vector<int64_t> both = {1, 0};
    p.ops.push_back(Op::collective(CommKind::AllToAll, GroupKind::Sp,
                                   "sp:0-1", both, 16));
    p.ops.push_back(Op::collective(CommKind::AllReduce, GroupKind::Tp,
                                   "tp:0-1", both, 16));
    p.ops.push_back(Op::collective(CommKind::AllGather, GroupKind::Cp,
                                   "cp:0-1", both, 16));
    Op gather = Op::collective(CommKind::AllGather, GroupKind::Zero,
                               "zero:0-1", both, 32, /*async=*/true);
    gather.carryLayers(0, 2);
    p.ops.push_back(gather);
    p.ops.push_back(Op::wait(0));
    Op sync = Op::collective(CommKind::ReduceScatter, GroupKind::Dp,
                             "dp:0-1", both, 32);
    sync.carryLayers(0, 2);
    p.ops.push_back(sync);
  }
  return programs;
}

void expectSameOp(const Op &a, const Op &b, const std::string &where) {
  EXPECT_EQ(a.kind, b.kind) << where;
  EXPECT_EQ(a.computeKind, b.computeKind) << where;
  EXPECT_EQ(a.seconds, b.seconds) << where;
  EXPECT_EQ(a.memoryDeltaBytes, b.memoryDeltaBytes) << where;
  EXPECT_EQ(a.seqs, b.seqs) << where;
  EXPECT_EQ(a.slices, b.slices) << where;
  EXPECT_EQ(a.flops, b.flops) << where;
  EXPECT_EQ(a.ulysses, b.ulysses) << where;
  EXPECT_EQ(a.ulyssesRanks, b.ulyssesRanks) << where;
  EXPECT_EQ(a.peer, b.peer) << where;
  EXPECT_EQ(a.tag, b.tag) << where;
  EXPECT_EQ(a.carries, b.carries) << where;
  EXPECT_EQ(a.carriesLayers, b.carriesLayers) << where;
  EXPECT_EQ(a.bytes, b.bytes) << where;
  EXPECT_EQ(a.commKind, b.commKind) << where;
  EXPECT_EQ(a.groupKind, b.groupKind) << where;
  EXPECT_EQ(a.group, b.group) << where;
  EXPECT_EQ(a.ranks, b.ranks) << where;
  EXPECT_EQ(a.async, b.async) << where;
  EXPECT_EQ(a.pending, b.pending) << where;
  if (a.kind == OpKind::Compute || a.carriesLayers) {
    EXPECT_EQ(a.layerBegin, b.layerBegin) << where;
    EXPECT_EQ(a.layerEnd, b.layerEnd) << where;
  }
  if (a.kind == OpKind::Compute) {
    EXPECT_EQ(a.stage, b.stage) << where;
  }
}

TEST(RtPrograms, EveryFieldSurvivesARoundTrip) {
  RtModule m;
  mlir::OpBuilder &builder = m.builder;
  mlir::Location loc = m.loc;
  mlir::OwningOpRef<mlir::ModuleOp> &module = m.module;
  const std::vector<Program> written = everyKindOfOp();
  ASSERT_TRUE(mlir::succeeded(writeRtPrograms(builder, loc, written)));
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*module)));

  mlir::FailureOr<RtPrograms> read = readRtPrograms(*module);
  ASSERT_TRUE(mlir::succeeded(read));
  ASSERT_EQ(read->programs.size(), written.size());
  for (size_t r = 0; r < written.size(); ++r) {
    const Program &a = written[r], &b = read->programs[r];
    EXPECT_EQ(a.initialMemoryBytes, b.initialMemoryBytes);
    ASSERT_EQ(a.ops.size(), b.ops.size());
    ASSERT_EQ(read->sources[r].size(), b.ops.size());
    for (size_t i = 0; i < a.ops.size(); ++i)
      expectSameOp(a.ops[i], b.ops[i],
                   "rank " + std::to_string(r) + " op " + std::to_string(i));
    EXPECT_EQ(read->ops[r].getRank(), static_cast<int64_t>(r));
  }
  // The label is rebuilt from what rt holds.
  EXPECT_EQ(read->programs[0].ops[0].label, "fwd layers 0-2");
  // The kind travels as rt's typed attribute, not in the name.
  std::vector<GroupKind> expected, seen;
  for (const Program &p : written)
    for (const Op &op : p.ops)
      if (op.kind == OpKind::Collective)
        expected.push_back(op.groupKind);
  module->walk([&](rt::CollectiveOpInterface c) {
    seen.push_back(groupKindOf(c.getKind()));
  });
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(seen.size(), 2u * 5u);
}

// Each communicator is one rt.group, declared before the programs in the
// order ops first name it; the ops name it and list no members: the two
// programs of everyKindOfOp use five communicators ("sp:0-1" by the
// Ulysses forward and the all-to-all alike).
TEST(RtPrograms, EachCommunicatorIsOneGroup) {
  RtModule m;
  mlir::OpBuilder &builder = m.builder;
  mlir::Location loc = m.loc;
  mlir::OwningOpRef<mlir::ModuleOp> &module = m.module;
  ASSERT_TRUE(
      mlir::succeeded(writeRtPrograms(builder, loc, everyKindOfOp())));
  std::vector<std::string> names;
  for (auto group : module->getOps<rt::GroupOp>()) {
    names.push_back(group.getSymName().str());
    EXPECT_EQ(group.getRanks(), llvm::ArrayRef<int64_t>({1, 0}));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"sp:0-1", "tp:0-1", "cp:0-1",
                                             "zero:0-1", "dp:0-1"}));
  // Every group comes before the first program.
  mlir::Operation *first = &module->getBody()->front();
  EXPECT_TRUE(mlir::isa<rt::GroupOp>(first));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find("group sp @\"sp:0-1\" bytes 16"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("[1, 0] bytes"), std::string::npos) << text;
}

// One name with two member lists is a lowering bug: an error, not two
// groups or a silent pick.
TEST(RtPrograms, OneNameWithTwoMemberListsIsAnError) {
  RtModule m;
  mlir::MLIRContext &context = m.context;
  mlir::OpBuilder &builder = m.builder;
  mlir::Location loc = m.loc;
  std::vector<Program> programs = everyKindOfOp();
  programs[1].ops.front().ulyssesRanks = {0, 1};
  std::string error;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    error = d.str();
    return mlir::success();
  });
  EXPECT_TRUE(mlir::failed(writeRtPrograms(builder, loc, programs)));
  EXPECT_NE(error.find("communicator 'sp:0-1' is used with two kinds or "
                       "member lists"),
            std::string::npos)
      << error;
}

TEST(RtPrograms, GroupKindsMapOneToOne) {
  for (GroupKind k : {GroupKind::Sp, GroupKind::Tp, GroupKind::Cp,
                      GroupKind::Zero, GroupKind::Dp}) {
    EXPECT_EQ(groupKindOf(commKindOf(k)), k);
    EXPECT_EQ(rt::stringifyCommKind(commKindOf(k)), toString(k));
  }
}

TEST(RtPrograms, ARankWithoutAProgramIsAnError) {
  RtModule m;
  mlir::MLIRContext &context = m.context;
  mlir::OpBuilder &builder = m.builder;
  mlir::Location loc = m.loc;
  mlir::OwningOpRef<mlir::ModuleOp> &module = m.module;
  std::vector<Program> programs(2);
  ASSERT_TRUE(mlir::succeeded(writeRtPrograms(builder, loc, programs)));
  // Renumber rank 0 as rank 2: ranks 1 and 2, rank 0 missing.
  (*module->getOps<rt::ProgramOp>().begin())
      .setRankAttr(builder.getI64IntegerAttr(2));
  std::string error;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    error = d.str();
    return mlir::success();
  });
  EXPECT_TRUE(mlir::failed(readRtPrograms(*module)));
  EXPECT_NE(error.find("rank 0 has no program"), std::string::npos) << error;
}

} // namespace
