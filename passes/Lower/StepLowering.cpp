//===- StepLowering.cpp - A planned step as per-rank programs -------------===//
#include "passes/Lower/StepLowering.h"
#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/OneFOneB.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>
#include <utility>

namespace plexus::lower {

using namespace step;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

void applyRingOrders(std::vector<prog::Program> &programs,
                     const RingOrders &orders) {
  if (orders.empty())
    return;
  // Each distinct member list is looked up once; equal lists of one
  // lowering are one shared list, so this costs per group, not per op.
  std::map<const void *, prog::Members> reordered;
  auto reorder = [&](prog::Members &ranks) {
    if (ranks.size() < 3) // two ranks make one ring either way
      return;
    auto [it, fresh] = reordered.try_emplace(ranks.id(), ranks);
    if (fresh) {
      std::vector<int64_t> key = ranks.vec();
      std::sort(key.begin(), key.end());
      auto order = orders.find(key);
      if (order != orders.end())
        it->second = prog::Members(order->second);
    }
    ranks = it->second;
  };
  for (prog::Program &program : programs)
    for (prog::Op &op : program.ops) {
      if (op.kind == prog::OpKind::Collective)
        reorder(op.ranks);
      reorder(op.ulyssesRanks);
    }
}

std::string communicatorName(prog::GroupKind kind,
                             const std::vector<int64_t> &ranks) {
  std::ostringstream os;
  os << prog::toString(kind) << ":";
  if (ranks.size() >= 2) {
    int64_t stride = ranks[1] - ranks[0];
    bool progression = stride > 0;
    for (size_t i = 2; progression && i < ranks.size(); ++i)
      progression = ranks[i] - ranks[i - 1] == stride;
    if (progression) {
      os << ranks.front() << "-" << ranks.back();
      if (stride != 1)
        os << "/" << stride;
      return os.str();
    }
  }
  for (size_t i = 0; i < ranks.size(); ++i)
    os << (i ? "," : "") << ranks[i];
  return os.str();
}

namespace {

std::string num(int64_t v) { return std::to_string(v); }

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
/// order, from every stage's 1F1B order (the file comment of
/// StepLowering.h). A send is paired with the receive after it exactly
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

/// Where a rank sits in one phase: its group and its position in it.
struct Seat {
  const ScheduledGroup *group = nullptr;
  size_t index = 0; ///< the group's index in the phase
  RankPosition pos;
};

Seat seatOf(const SchedulePhase &phase, int64_t rank) {
  for (size_t i = 0; i < phase.groups.size(); ++i) {
    const ScheduledGroup &g = phase.groups[i];
    if (rank >= g.firstRank && rank < g.firstRank + g.layout.degree())
      return {&g, i, positionOf(g.layout, rank - g.firstRank)};
  }
  return {};
}

/// A communicator as ops name it: its members, stored once per step
/// (Interner), and its name.
struct Communicator {
  prog::Members members;
  std::string name;
};

/// One shared member list and name per distinct (kind, members) of a
/// lowering, so that a step's ops hold each group once.
class Interner {
public:
  Communicator get(prog::GroupKind kind, std::vector<int64_t> ranks) {
    auto [it, fresh] = table.try_emplace({kind, std::move(ranks)});
    if (fresh)
      it->second = {prog::Members(it->first.second),
                    communicatorName(kind, it->first.second)};
    return it->second;
  }

private:
  std::map<std::pair<prog::GroupKind, std::vector<int64_t>>, Communicator>
      table;
};

/// The ranks a rank talks to in its group.
struct GroupRanks {
  Communicator tp, ulysses, cp;
  int64_t prevStage = -1, nextStage = -1; ///< same position, other stage
};

GroupRanks groupRanks(const ScheduledGroup &g, const RankPosition &pos,
                      Interner &interner) {
  GroupRanks r;
  const GroupLayout &l = g.layout;
  auto at = [&](RankPosition p) { return g.firstRank + localRankOf(l, p); };
  std::vector<int64_t> tp, ulysses, cp;
  for (int64_t t = 0; t < l.tp; ++t)
    tp.push_back(at({pos.stage, pos.c, pos.u, t}));
  for (int64_t u = 0; u < l.ulysses; ++u)
    ulysses.push_back(at({pos.stage, pos.c, u, pos.t}));
  for (int64_t c = 0; c < l.cp; ++c)
    cp.push_back(at({pos.stage, c, pos.u, pos.t}));
  r.tp = interner.get(prog::GroupKind::Tp, std::move(tp));
  r.ulysses = interner.get(prog::GroupKind::Sp, std::move(ulysses));
  r.cp = interner.get(prog::GroupKind::Cp, std::move(cp));
  // Interleaved stages send their last virtual stage's activations to the
  // first stage's next model chunk: the ring closes.
  const bool ring = l.vpp > 1;
  if (pos.stage > 0 || ring)
    r.prevStage = at({(pos.stage + l.pp - 1) % l.pp, pos.c, pos.u, pos.t});
  if (pos.stage + 1 < l.pp || ring)
    r.nextStage = at({(pos.stage + 1) % l.pp, pos.c, pos.u, pos.t});
  return r;
}

/// One chunk on one stage of its group: the same for every rank there.
struct ChunkWork {
  const ScheduledChunk *chunk = nullptr;
  std::vector<int64_t> seqs, slices;
  std::vector<ChunkLayerCost> layers; ///< the stage's layers, in order
  int64_t checkpointed = 0;           ///< the stage's first layers
  int64_t messageBytes = 0;           ///< activations (or gradients)
  bool idle() const { return seqs.empty(); }
};

/// Everything the emitter of one rank needs besides its group.
struct RankContext {
  const TrainModel &model;
  const StepSchedule &schedule;
  const LoweringOptions &options;
  int64_t zeroWays = 1;
  const Communicator &zero; ///< the rank's ZeRO group
  prog::Program &program;
  Interner &interner;
};

/// Emits the passes of one group's chunks on one rank.
class PassEmitter {
public:
  /// `layers`: the model chunk it runs (the stage's layers when none).
  PassEmitter(RankContext &ctx, const ScheduledGroup &group,
              const RankPosition &pos,
              std::optional<std::pair<int64_t, int64_t>> layers = {})
      : ctx(ctx), layout(group.layout), pos(pos),
        ranks(groupRanks(group, pos, ctx.interner)) {
    std::tie(begin, end) =
        layers ? *layers
               : stageLayers(ctx.model.shape.layers, layout.pp, pos.stage);
    const int64_t step = std::max<int64_t>(1, ctx.options.layersPerOp);
    for (int64_t l = begin; l < end; l += step)
      opLayers.push_back({l, std::min(end, l + step)});
  }

  void forward(const ChunkWork &w) {
    // Once per step: only the rank's first forward gathers its stage.
    const bool gathers = zero3() && (!oncePerStep() || firstForward);
    if (gathers && prefetch())
      gather(opLayers.front());
    for (size_t i = 0; i < opLayers.size(); ++i) {
      auto [a, b] = opLayers[i];
      if (gathers) {
        // On demand (zero_prefetch 0), the layer's gather queues behind
        // the stream's earlier collectives and the layer waits for all.
        if (!prefetch())
          gather(opLayers[i]);
        ctx.program.ops.push_back(prog::Op::wait(0));
        if (prefetch() && i + 1 < opLayers.size())
          gather(opLayers[i + 1]);
      }
      if (w.idle())
        continue;
      const ChunkLayerCost sum = total(w, a, b);
      collective(prog::CommKind::AllToAll, prog::GroupKind::Sp, ranks.ulysses,
                 sum.allToAllBytes);
      // Each rank contributes its K and V.
      collective(prog::CommKind::AllGather, prog::GroupKind::Cp, ranks.cp,
                 sum.cpKvBytes);
      int64_t kept = 0;
      for (int64_t l = a; l < b; ++l) {
        const ChunkLayerCost &c = layer(w, l);
        kept += (checkpointed(w, l) ? c.checkpointBytes : c.fullBytes) +
                c.dkvBytes + c.logitBytes;
      }
      compute(prog::ComputeKind::Fwd, w, a, b, sum.forwardFlops + sum.headFlops,
              sum.forwardSeconds + sum.headSeconds, kept);
      collective(prog::CommKind::AllReduce, prog::GroupKind::Tp, ranks.tp,
                 sum.tpAllReduceBytes);
    }
  }

  void backward(const ChunkWork &w) {
    std::vector<std::pair<int64_t, int64_t>> order(opLayers.rbegin(),
                                                   opLayers.rend());
    // Once per step the weights stay gathered and the gradients accumulate:
    // only the rank's last backward reduces them.
    const bool gathers = zero3() && !oncePerStep();
    const bool reduces = zero3() && (!oncePerStep() || lastBackward);
    if (gathers && prefetch())
      gather(order.front());
    for (size_t i = 0; i < order.size(); ++i) {
      auto [a, b] = order[i];
      if (gathers && !prefetch()) {
        // On demand: the gather runs after the previous group's
        // reduce-scatter, which the layer therefore waits for too.
        gather(order[i]);
        ctx.program.ops.push_back(prog::Op::wait(0));
      } else if (gathers) {
        // The previous group's reduce-scatter may still run on.
        ctx.program.ops.push_back(prog::Op::wait(i > 0 ? 1 : 0));
        if (i + 1 < order.size())
          gather(order[i + 1]);
      }
      if (!w.idle())
        backwardOf(w, a, b);
      if (reduces) {
        // Gradients of the layers, reduced onto their owners (a multiple
        // of the group size, as reduce-scatter needs).
        zeroCollective(prog::CommKind::ReduceScatter,
                       shardBytes(w, a, b) * ctx.zeroWays, {a, b});
      }
    }
  }

  /// A message between stages carrying the chunk's hidden states (forward)
  /// or their gradient (backward).
  void message(prog::Op op, const ChunkWork &w, bool backward) {
    op.carry(backward ? prog::ComputeKind::Bwd : prog::ComputeKind::Fwd, w.seqs,
             w.slices);
    ctx.program.ops.push_back(std::move(op));
  }

  int64_t prevStage() const { return ranks.prevStage; }
  int64_t nextStage() const { return ranks.nextStage; }

private:
  bool zero3() const { return ctx.model.zero == 3 && ctx.zeroWays > 1; }
  bool oncePerStep() const { return ctx.model.zeroOncePerStep; }
  /// TrainModel::zeroPrefetch: gather the next layer ahead (else on demand).
  bool prefetch() const { return ctx.model.zeroPrefetch > 0; }

  const ChunkLayerCost &layer(const ChunkWork &w, int64_t l) const {
    return w.layers[static_cast<size_t>(l - begin)];
  }

  bool checkpointed(const ChunkWork &w, int64_t l) const {
    return l - begin < w.checkpointed;
  }

  ChunkLayerCost total(const ChunkWork &w, int64_t a, int64_t b) const {
    ChunkLayerCost sum;
    for (int64_t l = a; l < b; ++l) {
      const ChunkLayerCost &c = layer(w, l);
      sum.forwardFlops += c.forwardFlops;
      sum.headFlops += c.headFlops;
      sum.coreFlops += c.coreFlops;
      sum.forwardSeconds += c.forwardSeconds;
      sum.headSeconds += c.headSeconds;
      sum.coreSeconds += c.coreSeconds;
      sum.fullBytes += c.fullBytes;
      sum.checkpointBytes += c.checkpointBytes;
      sum.dkvBytes += c.dkvBytes;
      sum.logitBytes += c.logitBytes;
      sum.allToAllBytes += c.allToAllBytes;
      sum.tpAllReduceBytes += c.tpAllReduceBytes;
      sum.cpKvBytes += c.cpKvBytes;
      sum.paramBytes += c.paramBytes;
      sum.paramShardBytes += c.paramShardBytes;
    }
    return sum;
  }

  void backwardOf(const ChunkWork &w, int64_t a, int64_t b) {
    // Checkpointed layers rerun their forward, its communication too.
    const int64_t recomputeEnd = std::clamp(begin + w.checkpointed, a, b);
    if (a < recomputeEnd) {
      const ChunkLayerCost again = total(w, a, recomputeEnd);
      int64_t restored = 0;
      for (int64_t l = a; l < recomputeEnd; ++l)
        restored += layer(w, l).fullBytes - layer(w, l).checkpointBytes;
      collective(prog::CommKind::AllToAll, prog::GroupKind::Sp, ranks.ulysses,
                 again.allToAllBytes);
      collective(prog::CommKind::AllGather, prog::GroupKind::Cp, ranks.cp,
                 again.cpKvBytes);
      compute(prog::ComputeKind::Recompute, w, a, recomputeEnd,
              again.forwardFlops, again.forwardSeconds, restored);
      collective(prog::CommKind::AllReduce, prog::GroupKind::Tp, ranks.tp,
                 again.tpAllReduceBytes);
    }
    const ChunkLayerCost sum = total(w, a, b);
    const bool coreInBackward = ctx.schedule.core == CoreRecompute::InBackward;
    if (!coreInBackward && recomputeEnd < b) {
      const ChunkLayerCost rest = total(w, recomputeEnd, b);
      if (rest.coreFlops > 0)
        compute(prog::ComputeKind::Recompute, w, recomputeEnd, b,
                rest.coreFlops, rest.coreSeconds, 0);
    }
    collective(prog::CommKind::AllReduce, prog::GroupKind::Tp, ranks.tp,
               sum.tpAllReduceBytes);
    collective(prog::CommKind::AllGather, prog::GroupKind::Cp, ranks.cp,
               sum.cpKvBytes);
    compute(prog::ComputeKind::Bwd, w, a, b,
            2 * (sum.forwardFlops + sum.headFlops) +
                (coreInBackward ? sum.coreFlops : 0.0),
            2 * (sum.forwardSeconds + sum.headSeconds) +
                (coreInBackward ? sum.coreSeconds : 0.0),
            -(sum.fullBytes + sum.dkvBytes + sum.logitBytes));
    // dK, dV of every rank's keys, reduced to their owners.
    collective(prog::CommKind::ReduceScatter, prog::GroupKind::Cp, ranks.cp,
               sum.cpKvBytes * layout.cp);
    collective(prog::CommKind::AllToAll, prog::GroupKind::Sp, ranks.ulysses,
               sum.allToAllBytes);
  }

  /// This rank's shard of layers [a, b)'s parameters, with the embedding
  /// or the head when the range carries them (carriedParameters).
  int64_t shardBytes(const ChunkWork &w, int64_t a, int64_t b) const {
    return total(w, a, b).paramShardBytes +
           carriedExtraShardBytes(ctx.model.shape, a, b, layout.tp,
                                  ctx.zeroWays);
  }

  /// Emits a collective of `bytes` (none when 0) over `comm`.
  void collective(prog::CommKind kind, prog::GroupKind group,
                  const Communicator &comm, int64_t bytes) {
    if (bytes <= 0)
      return;
    ctx.program.ops.push_back(
        prog::Op::collective(kind, group, comm.name, comm.members, bytes));
  }

  /// A ZeRO-3 gather or reduction of layers [a, b), on the communication
  /// stream.
  void zeroCollective(prog::CommKind kind, int64_t bytes,
                      std::pair<int64_t, int64_t> layers) {
    ctx.program.ops.push_back(
        prog::Op::collective(kind, prog::GroupKind::Zero, ctx.zero.name,
                             ctx.zero.members, bytes, /*async=*/true));
    ctx.program.ops.back().carryLayers(layers.first, layers.second);
  }

  void gather(std::pair<int64_t, int64_t> layers) {
    zeroCollective(prog::CommKind::AllGather,
                   shardBytes(*work, layers.first, layers.second), layers);
  }

  void compute(prog::ComputeKind kind, const ChunkWork &w, int64_t a, int64_t b,
               double flops, double seconds, int64_t memDelta) {
    std::string label = std::string(prog::toString(kind)) + " " +
                        w.chunk->name + " layers " + num(a) + "-" + num(b);
    prog::Op op = prog::Op::compute(std::move(label), kind, seconds, memDelta);
    op.layerBegin = a;
    op.layerEnd = b;
    op.stage = pos.stage;
    op.seqs = w.seqs;
    if (ctx.schedule.sliceIndices)
      op.slices = w.slices;
    op.flops = flops;
    if (ranks.ulysses.members.size() > 1) {
      op.ulysses = ranks.ulysses.name;
      op.ulyssesRanks = ranks.ulysses.members;
    }
    ctx.program.ops.push_back(std::move(op));
  }

public:
  /// The chunk the next forward or backward runs (its parameters are what
  /// ZeRO gathers).
  const ChunkWork *work = nullptr;
  /// TrainModel::zeroOncePerStep: the next forward is the rank's first of
  /// the step (it gathers), the next backward its last (it reduces).
  bool firstForward = false, lastBackward = false;

private:
  RankContext &ctx;
  GroupLayout layout;
  RankPosition pos;
  GroupRanks ranks;
  int64_t begin = 0, end = 0;
  std::vector<std::pair<int64_t, int64_t>> opLayers;
};

/// Every chunk of `group` on stage `stage`, over the stage's layers or,
/// with `layers`, one model chunk of them.
std::string chunkWorks(const StepSchedule &schedule, const TrainModel &model,
                       const ScheduledGroup &group,
                       const std::vector<std::vector<int64_t>> &slices,
                       int64_t stage, int64_t zeroWays,
                       std::vector<ChunkWork> &out,
                       std::optional<std::pair<int64_t, int64_t>> layers = {}) {
  const cost::TransformerShape &shape = model.shape;
  const GroupLayout &l = group.layout;
  auto [begin, end] = layers ? *layers : stageLayers(shape.layers, l.pp, stage);
  out.clear();
  for (size_t k = 0; k < group.chunks.size(); ++k) {
    const ScheduledChunk &chunk = group.chunks[k];
    ChunkWork w;
    w.chunk = &chunk;
    double tokens = 0;
    for (const ChunkSlice &s : chunk.slices) {
      w.seqs.push_back(s.sequence);
      tokens += static_cast<double>(s.tokens());
    }
    w.slices = slices[k];
    w.messageBytes = static_cast<int64_t>(std::llround(
        tokens / static_cast<double>(l.ulysses * l.cp * l.tp) *
        static_cast<double>(shape.hidden * cost::bytesPerElement(shape.dtype))));
    for (int64_t layer = begin; layer < end; ++layer) {
      // Past the model's checkpointed layers (TrainModel::checkpointingAt).
      const cost::Checkpointing kept =
          schedule.activationLayers > 0 && layer >= schedule.activationLayers
              ? schedule.activationsPast
              : schedule.activations;
      auto c = chunkLayerCost(model, l, kept, chunk.slices, schedule.lengths,
                              layer, zeroWays);
      if (!c.ok())
        return chunk.name + ": " + c.problems.front().message;
      w.layers.push_back(c.value);
    }
    if (!group.remat.empty())
      w.checkpointed = std::min(
          group.remat[static_cast<size_t>(stage)][static_cast<size_t>(k)],
          end - begin);
    out.push_back(std::move(w));
  }
  return {};
}

/// The checks of a schedule that the plan forms' checks leave to it.
std::string checkSchedule(const StepSchedule &schedule,
                          const TrainModel &model) {
  if (schedule.world < 1)
    return "the step has no ranks";
  if (schedule.phases.empty() || schedule.phases[0].groups.empty())
    return "the step has no micro-batch";
  if (!(model.chip.bf16Flops > 0) || !(model.efficiency > 0) ||
      model.efficiency > 1)
    return "the chip needs a BF16 peak and an efficiency in (0, 1]";
  const GroupLayout &first = schedule.phases[0].groups[0].layout;
  // Chunk id -> the rank ranges [first, last) of the groups running it.
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> chunkRanks;
  for (size_t i = 0; i < schedule.phases.size(); ++i) {
    std::vector<int> covered(static_cast<size_t>(schedule.world), 0);
    for (const ScheduledGroup &g : schedule.phases[i].groups) {
      const GroupLayout &l = g.layout;
      const std::string where = "phase " + num(static_cast<int64_t>(i)) +
                                ", group at rank " + num(g.firstRank);
      if (l.ulysses < 1 || l.tp < 1 || l.cp < 1 || l.pp < 1)
        return where + ": every parallel degree must be at least 1";
      if (g.firstRank < 0 || g.firstRank + l.degree() > schedule.world)
        return where + ": its ranks leave the world of " + num(schedule.world);
      for (int64_t r = g.firstRank; r < g.firstRank + l.degree(); ++r)
        if (covered[static_cast<size_t>(r)]++)
          return where + ": rank " + num(r) + " is in two groups";
      if (l.tp != first.tp || l.pp != first.pp || l.vpp != first.vpp)
        return where + ": tensor and pipeline degrees must be the same in "
                       "every group of a step";
      if (l.vpp < 1)
        return where + ": a stage holds at least one model chunk";
      if (l.vpp > 1) {
        if (l.pp < 2)
          return where + ": " + num(l.vpp) +
                 " model chunks per stage need a pipeline of at least 2 "
                 "stages";
        if (l.vpp > model.shape.layers / l.pp)
          return where + ": " + num(l.pp) + " stages x " + num(l.vpp) +
                 " model chunks for " + num(model.shape.layers) + " layers";
        bool plain = g.nSplit == 1;
        for (size_t k = 0; k < g.backward.size(); ++k)
          plain = plain && g.backward[k] == static_cast<int64_t>(k);
        if (!plain)
          return where + ": interleaved 1F1B runs whole micro-batches in "
                         "order (no split sequences)";
        // Each model chunk would need its own first gather and last
        // reduction; Megatron-LM interleaves with ZeRO <= 1 in any case.
        if (model.zero == 3 || model.zeroOncePerStep)
          return where + ": interleaved 1F1B needs zero <= 2";
        // remat counts a stage's first layers; with model chunks only none
        // or all of them has one meaning.
        for (size_t s = 0; s < g.remat.size(); ++s) {
          auto [a, b] =
              stageLayers(model.shape.layers, l.pp, static_cast<int64_t>(s));
          for (int64_t k : g.remat[s])
            if (k != 0 && k < b - a)
              return where + ": interleaved 1F1B checkpoints none or all of "
                             "a stage's layers";
        }
        // Tags 2 * (id * pp * vpp + j) + 1 must not overflow.
        const int64_t bound = (int64_t(1) << 40) / (l.pp * l.vpp);
        for (const ScheduledChunk &c : g.chunks)
          if (c.id < 0 || c.id >= bound)
            return where + ": chunk id " + num(c.id) +
                   " is out of range for interleaved message tags";
      }
      if (l.pp > model.shape.layers)
        return where + ": " + num(l.pp) + " stages for " +
               num(model.shape.layers) + " layers";
      if (model.shape.heads % (l.tp * l.ulysses) != 0)
        return where + ": heads (" + num(model.shape.heads) +
               ") do not split over tp * ulysses (" + num(l.tp * l.ulysses) +
               ")";
      const int64_t n = static_cast<int64_t>(g.chunks.size());
      bool permutation = static_cast<int64_t>(g.backward.size()) == n;
      std::vector<char> seen(static_cast<size_t>(n), 0);
      for (int64_t k : g.backward)
        if (!permutation || k < 0 || k >= n || seen[static_cast<size_t>(k)]++) {
          permutation = false;
          break;
        }
      if (!permutation)
        return where + ": the backward order is not a permutation of the " +
               num(n) + " chunks";
      if (!g.remat.empty()) {
        if (static_cast<int64_t>(g.remat.size()) != l.pp)
          return where + ": remat needs one row per stage";
        for (const std::vector<int64_t> &row : g.remat)
          if (row.size() != g.chunks.size())
            return where + ": remat needs one entry per chunk";
      }
      for (const ScheduledChunk &c : g.chunks) {
        for (const ChunkSlice &s : c.slices) {
          if (s.sequence < 0 ||
              s.sequence >= static_cast<int64_t>(schedule.lengths.size()))
            return where + ": sequence " + num(s.sequence) + " has no length";
          const int64_t length =
              schedule.lengths[static_cast<size_t>(s.sequence)];
          if (s.begin < 0 || s.end > length || s.begin >= s.end)
            return where + ": chunk " + c.name + " slices tokens [" +
                   num(s.begin) + ", " + num(s.end) + ") of sequence " +
                   num(s.sequence) + ", which has " + num(length);
        }
        // A chunk's id numbers its messages (tags 2 * id, 2 * id + 1): no
        // two chunks a rank runs may share one.
        std::vector<std::pair<int64_t, int64_t>> &ranges = chunkRanks[c.id];
        const int64_t last = g.firstRank + l.degree();
        for (const auto &[from, to] : ranges)
          if (from < last && g.firstRank < to)
            return where + ": chunk " + c.name + " has id " + num(c.id) +
                   ", which another chunk on its ranks has";
        ranges.emplace_back(g.firstRank, last);
      }
    }
    for (int64_t r = 0; r < schedule.world; ++r)
      if (!covered[static_cast<size_t>(r)])
        return "phase " + num(static_cast<int64_t>(i)) + ": rank " + num(r) +
               " is in no group";
  }
  return {};
}

} // namespace

LoweredStep lowerSchedule(const StepSchedule &schedule, const TrainModel &model,
                          const LoweringOptions &options) {
  LoweredStep out;
  if (std::string error = checkSchedule(schedule, model); !error.empty()) {
    out.error = error;
    return out;
  }
  const int64_t world = schedule.world;
  const GroupLayout &layout0 = schedule.phases[0].groups[0].layout;
  const int64_t tp = layout0.tp, pp = layout0.pp;
  const int64_t zeroWays = world / (tp * pp);

  // ZeRO / data-parallel groups: ranks with the same (stage, tensor index)
  // in phase 0; later phases must agree.
  std::vector<std::pair<int64_t, int64_t>> key(static_cast<size_t>(world));
  for (size_t i = 0; i < schedule.phases.size(); ++i)
    for (int64_t r = 0; r < world; ++r) {
      const RankPosition pos = seatOf(schedule.phases[i], r).pos;
      const std::pair<int64_t, int64_t> k{pos.stage, pos.t};
      if (i == 0)
        key[static_cast<size_t>(r)] = k;
      else if (key[static_cast<size_t>(r)] != k) {
        out.error = "micro-batch " + num(static_cast<int64_t>(i)) +
                    ": rank " + num(r) +
                    " changes its stage or tensor slice between micro-batches";
        return out;
      }
    }
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> zeroGroups;
  for (int64_t r = 0; r < world; ++r)
    zeroGroups[key[static_cast<size_t>(r)]].push_back(r);
  for (auto &[k, members] : zeroGroups)
    if (static_cast<int64_t>(members.size()) != zeroWays) {
      out.error = "ranks of stage " + num(k.first) + " and tensor slice " +
                  num(k.second) + " number " +
                  num(static_cast<int64_t>(members.size())) +
                  ", not world / (tp * pp) = " + num(zeroWays);
      return out;
    }

  Interner interner;
  std::map<std::pair<int64_t, int64_t>, Communicator> zeroComms, dpComms;
  for (const auto &[k, members] : zeroGroups) {
    zeroComms[k] = interner.get(prog::GroupKind::Zero, members);
    dpComms[k] = interner.get(prog::GroupKind::Dp, members);
  }

  out.programs.resize(static_cast<size_t>(world));
  const int64_t layersPerOp = std::max<int64_t>(1, options.layersPerOp);
  for (int64_t r = 0; r < world; ++r) {
    const Seat seat = seatOf(schedule.phases[0], r);
    out.resident.push_back(residentParts(
        model, seat.group->layout, seat.pos.stage, zeroWays, layersPerOp));
    out.programs[static_cast<size_t>(r)].initialMemoryBytes =
        out.resident.back().total();
  }

  const auto slices = sliceIndices(schedule);
  // Two passes over the phases: the first emits one rank of each group's
  // stage (they all emit as many ops) to count every program's ops, so
  // that the second emits into programs of the right capacity.
  std::vector<size_t> opCounts(static_cast<size_t>(world), 0);
  // TrainModel::zeroOncePerStep: where each rank's last backward of the
  // step is (phase, group, step index), found by the counting pass; and
  // whether a rank has run its first forward yet, per pass.
  struct Where {
    size_t phase = 0, group = 0, step = 0;
    bool set = false;
  };
  std::vector<Where> lastBackwardOf(static_cast<size_t>(world));
  std::vector<char> forwarded;
  // One stage of a group: every rank at stage `s` runs `items` in order,
  // each chunk's passes through its model chunk's layers (`chunkLayers`,
  // one per model chunk; none: the stage's layers), messages tagged by
  // `tagOf`. The counting pass emits one rank of the stage and counts the
  // others alike.
  struct StageItem {
    StepKind kind;
    int64_t chunk, position;
  };
  auto emitStage = [&](size_t i, size_t gi, const ScheduledGroup &group,
                       int64_t s, const std::vector<StageItem> &items,
                       const std::vector<std::pair<int64_t, int64_t>>
                           &chunkLayers,
                       const std::function<const ChunkWork &(const StageItem &)>
                           &workOf,
                       const std::function<int64_t(const StageItem &,
                                                   const ChunkWork &)> &tagOf,
                       bool asyncSends, bool countOnly) {
    const GroupLayout &l = group.layout;
    size_t lastBackward = 0;
    for (size_t k = 0; k < items.size(); ++k)
      if (items[k].kind == StepKind::Backward)
        lastBackward = k;
    bool counted = false;
    size_t count = 0;
    for (int64_t local = 0; local < l.degree(); ++local) {
      const RankPosition pos = positionOf(l, local);
      if (pos.stage != s)
        continue;
      const int64_t r = group.firstRank + local;
      if (countOnly && !items.empty())
        lastBackwardOf[static_cast<size_t>(r)] = {i, gi, lastBackward, true};
      if (countOnly && counted) {
        opCounts[static_cast<size_t>(r)] += count;
        continue;
      }
      prog::Program scratch;
      prog::Program &program =
          countOnly ? scratch : out.programs[static_cast<size_t>(r)];
      RankContext ctx{model,
                      schedule,
                      options,
                      zeroWays,
                      zeroComms[key[static_cast<size_t>(r)]],
                      program,
                      interner};
      std::vector<PassEmitter> emitters;
      if (chunkLayers.empty())
        emitters.emplace_back(ctx, group, pos);
      for (const auto &layers : chunkLayers)
        emitters.emplace_back(ctx, group, pos, layers);
      const Where &last = lastBackwardOf[static_cast<size_t>(r)];
      // Interleaved stages post their sends on the communication stream.
      auto sendOp = [&](int64_t peer, int64_t bytes, int64_t tag) {
        prog::Op op = prog::Op::send(peer, bytes, tag);
        op.async = asyncSends;
        return op;
      };
      for (size_t k = 0; k < items.size(); ++k) {
        const StageItem &it = items[k];
        PassEmitter &emit = emitters[static_cast<size_t>(it.chunk)];
        const ChunkWork &w = workOf(it);
        emit.work = &w;
        switch (it.kind) {
        case StepKind::Forward:
          emit.firstForward = !forwarded[static_cast<size_t>(r)];
          forwarded[static_cast<size_t>(r)] = 1;
          emit.forward(w);
          break;
        case StepKind::Backward:
          // The counting pass does not know yet: it reduces in every
          // backward, which only over-reserves.
          emit.lastBackward = countOnly || (last.set && last.phase == i &&
                                            last.group == gi && last.step == k);
          emit.backward(w);
          break;
        case StepKind::SendActivations:
          emit.message(sendOp(emit.nextStage(), w.messageBytes, tagOf(it, w)),
                       w, false);
          break;
        case StepKind::RecvActivations:
          emit.message(
              prog::Op::recv(emit.prevStage(), w.messageBytes, tagOf(it, w)), w,
              false);
          break;
        case StepKind::SendGradients:
          emit.message(sendOp(emit.prevStage(), w.messageBytes, tagOf(it, w)),
                       w, true);
          break;
        case StepKind::RecvGradients:
          emit.message(
              prog::Op::recv(emit.nextStage(), w.messageBytes, tagOf(it, w)), w,
              true);
          break;
        }
      }
      if (countOnly) {
        counted = true;
        count = scratch.ops.size();
        opCounts[static_cast<size_t>(r)] += count;
      }
    }
  };
  // One group under interleaved 1F1B (layout.vpp model chunks per stage):
  // each stage's passes in Megatron-core's order, and every message placed
  // by one global order of the passes' starts and ends (step::timePasses),
  // the same on both sides of every link (the timing counts the passes'
  // collectives and messages when options.passCommTime is given). Sends go
  // on the communication stream, which posts them in that order; a send
  // still completes only when its receive is posted, so any two ranks meet
  // their shared messages in one order, and the earliest message not yet
  // exchanged always finds both sides at it: no wait can close a cycle,
  // the wrap-around link included, even where a runtime sends blocking.
  auto emitInterleaved = [&](size_t i, size_t gi, const ScheduledGroup &group,
                             const std::string &where,
                             bool countOnly) -> std::string {
    const GroupLayout &l = group.layout;
    const int64_t p = l.pp, v = l.vpp, virtualStages = p * v;
    const int64_t n = static_cast<int64_t>(group.chunks.size());
    std::vector<std::vector<step::VirtualPass>> orders(static_cast<size_t>(p));
    for (int64_t s = 0; s < p; ++s)
      if (std::string error = step::interleavedStageOrder(
              p, s, v, n, orders[static_cast<size_t>(s)]);
          !error.empty())
        return where + ": " + error;
    // Every model chunk's work: works[j] for virtual stage j.
    std::vector<std::vector<ChunkWork>> works(
        static_cast<size_t>(virtualStages));
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (int64_t j = 0; j < virtualStages; ++j) {
      ranges.push_back(stageLayers(model.shape.layers, virtualStages, j));
      if (std::string error =
              chunkWorks(schedule, model, group, slices[i][gi], j % p, zeroWays,
                         works[static_cast<size_t>(j)], ranges.back());
          !error.empty())
        return error;
    }
    // A pass's collectives, timed once per (kind, group, bytes) by the
    // isolated callback (none without one: compute only).
    std::vector<GroupRanks> stageRanks;
    for (int64_t s = 0; s < p; ++s)
      stageRanks.push_back(groupRanks(group, {s, 0, 0, 0}, interner));
    std::map<std::tuple<prog::CommKind, std::string, int64_t>, double> timed;
    // One callback answer per key; an error or a bad duration counts 0.
    auto timeOf = [&](std::tuple<prog::CommKind, std::string, int64_t> key,
                      const std::function<prog::CommRequest()> &request) {
      auto [it, fresh] = timed.try_emplace(std::move(key), 0.0);
      if (fresh) {
        prog::CommTime t = options.passCommTime(request());
        it->second =
            t.error.empty() && std::isfinite(t.seconds) && t.seconds >= 0
                ? t.seconds
                : 0;
      }
      return it->second;
    };
    auto comm = [&](prog::CommKind kind, const Communicator &c,
                    int64_t bytes) -> double {
      if (!options.passCommTime || bytes <= 0 || c.members.size() < 2)
        return 0;
      return timeOf({kind, c.name, bytes}, [&] {
        prog::CommRequest req;
        req.kind = kind;
        req.ranks = c.members.vec();
        req.members = c.members;
        req.group = c.name;
        req.bytes = bytes;
        return req;
      });
    };
    auto seconds = [&](int64_t j, int64_t position, bool backward) {
      const ChunkWork &w =
          works[static_cast<size_t>(j)][static_cast<size_t>(position)];
      const GroupRanks &g = stageRanks[static_cast<size_t>(j % p)];
      double f = 0, again = 0, fc = 0, againC = 0, bc = 0;
      for (size_t k = 0; k < w.layers.size(); ++k) {
        const ChunkLayerCost &c = w.layers[k];
        const double forwardComm =
            comm(prog::CommKind::AllToAll, g.ulysses, c.allToAllBytes) +
            comm(prog::CommKind::AllGather, g.cp, c.cpKvBytes) +
            comm(prog::CommKind::AllReduce, g.tp, c.tpAllReduceBytes);
        f += c.forwardSeconds + c.headSeconds;
        fc += forwardComm;
        bc += comm(prog::CommKind::AllReduce, g.tp, c.tpAllReduceBytes) +
              comm(prog::CommKind::AllGather, g.cp, c.cpKvBytes) +
              comm(prog::CommKind::ReduceScatter, g.cp, c.cpKvBytes * l.cp) +
              comm(prog::CommKind::AllToAll, g.ulysses, c.allToAllBytes);
        if (static_cast<int64_t>(k) < w.checkpointed) {
          again += c.forwardSeconds;
          againC += forwardComm;
        }
      }
      return backward ? 2 * f + again + bc + againC : f + fc;
    };
    step::PassTiming timing;
    // A message from virtual stage j's pass to its neighbour's, between the
    // stages' first ranks.
    auto transfer = [&](int64_t j, int64_t position, bool backward) -> double {
      if (!options.passCommTime)
        return 0;
      const ChunkWork &w =
          works[static_cast<size_t>(j)][static_cast<size_t>(position)];
      const int64_t from = j % p;
      const int64_t to = (from + (backward ? p - 1 : 1)) % p;
      return timeOf({prog::CommKind::PointToPoint, num(from) + ">" + num(to),
                     w.messageBytes},
                    [&] {
                      prog::CommRequest req;
                      req.kind = prog::CommKind::PointToPoint;
                      req.ranks = {
                          group.firstRank + localRankOf(l, {from, 0, 0, 0}),
                          group.firstRank + localRankOf(l, {to, 0, 0, 0})};
                      req.bytes = w.messageBytes;
                      return req;
                    });
    };
    if (std::string error =
            step::timePasses(p, v, n, orders, seconds, timing, transfer);
        !error.empty())
      return where + ": " + error;
    // The end event of each (virtual stage, position, backward?).
    std::vector<int64_t> endOf(static_cast<size_t>(virtualStages * n * 2), 0);
    auto at = [&](int64_t j, int64_t position, bool backward) {
      return static_cast<size_t>((j * n + position) * 2 + backward);
    };
    for (int64_t s = 0; s < p; ++s)
      for (size_t k = 0; k < orders[static_cast<size_t>(s)].size(); ++k) {
        const step::VirtualPass &x = orders[static_cast<size_t>(s)][k];
        endOf[at(x.chunk * p + s, x.position, x.backward)] =
            timing.endRank[static_cast<size_t>(s)][k];
      }
    struct Item {
      int64_t key;
      StepKind kind;
      int64_t chunk, position;
    };
    for (int64_t s = 0; s < p; ++s) {
      std::vector<Item> items;
      const auto &order = orders[static_cast<size_t>(s)];
      for (size_t k = 0; k < order.size(); ++k) {
        const step::VirtualPass &x = order[k];
        const int64_t j = x.chunk * p + s;
        const int64_t startKey = timing.startRank[static_cast<size_t>(s)][k];
        const int64_t endKey = timing.endRank[static_cast<size_t>(s)][k];
        if (!x.backward) {
          if (j > 0)
            items.push_back({endOf[at(j - 1, x.position, false)],
                             StepKind::RecvActivations, x.chunk, x.position});
          items.push_back({startKey, StepKind::Forward, x.chunk, x.position});
          if (j + 1 < virtualStages)
            items.push_back(
                {endKey, StepKind::SendActivations, x.chunk, x.position});
        } else {
          if (j + 1 < virtualStages)
            items.push_back({endOf[at(j + 1, x.position, true)],
                             StepKind::RecvGradients, x.chunk, x.position});
          items.push_back({startKey, StepKind::Backward, x.chunk, x.position});
          if (j > 0)
            items.push_back(
                {endKey, StepKind::SendGradients, x.chunk, x.position});
        }
      }
      std::sort(items.begin(), items.end(),
                [](const Item &a, const Item &b) { return a.key < b.key; });
      std::vector<StageItem> stageItems;
      stageItems.reserve(items.size());
      for (const Item &it : items)
        stageItems.push_back({it.kind, it.chunk, it.position});
      std::vector<std::pair<int64_t, int64_t>> chunkLayers;
      for (int64_t c = 0; c < v; ++c)
        chunkLayers.push_back(ranges[static_cast<size_t>(c * p + s)]);
      emitStage(
          i, gi, group, s, stageItems, chunkLayers,
          [&](const StageItem &it) -> const ChunkWork & {
            return works[static_cast<size_t>(it.chunk * p + s)]
                        [static_cast<size_t>(it.position)];
          },
          // Messages over the link from virtual stage j to j + 1 are
          // numbered by j: 2 (id * virtualStages + j), + 1 for gradients.
          [&](const StageItem &it, const ChunkWork &w) {
            const int64_t j = it.chunk * p + s;
            const bool gradients = it.kind == StepKind::SendGradients ||
                                   it.kind == StepKind::RecvGradients;
            const bool toNext = it.kind == StepKind::SendActivations ||
                                it.kind == StepKind::RecvGradients;
            return 2 * (w.chunk->id * virtualStages + (toNext ? j : j - 1)) +
                   (gradients ? 1 : 0);
          },
          /*asyncSends=*/true, countOnly);
    }
    return {};
  };
  auto emitPhases = [&](bool countOnly) -> std::string {
    forwarded.assign(static_cast<size_t>(world), 0);
    for (size_t i = 0; i < schedule.phases.size(); ++i) {
      const SchedulePhase &phase = schedule.phases[i];
      for (size_t gi = 0; gi < phase.groups.size(); ++gi) {
        const ScheduledGroup &group = phase.groups[gi];
        if (group.chunks.empty())
          continue;
        const GroupLayout &l = group.layout;
        const std::string where = "phase " + num(static_cast<int64_t>(i)) +
                                  ", group at rank " + num(group.firstRank);
        // Each stage's steps; neighbours must agree on every link's message
        // order, or the programs could wait on each other. Every N_split
        // above n gives every stage all n forwards before its first
        // backward; capping it keeps the window arithmetic far from overflow.
        const int64_t n = static_cast<int64_t>(group.chunks.size());
        if (l.vpp > 1) {
          if (std::string error =
                  emitInterleaved(i, gi, group, where, countOnly);
              !error.empty())
            return error;
          continue;
        }
        std::vector<std::vector<int64_t>> orders(static_cast<size_t>(l.pp));
        for (int64_t s = 0; s < l.pp; ++s)
          if (std::string error = step::oneFOneBStageOrder(
                  l.pp, s, group.backward, std::min(group.nSplit, n + 1),
                  orders[static_cast<size_t>(s)]);
              !error.empty()) {
            return where + ": " + error;
          }
        std::vector<std::vector<StageStep>> steps;
        for (int64_t s = 0; s < l.pp; ++s)
          steps.push_back(stageSteps(orders, s));
        for (int64_t s = 0; s + 1 < l.pp; ++s)
          if (linkMessages(steps[static_cast<size_t>(s)], true) !=
              linkMessages(steps[static_cast<size_t>(s + 1)], false)) {
            return where + ": stages " + num(s) + " and " + num(s + 1) +
                   " would exchange activations and gradients in different "
                   "orders";
          }
        std::vector<ChunkWork> works;
        for (int64_t s = 0; s < l.pp; ++s) {
          if (std::string error = chunkWorks(schedule, model, group,
                                             slices[i][gi], s, zeroWays, works);
              !error.empty())
            return error;
          std::vector<StageItem> items;
          for (const StageStep &st : steps[static_cast<size_t>(s)])
            items.push_back({st.kind, 0, st.position});
          emitStage(
              i, gi, group, s, items, {},
              [&](const StageItem &it) -> const ChunkWork & {
                return works[static_cast<size_t>(it.position)];
              },
              [](const StageItem &it, const ChunkWork &w) {
                const bool gradients = it.kind == StepKind::SendGradients ||
                                       it.kind == StepKind::RecvGradients;
                return 2 * w.chunk->id + (gradients ? 1 : 0);
              },
              /*asyncSends=*/false, countOnly);
        }
      }
    }
    return {};
  };
  if (std::string error = emitPhases(/*countOnly=*/true); !error.empty()) {
    out = LoweredStep();
    out.error = error;
    return out;
  }
  // The end-of-step synchronisation adds at most three ops per model chunk
  // and a wait.
  for (int64_t r = 0; r < world; ++r)
    out.programs[static_cast<size_t>(r)].ops.reserve(
        opCounts[static_cast<size_t>(r)] + 3 * layout0.vpp + 1);
  if (std::string error = emitPhases(/*countOnly=*/false); !error.empty()) {
    out = LoweredStep();
    out.error = error;
    return out;
  }


  // Data-parallel gradient synchronisation at the end of the step. Across
  // replicas (options.replicas > 1) it is hierarchical: the replica
  // reduces its gradients onto their owners (ZeRO-3's reduce-scatters,
  // else a reduce-scatter over the ZeRO group), each owner all-reduces its
  // shard with its images in the other replicas, and ZeRO 0-2 gather the
  // whole gradients back inside the replica.
  const int64_t replicas = std::max<int64_t>(1, options.replicas);
  auto crossReplica = [&](int64_t r, int64_t a, int64_t b, int64_t shard) {
    std::vector<int64_t> images;
    images.reserve(static_cast<size_t>(replicas));
    for (int64_t k = 0; k < replicas; ++k)
      images.push_back(r + k * world);
    const Communicator &c = interner.get(prog::GroupKind::Dp, images);
    prog::Program &program = out.programs[static_cast<size_t>(r)];
    program.ops.push_back(prog::Op::collective(prog::CommKind::AllReduce,
                                               prog::GroupKind::Dp, c.name,
                                               c.members, shard));
    program.ops.back().carryLayers(a, b);
  };
  // Each model chunk of a stage synchronises its own buffer (one range
  // without interleaving).
  if (replicas > 1 && (model.zero == 3 || zeroWays == 1))
    for (int64_t r = 0; r < world; ++r) {
      const Seat seat = seatOf(schedule.phases[0], r);
      if (zeroWays > 1) // ZeRO-3: the rank's shard, once its reductions end
        out.programs[static_cast<size_t>(r)].ops.push_back(prog::Op::wait(0));
      for (auto [a, b] : rankLayerRanges(model.shape.layers, seat.group->layout,
                                         seat.pos.stage)) {
        int64_t grads = carriedParameters(model.shape, a, b);
        grads = ceilDiv(grads, tp) * cost::bytesPerElement(model.shape.dtype);
        crossReplica(r, a, b, ceilDiv(grads, zeroWays));
      }
    }
  if (model.zero < 3 && zeroWays > 1)
    for (int64_t r = 0; r < world; ++r) {
      const Seat seat = seatOf(schedule.phases[0], r);
      for (auto [a, b] : rankLayerRanges(model.shape.layers, seat.group->layout,
                                         seat.pos.stage)) {
        int64_t grads = carriedParameters(model.shape, a, b);
        grads = ceilDiv(grads, tp) * cost::bytesPerElement(model.shape.dtype);
        grads = ceilDiv(grads, zeroWays) * zeroWays;
        const Communicator &dp = dpComms[key[static_cast<size_t>(r)]];
        const prog::Members &members = dp.members;
        const std::string &name = dp.name;
        prog::Program &program = out.programs[static_cast<size_t>(r)];
        if (model.zero == 0 && replicas == 1) {
          program.ops.push_back(prog::Op::collective(prog::CommKind::AllReduce,
                                                     prog::GroupKind::Dp, name,
                                                     members, grads));
          program.ops.back().carryLayers(a, b);
        } else {
          program.ops.push_back(
              prog::Op::collective(prog::CommKind::ReduceScatter,
                                   prog::GroupKind::Dp, name, members, grads));
          program.ops.back().carryLayers(a, b);
          if (replicas > 1)
            crossReplica(r, a, b, grads / zeroWays);
          program.ops.push_back(prog::Op::collective(
              prog::CommKind::AllGather, prog::GroupKind::Dp, name, members,
              grads / zeroWays));
          program.ops.back().carryLayers(a, b);
        }
      }
    }

  // Over every rank in rank order, each program in its order.
  for (const prog::Program &program : out.programs)
    for (const prog::Op &op : program.ops)
      if (op.kind == prog::OpKind::Compute)
        out.totalFlops += op.flops;
  return out;
}

LoweredStep lowerStep(const StepPlan &plan, const TrainModel &model,
                      const LoweringOptions &options) {
  if (std::string error = checkStepPlan(plan, model); !error.empty()) {
    LoweredStep out;
    out.error = error;
    return out;
  }
  return lowerSchedule(scheduleOf(plan, model), model, options);
}

LoweredStep lowerPipelinedStep(const PipelinedStepPlan &plan,
                               const TrainModel &model,
                               const LoweringOptions &options) {
  if (std::string error = checkPipelinedStepPlan(plan, model); !error.empty()) {
    LoweredStep out;
    out.error = error;
    return out;
  }
  // A dynamic pipeline's runtime runs ZeRO-3 as its tailored FSDP does:
  // once per step (TrainModel::zeroOncePerStep), whoever planned it.
  TrainModel once = model;
  once.zeroOncePerStep = true;
  return lowerSchedule(scheduleOf(plan), once, options);
}
} // namespace plexus::lower
