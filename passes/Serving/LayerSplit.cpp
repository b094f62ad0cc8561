//===- LayerSplit.cpp - Uneven layer split across serving stages ----------===//

#include "passes/Serving/LayerSplit.h"

#include <cmath>
#include <limits>

namespace plexus::serving {

Result<std::vector<int64_t>>
balancedLayerSplit(const std::vector<double> &layerSeconds,
                   const std::vector<double> &stageExtraSeconds) {
  using R = Result<std::vector<int64_t>>;
  const int64_t layers = int64_t(layerSeconds.size());
  const int64_t stages = int64_t(stageExtraSeconds.size());
  if (stages < 1)
    return R::fail("a split needs at least one stage");
  if (layers < stages)
    return R::fail("fewer layers (" + std::to_string(layers) +
                   ") than stages (" + std::to_string(stages) + ")");
  for (const std::vector<double> *v : {&layerSeconds, &stageExtraSeconds})
    for (double t : *v)
      if (!(t >= 0) || !std::isfinite(t))
        return R::fail("layer and stage times must be finite and >= 0");

  // prefix[i] = time of layers [0, i).
  std::vector<double> prefix(size_t(layers) + 1, 0.0);
  for (int64_t i = 0; i < layers; ++i)
    prefix[size_t(i) + 1] = prefix[size_t(i)] + layerSeconds[size_t(i)];
  auto span = [&](int64_t from, int64_t to) {
    return prefix[size_t(to)] - prefix[size_t(from)];
  };

  // best[s][i]: least bottleneck of layers [0, i) on stages 0..s (stage s
  // ends at i); cut[s][i]: where stage s starts in that optimum.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(
      size_t(stages), std::vector<double>(size_t(layers) + 1, inf));
  std::vector<std::vector<int64_t>> cut(
      size_t(stages), std::vector<int64_t>(size_t(layers) + 1, 0));
  for (int64_t i = 1; i <= layers; ++i)
    best[0][size_t(i)] = span(0, i) + stageExtraSeconds[0];
  for (int64_t s = 1; s < stages; ++s) {
    const double extra = stageExtraSeconds[size_t(s)];
    const std::vector<double> &prev = best[size_t(s) - 1];
    for (int64_t i = s + 1; i <= layers; ++i) {
      // Stage s is [j, i), j in [s, i - 1]. prev[j] grows with j and the
      // stage's own time shrinks, so the optimum sits where they cross:
      // the first j with prev[j] >= span(j, i) + extra, or the one before.
      int64_t lo = s, hi = i - 1;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (prev[size_t(mid)] >= span(mid, i) + extra)
          hi = mid;
        else
          lo = mid + 1;
      }
      double bestValue = inf;
      int64_t bestJ = s;
      for (int64_t j : {lo - 1, lo, lo + 1}) {
        if (j < s || j > i - 1)
          continue;
        double v = std::max(prev[size_t(j)], span(j, i) + extra);
        // Ties go to the later boundary: spare layers to earlier stages.
        if (v < bestValue || (v == bestValue && j > bestJ)) {
          bestValue = v;
          bestJ = j;
        }
      }
      // Past the crossing the bottleneck is prev[j], flat where adding a
      // layer to the prefix costs nothing: take the last j still as good.
      if (bestJ >= lo) {
        int64_t a = bestJ, b = i - 1;
        while (a < b) {
          int64_t mid = a + (b - a + 1) / 2;
          if (prev[size_t(mid)] <= bestValue)
            a = mid;
          else
            b = mid - 1;
        }
        bestJ = a;
      }
      best[size_t(s)][size_t(i)] = bestValue;
      cut[size_t(s)][size_t(i)] = bestJ;
    }
  }
  std::vector<int64_t> split(size_t(stages), 0);
  int64_t end = layers;
  for (int64_t s = stages - 1; s >= 1; --s) {
    int64_t start = cut[size_t(s)][size_t(end)];
    split[size_t(s)] = end - start;
    end = start;
  }
  split[0] = end;
  return R::ok(std::move(split));
}

double splitBottleneckSeconds(const std::vector<double> &layerSeconds,
                              const std::vector<double> &stageExtraSeconds,
                              const std::vector<int64_t> &split) {
  double worst = 0;
  size_t layer = 0;
  for (size_t s = 0; s < split.size(); ++s) {
    double t = s < stageExtraSeconds.size() ? stageExtraSeconds[s] : 0.0;
    for (int64_t k = 0; k < split[s] && layer < layerSeconds.size(); ++k)
      t += layerSeconds[layer++];
    worst = std::max(worst, t);
  }
  return worst;
}

Result<std::vector<int64_t>> planLayerSplit(const cost::TransformerShape &shape,
                                            const ServingHardware &hw,
                                            const ServingLayout &layout,
                                            const ServingCostOptions &options,
                                            const DecodeBatch &representative) {
  ServingLayout even = layout;
  even.stageLayers.clear();
  auto model = TransformerStageCost::create(shape, hw, even, options);
  if (!model)
    return Result<std::vector<int64_t>>::fail(model.error);
  std::vector<double> layerSeconds(size_t(shape.layers));
  for (int64_t i = 0; i < shape.layers; ++i)
    layerSeconds[size_t(i)] = (*model)->decodeLayerSeconds(i, representative);
  std::vector<double> extras(size_t(layout.pp));
  for (int64_t s = 0; s < layout.pp; ++s)
    extras[size_t(s)] = (*model)->decodeStageExtraSeconds(s, representative);
  return balancedLayerSplit(layerSeconds, extras);
}

} // namespace plexus::serving
