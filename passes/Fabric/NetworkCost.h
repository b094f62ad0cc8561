//===- NetworkCost.h - Price table and network cost of a fabric -*- C++ -*-===//
//
// What the inter-node network of a FabricGraph costs to buy, counted part by
// part (transceivers, optical circuit switch ports, fibre cables, electrical
// switch ports, NIC ports) from a price table; cost per unit of injection and
// of bisection bandwidth; and the same figures for a non-blocking fat-tree
// with the same chips and the same per-chip injection bandwidth, so that the
// two can be compared as ratios. Plain C++, no MLIR; errors come back as
// values. Every default price, its source and what we assumed:
// docs/railx.md, section "Network cost".
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_FABRIC_NETWORKCOST_H
#define PLEXUS_PASSES_FABRIC_NETWORKCOST_H

#include "dialects/Common/Prices.h"
#include "passes/Fabric/FabricGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::fabric {

/// Counted parts and their prices. Counts are whole parts; prices in USD.
struct CostBreakdown {
  double linkGbps = 0; ///< speed class the parts were priced at
  int64_t transceivers = 0, ocsPorts = 0, fibres = 0, switchPorts = 0,
          nicPorts = 0;
  int64_t ocsUnits = 0;    ///< OCS boxes (railx: one per rail per row/column)
  int64_t switchUnits = 0; ///< electrical switch boxes (trees)
  double transceiverUsd = 0, ocsUsd = 0, fibreUsd = 0, switchUsd = 0,
         nicUsd = 0;
  double totalUsd = 0;
};

/// A fabric's cost and the bandwidths it is divided by.
struct NetworkCost {
  CostBreakdown parts;
  int64_t chips = 0;
  double injectionPerChip = 0; ///< bytes/s one chip sends into the fabric
  double bisection = 0;        ///< bytes/s, one direction
  /// USD per byte/s of injection: total / (chips * injectionPerChip), which
  /// equals the cost per chip divided by the per-chip injection bandwidth.
  double costPerInjection = 0;
  /// USD per byte/s of bisection bandwidth: total / bisection.
  double costPerBisection = 0;
  /// Notes that do not stop the costing (e.g. a rail larger than one OCS).
  std::vector<std::string> warnings;
};

struct CostResult {
  std::vector<std::string> problems; ///< empty on success
  NetworkCost cost;
  bool ok() const { return problems.empty(); }
};

/// Counts and prices the inter-node network of `g` (built, non-empty):
///  railx:  per node, one transceiver, one OCS port and one fibre for every
///          link end on a rail: 2 per rail per dimension undirected (prev and
///          next), 1 directed (its TX feeds the next node, its RX hears the
///          previous one through the same duplex OCS port). One OCS per rail
///          per row and per column; the OCS is passive (no transceiver).
///  fat_tree, rail_optimized: every cable (node-leaf and switch-switch) is
///          optical: 2 transceivers and 1 fibre; a cable's switch ends are
///          switch ports; a chip's end is a NIC port. Only cabled ports are
///          priced (idle ports of partly used switches are not).
///  torus:  every link is one cable with a transceiver at each end.
CostResult networkCost(const FabricGraph &g, const PriceTable &prices);

/// A non-blocking folded-Clos fat-tree: `planes` identical trees, each with
/// one port per chip, of switches with `radix` ports at `linkGbps`.
struct FatTreeDesign {
  int64_t chips = 0;
  int64_t planes = 0; ///< ports per chip = ceil(injection / port rate)
  int64_t radix = 0;
  int64_t tiers = 0; ///< smallest t with 2 (radix/2)^t >= chips
  double linkGbps = 0;
  double linkBandwidth = 0; ///< bytes/s per port, one direction
  NetworkCost cost;
};

struct FatTreeResult {
  std::vector<std::string> problems;
  FatTreeDesign design;
  bool ok() const { return problems.empty(); }
};

/// The fat-tree that gives `chips` chips `injectionPerChip` bytes/s each,
/// built from the price table's class for `linkBandwidth` (bytes/s; the
/// fabric's own link speed). Per plane and endpoint E: tiers t as above,
/// switch ports (2t-1)E, cables tE, transceivers 2tE; bisection
/// planes * floor(E/2) * port rate.
FatTreeResult equivalentFatTree(int64_t chips, double injectionPerChip,
                                double linkBandwidth, const PriceTable &prices);

/// A fabric against its equivalent fat-tree.
struct FatTreeComparison {
  NetworkCost fabric;
  FatTreeDesign fatTree;
  /// (fabric USD per injection B/s) / (fat-tree USD per injection B/s).
  double injectionRatio = 0;
  /// (fabric USD per bisection B/s) / (fat-tree USD per bisection B/s).
  double bisectionRatio = 0;
};

struct ComparisonResult {
  std::vector<std::string> problems;
  FatTreeComparison comparison;
  bool ok() const { return problems.empty(); }
};

/// networkCost(g) and equivalentFatTree(chips of g, its per-chip injection,
/// its link speed), with both ratios.
ComparisonResult compareWithFatTree(const FabricGraph &g,
                                    const PriceTable &prices);

} // namespace plexus::fabric

#endif // PLEXUS_PASSES_FABRIC_NETWORKCOST_H
