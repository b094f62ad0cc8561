//===- SpMilp.cpp - FlexSP's bucketed SP-group MILP -----------------------===//
//
// The CBC model of SpMilp.h and the greedy plans that warm-start it.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/SpMilp.h"
#include "passes/Solver/CbcSupport.h"

#include <coin/Cbc_C_Interface.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <string>

namespace plexus::adaptivesp {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// How many of the best greedy plans bestGreedyPlan polishes.
constexpr size_t kPolished = 4;

/// Whether one sequence of bucket q fits a group of degree index k.
bool fits(const SpMilpInstance &inst, size_t q, size_t k) {
  return inst.bucketTokens[q] <= inst.capacityPerGpu * inst.degrees[k];
}

size_t degreeIndex(const SpMilpInstance &inst, int64_t degree) {
  auto it = std::lower_bound(inst.degrees.begin(), inst.degrees.end(), degree);
  if (it == inst.degrees.end() || *it != degree)
    return inst.degrees.size();
  return static_cast<size_t>(it - inst.degrees.begin());
}

double groupTime(const SpMilpInstance &inst, size_t k,
                 const std::vector<int64_t> &counts) {
  double t = inst.groupMs;
  for (size_t q = 0; q < counts.size(); ++q)
    t += static_cast<double>(counts[q]) * inst.timeMs[q][k];
  return t;
}

/// Sum over groups of degree * time: the GPU-milliseconds a plan occupies.
double planGpuMs(const SpMilpInstance &inst,
                 const std::vector<BucketGroup> &groups) {
  double sum = 0;
  for (const BucketGroup &g : groups)
    sum += static_cast<double>(g.degree) *
           groupTime(inst, degreeIndex(inst, g.degree), g.counts);
  return sum;
}

/// Groups by descending degree, then descending time, then counts, so that
/// equal plans print equally.
void canonicalOrder(const SpMilpInstance &inst,
                    std::vector<BucketGroup> &groups) {
  std::vector<std::pair<double, BucketGroup>> keyed;
  for (BucketGroup &g : groups)
    keyed.emplace_back(groupTime(inst, degreeIndex(inst, g.degree), g.counts),
                       std::move(g));
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto &a, const auto &b) {
                     if (a.second.degree != b.second.degree)
                       return a.second.degree > b.second.degree;
                     if (a.first != b.first)
                       return a.first > b.first;
                     return a.second.counts > b.second.counts;
                   });
  groups.clear();
  for (auto &kg : keyed)
    groups.push_back(std::move(kg.second));
}

/// Every multiset of candidate degrees summing to N with at most
/// `maxGroups` groups, as counts per degree index; empty when there are
/// more than `limit` of them.
std::vector<std::vector<int64_t>>
degreeMultisets(const SpMilpInstance &inst, int64_t maxGroups, int64_t limit) {
  const size_t nd = inst.degrees.size();
  const int64_t n = inst.gpus;
  // ways[i][r]: multisets of degrees[0..i) summing to r (capped at limit+1).
  std::vector<std::vector<int64_t>> ways(nd + 1,
                                         std::vector<int64_t>(n + 1, 0));
  ways[0][0] = 1;
  for (size_t i = 0; i < nd; ++i)
    for (int64_t r = 0; r <= n; ++r) {
      int64_t w = ways[i][r];
      if (r >= inst.degrees[i])
        w += ways[i + 1][r - inst.degrees[i]];
      ways[i + 1][r] = std::min(w, limit + 1);
    }
  std::vector<std::vector<int64_t>> out;
  if (ways[nd][n] > limit)
    return out;
  std::vector<int64_t> counts(nd, 0);
  // Largest degree first, most groups of it first.
  auto rec = [&](auto &self, size_t i, int64_t rest, int64_t groups) -> void {
    if (rest == 0) {
      out.push_back(counts);
      return;
    }
    if (i == 0)
      return;
    const int64_t d = inst.degrees[i - 1];
    for (int64_t c = rest / d; c >= 0; --c) {
      if (groups + c > maxGroups)
        continue;
      if (ways[i - 1][rest - c * d] == 0)
        continue;
      counts[i - 1] = c;
      self(self, i - 1, rest - c * d, groups + c);
      counts[i - 1] = 0;
    }
  };
  rec(rec, nd, n, 0);
  return out;
}

/// A lower bound on any plan using exactly these group counts: the longest
/// bucket's best single-sequence time, and the balanced-work bound.
double multisetLowerBound(const SpMilpInstance &inst,
                          const std::vector<int64_t> &counts) {
  double work = 0, single = 0;
  for (size_t q = 0; q < inst.bucketTokens.size(); ++q) {
    double bestWork = kInfinity, bestTime = kInfinity;
    for (size_t k = 0; k < inst.degrees.size(); ++k)
      if (counts[k] > 0 && fits(inst, q, k)) {
        bestWork = std::min(bestWork, static_cast<double>(inst.degrees[k]) *
                                          inst.timeMs[q][k]);
        bestTime = std::min(bestTime, inst.timeMs[q][k]);
      }
    if (bestTime == kInfinity)
      return kInfinity;
    work += static_cast<double>(inst.bucketCounts[q]) * bestWork;
    single = std::max(single, bestTime);
  }
  return inst.groupMs + std::max(single, work / static_cast<double>(inst.gpus));
}

/// A virtual group's columns.
struct VirtualGroup {
  size_t k = 0;                             // degree index
  int mCol = 0;                             // m_p
  std::vector<std::pair<size_t, int>> aCol; // (q, column of A_qp)
};

} // namespace

Result<SpMilpInstance> makeSpMilpInstance(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const Bucketing &buckets, const std::vector<int64_t> &degrees, int64_t gpus,
    int64_t capacityPerGpu) {
  using R = Result<SpMilpInstance>;
  if (buckets.buckets.empty())
    return R::fail("a micro-batch needs at least one sequence");
  if (degrees.empty())
    return R::fail("no candidate SP degree");
  if (gpus <= 0 || capacityPerGpu <= 0)
    return R::fail("the GPU count and per-GPU token capacity must be "
                   "positive");
  SpMilpInstance inst;
  inst.degrees = degrees;
  std::sort(inst.degrees.begin(), inst.degrees.end());
  inst.degrees.erase(std::unique(inst.degrees.begin(), inst.degrees.end()),
                     inst.degrees.end());
  inst.groupMs = model.beta1;
  inst.gpus = gpus;
  inst.capacityPerGpu = capacityPerGpu;
  for (const SequenceBucket &b : buckets.buckets) {
    inst.bucketTokens.push_back(b.upperTokens);
    inst.bucketCounts.push_back(static_cast<int64_t>(b.sequenceIds.size()));
    std::vector<double> row;
    for (int64_t d : inst.degrees) {
      Result<cost::SequenceTime> t =
          cost::sequenceTime(model, bw, b.upperTokens, d);
      if (!t)
        return R::fail(t.error);
      row.push_back(t->totalMs());
    }
    inst.timeMs.push_back(std::move(row));
  }
  return R::ok(std::move(inst));
}

double bucketPlanTimeMs(const SpMilpInstance &inst,
                        const std::vector<BucketGroup> &groups) {
  double worst = 0;
  for (const BucketGroup &g : groups) {
    size_t k = degreeIndex(inst, g.degree);
    if (k == inst.degrees.size())
      return kInfinity;
    worst = std::max(worst, groupTime(inst, k, g.counts));
  }
  return worst;
}

std::string bucketPlanViolation(const SpMilpInstance &inst,
                                const std::vector<BucketGroup> &groups) {
  const size_t nq = inst.bucketTokens.size();
  int64_t devices = 0;
  std::vector<int64_t> covered(nq, 0);
  for (size_t p = 0; p < groups.size(); ++p) {
    const BucketGroup &g = groups[p];
    if (degreeIndex(inst, g.degree) == inst.degrees.size())
      return "group " + std::to_string(p) + " has degree " +
             std::to_string(g.degree) + ", not a candidate";
    if (g.counts.size() != nq)
      return "group " + std::to_string(p) + " has the wrong bucket count";
    int64_t tokens = 0, members = 0;
    for (size_t q = 0; q < nq; ++q) {
      if (g.counts[q] < 0)
        return "group " + std::to_string(p) + " has a negative count";
      tokens += g.counts[q] * inst.bucketTokens[q];
      members += g.counts[q];
      covered[q] += g.counts[q];
    }
    if (members == 0)
      return "group " + std::to_string(p) + " is empty";
    if (tokens > inst.capacityPerGpu * g.degree)
      return "group " + std::to_string(p) + " holds " + std::to_string(tokens) +
             " tokens, more than " +
             std::to_string(inst.capacityPerGpu * g.degree);
    devices += g.degree;
  }
  if (devices != inst.gpus)
    return "degrees sum to " + std::to_string(devices) + ", not " +
           std::to_string(inst.gpus);
  for (size_t q = 0; q < nq; ++q)
    if (covered[q] != inst.bucketCounts[q])
      return "bucket " + std::to_string(q) + " is covered " +
             std::to_string(covered[q]) + " times, not " +
             std::to_string(inst.bucketCounts[q]);
  return "";
}

std::optional<std::vector<BucketGroup>>
greedyBucketPlan(const SpMilpInstance &inst,
                 const std::vector<int64_t> &groupDegrees) {
  const size_t nq = inst.bucketTokens.size(), ng = groupDegrees.size();
  std::vector<size_t> k(ng);
  for (size_t p = 0; p < ng; ++p) {
    k[p] = degreeIndex(inst, groupDegrees[p]);
    if (k[p] == inst.degrees.size())
      return std::nullopt;
  }
  std::vector<BucketGroup> groups(ng);
  std::vector<double> time(ng, inst.groupMs);
  std::vector<int64_t> room(ng);
  for (size_t p = 0; p < ng; ++p) {
    groups[p].degree = groupDegrees[p];
    groups[p].counts.assign(nq, 0);
    room[p] = inst.capacityPerGpu * groupDegrees[p];
  }
  for (size_t q = nq; q-- > 0;) {
    const int64_t s = inst.bucketTokens[q];
    for (int64_t copy = 0; copy < inst.bucketCounts[q]; ++copy) {
      size_t best = ng;
      double bestFinish = kInfinity;
      for (size_t p = 0; p < ng; ++p) {
        if (room[p] < s)
          continue;
        double finish = time[p] + inst.timeMs[q][k[p]];
        if (finish < bestFinish) {
          bestFinish = finish;
          best = p;
        }
      }
      if (best == ng)
        return std::nullopt;
      time[best] = bestFinish;
      room[best] -= s;
      ++groups[best].counts[q];
    }
  }
  for (const BucketGroup &g : groups)
    if (std::all_of(g.counts.begin(), g.counts.end(),
                    [](int64_t c) { return c == 0; }))
      return std::nullopt;
  return groups;
}

void improveBucketPlan(const SpMilpInstance &inst,
                       std::vector<BucketGroup> &groups, int64_t maxSteps) {
  const size_t nq = inst.bucketTokens.size(), ng = groups.size();
  std::vector<size_t> k(ng);
  std::vector<double> time(ng);
  std::vector<int64_t> room(ng), members(ng);
  auto refresh = [&](size_t p) {
    time[p] = groupTime(inst, k[p], groups[p].counts);
    room[p] = inst.capacityPerGpu * groups[p].degree;
    members[p] = 0;
    for (size_t q = 0; q < nq; ++q) {
      room[p] -= groups[p].counts[q] * inst.bucketTokens[q];
      members[p] += groups[p].counts[q];
    }
  };
  for (size_t p = 0; p < ng; ++p) {
    k[p] = degreeIndex(inst, groups[p].degree);
    if (k[p] == inst.degrees.size())
      return;
    refresh(p);
  }
  for (int64_t step = 0; step < maxSteps && ng > 1; ++step) {
    size_t s = 0;
    for (size_t p = 1; p < ng; ++p)
      if (time[p] > time[s])
        s = p;
    const double top = time[s];
    // The best move or swap out of the slowest group: the one whose two
    // new times have the smallest maximum, if that is below `top`.
    double best = top;
    size_t bh = ng, bq = nq, br = nq; // br == nq: a move, not a swap
    for (size_t q = 0; q < nq; ++q) {
      if (groups[s].counts[q] == 0)
        continue;
      const int64_t sq = inst.bucketTokens[q];
      const double outS = top - inst.timeMs[q][k[s]];
      for (size_t h = 0; h < ng; ++h) {
        if (h == s || !fits(inst, q, k[h]))
          continue;
        const double inH = time[h] + inst.timeMs[q][k[h]];
        if (members[s] > 1 && room[h] >= sq && std::max(outS, inH) < best) {
          best = std::max(outS, inH);
          bh = h, bq = q, br = nq;
        }
        for (size_t r = 0; r < nq; ++r) {
          if (r == q || groups[h].counts[r] == 0 || !fits(inst, r, k[s]))
            continue;
          const int64_t sr = inst.bucketTokens[r];
          if (room[s] + sq < sr || room[h] + sr < sq)
            continue;
          double newS = outS + inst.timeMs[r][k[s]];
          double newH = inH - inst.timeMs[r][k[h]];
          if (std::max(newS, newH) < best) {
            best = std::max(newS, newH);
            bh = h, bq = q, br = r;
          }
        }
      }
    }
    if (bh == ng)
      return;
    --groups[s].counts[bq];
    ++groups[bh].counts[bq];
    if (br != nq) {
      ++groups[s].counts[br];
      --groups[bh].counts[br];
    }
    refresh(s);
    refresh(bh);
  }
}

std::optional<std::vector<BucketGroup>>
balancedHomogeneousPlan(const SpMilpInstance &inst, int64_t degree) {
  if (degree <= 0 || inst.gpus % degree != 0)
    return std::nullopt;
  return greedyBucketPlan(
      inst,
      std::vector<int64_t>(static_cast<size_t>(inst.gpus / degree), degree));
}

std::optional<std::vector<BucketGroup>>
bestGreedyPlan(const SpMilpInstance &inst, int64_t maxConfigurations) {
  int64_t sequences = std::accumulate(inst.bucketCounts.begin(),
                                      inst.bucketCounts.end(), int64_t{0});
  std::vector<std::vector<int64_t>> multisets =
      degreeMultisets(inst, sequences, maxConfigurations);
  if (multisets.empty())
    for (size_t k = 0; k < inst.degrees.size(); ++k)
      if (inst.gpus % inst.degrees[k] == 0 &&
          inst.gpus / inst.degrees[k] <= sequences) {
        std::vector<int64_t> counts(inst.degrees.size(), 0);
        counts[k] = inst.gpus / inst.degrees[k];
        multisets.push_back(std::move(counts));
      }

  // Most promising first; stop once no remaining bound beats the best.
  std::vector<std::pair<double, size_t>> order;
  for (size_t i = 0; i < multisets.size(); ++i)
    order.emplace_back(multisetLowerBound(inst, multisets[i]), i);
  std::stable_sort(
      order.begin(), order.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  // Plans compare by their slowest group, then by GPU time: among plans
  // equally fast, the one that keeps fewer GPUs busy for less time (short
  // sequences on small groups) wins.
  using Score = std::pair<double, double>;
  auto score = [&](const std::vector<BucketGroup> &plan) {
    return Score{bucketPlanTimeMs(inst, plan), planGpuMs(inst, plan)};
  };
  // Greedy on every multiset whose bound does not exceed the best greedy
  // plan so far (an equal bound may still tie on time and win on work).
  std::vector<std::pair<Score, std::vector<BucketGroup>>> found;
  double bestGreedy = kInfinity;
  for (const auto &[bound, i] : order) {
    if (bound == kInfinity || bound > bestGreedy)
      break;
    std::vector<int64_t> degrees;
    for (size_t k = inst.degrees.size(); k-- > 0;)
      degrees.insert(degrees.end(), static_cast<size_t>(multisets[i][k]),
                     inst.degrees[k]);
    std::optional<std::vector<BucketGroup>> plan =
        greedyBucketPlan(inst, degrees);
    if (!plan)
      continue;
    Score sc = score(*plan);
    bestGreedy = std::min(bestGreedy, sc.first);
    found.emplace_back(sc, std::move(*plan));
  }
  // Polish the most promising few with local search; keep the best.
  std::stable_sort(
      found.begin(), found.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });
  std::optional<std::vector<BucketGroup>> best;
  Score bestScore{kInfinity, kInfinity};
  for (size_t i = 0; i < found.size() && i < kPolished; ++i) {
    improveBucketPlan(inst, found[i].second);
    Score sc = score(found[i].second);
    if (sc < bestScore) {
      bestScore = sc;
      best = std::move(found[i].second);
    }
  }
  if (best)
    canonicalOrder(inst, *best);
  return best;
}

Result<SpMilpResult> solveSpMilp(const SpMilpInstance &inst,
                                 const SpMilpOptions &options,
                                 const std::vector<BucketGroup> *warmStart) {
  using R = Result<SpMilpResult>;
  const size_t nq = inst.bucketTokens.size(), nd = inst.degrees.size();
  if (nq == 0 || nd == 0 || inst.timeMs.size() != nq)
    return R::fail("malformed MILP instance");

  // d*: the smallest candidate degree that holds the longest bucket.
  size_t kStar = nd;
  for (size_t k = 0; k < nd && kStar == nd; ++k)
    if (fits(inst, nq - 1, k) && inst.degrees[k] <= inst.gpus)
      kStar = k;
  if (kStar == nd)
    return R::fail("a sequence of " + std::to_string(inst.bucketTokens.back()) +
                   " tokens fits no candidate SP group");
  const int64_t dStar = inst.degrees[kStar];

  std::optional<std::vector<BucketGroup>> start;
  if (warmStart && bucketPlanViolation(inst, *warmStart).empty()) {
    start = *warmStart;
    canonicalOrder(inst, *start);
  } else if (options.warmStart && !warmStart) {
    start = bestGreedyPlan(inst);
  }

  solver::CbcModelHandle h;
  Cbc_Model *model = h.model;
  // Our polished greedy start is the incumbent; the search only has to
  // improve on it, and each node should cost milliseconds, not seconds.
  solver::configureDeterministic(model, options.leanSearch);

  // The objective's column, with a valid lower bound over all multisets.
  std::vector<int64_t> all(nd, 1);
  int numCols = 0;
  Cbc_addCol(model, "C", std::max(0.0, multisetLowerBound(inst, all)),
             std::numeric_limits<double>::max(), 1.0, 0, 0, nullptr, nullptr);
  const int cCol = numCols++;

  std::vector<VirtualGroup> groups;
  for (size_t k = 0; k < nd; ++k) {
    const int64_t d = inst.degrees[k];
    if (d > inst.gpus)
      continue;
    int64_t eligible = 0;
    for (size_t q = 0; q < nq; ++q)
      if (fits(inst, q, k))
        eligible += inst.bucketCounts[q];
    int64_t pool = std::min(inst.gpus / d, eligible);
    if (d < dStar)
      pool = std::min(pool, (inst.gpus - dStar) / d);
    for (int64_t r = 0; r < pool; ++r) {
      VirtualGroup g;
      g.k = k;
      std::string tag = std::to_string(d) + "_" + std::to_string(r);
      Cbc_addCol(model, ("m" + tag).c_str(), 0, 1, 0, 1, 0, nullptr, nullptr);
      g.mCol = numCols++;
      for (size_t q = 0; q < nq; ++q) {
        if (!fits(inst, q, k))
          continue;
        int64_t ub = std::min(inst.bucketCounts[q],
                              inst.capacityPerGpu * d / inst.bucketTokens[q]);
        if (ub <= 0)
          continue;
        Cbc_addCol(model, ("a" + std::to_string(q) + "_" + tag).c_str(), 0,
                   static_cast<double>(ub), 0, 1, 0, nullptr, nullptr);
        g.aCol.emplace_back(q, numCols++);
      }
      groups.push_back(std::move(g));
    }
  }

  int numRows = 0;
  std::vector<int> cols;
  std::vector<double> coefs;
  auto addRow = [&](char sense, double rhs) {
    Cbc_addRow(model, "", static_cast<int>(cols.size()), cols.data(),
               coefs.data(), sense, rhs);
    ++numRows;
    cols.clear();
    coefs.clear();
  };
  auto term = [&](int col, double coef) {
    cols.push_back(col);
    coefs.push_back(coef);
  };

  // (22) every bucket's sequences are placed.
  for (size_t q = 0; q < nq; ++q) {
    for (const VirtualGroup &g : groups)
      for (const auto &[qq, col] : g.aCol)
        if (qq == q)
          term(col, 1);
    if (cols.empty())
      return R::fail("a sequence of " + std::to_string(inst.bucketTokens[q]) +
                     " tokens fits no candidate SP group");
    addRow('E', static_cast<double>(inst.bucketCounts[q]));
  }
  // (20) the groups use every GPU.
  for (const VirtualGroup &g : groups)
    term(g.mCol, static_cast<double>(inst.degrees[g.k]));
  addRow('E', static_cast<double>(inst.gpus));
  // The work cut.
  for (const VirtualGroup &g : groups)
    for (const auto &[q, col] : g.aCol)
      term(col, static_cast<double>(inst.degrees[g.k]) * inst.timeMs[q][g.k]);
  term(cCol, -static_cast<double>(inst.gpus));
  addRow('L', -static_cast<double>(inst.gpus) * inst.groupMs);
  for (size_t p = 0; p < groups.size(); ++p) {
    const VirtualGroup &g = groups[p];
    const int64_t d = inst.degrees[g.k];
    // (18) time.
    for (const auto &[q, col] : g.aCol)
      term(col, inst.timeMs[q][g.k]);
    term(cCol, -1);
    addRow('L', -inst.groupMs);
    // (19) memory, which also empties unselected groups.
    for (const auto &[q, col] : g.aCol)
      term(col, static_cast<double>(inst.bucketTokens[q]));
    term(g.mCol, -static_cast<double>(inst.capacityPerGpu * d));
    addRow('L', 0);
    // A selected group runs something.
    for (const auto &[q, col] : g.aCol)
      term(col, 1);
    term(g.mCol, -1);
    addRow('G', 0);
    // (21) per bucket.
    for (const auto &[q, col] : g.aCol) {
      int64_t ub = std::min(inst.bucketCounts[q],
                            inst.capacityPerGpu * d / inst.bucketTokens[q]);
      term(col, 1);
      term(g.mCol, -static_cast<double>(ub));
      addRow('L', 0);
    }
    // Symmetry: same-degree groups in order of selection and time.
    if (p + 1 < groups.size() && groups[p + 1].k == g.k) {
      const VirtualGroup &next = groups[p + 1];
      term(g.mCol, 1);
      term(next.mCol, -1);
      addRow('G', 0);
      for (const auto &[q, col] : g.aCol)
        term(col, inst.timeMs[q][g.k]);
      for (const auto &[q, col] : next.aCol)
        term(col, -inst.timeMs[q][g.k]);
      addRow('G', 0);
    }
  }

  double startTime = kInfinity;
  if (start) {
    startTime = bucketPlanTimeMs(inst, *start);
    // Same-degree groups of the start take the pool's groups in order; the
    // start lists them by descending time, as the symmetry rows require.
    std::vector<int> idx;
    std::vector<double> val;
    std::vector<size_t> used(nd, 0);
    for (const BucketGroup &bg : *start) {
      size_t k = degreeIndex(inst, bg.degree);
      size_t seen = 0, p = groups.size();
      for (size_t i = 0; i < groups.size() && p == groups.size(); ++i)
        if (groups[i].k == k && seen++ == used[k])
          p = i;
      if (p == groups.size())
        break;
      ++used[k];
      idx.push_back(groups[p].mCol);
      val.push_back(1);
      for (const auto &[q, col] : groups[p].aCol)
        if (bg.counts[q] > 0) {
          idx.push_back(col);
          val.push_back(static_cast<double>(bg.counts[q]));
        }
    }
    Cbc_setMIPStartI(model, static_cast<int>(idx.size()), idx.data(),
                     val.data());
  }

  if (options.timeLimitSeconds > 0)
    Cbc_setMaximumSeconds(model, options.timeLimitSeconds);
  if (options.nodeLimit > 0)
    Cbc_setMaximumNodes(model, static_cast<int>(options.nodeLimit));
  if (options.relativeGap > 0)
    Cbc_setAllowableFractionGap(model, options.relativeGap);

  SpMilpResult out;
  out.columns = numCols;
  out.rows = numRows;
  std::vector<double> x;
  {
    std::lock_guard<std::mutex> lock(solver::cbcSolveMutex());
    Cbc_solve(model);
    const double *best = Cbc_bestSolution(model);
    if (best)
      x.assign(best, best + numCols);
    out.nodes = Cbc_getNodeCount(model);
    out.lowerBoundMs = Cbc_getBestPossibleObjValue(model);
    out.provenOptimal = Cbc_isProvenOptimal(model) != 0;
    out.timeLimitReached = Cbc_isSecondsLimitReached(model) != 0;
  }

  std::vector<BucketGroup> solved;
  bool solvedOk = false;
  if (!x.empty()) {
    for (const VirtualGroup &g : groups) {
      if (std::llround(x[g.mCol]) != 1)
        continue;
      BucketGroup bg;
      bg.degree = inst.degrees[g.k];
      bg.counts.assign(nq, 0);
      for (const auto &[q, col] : g.aCol)
        bg.counts[q] = std::llround(x[col]);
      solved.push_back(std::move(bg));
    }
    solvedOk = bucketPlanViolation(inst, solved).empty();
  }
  // CBC's plan replaces the start only when strictly faster: CBC hands
  // back the start itself when it finds nothing better.
  if (solvedOk && bucketPlanTimeMs(inst, solved) < startTime) {
    out.groups = std::move(solved);
  } else if (start) {
    out.groups = *start;
    out.fromWarmStart = true;
  } else {
    return R::fail(out.timeLimitReached
                       ? "no SP-group plan found within the time limit"
                       : "no SP-group plan of the candidate degrees holds "
                         "this micro-batch");
  }
  canonicalOrder(inst, out.groups);
  out.objectiveMs = bucketPlanTimeMs(inst, out.groups);
  out.lowerBoundMs = std::min(out.lowerBoundMs, out.objectiveMs);
  return R::ok(std::move(out));
}

} // namespace plexus::adaptivesp
