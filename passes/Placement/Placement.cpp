//===- Placement.cpp - Plan groups onto fabric chips, circuit table -------===//
//
// Algorithm and every choice: docs/placement.md.
//
//===----------------------------------------------------------------------===//
#include "passes/Placement/Placement.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace plexus::placement {

using fabric::FabricGraph;
using fabric::RailCircuit;
using fabric::RailDimension;
using fabric::TopologyKind;

const char *commKindName(CommKind kind) {
  switch (kind) {
  case CommKind::AllToAll:
    return "all_to_all";
  case CommKind::Ring:
    return "ring";
  case CommKind::Pipeline:
    return "pipeline";
  }
  return "?";
}

const char *ocsAxisName(OcsAxis axis) {
  return axis == OcsAxis::Row ? "row" : "col";
}

bool isPermutation(const std::vector<int64_t> &perm) {
  std::vector<char> seen(perm.size(), 0);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[p])
      return false;
    seen[p] = 1;
  }
  return true;
}

namespace {

PlacementError makeError(std::string job, std::string comm, int64_t needed,
                         int64_t available, std::string message) {
  PlacementError e;
  e.job = std::move(job);
  e.communicator = std::move(comm);
  e.needed = needed;
  e.available = available;
  e.message = std::move(message);
  return e;
}

/// One OCS's configuration after bypassing failed ports, in positions.
struct Surviving {
  bool matching = false;
  std::vector<int32_t> pos;      ///< cycle order, or pairs when matching
  std::vector<int32_t> bypassed; ///< positions whose port failed
};

/// Everything the placement reads about the fabric, faults applied.
class HealthyFabric {
public:
  HealthyFabric(const FabricGraph &g, const Faults &f) : g(g) {
    for (const FailedPort &p : f.ports)
      ports.insert(
          {p.axis == OcsAxis::Row ? 0 : 1, p.index, p.rail, p.position});
    for (const fabric::FailedLink &l : f.links)
      links.insert({std::min(l.a, l.b), std::max(l.a, l.b)});
    networkFaults = !ports.empty() || !links.empty();
  }

  const FabricGraph &g;
  std::set<std::tuple<int, int64_t, int64_t, int64_t>> ports;
  std::set<std::pair<int64_t, int64_t>> links;
  bool networkFaults = false;

  bool railx() const { return g.shape.kind == TopologyKind::RailX; }
  int64_t rows() const { return g.shape.rows; }
  int64_t cols() const { return g.shape.cols; }
  int64_t rails() const { return g.shape.rails; }
  const RailDimension &dim(OcsAxis a) const {
    return a == OcsAxis::Row ? g.row : g.col;
  }
  /// Node at `position` along row / column `index`.
  int64_t nodeAt(OcsAxis a, int64_t index, int64_t position) const {
    return a == OcsAxis::Row ? index * cols() + position
                             : position * cols() + index;
  }
  bool linkFailed(int64_t a, int64_t b) const {
    return links.count({std::min(a, b), std::max(a, b)}) != 0;
  }

  Surviving surviving(OcsAxis a, int64_t index, int64_t rail) const {
    const RailDimension &d = dim(a);
    Surviving s;
    auto failed = [&](int32_t p) {
      return ports.count({a == OcsAxis::Row ? 0 : 1, index, rail, p}) != 0;
    };
    for (int32_t p = 0; p < d.size; ++p)
      if (failed(p))
        s.bypassed.push_back(p);
    if (rail < 0 || rail >= static_cast<int64_t>(d.circuits.size())) {
      for (int32_t p = 0; p < d.size; ++p) // n = 1: the lone node
        if (!failed(p))
          s.pos.push_back(p);
      return s;
    }
    const RailCircuit &c = d.circuits[rail];
    s.matching = c.kind == RailCircuit::Kind::Matching;
    if (s.matching) {
      for (size_t i = 0; i + 1 < c.ring.size(); i += 2)
        if (!failed(c.ring[i]) && !failed(c.ring[i + 1])) {
          s.pos.push_back(c.ring[i]);
          s.pos.push_back(c.ring[i + 1]);
        }
      return s;
    }
    for (int32_t p : c.ring)
      if (!failed(p))
        s.pos.push_back(p);
    return s;
  }

  /// Directed one-hop steps (position pairs) an OCS configuration carries.
  std::vector<std::pair<int32_t, int32_t>> steps(const Surviving &s) const {
    std::vector<std::pair<int32_t, int32_t>> out;
    if (s.matching) {
      for (size_t i = 0; i + 1 < s.pos.size(); i += 2) {
        out.push_back({s.pos[i], s.pos[i + 1]});
        out.push_back({s.pos[i + 1], s.pos[i]});
      }
      return out;
    }
    const size_t m = s.pos.size();
    if (m < 2)
      return out;
    for (size_t i = 0; i < m; ++i) {
      int32_t x = s.pos[i], y = s.pos[(i + 1) % m];
      if (m == 2 && i == 1)
        break;
      out.push_back({x, y});
      if (!g.shape.directed || m == 2)
        out.push_back({y, x});
    }
    return out;
  }

  /// adj[a * n + b]: some healthy rail of row/column `index` goes a -> b.
  const std::vector<char> &adjacency(OcsAxis a, int64_t index) {
    auto key = std::make_pair(a == OcsAxis::Row ? 0 : 1, index);
    auto it = adjCache.find(key);
    if (it != adjCache.end())
      return it->second;
    const int64_t n = dim(a).size;
    std::vector<char> adj(n * n, 0);
    for (int64_t r = 0; r < rails(); ++r)
      for (auto [x, y] : steps(surviving(a, index, r)))
        if (!linkFailed(nodeAt(a, index, x), nodeAt(a, index, y)))
          adj[x * n + y] = 1;
    return adjCache.emplace(key, std::move(adj)).first->second;
  }

  /// Healthy inter-node hops from `src` to every node (-1: unreachable).
  const std::vector<int64_t> &hopsFrom(int64_t src) {
    auto it = hopCache.find(src);
    if (it != hopCache.end())
      return it->second;
    std::vector<int64_t> h(g.nodes, -1);
    if (!networkFaults) {
      for (int64_t v = 0; v < g.nodes; ++v)
        h[v] = g.linkHops(src, v);
    } else if (railx()) {
      std::vector<int64_t> queue{src};
      h[src] = 0;
      for (size_t head = 0; head < queue.size(); ++head) {
        int64_t u = queue[head], r = u / cols(), c = u % cols();
        const std::vector<char> &ra = adjacency(OcsAxis::Row, r);
        for (int64_t c2 = 0; c2 < cols(); ++c2)
          if (ra[c * cols() + c2] && h[r * cols() + c2] < 0) {
            h[r * cols() + c2] = h[u] + 1;
            queue.push_back(r * cols() + c2);
          }
        const std::vector<char> &ca = adjacency(OcsAxis::Col, c);
        for (int64_t r2 = 0; r2 < rows(); ++r2)
          if (ca[r * rows() + r2] && h[r2 * cols() + c] < 0) {
            h[r2 * cols() + c] = h[u] + 1;
            queue.push_back(r2 * cols() + c);
          }
      }
    } else {
      // Generic BFS over all vertices; a failed node pair is a dead link.
      std::vector<int64_t> all(g.vertexCount(), -1);
      std::vector<int64_t> queue{src};
      all[src] = 0;
      for (size_t head = 0; head < queue.size(); ++head) {
        int64_t u = queue[head];
        g.forEachNeighbor(u, [&](int64_t w, int64_t n) {
          if (n <= 0 || all[w] >= 0)
            return;
          if (!g.isSwitch(u) && !g.isSwitch(w) && linkFailed(u, w))
            return;
          all[w] = all[u] + 1;
          queue.push_back(w);
        });
      }
      for (int64_t v = 0; v < g.nodes; ++v)
        h[v] = all[v];
    }
    return hopCache.emplace(src, std::move(h)).first->second;
  }

  int64_t hops(int64_t a, int64_t b) {
    if (a == b)
      return 0;
    if (!networkFaults)
      return g.linkHops(a, b);
    return hopsFrom(a)[b];
  }

  /// Locality domain of a node below the whole fabric (non-RailX):
  /// fat_tree: the leaf of its first chip; rail_optimized: leaf position;
  /// torus: the line along the last dimension.
  int64_t domain(int64_t node, int level) const {
    switch (g.shape.kind) {
    case TopologyKind::FatTree: {
      int64_t leaf = g.downlinks > 0 ? node * g.chipsPerNode / g.downlinks : 0;
      return level == 0 ? leaf : (g.half > 0 ? leaf / g.half : 0);
    }
    case TopologyKind::RailOptimized:
      return g.downlinks > 0 ? node / g.downlinks : 0;
    case TopologyKind::Torus:
      return g.shape.dims.empty() ? 0 : node / g.shape.dims.back();
    case TopologyKind::RailX:
      return node / std::max<int64_t>(1, cols());
    }
    return 0;
  }
  int domainLevels() const {
    return g.shape.kind == TopologyKind::FatTree && g.tiers == 3 ? 2 : 1;
  }

private:
  std::map<std::pair<int, int64_t>, std::vector<char>> adjCache;
  std::map<int64_t, std::vector<int64_t>> hopCache;
};

/// Places one job against the shared free-chip pool.
class JobPlacer {
public:
  JobPlacer(HealthyFabric &hf, std::vector<std::vector<int64_t>> &freeChips,
            const JobRequest &job)
      : hf(hf), freeChips(freeChips), job(job) {}

  bool run(JobPlacement &out, std::vector<PlacementError> &errors);

private:
  HealthyFabric &hf;
  std::vector<std::vector<int64_t>> &freeChips; // per node, ascending
  const JobRequest &job;
  std::vector<Chip> chips;
  std::vector<char> placed;

  int64_t lastNode = 0; ///< where the last node-sized ring went
  int64_t freeOn(int64_t node) const {
    return static_cast<int64_t>(freeChips[node].size());
  }
  void take(int64_t node, int64_t rank) {
    chips[rank] = {node, freeChips[node].front()};
    freeChips[node].erase(freeChips[node].begin());
    placed[rank] = 1;
  }
  /// Greedy set of nodes from `cands` holding >= k free chips, largest free
  /// first; with `clique`, every pair must be one healthy hop apart both
  /// ways inside `axis`/`index`. Returns the set (empty if it falls short)
  /// and the capacity reached.
  std::vector<int64_t> greedySet(std::vector<int64_t> cands, int64_t k,
                                 bool clique, OcsAxis axis, int64_t index,
                                 int64_t &capacity);
  void fill(std::vector<int64_t> nodes, const std::vector<int64_t> &ranks);
  void placeNear(int64_t rank, int64_t anchor);
  bool placeAllToAll(const CommunicatorRequest &c,
                     std::vector<PlacementError> &errors);
  void placePipeline(const CommunicatorRequest &c);
  void placeSmallRing(const CommunicatorRequest &c);
  bool report(const CommunicatorRequest &c, CommunicatorPlacement &p,
              std::vector<PlacementError> &errors);
  void ringOrder(const CommunicatorRequest &c, CommunicatorPlacement &p);
};

std::vector<int64_t> JobPlacer::greedySet(std::vector<int64_t> cands, int64_t k,
                                          bool clique, OcsAxis axis,
                                          int64_t index, int64_t &capacity) {
  std::stable_sort(cands.begin(), cands.end(),
                   [&](int64_t a, int64_t b) { return freeOn(a) > freeOn(b); });
  std::vector<int64_t> chosen;
  capacity = 0;
  const std::vector<char> *adj = clique ? &hf.adjacency(axis, index) : nullptr;
  const int64_t n = clique ? hf.dim(axis).size : 0;
  auto posOf = [&](int64_t node) {
    return axis == OcsAxis::Row ? node % hf.cols() : node / hf.cols();
  };
  for (int64_t v : cands) {
    if (freeOn(v) == 0)
      continue;
    bool ok = true;
    if (clique)
      for (int64_t u : chosen) {
        int64_t a = posOf(u), b = posOf(v);
        if (!(*adj)[a * n + b] || !(*adj)[b * n + a]) {
          ok = false;
          break;
        }
      }
    if (!ok)
      continue;
    chosen.push_back(v);
    capacity += freeOn(v);
    if (capacity >= k)
      return chosen;
  }
  return {};
}

void JobPlacer::fill(std::vector<int64_t> nodes,
                     const std::vector<int64_t> &ranks) {
  std::sort(nodes.begin(), nodes.end());
  size_t ni = 0;
  for (int64_t r : ranks) {
    while (freeOn(nodes[ni]) == 0)
      ++ni;
    take(nodes[ni], r);
  }
}

void JobPlacer::placeNear(int64_t rank, int64_t anchor) {
  if (freeOn(anchor) > 0)
    return take(anchor, rank);
  const std::vector<int64_t> &h = hf.hopsFrom(anchor);
  int64_t best = -1;
  for (int64_t v = 0; v < hf.g.nodes; ++v)
    if (freeOn(v) > 0 && h[v] >= 0 && (best < 0 || h[v] < h[best]))
      best = v;
  if (best < 0) // nothing reachable: any free chip (reported later)
    for (int64_t v = 0; v < hf.g.nodes && best < 0; ++v)
      if (freeOn(v) > 0)
        best = v;
  take(best, rank);
}

bool JobPlacer::placeAllToAll(const CommunicatorRequest &c,
                              std::vector<PlacementError> &errors) {
  std::vector<int64_t> todo, anchors;
  for (int64_t r : c.ranks)
    (placed[r] ? anchors : todo).push_back(r);
  if (todo.empty())
    return true;
  const int64_t k = static_cast<int64_t>(todo.size());
  if (!anchors.empty()) { // overlapping groups: join the members placed
    for (int64_t r : todo)
      placeNear(r, chips[anchors.front()].node);
    return true;
  }
  const int64_t N = hf.g.nodes;
  for (int64_t v = 0; v < N; ++v) // 1. one node, first fit
    if (freeOn(v) >= k) {
      fill({v}, todo);
      return true;
    }
  if (hf.railx()) { // 2. one row's (then one column's) one-hop reach
    int64_t bestCap = 0;
    for (OcsAxis axis : {OcsAxis::Row, OcsAxis::Col}) {
      const int64_t lines = axis == OcsAxis::Row ? hf.rows() : hf.cols();
      const int64_t len = axis == OcsAxis::Row ? hf.cols() : hf.rows();
      std::vector<int64_t> best;
      for (int64_t i = 0; i < lines; ++i) {
        std::vector<int64_t> cands;
        for (int64_t p = 0; p < len; ++p)
          cands.push_back(hf.nodeAt(axis, i, p));
        int64_t cap = 0;
        std::vector<int64_t> set = greedySet(cands, k, true, axis, i, cap);
        bestCap = std::max(bestCap, cap);
        if (!set.empty() && (best.empty() || set.size() < best.size()))
          best = set;
      }
      if (!best.empty()) {
        fill(best, todo);
        return true;
      }
    }
    errors.push_back(makeError(
        job.name, c.name, k, bestCap,
        "job '" + job.name + "': all-to-all group '" + c.name + "' needs " +
            std::to_string(k) +
            " chips within one RailX row's (or column's) one-hop reach; the "
            "largest such free set holds " +
            std::to_string(bestCap) + " chips (" +
            std::to_string(hf.g.chipsPerNode) + " per node, rows of " +
            std::to_string(hf.cols()) + " nodes, " +
            std::to_string(hf.rails()) + " rails)"));
    return false;
  }
  // 2'. trees / torus: one leaf (line), then one pod, fewest nodes.
  for (int level = 0; level < hf.domainLevels(); ++level) {
    std::map<int64_t, std::vector<int64_t>> groups;
    for (int64_t v = 0; v < N; ++v)
      if (freeOn(v) > 0)
        groups[hf.domain(v, level)].push_back(v);
    std::vector<int64_t> best;
    for (auto &[d, cands] : groups) {
      int64_t cap = 0;
      std::vector<int64_t> set =
          greedySet(cands, k, false, OcsAxis::Row, 0, cap);
      if (!set.empty() && (best.empty() || set.size() < best.size()))
        best = set;
    }
    if (!best.empty()) {
      fill(best, todo);
      return true;
    }
  }
  // 3. anywhere: node order from the first free chip (contiguous).
  for (int64_t r : todo)
    for (int64_t v = 0; v < N; ++v)
      if (freeOn(v) > 0) {
        take(v, r);
        break;
      }
  return true;
}

void JobPlacer::placeSmallRing(const CommunicatorRequest &c) {
  // A ring that fits a node (a tensor group) goes whole onto the first node,
  // after the last one used, with room for it; otherwise it waits for the
  // packing at the end.
  const int64_t k = static_cast<int64_t>(c.ranks.size());
  if (k > hf.g.chipsPerNode)
    return;
  for (int64_t r : c.ranks)
    if (placed[r])
      return;
  for (int64_t i = 0; i < hf.g.nodes; ++i) {
    int64_t v = (lastNode + i) % hf.g.nodes;
    if (freeOn(v) >= k) {
      for (int64_t r : c.ranks)
        take(v, r);
      lastNode = v;
      return;
    }
  }
}

void JobPlacer::placePipeline(const CommunicatorRequest &c) {
  int64_t prev = -1;
  for (int64_t r : c.ranks) {
    if (!placed[r]) {
      if (prev >= 0) {
        placeNear(r, prev);
      } else {
        for (int64_t v = 0; v < hf.g.nodes; ++v)
          if (freeOn(v) > 0) {
            take(v, r);
            break;
          }
      }
    }
    prev = chips[r].node;
  }
}

void JobPlacer::ringOrder(const CommunicatorRequest &c,
                          CommunicatorPlacement &p) {
  // Members per node, each node's members by local chip index.
  std::map<int64_t, std::vector<int64_t>> byNode;
  for (int64_t r : c.ranks)
    byNode[chips[r].node].push_back(r);
  for (auto &[n, rs] : byNode)
    std::sort(rs.begin(), rs.end(), [&](int64_t a, int64_t b) {
      return chips[a].local < chips[b].local;
    });
  std::vector<int64_t> nodes;
  for (auto &[n, rs] : byNode)
    nodes.push_back(n);
  auto emit = [&](const std::vector<int64_t> &order) {
    p.ringOrder.clear();
    for (int64_t n : order)
      for (int64_t r : byNode[n])
        p.ringOrder.push_back(r);
  };
  auto ringHops = [&](const std::vector<int64_t> &order) {
    int64_t worst = 0;
    for (size_t i = 0; i < order.size() && order.size() > 1; ++i) {
      int64_t h = hf.hops(order[i], order[(i + 1) % order.size()]);
      if (h < 0)
        return int64_t(-1);
      worst = std::max(worst, h);
    }
    return worst;
  };
  if (nodes.size() > 1 && hf.railx()) {
    for (OcsAxis axis : {OcsAxis::Row, OcsAxis::Col}) {
      auto lineOf = [&](int64_t v) {
        return axis == OcsAxis::Row ? v / hf.cols() : v % hf.cols();
      };
      auto posOf = [&](int64_t v) {
        return axis == OcsAxis::Row ? v % hf.cols() : v / hf.cols();
      };
      const int64_t line = lineOf(nodes.front());
      if (!std::all_of(nodes.begin(), nodes.end(),
                       [&](int64_t v) { return lineOf(v) == line; }))
        continue;
      std::set<int64_t> member;
      for (int64_t v : nodes)
        member.insert(posOf(v));
      int64_t bestRail = -1, bestHops = -1;
      std::vector<int64_t> bestOrder;
      std::vector<int64_t> oneHopRails;
      for (int64_t r = 0; r < hf.rails(); ++r) {
        Surviving s = hf.surviving(axis, line, r);
        std::vector<int64_t> order;
        if (s.matching) {
          if (nodes.size() != 2)
            continue;
          for (size_t i = 0; i + 1 < s.pos.size(); i += 2)
            if (member.count(s.pos[i]) && member.count(s.pos[i + 1]))
              order = {hf.nodeAt(axis, line, s.pos[i]),
                       hf.nodeAt(axis, line, s.pos[i + 1])};
          if (order.empty())
            continue;
        } else {
          for (int32_t q : s.pos)
            if (member.count(q))
              order.push_back(hf.nodeAt(axis, line, q));
          if (order.size() != nodes.size())
            continue; // a member's port on this rail failed: rail unusable
        }
        // Steps along this rail's own circuit count one hop.
        std::set<std::pair<int64_t, int64_t>> railSteps;
        for (auto [x, y] : hf.steps(s))
          railSteps.insert(
              {hf.nodeAt(axis, line, x), hf.nodeAt(axis, line, y)});
        int64_t worst = 0;
        bool reach = true, allOnRail = true;
        for (size_t i = 0; i < order.size(); ++i) {
          int64_t a = order[i], b = order[(i + 1) % order.size()];
          int64_t h;
          if (railSteps.count({a, b}) && !hf.linkFailed(a, b)) {
            h = 1;
          } else {
            allOnRail = false;
            h = hf.hops(a, b);
          }
          if (h < 0) {
            reach = false;
            break;
          }
          worst = std::max(worst, h);
        }
        if (!reach)
          continue;
        if (allOnRail)
          oneHopRails.push_back(r);
        if (bestRail < 0 || worst < bestHops) {
          bestRail = r;
          bestHops = worst;
          bestOrder = order;
        }
      }
      if (bestRail >= 0) {
        emit(bestOrder);
        p.maxHops = bestHops;
        p.axis = axis;
        p.axisIndex = line;
        p.rails = oneHopRails;
        return;
      }
      // No rail carries every member: a cycle over the surviving nodes in
      // position order, hops over the healthy fabric.
      std::vector<int64_t> order;
      for (int64_t q : member)
        order.push_back(hf.nodeAt(axis, line, q));
      emit(order);
      p.maxHops = ringHops(order);
      p.axis = axis;
      p.axisIndex = line;
      return;
    }
  }
  // Several rows / other fabrics: snake (boustrophedon) over RailX rows,
  // node order elsewhere.
  std::vector<int64_t> order = nodes;
  if (hf.railx())
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      int64_t ra = a / hf.cols(), rb = b / hf.cols();
      if (ra != rb)
        return ra < rb;
      int64_t ca = a % hf.cols(), cb = b % hf.cols();
      return ra % 2 == 0 ? ca < cb : ca > cb;
    });
  emit(order);
  p.maxHops = nodes.size() > 1 ? ringHops(order) : 0;
}

bool JobPlacer::report(const CommunicatorRequest &c, CommunicatorPlacement &p,
                       std::vector<PlacementError> &errors) {
  p.name = c.name;
  p.kind = c.kind;
  if (c.kind == CommKind::Ring) {
    ringOrder(c, p);
  } else {
    p.ringOrder = c.ranks;
    int64_t worst = 0;
    if (c.kind == CommKind::Pipeline) {
      for (size_t i = 0; i + 1 < c.ranks.size() && worst >= 0; ++i) {
        int64_t h = hf.hops(chips[c.ranks[i]].node, chips[c.ranks[i + 1]].node);
        worst = h < 0 ? -1 : std::max(worst, h);
      }
    } else {
      std::set<int64_t> nodeSet;
      for (int64_t r : c.ranks)
        nodeSet.insert(chips[r].node);
      for (int64_t a : nodeSet)
        for (int64_t b : nodeSet)
          if (worst >= 0) {
            int64_t h = hf.hops(a, b);
            worst = h < 0 ? -1 : std::max(worst, h);
          }
    }
    p.maxHops = worst;
  }
  if (p.maxHops < 0) {
    errors.push_back(makeError(
        job.name, c.name, -1, -1,
        "job '" + job.name + "': " + commKindName(c.kind) + " group '" +
            c.name + "' has members the failed links / ports disconnect"));
    return false;
  }
  return true;
}

bool JobPlacer::run(JobPlacement &out, std::vector<PlacementError> &errors) {
  const int64_t n = job.rankCount;
  if (n <= 0) {
    errors.push_back(makeError(job.name, "", n, -1,
                               "job '" + job.name + "' has " +
                                   std::to_string(n) + " ranks"));
    return false;
  }
  for (const CommunicatorRequest &c : job.communicators) {
    std::set<int64_t> seen;
    for (int64_t r : c.ranks)
      if (r < 0 || r >= n || !seen.insert(r).second) {
        errors.push_back(makeError(
            job.name, c.name, -1, -1,
            "job '" + job.name + "': group '" + c.name + "' has rank " +
                std::to_string(r) +
                (r < 0 || r >= n ? " outside 0.." + std::to_string(n - 1)
                                 : " twice")));
        return false;
      }
  }
  int64_t healthy = 0;
  for (const auto &f : freeChips)
    healthy += static_cast<int64_t>(f.size());
  if (healthy < n) {
    errors.push_back(makeError(
        job.name, "", n, healthy,
        "job '" + job.name + "' needs " + std::to_string(n) + " chips; only " +
            std::to_string(healthy) + " healthy chips are free"));
    return false;
  }
  chips.assign(n, Chip{-1, -1});
  placed.assign(n, 0);
  for (const CommunicatorRequest &c : job.communicators)
    if (c.kind == CommKind::AllToAll && !placeAllToAll(c, errors))
      return false;
  for (const CommunicatorRequest &c : job.communicators)
    if (c.kind == CommKind::Ring)
      placeSmallRing(c);
  for (const CommunicatorRequest &c : job.communicators)
    if (c.kind == CommKind::Pipeline)
      placePipeline(c);
  for (int64_t r = 0; r < n; ++r) // the rest: packed after rank r-1
    if (!placed[r]) {
      int64_t start = r > 0 ? chips[r - 1].node : 0;
      for (int64_t i = 0; i < hf.g.nodes; ++i) {
        int64_t v = (start + i) % hf.g.nodes;
        if (freeOn(v) > 0) {
          take(v, r);
          break;
        }
      }
    }
  out.name = job.name;
  out.chips = chips;
  for (const CommunicatorRequest &c : job.communicators) {
    CommunicatorPlacement p;
    if (!report(c, p, errors))
      return false;
    out.communicators.push_back(std::move(p));
  }
  return true;
}

/// Fault entries that name nothing in the fabric (the rules the spec's
/// semantic checks apply too: dialects/Common/Faults.h).
void checkFaults(const FabricGraph &g, const Faults &f,
                 std::vector<PlacementError> &errors) {
  for (const fabric::FaultProblem &p :
       fabric::checkFaults(g.shape, g.nodes, g.chipsPerNode, f))
    errors.push_back(makeError("", "", -1, -1, p.message));
}

} // namespace

PlacementResult placeJobs(const FabricGraph &fabric,
                          const std::vector<JobRequest> &jobs,
                          const Faults &faults) {
  PlacementResult result;
  checkFaults(fabric, faults, result.errors);
  if (fabric.nodes <= 0 || fabric.chipsPerNode <= 0)
    result.errors.push_back(
        makeError("", "", -1, -1, "the fabric has no chips (not built?)"));
  if (!result.ok())
    return result;
  std::set<Chip> failed;
  for (const fabric::FailedChip &c : faults.chips)
    failed.insert({c.node, c.local});
  std::vector<std::vector<int64_t>> freeChips(fabric.nodes);
  for (int64_t v = 0; v < fabric.nodes; ++v)
    for (int64_t c = 0; c < fabric.chipsPerNode; ++c)
      if (!failed.count({v, c}))
        freeChips[v].push_back(c);
  HealthyFabric hf(fabric, faults);
  for (const JobRequest &job : jobs) {
    JobPlacement jp;
    JobPlacer placer(hf, freeChips, job);
    if (!placer.run(jp, result.errors)) {
      result.jobs.clear();
      return result;
    }
    result.jobs.push_back(std::move(jp));
  }
  return result;
}

CircuitTableResult buildCircuitTable(const FabricGraph &fabric,
                                     const Faults &faults) {
  CircuitTableResult out;
  if (fabric.shape.kind != TopologyKind::RailX) {
    out.errors.push_back(makeError(
        "", "", -1, -1,
        std::string("circuit tables exist for railx fabrics only, not ") +
            fabric::topologyKindName(fabric.shape.kind)));
    return out;
  }
  Faults portsOnly;
  portsOnly.ports = faults.ports;
  checkFaults(fabric, portsOnly, out.errors);
  if (!out.ok())
    return out;
  HealthyFabric hf(fabric, portsOnly);
  for (OcsAxis axis : {OcsAxis::Row, OcsAxis::Col}) {
    const int64_t lines = axis == OcsAxis::Row ? hf.rows() : hf.cols();
    const int64_t len = hf.dim(axis).size;
    for (int64_t i = 0; i < lines; ++i)
      for (int64_t r = 0; r < hf.rails(); ++r) {
        Surviving s = hf.surviving(axis, i, r);
        CircuitEntry e;
        e.axis = axis;
        e.index = i;
        e.rail = r;
        e.matching = s.matching;
        for (int32_t q : s.pos)
          e.cycle.push_back(hf.nodeAt(axis, i, q));
        for (int32_t q : s.bypassed)
          e.bypassed.push_back(hf.nodeAt(axis, i, q));
        e.portPermutation.resize(len);
        for (int64_t q = 0; q < len; ++q)
          e.portPermutation[q] = q;
        const size_t m = s.pos.size();
        if (s.matching) {
          for (size_t k = 0; k + 1 < m; k += 2) {
            e.portPermutation[s.pos[k]] = s.pos[k + 1];
            e.portPermutation[s.pos[k + 1]] = s.pos[k];
          }
        } else if (m >= 2) {
          for (size_t k = 0; k < m; ++k)
            e.portPermutation[s.pos[k]] = s.pos[(k + 1) % m];
        }
        out.entries.push_back(std::move(e));
      }
  }
  return out;
}

} // namespace plexus::placement
