//===- Replicas.cpp - A large job as data-parallel replicas ---------------===//

#include "passes/Train/Replicas.h"

#include "passes/Baselines/StepPlanners.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>

namespace plexus::train {

ReplicaFold foldReplicas(int64_t world, int64_t chipsPerNode, int64_t maxRanks,
                         int64_t sequences,
                         const std::function<bool(int64_t)> &plannable) {
  ReplicaFold fold;
  fold.ranks = world;
  if (world <= maxRanks)
    return fold;
  const int64_t node = std::max<int64_t>(1, chipsPerNode);
  const int64_t fewest = (world + maxRanks - 1) / std::max<int64_t>(1, maxRanks);
  int64_t chosen = 0; // the fewest whole-node replicas
  for (int64_t r = fewest; r <= world; ++r) {
    if (world % r != 0 || (world / r) % node != 0)
      continue;
    if (!chosen)
      chosen = r;
    if (!plannable || (r <= sequences && plannable(world / r))) {
      chosen = r;
      break;
    }
  }
  if (chosen) {
    const int64_t r = chosen;
    if (r > sequences) {
      fold.error = "folding " + std::to_string(world) +
                   " ranks into replicas of at most " +
                   std::to_string(maxRanks) + " needs " + std::to_string(r) +
                   " replicas, more than the step's " +
                   std::to_string(sequences) + " sequences";
      return fold;
    }
    fold.replicas = r;
    fold.ranks = world / r;
    return fold;
  }
  fold.error = std::to_string(world) +
               " ranks do not split into replicas of whole " +
               std::to_string(node) + "-chip nodes of at most " +
               std::to_string(maxRanks) + " ranks";
  return fold;
}

BatchShare heaviestShare(const cost::TransformerShape &shape,
                         const std::vector<int64_t> &lengths,
                         int64_t replicas) {
  const int64_t n = static_cast<int64_t>(lengths.size());
  const int64_t shares = std::max<int64_t>(1, replicas);
  // One FLOP count per distinct length (batches repeat lengths).
  std::map<int64_t, double> flopsOf;
  for (int64_t len : lengths)
    flopsOf.try_emplace(len, 0.0);
  for (auto &[len, flops] : flopsOf)
    flops = baselines::sequenceForwardFlops(shape, len);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return flopsOf[lengths[static_cast<size_t>(a)]] >
           flopsOf[lengths[static_cast<size_t>(b)]];
  });
  using Load = std::pair<double, int64_t>; // (flops, share)
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> least;
  for (int64_t s = 0; s < shares; ++s)
    least.push({0.0, s});
  std::vector<int64_t> shareOf(static_cast<size_t>(n), 0);
  std::vector<double> load(static_cast<size_t>(shares), 0.0);
  std::vector<int64_t> count(static_cast<size_t>(shares), 0);
  for (int64_t i : order) {
    auto [flops, s] = least.top();
    least.pop();
    const double f = flopsOf[lengths[static_cast<size_t>(i)]];
    shareOf[static_cast<size_t>(i)] = s;
    load[static_cast<size_t>(s)] = flops + f;
    ++count[static_cast<size_t>(s)];
    least.push({flops + f, s});
  }
  int64_t heaviest = 0;
  double total = 0;
  for (int64_t s = 0; s < shares; ++s) {
    total += load[static_cast<size_t>(s)];
    if (load[static_cast<size_t>(s)] > load[static_cast<size_t>(heaviest)])
      heaviest = s;
  }
  BatchShare out;
  for (int64_t i = 0; i < n; ++i)
    if (shareOf[static_cast<size_t>(i)] == heaviest) {
      out.ids.push_back(i);
      out.lengths.push_back(lengths[static_cast<size_t>(i)]);
    }
  out.flops = load[static_cast<size_t>(heaviest)];
  out.meanFlops = total / double(shares);
  out.fewestSequences = *std::min_element(count.begin(), count.end());
  out.mostSequences = *std::max_element(count.begin(), count.end());
  return out;
}

} // namespace plexus::train
