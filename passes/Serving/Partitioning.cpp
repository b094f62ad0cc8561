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

} // namespace plexus::serving
