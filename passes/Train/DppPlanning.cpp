//===- DppPlanning.cpp - Dynamic pipeline parallelism for a spec ----------===//
#include "passes/Train/DppPlanning.h"

#include "passes/Lower/StepLowering.h"
#include "passes/Train/FlexSpModel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>

namespace plexus::train {

namespace {

constexpr double kMB = 1024.0 * 1024.0;

/// A communication's time on ranks 0..n-1, or why there is none.
prog::CommTime timeOn(const prog::CommTimeFn &comm, prog::CommKind kind,
                     int64_t ranks, int64_t bytes) {
  prog::CommRequest r;
  r.kind = kind;
  for (int64_t i = 0; i < ranks; ++i)
    r.ranks.push_back(i);
  r.bytes = bytes;
  return comm(r);
}

} // namespace

dpp::Result<DppJobLayout> dppJobLayout(const baselines::TrainSetup &setup,
                                       int64_t spDegree) {
  using R = dpp::Result<DppJobLayout>;
  DppJobLayout layout;
  layout.spDegree = spDegree > 0 ? spDegree : setup.chipsPerNode;
  if (layout.spDegree < 1 || setup.world % layout.spDegree != 0)
    return R::fail("the SP degree (" + std::to_string(layout.spDegree) +
                   ") must divide the job's chips (" +
                   std::to_string(setup.world) + ")");
  layout.stages = setup.world / layout.spDegree;
  const cost::TransformerShape &shape = setup.model.shape;
  if (shape.heads % layout.spDegree != 0)
    return R::fail("the SP degree (" + std::to_string(layout.spDegree) +
                   ") must divide the heads (" + std::to_string(shape.heads) +
                   ")");
  if (layout.stages > shape.layers || shape.layers % layout.stages != 0)
    return R::fail("dynamic pipelines give every stage the same layers: the " +
                   std::to_string(layout.stages) + " stages (" +
                   std::to_string(setup.world) + " chips / sp " +
                   std::to_string(layout.spDegree) + ") must divide the " +
                   std::to_string(shape.layers) + " layers");
  return R::ok(layout);
}

dpp::Result<dpp::DppModel> deriveDppModel(const baselines::TrainSetup &setup,
                                          const DppJobLayout &layout,
                                          int64_t maxLength,
                                          const prog::CommTimeFn &comm) {
  using R = dpp::Result<dpp::DppModel>;
  step::TrainModel m = setup.model;
  // Flash attention: the attention scores are recomputed in the backward
  // and never kept, the cost model's selective mode; layer checkpointing
  // is the planner's to choose.
  m.checkpointing = cost::Checkpointing::Selective;
  m.checkpointLayers = 0;
  m.zero = 3;
  m.zeroOncePerStep = true;
  if (!(m.chip.bf16Flops * m.efficiency > 0))
    return R::fail("the chip has no BF16 peak");
  const cost::TransformerShape &shape = m.shape;
  const int64_t ds = layout.spDegree, dp = layout.stages;
  const int64_t e = cost::bytesPerElement(shape.dtype);

  dpp::DppModel out;
  ckpt::ActivationModel &a = out.activation;
  a.layers = shape.layers;
  a.stages = dp;
  a.spDegree = ds;
  a.hidden = shape.hidden;
  a.kvDim = cost::kvBytesPerToken(shape) / (2 * e);
  a.bytesPerElement = e;
  // Ulysses gives each of the stage's d_s ranks an equal part of every
  // slice, so slices are cut on multiples of d_s.
  out.sliceGranule = ds;
  double tokenBytes = 0;
  for (int64_t l = 0; l < shape.layers; ++l) {
    auto b = cost::activationBytesPerToken(shape, l, {maxLength, 0},
                                           cost::Checkpointing::Selective);
    if (!b.ok())
      return R::fail(b.problems.front().message);
    tokenBytes += static_cast<double>(b.value);
  }
  a.tokenMB = tokenBytes / kMB;
  a.logitsMB =
      static_cast<double>(cost::logitBytesPerToken(shape)) / kMB; // last stage

  const FlopsPolynomial p = trainSecondsPolynomial(m);
  out.alpha1 = p.quadratic * 1e3;
  out.alpha2 = p.linear * 1e3;
  // A chunk's GEMMs run once over its tokens / d_s rows per rank; alpha2
  // charges them per token at kPolynomialGemmTokens rows. The difference,
  // the whole model's over d_p stages, is the chunk's (its weights' HBM
  // traffic below the roofline's ridge, its last wave). Memoized per token
  // count (the planner asks for the same chunks many times).
  {
    const double perToken =
        trainGemmSeconds(m, static_cast<double>(kPolynomialGemmTokens)) /
        static_cast<double>(kPolynomialGemmTokens);
    // Copies of the model share the memo; a mutex keeps it safe should
    // planners ever run on threads (its values depend on tokens alone).
    struct Memo {
      std::mutex mutex;
      std::map<int64_t, double> ms;
    };
    auto memo = std::make_shared<Memo>();
    out.gemmExcessMs = [m, perToken, ds, dp, memo](int64_t tokens) {
      std::lock_guard<std::mutex> lock(memo->mutex);
      auto it = memo->ms.find(tokens);
      if (it != memo->ms.end())
        return it->second;
      const double rows = static_cast<double>(tokens) / static_cast<double>(ds);
      const double ms = rows > 0
                            ? (trainGemmSeconds(m, rows) - rows * perToken) *
                                  1e3 / static_cast<double>(dp)
                            : 0.0;
      memo->ms.emplace(tokens, ms);
      return ms;
    };
  }

  if (ds > 1) {
    const int64_t small = int64_t(1) << 20, large = int64_t(64) << 20;
    prog::CommTime t1 = timeOn(comm, prog::CommKind::AllToAll, ds, small);
    prog::CommTime t2 = timeOn(comm, prog::CommKind::AllToAll, ds, large);
    if (!t1.error.empty() || !t2.error.empty())
      return R::fail(t1.error.empty() ? t2.error : t1.error);
    if (!(t2.seconds > t1.seconds))
      return R::fail("the fabric's all-to-all does not grow with its size");
    // Bytes per rank over the slope; the planner's model divides a
    // chunk's bytes by d_s itself.
    const double slope =
        (t2.seconds - t1.seconds) / static_cast<double>(large - small);
    out.allToAllGBps = 1.0 / slope / 1e9;
    out.allToAllLatencyMs =
        std::max(0.0, t1.seconds - static_cast<double>(small) * slope) * 1e3;
  }
  // ZeRO-3 runs once per step (TrainModel::zeroOncePerStep, set above):
  // each stage gathers its weights beside its first forward and reduces
  // its gradients beside its last backward, so a chunk pays no ZeRO-3
  // cost (beta1 stays 0) and the stage holds its whole weights and
  // gradients (modelStatesMB, below).

  out.backwardWorkingMemory = true; // the lowering's recompute transient
  const double usable = static_cast<double>(setup.memoryBytes) / kMB;
  out.memoryMB = usable * (1.0 - layout.reserveFraction);
  for (int64_t s = 0; s < dp; ++s) {
    out.modelStatesMB.push_back(
        static_cast<double>(step::residentBytes(m, {ds, 1, 1, dp}, s, ds)) /
        kMB);
    if (out.modelStatesMB.back() >= out.memoryMB) {
      char buf[160];
      std::snprintf(buf, sizeof(buf),
                    "stage %lld's model states need %.1f MB per chip, and "
                    "only %.1f MB are usable (after the %.0f %% reserve)",
                    static_cast<long long>(s), out.modelStatesMB.back(),
                    out.memoryMB, 100 * layout.reserveFraction);
      return R::fail(std::string(buf) +
                     "; raise memory_limit, sp or the stage count");
    }
  }
  if (std::string why = dpp::dppModelProblem(out); !why.empty())
    return R::fail(why);
  return R::ok(std::move(out));
}

step::PipelinedStepPlan toPipelinedStep(const dpp::DppPlan &plan,
                                         const dpp::DppModel &model,
                                         const DppJobLayout &layout,
                                         const std::vector<int64_t> &lengths,
                                         const std::string &name) {
  step::PipelinedStepPlan out;
  out.strategy = name;
  out.spDegree = layout.spDegree;
  out.stages = layout.stages;
  out.world = layout.spDegree * layout.stages;
  out.lengths = lengths;
  out.seconds = plan.iterationMs / 1e3;
  out.bubbleRatio = plan.bubbleRatio;
  double peakMB = 0;
  for (const dpp::DppPipeline &pipe : plan.pipelines) {
    step::PlannedPipeline pp;
    for (int64_t c : pipe.order.chunks) {
      const dpp::Chunk &chunk = plan.chunking.chunks[static_cast<size_t>(c)];
      step::PlannedChunk pc;
      pc.kind = dpp::chunkKindName(chunk.kind);
      for (const dpp::SequencePiece &piece : chunk.pieces)
        pc.slices.push_back({piece.sequence, piece.begin, piece.end});
      pc.seconds = dpp::chunkStageMs(model, chunk) / 1e3;
      pc.memBytes = static_cast<int64_t>(std::llround(
          ckpt::baseActivationMB(model.activation, 0,
                                 dpp::chunkFootprint(model, chunk)) *
          kMB));
      pp.chunks.push_back(std::move(pc));
    }
    pp.backward = pipe.order.backward;
    pp.nSplit = pipe.order.nSplit;
    pp.remat = pipe.checkpointing.layers;
    pp.seconds = pipe.timing.makespanMs / 1e3;
    pp.bubbleRatio = pipe.timing.bubbleRatio;
    for (size_t s = 0; s < pipe.checkpointing.peakMB.size(); ++s)
      peakMB = std::max(peakMB,
                        pipe.checkpointing.peakMB[s] + model.modelStatesMB[s]);
    out.pipelines.push_back(std::move(pp));
  }
  out.peakMemBytes = static_cast<int64_t>(std::llround(peakMB * kMB));
  return out;
}

baselines::NamedPlan planDynamicPp(const baselines::TrainSetup &setup,
                                   const std::vector<int64_t> &lengths,
                                   const prog::CommTimeFn &comm,
                                   const DppJobLayout &layout,
                                   const dpp::DppOptions &options,
                                   const std::string &name) {
  baselines::NamedPlan out;
  out.name = name;
  out.model = setup.model;
  out.model.zero = 3;
  out.model.checkpointLayers = 0; // DPP checkpoints per chunk and stage
  out.layout = {layout.spDegree, 1, 1, layout.stages};
  if (lengths.empty()) {
    out.error = "the batch is empty";
    return out;
  }
  const int64_t maxLength = *std::max_element(lengths.begin(), lengths.end());
  dpp::Result<dpp::DppModel> model =
      deriveDppModel(setup, layout, maxLength, comm);
  if (!model) {
    out.error = model.error;
    return out;
  }
  const auto start = std::chrono::steady_clock::now();
  dpp::Result<dpp::DppPlan> planned =
      dpp::planDynamicPipeline(*model, lengths, options);
  out.solverSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!planned) {
    out.error = planned.error;
    return out;
  }
  out.pipelined = toPipelinedStep(*planned, *model, layout, lengths, name);
  return out;
}

dpp::Result<dpp::Chunk> dppChunkOf(const step::PlannedChunk &chunk,
                                   const std::vector<int64_t> &lengths) {
  using R = dpp::Result<dpp::Chunk>;
  dpp::Chunk out;
  if (chunk.kind == "packed")
    out.kind = dpp::ChunkKind::Packed;
  else if (chunk.kind == "split")
    out.kind = dpp::ChunkKind::Split;
  else if (chunk.kind == "hybrid")
    out.kind = dpp::ChunkKind::Hybrid;
  else
    return R::fail("unknown chunk kind '" + chunk.kind + "'");
  for (const step::ChunkSlice &s : chunk.slices) {
    if (s.sequence < 0 || s.sequence >= static_cast<int64_t>(lengths.size()) ||
        s.begin < 0 || s.end <= s.begin ||
        s.end > lengths[static_cast<size_t>(s.sequence)])
      return R::fail("slice [" + std::to_string(s.begin) + ", " +
                     std::to_string(s.end) + ") of sequence " +
                     std::to_string(s.sequence) + " lies outside the sequence");
    out.pieces.push_back({s.sequence, s.begin, s.end});
  }
  if (out.pieces.empty())
    return R::fail("a chunk has no slices");
  out.tail =
      out.kind != dpp::ChunkKind::Packed &&
      out.pieces[0].end == lengths[static_cast<size_t>(out.pieces[0].sequence)];
  return R::ok(std::move(out));
}

std::string replanCheckpointing(step::PipelinedStepPlan &plan,
                                const dpp::DppModel &model,
                                ckpt::CheckpointStrategy strategy,
                                const ckpt::CheckpointOptions &options) {
  if (plan.stages != model.activation.stages ||
      plan.spDegree != model.activation.spDegree)
    return "the step's layout (sp " + std::to_string(plan.spDegree) + ", " +
           std::to_string(plan.stages) + " stages) is not the model's";
  step::PipelinedStepPlan out = plan;
  dpp::DppOptions dppOptions;
  dppOptions.checkpointing = strategy;
  dppOptions.checkpointOptions = options;
  double seconds = 0, busy = 0, peakMB = 0;
  for (size_t i = 0; i < out.pipelines.size(); ++i) {
    step::PlannedPipeline &pipe = out.pipelines[i];
    const std::string where = "pipeline " + std::to_string(i) + ": ";
    std::vector<dpp::Chunk> chunks;
    for (const step::PlannedChunk &c : pipe.chunks) {
      dpp::Result<dpp::Chunk> chunk = dppChunkOf(c, plan.lengths);
      if (!chunk)
        return where + chunk.error;
      chunks.push_back(*chunk);
    }
    // Units in the given forward order: a run of one split sequence's
    // chunks, or one packed chunk.
    std::vector<dpp::ChunkUnit> units;
    for (size_t k = 0; k < chunks.size(); ++k) {
      const int64_t seq = chunks[k].splitSequence();
      if (seq >= 0 && !units.empty() && units.back().sequence == seq &&
          chunks[static_cast<size_t>(units.back().chunks.back())]
                  .splitSequence() == seq &&
          !chunks[static_cast<size_t>(units.back().chunks.back())].tail) {
        units.back().chunks.push_back(static_cast<int64_t>(k));
        units.back().tokens += chunks[k].tokens();
        continue;
      }
      dpp::ChunkUnit u;
      u.chunks = {static_cast<int64_t>(k)};
      u.tokens = chunks[k].tokens();
      u.sequence = seq >= 0 ? seq : chunks[k].pieces[0].sequence;
      units.push_back(std::move(u));
    }
    dpp::Result<dpp::DppPipeline> planned =
        dpp::planPipeline(model, chunks, units, dppOptions);
    if (!planned)
      return where + planned.error;
    if (planned->order.backward != pipe.backward)
      return where + "its backward order is not the 1F1B one (each split "
                     "sequence's chunks in reverse)";
    pipe.nSplit = planned->order.nSplit;
    pipe.remat = planned->checkpointing.layers;
    pipe.seconds = planned->timing.makespanMs / 1e3;
    pipe.bubbleRatio = planned->timing.bubbleRatio;
    seconds += pipe.seconds;
    for (double b : planned->timing.busyMs)
      busy += b / 1e3;
    for (size_t s = 0; s < planned->checkpointing.peakMB.size(); ++s)
      peakMB = std::max(peakMB, planned->checkpointing.peakMB[s] +
                                    model.modelStatesMB[s]);
  }
  out.seconds = seconds;
  out.bubbleRatio =
      seconds > 0 ? 1 - busy / (seconds * static_cast<double>(plan.stages)) : 0;
  out.peakMemBytes = static_cast<int64_t>(std::llround(peakMB * kMB));
  plan = std::move(out);
  return {};
}

} // namespace plexus::train
