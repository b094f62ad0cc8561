#include "passes/StepModel/OneFOneB.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

namespace plexus::step {

int64_t chunkWindow(int64_t stages, int64_t stage, int64_t nSplit) {
  return stages - stage - 1 + nSplit;
}

std::string oneFOneBStageOrder(int64_t stages, int64_t stage,
                               const std::vector<int64_t> &backward,
                               int64_t nSplit, std::vector<int64_t> &ops) {
  ops.clear();
  if (stages < 1 || stage < 0 || stage >= stages)
    return "stage " + std::to_string(stage) + " is not one of " +
           std::to_string(stages);
  const int64_t n = static_cast<int64_t>(backward.size());
  if (n < 1 || nSplit < 1)
    return "a pipeline needs a backward order of its chunks and at least "
           "one chunk";
  const int64_t warm = std::min<int64_t>(
      n, std::max<int64_t>(chunkWindow(stages, stage, nSplit) - 1, 0));
  std::vector<bool> forwarded(static_cast<size_t>(n), false);
  int64_t nextForward = 0;
  auto forward = [&] {
    forwarded[static_cast<size_t>(nextForward)] = true;
    ops.push_back(nextForward++);
  };
  while (nextForward < warm)
    forward();
  for (int64_t j = 0; j < n; ++j) {
    if (nextForward < n)
      forward();
    const int64_t k = backward[static_cast<size_t>(j)];
    if (k < 0 || k >= n || !forwarded[static_cast<size_t>(k)]) {
      ops.clear();
      return "stage " + std::to_string(stage) +
             " would run the backward of position " + std::to_string(k) +
             " before its forward";
    }
    ops.push_back(-(k + 1));
  }
  return "";
}

std::string interleavedStageOrder(int64_t stages, int64_t stage, int64_t chunks,
                                  int64_t m, std::vector<VirtualPass> &ops) {
  ops.clear();
  if (stages < 2)
    return "an interleaved pipeline needs at least 2 stages";
  if (stage < 0 || stage >= stages)
    return "stage " + std::to_string(stage) + " is not one of " +
           std::to_string(stages);
  if (chunks < 1 || chunks > (int64_t(1) << 20) || stages > (int64_t(1) << 20))
    return "an interleaved pipeline needs 1 to 2^20 model chunks per stage "
           "and at most 2^20 stages";
  if (m < 1 || m > (int64_t(1) << 30) || m % stages != 0)
    return "the interleaved schedule runs micro-batches in groups of the " +
           std::to_string(stages) + " stages, and " + std::to_string(m) +
           " is not a positive multiple of " + std::to_string(stages);
  const int64_t total = m * chunks, round = stages * chunks;
  int64_t warm =
      m == stages ? total : (stages - stage - 1) * 2 + (chunks - 1) * stages;
  warm = std::min(warm, total);
  auto pass = [&](int64_t k, bool backward) {
    int64_t chunk = (k % round) / stages;
    if (backward)
      chunk = chunks - 1 - chunk;
    return VirtualPass{chunk, (k / round) * stages + k % stages, backward};
  };
  ops.reserve(static_cast<size_t>(2 * total));
  for (int64_t k = 0; k < warm; ++k)
    ops.push_back(pass(k, false));
  for (int64_t k = 0; k < total - warm; ++k) {
    ops.push_back(pass(warm + k, false));
    ops.push_back(pass(k, true));
  }
  for (int64_t k = total - warm; k < total; ++k)
    ops.push_back(pass(k, true));
  return "";
}

std::string
timePasses(int64_t stages, int64_t chunks, int64_t m,
           const std::vector<std::vector<VirtualPass>> &orders,
           const std::function<double(int64_t, int64_t, bool)> &seconds,
           PassTiming &out,
           const std::function<double(int64_t, int64_t, bool)> &transfer) {
  out = PassTiming();
  if (stages < 1 || chunks < 1 || m < 1 ||
      static_cast<int64_t>(orders.size()) != stages)
    return "the pipeline needs one order per stage and at least one "
           "micro-batch";
  const int64_t virtualStages = stages * chunks;
  // Ends of each (virtual stage, position, direction); NaN until known.
  const double unknown = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> ended(static_cast<size_t>(virtualStages * m * 2),
                            unknown);
  auto slot = [&](int64_t j, int64_t position, bool backward) -> double & {
    return ended[static_cast<size_t>((j * m + position) * 2 + backward)];
  };
  const size_t n = orders.size();
  out.start.resize(n);
  out.end.resize(n);
  std::vector<size_t> next(n, 0);
  std::vector<std::pair<size_t, size_t>> scheduled;
  size_t remaining = 0;
  for (size_t s = 0; s < n; ++s) {
    out.start[s].resize(orders[s].size());
    out.end[s].resize(orders[s].size());
    remaining += orders[s].size();
    for (const VirtualPass &p : orders[s])
      if (p.chunk < 0 || p.chunk >= chunks || p.position < 0 || p.position >= m)
        return "stage " + std::to_string(s) + " runs a pass of chunk " +
               std::to_string(p.chunk) + ", micro-batch " +
               std::to_string(p.position) + ", outside the pipeline";
  }
  while (remaining > 0) {
    bool progress = false;
    for (size_t s = 0; s < n; ++s)
      while (next[s] < orders[s].size()) {
        const VirtualPass &p = orders[s][next[s]];
        const int64_t j = p.chunk * stages + static_cast<int64_t>(s);
        // The input: the forward before, or the backward after and this
        // stage's own forward.
        auto message = [&](int64_t from, bool backward) {
          return transfer ? std::max(0.0, transfer(from, p.position, backward))
                          : 0.0;
        };
        double input = 0;
        if (!p.backward && j > 0)
          input = slot(j - 1, p.position, false) + message(j - 1, false);
        if (p.backward) {
          const double own = slot(j, p.position, false);
          const double after =
              j + 1 < virtualStages
                  ? slot(j + 1, p.position, true) + message(j + 1, true)
                  : 0.0;
          input = std::isnan(own) || std::isnan(after) ? unknown
                                                       : std::max(own, after);
        }
        if (std::isnan(input))
          break;
        if (!std::isnan(slot(j, p.position, p.backward)))
          return "stage " + std::to_string(s) + " runs the " +
                 (p.backward ? "backward" : "forward") + " of micro-batch " +
                 std::to_string(p.position) + " through chunk " +
                 std::to_string(p.chunk) + " twice";
        const size_t i = next[s];
        const double took = seconds(j, p.position, p.backward);
        if (!(took >= 0) || !std::isfinite(took))
          return "a pass of virtual stage " + std::to_string(j) +
                 " takes no finite, non-negative time";
        const double begin = std::max(input, i > 0 ? out.end[s][i - 1] : 0.0);
        out.start[s][i] = begin;
        out.end[s][i] = begin + took;
        slot(j, p.position, p.backward) = out.end[s][i];
        out.makespan = std::max(out.makespan, out.end[s][i]);
        scheduled.push_back({s, i});
        ++next[s];
        --remaining;
        progress = true;
      }
    if (!progress) {
      for (size_t s = 0; s < n; ++s)
        if (next[s] < orders[s].size()) {
          const VirtualPass &p = orders[s][next[s]];
          return "stage " + std::to_string(s) + " waits forever for the " +
                 (p.backward ? "backward" : "forward") + " input of " +
                 "micro-batch " + std::to_string(p.position) +
                 " through chunk " + std::to_string(p.chunk);
        }
    }
  }
  // Every start and end by (time, the order the passes were scheduled in):
  // a pass is scheduled after every pass it depends on, so ties keep
  // dependencies first.
  struct Event {
    double time;
    size_t order;
    size_t stage, index;
    bool end;
  };
  std::vector<Event> events;
  events.reserve(2 * scheduled.size());
  for (size_t k = 0; k < scheduled.size(); ++k) {
    auto [s, i] = scheduled[k];
    events.push_back({out.start[s][i], 2 * k, s, i, false});
    events.push_back({out.end[s][i], 2 * k + 1, s, i, true});
  }
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    return std::tie(a.time, a.order) < std::tie(b.time, b.order);
  });
  out.startRank.resize(n);
  out.endRank.resize(n);
  for (size_t s = 0; s < n; ++s) {
    out.startRank[s].resize(orders[s].size());
    out.endRank[s].resize(orders[s].size());
  }
  for (size_t k = 0; k < events.size(); ++k) {
    const Event &e = events[k];
    (e.end ? out.endRank : out.startRank)[e.stage][e.index] =
        static_cast<int64_t>(k);
  }
  return "";
}

std::vector<int64_t> oneFOneBOrder(int64_t stages, int64_t stage, int64_t m) {
  std::vector<int64_t> backward(static_cast<size_t>(std::max<int64_t>(m, 0)));
  std::iota(backward.begin(), backward.end(), int64_t(0));
  std::vector<int64_t> ops;
  if (m > 0)
    (void)oneFOneBStageOrder(stages, stage, backward, 1, ops);
  return ops;
}

} // namespace plexus::step
