//===- Timeline.cpp - A simulated step's timeline at a chart's resolution -===//
#include "passes/Simulate/Timeline.h"

#include <algorithm>
#include <array>
#include <map>

using namespace plexus::sim;

namespace {

constexpr std::array<const char *, 6> kKinds = {"fwd",     "bwd",  "recompute",
                                                "compute", "comm", "idle"};

int kindOf(const Span &s) {
  if (s.isCompute) {
    if (s.category == "fwd")
      return 0;
    if (s.category == "bwd")
      return 1;
    if (s.category == "recompute")
      return 2;
    return 3;
  }
  return 4;
}

/// One lane's columns: the kind that fills most of each.
std::vector<int> binLane(const std::vector<Span> &spans, bool async,
                         double step, int64_t columns) {
  std::vector<std::array<double, 5>> filled(columns, std::array<double, 5>{});
  const double width = step / double(columns);
  for (const Span &s : spans) {
    if (s.async != async || s.end <= s.start)
      continue;
    int64_t first =
        std::clamp<int64_t>(int64_t(s.start / width), 0, columns - 1);
    int64_t last = std::clamp<int64_t>(int64_t(s.end / width), 0, columns - 1);
    for (int64_t c = first; c <= last; ++c) {
      const double lo = std::max(s.start, double(c) * width);
      const double hi = std::min(s.end, double(c + 1) * width);
      if (hi > lo)
        filled[c][kindOf(s)] += hi - lo;
    }
  }
  std::vector<int> out(columns, 5);
  for (int64_t c = 0; c < columns; ++c) {
    double busy = 0, best = 0;
    int kind = 5;
    for (int k = 0; k < 5; ++k) {
      busy += filled[c][k];
      if (filled[c][k] > best) {
        best = filled[c][k];
        kind = k;
      }
    }
    // Idle when the column is mostly empty.
    out[c] = busy * 2 >= width ? kind : 5;
  }
  return out;
}

std::vector<TimelineRun> runs(const std::vector<int> &lane) {
  std::vector<TimelineRun> out;
  for (size_t c = 0; c < lane.size(); ++c) {
    if (!out.empty() && out.back().kind == kKinds[lane[c]])
      ++out.back().length;
    else
      out.push_back({kKinds[lane[c]], int64_t(c), 1});
  }
  return out;
}

} // namespace

Timeline plexus::sim::binTimeline(const SimResult &result, int64_t columns,
                                  int64_t maxGroups) {
  Timeline t;
  t.stepSeconds = result.stepSeconds;
  t.columns = std::max<int64_t>(1, columns);
  if (result.stepSeconds <= 0)
    return t;
  // Ranks with the same two lanes are one group, in order of first rank.
  std::map<std::pair<std::vector<int>, std::vector<int>>, size_t> index;
  std::vector<TimelineGroup> groups;
  for (size_t r = 0; r < result.ranks.size(); ++r) {
    const std::vector<Span> &spans = result.ranks[r].spans;
    std::vector<int> ops = binLane(spans, false, result.stepSeconds, t.columns);
    std::vector<int> stream;
    if (std::any_of(spans.begin(), spans.end(),
                    [](const Span &s) { return s.async; }))
      stream = binLane(spans, true, result.stepSeconds, t.columns);
    auto key = std::make_pair(std::move(ops), std::move(stream));
    auto it = index.find(key);
    if (it == index.end()) {
      TimelineGroup g;
      g.ops = runs(key.first);
      if (!key.second.empty())
        g.stream = runs(key.second);
      it = index.emplace(std::move(key), groups.size()).first;
      groups.push_back(std::move(g));
    }
    groups[it->second].ranks.push_back(int64_t(r));
  }
  if (int64_t(groups.size()) > maxGroups) {
    t.groupsNotShown = int64_t(groups.size()) - maxGroups;
    groups.resize(maxGroups);
  }
  t.groups = std::move(groups);
  return t;
}

std::string plexus::sim::rankRanges(const std::vector<int64_t> &ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(ranks[i]);
    if (j > i)
      out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}
