//===- PlanPipelineOps.cpp - DPP pipelines of chunks ----------------------===//
//
// The `custom<SliceList>` directive of plan.chunk, the plan.pipeline builder,
// the verifiers of plan.pipeline, plan.chunk and plan.remat, and the region
// checks of a step made of pipelines (StepOp::verifyPipelinedRegions). As in
// PlanOps.cpp, verify() holds an op's own rules and verifyRegions() the rules
// that relate it to the ops it holds; the step checks what spans chunks and
// pipelines and what needs the sequence lengths.
//
//===----------------------------------------------------------------------===//
#include "dialects/Common/DecimalFormat.h"
#include "dialects/Plan/IR/PlanDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

using namespace mlir;
using namespace plexus::plan;

//===----------------------------------------------------------------------===//
// custom<SliceList>: [seq:begin-end, ...]
//===----------------------------------------------------------------------===//

namespace plexus::plan {

/// Stored flat as (seq, begin, end) triples. MLIR's lexer has no token for
/// `begin-end`: it reads `0-40000` as the integer 0 followed by the integer
/// -40000, so the end is parsed as a signed integer and must come out
/// negative (or zero, which the verifier rejects as an empty slice).
ParseResult parseSliceList(OpAsmParser &parser, DenseI64ArrayAttr &attr) {
  SmallVector<int64_t> flat;
  auto parseSlice = [&]() -> ParseResult {
    int64_t seq = 0, begin = 0, negatedEnd = 0;
    if (parser.parseInteger(seq) || parser.parseColon() ||
        parser.parseInteger(begin))
      return failure();
    SMLoc endLoc = parser.getCurrentLocation();
    if (parser.parseInteger(negatedEnd))
      return failure();
    if (negatedEnd > 0)
      return parser.emitError(endLoc, "expected '-' between the begin and "
                                      "the end of a slice (seq:begin-end)");
    flat.append({seq, begin, -negatedEnd});
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parseSlice))
    return failure();
  attr = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

void printSliceList(OpAsmPrinter &printer, Operation *,
                    DenseI64ArrayAttr attr) {
  ArrayRef<int64_t> flat = attr.asArrayRef();
  printer << "[";
  for (size_t i = 0; i + 2 < flat.size(); i += 3)
    printer << (i ? ", " : "") << flat[i] << ":" << flat[i + 1] << "-"
            << flat[i + 2];
  printer << "]";
}

} // namespace plexus::plan

//===----------------------------------------------------------------------===//
// Shared checks and message pieces
//===----------------------------------------------------------------------===//

static std::string formatDecimal(double value) {
  if (!std::isfinite(value))
    return std::isnan(value) ? "nan" : (value < 0 ? "-inf" : "inf");
  return plexus::dialects::formatShortestDecimal(value);
}

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

/// Idle shares are fractions; NaN fails both comparisons.
static LogicalResult verifyBubble(Operation *op, double bubble) {
  if (bubble >= 0 && bubble <= 1)
    return success();
  return op->emitOpError("bubble ratio must lie in [0, 1], got ")
         << formatDecimal(bubble);
}

/// "3:0-40000", the way the assembly spells a slice.
static std::string sliceText(int64_t seq, int64_t begin, int64_t end) {
  return std::to_string(seq) + ":" + std::to_string(begin) + "-" +
         std::to_string(end);
}

/// "[begin, end)", a token range.
static std::string tokenRange(int64_t begin, int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

//===----------------------------------------------------------------------===//
// PipelineOp
//===----------------------------------------------------------------------===//

void PipelineOp::build(OpBuilder &builder, OperationState &state, int64_t index,
                       int64_t stages, int64_t spDegree, int64_t nSplit,
                       double time, double bubble, ArrayRef<int64_t> backward) {
  Properties &props = state.getOrAddProperties<Properties>();
  props.index = builder.getI64IntegerAttr(index);
  props.stages = builder.getI64IntegerAttr(stages);
  props.sp_degree = builder.getI64IntegerAttr(spDegree);
  props.n_split = builder.getI64IntegerAttr(nSplit);
  props.time = builder.getF64FloatAttr(time);
  props.bubble = builder.getF64FloatAttr(bubble);
  props.backward = builder.getDenseI64ArrayAttr(backward);
  state.addRegion()->emplaceBlock();
}

LogicalResult PipelineOp::verify() {
  if (getIndex() < 0)
    return emitOpError("pipeline index must be non-negative, got ")
           << getIndex();
  if (getStages() < 1)
    return emitOpError("stage count must be at least 1, got ") << getStages();
  if (getSpDegree() < 1)
    return emitOpError("SP degree must be at least 1, got ") << getSpDegree();
  if (getNSplit() < 1)
    return emitOpError("nsplit must be at least 1, got ") << getNSplit();
  if (failed(verifySeconds(*this, "pipeline time", getTime())))
    return failure();
  return verifyBubble(*this, getBubble());
}

LogicalResult PipelineOp::verifyRegions() {
  SmallVector<ChunkOp> chunks;
  SmallVector<RematOp> remats;
  for (Operation &op : getBody()->getOperations()) {
    if (auto chunk = dyn_cast<ChunkOp>(op)) {
      if (!remats.empty())
        return chunk.emitOpError("follows a plan.remat; a pipeline lists its "
                                 "chunks first");
      if (chunk.getIndex() != static_cast<int64_t>(chunks.size()))
        return chunk.emitOpError("has index ")
               << chunk.getIndex() << " but is chunk #" << chunks.size()
               << " of its pipeline; indices count up from 0 in order";
      chunks.push_back(chunk);
    } else if (auto remat = dyn_cast<RematOp>(op)) {
      remats.push_back(remat);
    } else {
      return op.emitOpError("cannot be in a plan.pipeline, which holds only "
                            "plan.chunk and plan.remat ops");
    }
  }
  if (chunks.empty())
    return emitOpError("holds no chunk; a pipeline runs at least one");
  const int64_t n = static_cast<int64_t>(chunks.size());

  // `backward` is a permutation of the forward positions 0..n-1.
  ArrayRef<int64_t> backward = getBackward();
  if (static_cast<int64_t>(backward.size()) != n)
    return emitOpError("backward order lists ")
           << backward.size() << " positions but the pipeline has " << n
           << " chunks";
  SmallVector<bool> listed(n, false);
  for (int64_t position : backward) {
    if (position < 0 || position >= n)
      return emitOpError("backward order names position ")
             << position << ", outside the chunk positions [0, " << n << ")";
    if (listed[position])
      return emitOpError("backward order lists position ")
             << position << " twice";
    listed[position] = true;
  }

  // N_split counts chunks of one sequence, all of them in this pipeline.
  if (getNSplit() > n)
    return emitOpError("nsplit ")
           << getNSplit() << " exceeds the pipeline's " << n << " chunks";

  // At most one remat per stage, each with one count per chunk.
  llvm::DenseSet<int64_t> stagesSeen;
  for (RematOp remat : remats) {
    if (remat.getStage() >= getStages())
      return remat.emitOpError("stage ")
             << remat.getStage() << " is outside the pipeline's stages [0, "
             << getStages() << ")";
    if (!stagesSeen.insert(remat.getStage()).second)
      return remat.emitOpError("stage ")
             << remat.getStage()
             << " already has a plan.remat; a pipeline holds at most one per "
                "stage";
    if (static_cast<int64_t>(remat.getLayers().size()) != n)
      return remat.emitOpError("lists ")
             << remat.getLayers().size()
             << " layer counts but the pipeline has " << n << " chunks";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ChunkOp
//===----------------------------------------------------------------------===//

LogicalResult ChunkOp::verify() {
  if (getIndex() < 0)
    return emitOpError("chunk index must be non-negative, got ") << getIndex();
  ArrayRef<int64_t> flat = getSlices();
  if (flat.size() % 3 != 0)
    return emitOpError("slices hold ")
           << flat.size()
           << " values; each slice is a (sequence, begin, end) triple";
  if (flat.empty())
    return emitOpError("holds no slice; a chunk processes at least one");

  llvm::DenseSet<int64_t> seqs;
  for (size_t i = 0, e = getNumSlices(); i < e; ++i) {
    auto [seq, begin, end] = getSlice(i);
    if (seq < 0)
      return emitOpError("sequence id must be non-negative, got ") << seq;
    if (begin < 0)
      return emitOpError("slice ")
             << sliceText(seq, begin, end) << " begins before token 0";
    if (end <= begin)
      return emitOpError("slice ")
             << sliceText(seq, begin, end) << " is empty (end <= begin)";
    if (!seqs.insert(seq).second)
      return emitOpError("sequence ")
             << seq
             << " has two slices; a chunk holds at most one slice of "
                "each sequence";
  }

  // The kind rules that need no lengths; the step checks the ends.
  const size_t numSlices = getNumSlices();
  switch (getKind()) {
  case ChunkKind::packed:
    for (size_t i = 0; i < numSlices; ++i) {
      auto [seq, begin, end] = getSlice(i);
      if (begin != 0)
        return emitOpError("packed chunk holds slice ")
               << sliceText(seq, begin, end)
               << ", which starts inside the sequence; a packed chunk holds "
                  "whole sequences";
    }
    break;
  case ChunkKind::split:
    if (numSlices != 1)
      return emitOpError("split chunk holds ")
             << numSlices << " slices; it holds exactly one";
    break;
  case ChunkKind::hybrid: {
    if (numSlices < 2)
      return emitOpError("hybrid chunk holds ")
             << numSlices
             << " slice; it holds a split sequence's last slice and at least "
                "one whole sequence";
    auto [seq, begin, end] = getSlice(0);
    if (begin == 0)
      return emitOpError("hybrid chunk starts with slice ")
             << sliceText(seq, begin, end)
             << ", which is not the last slice of a split sequence (it "
                "begins at token 0)";
    for (size_t i = 1; i < numSlices; ++i) {
      auto [otherSeq, otherBegin, otherEnd] = getSlice(i);
      if (otherBegin != 0)
        return emitOpError("hybrid chunk holds slice ")
               << sliceText(otherSeq, otherBegin, otherEnd)
               << ", which starts inside the sequence; only its first slice "
                  "may";
    }
    break;
  }
  }

  if (failed(verifySeconds(*this, "chunk time", getTime())))
    return failure();
  if (getMem() < 0)
    return emitOpError("activation memory must be non-negative, got ")
           << getMem() << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// RematOp
//===----------------------------------------------------------------------===//

LogicalResult RematOp::verify() {
  if (getStage() < 0)
    return emitOpError("stage must be non-negative, got ") << getStage();
  for (auto [position, layers] : llvm::enumerate(getLayers()))
    if (layers < 0)
      return emitOpError("layer count for chunk ")
             << position << " must be non-negative, got " << layers;
  return success();
}

//===----------------------------------------------------------------------===//
// StepOp: a step of pipelines
//===----------------------------------------------------------------------===//

namespace {
/// One slice of a sequence and where it runs.
struct PlacedSlice {
  int64_t begin, end;
  ChunkOp chunk;
  int64_t pipeline; ///< the pipeline's index in the step
  int64_t position; ///< the chunk's forward position in its pipeline
  /// Whether this slice comes before `o` in the IR (and in time: pipelines
  /// run one after another, chunks in forward order).
  bool runsBefore(const PlacedSlice &o) const {
    return std::tie(pipeline, position) < std::tie(o.pipeline, o.position);
  }
};
} // namespace

/// The chunk's name in messages: "chunk 2 of pipeline 0".
static std::string chunkName(const PlacedSlice &s) {
  return "chunk " + std::to_string(s.position) + " of pipeline " +
         std::to_string(s.pipeline);
}

/// The checks of one chunk against the step's lengths: every id has a
/// length, no slice runs past it, and the kind matches what the slices are.
static LogicalResult verifyChunkLengths(ChunkOp chunk,
                                        ArrayRef<int64_t> lengths) {
  const int64_t count = static_cast<int64_t>(lengths.size());
  for (size_t i = 0, e = chunk.getNumSlices(); i < e; ++i) {
    auto [seq, begin, end] = chunk.getSlice(i);
    if (seq >= count)
      return chunk.emitOpError("sequence ")
             << seq << " has no length: the step lists " << count
             << " lengths (ids 0.." << count - 1 << ")";
    const int64_t length = lengths[seq];
    if (end > length)
      return chunk.emitOpError("slice ")
             << sliceText(seq, begin, end) << " runs past the end of sequence "
             << seq << ", which has " << length << " tokens";
    const bool whole = begin == 0 && end == length;
    switch (chunk.getKind()) {
    case ChunkKind::packed:
      if (!whole)
        return chunk.emitOpError("packed chunk holds slice ")
               << sliceText(seq, begin, end) << ", not the whole of sequence "
               << seq << " (" << length << " tokens)";
      break;
    case ChunkKind::split:
      if (whole)
        return chunk.emitOpError("split chunk holds the whole of sequence ")
               << seq << " (" << length
               << " tokens); a split chunk holds part of a sequence";
      break;
    case ChunkKind::hybrid:
      if (i == 0 && end != length)
        return chunk.emitOpError("hybrid chunk starts with slice ")
               << sliceText(seq, begin, end)
               << ", which is not the tail of sequence " << seq << " ("
               << length << " tokens)";
      if (i > 0 && !whole)
        return chunk.emitOpError("hybrid chunk holds slice ")
               << sliceText(seq, begin, end) << ", not the whole of sequence "
               << seq << " (" << length << " tokens)";
      break;
    }
  }
  return success();
}

LogicalResult StepOp::verifyPipelinedRegions() {
  if (!getBody()->getOps<MicrobatchOp>().empty())
    return emitOpError("mixes micro-batches and pipelines; a step holds one "
                       "kind or the other");
  auto pipelines = llvm::to_vector(getBody()->getOps<PipelineOp>());
  const int64_t world = getWorldSize();
  std::optional<ArrayRef<int64_t>> lengths = getLengths();

  // Pipelines: order, layout, and every slice by sequence.
  // std::map, not DenseMap: any non-negative int64_t is a valid id.
  std::map<int64_t, SmallVector<PlacedSlice>> slicesOf;
  double timeSum = 0;
  for (auto [position, pipeline] : llvm::enumerate(pipelines)) {
    if (pipeline.getIndex() != static_cast<int64_t>(position))
      return pipeline.emitOpError("has index ")
             << pipeline.getIndex() << " but is pipeline #" << position
             << " of its step; indices count up from 0 in order";
    // Both factors are >= 1 (local rules); divide so nothing overflows.
    const int64_t stages = pipeline.getStages(), sp = pipeline.getSpDegree();
    if (world % stages != 0 || world / stages != sp)
      return pipeline.emitOpError("has ")
             << stages << " stages of SP degree " << sp
             << ", but stages * sp must equal the step's world of " << world
             << " ranks";
    PipelineOp first = pipelines.front();
    if (stages != first.getStages() || sp != first.getSpDegree())
      return pipeline.emitOpError("has ")
             << stages << " stages of SP degree " << sp
             << " but pipeline 0 has " << first.getStages()
             << " stages of SP degree " << first.getSpDegree()
             << "; the pipelines of a step share one layout";
    timeSum += pipeline.getTime();

    for (ChunkOp chunk : pipeline.getBody()->getOps<ChunkOp>()) {
      if (lengths && failed(verifyChunkLengths(chunk, *lengths)))
        return failure();
      for (size_t i = 0, e = chunk.getNumSlices(); i < e; ++i) {
        auto [seq, begin, end] = chunk.getSlice(i);
        slicesOf[seq].push_back({begin, end, chunk,
                                 static_cast<int64_t>(position),
                                 chunk.getIndex()});
      }
    }
  }

  // Coverage, sequence by sequence in id order: sweep the slices by first
  // token. Every sequence starts at token 0; with lengths, every id is
  // covered up to its length. An overlap is reported on whichever of the two
  // chunks runs later.
  auto checkCoverage = [&](int64_t seq, SmallVector<PlacedSlice> slices,
                           std::optional<int64_t> length) -> LogicalResult {
    llvm::stable_sort(slices, [](const PlacedSlice &a, const PlacedSlice &b) {
      return a.begin < b.begin;
    });
    int64_t next = 0;
    const PlacedSlice *furthest = nullptr;
    for (const PlacedSlice &s : slices) {
      if (s.begin > next)
        return emitOpError("tokens ")
               << tokenRange(next, s.begin) << " of sequence " << seq
               << " are in no chunk";
      if (furthest && s.begin < next) {
        PlacedSlice later = s.runsBefore(*furthest) ? *furthest : s;
        PlacedSlice earlier = s.runsBefore(*furthest) ? s : *furthest;
        return later.chunk.emitOpError("tokens ")
               << tokenRange(s.begin, std::min(s.end, next)) << " of sequence "
               << seq << " are also in " << chunkName(earlier)
               << "; a step processes each token once";
      }
      if (s.end > next) {
        next = s.end;
        furthest = &s;
      }
    }
    if (length && next < *length)
      return emitOpError("tokens ")
             << tokenRange(next, *length) << " of sequence " << seq
             << " are in no chunk";
    return success();
  };
  if (lengths) {
    // Ids past the lengths were rejected with the chunks above.
    for (auto [seq, length] : llvm::enumerate(*lengths)) {
      auto it = slicesOf.find(static_cast<int64_t>(seq));
      if (failed(checkCoverage(static_cast<int64_t>(seq),
                               it == slicesOf.end() ? SmallVector<PlacedSlice>()
                                                    : it->second,
                               length)))
        return failure();
    }
  } else {
    for (auto &[seq, slices] : slicesOf)
      if (failed(checkCoverage(seq, slices, std::nullopt)))
        return failure();
  }

  // A sequence in several slices: one pipeline, forward in token order,
  // backward in reverse. The slices are listed in the order they run.
  for (auto &[seq, slices] : slicesOf) {
    if (slices.size() < 2)
      continue;
    for (size_t i = 1; i < slices.size(); ++i) {
      PlacedSlice prev = slices[i - 1], cur = slices[i];
      if (cur.pipeline != prev.pipeline)
        return cur.chunk.emitOpError("holds a slice of sequence ")
               << seq << ", which pipeline " << prev.pipeline
               << " also processes; a split sequence runs in one pipeline";
      if (cur.begin < prev.begin)
        return cur.chunk.emitOpError("slice ")
               << sliceText(seq, cur.begin, cur.end) << " runs after slice "
               << sliceText(seq, prev.begin, prev.end) << " of "
               << chunkName(prev)
               << "; a split sequence's slices run forward in token order";
    }
    PipelineOp pipeline = pipelines[slices.front().pipeline];
    ArrayRef<int64_t> backward = pipeline.getBackward();
    // Forward positions of the sequence's chunks, in backward order.
    SmallVector<int64_t> visited;
    for (int64_t position : backward)
      if (llvm::any_of(slices, [&](const PlacedSlice &s) {
            return s.position == position;
          }))
        visited.push_back(position);
    if (!std::is_sorted(visited.rbegin(), visited.rend())) {
      auto list = [](ArrayRef<int64_t> positions) {
        std::string text;
        for (int64_t p : positions)
          text += (text.empty() ? "" : ", ") + std::to_string(p);
        return text;
      };
      SmallVector<int64_t> reversed;
      for (const PlacedSlice &s : llvm::reverse(slices))
        reversed.push_back(s.position);
      return pipeline.emitOpError("backward order visits the chunks of split "
                                  "sequence ")
             << seq << " as " << list(visited)
             << "; they run backward in reverse forward order, "
             << list(reversed);
    }
  }

  // Pipelines run one after the other (tolerance as for micro-batches).
  if (timeSum > getTime() * (1 + 1e-9))
    return emitOpError("step time ")
           << formatDecimal(getTime())
           << " s is less than the sum of its pipeline times, "
           << formatDecimal(timeSum) << " s";
  return success();
}
