//===- PlanOps.cpp - Ops of the plan (decisions) dialect ------------------===//
//
// Builders, the `custom<Decimal>` directive and the verifiers of the plan ops.
// Local rules live in verify(); rules that relate an op to the ops inside it
// live in verifyRegions(), which runs after the nested ops have verified, so
// it may rely on their local rules.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/DecimalFormat.h"
#include "dialects/Plan/IR/PlanDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>

using namespace mlir;
using namespace plexus::plan;

//===----------------------------------------------------------------------===//
// custom<Decimal>: f64 attributes as short decimals
//===----------------------------------------------------------------------===//

// Times print as short decimals (dialects/Common/DecimalFormat.h).
static std::string formatDecimal(double value) {
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : (value < 0 ? "-inf" : "inf");
  return plexus::dialects::formatShortestDecimal(value);
}

static ParseResult parseDecimal(OpAsmParser &parser, FloatAttr &attr) {
  return plexus::dialects::parseDecimalAttr(parser, attr);
}

static void printDecimal(OpAsmPrinter &printer, Operation *, FloatAttr attr) {
  plexus::dialects::printDecimalAttr(printer, attr);
}

//===----------------------------------------------------------------------===//
// custom<ChipList>: a rank -> chip map as [(node, index), ...]
//===----------------------------------------------------------------------===//

/// Stored flattened (node0, index0, node1, index1, ...); printed as pairs.
static ParseResult parseChipList(OpAsmParser &parser, DenseI64ArrayAttr &attr) {
  SmallVector<int64_t> flat;
  auto parsePair = [&]() -> ParseResult {
    int64_t node = 0, index = 0;
    if (parser.parseLParen() || parser.parseInteger(node) ||
        parser.parseComma() || parser.parseInteger(index) ||
        parser.parseRParen())
      return failure();
    flat.append({node, index});
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parsePair))
    return failure();
  attr = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printChipList(OpAsmPrinter &printer, Operation *,
                          DenseI64ArrayAttr attr) {
  ArrayRef<int64_t> flat = attr.asArrayRef();
  printer << "[";
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    printer << (i ? ", " : "") << "(" << flat[i] << ", " << flat[i + 1] << ")";
  printer << "]";
}

//===----------------------------------------------------------------------===//
// custom<SliceList>: plan.chunk's slices, defined in PlanPipelineOps.cpp
//===----------------------------------------------------------------------===//

namespace plexus::plan {
ParseResult parseSliceList(OpAsmParser &parser, DenseI64ArrayAttr &attr);
void printSliceList(OpAsmPrinter &printer, Operation *op,
                    DenseI64ArrayAttr attr);
} // namespace plexus::plan

#define GET_OP_CLASSES
#include "dialects/Plan/IR/PlanOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Modeled times are seconds: finite and non-negative.
static LogicalResult verifySeconds(Operation *op, StringRef what,
                                   double seconds) {
  if (std::isfinite(seconds) && seconds >= 0)
    return success();
  return op->emitOpError() << what
                           << " must be a finite, non-negative number of "
                              "seconds, got "
                           << formatDecimal(seconds);
}

static LogicalResult verifyBytes(Operation *op, StringRef what, int64_t bytes) {
  if (bytes >= 0)
    return success();
  return op->emitOpError() << what << " must be non-negative, got " << bytes
                           << " bytes";
}

/// "[first, last]", the way the assembly spells a rank range.
static std::string rankRange(int64_t first, int64_t last) {
  return "[" + std::to_string(first) + ", " + std::to_string(last) + "]";
}

//===----------------------------------------------------------------------===//
// StepOp
//===----------------------------------------------------------------------===//

void StepOp::build(OpBuilder &builder, OperationState &state, StringRef symName,
                   int64_t index, int64_t worldSize, double time,
                   int64_t peakMem) {
  Properties &props = state.getOrAddProperties<Properties>();
  props.sym_name = builder.getStringAttr(symName);
  props.index = builder.getI64IntegerAttr(index);
  props.world_size = builder.getI64IntegerAttr(worldSize);
  props.time = builder.getF64FloatAttr(time);
  props.peak_mem = builder.getI64IntegerAttr(peakMem);
  state.addRegion()->emplaceBlock();
}

LogicalResult StepOp::verify() {
  if (getIndex() < 0)
    return emitOpError("step index must be non-negative, got ") << getIndex();
  if (getWorldSize() < 1)
    return emitOpError("world size must be at least 1, got ") << getWorldSize();
  if (failed(verifySeconds(*this, "step time", getTime())))
    return failure();
  if (getZero() && (*getZero() < 0 || *getZero() > 3))
    return emitOpError("ZeRO stage must be 0, 1, 2 or 3, got ") << *getZero();
  if (std::optional<ArrayRef<int64_t>> lengths = getLengths())
    for (auto [id, length] : llvm::enumerate(*lengths))
      if (length < 1)
        return emitOpError("sequence ")
               << id << " has length " << length
               << "; every sequence has at least 1 token";
  if (std::optional<double> bubble = getBubble())
    if (!(*bubble >= 0 && *bubble <= 1))
      return emitOpError("bubble ratio must lie in [0, 1], got ")
             << formatDecimal(*bubble);
  if (getRole().has_value() != getLayout().has_value())
    return emitOpError("an alternative plan carries both `role` and "
                       "`layout`, got only `")
           << (getRole() ? "role" : "layout") << "`";
  if (getRole() && !getJob())
    return emitOpError("is an alternative plan (`role`) but names no `job`");
  if (getRole() && !getLengths())
    return emitOpError("is an alternative plan (`role`) but lists no "
                       "`lengths`; the judge checks it plans the step's batch");
  if (std::optional<ArrayRef<int64_t>> layout = getLayout()) {
    if (layout->size() != 4 && layout->size() != 5)
      return emitOpError("layout lists [sp, tp, cp, pp] and, when "
                         "interleaved, vpp: 4 or 5 degrees, got ")
             << layout->size();
    for (int64_t d : *layout)
      if (d < 1)
        return emitOpError("layout degrees are at least 1, got ") << d;
    if (layout->size() == 5 && ((*layout)[4] < 2 || (*layout)[3] < 2))
      return emitOpError("a 5th layout degree (vpp) is at least 2, with pp "
                         "at least 2; got pp ")
             << (*layout)[3] << ", vpp " << (*layout)[4];
  }
  if (std::optional<double> solver = getSolverTime())
    if (failed(verifySeconds(*this, "solver time", *solver)))
      return failure();
  if (std::optional<int64_t> replicas = getReplicas(); replicas && *replicas < 2)
    return emitOpError("runs as `replicas` data-parallel copies, at least 2 "
                       "when given, got ")
           << *replicas;
  return verifyBytes(*this, "peak memory", getPeakMem());
}

LogicalResult UnplannedOp::verify() {
  if (getIndex() < 0)
    return emitOpError("step index must be non-negative, got ") << getIndex();
  if (getReason().empty())
    return emitOpError("says why its plan could not be made; `reason` is "
                       "empty");
  return success();
}

LogicalResult StepOp::verifyRegions() {
  // A step planned by DPP holds pipelines instead (PlanPipelineOps.cpp).
  if (!getBody()->getOps<PipelineOp>().empty()) {
    if (getCheckpoint())
      return emitOpError("is a step of pipelines, which checkpoint per chunk "
                         "(plan.remat); `checkpoint` is for steps of "
                         "micro-batches");
    return verifyPipelinedRegions();
  }
  auto microbatches = llvm::to_vector(getBody()->getOps<MicrobatchOp>());
  if (microbatches.empty())
    return emitOpError("holds no micro-batch; a step runs at least one "
                       "micro-batch or pipeline");

  // Where each sequence was seen: (micro-batch index, group position).
  // std::unordered_map, not DenseMap: any int64_t is a valid sequence id.
  std::unordered_map<int64_t, std::pair<int64_t, unsigned>> seenAt;
  double timeSum = 0;
  for (auto [position, microbatch] : llvm::enumerate(microbatches)) {
    if (microbatch.getIndex() != static_cast<int64_t>(position))
      return microbatch.emitOpError("has index ")
             << microbatch.getIndex() << " but is micro-batch #" << position
             << " of its step; indices count up from 0 in order";
    timeSum += microbatch.getTime();

    for (auto [groupPos, group] :
         llvm::enumerate(microbatch.getBody()->getOps<SpGroupOp>())) {
      for (int64_t seq : group.getSeqs()) {
        if (std::optional<ArrayRef<int64_t>> lengths = getLengths())
          if (seq >= static_cast<int64_t>(lengths->size()))
            return group.emitOpError("sequence ")
                   << seq << " has no length: the step lists "
                   << lengths->size() << " lengths (ids 0.."
                   << static_cast<int64_t>(lengths->size()) - 1 << ")";
        auto [it, inserted] =
            seenAt.try_emplace(seq, static_cast<int64_t>(position),
                               static_cast<unsigned>(groupPos));
        // Repeats inside one micro-batch were reported by its verifier.
        if (!inserted)
          return group.emitOpError("sequence ")
                 << seq << " is already processed by group #"
                 << it->second.second << " of micro-batch " << it->second.first
                 << "; a step processes each sequence once";
      }
      if (group.getMem() > getPeakMem())
        return emitOpError("peak memory ")
               << getPeakMem() << " bytes is less than the " << group.getMem()
               << " bytes per rank of group #" << groupPos << " of micro-batch "
               << position;
    }
  }

  // With the batch's lengths, the step trains every sequence of it.
  if (std::optional<ArrayRef<int64_t>> lengths = getLengths())
    for (int64_t id = 0; id < static_cast<int64_t>(lengths->size()); ++id)
      if (!seenAt.count(id))
        return emitOpError("sequence ")
               << id << " of the step's " << lengths->size()
               << " lengths is in no group; a step processes every sequence "
                  "of its batch";

  // Micro-batches run one after the other. The tolerance absorbs a sum taken
  // in a different order by the planner.
  if (timeSum > getTime() * (1 + 1e-9))
    return emitOpError("step time ")
           << formatDecimal(getTime())
           << " s is less than the sum of its micro-batch times, "
           << formatDecimal(timeSum) << " s";
  return success();
}

//===----------------------------------------------------------------------===//
// MicrobatchOp
//===----------------------------------------------------------------------===//

void MicrobatchOp::build(OpBuilder &builder, OperationState &state,
                         int64_t index, double time) {
  Properties &props = state.getOrAddProperties<Properties>();
  props.index = builder.getI64IntegerAttr(index);
  props.time = builder.getF64FloatAttr(time);
  state.addRegion()->emplaceBlock();
}

LogicalResult MicrobatchOp::verify() {
  if (getIndex() < 0)
    return emitOpError("micro-batch index must be non-negative, got ")
           << getIndex();
  return verifySeconds(*this, "micro-batch time", getTime());
}

LogicalResult MicrobatchOp::verifyRegions() {
  auto step = dyn_cast<StepOp>((*this)->getParentOp());
  if (!step) // HasParent has reported it.
    return failure();
  const int64_t world = step.getWorldSize();
  auto groups = llvm::to_vector(getBody()->getOps<SpGroupOp>());

  // Every group inside the world ([0, world); first >= 0 is a local rule).
  for (auto [pos, group] : llvm::enumerate(groups))
    if (group.getLastRank() >= world)
      return group.emitOpError("rank range ")
             << rankRange(group.getFirstRank(), group.getLastRank())
             << " lies outside the world [0, " << world << ")";

  // No sequence in two groups.
  std::unordered_map<int64_t, unsigned> groupOfSeq;
  for (auto [pos, group] : llvm::enumerate(groups))
    for (int64_t seq : group.getSeqs()) {
      auto [it, inserted] = groupOfSeq.try_emplace(seq, pos);
      if (!inserted && it->second != pos)
        return group.emitOpError("sequence ")
               << seq << " is also assigned to group #" << it->second
               << " of this micro-batch";
    }

  // Disjoint rank ranges: sort by first rank, then sweep, remembering the
  // range that reaches furthest so far. An overlap is reported on whichever
  // of the two groups comes later in the IR.
  auto byFirst = llvm::to_vector(
      llvm::seq<unsigned>(0, static_cast<unsigned>(groups.size())));
  llvm::stable_sort(byFirst, [&](unsigned a, unsigned b) {
    return groups[a].getFirstRank() < groups[b].getFirstRank();
  });
  std::optional<unsigned> furthest;
  for (unsigned pos : byFirst) {
    SpGroupOp group = groups[pos];
    if (furthest && group.getFirstRank() <= groups[*furthest].getLastRank()) {
      unsigned earlier = std::min(pos, *furthest);
      unsigned later = std::max(pos, *furthest);
      return groups[later].emitOpError("rank range ")
             << rankRange(groups[later].getFirstRank(),
                          groups[later].getLastRank())
             << " overlaps group #" << earlier << " "
             << rankRange(groups[earlier].getFirstRank(),
                          groups[earlier].getLastRank());
    }
    if (!furthest || group.getLastRank() > groups[*furthest].getLastRank())
      furthest = pos;
  }

  // Cover [0, world): with the ranges disjoint and inside the world, a rank
  // that no group holds is exactly a shortfall of the degree sum.
  int64_t next = 0;
  std::optional<std::pair<int64_t, int64_t>> hole;
  for (unsigned pos : byFirst) {
    if (groups[pos].getFirstRank() > next) {
      hole = {next, groups[pos].getFirstRank() - 1};
      break;
    }
    next = groups[pos].getLastRank() + 1;
  }
  if (!hole && next < world)
    hole = {next, world - 1};
  if (hole) {
    int64_t degreeSum = 0;
    for (SpGroupOp group : groups)
      degreeSum += group.getDegree();
    return emitOpError("ranks ")
           << rankRange(hole->first, hole->second)
           << " belong to no SP group: the group degrees sum to " << degreeSum
           << " but the world has " << world << " ranks";
  }

  // Groups run side by side: the micro-batch lasts as long as the slowest.
  for (auto [pos, group] : llvm::enumerate(groups))
    if (group.getTime() > getTime())
      return emitOpError("micro-batch time ")
             << formatDecimal(getTime()) << " s is less than the "
             << formatDecimal(group.getTime()) << " s of its group #" << pos;
  return success();
}

//===----------------------------------------------------------------------===//
// SpGroupOp
//===----------------------------------------------------------------------===//

LogicalResult SpGroupOp::verify() {
  const int64_t first = getFirstRank(), last = getLastRank();
  if (getDegree() < 1)
    return emitOpError("SP degree must be at least 1, got ") << getDegree();
  if (first < 0)
    return emitOpError("first rank must be non-negative, got ") << first;
  if (last < first)
    return emitOpError("rank range ")
           << rankRange(first, last) << " is empty (last < first)";
  // Written as degree - 1 == last - first so that nothing overflows.
  if (getDegree() - 1 != last - first)
    return emitOpError("SP degree ")
           << getDegree() << " does not match rank range "
           << rankRange(first, last) << ", which holds "
           << (static_cast<uint64_t>(last - first) + 1) << " ranks";

  for (auto [name, value] :
       {std::pair{"tensor-parallel", getTp()},
        std::pair{"context-parallel", getCp()}, std::pair{"pipeline", getPp()}})
    if (value && *value < 1)
      return emitOpError() << name << " degree must be at least 1, got "
                           << *value;
  if (getVpp() && *getVpp() < 1)
    return emitOpError("model chunks per stage (vpp) must be at least 1, got ")
           << *getVpp();
  if (getVppDegree() > 1 && getPpDegree() < 2)
    return emitOpError("vpp ")
           << getVppDegree()
           << " interleaves model chunks over pipeline stages, but the group "
              "has pp "
           << getPpDegree();
  // Each factor is >= 1 and divides in turn, so nothing overflows.
  int64_t rest = getDegree();
  for (int64_t factor : {getTpDegree(), getCpDegree(), getPpDegree()}) {
    if (rest % factor != 0)
      return emitOpError("degree ")
             << getDegree() << " is not a multiple of tp * cp * pp ("
             << getTpDegree() << " * " << getCpDegree() << " * "
             << getPpDegree() << "); the Ulysses degree must be whole";
    rest /= factor;
  }

  for (int64_t seq : getSeqs())
    if (seq < 0)
      return emitOpError("sequence id must be non-negative, got ") << seq;
  SmallVector<int64_t> sorted(getSeqs());
  llvm::sort(sorted);
  auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeat != sorted.end())
    return emitOpError("sequence ") << *repeat << " is listed twice";

  if (failed(verifySeconds(*this, "group time", getTime())))
    return failure();
  return verifyBytes(*this, "memory per rank", getMem());
}
