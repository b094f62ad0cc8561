//===- FabricGraph.h - The inter-node network, implicit ---------*- C++ -*-===//
//
// The fabric of a .plx spec as a graph built from its compact TopologyShape:
// nothing is stored per link, adjacency is computed from the shape, so a
// 100K-chip fabric costs kilobytes. Answers hop distances, shortest routes,
// the diameter, injection and bisection bandwidth. Modelling choices, each a
// parameter of the shape or of FabricOptions: docs/railx.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_FABRIC_FABRICGRAPH_H
#define PLEXUS_PASSES_FABRIC_FABRICGRAPH_H

#include "passes/Fabric/HamiltonianDecomposition.h"
#include "dialects/Common/TopologyShape.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace plexus::fabric {

/// One rail of one RailX row (or column) group: which OCS configuration it
/// carries. All rows share one assignment, and all columns another.
struct RailCircuit {
  enum class Kind { Cycle, Matching, None } kind = Kind::None;
  /// Kind::Cycle: ring order over positions 0..n-1 along the row (column).
  /// Kind::Matching: pairs (ring[2i], ring[2i+1]), each a doubled link.
  std::vector<int32_t> ring;
};

/// The ring graph of one RailX dimension: n positions, R rails.
struct RailDimension {
  int32_t size = 0;  ///< positions (cols for a row, rows for a column)
  int32_t rails = 0; ///< R
  bool directed = false;
  std::vector<RailCircuit> circuits; ///< rail r's circuit (slot r mod S)
  /// links[a*size+b]: parallel links (arcs when directed) from a to b.
  std::vector<int32_t> links;
  /// hops[a*size+b]: shortest hops from a to b inside the dimension, -1 if
  /// unreachable; next[a*size+b]: first hop of one shortest path (the
  /// lowest-numbered neighbour on one). Tables are size^2: fine for the
  /// row and column lengths a RailX grid has (size <= 4096).
  std::vector<int32_t> hops, next;
  int32_t diameter = 0; ///< max hops; -1 if some pair is unreachable
};

/// The graph or the problems that prevent building it.
struct FabricBuildResult {
  std::vector<TopologyProblem> problems; ///< empty on success
  bool ok() const { return problems.empty(); }
};

/// Vertices: nodes 0..nodes-1 first (RailX: node = row * cols + col; torus:
/// mixed radix, last dimension fastest), then switches (trees only): leaves,
/// then spines (2 tiers) or aggregation switches then cores (3 tiers).
/// Memoized equal-cost-multipath shares of tree routes (CollectiveModel.cpp):
/// what a flow between two nodes puts on each cable, computed once per node
/// pair of a built graph.
struct TreeFlowCache;

struct FabricGraph {
  TopologyShape shape;
  int64_t nodes = 0, chipsPerNode = 0;

  // railx
  RailDimension row, col; ///< row: along a row (cols positions); col: down

  // fat_tree / rail_optimized
  int64_t tiers = 0, half = 0; ///< half = radix / 2
  int64_t downlinks = 0;       ///< endpoint ports per leaf
  int64_t leafSlots = 0;       ///< leaf index space (some may be idle)
  int64_t leavesPerRail = 0;   ///< rail_optimized
  int64_t pods = 0;            ///< 3 tiers: leafSlots / half, rounded up
  int64_t spineCount = 0;      ///< 2 tiers: spines; 3 tiers: aggregates
  int64_t coreCount = 0;       ///< 3 tiers

  /// Builds the graph; on problems `*this` is left empty.
  FabricBuildResult build(const TopologyShape &t, int64_t nodes,
                          int64_t chipsPerNode);

  int64_t vertexCount() const;
  bool isSwitch(int64_t v) const { return v >= nodes; }
  /// Calls f(w, links) for every out-neighbour w of v with the number of
  /// parallel links (arcs) from v to w.
  void forEachNeighbor(int64_t v,
                       const std::function<void(int64_t, int64_t)> &f) const;

  /// Links traversed by a shortest path from node a to node b (both nodes):
  /// a node-to-node circuit (through a passive OCS) or a torus link counts
  /// one; in a tree every cable (node-leaf, leaf-spine, ...) counts one.
  /// -1 when b is unreachable from a.
  int64_t linkHops(int64_t a, int64_t b) const;
  /// The vertices of one shortest path from a to b (nodes and switches),
  /// a first, b last; empty when unreachable. Deterministic: RailX and torus
  /// route dimension by dimension (row first); trees go up through the
  /// switch (a + b) mod (choices).
  std::vector<int64_t> route(int64_t a, int64_t b) const;
  /// Largest linkHops over all node pairs; -1 if some pair is unreachable.
  int64_t diameter() const;

  /// Bytes/s one node can send into the fabric at once (all its links).
  double injectionBandwidthPerNode() const;
  /// Bytes/s, one direction, across the cut described in docs/railx.md.
  double bisectionBandwidth() const;
  /// Inter-node links (arcs when directed), counted, not stored.
  int64_t linkCount() const;

  /// Filled on first use by the collective models; build() starts a new one.
  /// Shared by copies of the graph (they are the same fabric).
  mutable std::shared_ptr<TreeFlowCache> treeFlows;
};

/// Breadth-first hop counts from vertex `source` over forEachNeighbor, for
/// every vertex (-1: unreachable). O(vertices + links): for tests and small
/// fabrics; large ones use linkHops.
std::vector<int64_t> bfsHops(const FabricGraph &g, int64_t source);

/// The circuits of one RailX dimension of `size` positions and `rails`
/// rails: rail r carries slot r mod S. Undirected: the slots are the K_n
/// cycles, then (even n) the perfect matching as doubled links. Directed:
/// both orientations of the K_n cycles (C0, reverse C0, C1, ...), which is
/// all of K*_n for odd n; for even n with rails >= n-1 the searched K*_n
/// decomposition instead (kept as orientations for n = 4, 6 or if the
/// search gives up). n = 2: one link pair; n = 1: no links.
RailDimension buildRailDimension(int32_t size, int32_t rails, bool directed);

} // namespace plexus::fabric

#endif // PLEXUS_PASSES_FABRIC_FABRICGRAPH_H
