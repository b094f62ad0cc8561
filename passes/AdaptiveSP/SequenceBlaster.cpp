//===- SequenceBlaster.cpp - FlexSP's micro-batch chunking ----------------===//
//
// Sort, then a min-max contiguous partition. See SequenceBlaster.h.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/SequenceBlaster.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace plexus::adaptivesp {

namespace {

Result<bool> checkLengths(const std::vector<int64_t> &lengths) {
  for (size_t i = 0; i < lengths.size(); ++i)
    if (lengths[i] <= 0)
      return Result<bool>::fail("sequence " + std::to_string(i) + " has " +
                                std::to_string(lengths[i]) +
                                " tokens; lengths must be positive");
  return Result<bool>::ok(true);
}

} // namespace

std::vector<int64_t>
sortByDescendingLength(const std::vector<int64_t> &lengths) {
  std::vector<int64_t> order(lengths.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return lengths[a] > lengths[b];
  });
  return order;
}

Result<ContiguousPartition> partitionMinMax(const std::vector<int64_t> &tokens,
                                            int64_t parts) {
  using R = Result<ContiguousPartition>;
  const int64_t n = static_cast<int64_t>(tokens.size());
  if (parts < 1 || parts > n)
    return R::fail("cannot cut " + std::to_string(n) + " sequences into " +
                   std::to_string(parts) + " non-empty micro-batches");
  std::vector<int64_t> prefix(n + 1, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (tokens[i] < 0)
      return R::fail("a token count cannot be negative");
    prefix[i + 1] = prefix[i] + tokens[i];
  }

  // best[k]: min-max sum of the first k items in `i` runs (i is the layer).
  const int64_t inf = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> prev(n + 1, inf), cur(n + 1, inf);
  for (int64_t k = 1; k <= n; ++k)
    prev[k] = prefix[k];
  for (int64_t i = 2; i <= parts; ++i) {
    std::fill(cur.begin(), cur.end(), inf);
    for (int64_t k = i; k <= n; ++k) {
      int64_t best = inf;
      // The last run is items j..k-1; it grows as j falls, so once it alone
      // reaches `best` no smaller j can win.
      for (int64_t j = k - 1; j >= i - 1; --j) {
        int64_t last = prefix[k] - prefix[j];
        if (last >= best)
          break;
        best = std::min(best, std::max(prev[j], last));
      }
      cur[k] = best;
    }
    std::swap(prev, cur);
  }
  const int64_t optimum = prev[n];

  // Rebuild from the back: each run, last first, takes as many items as fit
  // under the optimum while leaving one item for every earlier run.
  ContiguousPartition out;
  out.maxTokens = optimum;
  std::vector<size_t> starts;
  int64_t end = n;
  for (int64_t run = parts; run >= 2; --run) {
    int64_t start = end - 1;
    while (start - 1 >= run - 1 && prefix[end] - prefix[start - 1] <= optimum)
      --start;
    starts.push_back(static_cast<size_t>(start));
    end = start;
  }
  std::reverse(starts.begin(), starts.end());
  for (size_t s : starts)
    out.ends.push_back(s);
  out.ends.push_back(static_cast<size_t>(n));
  return R::ok(std::move(out));
}

Result<BlastedBatch> blastSequences(const std::vector<int64_t> &lengths,
                                    int64_t microBatches) {
  using R = Result<BlastedBatch>;
  Result<bool> ok = checkLengths(lengths);
  if (!ok)
    return R::fail(ok.error);
  std::vector<int64_t> order = sortByDescendingLength(lengths);
  std::vector<int64_t> sorted;
  sorted.reserve(order.size());
  for (int64_t id : order)
    sorted.push_back(lengths[id]);
  Result<ContiguousPartition> cut = partitionMinMax(sorted, microBatches);
  if (!cut)
    return R::fail(cut.error);
  BlastedBatch out;
  out.maxTokens = cut->maxTokens;
  size_t begin = 0;
  for (size_t end : cut->ends) {
    std::vector<int64_t> ids(order.begin() + begin, order.begin() + end);
    int64_t sum = 0;
    for (int64_t id : ids)
      sum += lengths[id];
    out.microBatches.push_back(std::move(ids));
    out.tokens.push_back(sum);
    begin = end;
  }
  return R::ok(std::move(out));
}

Result<int64_t> minMicroBatchCount(const std::vector<int64_t> &lengths,
                                   int64_t clusterTokens) {
  using R = Result<int64_t>;
  if (clusterTokens <= 0)
    return R::fail("the cluster's token capacity must be positive, not " +
                   std::to_string(clusterTokens));
  Result<bool> ok = checkLengths(lengths);
  if (!ok)
    return R::fail(ok.error);
  if (lengths.empty())
    return R::ok(0);
  int64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > clusterTokens)
      return R::fail("sequence " + std::to_string(i) + " (" +
                     std::to_string(lengths[i]) +
                     " tokens) is longer than the cluster's " +
                     std::to_string(clusterTokens) + "-token capacity");
    total += lengths[i];
  }
  // The reference raises ceil(total / capacity) until the min-max cut fits.
  // The min-max sum does not grow with M, so the first M that fits is the
  // number of runs a greedy fill of the sorted order needs; we count those.
  std::vector<int64_t> order = sortByDescendingLength(lengths);
  int64_t runs = 1, fill = 0;
  for (int64_t id : order) {
    if (fill + lengths[id] > clusterTokens) {
      ++runs;
      fill = 0;
    }
    fill += lengths[id];
  }
  int64_t lower = (total + clusterTokens - 1) / clusterTokens;
  return R::ok(std::max(runs, lower));
}

std::vector<int64_t> microBatchCandidates(int64_t minCount, int64_t trials,
                                          int64_t sequences) {
  std::vector<int64_t> out;
  for (int64_t m = std::max<int64_t>(minCount, 1);
       m < minCount + trials && m <= sequences; ++m)
    out.push_back(m);
  return out;
}

} // namespace plexus::adaptivesp
