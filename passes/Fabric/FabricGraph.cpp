//===- FabricGraph.cpp - The inter-node network as an implicit graph ------===//
//
// RailX is the Cartesian product of its row graph and its column graph (all
// rows carry the same circuits, all columns too), so distances, routes and
// the diameter come from two small per-dimension tables. Tori are products
// of rings. Trees are computed from leaf and pod arithmetic. Nothing here
// allocates per link.
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/FabricGraph.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace plexus::fabric {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Slots of a dimension: the decomposition's cycles, then (undirected even
/// n) its matching. Directed: both orientations of the K_n cycles, in the
/// order C0, reverse C0, C1, ... (n-1 slots for odd n, which is all of
/// K*_n; n-2 for even n). Only when the rails need more than that (even
/// n, rails >= n-1) is the searched K*_n decomposition used; if the search
/// gives up (or n is 4 or 6) the orientations are kept and rails repeat.
std::vector<RailCircuit> railSlots(int32_t n, bool directed, int32_t rails) {
  std::vector<RailCircuit> slots;
  if (n < 2)
    return slots;
  if (directed && n == 2) {
    slots.push_back({RailCircuit::Kind::Cycle, {0, 1}});
    return slots;
  }
  if (directed && n % 2 == 0 && rails >= n - 1) {
    DecompositionResult r = decomposeCompleteDirected(n);
    if (r.ok()) {
      for (const auto &c : r.decomposition.cycles)
        slots.push_back({RailCircuit::Kind::Cycle, c});
      return slots;
    }
  }
  DecompositionResult u = decomposeComplete(n);
  for (const auto &c : u.decomposition.cycles) {
    slots.push_back({RailCircuit::Kind::Cycle, c});
    if (directed)
      slots.push_back({RailCircuit::Kind::Cycle,
                       std::vector<int32_t>(c.rbegin(), c.rend())});
  }
  if (!directed && !u.decomposition.matching.empty()) {
    RailCircuit m{RailCircuit::Kind::Matching, {}};
    for (auto [a, b] : u.decomposition.matching) {
      m.ring.push_back(a);
      m.ring.push_back(b);
    }
    slots.push_back(std::move(m));
  }
  return slots;
}

} // namespace

RailDimension buildRailDimension(int32_t size, int32_t rails, bool directed) {
  RailDimension d;
  d.size = size;
  d.rails = rails;
  d.directed = directed;
  if (size < 1)
    return d;
  const size_t n = size;
  d.links.assign(n * n, 0);
  std::vector<RailCircuit> slots = railSlots(size, directed, rails);
  for (int32_t r = 0; r < rails && !slots.empty(); ++r) {
    const RailCircuit &c = slots[r % slots.size()];
    d.circuits.push_back(c);
    if (c.kind == RailCircuit::Kind::Matching) {
      // Both transceivers of each node on this rail go to its partner.
      for (size_t i = 0; i + 1 < c.ring.size(); i += 2) {
        d.links[c.ring[i] * n + c.ring[i + 1]] += 2;
        d.links[c.ring[i + 1] * n + c.ring[i]] += 2;
      }
      continue;
    }
    for (size_t i = 0; i < c.ring.size(); ++i) {
      int32_t a = c.ring[i], b = c.ring[(i + 1) % c.ring.size()];
      d.links[a * n + b] += 1;
      if (!directed)
        d.links[b * n + a] += 1;
    }
  }
  // All-pairs BFS: size^2 entries, size BFS runs of size^2 work each.
  d.hops.assign(n * n, -1);
  d.next.assign(n * n, -1);
  std::vector<int32_t> queue(n);
  for (size_t s = 0; s < n; ++s) {
    int32_t *h = &d.hops[s * n];
    int32_t *first = &d.next[s * n];
    h[s] = 0;
    first[s] = static_cast<int32_t>(s);
    size_t head = 0, tail = 0;
    queue[tail++] = static_cast<int32_t>(s);
    while (head < tail) {
      int32_t u = queue[head++];
      for (size_t w = 0; w < n; ++w)
        if (d.links[u * n + w] > 0 && h[w] < 0) {
          h[w] = h[u] + 1;
          first[w] =
              u == static_cast<int32_t>(s) ? static_cast<int32_t>(w) : first[u];
          queue[tail++] = static_cast<int32_t>(w);
        }
    }
  }
  d.diameter = 0;
  for (int32_t h : d.hops) {
    if (h < 0) {
      d.diameter = -1;
      break;
    }
    d.diameter = std::max(d.diameter, h);
  }
  return d;
}

FabricBuildResult FabricGraph::build(const TopologyShape &t, int64_t n,
                                     int64_t cpn) {
  *this = FabricGraph();
  FabricBuildResult result;
  result.problems = checkTopologyShape(t, n, cpn);
  if (t.kind == TopologyKind::RailX && result.problems.empty()) {
    if (t.rows > kMaxDecompositionOrder || t.cols > kMaxDecompositionOrder)
      result.problems.push_back(
          {"rows", "railx rows and cols must be at most " +
                       std::to_string(kMaxDecompositionOrder) + ", got " +
                       std::to_string(t.rows) + " x " +
                       std::to_string(t.cols)});
    if (t.rails > std::numeric_limits<int32_t>::max() / 4)
      result.problems.push_back(
          {"rails", "railx rails too large: " + std::to_string(t.rails)});
  }
  if (!result.ok())
    return result;
  shape = t;
  nodes = n;
  chipsPerNode = cpn;
  switch (t.kind) {
  case TopologyKind::RailX:
    row = buildRailDimension(static_cast<int32_t>(t.cols),
                             static_cast<int32_t>(t.rails), t.directed);
    col = buildRailDimension(static_cast<int32_t>(t.rows),
                             static_cast<int32_t>(t.rails), t.directed);
    break;
  case TopologyKind::Torus:
    break;
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized: {
    tiers = topologyEffectiveTiers(t);
    half = t.radix / 2;
    downlinks = topologyLeafDownlinks(t);
    if (t.kind == TopologyKind::FatTree) {
      leafSlots = ceilDiv(n * cpn, downlinks);
    } else {
      leavesPerRail = topologyLeafSwitches(t) / t.rails;
      leafSlots = t.rails * leavesPerRail;
    }
    if (tiers == 2) {
      spineCount = half;
    } else {
      pods = ceilDiv(leafSlots, half);
      spineCount = pods * half;
      coreCount = half * half;
    }
    break;
  }
  }
  return result;
}

int64_t FabricGraph::vertexCount() const {
  return nodes + leafSlots + spineCount + coreCount;
}

namespace {

/// Leaf slots that node v's chips attach to, with the chips on each.
void nodeLeaves(const FabricGraph &g, int64_t v,
                std::vector<std::pair<int64_t, int64_t>> &out) {
  out.clear();
  if (g.shape.kind == TopologyKind::FatTree) {
    int64_t lo = v * g.chipsPerNode, hi = lo + g.chipsPerNode; // endpoints
    for (int64_t leaf = lo / g.downlinks; leaf * g.downlinks < hi; ++leaf) {
      int64_t from = std::max(lo, leaf * g.downlinks);
      int64_t to = std::min(hi, (leaf + 1) * g.downlinks);
      out.emplace_back(leaf, to - from);
    }
    return;
  }
  for (int64_t c = 0; c < g.chipsPerNode; ++c)
    out.emplace_back(c * g.leavesPerRail + v / g.downlinks, 1);
}

int64_t podOf(const FabricGraph &g, int64_t leaf) { return leaf / g.half; }

/// Tree hops between two leaves, counting the two node cables too.
int64_t treeHopsViaLeaves(const FabricGraph &g, int64_t la, int64_t lb) {
  if (la == lb)
    return 2;
  if (g.tiers == 2 || podOf(g, la) == podOf(g, lb))
    return 4;
  return 6;
}

int64_t torusCoord(const std::vector<int64_t> &dims, int64_t v, size_t i,
                   int64_t &stride) {
  stride = 1;
  for (size_t j = dims.size(); j-- > i + 1;)
    stride *= dims[j];
  return (v / stride) % dims[i];
}

int64_t ringHops(int64_t x, int64_t y, int64_t d) {
  int64_t diff = x > y ? x - y : y - x;
  return std::min(diff, d - diff);
}

} // namespace

void FabricGraph::forEachNeighbor(
    int64_t v, const std::function<void(int64_t, int64_t)> &f) const {
  switch (shape.kind) {
  case TopologyKind::RailX: {
    int64_t r = v / shape.cols, c = v % shape.cols;
    for (int64_t w = 0; w < shape.cols; ++w)
      if (int32_t k = row.links[c * shape.cols + w])
        f(r * shape.cols + w, k);
    for (int64_t w = 0; w < shape.rows; ++w)
      if (int32_t k = col.links[r * shape.rows + w])
        f(w * shape.cols + c, k);
    return;
  }
  case TopologyKind::Torus: {
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      int64_t d = shape.dims[i], stride = 1;
      int64_t x = torusCoord(shape.dims, v, i, stride);
      if (d == 2) {
        f(v + ((x == 0 ? 1 : 0) - x) * stride, 1);
      } else if (d >= 3) {
        f(v + (((x + 1) % d) - x) * stride, 1);
        f(v + (((x + d - 1) % d) - x) * stride, 1);
      }
    }
    return;
  }
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized:
    break;
  }
  // Trees.
  const int64_t leafBase = nodes, upBase = nodes + leafSlots,
                coreBase = upBase + spineCount;
  if (v < nodes) {
    std::vector<std::pair<int64_t, int64_t>> leaves;
    nodeLeaves(*this, v, leaves);
    for (auto [leaf, k] : leaves)
      f(leafBase + leaf, k);
    return;
  }
  if (v < upBase) {
    int64_t leaf = v - leafBase;
    if (shape.kind == TopologyKind::FatTree) {
      int64_t lo = leaf * downlinks,
              hi = std::min(nodes * chipsPerNode, lo + downlinks);
      for (int64_t node = lo / chipsPerNode; node * chipsPerNode < hi; ++node) {
        int64_t from = std::max(lo, node * chipsPerNode);
        int64_t to = std::min(hi, (node + 1) * chipsPerNode);
        f(node, to - from);
      }
    } else {
      int64_t q = leaf % leavesPerRail;
      for (int64_t node = q * downlinks;
           node < std::min(nodes, (q + 1) * downlinks); ++node)
        f(node, 1);
    }
    if (tiers == 2)
      for (int64_t s = 0; s < spineCount; ++s)
        f(upBase + s, 1);
    else
      for (int64_t a = 0; a < half; ++a)
        f(upBase + podOf(*this, leaf) * half + a, 1);
    return;
  }
  if (v < coreBase) {
    int64_t s = v - upBase;
    if (tiers == 2) {
      for (int64_t leaf = 0; leaf < leafSlots; ++leaf)
        f(leafBase + leaf, 1);
      return;
    }
    int64_t pod = s / half, a = s % half;
    for (int64_t leaf = pod * half;
         leaf < std::min(leafSlots, (pod + 1) * half); ++leaf)
      f(leafBase + leaf, 1);
    for (int64_t t = 0; t < half; ++t)
      f(coreBase + a * half + t, 1);
    return;
  }
  int64_t a = (v - coreBase) / half;
  for (int64_t pod = 0; pod < pods; ++pod)
    f(upBase + pod * half + a, 1);
}

int64_t FabricGraph::linkHops(int64_t a, int64_t b) const {
  if (a < 0 || b < 0 || a >= nodes || b >= nodes)
    return -1;
  if (a == b)
    return 0;
  switch (shape.kind) {
  case TopologyKind::RailX: {
    int64_t ra = a / shape.cols, ca = a % shape.cols;
    int64_t rb = b / shape.cols, cb = b % shape.cols;
    int64_t h1 = row.hops[ca * shape.cols + cb];
    int64_t h2 = col.hops[ra * shape.rows + rb];
    return h1 < 0 || h2 < 0 ? -1 : h1 + h2;
  }
  case TopologyKind::Torus: {
    int64_t hops = 0;
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      int64_t stride;
      int64_t x = torusCoord(shape.dims, a, i, stride);
      int64_t y = torusCoord(shape.dims, b, i, stride);
      hops += ringHops(x, y, shape.dims[i]);
    }
    return hops;
  }
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized:
    break;
  }
  std::vector<std::pair<int64_t, int64_t>> la, lb;
  nodeLeaves(*this, a, la);
  nodeLeaves(*this, b, lb);
  int64_t best = std::numeric_limits<int64_t>::max();
  for (auto [x, kx] : la)
    for (auto [y, ky] : lb)
      best = std::min(best, treeHopsViaLeaves(*this, x, y));
  return best;
}

std::vector<int64_t> FabricGraph::route(int64_t a, int64_t b) const {
  std::vector<int64_t> path;
  if (linkHops(a, b) < 0)
    return path;
  path.push_back(a);
  if (a == b)
    return path;
  switch (shape.kind) {
  case TopologyKind::RailX: {
    const int64_t cols = shape.cols, rows = shape.rows;
    int64_t r = a / cols, c = a % cols;
    int64_t rb = b / cols, cb = b % cols;
    while (c != cb) { // along the row first
      c = row.next[c * cols + cb];
      path.push_back(r * cols + c);
    }
    while (r != rb) {
      r = col.next[r * rows + rb];
      path.push_back(r * cols + c);
    }
    return path;
  }
  case TopologyKind::Torus: {
    int64_t v = a;
    for (size_t i = 0; i < shape.dims.size(); ++i) {
      int64_t d = shape.dims[i], stride;
      int64_t x = torusCoord(shape.dims, v, i, stride);
      int64_t y = torusCoord(shape.dims, b, i, stride);
      int64_t forward = (y - x + d) % d;
      int64_t step = forward <= d - forward ? 1 : d - 1; // ties go forward
      while (x != y) {
        int64_t nx = (x + step) % d;
        v += (nx - x) * stride;
        x = nx;
        path.push_back(v);
      }
    }
    return path;
  }
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized:
    break;
  }
  // Trees: the first leaf pair (in node-leaf order) that gives the fewest
  // hops, then switch (a + b) mod choices above it.
  std::vector<std::pair<int64_t, int64_t>> la, lb;
  nodeLeaves(*this, a, la);
  nodeLeaves(*this, b, lb);
  int64_t best = std::numeric_limits<int64_t>::max(), x = 0, y = 0;
  for (auto [p, kp] : la)
    for (auto [q, kq] : lb) {
      int64_t h = treeHopsViaLeaves(*this, p, q);
      if (h < best) {
        best = h;
        x = p;
        y = q;
      }
    }
  const int64_t leafBase = nodes, upBase = nodes + leafSlots,
                coreBase = upBase + spineCount;
  int64_t pick = (a + b) % half;
  path.push_back(leafBase + x);
  if (best == 4) {
    path.push_back(tiers == 2 ? upBase + pick
                              : upBase + podOf(*this, x) * half + pick);
    path.push_back(leafBase + y);
  } else if (best == 6) {
    int64_t core = pick * half + ((a + b) / half) % half;
    path.push_back(upBase + podOf(*this, x) * half + pick);
    path.push_back(coreBase + core);
    path.push_back(upBase + podOf(*this, y) * half + pick);
    path.push_back(leafBase + y);
  }
  path.push_back(b);
  return path;
}

int64_t FabricGraph::diameter() const {
  if (nodes <= 1)
    return 0;
  switch (shape.kind) {
  case TopologyKind::RailX:
    if (row.diameter < 0 || col.diameter < 0)
      return -1;
    return row.diameter + col.diameter;
  case TopologyKind::Torus: {
    int64_t d = 0;
    for (int64_t e : shape.dims)
      d += e / 2;
    return d;
  }
  case TopologyKind::FatTree:
    // Leaf and pod ranges grow with the node index, so the first and the
    // last node are (one of) the farthest pairs.
    return linkHops(0, nodes - 1);
  case TopologyKind::RailOptimized: {
    // Nodes with the same v / downlinks share all their leaves: compare one
    // representative per leaf position.
    int64_t groups = ceilDiv(nodes, downlinks), worst = 0;
    for (int64_t p = 0; p < groups; ++p)
      for (int64_t q = p + 1; q < groups; ++q) {
        worst = std::max(worst, linkHops(p * downlinks, q * downlinks));
        if (worst == 6)
          return worst;
      }
    return groups > 1 ? worst : 2;
  }
  }
  return -1;
}

double FabricGraph::injectionBandwidthPerNode() const {
  const double b = shape.linkBandwidth;
  switch (shape.kind) {
  case TopologyKind::RailX: {
    int64_t out = 0;
    for (int32_t w = 0; w < row.size; ++w)
      out += row.links[w]; // position 0's out-links; every node is alike
    for (int32_t w = 0; w < col.size; ++w)
      out += col.links[w];
    return b * static_cast<double>(out);
  }
  case TopologyKind::Torus: {
    int64_t degree = 0;
    for (int64_t d : shape.dims)
      degree += d >= 3 ? 2 : d == 2 ? 1 : 0;
    return b * static_cast<double>(degree);
  }
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized:
    return b * static_cast<double>(chipsPerNode); // one NIC port per chip
  }
  return 0;
}

namespace {

/// Arcs from positions [0, size/2) to [size/2, size) of one dimension.
int64_t dimensionCut(const RailDimension &d) {
  int64_t cut = 0, h = d.size / 2;
  for (int64_t a = 0; a < h; ++a)
    for (int64_t w = h; w < d.size; ++w)
      cut += d.links[a * d.size + w];
  return cut;
}

/// Links across the middle of a tree with `endpoints` endpoints on `leaves`
/// leaves (one direction): the smaller of half the endpoints, the uplinks of
/// half the leaves and (3 tiers) the core links of half the pods.
int64_t treeCut(int64_t endpoints, int64_t leaves, int64_t half,
                int64_t tiers) {
  int64_t cut = endpoints / 2;
  if (leaves > 1)
    cut = std::min(cut, (leaves / 2) * half);
  int64_t pods = ceilDiv(leaves, half);
  if (tiers == 3 && pods > 1)
    cut = std::min(cut, (pods / 2) * half * half);
  return cut;
}

} // namespace

double FabricGraph::bisectionBandwidth() const {
  const double b = shape.linkBandwidth;
  if (nodes <= 1)
    return 0;
  switch (shape.kind) {
  case TopologyKind::RailX: {
    // Split the grid through the middle of its rows (each row's cut) or of
    // its columns; report the smaller of the two.
    double best = std::numeric_limits<double>::infinity();
    if (shape.cols >= 2)
      best = std::min(best, static_cast<double>(shape.rows) *
                                static_cast<double>(dimensionCut(row)));
    if (shape.rows >= 2)
      best = std::min(best, static_cast<double>(shape.cols) *
                                static_cast<double>(dimensionCut(col)));
    return b * best;
  }
  case TopologyKind::Torus: {
    int64_t largest = *std::max_element(shape.dims.begin(), shape.dims.end());
    int64_t crossing = largest >= 3 ? 2 : largest == 2 ? 1 : 0;
    return b * static_cast<double>(crossing * (nodes / largest));
  }
  case TopologyKind::FatTree: {
    int64_t endpoints = nodes * chipsPerNode;
    return b * static_cast<double>(treeCut(
                   endpoints, ceilDiv(endpoints, downlinks), half, tiers));
  }
  case TopologyKind::RailOptimized:
    // Inter-node traffic stays on its rail: each rail is one tree over one
    // chip per node.
    return b * static_cast<double>(chipsPerNode) *
           static_cast<double>(
               treeCut(nodes, ceilDiv(nodes, downlinks), half, tiers));
  }
  return 0;
}

int64_t FabricGraph::linkCount() const {
  switch (shape.kind) {
  case TopologyKind::RailX: {
    auto total = [](const RailDimension &d) {
      int64_t sum = 0;
      for (int32_t k : d.links)
        sum += k;
      return d.directed ? sum : sum / 2;
    };
    return shape.rows * total(row) + shape.cols * total(col);
  }
  case TopologyKind::Torus: {
    int64_t links = 0;
    for (int64_t d : shape.dims)
      links += (d >= 3 ? nodes : d == 2 ? nodes / 2 : 0);
    return links;
  }
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized:
    break;
  }
  int64_t endpoints = nodes * chipsPerNode;
  int64_t usedLeaves = shape.kind == TopologyKind::FatTree
                           ? leafSlots
                           : chipsPerNode * ceilDiv(nodes, downlinks);
  int64_t links = endpoints + usedLeaves * half;
  if (tiers == 3) {
    // Aggregate-to-core links of pods that hold a used leaf.
    int64_t usedPods = 0;
    for (int64_t pod = 0; pod < pods; ++pod) {
      bool used = false;
      for (int64_t leaf = pod * half; leaf < (pod + 1) * half && !used; ++leaf)
        used = shape.kind == TopologyKind::FatTree
                   ? leaf < leafSlots
                   : leaf % leavesPerRail < ceilDiv(nodes, downlinks);
      usedPods += used;
    }
    links += usedPods * half * half;
  }
  return links;
}

std::vector<int64_t> bfsHops(const FabricGraph &g, int64_t source) {
  std::vector<int64_t> hops(g.vertexCount(), -1);
  if (source < 0 || source >= g.vertexCount())
    return hops;
  std::deque<int64_t> queue{source};
  hops[source] = 0;
  while (!queue.empty()) {
    int64_t u = queue.front();
    queue.pop_front();
    g.forEachNeighbor(u, [&](int64_t w, int64_t) {
      if (hops[w] < 0) {
        hops[w] = hops[u] + 1;
        queue.push_back(w);
      }
    });
  }
  return hops;
}

} // namespace plexus::fabric
