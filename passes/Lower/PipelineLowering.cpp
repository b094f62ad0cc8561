//===- PipelineLowering.cpp - DPP pipelines as per-rank programs ----------===//
//
// The plan's checks, the per-layer work of a chunk on a stage, the order of
// a stage's computations and stage-to-stage messages, and the emission of
// each rank's program. See PipelineLowering.h for the model.
//
//===----------------------------------------------------------------------===//
#include "passes/Lower/PipelineLowering.h"

#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/OneFOneB.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace plexus::lower {

using namespace step;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t roundBytes(double bytes) {
  return static_cast<int64_t>(std::llround(bytes));
}

std::string num(int64_t v) { return std::to_string(v); }

std::string chunkName(size_t pipeline, size_t position) {
  return "pipeline " + num(static_cast<int64_t>(pipeline)) + ", chunk " +
         num(static_cast<int64_t>(position));
}

int64_t chunkCount(const PlannedPipeline &p) {
  return static_cast<int64_t>(p.chunks.size());
}

/// Stage `stage`'s 1F1B order over `pipeline` (step::oneFOneBStageOrder):
/// k is the forward of position k, -(k + 1) its backward. Writes `ops`;
/// returns why not otherwise.
std::string stageOrder(const PlannedPipeline &pipeline, int64_t stages,
                       int64_t stage, std::vector<int64_t> &ops) {
  const int64_t n = chunkCount(pipeline);
  if (static_cast<int64_t>(pipeline.backward.size()) != n) {
    ops.clear();
    return "a pipeline needs a backward order of its chunks and at least one "
           "chunk";
  }
  // Every N_split above n gives every stage all n forwards before its first
  // backward; capping it keeps the window arithmetic far from overflow.
  return step::oneFOneBStageOrder(stages, stage, pipeline.backward,
                                  std::min(pipeline.nSplit, n + 1), ops);
}

/// Where each slice of the step sits among its sequence's slices:
/// index[pipeline][position][j] for slice j of that chunk. Only meaningful
/// on a plan whose slices follow one another (checked first).
std::vector<std::vector<std::vector<int64_t>>>
sliceIndices(const PipelinedStepPlan &plan) {
  std::map<int64_t, int64_t> seen;
  std::vector<std::vector<std::vector<int64_t>>> index;
  for (const PlannedPipeline &p : plan.pipelines) {
    index.emplace_back();
    for (const PlannedChunk &c : p.chunks) {
      index.back().emplace_back();
      for (const ChunkSlice &s : c.slices)
        index.back().back().push_back(seen[s.sequence]++);
    }
  }
  return index;
}

/// The checks of one pipeline that need nothing from the others.
std::string checkPipeline(const PipelinedStepPlan &plan,
                          const TrainModel &model, size_t i) {
  const PlannedPipeline &p = plan.pipelines[i];
  const std::string where = "pipeline " + num(static_cast<int64_t>(i));
  const int64_t n = chunkCount(p);
  if (n == 0)
    return where + " has no chunk";
  for (size_t k = 0; k < p.chunks.size(); ++k) {
    const PlannedChunk &c = p.chunks[k];
    if (c.slices.empty())
      return chunkName(i, k) + " has no slice";
    std::vector<int64_t> sequences;
    for (const ChunkSlice &s : c.slices) {
      if (s.sequence < 0 ||
          s.sequence >= static_cast<int64_t>(plan.lengths.size()))
        return chunkName(i, k) + ": sequence " + num(s.sequence) +
               " has no length";
      const int64_t length = plan.lengths[static_cast<size_t>(s.sequence)];
      if (s.begin < 0 || s.end <= s.begin || s.end > length)
        return chunkName(i, k) + ": slice [" + num(s.begin) + ", " +
               num(s.end) + ") of sequence " + num(s.sequence) +
               " is not a non-empty part of its " + num(length) + " tokens";
      if (std::find(sequences.begin(), sequences.end(), s.sequence) !=
          sequences.end())
        return chunkName(i, k) + " holds two slices of sequence " +
               num(s.sequence);
      sequences.push_back(s.sequence);
    }
  }
  std::vector<int> hits(static_cast<size_t>(n), 0);
  bool permutation = static_cast<int64_t>(p.backward.size()) == n;
  for (int64_t k : p.backward) {
    if (!permutation || k < 0 || k >= n || hits[static_cast<size_t>(k)]++) {
      permutation = false;
      break;
    }
  }
  if (!permutation)
    return where + ": the backward order is not a permutation of the " +
           num(n) + " forward positions";
  if (p.nSplit < 1)
    return where + ": N_split is " + num(p.nSplit) + ", not at least 1";
  if (!p.remat.empty()) {
    if (static_cast<int64_t>(p.remat.size()) != plan.stages)
      return where + ": remat has " +
             num(static_cast<int64_t>(p.remat.size())) + " rows, not one per " +
             "stage (" + num(plan.stages) + ")";
    for (size_t s = 0; s < p.remat.size(); ++s) {
      auto [a, b] =
          stageLayers(model.shape.layers, plan.stages, static_cast<int64_t>(s));
      if (static_cast<int64_t>(p.remat[s].size()) != n)
        return where + ": remat of stage " + num(static_cast<int64_t>(s)) +
               " has " + num(static_cast<int64_t>(p.remat[s].size())) +
               " entries, not one per chunk (" + num(n) + ")";
      for (size_t k = 0; k < p.remat[s].size(); ++k)
        if (p.remat[s][k] < 0 || p.remat[s][k] > b - a)
          return chunkName(i, k) + ": stage " + num(static_cast<int64_t>(s)) +
                 " checkpoints " + num(p.remat[s][k]) +
                 " layers, outside [0, " + num(b - a) + "]";
    }
  }
  return {};
}

/// A split sequence's slices: forward one after another from token 0 in
/// one pipeline, backward in reverse.
std::string checkSequenceSlices(const PipelinedStepPlan &plan) {
  struct Progress {
    size_t pipeline = 0;
    int64_t end = 0;
  };
  std::map<int64_t, Progress> progress;
  for (size_t i = 0; i < plan.pipelines.size(); ++i) {
    const PlannedPipeline &p = plan.pipelines[i];
    for (size_t k = 0; k < p.chunks.size(); ++k)
      for (const ChunkSlice &s : p.chunks[k].slices) {
        auto [it, fresh] = progress.try_emplace(s.sequence, Progress{i, 0});
        const std::string slice = "slice [" + num(s.begin) + ", " + num(s.end) +
                                  ") of sequence " + num(s.sequence);
        if (it->second.pipeline != i)
          return chunkName(i, k) + ": " + slice + " is in another pipeline " +
                 "than its earlier slices (pipeline " +
                 num(static_cast<int64_t>(it->second.pipeline)) +
                 "); a sequence's slices run in one pipeline";
        if (s.begin != it->second.end)
          return chunkName(i, k) + ": " + slice +
                 (fresh ? " is its first slice but does not begin at token 0"
                        : " goes forward out of order: the slice before it "
                          "ends at token " +
                              num(it->second.end)) +
                 "; a sequence's slices go forward one after another";
        it->second.end = s.end;
      }
    // Backward: each sequence's chunks at decreasing forward positions.
    std::map<int64_t, int64_t> lastPosition;
    for (int64_t k : p.backward)
      for (const ChunkSlice &s : p.chunks[static_cast<size_t>(k)].slices) {
        auto [it, fresh] = lastPosition.try_emplace(s.sequence, k);
        if (!fresh && k > it->second)
          return "pipeline " + num(static_cast<int64_t>(i)) +
                 ": the backward order runs chunk " + num(k) + " after chunk " +
                 num(it->second) + ", both of sequence " + num(s.sequence) +
                 "; a sequence's slices go backward in reverse order";
        it->second = k;
      }
  }
  return {};
}

/// What a stage does: a chunk's pass, or a message to a neighbour.
enum class StepKind {
  Forward,
  Backward,
  SendActivations,
  RecvActivations,
  SendGradients,
  RecvGradients
};

struct StageStep {
  StepKind kind = StepKind::Forward;
  int64_t position = 0;
};

/// Where each pass sits in a stage's order: at[k] for the forward of
/// position k, at[n + k] for its backward.
std::vector<size_t> passIndex(const std::vector<int64_t> &order) {
  const size_t n = order.size() / 2;
  std::vector<size_t> at(2 * n, 0);
  for (size_t i = 0; i < order.size(); ++i)
    at[order[i] >= 0 ? static_cast<size_t>(order[i])
                     : n + static_cast<size_t>(-order[i] - 1)] = i;
  return at;
}

/// Stage `stage`'s computations and messages for one pipeline, in program
/// order, from every stage's 1F1B order (see the file comment of
/// PipelineLowering.h). A send is paired with the receive after it exactly
/// when the neighbour runs the two passes the other way round.
std::vector<StageStep>
stageSteps(const std::vector<std::vector<int64_t>> &orders, int64_t stage) {
  const int64_t stages = static_cast<int64_t>(orders.size());
  const bool first = stage == 0, last = stage == stages - 1;
  const bool sendFirst = stage % 2 == 0;
  const std::vector<int64_t> &order = orders[static_cast<size_t>(stage)];
  const size_t n = order.size() / 2;
  std::vector<size_t> above, below;
  if (!first)
    above = passIndex(orders[static_cast<size_t>(stage - 1)]);
  if (!last)
    below = passIndex(orders[static_cast<size_t>(stage + 1)]);
  auto pos = [](int64_t k) { return static_cast<size_t>(k); };
  std::vector<bool> haveActivations(n, false), haveGradients(n, false);
  std::vector<StageStep> steps;
  auto pair = [&](StageStep send, StageStep recv) {
    steps.push_back(sendFirst ? send : recv);
    steps.push_back(sendFirst ? recv : send);
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t op = order[i];
    const bool hasNext = i + 1 < order.size();
    const int64_t next = hasNext ? order[i + 1] : 0;
    if (op >= 0) {
      if (!first && !haveActivations[pos(op)])
        steps.push_back({StepKind::RecvActivations, op});
      steps.push_back({StepKind::Forward, op});
      if (last)
        continue;
      StageStep send{StepKind::SendActivations, op};
      // The next stage runs the backward that comes next here before this
      // forward: it sends those gradients, then takes these activations.
      const int64_t k = -next - 1;
      if (hasNext && next < 0 && below[n + pos(k)] < below[pos(op)]) {
        pair(send, {StepKind::RecvGradients, k});
        haveGradients[pos(k)] = true;
      } else {
        steps.push_back(send);
      }
    } else {
      const int64_t k = -op - 1;
      if (!last && !haveGradients[pos(k)])
        steps.push_back({StepKind::RecvGradients, k});
      steps.push_back({StepKind::Backward, k});
      if (first)
        continue;
      StageStep send{StepKind::SendGradients, k};
      // The stage before runs the forward that comes next here before
      // this backward: it sends those activations, then takes these
      // gradients.
      if (hasNext && next >= 0 && above[pos(next)] < above[n + pos(k)]) {
        pair(send, {StepKind::RecvActivations, next});
        haveActivations[pos(next)] = true;
      } else {
        steps.push_back(send);
      }
    }
  }
  return steps;
}

/// The messages of the link between a stage and the next, as one side
/// posts them: (backward?, position) in program order.
std::vector<std::pair<bool, int64_t>>
linkMessages(const std::vector<StageStep> &steps, bool upperSide) {
  std::vector<std::pair<bool, int64_t>> out;
  for (const StageStep &s : steps) {
    const bool activations = upperSide ? s.kind == StepKind::SendActivations
                                       : s.kind == StepKind::RecvActivations;
    const bool gradients = upperSide ? s.kind == StepKind::RecvGradients
                                     : s.kind == StepKind::SendGradients;
    if (activations || gradients)
      out.push_back({gradients, s.position});
  }
  return out;
}

/// One layer of one chunk on one rank of its stage.
struct LayerCost {
  double forwardFlops = 0;     ///< this rank's share
  double coreFlops = 0;        ///< attention core recomputed in backward
  int64_t fullBytes = 0;       ///< activations kept without checkpointing
  int64_t checkpointBytes = 0; ///< kept when checkpointed: input, split K/V
  int64_t dkvBytes = 0;        ///< dK / dV held from forward to backward
  int64_t allToAllBytes = 0;   ///< per pass
  int64_t paramShardBytes = 0; ///< ZeRO shard of the layer's bf16 weights
};

/// One chunk on one stage.
struct ChunkWork {
  std::vector<int64_t> seqs, slices;
  std::vector<LayerCost> layers; ///< the stage's layers, in order
  int64_t checkpointed = 0;      ///< the stage's first layers checkpointed
  int64_t messageBytes = 0;      ///< activations (or gradients) to a stage
};

cost::CostResult<ChunkWork> chunkWork(const TrainModel &model,
                                      const PipelinedStepPlan &plan,
                                      const PlannedChunk &chunk,
                                      const std::vector<int64_t> &slices,
                                      int64_t stage) {
  cost::CostResult<ChunkWork> result;
  ChunkWork &w = result.value;
  const cost::TransformerShape &shape = model.shape;
  const double sp = static_cast<double>(plan.spDegree);
  const int64_t e = cost::bytesPerElement(shape.dtype);
  const int64_t d = cost::effectiveHeadDim(shape);
  double tokens = 0, splitTokens = 0;
  for (const ChunkSlice &s : chunk.slices) {
    w.seqs.push_back(s.sequence);
    tokens += static_cast<double>(s.tokens());
    const int64_t length = plan.lengths[static_cast<size_t>(s.sequence)];
    if (s.begin > 0 || s.end < length)
      splitTokens += static_cast<double>(s.tokens());
  }
  w.slices = slices;
  w.messageBytes = roundBytes(tokens / sp * static_cast<double>(shape.hidden) *
                              static_cast<double>(e));
  int64_t allToAll = 0;
  if (plan.spDegree > 1) {
    const double width =
        static_cast<double>(2 * shape.heads * d + 2 * shape.kvHeads * d);
    allToAll = ceilDiv(roundBytes(tokens / sp * width * static_cast<double>(e)),
                       plan.spDegree) *
               plan.spDegree;
  }
  const int64_t input =
      roundBytes(tokens * static_cast<double>(shape.hidden * e) / sp);
  const int64_t kv = roundBytes(
      splitTokens * static_cast<double>(cost::kvBytesPerToken(shape)) / sp);
  auto [begin, end] = stageLayers(shape.layers, plan.stages, stage);
  for (int64_t l = begin; l < end; ++l) {
    LayerCost c;
    double flops = 0, core = 0, full = 0;
    for (const ChunkSlice &s : chunk.slices) {
      const cost::Slice slice{s.tokens(), s.begin};
      auto f = cost::layerForwardFlops(shape, l, slice);
      if (!f.ok()) {
        result.problems = f.problems;
        return result;
      }
      flops += f.value.total();
      core += cost::recomputeFlops(f.value, cost::Checkpointing::Selective);
      auto act = cost::activationBytesPerToken(shape, l, slice,
                                               cost::Checkpointing::Selective);
      if (!act.ok()) {
        result.problems = act.problems;
        return result;
      }
      full += static_cast<double>(act.value) * static_cast<double>(s.tokens());
    }
    c.forwardFlops = flops / sp;
    c.coreFlops = core / sp;
    c.fullBytes = roundBytes(full / sp);
    c.checkpointBytes = input + kv;
    c.dkvBytes = kv;
    c.allToAllBytes = allToAll;
    c.paramShardBytes =
        ceilDiv(cost::layerParameters(shape, l) * e, plan.spDegree);
    w.layers.push_back(c);
  }
  return result;
}

/// Emits the passes of chunks on one rank.
class RankEmitter {
public:
  RankEmitter(const TrainModel &model, const PipelinedStepPlan &plan,
              const LoweringOptions &options, int64_t rank,
              prog::Program &program, double &flops)
      : model(model), program(program), flops(flops),
        stage(rank / plan.spDegree) {
    for (int64_t u = 0; u < plan.spDegree; ++u)
      stageRanks.push_back(stage * plan.spDegree + u);
    zero3 = model.zero == 3 && plan.spDegree > 1;
    std::tie(begin, end) = stageLayers(model.shape.layers, plan.stages, stage);
    const int64_t step = std::max<int64_t>(1, options.layersPerOp);
    for (int64_t l = begin; l < end; l += step)
      groups.push_back({l, std::min(end, l + step)});
  }

  void forward(int64_t pipeline, int64_t position, const ChunkWork &w) {
    if (zero3)
      gather(w, groups.front());
    for (size_t i = 0; i < groups.size(); ++i) {
      auto [a, b] = groups[i];
      if (zero3) {
        program.ops.push_back(prog::Op::wait(0));
        if (i + 1 < groups.size())
          gather(w, groups[i + 1]);
      }
      const LayerCost sum = total(w, a, b);
      allToAll(sum.allToAllBytes);
      int64_t kept = 0;
      for (int64_t l = a; l < b; ++l) {
        const LayerCost &c = layer(w, l);
        kept +=
            (checkpointed(w, l) ? c.checkpointBytes : c.fullBytes) + c.dkvBytes;
      }
      compute(prog::ComputeKind::Fwd, pipeline, position, w, a, b,
              sum.forwardFlops, kept);
    }
  }

  void backward(int64_t pipeline, int64_t position, const ChunkWork &w) {
    std::vector<std::pair<int64_t, int64_t>> order(groups.rbegin(),
                                                   groups.rend());
    if (zero3)
      gather(w, order.front());
    for (size_t i = 0; i < order.size(); ++i) {
      auto [a, b] = order[i];
      if (zero3) {
        // The previous group's reduce-scatter may still run on.
        program.ops.push_back(prog::Op::wait(i > 0 ? 1 : 0));
        if (i + 1 < order.size())
          gather(w, order[i + 1]);
      }
      const int64_t recomputeEnd = std::min(b, begin + w.checkpointed);
      if (a < recomputeEnd) {
        const LayerCost again = total(w, a, recomputeEnd);
        int64_t restored = 0;
        for (int64_t l = a; l < recomputeEnd; ++l)
          restored += layer(w, l).fullBytes - layer(w, l).checkpointBytes;
        allToAll(again.allToAllBytes);
        compute(prog::ComputeKind::Recompute, pipeline, position, w, a,
                recomputeEnd, again.forwardFlops, restored);
      }
      const LayerCost sum = total(w, a, b);
      compute(prog::ComputeKind::Bwd, pipeline, position, w, a, b,
              2 * sum.forwardFlops + sum.coreFlops,
              -(sum.fullBytes + sum.dkvBytes));
      allToAll(sum.allToAllBytes);
      if (zero3) {
        program.ops.push_back(prog::Op::collective(
            prog::CommKind::ReduceScatter, prog::GroupKind::Zero, communicatorName(prog::GroupKind::Zero, stageRanks),
            stageRanks, shardBytes(w, a, b) * stageSize(), /*async=*/true));
        program.ops.back().carryLayers(a, b);
      }
    }
  }

  /// ZeRO 0..2 with more than one rank a stage: the gradients of the
  /// stage's layers, synchronised once at the end of the step.
  void gradientSync() {
    if (model.zero >= 3 || stageSize() < 2)
      return;
    int64_t grads = carriedParameters(model.shape, begin, end);
    grads =
        ceilDiv(grads * cost::bytesPerElement(model.shape.dtype), stageSize()) *
        stageSize();
    const std::string name = communicatorName(prog::GroupKind::Dp, stageRanks);
    if (model.zero == 0) {
      program.ops.push_back(prog::Op::collective(prog::CommKind::AllReduce, prog::GroupKind::Dp, name,
                                                stageRanks, grads));
      program.ops.back().carryLayers(begin, end);
    } else {
      program.ops.push_back(prog::Op::collective(prog::CommKind::ReduceScatter, prog::GroupKind::Dp,
                                                name, stageRanks, grads));
      program.ops.back().carryLayers(begin, end);
      program.ops.push_back(prog::Op::collective(
          prog::CommKind::AllGather, prog::GroupKind::Dp, name, stageRanks, grads / stageSize()));
      program.ops.back().carryLayers(begin, end);
    }
  }

  /// A message between stages carrying the chunk's hidden states (forward)
  /// or their gradient (backward).
  void message(prog::Op op, const ChunkWork &w, bool backward) {
    op.carry(backward ? prog::ComputeKind::Bwd : prog::ComputeKind::Fwd, w.seqs,
             w.slices);
    program.ops.push_back(std::move(op));
  }

private:
  int64_t stageSize() const { return static_cast<int64_t>(stageRanks.size()); }

  const LayerCost &layer(const ChunkWork &w, int64_t l) const {
    return w.layers[static_cast<size_t>(l - begin)];
  }

  bool checkpointed(const ChunkWork &w, int64_t l) const {
    return l - begin < w.checkpointed;
  }

  LayerCost total(const ChunkWork &w, int64_t a, int64_t b) const {
    LayerCost sum;
    for (int64_t l = a; l < b; ++l) {
      const LayerCost &c = layer(w, l);
      sum.forwardFlops += c.forwardFlops;
      sum.coreFlops += c.coreFlops;
      sum.fullBytes += c.fullBytes;
      sum.checkpointBytes += c.checkpointBytes;
      sum.dkvBytes += c.dkvBytes;
      sum.allToAllBytes += c.allToAllBytes;
      sum.paramShardBytes += c.paramShardBytes;
    }
    return sum;
  }

  /// This rank's shard of layers [a, b)'s parameters, with the embedding
  /// or the head when the range carries them (carriedParameters).
  int64_t shardBytes(const ChunkWork &w, int64_t a, int64_t b) const {
    int64_t layers = 0;
    for (int64_t l = a; l < b; ++l)
      layers += cost::layerParameters(model.shape, l);
    const int64_t extra = carriedParameters(model.shape, a, b) - layers;
    return total(w, a, b).paramShardBytes +
           (extra > 0
                ? ceilDiv(extra * cost::bytesPerElement(model.shape.dtype),
                          stageSize())
                : 0);
  }

  void gather(const ChunkWork &w, std::pair<int64_t, int64_t> group) {
    program.ops.push_back(prog::Op::collective(
            prog::CommKind::AllGather, prog::GroupKind::Zero, communicatorName(prog::GroupKind::Zero, stageRanks),
        stageRanks, shardBytes(w, group.first, group.second),
        /*async=*/true));
    program.ops.back().carryLayers(group.first, group.second);
  }

  void allToAll(int64_t bytes) {
    if (bytes > 0)
      program.ops.push_back(prog::Op::collective(
            prog::CommKind::AllToAll, prog::GroupKind::Sp, communicatorName(prog::GroupKind::Sp, stageRanks),
          stageRanks, bytes));
  }

  void compute(prog::ComputeKind kind, int64_t pipeline, int64_t position,
               const ChunkWork &w, int64_t a, int64_t b, double opFlops,
               int64_t memDelta) {
    std::string label = std::string(prog::toString(kind)) + " p" +
                        num(pipeline) + " c" + num(position) + " layers " +
                        num(a) + "-" + num(b);
    prog::Op op = prog::Op::compute(std::move(label), kind,
                                  computeSecondsFor(model, opFlops), memDelta);
    op.stage = stage;
    op.layerBegin = a;
    op.layerEnd = b;
    op.seqs = w.seqs;
    op.slices = w.slices;
    op.flops = opFlops;
    if (stageSize() > 1) {
      op.ulysses = communicatorName(prog::GroupKind::Sp, stageRanks);
      op.ulyssesRanks = stageRanks;
    }
    flops += opFlops;
    program.ops.push_back(std::move(op));
  }

  const TrainModel &model;
  prog::Program &program;
  double &flops;
  int64_t stage = 0;
  std::vector<int64_t> stageRanks;
  bool zero3 = false;
  int64_t begin = 0, end = 0;
  std::vector<std::pair<int64_t, int64_t>> groups;
};

} // namespace

std::string checkPipelinedStepPlan(const PipelinedStepPlan &plan,
                                   const TrainModel &model) {
  std::vector<cost::ShapeProblem> shape =
      cost::checkTransformerShape(model.shape);
  if (!shape.empty())
    return "the model's shape: " + shape.front().message;
  if (!(model.chip.bf16Flops > 0) || !(model.efficiency > 0) ||
      model.efficiency > 1)
    return "the chip needs a BF16 peak and an efficiency in (0, 1]";
  if (model.zero < 0 || model.zero > 3)
    return "ZeRO stage " + num(model.zero) + " is not 0, 1, 2 or 3";
  if (plan.spDegree < 1 || plan.stages < 1)
    return "the SP degree (" + num(plan.spDegree) + ") and the stages (" +
           num(plan.stages) + ") must be at least 1";
  if (plan.world < 1 || plan.world % plan.spDegree != 0 ||
      plan.world / plan.spDegree != plan.stages)
    return "the world of " + num(plan.world) +
           " ranks is not the SP degree times the stages (" +
           num(plan.spDegree) + " x " + num(plan.stages) + ")";
  if (plan.stages > model.shape.layers)
    return num(plan.stages) + " stages for " + num(model.shape.layers) +
           " layers";
  if (model.shape.heads % plan.spDegree != 0)
    return "heads (" + num(model.shape.heads) +
           ") do not split over the SP degree (" + num(plan.spDegree) + ")";
  if (plan.pipelines.empty())
    return "the step has no pipeline";
  for (size_t i = 0; i < plan.pipelines.size(); ++i)
    if (std::string error = checkPipeline(plan, model, i); !error.empty())
      return error;
  if (std::string error = checkSequenceSlices(plan); !error.empty())
    return error;
  for (size_t i = 0; i < plan.pipelines.size(); ++i)
    for (int64_t s = 0; s < plan.stages; ++s) {
      std::vector<int64_t> order;
      if (std::string error =
              stageOrder(plan.pipelines[i], plan.stages, s, order);
          !error.empty())
        return "pipeline " + num(static_cast<int64_t>(i)) + ": " + error +
               " (N_split " + num(plan.pipelines[i].nSplit) +
               " is too small for its backward order)";
    }
  return {};
}

LoweredStep lowerPipelinedStep(const PipelinedStepPlan &plan,
                               const TrainModel &model,
                               const LoweringOptions &options) {
  LoweredStep out;
  if (std::string error = checkPipelinedStepPlan(plan, model); !error.empty()) {
    out.error = error;
    return out;
  }
  const int64_t sp = plan.spDegree, stages = plan.stages;

  // Each stage's steps of each pipeline; neighbours must agree on every
  // link's message order, or the programs could wait on each other.
  std::vector<std::vector<std::vector<StageStep>>> steps(plan.pipelines.size());
  for (size_t i = 0; i < plan.pipelines.size(); ++i) {
    std::vector<std::vector<int64_t>> orders;
    for (int64_t s = 0; s < stages; ++s) {
      orders.emplace_back();
      (void)stageOrder(plan.pipelines[i], stages, s, orders.back());
    }
    for (int64_t s = 0; s < stages; ++s)
      steps[i].push_back(stageSteps(orders, s));
    for (int64_t s = 0; s + 1 < stages; ++s)
      if (linkMessages(steps[i][static_cast<size_t>(s)], true) !=
          linkMessages(steps[i][static_cast<size_t>(s + 1)], false)) {
        out.error = "pipeline " + num(static_cast<int64_t>(i)) + ": stages " +
                    num(s) + " and " + num(s + 1) +
                    " would exchange activations and gradients in different "
                    "orders";
        return out;
      }
  }

  const auto indices = sliceIndices(plan);
  std::vector<int64_t> firstTag(plan.pipelines.size(), 0);
  for (size_t i = 1; i < plan.pipelines.size(); ++i)
    firstTag[i] = firstTag[i - 1] + 2 * chunkCount(plan.pipelines[i - 1]);

  out.programs.resize(static_cast<size_t>(plan.world));
  const GroupLayout layout{/*ulysses=*/sp, /*tp=*/1, /*cp=*/1, /*pp=*/stages};
  for (int64_t s = 0; s < stages; ++s) {
    // The work of every chunk on this stage, the same for its ranks.
    std::vector<std::vector<ChunkWork>> work(plan.pipelines.size());
    for (size_t i = 0; i < plan.pipelines.size(); ++i) {
      const PlannedPipeline &p = plan.pipelines[i];
      for (size_t k = 0; k < p.chunks.size(); ++k) {
        auto w = chunkWork(model, plan, p.chunks[k], indices[i][k], s);
        if (!w.ok()) {
          out = LoweredStep();
          out.error = chunkName(i, k) + ": " + w.problems.front().message;
          return out;
        }
        if (!p.remat.empty())
          w.value.checkpointed = p.remat[static_cast<size_t>(s)][k];
        work[i].push_back(std::move(w.value));
      }
    }
    for (int64_t u = 0; u < sp; ++u) {
      const int64_t r = s * sp + u;
      prog::Program &program = out.programs[static_cast<size_t>(r)];
      program.initialMemoryBytes =
          residentBytes(model, layout, s, /*zeroWays=*/sp,
                        std::max<int64_t>(1, options.layersPerOp));
      RankEmitter emit(model, plan, options, r, program, out.totalFlops);
      const int64_t prev = r - sp, next = r + sp;
      for (size_t i = 0; i < plan.pipelines.size(); ++i)
        for (const StageStep &step : steps[i][static_cast<size_t>(s)]) {
          const ChunkWork &w = work[i][static_cast<size_t>(step.position)];
          const int64_t tag = firstTag[i] + 2 * step.position;
          switch (step.kind) {
          case StepKind::Forward:
            emit.forward(static_cast<int64_t>(i), step.position, w);
            break;
          case StepKind::Backward:
            emit.backward(static_cast<int64_t>(i), step.position, w);
            break;
          case StepKind::SendActivations:
            emit.message(prog::Op::send(next, w.messageBytes, tag), w, false);
            break;
          case StepKind::RecvActivations:
            emit.message(prog::Op::recv(prev, w.messageBytes, tag), w, false);
            break;
          case StepKind::SendGradients:
            emit.message(prog::Op::send(prev, w.messageBytes, tag + 1), w, true);
            break;
          case StepKind::RecvGradients:
            emit.message(prog::Op::recv(next, w.messageBytes, tag + 1), w, true);
            break;
          }
        }
      emit.gradientSync();
    }
  }
  return out;
}

} // namespace plexus::lower
