//===- NetworkCost.cpp - Price table and network cost of a fabric ---------===//
//
// Part counts come from the fabric's compact shape and FabricGraph's own link
// counts, never from a per-link walk, so costing a 200K-chip fabric is
// arithmetic. The equivalent fat-tree is a closed form (tiers from the radix,
// ports and cables per endpoint). Choices: docs/railx.md, "Network cost".
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/NetworkCost.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace plexus::fabric {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::string formatGbps(double gbps) {
  std::ostringstream os;
  os << gbps;
  return os.str();
}

/// The slowest price class at least as fast as `linkBandwidth` (bytes/s);
/// nullptr (and a problem) when the link is faster than every class.
const SpeedClassPrice *speedClassFor(double linkBandwidth,
                                     const PriceTable &prices,
                                     std::vector<std::string> &problems) {
  if (!(linkBandwidth > 0)) {
    problems.push_back("link bandwidth must be positive");
    return nullptr;
  }
  const double gbps = linkBandwidth * 8.0 / 1e9;
  const SpeedClassPrice *best = nullptr;
  for (const SpeedClassPrice &c : prices.speeds) {
    // A relative slack so that 800 Gb/s written as bytes/s still matches
    // the 800 class exactly.
    if (c.gbps >= gbps * (1.0 - 1e-9) && (!best || c.gbps < best->gbps))
      best = &c;
  }
  if (!best)
    problems.push_back("no price class for links of " + formatGbps(gbps) +
                       " Gb/s (the fastest class is slower)");
  return best;
}

/// Prices the counted parts.
void price(CostBreakdown &b, const SpeedClassPrice &c,
           const PriceTable &prices) {
  b.linkGbps = c.gbps;
  b.transceiverUsd = static_cast<double>(b.transceivers) * c.transceiverUsd;
  b.ocsUsd = static_cast<double>(b.ocsPorts) * prices.ocsPortUsd;
  b.fibreUsd = static_cast<double>(b.fibres) * prices.fibreUsd;
  b.switchUsd = static_cast<double>(b.switchPorts) * c.switchPortUsd;
  b.nicUsd = static_cast<double>(b.nicPorts) * c.nicPortUsd;
  b.totalUsd =
      b.transceiverUsd + b.ocsUsd + b.fibreUsd + b.switchUsd + b.nicUsd;
}

/// Link ends one node has on the rails of one RailX dimension: every
/// position is alike, so position 0's out-links (arcs when directed).
int64_t portsPerNode(const RailDimension &d) {
  int64_t ports = 0;
  for (int32_t w = 0; w < d.size && !d.links.empty(); ++w)
    ports += d.links[static_cast<size_t>(w)];
  return ports;
}

/// OCS boxes for one dimension: `groups` rows (or columns) of `size` nodes,
/// `rails` rails each, `ports` node ports per node on the dimension.
int64_t ocsUnitsFor(int64_t groups, int64_t size, int64_t rails, int64_t ports,
                    int64_t ocsRadix, const char *axis,
                    std::vector<std::string> &warnings) {
  if (ports == 0 || rails == 0)
    return 0;
  const int64_t perRail = size * (ports / rails); // OCS ports one rail needs
  int64_t boxesPerRail = 1;
  if (ocsRadix > 0 && perRail > ocsRadix) {
    boxesPerRail = ceilDiv(perRail, ocsRadix);
    warnings.push_back(std::string("a ") + axis + " rail needs " +
                       std::to_string(perRail) + " OCS ports, more than one " +
                       std::to_string(ocsRadix) + "-port OCS");
  }
  return groups * rails * boxesPerRail;
}

void countRailX(const FabricGraph &g, CostBreakdown &b, int64_t ocsRadix,
                std::vector<std::string> &warnings) {
  const int64_t rowPorts = portsPerNode(g.row), colPorts = portsPerNode(g.col);
  const int64_t perNode = rowPorts + colPorts;
  b.transceivers = g.nodes * perNode;
  b.ocsPorts = b.transceivers; // each transceiver's fibre lands on one port
  b.fibres = b.transceivers;
  b.ocsUnits = ocsUnitsFor(g.shape.rows, g.shape.cols, g.shape.rails, rowPorts,
                           ocsRadix, "row", warnings) +
               ocsUnitsFor(g.shape.cols, g.shape.rows, g.shape.rails, colPorts,
                           ocsRadix, "column", warnings);
}

void countTree(const FabricGraph &g, CostBreakdown &b) {
  const int64_t endpoints = g.nodes * g.chipsPerNode;
  const int64_t links = g.linkCount(); // node-leaf plus switch-switch cables
  b.fibres = links;
  b.transceivers = 2 * links;
  b.nicPorts = endpoints;
  b.switchPorts = 2 * links - endpoints; // every cable end but the chip's
  const int64_t usedLeaves =
      g.shape.kind == TopologyKind::FatTree
          ? g.leafSlots
          : g.chipsPerNode * ceilDiv(g.nodes, g.downlinks);
  b.switchUnits = usedLeaves + g.spineCount + g.coreCount;
}

void countTorus(const FabricGraph &g, CostBreakdown &b) {
  const int64_t links = g.linkCount();
  b.fibres = links;
  b.transceivers = 2 * links;
}

/// Fills the per-bandwidth figures of `c` from its parts and bandwidths.
void divide(NetworkCost &c) {
  const double injection = static_cast<double>(c.chips) * c.injectionPerChip;
  c.costPerInjection = injection > 0 ? c.parts.totalUsd / injection : 0;
  c.costPerBisection = c.bisection > 0 ? c.parts.totalUsd / c.bisection : 0;
  if (!(injection > 0))
    c.warnings.push_back("no injection bandwidth: cost per injection is 0");
  if (!(c.bisection > 0))
    c.warnings.push_back("no bisection bandwidth: cost per bisection is 0");
}

} // namespace

CostResult networkCost(const FabricGraph &g, const PriceTable &prices) {
  CostResult r;
  if (g.nodes < 1 || g.chipsPerNode < 1) {
    r.problems.push_back("the fabric graph is empty (not built)");
    return r;
  }
  const SpeedClassPrice *cls =
      speedClassFor(g.shape.linkBandwidth, prices, r.problems);
  if (!cls)
    return r;
  NetworkCost &c = r.cost;
  switch (g.shape.kind) {
  case TopologyKind::RailX:
    countRailX(g, c.parts, prices.ocsRadix, c.warnings);
    break;
  case TopologyKind::FatTree:
  case TopologyKind::RailOptimized:
    countTree(g, c.parts);
    break;
  case TopologyKind::Torus:
    countTorus(g, c.parts);
    break;
  }
  price(c.parts, *cls, prices);
  c.chips = g.nodes * g.chipsPerNode;
  c.injectionPerChip =
      g.injectionBandwidthPerNode() / static_cast<double>(g.chipsPerNode);
  c.bisection = g.bisectionBandwidth();
  divide(c);
  return r;
}

FatTreeResult equivalentFatTree(int64_t chips, double injectionPerChip,
                                double linkBandwidth,
                                const PriceTable &prices) {
  FatTreeResult r;
  if (chips < 1)
    r.problems.push_back("the fat-tree needs at least one chip");
  if (!(injectionPerChip > 0))
    r.problems.push_back("per-chip injection bandwidth must be positive");
  const SpeedClassPrice *cls = speedClassFor(linkBandwidth, prices, r.problems);
  if (!r.ok() || !cls)
    return r;
  const int64_t k = cls->switchRadix;
  if (k < 2 || k % 2 != 0 || (k < 4 && chips > k)) {
    r.problems.push_back("switch radix " + std::to_string(k) + " of the " +
                         formatGbps(cls->gbps) +
                         " Gb/s class cannot build the tree (even, >= 4)");
    return r;
  }
  FatTreeDesign &d = r.design;
  d.chips = chips;
  d.radix = k;
  d.linkGbps = cls->gbps;
  d.linkBandwidth = cls->gbps * 1e9 / 8.0;
  // Ports per chip: enough planes to reach the injection (a small slack so
  // that 1.8 TB/s over 100 GB/s ports is exactly 18).
  d.planes = static_cast<int64_t>(
      std::ceil(injectionPerChip / d.linkBandwidth * (1.0 - 1e-9)));
  // Tiers: a t-tier folded Clos of k-port switches holds 2 (k/2)^t ends.
  const int64_t half = k / 2;
  d.tiers = 1;
  for (int64_t capacity = k; capacity < chips; ++d.tiers) {
    if (capacity > std::numeric_limits<int64_t>::max() / half) {
      ++d.tiers; // the next tier exceeds any int64 chip count
      break;
    }
    capacity *= half; // 2 (k/2)^t -> 2 (k/2)^(t+1)
  }
  const int64_t t = d.tiers, e = chips;
  CostBreakdown &b = d.cost.parts;
  b.switchPorts = d.planes * (2 * t - 1) * e;
  b.fibres = d.planes * t * e;
  b.transceivers = 2 * b.fibres;
  b.nicPorts = d.planes * e;
  // Boxes per plane: leaf and middle tiers carry e ports up and e down
  // (k/2 ends each way per box); the top tier only e ports down.
  const int64_t perPlane =
      t == 1 ? 1 : (t - 1) * ceilDiv(e, half) + ceilDiv(e, k);
  b.switchUnits = d.planes * perPlane;
  price(b, *cls, prices);
  d.cost.chips = chips;
  d.cost.injectionPerChip = static_cast<double>(d.planes) * d.linkBandwidth;
  d.cost.bisection = static_cast<double>(d.planes) *
                     static_cast<double>(e / 2) * d.linkBandwidth;
  divide(d.cost);
  return r;
}

ComparisonResult compareWithFatTree(const FabricGraph &g,
                                    const PriceTable &prices) {
  ComparisonResult r;
  CostResult fabric = networkCost(g, prices);
  if (!fabric.ok()) {
    r.problems = fabric.problems;
    return r;
  }
  FatTreeComparison &c = r.comparison;
  c.fabric = fabric.cost;
  if (!(c.fabric.injectionPerChip > 0) || !(c.fabric.bisection > 0)) {
    r.problems.push_back("the fabric has no injection or no bisection "
                         "bandwidth to compare");
    return r;
  }
  FatTreeResult tree = equivalentFatTree(
      c.fabric.chips, c.fabric.injectionPerChip, g.shape.linkBandwidth, prices);
  if (!tree.ok()) {
    r.problems = tree.problems;
    return r;
  }
  c.fatTree = tree.design;
  c.injectionRatio =
      c.fabric.costPerInjection / c.fatTree.cost.costPerInjection;
  c.bisectionRatio =
      c.fabric.costPerBisection / c.fatTree.cost.costPerBisection;
  return r;
}

} // namespace plexus::fabric
