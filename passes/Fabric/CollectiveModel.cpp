//===- CollectiveModel.cpp - Alpha-beta times of collectives --------------===//
//
// See CollectiveModel.h and docs/collectives.md for the formulas.
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/CollectiveModel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

namespace plexus::fabric {

namespace {

bool isTree(const FabricGraph &g) {
  return g.shape.kind == TopologyKind::FatTree ||
         g.shape.kind == TopologyKind::RailOptimized;
}

/// Parallel links (arcs) from vertex u to vertex v; 0 when not adjacent.
int64_t multiplicity(const FabricGraph &g, int64_t u, int64_t v) {
  int64_t k = 0;
  g.forEachNeighbor(u, [&](int64_t w, int64_t links) {
    if (w == v)
      k += links;
  });
  return k;
}

/// Latency of the hops of a route (without interNodeAlpha).
double routeHopLatency(const FabricGraph &g, const std::vector<int64_t> &path,
                       const CollectiveParams &p) {
  if (path.size() < 2)
    return 0;
  const double hops = static_cast<double>(path.size() - 1);
  switch (g.shape.kind) {
  case TopologyKind::RailX:
    // Each circuit is one hop; each intermediate node forwards the message.
    return hops * p.opticalHopLatency + (hops - 1) * p.relayLatency;
  case TopologyKind::Torus:
    return hops * p.torusHopLatency;
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized:
    break;
  }
  double switches = 0;
  for (int64_t v : path)
    switches += g.isSwitch(v) ? 1 : 0;
  return switches * p.switchHopLatency;
}

/// Ranks per node, nodes in order of first appearance.
struct Layout {
  std::vector<int64_t> nodes;
  std::map<int64_t, int64_t> count;
  int64_t maxPerNode = 0;
};

Layout layoutOf(const std::vector<ChipRef> &ranks) {
  Layout l;
  for (const ChipRef &c : ranks) {
    if (l.count[c.node]++ == 0)
      l.nodes.push_back(c.node);
    l.maxPerNode = std::max(l.maxPerNode, l.count[c.node]);
  }
  return l;
}

std::string checkBytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0)
    return "message size must be a finite number of bytes >= 0";
  return "";
}

/// The share of a src -> dst flow on each cable (u, w), in the order
/// addTreeFlow adds them.
using TreeShares = std::vector<std::pair<std::pair<int64_t, int64_t>, double>>;

TreeShares treeShares(const FabricGraph &g, int64_t src, int64_t dst) {
  TreeShares out;
  const int64_t n = g.vertexCount();
  // Shortest-path counts from one end, through switches only.
  auto count = [&](int64_t from, int64_t to, std::vector<int64_t> &dist,
                   std::vector<double> &paths) {
    dist.assign(static_cast<size_t>(n), -1);
    paths.assign(static_cast<size_t>(n), 0);
    std::vector<int64_t> queue{from};
    dist[from] = 0;
    paths[from] = 1;
    for (size_t head = 0; head < queue.size(); ++head) {
      int64_t u = queue[head];
      if (u != from && !g.isSwitch(u))
        continue; // a node ends a path
      g.forEachNeighbor(u, [&](int64_t w, int64_t links) {
        if (!g.isSwitch(w) && w != to)
          return;
        if (dist[w] < 0) {
          dist[w] = dist[u] + 1;
          queue.push_back(w);
        }
        if (dist[w] == dist[u] + 1)
          paths[w] += paths[u] * static_cast<double>(links);
      });
    }
  };
  std::vector<int64_t> distS, distD;
  std::vector<double> pathsS, pathsD;
  count(src, dst, distS, pathsS);
  count(dst, src, distD, pathsD);
  const double total = pathsS[dst];
  const int64_t length = distS[dst];
  if (!(total > 0))
    return out;
  for (int64_t u = 0; u < n; ++u) {
    if (distS[u] < 0 || distD[u] < 0 || distS[u] + distD[u] != length)
      continue;
    if (u != src && !g.isSwitch(u))
      continue;
    g.forEachNeighbor(u, [&](int64_t w, int64_t links) {
      if (distS[w] != distS[u] + 1 || distD[w] < 0 ||
          distS[w] + distD[w] != length || (!g.isSwitch(w) && w != dst))
        return;
      out.push_back(
          {{u, w}, pathsS[u] * static_cast<double>(links) * pathsD[w] / total});
    });
  }
  return out;
}

} // namespace

/// Shares per node pair of one built graph, computed once (two searches
/// over the whole graph each): a collective over many nodes asks for the
/// same pairs again and again.
struct TreeFlowCache {
  std::mutex mutex;
  std::map<std::pair<int64_t, int64_t>, TreeShares> shares;
};

namespace {

/// Adds `bytes` from src to dst (nodes) spread over every shortest path
/// through switches, as ECMP does: each path (parallel cables counted
/// apart) carries an equal share. Other nodes are endpoints, never transit.
void addTreeFlow(const FabricGraph &g, int64_t src, int64_t dst, double bytes,
                 std::map<std::pair<int64_t, int64_t>, double> &load) {
  // The graph's pointer is read and filled under one lock (a graph may be
  // shared by threads); the cache then has its own.
  std::shared_ptr<TreeFlowCache> cache;
  {
    static std::mutex creating;
    std::lock_guard<std::mutex> lock(creating);
    if (!g.treeFlows)
      g.treeFlows = std::make_shared<TreeFlowCache>();
    cache = g.treeFlows;
  }
  const TreeShares *shares = nullptr;
  {
    std::lock_guard<std::mutex> lock(cache->mutex);
    auto it = cache->shares.find({src, dst});
    if (it == cache->shares.end())
      it = cache->shares.emplace(std::make_pair(src, dst),
                                 treeShares(g, src, dst))
               .first;
    shares = &it->second; // map nodes are stable; entries never change
  }
  for (const auto &[link, share] : *shares)
    load[link] += bytes * share;
}

/// Contention with, on trees, a node's cables capped at the NICs the group
/// uses on it (`nics`; absent nodes keep all their cables) and flows spread
/// over all equal-cost paths.
ContentionResult contention(const FabricGraph &g,
                            const std::vector<Flow> &flows,
                            const CollectiveParams &p,
                            const std::map<int64_t, int64_t> *nics) {
  ContentionResult r;
  if (g.nodes <= 0) {
    r.error = "the fabric graph is empty (not built)";
    return r;
  }
  std::map<std::pair<int64_t, int64_t>, double> load;
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow &f = flows[i];
    if (f.src < 0 || f.src >= g.nodes || f.dst < 0 || f.dst >= g.nodes) {
      r.error = "flow " + std::to_string(i) + ": node outside the fabric (" +
                std::to_string(f.src) + " -> " + std::to_string(f.dst) +
                ", nodes 0.." + std::to_string(g.nodes - 1) + ")";
      return r;
    }
    if (!std::isfinite(f.bytes) || f.bytes < 0) {
      r.error = "flow " + std::to_string(i) + ": bytes must be finite, >= 0";
      return r;
    }
    if (f.src == f.dst || f.bytes == 0)
      continue;
    std::vector<int64_t> path = g.route(f.src, f.dst);
    if (path.empty()) {
      r.error = "flow " + std::to_string(i) + ": node " +
                std::to_string(f.dst) + " unreachable from node " +
                std::to_string(f.src);
      return r;
    }
    if (isTree(g))
      addTreeFlow(g, f.src, f.dst, f.bytes, load);
    else
      for (size_t h = 0; h + 1 < path.size(); ++h)
        load[{path[h], path[h + 1]}] += f.bytes;
    r.latencySeconds = std::max(r.latencySeconds,
                                p.interNodeAlpha + routeHopLatency(g, path, p));
  }
  for (const auto &[key, bytes] : load) {
    int64_t k = multiplicity(g, key.first, key.second);
    if (nics && isTree(g)) {
      int64_t node = g.isSwitch(key.first) ? key.second : key.first;
      if (!g.isSwitch(node)) {
        auto it = nics->find(node);
        if (it != nics->end())
          k = std::min(k, it->second);
      }
    }
    LinkLoad l{key.first, key.second, bytes,
               static_cast<double>(k) * g.shape.linkBandwidth};
    double t = l.capacity > 0 ? l.bytes / l.capacity
                              : std::numeric_limits<double>::infinity();
    if (r.bottleneck < 0 || t > r.bandwidthSeconds) {
      r.bandwidthSeconds = t;
      r.bottleneck = static_cast<int64_t>(r.links.size());
    }
    r.links.push_back(l);
  }
  r.seconds = r.bandwidthSeconds + r.latencySeconds;
  return r;
}

/// If the nodes are exactly one full RailX row (or column) of >= 2 nodes,
/// the dimension; else null.
const RailDimension *fullRailLine(const FabricGraph &g,
                                  const std::vector<int64_t> &nodes) {
  if (g.shape.kind != TopologyKind::RailX || nodes.size() < 2)
    return nullptr;
  const int64_t cols = g.shape.cols, rows = g.shape.rows;
  bool sameRow = true, sameCol = true;
  for (int64_t v : nodes) {
    sameRow &= v / cols == nodes[0] / cols;
    sameCol &= v % cols == nodes[0] % cols;
  }
  if (sameRow && static_cast<int64_t>(nodes.size()) == cols)
    return &g.row;
  if (sameCol && static_cast<int64_t>(nodes.size()) == rows)
    return &g.col;
  return nullptr;
}

/// The RailX dimension holding all the nodes (one row or one column,
/// not necessarily full), and each node's position in it; null otherwise.
const RailDimension *railLine(const FabricGraph &g,
                              const std::vector<int64_t> &nodes,
                              std::vector<int64_t> &pos) {
  if (g.shape.kind != TopologyKind::RailX || nodes.size() < 2)
    return nullptr;
  const int64_t cols = g.shape.cols;
  bool sameRow = true, sameCol = true;
  for (int64_t v : nodes) {
    sameRow &= v / cols == nodes[0] / cols;
    sameCol &= v % cols == nodes[0] % cols;
  }
  pos.clear();
  for (int64_t v : nodes)
    pos.push_back(sameRow ? v % cols : v / cols);
  return sameRow ? &g.row : sameCol ? &g.col : nullptr;
}

int64_t cycleRails(const RailDimension &d) {
  int64_t n = 0;
  for (const RailCircuit &c : d.circuits)
    n += c.kind == RailCircuit::Kind::Cycle ? 1 : 0;
  return n;
}

struct Step {
  std::string error;
  double bw = 0, lat = 0;
  std::string algorithm;
};

/// One step of a node-level ring: every node sends `chunk` bytes to the next.
Step ringStep(const FabricGraph &g, const Layout &l, double chunk,
              const CollectiveParams &p) {
  Step s;
  if (const RailDimension *d = fullRailLine(g, l.nodes)) {
    if (int64_t r = cycleRails(*d)) {
      // R Hamiltonian rails, each carrying 1/R of every chunk on its cycle.
      s.bw = chunk / (static_cast<double>(r) * g.shape.linkBandwidth);
      s.lat = p.interNodeAlpha + p.opticalHopLatency;
      s.algorithm = "railx-ring";
      return s;
    }
  }
  std::vector<Flow> flows;
  const size_t m = l.nodes.size();
  for (size_t i = 0; i < m; ++i)
    flows.push_back({l.nodes[i], l.nodes[(i + 1) % m], chunk});
  ContentionResult c = contention(g, flows, p, &l.count);
  s.error = c.error;
  s.bw = c.bandwidthSeconds;
  s.lat = c.latencySeconds;
  s.algorithm = "ring";
  return s;
}

/// Validates a collective's inputs into `t` and settles the cases that move
/// nothing (one rank, zero bytes). True when `t` is already the answer.
bool settledWithoutTraffic(const FabricGraph &g,
                           const std::vector<ChipRef> &ranks, double bytes,
                           CollectiveTime &t) {
  t.error = validateGroup(g, ranks);
  if (t.error.empty())
    t.error = checkBytes(bytes);
  if (!t.ok())
    return true;
  if (ranks.size() == 1 || bytes == 0) {
    t.algorithm = "none";
    return true;
  }
  return false;
}

/// Ring collective: `factor` 2 for all-reduce, 1 for all-gather or
/// reduce-scatter. Hierarchical when a node holds several ranks.
CollectiveTime ringCollective(const FabricGraph &g,
                              const std::vector<ChipRef> &ranks, double bytes,
                              const CollectiveParams &p, double factor) {
  CollectiveTime t;
  if (settledWithoutTraffic(g, ranks, bytes, t))
    return t;
  Layout l = layoutOf(ranks);
  const double c = static_cast<double>(l.maxPerNode);
  const double m = static_cast<double>(l.nodes.size());
  if (l.maxPerNode > 1) {
    // Intra-node ring reduce-scatter and/or all-gather among c chips.
    t.bandwidthSeconds += factor * (c - 1) / c * bytes / p.intraNodeBandwidth;
    t.latencySeconds += factor * (c - 1) * p.intraNodeAlpha;
  }
  if (l.nodes.size() > 1) {
    Step s = ringStep(g, l, bytes / m, p);
    if (!s.error.empty()) {
      t.error = s.error;
      return t;
    }
    t.bandwidthSeconds += factor * (m - 1) * s.bw;
    t.latencySeconds += factor * (m - 1) * s.lat;
    t.algorithm = s.algorithm;
  } else {
    t.algorithm = "intra-ring";
  }
  if (l.maxPerNode > 1 && l.nodes.size() > 1)
    t.algorithm = "hierarchical(" + t.algorithm + ")";
  t.seconds = t.bandwidthSeconds + t.latencySeconds;
  return t;
}

} // namespace

std::string validateGroup(const FabricGraph &g,
                          const std::vector<ChipRef> &ranks) {
  if (g.nodes <= 0)
    return "the fabric graph is empty (not built)";
  if (ranks.empty())
    return "the group has no ranks";
  std::set<ChipRef> seen;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const ChipRef &c = ranks[i];
    if (c.node < 0 || c.node >= g.nodes || c.local < 0 ||
        c.local >= g.chipsPerNode)
      return "rank " + std::to_string(i) + ": chip (" + std::to_string(c.node) +
             ", " + std::to_string(c.local) + ") is outside the fabric (" +
             std::to_string(g.nodes) + " nodes x " +
             std::to_string(g.chipsPerNode) + " chips)";
    if (!seen.insert(c).second)
      return "rank " + std::to_string(i) + ": chip (" + std::to_string(c.node) +
             ", " + std::to_string(c.local) + ") appears twice in the group";
  }
  return "";
}

ContentionResult computeContention(const FabricGraph &g,
                                   const std::vector<Flow> &flows,
                                   const CollectiveParams &p) {
  return contention(g, flows, p, nullptr);
}

double pathLatency(const FabricGraph &g, int64_t a, int64_t b,
                   const CollectiveParams &p) {
  if (a == b)
    return 0;
  std::vector<int64_t> path = g.route(a, b);
  if (path.empty())
    return -1;
  return p.interNodeAlpha + routeHopLatency(g, path, p);
}

CollectiveTime allReduceTime(const FabricGraph &g,
                             const std::vector<ChipRef> &ranks, double bytes,
                             const CollectiveParams &p) {
  return ringCollective(g, ranks, bytes, p, 2.0);
}

CollectiveTime allGatherTime(const FabricGraph &g,
                             const std::vector<ChipRef> &ranks, double bytes,
                             const CollectiveParams &p) {
  return ringCollective(g, ranks, bytes, p, 1.0);
}

CollectiveTime reduceScatterTime(const FabricGraph &g,
                                 const std::vector<ChipRef> &ranks,
                                 double bytes, const CollectiveParams &p) {
  return ringCollective(g, ranks, bytes, p, 1.0);
}

CollectiveTime allToAllTime(const FabricGraph &g,
                            const std::vector<ChipRef> &ranks, double bytes,
                            const CollectiveParams &p) {
  CollectiveTime t;
  if (settledWithoutTraffic(g, ranks, bytes, t))
    return t;
  Layout l = layoutOf(ranks);
  const double b = bytes / static_cast<double>(ranks.size()); // per pair
  // Intra-node part: each chip sends b to each of its c-1 local peers.
  double intraBw = 0, intraLat = 0;
  if (l.maxPerNode > 1) {
    intraBw = static_cast<double>(l.maxPerNode - 1) * b / p.intraNodeBandwidth;
    intraLat = p.intraNodeAlpha;
  }
  double interBw = 0, interLat = 0;
  std::string algorithm = "intra";
  if (l.nodes.size() > 1) {
    std::vector<Flow> flows;
    bool oneHop = true;
    int64_t maxHops = 0;
    for (int64_t u : l.nodes)
      for (int64_t v : l.nodes)
        if (u != v) {
          flows.push_back(
              {u, v, static_cast<double>(l.count[u] * l.count[v]) * b});
          int64_t h = g.linkHops(u, v);
          oneHop &= h == 1;
          maxHops = std::max(maxHops, h);
        }
    std::vector<int64_t> pos;
    const RailDimension *line = railLine(g, l.nodes, pos);
    if (line && !oneHop) {
      // Relayed (two-phase when the row's diameter is 2): every byte
      // crosses up to maxHops circuits, spread over all the node's circuits
      // of the row.
      double worst = 0, out = 0;
      for (size_t i = 0; i < l.nodes.size(); ++i) {
        double sent = 0;
        for (int64_t v : l.nodes)
          if (v != l.nodes[i])
            sent += static_cast<double>(l.count[l.nodes[i]] * l.count[v]) * b;
        int64_t links = 0;
        for (int32_t w = 0; w < line->size; ++w)
          links += line->links[pos[i] * line->size + w];
        out = static_cast<double>(links) * g.shape.linkBandwidth;
        worst = std::max(worst, out > 0 ? sent / out : 0.0);
      }
      const double h = static_cast<double>(maxHops);
      interBw = h * worst;
      interLat =
          p.interNodeAlpha + h * p.opticalHopLatency + (h - 1) * p.relayLatency;
      algorithm = "relayed";
    } else {
      ContentionResult c = contention(g, flows, p, &l.count);
      if (!c.ok()) {
        t.error = c.error;
        return t;
      }
      interBw = c.bandwidthSeconds;
      interLat = c.latencySeconds;
      algorithm = oneHop ? "direct" : "routed";
    }
  }
  // Intra- and inter-node parts run at the same time: the slower one counts.
  if (intraBw + intraLat > interBw + interLat) {
    t.bandwidthSeconds = intraBw;
    t.latencySeconds = intraLat;
    algorithm = l.nodes.size() > 1 ? algorithm + "+intra-bound" : "intra";
  } else {
    t.bandwidthSeconds = interBw;
    t.latencySeconds = interLat;
  }
  t.algorithm = algorithm;
  t.seconds = t.bandwidthSeconds + t.latencySeconds;
  return t;
}

CollectiveTime sendRecvTime(const FabricGraph &g, ChipRef from, ChipRef to,
                            double bytes, const CollectiveParams &p) {
  CollectiveTime t;
  t.error = validateGroup(g, {from});
  if (t.error.empty())
    t.error = validateGroup(g, {to});
  if (t.error.empty())
    t.error = checkBytes(bytes);
  if (!t.ok())
    return t;
  if (from == to || bytes == 0) {
    t.algorithm = "none";
    return t;
  }
  if (from.node == to.node) {
    t.bandwidthSeconds = bytes / p.intraNodeBandwidth;
    t.latencySeconds = p.intraNodeAlpha;
    t.algorithm = "intra";
  } else {
    std::vector<int64_t> path = g.route(from.node, to.node);
    if (path.empty()) {
      t.error = "node " + std::to_string(to.node) + " unreachable from node " +
                std::to_string(from.node);
      return t;
    }
    double bottleneck = std::numeric_limits<double>::infinity();
    for (size_t h = 0; h + 1 < path.size(); ++h) {
      int64_t k = multiplicity(g, path[h], path[h + 1]);
      // In a tree a chip reaches its leaf through its own NIC only.
      if (isTree(g) && (!g.isSwitch(path[h]) || !g.isSwitch(path[h + 1])))
        k = std::min<int64_t>(k, 1);
      bottleneck =
          std::min(bottleneck, static_cast<double>(k) * g.shape.linkBandwidth);
    }
    t.bandwidthSeconds = bytes / bottleneck;
    t.latencySeconds = p.interNodeAlpha + routeHopLatency(g, path, p);
    t.algorithm = "route";
  }
  t.seconds = t.bandwidthSeconds + t.latencySeconds;
  return t;
}

} // namespace plexus::fabric
