//===- StepPlanners.cpp - Static layouts as planned training steps --------===//
#include "passes/Baselines/StepPlanners.h"

#include "dialects/Common/ByteText.h"

#include "passes/Cost/Overlap.h"

#include "passes/Baselines/StaticSp.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <queue>
#include <string>

namespace plexus::baselines {

using step::GroupLayout;
using step::LayerWork;
using step::PlannedGroup;
using step::PlannedMicroBatch;
using step::StepPlan;

namespace {

std::string gbText(double bytes) { return bytesText(bytes); }

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// The ranks of one group member's communicators, as the lowering names
/// them (tensor innermost).
std::vector<int64_t> membersAlong(const PlannedGroup &g, int which) {
  const GroupLayout &l = g.layout;
  std::vector<int64_t> ranks;
  int64_t count = which == 0 ? l.tp : which == 1 ? l.ulysses : l.cp;
  for (int64_t i = 0; i < count; ++i) {
    step::RankPosition p;
    (which == 0 ? p.t : which == 1 ? p.u : p.c) = i;
    ranks.push_back(g.firstRank + step::localRankOf(l, p));
  }
  return ranks;
}

struct Timer {
  const prog::CommTimeFn &fn;
  std::string error;
  double operator()(prog::CommKind kind, std::vector<int64_t> ranks,
                    int64_t bytes) {
    if (ranks.size() < 2 || bytes <= 0)
      return 0;
    prog::CommRequest r;
    r.kind = kind;
    r.ranks = std::move(ranks);
    r.bytes = bytes;
    prog::CommTime t = fn(r);
    if (!t.error.empty() && error.empty())
      error = t.error;
    return t.seconds;
  }
};

} // namespace

double sequenceForwardFlops(const cost::TransformerShape &shape,
                            int64_t tokens) {
  double flops = 0;
  for (int64_t l = 0; l < shape.layers; ++l)
    flops += cost::layerForwardFlops(shape, l, {tokens, 0}).value.total();
  return flops;
}

std::vector<std::vector<std::vector<int64_t>>>
balanceBins(const step::TrainModel &model, const std::vector<int64_t> &lengths,
            const StaticSpPlan &packed, int64_t groupCapacity) {
  std::vector<std::vector<std::vector<int64_t>>> bfd;
  for (const StaticSpMicroBatch &mb : packed.microBatches) {
    bfd.emplace_back();
    for (const StaticSpGroup &g : mb.groups)
      bfd.back().push_back(g.sequenceIds);
  }
  if (bfd.empty())
    return bfd;
  const size_t m = bfd.size(), groups = bfd[0].size();
  // Sequences by descending work (ties by id), each to the least loaded
  // bin (ties to the earliest) that still has room for its tokens.
  std::vector<std::pair<double, int64_t>> order;
  for (size_t i = 0; i < lengths.size(); ++i)
    order.push_back({sequenceForwardFlops(model.shape, lengths[i]),
                     static_cast<int64_t>(i)});
  std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<double> load(m * groups, 0);
  std::vector<int64_t> tokens(m * groups, 0);
  std::vector<std::vector<std::vector<int64_t>>> bins(
      m, std::vector<std::vector<int64_t>>(groups));
  // The least loaded bin first (ties: the lowest index), as a heap; bins
  // without room for a sequence are set aside while it looks and come back
  // after, so each sequence costs O(log bins) while most bins have room.
  using Entry = std::pair<double, size_t>; // (load, bin)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  for (size_t b = 0; b < load.size(); ++b)
    heap.push({0.0, b});
  std::vector<Entry> full;
  for (auto [work, id] : order) {
    int64_t len = lengths[static_cast<size_t>(id)];
    size_t best = load.size();
    full.clear();
    while (!heap.empty()) {
      Entry top = heap.top();
      heap.pop();
      if (tokens[top.second] + len <= groupCapacity) {
        best = top.second;
        break;
      }
      full.push_back(top);
    }
    for (const Entry &e : full)
      heap.push(e);
    if (best == load.size())
      return bfd; // no room: keep the best-fit packing
    load[best] += work;
    tokens[best] += len;
    heap.push({load[best], best});
    bins[best / groups][best % groups].push_back(id);
  }
  return bins;
}

int64_t activationBytesPerToken(const step::TrainModel &model,
                                int64_t maxLength) {
  int64_t kept = 0, transient = 0;
  cost::Slice slice{std::max<int64_t>(1, maxLength), 0};
  for (int64_t l = 0; l < model.shape.layers; ++l) {
    const cost::Checkpointing mode = model.checkpointingAt(l);
    auto a = cost::activationBytesPerToken(model.shape, l, slice, mode,
                                           model.attention);
    kept += a.value;
    if (mode == cost::Checkpointing::Full) {
      auto full = cost::activationBytesPerToken(model.shape, l, slice,
                                                cost::Checkpointing::Selective);
      transient = std::max(transient, full.value - a.value);
    }
  }
  // The loss's logits, on the rank that runs the last layer.
  return kept + transient + cost::logitBytesPerToken(model.shape);
}

Capacity layoutCapacity(const TrainSetup &setup, const GroupLayout &layout,
                        int64_t maxLength) {
  Capacity c;
  if (layout.ulysses < 1 || layout.tp < 1 || layout.cp < 1 || layout.pp < 1 ||
      setup.world < layout.tp * layout.pp) {
    c.error = "every parallel degree must be at least 1 and tp * pp at most "
              "the chips";
    return c;
  }
  const int64_t zeroWays = setup.world / (layout.tp * layout.pp);
  c.residentBytes =
      step::residentBytes(setup.model, layout, /*stage=*/0, zeroWays);
  c.bytesPerToken = activationBytesPerToken(setup.model, maxLength);
  if (c.residentBytes >= setup.memoryBytes) {
    c.error = "the model states alone need " + gbText(double(c.residentBytes)) +
              " per chip, more than the " + gbText(double(setup.memoryBytes)) +
              " usable; shard them further (zero, tp or pp)";
    return c;
  }
  c.tokensPerChip = (setup.memoryBytes - c.residentBytes) /
                    std::max<int64_t>(1, c.bytesPerToken);
  if (c.tokensPerChip < 1)
    c.error = "a chip has room for no token after its model states";
  return c;
}

std::string layoutName(const GroupLayout &l) {
  auto s = [](int64_t v) { return std::to_string(v); };
  if (l.tp == 1 && l.cp == 1 && l.pp == 1)
    return "static-sp-" + s(l.ulysses);
  if (l.ulysses == 1 && l.pp == 1)
    return "megatron-tp" + s(l.tp) + "-cp" + s(l.cp);
  const std::string v = l.vpp > 1 ? "-v" + s(l.vpp) : "";
  if (l.ulysses == 1 && l.cp == 1)
    return "pp" + s(l.pp) + "-tp" + s(l.tp) + v + "-1f1b";
  return "sp" + s(l.ulysses) + "-tp" + s(l.tp) + "-cp" + s(l.cp) + "-pp" +
         s(l.pp) + v;
}

std::optional<GroupLayout> parseLayoutName(const std::string &name) {
  // Reads "<prefix><digits>" at `pos`, advancing past it.
  size_t pos = 0;
  auto number = [&](const char *prefix, int64_t &value) {
    size_t len = std::char_traits<char>::length(prefix);
    if (name.compare(pos, len, prefix) != 0)
      return false;
    size_t p = pos + len, start = p;
    value = 0;
    while (p < name.size() &&
           std::isdigit(static_cast<unsigned char>(name[p])) && p - start < 9)
      value = value * 10 + (name[p++] - '0');
    if (p == start || value < 1)
      return false;
    pos = p;
    return true;
  };
  auto rest = [&](const char *text) { return name.substr(pos) == text; };
  GroupLayout l;
  pos = 0;
  if (number("static-sp-", l.ulysses) && rest(""))
    return l;
  l = {};
  pos = 0;
  if (number("megatron-tp", l.tp) && number("-cp", l.cp) && rest(""))
    return l;
  l = {};
  pos = 0;
  // An interleaved pipeline names its model chunks per stage, "-v<v>".
  auto chunks = [&] {
    const size_t at = pos;
    if (number("-v", l.vpp) && l.vpp > 1 && l.pp > 1)
      return true;
    pos = at;
    l.vpp = 1;
    return false;
  };
  if (number("pp", l.pp) && number("-tp", l.tp) &&
      (rest("-1f1b") || (chunks() && rest("-1f1b"))))
    return l;
  l = {};
  pos = 0;
  if (number("sp", l.ulysses) && number("-tp", l.tp) && number("-cp", l.cp) &&
      number("-pp", l.pp) && (rest("") || (chunks() && rest(""))))
    return l;
  return std::nullopt;
}

std::string estimateStep(StepPlan &plan, const TrainSetup &setup,
                         const prog::CommTimeFn &commTime) {
  const step::TrainModel &model = setup.model;
  if (plan.microBatches.empty() || plan.microBatches[0].groups.empty())
    return "the plan has no group";
  const GroupLayout first = plan.microBatches[0].groups[0].layout;
  if (first.tp < 1 || first.pp < 1 || plan.world < first.tp * first.pp)
    return "the plan's world is smaller than one group's tp * pp";
  const int64_t zeroWays = plan.world / (first.tp * first.pp);
  std::vector<int64_t> zeroRanks; // ZeRO group of rank 0
  for (int64_t r = 0; r < plan.world; r += first.tp * first.pp)
    zeroRanks.push_back(r);
  if (first.pp > 1) {
    // Ranks of stage 0, tensor slice 0, of every group.
    zeroRanks.clear();
    for (const PlannedGroup &g : plan.microBatches[0].groups)
      for (int64_t local = 0; local < g.layout.degree(); ++local) {
        step::RankPosition p = step::positionOf(g.layout, local);
        if (p.stage == 0 && p.t == 0)
          zeroRanks.push_back(g.firstRank + local);
      }
  }
  Timer time{commTime, {}};
  const bool zero3 = model.zero == 3 && zeroWays > 1;

  double worstStage = 0, sum = 0;
  int64_t peak = 0;
  for (PlannedMicroBatch &mb : plan.microBatches) {
    mb.seconds = 0;
    for (PlannedGroup &g : mb.groups) {
      std::vector<int64_t> lengths;
      for (int64_t id : g.seqs)
        lengths.push_back(plan.lengths[static_cast<size_t>(id)]);
      std::vector<int64_t> tpRanks = membersAlong(g, 0),
                           spRanks = membersAlong(g, 1),
                           cpRanks = membersAlong(g, 2);
      double slowest = 0;
      int64_t mem = 0;
      for (int64_t stage = 0; stage < g.layout.pp; ++stage) {
        double t = 0;
        int64_t kept = 0, transient = 0;
        // The stage's layers, every model chunk's, and what each chunk
        // keeps per micro-batch.
        std::vector<std::pair<int64_t, size_t>> layers; // (layer, chunk)
        const auto ranges =
            step::rankLayerRanges(model.shape.layers, g.layout, stage);
        for (size_t c = 0; c < ranges.size(); ++c)
          for (int64_t l = ranges[c].first; l < ranges[c].second; ++l)
            layers.push_back({l, c});
        std::vector<int64_t> keptByChunk(ranges.size(), 0);
        for (auto [l, chunk] : layers) {
          LayerWork w;
          if (!lengths.empty()) {
            auto r = step::layerWork(model, g.layout, lengths, l, zeroWays);
            if (!r.ok())
              return r.problems.front().message;
            w = r.value;
          } else {
            w.paramBytes = step::layerWork(model, g.layout, {1}, l, zeroWays)
                               .value.paramBytes;
            w.paramShardBytes = (w.paramBytes + zeroWays - 1) / zeroWays;
          }
          double layer =
              w.forwardSeconds + w.recomputeSeconds + w.backwardSeconds;
          layer += 2 * time(prog::CommKind::AllToAll, spRanks, w.allToAllBytes);
          layer +=
              2 * time(prog::CommKind::AllReduce, tpRanks, w.tpAllReduceBytes);
          layer += 2 * time(prog::CommKind::AllGather, cpRanks, w.cpKvBytes);
          layer += time(prog::CommKind::ReduceScatter, cpRanks,
                        w.cpKvBytes * g.layout.cp);
          if (model.checkpointingAt(l) == cost::Checkpointing::Full) {
            // The recomputed forward communicates again.
            layer += time(prog::CommKind::AllToAll, spRanks, w.allToAllBytes);
            layer +=
                time(prog::CommKind::AllReduce, tpRanks, w.tpAllReduceBytes);
            layer += time(prog::CommKind::AllGather, cpRanks, w.cpKvBytes);
          }
          if (zero3) {
            // Prefetched and reduced on the communication stream: only
            // what the layer's own work does not cover shows.
            // The first and last layers' collectives also carry the
            // embedding and the head, as the lowering's do.
            const int64_t shard =
                w.paramShardBytes +
                step::carriedExtraShardBytes(model.shape, l, l + 1, g.layout.tp,
                                             zeroWays);
            double stream =
                2 * time(prog::CommKind::AllGather, zeroRanks, shard) +
                time(prog::CommKind::ReduceScatter, zeroRanks,
                     shard * zeroWays);
            // Both contend for the chip (passes/Cost/Overlap.h), as in
            // the simulator; gathered on demand (zero_prefetch 0), the
            // layer waits for its whole stream.
            const cost::Overlap overlap = cost::Overlap::of(model.chip);
            layer = model.zeroPrefetch > 0
                        ? overlap.concurrentSeconds(layer, stream)
                        : layer + overlap.streamSeconds(stream);
          }
          t += layer;
          kept += w.keptBytes;
          keptByChunk[chunk] += w.keptBytes;
          transient = std::max(transient, w.recomputeBytes);
        }
        slowest = std::max(slowest, t);
        const int64_t m = static_cast<int64_t>(plan.microBatches.size());
        int64_t inFlight = std::min<int64_t>(g.layout.pp - stage, m);
        int64_t resident =
            step::residentBytes(model, g.layout, stage, zeroWays);
        if (g.layout.vpp > 1) {
          // Interleaved warm-up: (p - s - 1) * 2 + (v - 1) * p forwards
          // (all m * v when m = p), plus the one in flight, the k-th of
          // model chunk (k mod p v) / p (step::interleavedStageOrder).
          const int64_t v = g.layout.vpp, p = g.layout.pp;
          const int64_t passes =
              m == p ? m * v
                     : std::min(m * v, (p - stage - 1) * 2 + (v - 1) * p + 1);
          int64_t held = 0;
          for (int64_t k = 0; k < passes; ++k)
            held += keptByChunk[static_cast<size_t>((k % (p * v)) / p)];
          mem = std::max(mem, resident + held + transient);
        } else {
          mem = std::max(mem, resident + inFlight * kept + transient);
        }
      }
      g.seconds = slowest;
      g.memBytes = mem;
      mb.seconds = std::max(mb.seconds, g.seconds);
      peak = std::max(peak, mem);
    }
    sum += mb.seconds;
    worstStage = std::max(worstStage, mb.seconds);
  }
  if (!time.error.empty())
    return time.error;

  double step = sum;
  if (first.pp > 1) {
    // 1F1B: every micro-batch passes the busiest stage once, and the
    // pipeline fills and drains around them for p - 1 slots of the
    // slowest; with equal micro-batches this is (m + p - 1) x the slowest.
    step = sum + static_cast<double>(first.pp - 1) * worstStage;
    if (first.vpp > 1) {
      // Interleaved 1F1B (Megatron-LM, SC'21 section 2.2): the fill and
      // drain shrink v-fold, (p - 1) / v of the slowest stage's passes.
      step = sum + static_cast<double>(first.pp - 1) * worstStage /
                       static_cast<double>(first.vpp);
      // It runs micro-batches in groups of p through each model chunk.
      const int64_t m = static_cast<int64_t>(plan.microBatches.size());
      if (m % first.pp != 0)
        return "interleaved 1F1B (virtual_stages " + std::to_string(first.vpp) +
               ") runs micro-batches in groups of the " +
               std::to_string(first.pp) + " stages, and " + std::to_string(m) +
               " is not a multiple of " + std::to_string(first.pp) +
               "; choose batch and micro_batch so that each pipeline gets a "
               "multiple of pp micro-batches";
      for (const PlannedMicroBatch &mb : plan.microBatches)
        for (const PlannedGroup &g : mb.groups)
          if (g.seqs.empty())
            return "interleaved 1F1B (virtual_stages " +
                   std::to_string(first.vpp) +
                   ") needs every pipeline to have work in every "
                   "micro-batch; the batch has too few sequences for its " +
                   std::to_string(mb.groups.size()) + " pipelines x pp " +
                   std::to_string(first.pp);
    }
  }
  if (model.zero < 3 && zeroWays > 1) {
    // Each stage synchronises what its collectives carry (its layers, the
    // embedding on the first, the final norm and head on the last), all
    // stages at once: the largest decides.
    int64_t grads = 0;
    for (int64_t s = 0; s < first.pp; ++s) {
      int64_t stage = 0; // every model chunk's, one collective each
      for (auto [a, b] : step::rankLayerRanges(model.shape.layers, first, s))
        stage += step::carriedParameters(model.shape, a, b);
      grads = std::max(grads, stage);
    }
    grads = (grads + first.tp - 1) / first.tp *
            cost::bytesPerElement(model.shape.dtype);
    grads = (grads + zeroWays - 1) / zeroWays * zeroWays;
    if (model.zero == 0)
      step += time(prog::CommKind::AllReduce, zeroRanks, grads);
    else
      step += time(prog::CommKind::ReduceScatter, zeroRanks, grads) +
              time(prog::CommKind::AllGather, zeroRanks, grads / zeroWays);
    if (!time.error.empty())
      return time.error;
  }
  plan.seconds = step;
  plan.peakMemBytes = peak;
  return {};
}

NamedPlan planStaticLayout(const TrainSetup &setup,
                           const std::vector<int64_t> &lengths,
                           const GroupLayout &layout,
                           const prog::CommTimeFn &commTime) {
  NamedPlan out;
  out.layout = layout;
  out.model = setup.model;
  out.name = layoutName(layout);
  const step::TrainModel &model = setup.model;
  const int64_t degree = layout.degree();
  auto fail = [&](std::string why) {
    out.error = std::move(why);
    return out;
  };
  if (layout.ulysses < 1 || layout.tp < 1 || layout.cp < 1 || layout.pp < 1)
    return fail("every parallel degree must be at least 1");
  if (setup.world % degree != 0)
    return fail("groups of " + std::to_string(degree) +
                " ranks do not divide " + std::to_string(setup.world) +
                " chips");
  if (model.shape.heads % (layout.ulysses * layout.tp) != 0)
    return fail("sp * tp (" + std::to_string(layout.ulysses * layout.tp) +
                ") must divide the " + std::to_string(model.shape.heads) +
                " heads");
  if (layout.pp > model.shape.layers)
    return fail(std::to_string(layout.pp) + " stages for " +
                std::to_string(model.shape.layers) + " layers");
  if (layout.pp > 1 && model.zero == 3)
    return fail("a pipeline needs zero <= 2 (ZeRO-3 gathers every layer on "
                "every micro-batch)");
  // A stage of model chunks holds layers from all over the model, so the
  // lowering checkpoints none or all of a stage's layers: a first-N limit
  // would recompute other layers than the estimate counts.
  if (layout.vpp > 1 && model.checkpointLayers > 0 &&
      model.checkpointLayers < model.shape.layers)
    return fail("interleaved 1F1B checkpoints none or all of a stage's "
                "layers, not the first " +
                std::to_string(model.checkpointLayers) +
                " (checkpoint_layers)");
  if (lengths.empty())
    return fail("the batch is empty");

  int64_t maxLength = *std::max_element(lengths.begin(), lengths.end());
  Capacity cap = layoutCapacity(setup, layout, maxLength);
  if (!cap.error.empty())
    return fail(cap.error);
  // A group holds degree / pp chips' worth of tokens per stage.
  const int64_t perStage = degree / layout.pp;
  for (size_t i = 0; i < lengths.size(); ++i) {
    int64_t len = lengths[i];
    if (len > cap.tokensPerChip * perStage) {
      double need = double(cap.residentBytes) +
                    double(len) * double(cap.bytesPerToken) / double(perStage);
      // Only a pure Ulysses layout grows by its SP degree; every other
      // family splits a long sequence with cp. Full checkpointing is no
      // way out when it is already on.
      std::string knob = layout.pp > 1 || layout.tp > 1 || layout.cp > 1
                             ? "raise cp"
                             : "raise the SP degree";
      if (!model.fullEverywhere())
        knob += " or use full checkpointing";
      return fail("sequence " + std::to_string(i) + " (" + groupedInt(len) +
                  " tokens) needs " + gbText(need) + " per chip under " +
                  out.name + ", but a chip holds " +
                  gbText(double(setup.memoryBytes)) + " (" +
                  groupedInt(cap.tokensPerChip * perStage) +
                  " tokens per group); " + knob);
    }
  }

  std::vector<std::vector<std::vector<int64_t>>> bins;
  const int64_t groups = setup.world / degree;
  if (setup.microBatchSeqs > 0) {
    // Fixed-size micro-batches, as Megatron-LM feeds them.
    const int64_t k = setup.microBatchSeqs;
    const int64_t n = static_cast<int64_t>(lengths.size());
    bins.resize(static_cast<size_t>((n + groups * k - 1) / (groups * k)),
                std::vector<std::vector<int64_t>>(static_cast<size_t>(groups)));
    for (int64_t j = 0; j < n; ++j)
      bins[static_cast<size_t>(j / (groups * k))]
          [static_cast<size_t>((j / k) % groups)]
              .push_back(j);
    for (size_t i = 0; i < bins.size(); ++i)
      for (size_t g = 0; g < bins[i].size(); ++g) {
        int64_t tokens = 0;
        for (int64_t id : bins[i][g])
          tokens += lengths[static_cast<size_t>(id)];
        if (tokens > cap.tokensPerChip * perStage)
          return fail("micro-batch " + std::to_string(i) + " of group " +
                      std::to_string(g) + " holds " + groupedInt(tokens) +
                      " tokens (micro_batch " + std::to_string(k) +
                      "), more than the " +
                      groupedInt(cap.tokensPerChip * perStage) +
                      " a group of " + out.name + " holds; lower micro_batch");
      }
  } else {
    StaticSpConfig config;
    config.gpus = setup.world / layout.pp;
    config.degree = perStage;
    config.capacityPerGpu = cap.tokensPerChip;
    Result<StaticSpPlan> packed = packStaticSp(lengths, config);
    if (!packed)
      return fail(packed.error);
    bins = balanceBins(setup.model, lengths, *packed,
                       cap.tokensPerChip * perStage);
  }

  auto makePlan = [&](const std::vector<std::vector<std::vector<int64_t>>>
                          &packing,
                      StepPlan &plan) {
    plan.strategy = out.name;
    plan.world = setup.world;
    plan.lengths = lengths;
    for (const auto &mb : packing) {
      PlannedMicroBatch pmb;
      for (size_t g = 0; g < mb.size(); ++g) {
        PlannedGroup pg;
        pg.layout = layout;
        pg.firstRank = static_cast<int64_t>(g) * degree;
        pg.seqs = mb[g];
        pmb.groups.push_back(std::move(pg));
      }
      plan.microBatches.push_back(std::move(pmb));
    }
    return estimateStep(plan, setup, commTime);
  };
  StepPlan plan;
  if (layout.vpp > 1 && setup.microBatchSeqs == 0) {
    // Interleaved 1F1B needs a multiple of pp micro-batches, each with work
    // for every group: the counts the search below tries, rounded up.
    const int64_t p = layout.pp;
    std::vector<int64_t> counts{(static_cast<int64_t>(bins.size()) + p - 1) /
                                p * p};
    for (int64_t m :
         pipelineMicroBatchCounts(static_cast<int64_t>(bins.size()),
                                  static_cast<int64_t>(lengths.size()), groups))
      if ((m + p - 1) / p * p != counts.back())
        counts.push_back((m + p - 1) / p * p);
    std::string firstError;
    bool found = false;
    for (int64_t m : counts) {
      auto dealt = dealIntoMicroBatches(setup.model, lengths, m, groups,
                                        cap.tokensPerChip * perStage);
      StepPlan candidate;
      std::string error = dealt.empty()
                              ? "some sequence finds no room in " +
                                    std::to_string(m) + " micro-batches"
                              : makePlan(dealt, candidate);
      if (!error.empty()) {
        if (firstError.empty())
          firstError = error;
        continue;
      }
      if (!found || candidate.seconds < plan.seconds)
        plan = std::move(candidate);
      found = true;
    }
    if (!found)
      return fail(firstError);
    out.plan = std::move(plan);
    return out;
  }
  if (std::string error = makePlan(bins, plan); !error.empty())
    return fail(error);
  // A pipeline's bubble shrinks with more micro-batches: search the count
  // (fewest that fit, then about 1.5x steps up to one sequence per group)
  // rather than keeping the fewest memory allows.
  if (layout.pp > 1 && setup.microBatchSeqs == 0)
    for (int64_t m : pipelineMicroBatchCounts(
             static_cast<int64_t>(bins.size()),
             static_cast<int64_t>(lengths.size()), groups)) {
      auto dealt = dealIntoMicroBatches(setup.model, lengths, m, groups,
                                        cap.tokensPerChip * perStage);
      if (dealt.empty())
        continue;
      StepPlan candidate;
      if (std::string error = makePlan(dealt, candidate); !error.empty())
        continue; // that count cannot be costed; the others stand
      if (candidate.seconds < plan.seconds)
        plan = std::move(candidate);
    }
  out.plan = std::move(plan);
  return out;
}

std::vector<int64_t> pipelineMicroBatchCounts(int64_t fewest,
                                              int64_t sequences,
                                              int64_t groups) {
  std::vector<int64_t> counts;
  const int64_t most =
      std::max<int64_t>(fewest, (sequences + groups - 1) / std::max<int64_t>(1, groups));
  for (int64_t m = fewest + 1; m < most;
       m = std::max(m + 1, static_cast<int64_t>(std::ceil(1.5 * double(m)))))
    counts.push_back(m);
  if (most > fewest)
    counts.push_back(most);
  return counts;
}

std::vector<std::vector<std::vector<int64_t>>>
dealIntoMicroBatches(const step::TrainModel &model,
                     const std::vector<int64_t> &lengths, int64_t microBatches,
                     int64_t groups, int64_t groupCapacity) {
  StaticSpPlan shell;
  shell.microBatches.resize(static_cast<size_t>(microBatches));
  for (StaticSpMicroBatch &mb : shell.microBatches)
    mb.groups.resize(static_cast<size_t>(groups));
  auto bins = balanceBins(model, lengths, shell, groupCapacity);
  size_t placed = 0;
  for (const auto &mb : bins)
    for (const auto &g : mb)
      placed += g.size();
  if (placed != lengths.size())
    return {}; // some sequence found no room
  // A micro-batch must carry work: drop the empty ones (fewer sequences
  // than bins leaves some).
  std::vector<std::vector<std::vector<int64_t>>> out;
  for (auto &mb : bins) {
    bool any = false;
    for (const auto &g : mb)
      any |= !g.empty();
    if (any)
      out.push_back(std::move(mb));
  }
  return out;
}

std::vector<NamedPlan> standardBaselines(const TrainSetup &setup,
                                         const std::vector<int64_t> &lengths,
                                         const prog::CommTimeFn &commTime) {
  std::vector<NamedPlan> out;
  const int64_t heads = setup.model.shape.heads;
  TrainSetup packedSetup = setup;
  packedSetup.microBatchSeqs = 0; // baselines pack by memory
  // DeepSpeed-Ulysses runs with ZeRO-3, whatever stage the job asks for.
  packedSetup.model.zero = 3;
  for (int64_t d = 1; d <= setup.world; d *= 2)
    if (setup.world % d == 0 && heads % d == 0)
      out.push_back(
          planStaticLayout(packedSetup, lengths, {d, 1, 1, 1}, commTime));

  // The fastest feasible layout of a family; when none fits, one entry
  // named for the family that says so, with the largest layout's reason.
  auto best = [&](const std::vector<GroupLayout> &layouts,
                  const TrainSetup &s, const std::string &family,
                  const std::string &what) {
    NamedPlan chosen;
    for (const GroupLayout &l : layouts) {
      NamedPlan p = planStaticLayout(s, lengths, l, commTime);
      if (p.ok() && (!chosen.ok() || p.plan->seconds < chosen.plan->seconds))
        chosen = std::move(p);
      else if (!chosen.ok())
        chosen = std::move(p); // keep the latest (largest) error
    }
    if (!chosen.ok()) {
      chosen.error = "none of the " + std::to_string(layouts.size()) + " " +
                     what + " layouts fits; the largest, " + chosen.name +
                     ", fails: " + chosen.error;
      chosen.name = family;
    }
    return chosen;
  };
  std::vector<int64_t> tps;
  for (int64_t t = 1; t <= setup.chipsPerNode && t <= setup.world; t *= 2)
    if (heads % t == 0 && setup.world % t == 0)
      tps.push_back(t);

  TrainSetup megatron = setup;
  megatron.model.zero = std::min<int64_t>(setup.model.zero, 1);
  megatron.microBatchSeqs = 0; // baselines pack by memory
  std::vector<GroupLayout> tpcp;
  for (int64_t t : tps)
    for (int64_t c = 1; t * c <= setup.world; c *= 2)
      if (setup.world % (t * c) == 0 && (t > 1 || c > 1))
        tpcp.push_back({1, t, c, 1});
  if (!tpcp.empty())
    out.push_back(best(tpcp, megatron, "megatron-tp-cp", "Megatron TP x CP"));

  // Plain 1F1B, and Megatron-LM's interleaved schedule with two model
  // chunks per stage (--virtual-pipeline-model-parallel-size 2) where the
  // layers allow it: two families, so that the judge times the best of
  // each (the interleaved estimate is within a few percent of its
  // simulation, not exact).
  std::vector<GroupLayout> pipelines, interleaved;
  for (int64_t t : tps)
    for (int64_t p = 2; p <= setup.model.shape.layers && t * p <= setup.world;
         p *= 2)
      if (setup.world % (t * p) == 0 && isPowerOfTwo(p)) {
        pipelines.push_back({1, t, 1, p});
        if (p * kBaselineVirtualStages <= setup.model.shape.layers) {
          GroupLayout l{1, t, 1, p};
          l.vpp = kBaselineVirtualStages;
          interleaved.push_back(l);
        }
      }
  if (!pipelines.empty())
    out.push_back(best(pipelines, megatron, "pp-tp-1f1b", "1F1B pipeline"));
  if (!interleaved.empty())
    out.push_back(best(interleaved, megatron, "pp-tp-v2-1f1b",
                       "interleaved 1F1B pipeline"));
  return out;
}

} // namespace plexus::baselines
