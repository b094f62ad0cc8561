//===- FabricCommTime.cpp - Communication times on a placed fabric --------===//
#include "passes/Simulate/FabricCommTime.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

namespace plexus::sim {

fabric::CollectiveTime fabricRequestTime(
    const fabric::FabricGraph &graph, const std::vector<fabric::ChipRef> &chips,
    const fabric::CollectiveParams &params, const CommRequest &r) {
  fabric::CollectiveTime failed;
  std::vector<fabric::ChipRef> group;
  for (int64_t rank : r.ranks) {
    if (rank < 0 || rank >= static_cast<int64_t>(chips.size())) {
      failed.error = "rank " + std::to_string(rank) + " has no chip";
      return failed;
    }
    group.push_back(chips[static_cast<size_t>(rank)]);
  }
  const double bytes = static_cast<double>(r.bytes);
  fabric::CollectiveTime t;
  switch (r.kind) {
  case CommKind::PointToPoint:
    if (group.size() != 2) {
      failed.error = "a transfer needs a sender and a receiver";
      return failed;
    }
    t = fabric::sendRecvTime(graph, group[0], group[1], bytes, params);
    break;
  case CommKind::AllReduce:
    t = fabric::allReduceTime(graph, group, bytes, params);
    break;
  case CommKind::AllGather:
    t = fabric::allGatherTime(
        graph, group, bytes * static_cast<double>(group.size()), params);
    break;
  case CommKind::ReduceScatter:
    t = fabric::reduceScatterTime(graph, group, bytes, params);
    break;
  case CommKind::AllToAll:
    t = fabric::allToAllTime(graph, group, bytes, params);
    break;
  }
  return t;
}

CommTimeFn fabricCommTime(const fabric::FabricGraph &graph,
                          std::vector<fabric::ChipRef> chips,
                          fabric::CollectiveParams params,
                          FabricCommOptions options) {
  /// The modeled time of a request, and the share of each node's links
  /// (ranks there / chips per node) it uses.
  struct Modeled {
    fabric::CollectiveTime time;
    /// (node, share) sorted by node; empty when inside one node.
    std::vector<std::pair<int64_t, double>> usage;
    /// Keeps the shared member lists alive whose identity keys this entry
    /// (so that their addresses cannot name other lists later).
    std::vector<prog::Members> keepAlive;
  };
  /// A communication still running: when it ends, and its usage.
  struct Active {
    double end = 0;
    const std::vector<std::pair<int64_t, double>> *usage = nullptr;
  };
  struct State {
    std::map<std::tuple<int, std::vector<int64_t>, int64_t>, Modeled> cache;
    /// Requests with a shared member list, keyed on its identity: no copy
    /// or comparison of the members per call.
    std::map<std::tuple<int, const void *, int64_t>, Modeled *> byIdentity;
    std::vector<Active> active;
    double lastStart = 0;
  };
  auto state = std::make_shared<State>();
  const double perNode =
      static_cast<double>(std::max<int64_t>(1, graph.chipsPerNode));
  return [&graph, chips = std::move(chips), params, options, perNode,
          state](const CommRequest &r) -> CommTime {
    Modeled *found = nullptr;
    const auto identity =
        std::make_tuple(static_cast<int>(r.kind), r.members.id(), r.bytes);
    if (r.members.id()) {
      auto known = state->byIdentity.find(identity);
      if (known != state->byIdentity.end())
        found = known->second;
    }
    auto key = found ? std::tuple<int, std::vector<int64_t>, int64_t>()
                     : std::make_tuple(static_cast<int>(r.kind), r.ranks,
                                       r.bytes);
    auto it = found ? state->cache.end() : state->cache.find(key);
    if (!found && it == state->cache.end()) {
      Modeled m;
      m.time = fabricRequestTime(graph, chips, params, r);
      std::map<int64_t, double> count;
      for (int64_t rank : r.ranks)
        if (rank >= 0 && rank < static_cast<int64_t>(chips.size()))
          count[chips[static_cast<size_t>(rank)].node] += 1;
      if (count.size() > 1)
        for (auto &[node, n] : count)
          m.usage.emplace_back(node, std::min(1.0, n / perNode));
      it = state->cache.emplace(std::move(key), std::move(m)).first;
    }
    if (!found) {
      found = &it->second;
      if (r.members.id()) {
        found->keepAlive.push_back(r.members);
        state->byIdentity.emplace(identity, found);
      }
    }
    const Modeled &m = *found;
    if (!m.time.ok())
      return CommTime::failure(m.time.error);
    const double efficiency = options.efficiency > 0 && options.efficiency <= 1
                                  ? options.efficiency
                                  : 1.0;
    const double bandwidth = m.time.bandwidthSeconds / efficiency;
    double extra = 0;
    if (options.contention && r.startSeconds < state->lastStart)
      state->active.clear(); // an earlier start: a new simulation began
    state->lastStart = r.startSeconds;
    if (options.contention && !m.usage.empty()) {
      auto &active = state->active;
      active.erase(std::remove_if(active.begin(), active.end(),
                                  [&](const Active &a) {
                                    return a.end <= r.startSeconds;
                                  }),
                   active.end());
      // Per node, the links this transfer and an active one want beyond
      // what the node has, as a share of this transfer's own: that share
      // of it runs at half speed while the other lasts.
      for (const Active &a : active) {
        double worst = 0;
        // Nodes both use: a merge of the two sorted lists.
        auto mine = m.usage.begin(), theirs = a.usage->begin();
        while (mine != m.usage.end() && theirs != a.usage->end()) {
          if (mine->first < theirs->first) {
            ++mine;
          } else if (theirs->first < mine->first) {
            ++theirs;
          } else {
            const double u = mine->second;
            worst = std::max(worst, std::max(0.0, u + theirs->second - 1.0) / u);
            ++mine;
            ++theirs;
          }
        }
        if (worst > 0)
          extra += worst * std::min(bandwidth, (a.end - r.startSeconds) / 2);
      }
    }
    const double seconds = bandwidth + extra + m.time.latencySeconds;
    if (options.contention && !m.usage.empty())
      state->active.push_back({r.startSeconds + seconds, &m.usage});
    return CommTime(seconds);
  };
}

} // namespace plexus::sim
