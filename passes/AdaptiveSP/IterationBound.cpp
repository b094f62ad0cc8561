//===- IterationBound.cpp - A lower bound on FlexSP's iteration time ------===//
//
// The breakpoint search of IterationBound.h.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/IterationBound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace plexus::adaptivesp {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// One sequence's times t1(s, d) at the degrees that hold it, ascending d.
struct SequenceOptions {
  std::vector<double> timeMs, gpuMs; // t1 and d * t1
};

/// sum_s w_tau(s); +infinity when some sequence has no degree within tau.
double workWithin(const std::vector<SequenceOptions> &seqs, double tau) {
  double sum = 0;
  for (const SequenceOptions &s : seqs) {
    double best = kInfinity;
    for (size_t k = 0; k < s.timeMs.size(); ++k)
      if (s.timeMs[k] <= tau)
        best = std::min(best, s.gpuMs[k]);
    if (best == kInfinity)
      return kInfinity;
    sum += best;
  }
  return sum;
}

/// Most work sum_s w(s) x_s, 0 <= x_s <= 1, within `budget` tokens over
/// the sequences other than `skip` (fractional knapsack: densest first).
double mostWorkWithin(const std::vector<int64_t> &lengths,
                      const std::vector<double> &leastGpuMs,
                      const std::vector<size_t> &byDensity, size_t skip,
                      double budget) {
  double work = 0;
  for (size_t i : byDensity) {
    if (i == skip)
      continue;
    if (budget <= 0)
      break;
    const double len = static_cast<double>(lengths[i]);
    const double take = std::min(1.0, budget / len);
    work += take * leastGpuMs[i];
    budget -= take * len;
  }
  return work;
}

/// M_lb of IterationBound.h (1).
int64_t minMicroBatchesFor(const std::vector<int64_t> &lengths,
                           int64_t cluster) {
  int64_t tokens = 0, big = 0, bigRoom = 0, small = 0;
  for (int64_t len : lengths) {
    tokens += len;
    if (2 * len > cluster) {
      ++big;
      bigRoom += cluster - len;
    } else {
      small += len;
    }
  }
  const int64_t byTokens = (tokens + cluster - 1) / cluster;
  const int64_t spill = std::max<int64_t>(0, small - bigRoom);
  return std::max(byTokens, big + (spill + cluster - 1) / cluster);
}

/// The memory-aware bound (4) of IterationBound.h, the largest over the
/// `kHeld` longest sequences.
double holdingBound(const std::vector<int64_t> &lengths,
                    const std::vector<SequenceOptions> &seqs,
                    const std::vector<double> &leastGpuMs, int64_t gpus,
                    int64_t capacityPerGpu, int64_t minMicroBatches) {
  constexpr size_t kHeld = 8;
  const double n = static_cast<double>(gpus);
  const double cluster = n * static_cast<double>(capacityPerGpu);
  double all = 0;
  for (double w : leastGpuMs)
    all += w;
  std::vector<size_t> byLength(lengths.size()), byDensity;
  for (size_t i = 0; i < lengths.size(); ++i)
    byLength[i] = i;
  std::stable_sort(byLength.begin(), byLength.end(),
                   [&](size_t a, size_t b) { return lengths[a] > lengths[b]; });
  byDensity = byLength;
  std::stable_sort(byDensity.begin(), byDensity.end(), [&](size_t a, size_t b) {
    return leastGpuMs[a] / static_cast<double>(lengths[a]) >
           leastGpuMs[b] / static_cast<double>(lengths[b]);
  });
  double best = 0;
  for (size_t k = 0; k < std::min(kHeld, byLength.size()); ++k) {
    const size_t s = byLength[k];
    const double rest = all - leastGpuMs[s];
    const double room = cluster - static_cast<double>(lengths[s]);
    // With one micro-batch everything is in s's micro-batch: nothing is
    // left over for others, the third term does not apply.
    const double absorb =
        minMicroBatches > 1
            ? mostWorkWithin(lengths, leastGpuMs, byDensity, s, room)
            : rest;
    double least = kInfinity;
    for (size_t j = 0; j < seqs[s].timeMs.size(); ++j) {
      const double t = seqs[s].timeMs[j];
      const double g = std::max({t, (rest + seqs[s].gpuMs[j]) / n,
                                 t + std::max(0.0, rest - absorb) / n});
      least = std::min(least, g);
    }
    best = std::max(best, least);
  }
  return best;
}

} // namespace

Result<IterationBound> iterationLowerBound(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, const std::vector<int64_t> &degrees,
    int64_t gpus, int64_t capacityPerGpu) {
  using R = Result<IterationBound>;
  if (gpus <= 0 || capacityPerGpu <= 0)
    return R::fail("the GPU count and the per-GPU capacity must be positive");
  if (degrees.empty())
    return R::fail("no candidate SP degree");
  for (int64_t d : degrees)
    if (d <= 0 || d > gpus)
      return R::fail("SP degree " + std::to_string(d) + " is not in 1.." +
                     std::to_string(gpus));
  IterationBound out;
  if (lengths.empty())
    return R::ok(out);
  std::vector<SequenceOptions> seqs(lengths.size());
  std::vector<double> breakpoints;
  int64_t tokens = 0;
  double balanced = 0;
  std::vector<double> leastGpuMs;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= 0)
      return R::fail("sequence " + std::to_string(i) +
                     " has a non-positive length");
    tokens += lengths[i];
    double fastest = kInfinity, leastGpu = kInfinity;
    for (int64_t d : degrees) {
      if (lengths[i] > capacityPerGpu * d)
        continue;
      Result<cost::SequenceTime> t =
          cost::sequenceTime(model, bw, lengths[i], d);
      if (!t)
        return R::fail(t.error);
      seqs[i].timeMs.push_back(t->totalMs());
      seqs[i].gpuMs.push_back(static_cast<double>(d) * t->totalMs());
      breakpoints.push_back(t->totalMs());
      fastest = std::min(fastest, t->totalMs());
      leastGpu = std::min(leastGpu, static_cast<double>(d) * t->totalMs());
    }
    if (seqs[i].timeMs.empty())
      return R::fail("sequence " + std::to_string(i) + " (" +
                     std::to_string(lengths[i]) +
                     " tokens) fits no candidate SP group");
    out.longestSequenceMs = std::max(out.longestSequenceMs, fastest);
    balanced += leastGpu;
    leastGpuMs.push_back(leastGpu);
  }
  const double n = static_cast<double>(gpus);
  out.balancedWorkMs = balanced / n;
  out.minMicroBatches = minMicroBatchesFor(lengths, gpus * capacityPerGpu);
  // Between two breakpoints w_tau is constant: on [b_i, b_{i+1}) f(tau) =
  // N tau - W(b_i) is increasing, so tau* is max(b_i, W(b_i) / N) for the
  // first interval i (from the longest sequence's fastest time up) with
  // W(b_i) / N < b_{i+1}. That test is monotone in i (W(b_i) does not grow,
  // b_{i+1} does), so a binary search finds the interval.
  std::sort(breakpoints.begin(), breakpoints.end());
  breakpoints.erase(std::unique(breakpoints.begin(), breakpoints.end()),
                    breakpoints.end());
  auto inInterval = [&](size_t i) {
    return i + 1 == breakpoints.size() ||
           workWithin(seqs, breakpoints[i]) / n < breakpoints[i + 1];
  };
  size_t lo = static_cast<size_t>(std::lower_bound(breakpoints.begin(),
                                                   breakpoints.end(),
                                                   out.longestSequenceMs) -
                                  breakpoints.begin());
  size_t hi = breakpoints.size() - 1; // inInterval(hi) holds
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (inInterval(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  const double b = breakpoints[lo];
  out.workMs = std::max(b, workWithin(seqs, b) / n);
  out.holdingMs = holdingBound(lengths, seqs, leastGpuMs, gpus, capacityPerGpu,
                               out.minMicroBatches);
  out.boundMs = static_cast<double>(out.minMicroBatches) * model.beta1 +
                std::max(out.workMs, out.holdingMs);
  return R::ok(out);
}

} // namespace plexus::adaptivesp
