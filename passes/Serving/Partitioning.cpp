//===- Partitioning.cpp - Prefill micro-batches and decode splits ---------===//

#include "passes/Serving/Partitioning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace plexus::serving {

double waveSeconds(double work, int64_t stages, double gamma,
                   int64_t microBatches) {
  double k = double(microBatches), p = double(stages);
  return (k + p - 1) * (work / (k * p) + gamma);
}

double sqrtRuleOptimum(double work, int64_t stages, double gamma) {
  if (stages <= 1 || work <= 0)
    return 0;
  if (gamma <= 0)
    return std::numeric_limits<double>::infinity();
  double p = double(stages);
  return std::sqrt((p - 1) * work / (p * gamma));
}

int64_t sqrtRuleMicroBatches(double work, int64_t stages, double gamma,
                             int64_t maxMicroBatches) {
  int64_t cap = std::max<int64_t>(1, maxMicroBatches);
  double opt = sqrtRuleOptimum(work, stages, gamma);
  if (!(opt < double(cap)))
    return cap;
  int64_t lo = std::max<int64_t>(1, int64_t(std::floor(opt)));
  int64_t hi =
      std::min<int64_t>(cap, std::max<int64_t>(1, int64_t(std::ceil(opt))));
  return waveSeconds(work, stages, gamma, hi) <
                 waveSeconds(work, stages, gamma, lo)
             ? hi
             : lo;
}

int64_t prefillMicroBatchCount(double work, int64_t stages, double gamma,
                               int64_t requests, int64_t tokens,
                               int64_t maxTokensPerMicroBatch) {
  if (requests <= 0)
    return 0;
  int64_t k = sqrtRuleMicroBatches(work, stages, gamma, requests);
  if (maxTokensPerMicroBatch > 0)
    k = std::max(k, (tokens + maxTokensPerMicroBatch - 1) /
                        maxTokensPerMicroBatch);
  return std::min(k, requests);
}

std::vector<int64_t> lptAssign(const std::vector<double> &weights,
                               int64_t buckets,
                               const std::vector<int64_t> &tokens,
                               int64_t maxTokensPerBucket) {
  const size_t n = weights.size();
  std::vector<int64_t> assignment(n, 0);
  if (buckets <= 1 || n == 0)
    return assignment;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return weights[a] > weights[b]; });
  bool limited = maxTokensPerBucket > 0 && tokens.size() == n;
  std::vector<double> load(size_t(buckets), 0.0);
  std::vector<int64_t> used(size_t(buckets), 0);
  for (size_t item : order) {
    int64_t best = -1, bestAny = 0;
    for (int64_t b = 0; b < buckets; ++b) {
      size_t i = size_t(b);
      if (load[i] < load[size_t(bestAny)])
        bestAny = b;
      if (limited && used[i] + tokens[item] > maxTokensPerBucket)
        continue;
      if (best < 0 || load[i] < load[size_t(best)])
        best = b;
    }
    int64_t chosen = best >= 0 ? best : bestAny;
    assignment[item] = chosen;
    load[size_t(chosen)] += weights[item];
    if (limited)
      used[size_t(chosen)] += tokens[item];
  }
  return assignment;
}

std::vector<double> bucketLoads(const std::vector<double> &weights,
                                const std::vector<int64_t> &assignment,
                                int64_t buckets) {
  std::vector<double> load(size_t(std::max<int64_t>(buckets, 0)), 0.0);
  for (size_t i = 0; i < weights.size() && i < assignment.size(); ++i)
    if (assignment[i] >= 0 && assignment[i] < buckets)
      load[size_t(assignment[i])] += weights[i];
  return load;
}

std::vector<int64_t> partitionByKvLength(const std::vector<int64_t> &kvLengths,
                                         int64_t stages) {
  std::vector<double> w(kvLengths.begin(), kvLengths.end());
  return lptAssign(w, stages);
}

namespace {

/// Items by descending weight, ties to the lower index.
std::vector<size_t> heaviestFirst(const std::vector<double> &weights) {
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return weights[a] > weights[b]; });
  return order;
}

int64_t rankCount(const std::vector<int64_t> &ranks) {
  int64_t n = 1;
  for (int64_t r : ranks)
    n = std::max(n, r + 1);
  return n;
}

} // namespace

std::vector<int64_t> rankAwareAssign(const std::vector<WaveItem> &items,
                                     int64_t buckets,
                                     int64_t maxTokensPerBucket) {
  const size_t n = items.size();
  std::vector<int64_t> assignment(n, 0);
  if (buckets <= 1 || n == 0)
    return assignment;
  std::vector<double> weights(n);
  std::vector<int64_t> ranks(n);
  for (size_t i = 0; i < n; ++i) {
    weights[i] = items[i].shared + items[i].attention;
    ranks[i] = std::max<int64_t>(0, items[i].rank);
  }
  const size_t nr = size_t(rankCount(ranks));
  const size_t nb = size_t(buckets);
  std::vector<double> shared(nb, 0.0), busiest(nb, 0.0);
  std::vector<double> attention(nb * nr, 0.0); // bucket-major
  std::vector<int64_t> used(nb, 0);
  for (size_t item : heaviestFirst(weights)) {
    const WaveItem &it = items[item];
    const size_t r = size_t(ranks[item]);
    auto costWith = [&](size_t b) {
      return shared[b] + it.shared +
             std::max(busiest[b], attention[b * nr + r] + it.attention);
    };
    int64_t best = -1, bestAny = 0;
    double bestCost = 0, bestAnyCost = costWith(0);
    for (size_t b = 0; b < nb; ++b) {
      double c = costWith(b);
      if (c < bestAnyCost) {
        bestAnyCost = c;
        bestAny = int64_t(b);
      }
      if (maxTokensPerBucket > 0 && used[b] + it.tokens > maxTokensPerBucket)
        continue;
      if (best < 0 || c < bestCost) {
        best = int64_t(b);
        bestCost = c;
      }
    }
    size_t chosen = size_t(best >= 0 ? best : bestAny);
    assignment[item] = int64_t(chosen);
    shared[chosen] += it.shared;
    double &a = attention[chosen * nr + r];
    a += it.attention;
    busiest[chosen] = std::max(busiest[chosen], a);
    used[chosen] += it.tokens;
  }
  return assignment;
}

std::vector<double> rankAwareCosts(const std::vector<WaveItem> &items,
                                   const std::vector<int64_t> &assignment,
                                   int64_t buckets) {
  const size_t nb = size_t(std::max<int64_t>(buckets, 0));
  std::vector<int64_t> ranks;
  for (const WaveItem &it : items)
    ranks.push_back(std::max<int64_t>(0, it.rank));
  const size_t nr = size_t(rankCount(ranks));
  std::vector<double> shared(nb, 0.0), attention(nb * nr, 0.0);
  for (size_t i = 0; i < items.size() && i < assignment.size(); ++i) {
    if (assignment[i] < 0 || assignment[i] >= buckets)
      continue;
    size_t b = size_t(assignment[i]);
    shared[b] += items[i].shared;
    attention[b * nr + size_t(ranks[i])] += items[i].attention;
  }
  std::vector<double> cost(nb, 0.0);
  for (size_t b = 0; b < nb; ++b)
    cost[b] = shared[b] + *std::max_element(attention.begin() + b * nr,
                                            attention.begin() + (b + 1) * nr);
  return cost;
}

double pipelineSeconds(const std::vector<double> &costs, int64_t stages,
                       double gamma) {
  double p = double(std::max<int64_t>(1, stages));
  double sum = 0, longest = 0;
  for (double c : costs) {
    double t = c / p + gamma;
    sum += t;
    longest = std::max(longest, t);
  }
  return sum + (p - 1) * longest;
}

WaveCut cutWave(const std::vector<WaveItem> &items, int64_t stages,
                double gamma, int64_t maxTokensPerMicroBatch) {
  WaveCut cut;
  const int64_t n = int64_t(items.size());
  if (n == 0)
    return cut;
  double work = 0;
  int64_t tokens = 0;
  for (const WaveItem &it : items) {
    work += it.shared + it.attention;
    tokens += it.tokens;
  }
  int64_t hi = prefillMicroBatchCount(work, stages, gamma, n, tokens,
                                      maxTokensPerMicroBatch);
  int64_t lo = 1;
  if (maxTokensPerMicroBatch > 0)
    lo =
        std::min(n, std::max<int64_t>(1, (tokens + maxTokensPerMicroBatch - 1) /
                                             maxTokensPerMicroBatch));
  for (int64_t k = lo; k <= hi; ++k) {
    std::vector<int64_t> a = rankAwareAssign(items, k, maxTokensPerMicroBatch);
    // A cut that leaves a micro-batch empty is a smaller K already tried.
    std::vector<bool> used(size_t(k), false);
    for (int64_t b : a)
      used[size_t(b)] = true;
    if (k > lo && std::find(used.begin(), used.end(), false) != used.end())
      continue;
    double t = pipelineSeconds(rankAwareCosts(items, a, k), stages, gamma);
    if (cut.microBatches == 0 || t < cut.seconds) {
      cut.microBatches = k;
      cut.assignment = std::move(a);
      cut.seconds = t;
    }
  }
  return cut;
}

std::vector<int64_t>
partitionByKvLengthAndRank(const std::vector<int64_t> &kvLengths,
                           const std::vector<int64_t> &ranks, int64_t stages) {
  const size_t n = kvLengths.size();
  std::vector<int64_t> assignment(n, 0);
  if (stages <= 1 || n == 0)
    return assignment;
  std::vector<int64_t> rank(n, 0);
  for (size_t i = 0; i < n && i < ranks.size(); ++i)
    rank[i] = std::max<int64_t>(0, ranks[i]);
  const size_t nr = size_t(rankCount(rank));
  const size_t nb = size_t(stages);
  std::vector<double> weights(kvLengths.begin(), kvLengths.end());
  std::vector<double> total(nb, 0.0), own(nb * nr, 0.0);
  for (size_t item : heaviestFirst(weights)) {
    const size_t r = size_t(rank[item]);
    size_t best = 0;
    for (size_t b = 1; b < nb; ++b) {
      double mine = own[b * nr + r], theirs = own[best * nr + r];
      if (mine < theirs || (mine == theirs && total[b] < total[best]))
        best = b;
    }
    assignment[item] = int64_t(best);
    own[best * nr + r] += weights[item];
    total[best] += weights[item];
  }
  return assignment;
}

} // namespace plexus::serving
