//===- PlanPolish.cpp - Real-length local search on FlexSP plans ----------===//
//
// Moves, swaps, splits and merges on the slowest groups; dealing by work.
// See PlanPolish.h.
//
//===----------------------------------------------------------------------===//
#include "passes/AdaptiveSP/PlanPolish.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace plexus::adaptivesp {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr size_t kNone = std::numeric_limits<size_t>::max();

double dbl(int64_t v) { return static_cast<double>(v); }

/// The three most loaded groups of a micro-batch (ties: lower index first).
struct Top3 {
  std::array<size_t, 3> index{kNone, kNone, kNone};
};

Top3 top3(const SearchMicroBatch &mb) {
  Top3 t;
  for (size_t g = 0; g < mb.size(); ++g) {
    for (size_t k = 0; k < 3; ++k) {
      if (t.index[k] == kNone || mb[g].workMs > mb[t.index[k]].workMs) {
        for (size_t j = 2; j > k; --j)
          t.index[j] = t.index[j - 1];
        t.index[k] = g;
        break;
      }
    }
  }
  return t;
}

/// Largest work of a micro-batch's groups other than `a` and `b`.
double maxExcept(const SearchMicroBatch &mb, const Top3 &t, size_t a,
                 size_t b) {
  for (size_t g : t.index)
    if (g != kNone && g != a && g != b)
      return mb[g].workMs;
  return 0;
}

bool fitsGroup(const SequenceTimeTable &t, const SearchGroup &g,
               int64_t extraTokens) {
  return g.tokens + extraTokens <= t.capacityPerGpu * g.degree;
}

void sortByLength(const SequenceTimeTable &t, std::vector<int64_t> &ids) {
  std::sort(ids.begin(), ids.end(), [&](int64_t a, int64_t b) {
    return t.lengths[a] > t.lengths[b] ||
           (t.lengths[a] == t.lengths[b] && a < b);
  });
}

/// Deals `ids` (longest first) into two groups of `degree`, each to the
/// one that finishes earlier with room; false when one does not fit.
bool splitInto(const SequenceTimeTable &t, std::vector<int64_t> ids,
               int64_t degree, SearchGroup &x, SearchGroup &y) {
  sortByLength(t, ids);
  x = SearchGroup{degree, {}, 0, 0};
  y = x;
  for (int64_t id : ids) {
    const int64_t len = t.lengths[id];
    const double ms = t.at(id, degree);
    bool fx = fitsGroup(t, x, len), fy = fitsGroup(t, y, len);
    if (!fx && !fy)
      return false;
    SearchGroup &to = fx && (!fy || x.workMs <= y.workMs) ? x : y;
    to.ids.push_back(id);
    to.tokens += len;
    to.workMs += ms;
  }
  return !x.ids.empty() && !y.ids.empty();
}

/// One candidate change and its effect on the iteration time.
struct Change {
  enum Kind { None, Move, Swap, Split, Merge } kind = None;
  double delta = 0;    // iteration ms
  double gpuDelta = 0; // GPU ms (sum of degree * work): the tie-break
  size_t mbA = 0, gA = 0, mbB = 0, gB = 0;
  size_t posA = 0, posB = 0; // positions in the groups' id lists
};

class Polisher {
public:
  Polisher(const SequenceTimeTable &t, SearchPlan &plan) : t(t), plan(plan) {
    for (const SearchMicroBatch &mb : plan)
      tops.push_back(top3(mb));
  }

  double mbMs(size_t m) const { return searchMicroBatchMs(t, plan[m]); }

  /// New time of micro-batch m when groups a and b (b may be kNone) take
  /// works wa and wb.
  double newMs(size_t m, size_t a, double wa, size_t b, double wb) const {
    double rest = maxExcept(plan[m], tops[m], a, b);
    double w = std::max(rest, wa);
    if (b != kNone)
      w = std::max(w, wb);
    return std::max(t.groupMs + w, t.microBatchFloorMs);
  }

  /// Lexicographic: iteration time first; a change that leaves it equal
  /// (within the threshold) counts when it frees GPU time, which lets the
  /// search cross plateaus where several groups share the slowest time.
  static bool better(const Change &c, const Change &than, double eps) {
    auto key = [&](const Change &x) { return x.delta < -eps ? x.delta : 0.0; };
    if (key(c) != key(than))
      return key(c) < key(than);
    return c.gpuDelta < than.gpuDelta;
  }

  void consider(Change &best, Change c) const {
    if (!(c.delta < -threshold ||
          (freeGpuTies && c.delta <= 0 && c.gpuDelta < -threshold)))
      return; // neither faster nor, at no loss of time, cheaper
    if (best.kind == Change::None || better(c, best, threshold))
      best = c;
  }

  Change bestFor(size_t m) const {
    Change best;
    const size_t ga = tops[m].index[0];
    if (ga == kNone)
      return best;
    const SearchGroup &a = plan[m][ga];
    const double oldA = mbMs(m);
    for (size_t i = 0; i < a.ids.size(); ++i) {
      const int64_t s = a.ids[i];
      const int64_t len = t.lengths[s];
      const double sa = t.at(s, a.degree);
      for (size_t mb = 0; mb < plan.size(); ++mb) {
        const double oldB = mb == m ? 0 : mbMs(mb);
        for (size_t gb = 0; gb < plan[mb].size(); ++gb) {
          if (mb == m && gb == ga)
            continue;
          const SearchGroup &b = plan[mb][gb];
          const double sb = t.at(s, b.degree);
          if (sb == kInfinity)
            continue;
          // Move s from a to b.
          if (a.ids.size() >= 2 && fitsGroup(t, b, len)) {
            Change c{Change::Move, 0, 0, m, ga, mb, gb, i, 0};
            c.gpuDelta = dbl(b.degree) * sb - dbl(a.degree) * sa;
            if (mb == m)
              c.delta = newMs(m, ga, a.workMs - sa, gb, b.workMs + sb) - oldA;
            else
              c.delta = newMs(m, ga, a.workMs - sa, kNone, 0) - oldA +
                        newMs(mb, gb, b.workMs + sb, kNone, 0) - oldB;
            consider(best, c);
          }
          // Swap s with each u of b.
          for (size_t j = 0; j < b.ids.size(); ++j) {
            const int64_t u = b.ids[j];
            const int64_t ulen = t.lengths[u];
            if (ulen >= len)
              continue; // only a shorter u can lighten a
            const double ua = t.at(u, a.degree), ub = t.at(u, b.degree);
            if (!fitsGroup(t, b, len - ulen))
              continue;
            const double wa = a.workMs - sa + ua, wb = b.workMs - ub + sb;
            Change c{Change::Swap, 0, 0, m, ga, mb, gb, i, j};
            c.gpuDelta = dbl(a.degree) * (ua - sa) + dbl(b.degree) * (sb - ub);
            if (mb == m)
              c.delta = newMs(m, ga, wa, gb, wb) - oldA;
            else
              c.delta = newMs(m, ga, wa, kNone, 0) - oldA +
                        newMs(mb, gb, wb, kNone, 0) - oldB;
            consider(best, c);
          }
        }
      }
    }
    // Split a into two groups of half its degree.
    if (a.ids.size() >= 2 && t.indexOf(a.degree / 2) < t.degrees.size() &&
        a.degree % 2 == 0) {
      SearchGroup x, y;
      if (splitInto(t, a.ids, a.degree / 2, x, y)) {
        Change c{Change::Split, 0, 0, m, ga, m, kNone, 0, 0};
        c.gpuDelta = dbl(a.degree / 2) * (x.workMs + y.workMs) -
                     dbl(a.degree) * a.workMs;
        c.delta = newMs(m, ga, std::max(x.workMs, y.workMs), kNone, 0) - oldA;
        consider(best, c);
      }
    }
    // Merge a with the least loaded other group of its degree.
    if (t.indexOf(a.degree * 2) < t.degrees.size()) {
      size_t partner = kNone;
      for (size_t g = 0; g < plan[m].size(); ++g)
        if (g != ga && plan[m][g].degree == a.degree &&
            (partner == kNone || plan[m][g].workMs < plan[m][partner].workMs))
          partner = g;
      if (partner != kNone) {
        double w = 0;
        for (int64_t s : a.ids)
          w += t.at(s, a.degree * 2);
        for (int64_t s : plan[m][partner].ids)
          w += t.at(s, a.degree * 2);
        Change c{Change::Merge, 0, 0, m, ga, m, partner, 0, 0};
        c.gpuDelta = dbl(2 * a.degree) * w -
                     dbl(a.degree) * (a.workMs + plan[m][partner].workMs);
        c.delta = newMs(m, ga, w, partner, 0) - oldA;
        consider(best, c);
      }
    }
    return best;
  }

  void apply(const Change &c) {
    SearchGroup &a = plan[c.mbA][c.gA];
    switch (c.kind) {
    case Change::Move: {
      int64_t s = a.ids[c.posA];
      a.ids.erase(a.ids.begin() + static_cast<long>(c.posA));
      plan[c.mbB][c.gB].ids.push_back(s);
      break;
    }
    case Change::Swap:
      std::swap(a.ids[c.posA], plan[c.mbB][c.gB].ids[c.posB]);
      break;
    case Change::Split: {
      SearchGroup x, y;
      splitInto(t, a.ids, a.degree / 2, x, y);
      a = std::move(x);
      plan[c.mbA].push_back(std::move(y));
      break;
    }
    case Change::Merge: {
      SearchGroup &b = plan[c.mbA][c.gB];
      a.ids.insert(a.ids.end(), b.ids.begin(), b.ids.end());
      a.degree *= 2;
      plan[c.mbA].erase(plan[c.mbA].begin() + static_cast<long>(c.gB));
      break;
    }
    case Change::None:
      return;
    }
    refresh(c.mbA);
    if (c.mbB != c.mbA)
      refresh(c.mbB);
  }

  void refresh(size_t m) {
    for (SearchGroup &g : plan[m]) {
      g.tokens = 0;
      g.workMs = 0;
      for (int64_t s : g.ids) {
        g.tokens += t.lengths[s];
        g.workMs += t.at(s, g.degree);
      }
    }
    tops[m] = top3(plan[m]);
  }

  double threshold = 0;
  bool freeGpuTies = true;

private:
  const SequenceTimeTable &t;
  SearchPlan &plan;
  std::vector<Top3> tops;
};

} // namespace

size_t SequenceTimeTable::indexOf(int64_t degree) const {
  auto it = std::lower_bound(degrees.begin(), degrees.end(), degree);
  if (it == degrees.end() || *it != degree)
    return degrees.size();
  return static_cast<size_t>(it - degrees.begin());
}

Result<SequenceTimeTable> makeSequenceTimeTable(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, const std::vector<int64_t> &degrees,
    int64_t gpus, int64_t capacityPerGpu) {
  using R = Result<SequenceTimeTable>;
  if (capacityPerGpu <= 0 || degrees.empty())
    return R::fail("the time table needs a positive capacity and degrees");
  SequenceTimeTable t;
  t.degrees = degrees;
  std::sort(t.degrees.begin(), t.degrees.end());
  t.lengths = lengths;
  t.groupMs = model.beta1;
  t.microBatchFloorMs = model.microBatchFloorMs;
  t.capacityPerGpu = capacityPerGpu;
  t.gpus = gpus;
  t.ms.assign(lengths.size(), std::vector<double>(t.degrees.size(), kInfinity));
  for (size_t i = 0; i < lengths.size(); ++i)
    for (size_t k = 0; k < t.degrees.size(); ++k) {
      if (lengths[i] > capacityPerGpu * t.degrees[k])
        continue; // does not fit: stays +infinity
      Result<cost::SequenceTime> st =
          cost::sequenceTime(model, bw, lengths[i], t.degrees[k]);
      if (!st)
        return R::fail(st.error);
      t.ms[i][k] = st->totalMs();
    }
  return R::ok(std::move(t));
}

double searchMicroBatchMs(const SequenceTimeTable &t,
                          const SearchMicroBatch &mb) {
  double w = 0;
  bool busy = false;
  for (const SearchGroup &g : mb) {
    busy = busy || !g.ids.empty();
    w = std::max(w, g.workMs);
  }
  return busy ? std::max(t.groupMs + w, t.microBatchFloorMs) : 0;
}

double searchPlanMs(const SequenceTimeTable &t, const SearchPlan &plan) {
  double sum = 0;
  for (const SearchMicroBatch &mb : plan)
    sum += searchMicroBatchMs(t, mb);
  return sum;
}

void refreshSearchPlan(const SequenceTimeTable &t, SearchPlan &plan) {
  for (SearchMicroBatch &mb : plan)
    for (SearchGroup &g : mb) {
      g.tokens = 0;
      g.workMs = 0;
      for (int64_t s : g.ids) {
        g.tokens += t.lengths[s];
        g.workMs += t.at(s, g.degree);
      }
    }
}

/// Moves every sequence of micro-batch `m` (longest first) into the group
/// of another micro-batch where it adds least to the iteration time
/// (memory permitting; ties to the first group met), and drops `m`; kept
/// when the plan gets faster. Saves a beta1 and whatever of m's time the
/// others absorb.
bool dissolveMicroBatch(const SequenceTimeTable &t, SearchPlan &plan,
                        size_t m) {
  if (plan.size() < 2)
    return false;
  SearchPlan trial = plan;
  std::vector<int64_t> ids;
  for (const SearchGroup &g : trial[m])
    ids.insert(ids.end(), g.ids.begin(), g.ids.end());
  trial.erase(trial.begin() + static_cast<long>(m));
  sortByLength(t, ids);
  std::vector<double> most(trial.size(), 0);
  for (size_t k = 0; k < trial.size(); ++k)
    for (const SearchGroup &g : trial[k])
      most[k] = std::max(most[k], g.workMs);
  for (int64_t id : ids) {
    size_t bk = kNone, bg = kNone;
    double least = kInfinity;
    for (size_t k = 0; k < trial.size(); ++k)
      for (size_t g = 0; g < trial[k].size(); ++g) {
        const SearchGroup &grp = trial[k][g];
        const double ms = t.at(id, grp.degree);
        if (ms == kInfinity || !fitsGroup(t, grp, t.lengths[id]))
          continue;
        const double rise = std::max(0.0, grp.workMs + ms - most[k]);
        if (rise < least) {
          least = rise;
          bk = k;
          bg = g;
        }
      }
    if (bk == kNone)
      return false;
    SearchGroup &grp = trial[bk][bg];
    grp.ids.push_back(id);
    grp.tokens += t.lengths[id];
    grp.workMs += t.at(id, grp.degree);
    most[bk] = std::max(most[bk], grp.workMs);
  }
  if (searchPlanMs(t, trial) >= searchPlanMs(t, plan))
    return false;
  plan = std::move(trial);
  return true;
}

/// The local search alone (no micro-batch is dropped).
int64_t polishGroups(const SequenceTimeTable &t, SearchPlan &plan,
                     int64_t maxSteps, bool freeGpuTies);

int64_t polishPlan(const SequenceTimeTable &t, SearchPlan &plan,
                   int64_t maxSteps, bool freeGpuTies) {
  int64_t steps = polishGroups(t, plan, maxSteps, freeGpuTies);
  // Try to drop micro-batches, the shortest first; after each success the
  // groups are polished again.
  for (bool dropped = true; dropped && steps < maxSteps;) {
    dropped = false;
    std::vector<size_t> order(plan.size());
    for (size_t m = 0; m < order.size(); ++m)
      order[m] = m;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return searchMicroBatchMs(t, plan[a]) < searchMicroBatchMs(t, plan[b]);
    });
    for (size_t m : order)
      if (dissolveMicroBatch(t, plan, m)) {
        ++steps;
        steps += polishGroups(t, plan, maxSteps - steps, freeGpuTies);
        dropped = true;
        break;
      }
  }
  return steps;
}

int64_t polishGroups(const SequenceTimeTable &t, SearchPlan &plan,
                     int64_t maxSteps, bool freeGpuTies) {
  refreshSearchPlan(t, plan);
  const SearchPlan original = plan;
  const double originalMs = searchPlanMs(t, plan);
  Polisher p(t, plan);
  p.freeGpuTies = freeGpuTies;
  int64_t steps = 0;
  bool improved = true;
  while (improved && steps < maxSteps) {
    improved = false;
    for (size_t m = 0; m < plan.size() && steps < maxSteps; ++m) {
      p.threshold = 1e-12 * searchPlanMs(t, plan);
      Change c = p.bestFor(m);
      if (c.kind == Change::None)
        continue;
      p.apply(c);
      ++steps;
      improved = true;
    }
  }
  if (searchPlanMs(t, plan) > originalMs) { // rounding: never slower
    plan = original;
    return 0;
  }
  return steps;
}

Result<std::vector<std::vector<int64_t>>>
dealByWork(const SequenceTimeTable &t, int64_t microBatches,
           int64_t clusterTokens, bool longestSetsTarget, double tauMs) {
  using R = Result<std::vector<std::vector<int64_t>>>;
  const size_t n = t.lengths.size();
  if (microBatches < 1 || static_cast<size_t>(microBatches) > n)
    return R::fail("cannot deal " + std::to_string(n) + " sequences into " +
                   std::to_string(microBatches) + " micro-batches");
  std::vector<std::pair<double, int64_t>> order;
  for (size_t i = 0; i < n; ++i) {
    double least = kInfinity;
    for (size_t k = 0; k < t.degrees.size(); ++k)
      least = std::min(least, static_cast<double>(t.degrees[k]) * t.ms[i][k]);
    order.push_back({least, static_cast<int64_t>(i)});
  }
  std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(microBatches));
  const double parts = static_cast<double>(microBatches);
  double total = 0;
  for (const auto &wi : order)
    total += wi.first;
  // Work targets: equal shares, or (longestSetsTarget) micro-batch 0 sized
  // so that its GPUs are busy as long as the longest sequence runs at its
  // least-GPU-time degree, the others sharing the rest equally.
  std::vector<double> target(out.size(), total / parts);
  if (longestSetsTarget && microBatches > 1) {
    int64_t longest = order.front().second;
    for (const auto &wi : order)
      if (t.lengths[wi.second] > t.lengths[longest])
        longest = wi.second;
    double best = kInfinity, at = 0;
    for (size_t k = 0; k < t.degrees.size(); ++k)
      if ((tauMs <= 0 || t.ms[longest][k] <= tauMs) &&
          dbl(t.degrees[k]) * t.ms[longest][k] < best) {
        best = dbl(t.degrees[k]) * t.ms[longest][k];
        at = t.ms[longest][k];
      }
    const double n = dbl(t.gpus);
    target[0] = std::min(total, std::max(target[0], n * at));
    for (size_t m = 1; m < out.size(); ++m)
      target[m] = (total - target[0]) / (parts - 1);
  }
  std::vector<double> work(out.size(), 0);
  std::vector<int64_t> tokens(out.size(), 0);
  for (auto [w, id] : order) {
    size_t best = out.size();
    for (size_t m = 0; m < out.size(); ++m)
      if (tokens[m] + t.lengths[id] <= clusterTokens &&
          (best == out.size() ||
           target[m] - work[m] > target[best] - work[best]))
        best = m;
    if (best == out.size())
      return R::fail("sequence " + std::to_string(id) +
                     " finds no micro-batch with room");
    out[best].push_back(id);
    work[best] += w;
    tokens[best] += t.lengths[id];
  }
  for (auto &ids : out) {
    if (ids.empty())
      return R::fail("a dealt micro-batch is empty");
    sortByLength(t, ids);
  }
  return R::ok(std::move(out));
}

Result<std::vector<std::vector<int64_t>>>
dealByLevels(const SequenceTimeTable &t, int64_t clusterTokens, double tauMs) {
  using R = Result<std::vector<std::vector<int64_t>>>;
  const size_t n = t.lengths.size();
  // Per sequence: its least GPU time among degrees within tau (all when
  // none is), and its time there.
  std::vector<double> work(n, kInfinity), time(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (int pass = 0; pass < 2 && work[i] == kInfinity; ++pass)
      for (size_t k = 0; k < t.degrees.size(); ++k) {
        const double ms = t.ms[i][k];
        if (ms == kInfinity || (pass == 0 && tauMs > 0 && ms > tauMs))
          continue;
        if (dbl(t.degrees[k]) * ms < work[i]) {
          work[i] = dbl(t.degrees[k]) * ms;
          time[i] = ms;
        }
      }
    if (work[i] == kInfinity)
      return R::fail("sequence " + std::to_string(i) + " fits no degree");
    if (t.lengths[i] > clusterTokens)
      return R::fail("sequence " + std::to_string(i) + " exceeds the cluster");
  }
  std::vector<int64_t> left(n);
  for (size_t i = 0; i < n; ++i)
    left[i] = static_cast<int64_t>(i);
  std::stable_sort(left.begin(), left.end(),
                   [&](int64_t a, int64_t b) { return work[a] > work[b]; });
  std::vector<std::vector<int64_t>> out;
  while (!left.empty()) {
    double slowest = 0, restWork = 0;
    int64_t restTokens = 0;
    for (int64_t id : left) {
      slowest = std::max(slowest, time[id]);
      restWork += work[id];
      restTokens += t.lengths[id];
    }
    const double parts = dbl((restTokens + clusterTokens - 1) / clusterTokens);
    const double target = std::max(dbl(t.gpus) * slowest, restWork / parts);
    std::vector<int64_t> mb, rest;
    double w = 0;
    int64_t tokens = 0;
    for (int64_t id : left) {
      if (mb.empty() || (tokens + t.lengths[id] <= clusterTokens &&
                         w + work[id] <= target * (1 + 1e-12))) {
        mb.push_back(id);
        w += work[id];
        tokens += t.lengths[id];
      } else {
        rest.push_back(id);
      }
    }
    sortByLength(t, mb);
    out.push_back(std::move(mb));
    left = std::move(rest);
  }
  return R::ok(std::move(out));
}

namespace {

/// Uniform integer in [0, n), n > 0 (modulo: the tiny bias is harmless and
/// the same everywhere).
size_t draw(std::mt19937_64 &rng, size_t n) {
  return static_cast<size_t>(rng() % n);
}

/// Uniform double in [0, 1) from the top 53 bits.
double drawUnit(std::mt19937_64 &rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

bool isCandidate(const SequenceTimeTable &t, int64_t degree) {
  return t.indexOf(degree) < t.degrees.size();
}

int64_t capacityOf(const SequenceTimeTable &t, const SearchGroup &g) {
  return t.capacityPerGpu * g.degree;
}

/// One random change of iteratedPolish; false when the drawn change does
/// not apply (the plan is then unchanged). Group totals are stale after.
bool kick(const SequenceTimeTable &t, SearchPlan &p, std::mt19937_64 &rng) {
  if (p.empty())
    return false;
  const size_t a = draw(rng, p.size());
  if (p[a].empty())
    return false;
  const size_t ga = draw(rng, p[a].size());
  SearchGroup &from = p[a][ga];
  if (from.ids.empty())
    return false;
  switch (draw(rng, 5)) {
  case 0: { // move
    const size_t b = draw(rng, p.size());
    if (p[b].empty() || from.ids.size() < 2)
      return false;
    SearchGroup &to = p[b][draw(rng, p[b].size())];
    if (&to == &from)
      return false;
    const size_t i = draw(rng, from.ids.size());
    const int64_t id = from.ids[i];
    if (to.tokens + t.lengths[id] > capacityOf(t, to))
      return false;
    from.ids.erase(from.ids.begin() + static_cast<long>(i));
    from.tokens -= t.lengths[id];
    to.ids.push_back(id);
    to.tokens += t.lengths[id];
    return true;
  }
  case 1: { // swap
    const size_t b = draw(rng, p.size());
    if (p[b].empty())
      return false;
    SearchGroup &to = p[b][draw(rng, p[b].size())];
    if (&to == &from || to.ids.empty())
      return false;
    const size_t i = draw(rng, from.ids.size()), j = draw(rng, to.ids.size());
    const int64_t x = from.ids[i], y = to.ids[j];
    const int64_t fromTokens = from.tokens - t.lengths[x] + t.lengths[y];
    const int64_t toTokens = to.tokens - t.lengths[y] + t.lengths[x];
    if (fromTokens > capacityOf(t, from) || toTokens > capacityOf(t, to))
      return false;
    std::swap(from.ids[i], to.ids[j]);
    from.tokens = fromTokens;
    to.tokens = toTokens;
    return true;
  }
  case 2: { // split into two halves, sequences dealt at random
    const int64_t half = from.degree / 2;
    if (from.degree % 2 != 0 || !isCandidate(t, half) || from.ids.size() < 2)
      return false;
    SearchGroup g{half, {}, 0, 0}, h{half, {}, 0, 0};
    for (int64_t id : from.ids) {
      SearchGroup *first = draw(rng, 2) ? &g : &h;
      SearchGroup *second = first == &g ? &h : &g;
      if (first->tokens + t.lengths[id] <= t.capacityPerGpu * half) {
        first->ids.push_back(id);
        first->tokens += t.lengths[id];
      } else if (second->tokens + t.lengths[id] <= t.capacityPerGpu * half) {
        second->ids.push_back(id);
        second->tokens += t.lengths[id];
      } else {
        return false;
      }
    }
    if (g.ids.empty() || h.ids.empty())
      return false;
    p[a][ga] = std::move(g);
    p[a].push_back(std::move(h));
    return true;
  }
  case 3: { // to a new group on a micro-batch's idle GPUs
    const size_t b = draw(rng, p.size());
    if (from.ids.size() < 2)
      return false;
    int64_t used = 0;
    for (const SearchGroup &g : p[b])
      used += g.degree;
    const size_t i = draw(rng, from.ids.size());
    const int64_t id = from.ids[i];
    for (int64_t d : t.degrees) // ascending: the smallest that holds it
      if (used + d <= t.gpus && t.lengths[id] <= t.capacityPerGpu * d) {
        from.ids.erase(from.ids.begin() + static_cast<long>(i));
        from.tokens -= t.lengths[id];
        p[b].push_back({d, {id}, t.lengths[id], 0});
        return true;
      }
    return false;
  }
  default: { // merge with another group of the same degree
    if (!isCandidate(t, 2 * from.degree))
      return false;
    const size_t gb = draw(rng, p[a].size());
    SearchGroup &other = p[a][gb];
    if (gb == ga || other.degree != from.degree || other.ids.empty())
      return false;
    from.ids.insert(from.ids.end(), other.ids.begin(), other.ids.end());
    from.tokens += other.tokens;
    from.degree *= 2;
    p[a].erase(p[a].begin() + static_cast<long>(gb));
    return true;
  }
  }
}

} // namespace

SearchPlan iteratedPolish(const SequenceTimeTable &t, const SearchPlan &plan,
                          int64_t rounds, uint64_t seed) {
  std::mt19937_64 rng(seed);
  SearchPlan best = plan;
  refreshSearchPlan(t, best);
  double bestMs = searchPlanMs(t, best);
  SearchPlan current = best;
  double currentMs = bestMs;
  const double temperature = 0.002 * bestMs;
  for (int64_t r = 0; r < rounds; ++r) {
    SearchPlan next = current;
    const size_t kicks = 1 + draw(rng, 4);
    for (size_t k = 0; k < kicks; ++k)
      kick(t, next, rng);
    polishPlan(t, next, 2000, /*freeGpuTies=*/true);
    const double ms = searchPlanMs(t, next);
    const double u = drawUnit(rng);
    if (ms < currentMs ||
        (temperature > 0 && u < std::exp((currentMs - ms) / temperature))) {
      current = next;
      currentMs = ms;
    }
    if (ms < bestMs) {
      best = std::move(next);
      bestMs = ms;
    }
  }
  return best;
}

} // namespace plexus::adaptivesp
