//===- RtOps.cpp - Ops of the rt (per-rank programs) dialect --------------===//
//
// Builders, the custom directives and the verifiers of the rt ops.
// Each verifier checks one op against itself and the rank of its program;
// rules that span programs belong to the plx-verify-rt pass.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/DecimalFormat.h"
#include "dialects/Rt/IR/RtDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir;
using namespace plexus::rt;

//===----------------------------------------------------------------------===//
// Short decimals (dialects/Common/DecimalFormat.h)
//===----------------------------------------------------------------------===//

// Times in messages print as short decimals.
static std::string formatDecimal(double value) {
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : (value < 0 ? "-inf" : "inf");
  return plexus::dialects::formatShortestDecimal(value);
}

//===----------------------------------------------------------------------===//
// custom<TimeAndExtras>: rt.compute's time, then optional `flops`, `mem`,
// `slices`
//===----------------------------------------------------------------------===//

static ParseResult parseTimeAndExtras(OpAsmParser &parser, FloatAttr &time,
                                      FloatAttr &flops, IntegerAttr &mem,
                                      DenseI64ArrayAttr &slices) {
  if (plexus::dialects::parseDecimalAttr(parser, time))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("flops")))
    if (plexus::dialects::parseDecimalAttr(parser, flops))
      return failure();
  if (succeeded(parser.parseOptionalKeyword("mem"))) {
    int64_t value = 0;
    if (parser.parseInteger(value))
      return failure();
    mem = parser.getBuilder().getI64IntegerAttr(value);
  }
  if (succeeded(parser.parseOptionalKeyword("slices"))) {
    Attribute parsed = DenseI64ArrayAttr::parse(parser, Type());
    if (!parsed)
      return failure();
    slices = llvm::cast<DenseI64ArrayAttr>(parsed);
  }
  return success();
}

static void printTimeAndExtras(OpAsmPrinter &printer, Operation *,
                               FloatAttr time, FloatAttr flops, IntegerAttr mem,
                               DenseI64ArrayAttr slices) {
  plexus::dialects::printDecimalAttr(printer, time);
  if (flops) {
    printer << " flops ";
    plexus::dialects::printDecimalAttr(printer, flops);
  }
  if (mem)
    printer << " mem " << mem.getValue().getSExtValue();
  if (slices) {
    printer << " slices ";
    slices.print(printer);
  }
}

//===----------------------------------------------------------------------===//
// custom<ComputeKind>: the kind as a bare keyword
//===----------------------------------------------------------------------===//

// The attribute's own printer starts with a space (it is written for the
// `#rt<compute_kind fwd>` form), which would double the space after the op
// name; this directive prints just the keyword.

static ParseResult parseComputeKind(OpAsmParser &parser,
                                    ComputeKindAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ComputeKind> kind = symbolizeComputeKind(keyword);
  if (!kind)
    return parser.emitError(loc, "expected fwd, bwd or recompute, got '")
           << keyword << "'";
  attr = ComputeKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printComputeKind(OpAsmPrinter &printer, Operation *,
                             ComputeKindAttr attr) {
  printer << stringifyComputeKind(attr.getValue());
}

#define GET_OP_CLASSES
#include "dialects/Rt/IR/RtOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// The rank of the program `op` sits in; none when it sits elsewhere (the
/// HasParent trait reports that before the op's own verifier runs).
static std::optional<int64_t> programRank(Operation *op) {
  if (auto program = dyn_cast_or_null<ProgramOp>(op->getParentOp()))
    return program.getRank();
  return std::nullopt;
}

static LogicalResult verifyBytes(Operation *op, int64_t bytes) {
  if (bytes >= 0)
    return success();
  return op->emitOpError("bytes must be non-negative, got ") << bytes;
}

/// "[a, b, c]", the way the assembly spells a group.
static std::string rankList(ArrayRef<int64_t> ranks) {
  std::string text = "[";
  for (auto [i, rank] : llvm::enumerate(ranks))
    text += (i ? ", " : "") + std::to_string(rank);
  return text + "]";
}

/// The rules every collective shares. `evenBlocks`: the op cuts each buffer
/// into one block per rank, so the size must divide evenly.
static LogicalResult verifyCollective(Operation *op, StringRef comm,
                                      ArrayRef<int64_t> group, int64_t bytes,
                                      bool evenBlocks) {
  if (comm.empty())
    return op->emitOpError("communicator name must not be empty");
  if (group.empty())
    return op->emitOpError("communicator group is empty");
  for (int64_t rank : group)
    if (rank < 0)
      return op->emitOpError("group rank must be non-negative, got ") << rank;
  SmallVector<int64_t> sorted(group);
  llvm::sort(sorted);
  auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeat != sorted.end())
    return op->emitOpError("rank ") << *repeat << " appears twice in the group";
  if (std::optional<int64_t> own = programRank(op))
    if (!llvm::is_contained(group, *own))
      return op->emitOpError("group ")
             << rankList(group) << " does not include the program's rank "
             << *own;
  if (failed(verifyBytes(op, bytes)))
    return failure();
  if (evenBlocks && bytes % static_cast<int64_t>(group.size()) != 0)
    return op->emitOpError("bytes (")
           << bytes << ") must be a multiple of the group size ("
           << group.size() << ")";
  return success();
}

/// The rules rt.send and rt.recv share. `selfMessage` says why the peer may
/// not be the program's own rank.
static LogicalResult verifyPointToPoint(Operation *op, StringRef selfMessage,
                                        int64_t peer, int64_t bytes,
                                        int64_t tag) {
  if (peer < 0)
    return op->emitOpError("peer rank must be non-negative, got ") << peer;
  if (std::optional<int64_t> own = programRank(op))
    if (peer == *own)
      return op->emitOpError("peer ")
             << peer << " is the program's own rank; " << selfMessage;
  if (failed(verifyBytes(op, bytes)))
    return failure();
  if (tag < 0)
    return op->emitOpError("tag must be non-negative, got ") << tag;
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

void ProgramOp::build(OpBuilder &builder, OperationState &state,
                      StringRef symName, int64_t rank) {
  Properties &props = state.getOrAddProperties<Properties>();
  props.sym_name = builder.getStringAttr(symName);
  props.rank = builder.getI64IntegerAttr(rank);
  state.addRegion()->emplaceBlock();
}

LogicalResult ProgramOp::verify() {
  if (getRank() < 0)
    return emitOpError("rank must be non-negative, got ") << getRank();
  if (getResident() && *getResident() < 0)
    return emitOpError("resident memory must be non-negative, got ")
           << *getResident();
  return success();
}

//===----------------------------------------------------------------------===//
// ComputeOp
//===----------------------------------------------------------------------===//

LogicalResult ComputeOp::verify() {
  if (getLayerBegin() < 0)
    return emitOpError("first layer must be non-negative, got ")
           << getLayerBegin();
  if (getLayerEnd() <= getLayerBegin())
    return emitOpError("layer range [")
           << getLayerBegin() << ", " << getLayerEnd() << ") is empty";
  if (getStage() < 0)
    return emitOpError("stage must be non-negative, got ") << getStage();

  if (getSeqs().empty())
    return emitOpError("processes no sequence; list at least one");
  for (int64_t seq : getSeqs())
    if (seq < 0)
      return emitOpError("sequence id must be non-negative, got ") << seq;
  SmallVector<int64_t> sorted(getSeqs());
  llvm::sort(sorted);
  auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeat != sorted.end())
    return emitOpError("sequence ") << *repeat << " is listed twice";

  if (!std::isfinite(getTime()) || getTime() < 0)
    return emitOpError("time must be a finite, non-negative number of "
                       "seconds, got ")
           << formatDecimal(getTime());
  if (std::optional<double> flops = getFlops())
    if (!std::isfinite(*flops) || *flops < 0)
      return emitOpError("flops must be finite and non-negative, got ")
             << formatDecimal(*flops);
  if (std::optional<ArrayRef<int64_t>> slices = getSlices()) {
    if (slices->size() != getSeqs().size())
      return emitOpError("lists ")
             << slices->size() << " slice indices for " << getSeqs().size()
             << " sequences; give one per sequence";
    for (int64_t slice : *slices)
      if (slice < 0)
        return emitOpError("slice index must be non-negative, got ") << slice;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

LogicalResult AllToAllOp::verify() {
  return verifyCollective(*this, getComm(), getGroup(), getBytes(),
                          /*evenBlocks=*/true);
}

LogicalResult AllReduceOp::verify() {
  return verifyCollective(*this, getComm(), getGroup(), getBytes(),
                          /*evenBlocks=*/false);
}

LogicalResult AllGatherOp::verify() {
  return verifyCollective(*this, getComm(), getGroup(), getBytes(),
                          /*evenBlocks=*/false);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, getComm(), getGroup(), getBytes(),
                          /*evenBlocks=*/true);
}

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

LogicalResult SendOp::verify() {
  return verifyPointToPoint(*this, "a rank cannot send to itself", getPeer(),
                            getBytes(), getTag());
}

LogicalResult RecvOp::verify() {
  return verifyPointToPoint(*this, "a rank cannot receive from itself",
                            getPeer(), getBytes(), getTag());
}

//===----------------------------------------------------------------------===//
// WaitOp
//===----------------------------------------------------------------------===//

LogicalResult WaitOp::verify() {
  if (getPending() < 0)
    return emitOpError("pending must be non-negative, got ") << getPending();
  return success();
}
