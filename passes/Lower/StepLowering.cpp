//===- StepLowering.cpp - A planned step as per-rank programs -------------===//
#include "passes/Lower/StepLowering.h"
#include "passes/StepModel/LayerWork.h"
#include "passes/StepModel/OneFOneB.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace plexus::lower {

using namespace step;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t roundBytes(double bytes) {
  return static_cast<int64_t>(std::llround(bytes));
}

} // namespace

void applyRingOrders(std::vector<prog::Program> &programs,
                     const RingOrders &orders) {
  if (orders.empty())
    return;
  auto reorder = [&](std::vector<int64_t> &ranks) {
    if (ranks.size() < 3) // two ranks make one ring either way
      return;
    std::vector<int64_t> key = ranks;
    std::sort(key.begin(), key.end());
    auto it = orders.find(key);
    if (it != orders.end())
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

/// Everything the emitters of one rank need.
struct RankContext {
  const TrainModel &model;
  const StepPlan &plan;
  const LoweringOptions &options;
  int64_t rank = 0;
  int64_t zeroWays = 1;
  std::vector<int64_t> zeroRanks; ///< the rank's ZeRO / data-parallel group
  prog::Program &program;
  double &flops;
};

struct GroupRanks {
  std::vector<int64_t> tp, ulysses, cp;
  int64_t prevStage = -1, nextStage = -1; ///< same position, other stage
};

GroupRanks groupRanks(const PlannedGroup &g, const RankPosition &pos) {
  GroupRanks r;
  const GroupLayout &l = g.layout;
  auto at = [&](RankPosition p) { return g.firstRank + localRankOf(l, p); };
  for (int64_t t = 0; t < l.tp; ++t)
    r.tp.push_back(at({pos.stage, pos.c, pos.u, t}));
  for (int64_t u = 0; u < l.ulysses; ++u)
    r.ulysses.push_back(at({pos.stage, pos.c, u, pos.t}));
  for (int64_t c = 0; c < l.cp; ++c)
    r.cp.push_back(at({pos.stage, c, pos.u, pos.t}));
  if (pos.stage > 0)
    r.prevStage = at({pos.stage - 1, pos.c, pos.u, pos.t});
  if (pos.stage + 1 < l.pp)
    r.nextStage = at({pos.stage + 1, pos.c, pos.u, pos.t});
  return r;
}

/// Emits one micro-batch's forward or backward on one rank.
class PassEmitter {
public:
  PassEmitter(RankContext &ctx, const PlannedGroup &group, int64_t mbIndex,
              const RankPosition &pos)
      : ctx(ctx), group(group), mb(mbIndex), pos(pos),
        ranks(groupRanks(group, pos)) {
    for (int64_t id : group.seqs)
      lengths.push_back(ctx.plan.lengths[id]);
    std::tie(begin, end) =
        stageLayers(ctx.model.shape.layers, group.layout.pp, pos.stage);
  }

  std::string build(bool backward) {
    const int64_t step = std::max<int64_t>(1, ctx.options.layersPerOp);
    std::vector<std::pair<int64_t, int64_t>> chunks;
    for (int64_t l = begin; l < end; l += step)
      chunks.push_back({l, std::min(end, l + step)});
    if (backward)
      std::reverse(chunks.begin(), chunks.end());
    // ZeRO-3 gathers each chunk's parameters on the communication stream
    // one chunk ahead (prefetch), and reduces its gradients there after
    // the backward; the wait before a chunk needs its gather done and
    // lets the previous chunk's reduction run on.
    std::vector<LayerWork> work;
    for (auto [a, b] : chunks) {
      LayerWork sum;
      bool active = !lengths.empty();
      for (int64_t l = a; l < b; ++l) {
        LayerWork w;
        if (active) {
          auto r = layerWork(ctx.model, group.layout, lengths, l, ctx.zeroWays);
          if (!r.ok())
            return r.problems.front().message;
          w = r.value;
        } else {
          // An idle rank still takes part in ZeRO's collectives.
          w.paramBytes =
              ceilDiv(cost::layerParameters(ctx.model.shape, l) *
                          cost::bytesPerElement(ctx.model.shape.dtype),
                      group.layout.tp);
          w.paramShardBytes = ceilDiv(w.paramBytes, ctx.zeroWays);
        }
        add(sum, w);
      }
      // The embedding and the head travel with their chunks' parameters.
      const int64_t extra =
          carriedParameters(ctx.model.shape, a, b) - layerParametersIn(a, b);
      if (extra > 0) {
        const int64_t bytes =
            ceilDiv(extra * cost::bytesPerElement(ctx.model.shape.dtype),
                    group.layout.tp);
        sum.paramBytes += bytes;
        sum.paramShardBytes += ceilDiv(bytes, ctx.zeroWays);
      }
      work.push_back(sum);
    }
    const bool active = !lengths.empty();
    if (zero3())
      gather(work[0], chunks[0]);
    for (size_t i = 0; i < chunks.size(); ++i) {
      auto [a, b] = chunks[i];
      if (zero3()) {
        ctx.program.ops.push_back(prog::Op::wait(backward && i > 0 ? 1 : 0));
        if (i + 1 < chunks.size())
          gather(work[i + 1], chunks[i + 1]);
      }
      if (backward)
        emitBackward(a, b, work[i], active);
      else
        emitForward(a, b, work[i], active);
    }
    return {};
  }

private:
  static void add(LayerWork &s, const LayerWork &w) {
    s.forwardFlops += w.forwardFlops;
    s.recomputeFlops += w.recomputeFlops;
    s.backwardFlops += w.backwardFlops;
    s.keptBytes += w.keptBytes;
    s.recomputeBytes += w.recomputeBytes;
    s.allToAllBytes += w.allToAllBytes;
    s.tpAllReduceBytes += w.tpAllReduceBytes;
    s.cpKvBytes += w.cpKvBytes;
    s.paramShardBytes += w.paramShardBytes;
    s.paramBytes += w.paramBytes;
  }

  bool zero3() const { return ctx.model.zero == 3 && ctx.zeroWays > 1; }

  int64_t layerParametersIn(int64_t a, int64_t b) const {
    int64_t params = 0;
    for (int64_t l = a; l < b; ++l)
      params += cost::layerParameters(ctx.model.shape, l);
    return params;
  }

  void collective(prog::CommKind kind, prog::GroupKind group,
                  const std::vector<int64_t> &members, int64_t bytes,
                  bool async = false) {
    ctx.program.ops.push_back(prog::Op::collective(
        kind, group, communicatorName(group, members), members, bytes, async));
  }

  void gather(const LayerWork &w, std::pair<int64_t, int64_t> layers) {
    collective(prog::CommKind::AllGather, prog::GroupKind::Zero, ctx.zeroRanks,
               w.paramShardBytes, /*async=*/true);
    ctx.program.ops.back().carryLayers(layers.first, layers.second);
  }

  void compute(prog::ComputeKind kind, int64_t a, int64_t b, double flops,
               int64_t memDelta) {
    std::string label = std::string(prog::toString(kind)) + " mb" +
                        std::to_string(mb) + " layers " + std::to_string(a) +
                        "-" + std::to_string(b);
    prog::Op op = prog::Op::compute(
        label, kind, computeSecondsFor(ctx.model, flops), memDelta);
    op.layerBegin = a;
    op.layerEnd = b;
    op.stage = pos.stage;
    op.seqs = group.seqs;
    op.flops = flops;
    if (ranks.ulysses.size() > 1) {
      op.ulysses = communicatorName(prog::GroupKind::Sp, ranks.ulysses);
      op.ulyssesRanks = ranks.ulysses;
    }
    ctx.flops += flops;
    ctx.program.ops.push_back(std::move(op));
  }

  void emitForward(int64_t a, int64_t b, const LayerWork &w, bool active) {
    if (!active)
      return;
    if (w.allToAllBytes > 0)
      collective(prog::CommKind::AllToAll, prog::GroupKind::Sp, ranks.ulysses, w.allToAllBytes);
    if (w.cpKvBytes > 0) // each rank contributes its K and V
      collective(prog::CommKind::AllGather, prog::GroupKind::Cp, ranks.cp, w.cpKvBytes);
    compute(prog::ComputeKind::Fwd, a, b, w.forwardFlops, w.keptBytes);
    if (w.tpAllReduceBytes > 0)
      collective(prog::CommKind::AllReduce, prog::GroupKind::Tp, ranks.tp, w.tpAllReduceBytes);
  }

  void emitBackward(int64_t a, int64_t b, const LayerWork &w, bool active) {
    if (active) {
      if (w.recomputeFlops > 0) {
        // Full recomputation reruns the forward, its communication too.
        const bool full = ctx.model.checkpointing == cost::Checkpointing::Full;
        if (full && w.allToAllBytes > 0)
          collective(prog::CommKind::AllToAll, prog::GroupKind::Sp, ranks.ulysses,
                     w.allToAllBytes);
        if (full && w.cpKvBytes > 0)
          collective(prog::CommKind::AllGather, prog::GroupKind::Cp, ranks.cp, w.cpKvBytes);
        compute(prog::ComputeKind::Recompute, a, b, w.recomputeFlops,
                w.recomputeBytes);
        if (full && w.tpAllReduceBytes > 0)
          collective(prog::CommKind::AllReduce, prog::GroupKind::Tp, ranks.tp,
                     w.tpAllReduceBytes);
      }
      if (w.tpAllReduceBytes > 0)
        collective(prog::CommKind::AllReduce, prog::GroupKind::Tp, ranks.tp,
                   w.tpAllReduceBytes);
      if (w.cpKvBytes > 0)
        collective(prog::CommKind::AllGather, prog::GroupKind::Cp, ranks.cp, w.cpKvBytes);
      compute(prog::ComputeKind::Bwd, a, b, w.backwardFlops,
              -(w.keptBytes + w.recomputeBytes));
      if (w.cpKvBytes > 0) // dK, dV of every rank's keys, reduced to owners
        collective(prog::CommKind::ReduceScatter, prog::GroupKind::Cp, ranks.cp,
                   w.cpKvBytes * group.layout.cp);
      if (w.allToAllBytes > 0)
        collective(prog::CommKind::AllToAll, prog::GroupKind::Sp, ranks.ulysses,
                   w.allToAllBytes);
    }
    if (zero3()) {
      // Gradients of the chunk, reduced onto their owners (a multiple of
      // the group size, as reduce-scatter needs).
      collective(prog::CommKind::ReduceScatter, prog::GroupKind::Zero, ctx.zeroRanks,
                 w.paramShardBytes * ctx.zeroWays, /*async=*/true);
      ctx.program.ops.back().carryLayers(a, b);
    }
  }

  RankContext &ctx;
  const PlannedGroup &group;
  int64_t mb;
  RankPosition pos;
  GroupRanks ranks;
  std::vector<int64_t> lengths;
  int64_t begin = 0, end = 0;
};

/// Bytes of the activation message between stages for one micro-batch.
int64_t stageMessageBytes(const TrainModel &model, const PlannedGroup &g,
                          const StepPlan &plan) {
  double tokens = 0;
  for (int64_t id : g.seqs)
    tokens += static_cast<double>(plan.lengths[id]);
  const GroupLayout &l = g.layout;
  return roundBytes(
      tokens / static_cast<double>(l.ulysses * l.cp * l.tp) *
      static_cast<double>(model.shape.hidden *
                          cost::bytesPerElement(model.shape.dtype)));
}

std::string checkPlan(const StepPlan &plan, const TrainModel &model) {
  if (plan.world < 1)
    return "the step has no ranks";
  if (plan.microBatches.empty())
    return "the step has no micro-batch";
  const GroupLayout &first = plan.microBatches.front().groups.empty()
                                 ? GroupLayout{}
                                 : plan.microBatches.front().groups[0].layout;
  for (size_t i = 0; i < plan.microBatches.size(); ++i) {
    const PlannedMicroBatch &mb = plan.microBatches[i];
    std::vector<int> covered(static_cast<size_t>(plan.world), 0);
    for (const PlannedGroup &g : mb.groups) {
      const GroupLayout &l = g.layout;
      std::string where = "micro-batch " + std::to_string(i) +
                          ", group at rank " + std::to_string(g.firstRank);
      if (l.ulysses < 1 || l.tp < 1 || l.cp < 1 || l.pp < 1)
        return where + ": every parallel degree must be at least 1";
      if (g.firstRank < 0 || g.firstRank + l.degree() > plan.world)
        return where + ": ranks [" + std::to_string(g.firstRank) + ", " +
               std::to_string(g.firstRank + l.degree() - 1) +
               "] leave the world of " + std::to_string(plan.world);
      for (int64_t r = g.firstRank; r < g.firstRank + l.degree(); ++r)
        if (covered[static_cast<size_t>(r)]++)
          return where + ": rank " + std::to_string(r) + " is in two groups";
      if (l.tp != first.tp || l.pp != first.pp)
        return where + ": tensor and pipeline degrees must be the same in "
                       "every group of a step (they decide which ranks "
                       "share parameters)";
      if (l.pp > 1 &&
          (i > 0 && (plan.microBatches[0].groups.size() != mb.groups.size())))
        return where + ": a pipelined step keeps the same groups in every "
                       "micro-batch";
      if (model.shape.heads % (l.tp * l.ulysses) != 0)
        return where + ": heads (" + std::to_string(model.shape.heads) +
               ") do not split over tp * ulysses (" +
               std::to_string(l.tp * l.ulysses) + ")";
      if (l.pp > model.shape.layers)
        return where + ": " + std::to_string(l.pp) + " stages for " +
               std::to_string(model.shape.layers) + " layers";
      for (int64_t id : g.seqs)
        if (id < 0 || id >= static_cast<int64_t>(plan.lengths.size()))
          return where + ": sequence " + std::to_string(id) + " has no length";
    }
    for (int64_t r = 0; r < plan.world; ++r)
      if (!covered[static_cast<size_t>(r)])
        return "micro-batch " + std::to_string(i) + ": rank " +
               std::to_string(r) + " is in no group";
    if (first.pp > 1 && i > 0)
      for (size_t k = 0; k < mb.groups.size(); ++k)
        if (mb.groups[k].firstRank !=
                plan.microBatches[0].groups[k].firstRank ||
            !(mb.groups[k].layout == plan.microBatches[0].groups[k].layout))
          return "micro-batch " + std::to_string(i) +
                 ": a pipelined step keeps the same groups in every "
                 "micro-batch";
  }
  if (first.pp > 1 && model.zero == 3)
    return "pipeline stages with ZeRO-3 are not supported: use zero <= 2 "
           "with pp > 1";
  return {};
}

/// The group of `rank` in micro-batch `mb` and the rank's local index.
std::pair<const PlannedGroup *, int64_t> groupOf(const PlannedMicroBatch &mb,
                                                 int64_t rank) {
  for (const PlannedGroup &g : mb.groups)
    if (rank >= g.firstRank && rank < g.firstRank + g.layout.degree())
      return {&g, rank - g.firstRank};
  return {nullptr, 0};
}

} // namespace

LoweredStep lowerStep(const StepPlan &plan, const TrainModel &model,
                      const LoweringOptions &options) {
  LoweredStep out;
  if (std::string error = checkPlan(plan, model); !error.empty()) {
    out.error = error;
    return out;
  }
  if (!(model.chip.bf16Flops > 0) || !(model.efficiency > 0) ||
      model.efficiency > 1) {
    out.error = "the chip needs a BF16 peak and an efficiency in (0, 1]";
    return out;
  }
  const GroupLayout &layout0 = plan.microBatches.front().groups[0].layout;
  const int64_t tp = layout0.tp, pp = layout0.pp;
  const int64_t zeroWays = plan.world / (tp * pp);

  // ZeRO / data-parallel groups: ranks with the same (stage, tensor index)
  // in micro-batch 0; later micro-batches must agree.
  std::vector<std::pair<int64_t, int64_t>> key(static_cast<size_t>(plan.world));
  for (size_t i = 0; i < plan.microBatches.size(); ++i)
    for (int64_t r = 0; r < plan.world; ++r) {
      auto [g, local] = groupOf(plan.microBatches[i], r);
      RankPosition pos = positionOf(g->layout, local);
      std::pair<int64_t, int64_t> k{pos.stage, pos.t};
      if (i == 0)
        key[static_cast<size_t>(r)] = k;
      else if (key[static_cast<size_t>(r)] != k) {
        out.error = "micro-batch " + std::to_string(i) + ": rank " +
                    std::to_string(r) +
                    " changes its stage or tensor slice between micro-batches";
        return out;
      }
    }
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> zeroGroups;
  for (int64_t r = 0; r < plan.world; ++r)
    zeroGroups[key[static_cast<size_t>(r)]].push_back(r);
  for (auto &[k, members] : zeroGroups)
    if (static_cast<int64_t>(members.size()) != zeroWays) {
      out.error = "ranks of stage " + std::to_string(k.first) +
                  " and tensor slice " + std::to_string(k.second) + " number " +
                  std::to_string(members.size()) +
                  ", not world / (tp * pp) = " + std::to_string(zeroWays);
      return out;
    }

  out.programs.resize(static_cast<size_t>(plan.world));
  for (int64_t r = 0; r < plan.world; ++r) {
    prog::Program &program = out.programs[static_cast<size_t>(r)];
    RankContext ctx{model,    plan,
                    options,  r,
                    zeroWays, zeroGroups[key[static_cast<size_t>(r)]],
                    program,  out.totalFlops};
    auto [g0, local0] = groupOf(plan.microBatches[0], r);
    program.initialMemoryBytes =
        residentBytes(model, g0->layout, positionOf(g0->layout, local0).stage,
                      zeroWays, std::max<int64_t>(1, options.layersPerOp));

    if (pp == 1) {
      for (size_t i = 0; i < plan.microBatches.size(); ++i) {
        auto [g, local] = groupOf(plan.microBatches[i], r);
        PassEmitter emitter(ctx, *g, static_cast<int64_t>(i),
                            positionOf(g->layout, local));
        std::string error = emitter.build(false);
        if (error.empty())
          error = emitter.build(true);
        if (!error.empty()) {
          out.error = error;
          return out;
        }
      }
    } else {
      // 1F1B over the micro-batches in which this rank's group has work.
      RankPosition pos = positionOf(g0->layout, local0);
      GroupRanks peers = groupRanks(*g0, pos);
      std::vector<int64_t> active;
      for (size_t i = 0; i < plan.microBatches.size(); ++i)
        if (!groupOf(plan.microBatches[i], r).first->seqs.empty())
          active.push_back(static_cast<int64_t>(i));
      const int64_t m = static_cast<int64_t>(active.size());
      const int64_t s = pos.stage;
      const bool sendFirst = s % 2 == 0;
      std::string error;
      auto pass = [&](int64_t k, bool backward) {
        int64_t i = active[static_cast<size_t>(k)];
        auto [g, local] = groupOf(plan.microBatches[static_cast<size_t>(i)], r);
        PassEmitter emitter(ctx, *g, i, pos);
        if (error.empty())
          error = emitter.build(backward);
      };
      auto bytesOf = [&](int64_t k) {
        return stageMessageBytes(model,
                                 *groupOf(plan.microBatches[static_cast<size_t>(
                                              active[static_cast<size_t>(k)])],
                                          r)
                                      .first,
                                 plan);
      };
      auto tagOf = [&](int64_t k, bool backward) {
        return 2 * active[static_cast<size_t>(k)] + (backward ? 1 : 0);
      };
      // Each message names the micro-batch's sequences it carries (whole
      // sequences: slice 0 each).
      auto message = [&](prog::Op op, int64_t k, bool backward) {
        const PlannedGroup &g = *groupOf(plan.microBatches[static_cast<size_t>(
                                             active[static_cast<size_t>(k)])],
                                         r)
                                     .first;
        op.carry(backward ? prog::ComputeKind::Bwd : prog::ComputeKind::Fwd,
                 g.seqs, std::vector<int64_t>(g.seqs.size(), 0));
        program.ops.push_back(std::move(op));
      };
      auto sendF = [&](int64_t k) {
        message(prog::Op::send(peers.nextStage, bytesOf(k), tagOf(k, false)), k,
                false);
      };
      auto recvF = [&](int64_t k) {
        message(prog::Op::recv(peers.prevStage, bytesOf(k), tagOf(k, false)), k,
                false);
      };
      auto sendB = [&](int64_t k) {
        message(prog::Op::send(peers.prevStage, bytesOf(k), tagOf(k, true)), k,
                true);
      };
      auto recvB = [&](int64_t k) {
        message(prog::Op::recv(peers.nextStage, bytesOf(k), tagOf(k, true)), k,
                true);
      };
      // The stage's order comes from the one 1F1B generator; it is walked
      // in its three phases (warm-up forwards, forward / backward pairs,
      // the remaining backwards) because the messages around a pair are
      // ordered by stage parity so that neighbours always meet.
      const std::vector<int64_t> order = step::oneFOneBOrder(pp, s, m);
      const bool first = s == 0, last = s == pp - 1;
      // The warm-up is the generator's: chunkWindow - 1 forwards (N_split 1).
      const int64_t warm = std::min<int64_t>(
          m, std::max<int64_t>(step::chunkWindow(pp, s, 1) - 1, 0));
      const int64_t steady = m - warm;
      auto forwardAt = [&](int64_t i) { return order[static_cast<size_t>(i)]; };
      auto backwardAt = [&](int64_t i) {
        return -order[static_cast<size_t>(i)] - 1;
      };
      for (int64_t i = 0; i < warm; ++i) {
        const int64_t k = forwardAt(i);
        if (!first)
          recvF(k);
        pass(k, false);
        if (!last)
          sendF(k);
      }
      if (steady > 0 && !first)
        recvF(forwardAt(warm));
      for (int64_t j = 0; j < steady; ++j) {
        const int64_t f = forwardAt(warm + 2 * j);
        const int64_t k = backwardAt(warm + 2 * j + 1);
        pass(f, false);
        if (!last) {
          // Even stages send first, odd ones receive first: neighbours
          // always have opposite parity, so each pair meets.
          if (sendFirst) {
            sendF(f);
            recvB(k);
          } else {
            recvB(k);
            sendF(f);
          }
        }
        pass(k, true);
        if (!first) {
          if (j == steady - 1) {
            sendB(k);
          } else {
            const int64_t next = forwardAt(warm + 2 * j + 2);
            if (sendFirst) {
              sendB(k);
              recvF(next);
            } else {
              recvF(next);
              sendB(k);
            }
          }
        }
      }
      for (int64_t i = warm + 2 * steady;
           i < static_cast<int64_t>(order.size()); ++i) {
        const int64_t k = backwardAt(i);
        if (!last)
          recvB(k);
        pass(k, true);
        if (!first)
          sendB(k);
      }
      if (!error.empty()) {
        out.error = error;
        return out;
      }
    }

    // Data-parallel gradient synchronisation at the end of the step.
    if (model.zero < 3 && zeroWays > 1) {
      auto [g, local] = groupOf(plan.microBatches[0], r);
      auto [a, b] = stageLayers(model.shape.layers, g->layout.pp,
                                positionOf(g->layout, local).stage);
      int64_t grads = carriedParameters(model.shape, a, b);
      grads = ceilDiv(grads, tp) * cost::bytesPerElement(model.shape.dtype);
      grads = ceilDiv(grads, zeroWays) * zeroWays;
      const std::vector<int64_t> &members = ctx.zeroRanks;
      std::string name = communicatorName(prog::GroupKind::Dp, members);
      if (model.zero == 0) {
        program.ops.push_back(prog::Op::collective(prog::CommKind::AllReduce, prog::GroupKind::Dp,
                                                  name, members, grads));
        program.ops.back().carryLayers(a, b);
      } else {
        program.ops.push_back(prog::Op::collective(prog::CommKind::ReduceScatter, prog::GroupKind::Dp,
                                                  name, members, grads));
        program.ops.back().carryLayers(a, b);
        program.ops.push_back(prog::Op::collective(
            prog::CommKind::AllGather, prog::GroupKind::Dp, name, members, grads / zeroWays));
        program.ops.back().carryLayers(a, b);
      }
    }
  }
  return out;
}

} // namespace plexus::lower
