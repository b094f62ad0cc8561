//===- TopologyShape.h - Compact topology parameters and sizing -*- C++ -*-===//
//
// The compact description of an inter-node topology as a .plx fabric states
// it, and the sizing rules that tie it to the node count. Plain C++: the
// frontend's semantic pass and the plx dialect's verifiers share these rules.
// Modelling choices: docs/railx.md (RailX) and docs/language.md (fields).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_TOPOLOGYSHAPE_H
#define PLEXUS_DIALECTS_COMMON_TOPOLOGYSHAPE_H

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::fabric {

enum class TopologyKind { RailX, FatTree, RailOptimized, Torus };

/// Name as written in .plx: "railx", "fat_tree", "rail_optimized", "torus".
const char *topologyKindName(TopologyKind kind);

struct TopologyShape {
  TopologyKind kind = TopologyKind::FatTree;
  double linkBandwidth = 0; // bytes/s of one inter-node link, one direction

  // railx: nodes on a rows x cols grid; each node has `rails` optical ports
  // per grid dimension; each rail of a row (column) is one OCS whose
  // circuits form one Hamiltonian cycle over that row's (column's) nodes.
  int64_t rows = 0, cols = 0, rails = 0;
  bool directed = false; // rails used one way (K*_n) instead of both (K_n)

  // fat_tree: k-port switches, 2 or 3 tiers, oversubscription at the leaf.
  // rail_optimized: `rails` leaf groups (one per chip index in a node) plus
  // a spine; radix is the leaf switch radix.
  int64_t radix = 0, tiers = 0;
  double oversubscription = 1.0;

  // torus: node grid extents (2 or 3 dimensions).
  std::vector<int64_t> dims;
};

/// One violated sizing rule: the field it is about and a message.
struct TopologyProblem {
  std::string field;
  std::string message;
};

/// Endpoints (NIC ports) a topology can attach, given the node count and
/// chips per node; used for the fat-tree / rail-optimized capacity rule.
///   fat_tree:       leaves * downlinks  (k * floor(o*k/2) for 2 tiers,
///                   k^2/2 * floor(o*k/2) for 3 tiers)
///   rail_optimized: rails * floor(leaves / rails) * downlinks (the tree's
///                   leaves split evenly among the rails; a chip attaches to
///                   a leaf of its own rail)
///   railx:          rows * cols (one grid position per node)
///   torus:          product of dims
/// 0 when the shape's own fields are invalid; saturates at INT64_MAX.
int64_t topologyEndpointCapacity(const TopologyShape &t);

/// Parses a .plx topology name ("railx", "fat_tree", "rail_optimized",
/// "torus"); false when the name is none of them.
bool parseTopologyKind(const std::string &name, TopologyKind &kind);

/// Switch tiers of a fat_tree / rail_optimized fabric: `tiers`, except that
/// rail_optimized with tiers == 0 means the default leaf + spine (2).
int64_t topologyEffectiveTiers(const TopologyShape &t);

/// Leaf switches of the full k-ary tree with `tiers` tiers: k (2 tiers) or
/// k^2/2 (3 tiers); 0 when radix or tiers are invalid. Saturates at INT64_MAX.
int64_t topologyLeafSwitches(const TopologyShape &t);

/// Endpoint ports of one leaf switch: floor(oversubscription * radix / 2).
/// The leaf keeps radix/2 uplinks; oversubscription o >= 1 widens its down
/// side to o * radix/2 ports (a leaf of radix (1+o)*radix/2). o = 1 is the
/// non-blocking tree, which gives the textbook k^2/2 and k^3/4 endpoints.
int64_t topologyLeafDownlinks(const TopologyShape &t);

/// Rules: positive sizes; railx rows*cols == nodes; torus product == nodes
/// and 2-3 dims; fat_tree tiers in {2,3}, even radix, capacity >= nodes *
/// chipsPerNode; rail_optimized rails == chipsPerNode; linkBandwidth > 0.
std::vector<TopologyProblem>
checkTopologyShape(const TopologyShape &t, int64_t nodes, int64_t chipsPerNode);

} // namespace plexus::fabric

#endif // PLEXUS_DIALECTS_COMMON_TOPOLOGYSHAPE_H
