//===- RtPrograms.h - rt.program ops <-> per-rank programs ------*- C++ -*-===//
//
// The one conversion between rt IR and the plain programs of Program.h, both
// ways: plx-lower-to-rt writes the lowering's programs with
// writeRtPrograms, plx-verify-rt and plx-simulate read a module's programs
// back with readRtPrograms. Every field of an op travels; a compute op's
// label (a display name, not part of rt) is rebuilt on reading as
// "<kind> layers <a>-<b>". A round trip is tested in
// test/unit/Program/RtProgramsTest.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_PROGRAM_RTPROGRAMS_H
#define PLEXUS_PASSES_PROGRAM_RTPROGRAMS_H

#include "dialects/Rt/IR/RtDialect.h"
#include "passes/Program/Program.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace plexus::prog {

/// rt's communicator kind of a program's group kind, and back.
rt::CommKind commKindOf(GroupKind kind);
GroupKind groupKindOf(rt::CommKind kind);

/// Writes one rt.group per communicator the programs use (in the order
/// they first name them), then one rt.program per entry of `programs`
/// (rank = index), at the builder's insertion point. An error at `loc` when
/// one communicator name is used with two kinds or member lists.
mlir::LogicalResult writeRtPrograms(mlir::OpBuilder &builder,
                                    mlir::Location loc,
                                    const std::vector<Program> &programs);

/// A module's programs indexed by rank, as plain programs, with the rt op
/// each plain op was read from.
struct RtPrograms {
  std::vector<rt::ProgramOp> ops;
  std::vector<Program> programs;
  std::vector<std::vector<mlir::Operation *>> sources;
};

/// Reads every rt.program of `module`; ranks must be distinct and number
/// 0..N-1 (an error on the offending op otherwise).
mlir::FailureOr<RtPrograms> readRtPrograms(mlir::ModuleOp module);

} // namespace plexus::prog

#endif // PLEXUS_PASSES_PROGRAM_RTPROGRAMS_H
