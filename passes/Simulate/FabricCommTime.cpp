//===- FabricCommTime.cpp - Communication times on a placed fabric --------===//
#include "passes/Simulate/FabricCommTime.h"

#include <map>
#include <tuple>

namespace plexus::sim {

CommTime fabricRequestTime(const fabric::FabricGraph &graph,
                           const std::vector<fabric::ChipRef> &chips,
                           const fabric::CollectiveParams &params,
                           const CommRequest &r) {
  std::vector<fabric::ChipRef> group;
  for (int64_t rank : r.ranks) {
    if (rank < 0 || rank >= static_cast<int64_t>(chips.size()))
      return CommTime::failure("rank " + std::to_string(rank) + " has no chip");
    group.push_back(chips[static_cast<size_t>(rank)]);
  }
  const double bytes = static_cast<double>(r.bytes);
  fabric::CollectiveTime t;
  switch (r.kind) {
  case CommKind::PointToPoint:
    if (group.size() != 2)
      return CommTime::failure("a transfer needs a sender and a receiver");
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
  if (!t.ok())
    return CommTime::failure(t.error);
  return CommTime(t.seconds);
}

CommTimeFn fabricCommTime(const fabric::FabricGraph &graph,
                          std::vector<fabric::ChipRef> chips,
                          fabric::CollectiveParams params) {
  using Key = std::tuple<int, std::vector<int64_t>, int64_t>;
  auto cache = std::make_shared<std::map<Key, CommTime>>();
  return [&graph, chips = std::move(chips), params,
          cache](const CommRequest &r) -> CommTime {
    Key key{static_cast<int>(r.kind), r.ranks, r.bytes};
    auto it = cache->find(key);
    if (it != cache->end())
      return it->second;
    CommTime t = fabricRequestTime(graph, chips, params, r);
    cache->emplace(std::move(key), t);
    return t;
  };
}

} // namespace plexus::sim
