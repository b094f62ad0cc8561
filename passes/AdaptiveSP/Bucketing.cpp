//===- Bucketing.cpp - Length buckets for FlexSP's MILP -------------------===//
//
// The padding-minimising bucket DP over distinct lengths. See Bucketing.h.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/Bucketing.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace plexus::adaptivesp {

namespace {

/// The DP of one micro-batch, grown one bucket count (layer) at a time.
class BucketDp {
public:
  /// `values` ascending and distinct, `counts` their multiplicities.
  BucketDp(std::vector<int64_t> values, std::vector<int64_t> counts)
      : values(std::move(values)) {
    size_t d = this->values.size();
    countPrefix.assign(d + 1, 0);
    tokenPrefix.assign(d + 1, 0);
    for (size_t i = 0; i < d; ++i) {
      countPrefix[i + 1] = countPrefix[i] + counts[i];
      tokenPrefix[i + 1] = tokenPrefix[i] + counts[i] * this->values[i];
    }
    // Layer 1: one bucket over the first k values.
    std::vector<int64_t> first(d + 1, kInf);
    for (size_t k = 1; k <= d; ++k)
      first[k] = padding(0, k);
    layers.push_back(std::move(first));
    parents.emplace_back(d + 1, 0);
  }

  size_t distinct() const { return values.size(); }
  size_t layerCount() const { return layers.size(); }

  /// Adds the layer for one more bucket.
  void grow() {
    const size_t q = layers.size() + 1, d = values.size();
    const std::vector<int64_t> &prev = layers.back();
    std::vector<int64_t> cur(d + 1, kInf);
    std::vector<size_t> parent(d + 1, 0);
    for (size_t k = q; k <= d; ++k)
      for (size_t j = q - 1; j < k; ++j) {
        int64_t v = prev[j] + padding(j, k);
        if (v < cur[k]) {
          cur[k] = v;
          parent[k] = j;
        }
      }
    layers.push_back(std::move(cur));
    parents.push_back(std::move(parent));
  }

  /// Padding of the best cut into `q` buckets (q <= layerCount()).
  int64_t paddingWith(size_t q) const { return layers[q - 1][values.size()]; }

  /// Upper bounds of the best cut into `q` buckets, ascending.
  std::vector<int64_t> upperBounds(size_t q) const {
    std::vector<int64_t> out;
    size_t k = values.size();
    for (size_t layer = q; layer >= 1; --layer) {
      out.push_back(values[k - 1]);
      k = parents[layer - 1][k];
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

private:
  static constexpr int64_t kInf = std::numeric_limits<int64_t>::max() / 4;

  /// Padding of one bucket over distinct values [a, b).
  int64_t padding(size_t a, size_t b) const {
    return values[b - 1] * (countPrefix[b] - countPrefix[a]) -
           (tokenPrefix[b] - tokenPrefix[a]);
  }

  std::vector<int64_t> values, countPrefix, tokenPrefix;
  std::vector<std::vector<int64_t>> layers;
  std::vector<std::vector<size_t>> parents;
};

Result<bool> checkIds(const std::vector<int64_t> &lengths,
                      const std::vector<int64_t> &ids) {
  for (int64_t id : ids) {
    if (id < 0 || id >= static_cast<int64_t>(lengths.size()))
      return Result<bool>::fail("sequence id " + std::to_string(id) +
                                " is out of range");
    if (lengths[id] <= 0)
      return Result<bool>::fail("sequence " + std::to_string(id) + " has " +
                                std::to_string(lengths[id]) +
                                " tokens; lengths must be positive");
  }
  return Result<bool>::ok(true);
}

/// Members of each bucket: bounds ascending; a sequence goes to the first
/// bucket whose bound holds it.
Bucketing fill(const std::vector<int64_t> &lengths,
               const std::vector<int64_t> &ids,
               const std::vector<int64_t> &bounds) {
  Bucketing out;
  for (int64_t b : bounds)
    out.buckets.push_back({b, {}});
  std::vector<int64_t> order = ids;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return lengths[a] > lengths[b] || (lengths[a] == lengths[b] && a < b);
  });
  for (int64_t id : order) {
    auto it =
        std::lower_bound(out.buckets.begin(), out.buckets.end(), lengths[id],
                         [](const SequenceBucket &bk, int64_t len) {
                           return bk.upperTokens < len;
                         });
    it->sequenceIds.push_back(id);
    out.tokens += lengths[id];
    out.paddedTokens += it->upperTokens;
  }
  // Drop buckets nobody landed in (fixed-width bucketing leaves gaps).
  out.buckets.erase(std::remove_if(out.buckets.begin(), out.buckets.end(),
                                   [](const SequenceBucket &bk) {
                                     return bk.sequenceIds.empty();
                                   }),
                    out.buckets.end());
  return out;
}

BucketDp makeDp(const std::vector<int64_t> &lengths,
                const std::vector<int64_t> &ids) {
  std::map<int64_t, int64_t> histogram;
  for (int64_t id : ids)
    ++histogram[lengths[id]];
  std::vector<int64_t> values, counts;
  for (const auto &[len, n] : histogram) {
    values.push_back(len);
    counts.push_back(n);
  }
  return BucketDp(std::move(values), std::move(counts));
}

} // namespace

double bucketTokenError(const Bucketing &b) {
  if (b.tokens == 0)
    return 0;
  return static_cast<double>(b.paddedTokens) / static_cast<double>(b.tokens) -
         1.0;
}

Result<Bucketing> bucketSequences(const std::vector<int64_t> &lengths,
                                  const std::vector<int64_t> &ids,
                                  int64_t buckets) {
  return bucketMicroBatch(lengths, ids, buckets, 0, /*grow=*/false);
}

Result<Bucketing> bucketMicroBatch(const std::vector<int64_t> &lengths,
                                   const std::vector<int64_t> &ids,
                                   int64_t initialBuckets,
                                   int64_t clusterTokens, bool grow) {
  using R = Result<Bucketing>;
  if (initialBuckets < 1)
    return R::fail("the bucket count must be at least 1, not " +
                   std::to_string(initialBuckets));
  Result<bool> ok = checkIds(lengths, ids);
  if (!ok)
    return R::fail(ok.error);
  if (ids.empty())
    return R::ok(Bucketing{});
  BucketDp dp = makeDp(lengths, ids);
  int64_t tokens = 0;
  for (int64_t id : ids)
    tokens += lengths[id];
  const size_t cap = dp.distinct();
  size_t q = std::min(static_cast<size_t>(initialBuckets), cap);
  while (dp.layerCount() < q)
    dp.grow();
  while (grow && q < cap &&
         2 * (tokens + dp.paddingWith(q)) > tokens + clusterTokens) {
    ++q;
    dp.grow();
  }
  return R::ok(fill(lengths, ids, dp.upperBounds(q)));
}

Result<Bucketing> bucketFixedWidth(const std::vector<int64_t> &lengths,
                                   const std::vector<int64_t> &ids,
                                   int64_t width) {
  using R = Result<Bucketing>;
  if (width < 1)
    return R::fail("the bucket width must be positive, not " +
                   std::to_string(width));
  Result<bool> ok = checkIds(lengths, ids);
  if (!ok)
    return R::fail(ok.error);
  // Each bin ((k-1)w, kw] is modelled at its longest member, the tightest
  // bound that still covers it.
  std::map<int64_t, int64_t> longest; // bin index -> longest member
  for (int64_t id : ids) {
    int64_t &v = longest[(lengths[id] + width - 1) / width];
    v = std::max(v, lengths[id]);
  }
  std::vector<int64_t> bounds;
  for (const auto &[bin, len] : longest)
    bounds.push_back(len);
  return R::ok(fill(lengths, ids, bounds));
}

} // namespace plexus::adaptivesp
