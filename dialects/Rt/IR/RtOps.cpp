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

// custom<CommKind>: a collective's communicator kind, the same way.

static ParseResult parseCommKind(OpAsmParser &parser, CommKindAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseOptionalKeyword(&keyword))
    return parser.emitError(loc, "expected the communicator's kind (sp, tp, "
                                 "cp, zero or dp) after 'group'");
  std::optional<CommKind> kind = symbolizeCommKind(keyword);
  if (!kind)
    return parser.emitError(loc, "expected sp, tp, cp, zero or dp as the "
                                 "communicator's kind, got '")
           << keyword << "'";
  attr = CommKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printCommKind(OpAsmPrinter &printer, Operation *,
                          CommKindAttr attr) {
  printer << stringifyCommKind(attr.getValue());
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

/// The rules every collective shares, on the members of its rt.group.
/// `evenBlocks`: the op cuts each buffer into one block per rank, so the
/// size must divide evenly.
static LogicalResult verifyCollective(Operation *op, StringRef comm,
                                      ArrayRef<int64_t> group, int64_t bytes,
                                      bool evenBlocks) {
  if (std::optional<int64_t> own = programRank(op))
    if (!llvm::is_contained(group, *own))
      return op->emitOpError("group @\"")
             << comm << "\" " << rankList(group)
             << " does not include the program's rank " << *own;
  if (evenBlocks && bytes % static_cast<int64_t>(group.size()) != 0)
    return op->emitOpError("bytes (")
           << bytes << ") must be a multiple of the group size ("
           << group.size() << ")";
  return success();
}

/// The rt.group `comm` names, of kind `kind`; an error on `op` when there
/// is none or it is of another kind.
static FailureOr<GroupOp> lookupGroup(Operation *op,
                                      SymbolTableCollection &symbols,
                                      FlatSymbolRefAttr comm, CommKind kind) {
  auto group = symbols.lookupNearestSymbolFrom<GroupOp>(op, comm);
  if (!group)
    return op->emitOpError("names communicator ")
           << comm << ", which no rt.group of the module declares";
  if (group.getKind() != kind)
    return op->emitOpError("uses communicator ")
           << comm << " as " << stringifyCommKind(kind)
           << ", but its rt.group is of kind "
           << stringifyCommKind(group.getKind());
  return group;
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

LogicalResult ComputeOp::verifySymbolUses(SymbolTableCollection &symbols) {
  FlatSymbolRefAttr ulysses = getUlyssesAttr();
  if (!ulysses)
    return success();
  FailureOr<GroupOp> group =
      lookupGroup(*this, symbols, ulysses, CommKind::sp);
  if (failed(group))
    return failure();
  ArrayRef<int64_t> ranks = group->getRanks();
  if (ranks.size() < 2)
    return emitOpError("Ulysses group ")
           << ulysses << " " << rankList(ranks) << " needs at least two ranks";
  return verifyCollective(*this, ulysses.getValue(), ranks, 0,
                          /*evenBlocks=*/false);
}

//===----------------------------------------------------------------------===//
// rt.group
//===----------------------------------------------------------------------===//

LogicalResult GroupOp::verify() {
  if (getSymName().empty())
    return emitOpError("communicator name must not be empty");
  ArrayRef<int64_t> ranks = getRanks();
  if (ranks.empty())
    return emitOpError("communicator group is empty");
  for (int64_t rank : ranks)
    if (rank < 0)
      return emitOpError("group rank must be non-negative, got ") << rank;
  SmallVector<int64_t> sorted(ranks);
  llvm::sort(sorted);
  auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeat != sorted.end())
    return emitOpError("rank ") << *repeat << " appears twice in the group";
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// A collective's optional `layers [a, b)`: both bounds or neither, a
/// non-empty range from a non-negative first layer, and only on the ops
/// that move parameters or gradients.
static LogicalResult verifyCarriedLayers(Operation *op,
                                         std::optional<int64_t> begin,
                                         std::optional<int64_t> end,
                                         bool allowed) {
  if (!begin && !end)
    return success();
  if (!allowed)
    return op->emitOpError("carries no parameters or gradients; it takes no "
                           "layer range");
  if (!begin || !end)
    return op->emitOpError("layer range needs both bounds");
  if (*begin < 0)
    return op->emitOpError("first layer must be non-negative, got ") << *begin;
  if (*end <= *begin)
    return op->emitOpError("layer range [")
           << *begin << ", " << *end << ") is empty";
  return success();
}

/// A collective's own fields: bytes and the layers it carries (`allowed`:
/// it moves parameters or gradients).
template <typename CollectiveOp>
static LogicalResult verifyCollectiveFields(CollectiveOp op, bool allowed) {
  if (failed(verifyBytes(op, op.getBytes())))
    return failure();
  return verifyCarriedLayers(op, op.getLayerBegin(), op.getLayerEnd(),
                             allowed);
}

/// A collective against its rt.group (`evenBlocks`: it cuts each buffer
/// into one block per rank).
template <typename CollectiveOp>
static LogicalResult verifyCollectiveGroup(CollectiveOp op,
                                           SymbolTableCollection &symbols,
                                           bool evenBlocks) {
  FailureOr<GroupOp> group =
      lookupGroup(op, symbols, op.getCommAttr(), op.getKind());
  if (failed(group))
    return failure();
  return verifyCollective(op, op.getComm(), group->getRanks(), op.getBytes(),
                          evenBlocks);
}

LogicalResult AllToAllOp::verify() {
  return verifyCollectiveFields(*this, /*allowed=*/false);
}
LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyCollectiveGroup(*this, symbols, /*evenBlocks=*/true);
}

LogicalResult AllReduceOp::verify() {
  return verifyCollectiveFields(*this, /*allowed=*/true);
}
LogicalResult AllReduceOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyCollectiveGroup(*this, symbols, /*evenBlocks=*/false);
}

LogicalResult AllGatherOp::verify() {
  return verifyCollectiveFields(*this, /*allowed=*/true);
}
LogicalResult AllGatherOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyCollectiveGroup(*this, symbols, /*evenBlocks=*/false);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyCollectiveFields(*this, /*allowed=*/true);
}
LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyCollectiveGroup(*this, symbols, /*evenBlocks=*/true);
}

//===----------------------------------------------------------------------===//
// Point to point
//===----------------------------------------------------------------------===//

/// `carries kind seqs [..] slices [..]`: a forward or backward pass, at
/// least one sequence, no repeats, one non-negative slice index each.
static LogicalResult verifyCarried(Operation *op,
                                   std::optional<ComputeKind> kind,
                                   std::optional<ArrayRef<int64_t>> seqs,
                                   std::optional<ArrayRef<int64_t>> slices) {
  if (!kind && !seqs && !slices)
    return success();
  if (!kind || !seqs || !slices)
    return op->emitOpError("carries needs a pass, sequences and slices");
  if (*kind == ComputeKind::recompute)
    return op->emitOpError("carries the hidden states of a forward (fwd) or "
                           "the gradient of a backward (bwd), not recompute");
  if (seqs->empty())
    return op->emitOpError("carries no sequence; list at least one");
  if (slices->size() != seqs->size())
    return op->emitOpError("carries ")
           << slices->size() << " slice indices for " << seqs->size()
           << " sequences; give one per sequence";
  SmallVector<int64_t> sorted(*seqs);
  llvm::sort(sorted);
  if (sorted.front() < 0)
    return op->emitOpError("sequence id must be non-negative, got ")
           << sorted.front();
  auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeat != sorted.end())
    return op->emitOpError("sequence ") << *repeat << " is listed twice";
  for (int64_t slice : *slices)
    if (slice < 0)
      return op->emitOpError("slice index must be non-negative, got ") << slice;
  return success();
}

static std::optional<ComputeKind> kindOf(std::optional<ComputeKindAttr> a) {
  if (a && *a)
    return a->getValue();
  return std::nullopt;
}

LogicalResult SendOp::verify() {
  if (failed(verifyPointToPoint(*this, "a rank cannot send to itself",
                                getPeer(), getBytes(), getTag())))
    return failure();
  return verifyCarried(*this, kindOf(getCarriesAttr()), getSeqs(), getSlices());
}

LogicalResult RecvOp::verify() {
  if (failed(verifyPointToPoint(*this, "a rank cannot receive from itself",
                                getPeer(), getBytes(), getTag())))
    return failure();
  return verifyCarried(*this, kindOf(getCarriesAttr()), getSeqs(), getSlices());
}

//===----------------------------------------------------------------------===//
// ModelOp and BatchOp
//===----------------------------------------------------------------------===//

/// At most one op of this kind per module.
template <typename OpT> static LogicalResult verifyUnique(OpT op) {
  auto module = dyn_cast_or_null<ModuleOp>(op->getParentOp());
  if (!module)
    return success();
  for (OpT other : module.template getOps<OpT>())
    if (other != op && other->isBeforeInBlock(op)) {
      InFlightDiagnostic d = op.emitOpError("is the second of its kind in the "
                                            "module; give at most one");
      d.attachNote(other.getLoc()) << "the first is here";
      return failure();
    }
  return success();
}

LogicalResult ModelOp::verify() {
  const std::pair<const char *, int64_t> sizes[] = {
      {"layers", getLayers()},    {"hidden", getHidden()},
      {"heads", getHeads()},      {"kv_heads", getKvHeads()},
      {"head_dim", getHeadDim()}, {"ffn", getFfn()},
      {"vocab", getVocab()},      {"element_bytes", getElementBytes()}};
  for (auto [name, value] : sizes)
    if (value < 1)
      return emitOpError(name) << " must be positive, got " << value;
  if (getHeads() % getKvHeads() != 0)
    return emitOpError("kv_heads (")
           << getKvHeads() << ") must divide heads (" << getHeads() << ")";
  if (getMlp() != "swiglu" && getMlp() != "gelu")
    return emitOpError("mlp must be swiglu or gelu, got '") << getMlp() << "'";
  if (getSeed() < 0)
    return emitOpError("seed must be non-negative, got ") << getSeed();
  return verifyUnique(*this);
}

LogicalResult BatchOp::verify() {
  if (getSeed() < 0)
    return emitOpError("seed must be non-negative, got ") << getSeed();
  ArrayRef<int64_t> lengths = getLengths();
  if (lengths.empty())
    return emitOpError("has no sequence; list at least one length");
  for (auto [seq, length] : llvm::enumerate(lengths))
    if (length < 1)
      return emitOpError("sequence ")
             << seq << " has length " << length << "; lengths are positive";
  if (std::optional<ArrayRef<int64_t>> cuts = getCuts()) {
    if (cuts->size() % 2 != 0)
      return emitOpError("cuts come in pairs (sequence, position); got ")
             << cuts->size() << " numbers";
    for (size_t i = 0; i < cuts->size(); i += 2) {
      int64_t seq = (*cuts)[i], at = (*cuts)[i + 1];
      if (seq < 0 || seq >= static_cast<int64_t>(lengths.size()))
        return emitOpError("cut of sequence ")
               << seq << ", which the batch does not have";
      if (at <= 0 || at >= lengths[seq])
        return emitOpError("cut at ")
               << at << " of sequence " << seq << " must lie in (0, "
               << lengths[seq] << ")";
      if (i > 0) {
        int64_t prevSeq = (*cuts)[i - 2], prevAt = (*cuts)[i - 1];
        if (seq < prevSeq || (seq == prevSeq && at <= prevAt))
          return emitOpError("cuts must be sorted by sequence, then by "
                             "increasing position; (")
                 << seq << ", " << at << ") follows (" << prevSeq << ", "
                 << prevAt << ")";
      }
    }
  }
  return verifyUnique(*this);
}

int64_t BatchOp::sliceCount(int64_t seq) {
  int64_t count = 1;
  if (std::optional<ArrayRef<int64_t>> cuts = getCuts())
    for (size_t i = 0; i < cuts->size(); i += 2)
      count += (*cuts)[i] == seq;
  return count;
}

//===----------------------------------------------------------------------===//
// WaitOp
//===----------------------------------------------------------------------===//

LogicalResult WaitOp::verify() {
  if (getPending() < 0)
    return emitOpError("pending must be non-negative, got ") << getPending();
  return success();
}
