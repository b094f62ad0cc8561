//===- FlexSpModel.cpp - FlexSP's cost model derived from a spec ----------===//
#include "passes/Train/FlexSpModel.h"

#include "passes/Cost/Overlap.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace plexus::train {

namespace {

// F(s) = c2 s^2 + c1 s, from F(1) and F(2) with s in units of 1024
// tokens: F(1u) = a + b, F(2u) = 4a + 2b.
template <typename Total> FlopsPolynomial fitQuadratic(Total total) {
  const double f1 = total(1024), f2 = total(2048);
  const double a = (f2 - 2 * f1) / 2, b = f1 - a;
  FlopsPolynomial p;
  p.quadratic = a / (1024.0 * 1024.0);
  p.linear = b / 1024.0;
  return p;
}

} // namespace

FlopsPolynomial trainFlopsPolynomial(const step::TrainModel &model) {
  return fitQuadratic([&](int64_t s) {
    double f = 0;
    for (int64_t l = 0; l < model.shape.layers; ++l) {
      auto fwd = cost::layerForwardFlops(model.shape, l, {s, 0});
      f += cost::layerTrainFlops(fwd.value, model.checkpointingAt(l)).total();
    }
    return f + 3 * cost::headForwardFlops(model.shape, s); // fwd + 2x bwd
  });
}

namespace {

// The attention cores and the elementwise kernels: per sequence, exactly
// quadratic in s (no term without s).
FlopsPolynomial kernelSecondsPolynomial(const step::TrainModel &model) {
  const cost::ComputeRates rates = model.rates();
  return fitQuadratic([&](int64_t s) {
    double t = 0;
    for (int64_t l = 0; l < model.shape.layers; ++l) {
      auto fwd = cost::layerKernelSeconds(model.shape, l, {s, 0}, rates,
                                          model.attention);
      t += 3 * fwd.value.total() +
           cost::recomputeSeconds(fwd.value, model.checkpointingAt(l));
    }
    return t;
  });
}

double gemmSecondsAt(const step::TrainModel &model, double tokens,
                     const cost::ComputeRates &rates) {
  double t = 3 * cost::headForwardSeconds(model.shape, tokens, rates);
  // Layers of one kind (dense or MoE) under one checkpointing mode have
  // the same GEMMs: time each kind once.
  std::optional<cost::LayerSeconds> dense, moe;
  for (int64_t l = 0; l < model.shape.layers; ++l) {
    const bool isDense = !model.shape.isMoE() || l < model.shape.denseLayers;
    std::optional<cost::LayerSeconds> &known = isDense ? dense : moe;
    if (!known)
      known = cost::layerGemmSeconds(model.shape, l, tokens, 1, rates).value;
    t += 3 * known->total() +
         cost::recomputeSeconds(*known, model.checkpointingAt(l));
  }
  return t;
}

} // namespace

FlopsPolynomial trainSecondsPolynomial(const step::TrainModel &model) {
  FlopsPolynomial p = kernelSecondsPolynomial(model);
  // The GEMMs run over a packed batch, not per sequence: their per-token
  // cost at kPolynomialGemmTokens tokens (their weights' traffic and the
  // last wave shared by the batch).
  const double m = static_cast<double>(kPolynomialGemmTokens);
  p.linear += trainGemmSeconds(model, m) / m;
  return p;
}

double trainGemmSeconds(const step::TrainModel &model, double tokens) {
  return gemmSecondsAt(model, tokens, model.rates());
}

FlopsPolynomial trainSecondsFloorPolynomial(const step::TrainModel &model) {
  FlopsPolynomial p = kernelSecondsPolynomial(model);
  // The flat model at the dtype's peak: FLOPs / (peak x efficiency).
  cost::ComputeRates flat = model.rates();
  flat.peakFlops = flat.gemmPeak(model.shape.dtype);
  flat.kernels.reset();
  const double m = static_cast<double>(kPolynomialGemmTokens);
  p.linear += gemmSecondsAt(model, m, flat) / m;
  return p;
}

DerivedFlexSp deriveFlexSpModel(const baselines::TrainSetup &setup,
                                int64_t maxLength,
                                const prog::CommTimeFn &comm) {
  DerivedFlexSp out;
  const step::TrainModel &m = setup.model;
  if (!(m.chip.bf16Flops * m.efficiency > 0)) {
    out.error = "the chip has no BF16 peak";
    return out;
  }
  const FlopsPolynomial p = trainSecondsPolynomial(m);
  out.model.name = "derived";
  out.model.alpha1 = p.quadratic * 1e3;
  out.model.alpha2 = p.linear * 1e3;
  out.model.layers = m.shape.layers;
  out.model.hidden = m.shape.hidden;
  out.model.actMBPerToken =
      static_cast<double>(baselines::activationBytesPerToken(m, maxLength)) /
      (1024.0 * 1024.0);

  baselines::Capacity cap =
      baselines::layoutCapacity(setup, {1, 1, 1, 1}, maxLength);
  if (!cap.error.empty()) {
    out.error = cap.error;
    return out;
  }
  out.capacityPerGpu = cap.tokensPerChip;

  // beta1: the first gather of forward (layer 0, with the embedding) and
  // of backward (the last layer, with the head) are exposed when the next
  // layer's is prefetched.
  if (m.zero == 3 && setup.world > 1) {
    std::vector<int64_t> all;
    for (int64_t r = 0; r < setup.world; ++r)
      all.push_back(r);
    prog::CommRequest r;
    r.kind = prog::CommKind::AllGather;
    r.ranks = all;
    const int64_t last = m.shape.layers - 1;
    // Every layer's two gathers and gradient reduce-scatter run on the
    // communication stream once per micro-batch, the first and last
    // layers' with the embedding and the head (as the lowering's); when
    // they take longer than the layer's compute, they set the
    // micro-batch's pace (baselines::estimateStep charges max(layer,
    // stream) per layer).
    double floor = 0, firstGathers = 0;
    for (int64_t l = 0; l < m.shape.layers; ++l) {
      auto lw = step::layerWork(m, {1, 1, 1, 1}, {1}, l, setup.world);
      const int64_t shard =
          lw.value.paramShardBytes +
          step::carriedExtraShardBytes(m.shape, l, l + 1, 1, setup.world);
      prog::CommRequest gather = r, reduce = r;
      gather.bytes = shard;
      reduce.kind = prog::CommKind::ReduceScatter;
      reduce.bytes = shard * setup.world;
      prog::CommTime g = comm(gather), rs = comm(reduce);
      if (!g.error.empty() || !rs.error.empty()) {
        out.error = !g.error.empty() ? g.error : rs.error;
        return out;
      }
      floor += 2 * g.seconds + rs.seconds;
      if (l == 0 || l == last)
        firstGathers += g.seconds * (last == 0 ? 2 : 1);
    }
    out.model.beta1 = firstGathers * 1e3;
    out.model.microBatchFloorMs = floor * 1e3;
    // Gathered on demand (zero_prefetch 0), none of it hides: a
    // micro-batch pays its whole stream beside its groups' work, at the
    // stream's rate (passes/Cost/Overlap.h), as FlexSP's own profile
    // charges its beta1 (reference section 1.4).
    if (m.zeroPrefetch == 0)
      out.model.beta1 = cost::Overlap::of(m.chip).streamSeconds(floor) * 1e3;
  }

  // All-to-all bandwidth per degree, on the job's first d ranks.
  const int64_t perRank = int64_t(64) << 20;
  for (int64_t d = 2; d <= setup.world; d *= 2) {
    if (setup.world % d != 0 || m.shape.heads % d != 0)
      continue;
    prog::CommRequest r;
    r.kind = prog::CommKind::AllToAll;
    for (int64_t i = 0; i < d; ++i)
      r.ranks.push_back(i);
    r.bytes = perRank;
    prog::CommTime t = comm(r);
    if (!t.error.empty() || !(t.seconds > 0)) {
      out.error = t.error.empty() ? "an all-to-all took no time" : t.error;
      return out;
    }
    // FlexSP's convention: MB per GPU / (GB/s) reads as ms.
    out.bandwidth.gbPerSecond.push_back(
        {d, static_cast<double>(perRank) / (1 << 20) / 1024.0 / t.seconds});
  }
  return out;
}

baselines::NamedPlan planFlexSp(const baselines::TrainSetup &setup,
                                const std::vector<int64_t> &lengths,
                                const prog::CommTimeFn &comm,
                                const adaptivesp::AdaptiveSpOptions &options,
                                double &solverSeconds) {
  baselines::NamedPlan out;
  out.name = "flexsp";
  out.model = setup.model;
  if (lengths.empty()) {
    out.error = "the batch is empty";
    return out;
  }
  const int64_t maxLength = *std::max_element(lengths.begin(), lengths.end());
  DerivedFlexSp derived = deriveFlexSpModel(setup, maxLength, comm);
  if (!derived.error.empty()) {
    out.error = derived.error;
    return out;
  }
  adaptivesp::Result<adaptivesp::AdaptiveSpPlan> planned =
      adaptivesp::planAdaptiveSp(derived.model, derived.bandwidth, lengths,
                                 setup.world, setup.chipsPerNode,
                                 derived.capacityPerGpu, options);
  if (!planned) {
    out.error = planned.error;
    return out;
  }
  solverSeconds = planned->solverSeconds;
  out.solverSeconds = planned->solverSeconds;
  step::StepPlan plan;
  plan.strategy = out.name;
  plan.world = setup.world;
  plan.lengths = lengths;
  for (const adaptivesp::SpMicroBatchPlan &mb : planned->microBatches) {
    step::PlannedMicroBatch pmb;
    for (const adaptivesp::SpGroupPlan &g : mb.groups) {
      step::PlannedGroup pg;
      pg.layout = {g.degree, 1, 1, 1};
      pg.firstRank = g.firstRank;
      pg.seqs = g.sequenceIds;
      pmb.groups.push_back(std::move(pg));
    }
    std::sort(pmb.groups.begin(), pmb.groups.end(),
              [](const step::PlannedGroup &a, const step::PlannedGroup &b) {
                return a.firstRank < b.firstRank;
              });
    plan.microBatches.push_back(std::move(pmb));
  }
  if (std::string error = baselines::estimateStep(plan, setup, comm);
      !error.empty()) {
    out.error = error;
    return out;
  }
  out.plan = std::move(plan);
  return out;
}

} // namespace plexus::train
