//===- CollectiveModel.h - Times of collectives -----------------*- C++ -*-===//
//
// Time models for the collectives of a group of ranks placed on the chips of
// a FabricGraph: ring all-reduce (flat, over R RailX rails at once, or
// hierarchical), ring all-gather / reduce-scatter, all-to-all (direct,
// relayed on RailX, link-load based elsewhere), send/recv, and the link
// contention of a set of concurrent flows. Plain C++, deterministic, errors
// as values. Formulas, parameters and defaults: docs/collectives.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_FABRIC_COLLECTIVEMODEL_H
#define PLEXUS_PASSES_FABRIC_COLLECTIVEMODEL_H

#include "dialects/Common/Chip.h"
#include "passes/Fabric/FabricGraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::fabric {

/// Alpha-beta parameters per link class. Seconds and bytes/s. Inter-node
/// link bandwidth is the fabric's own (TopologyShape::linkBandwidth).
/// Defaults and their sources: docs/collectives.md.
struct CollectiveParams {
  /// Intra-node bandwidth per chip and direction (H100 NVLink 4: 900 GB/s
  /// both directions summed, so 450 GB/s one way).
  double intraNodeBandwidth = 450e9;
  /// Per-step latency of an intra-node transfer (launch + sync).
  double intraNodeAlpha = 2e-6;
  /// Per-step software/NIC latency of any inter-node transfer.
  double interNodeAlpha = 5e-6;
  /// Per RailX circuit hop: fibre propagation and transceivers (passive OCS).
  double opticalHopLatency = 0.3e-6;
  /// Per electrical switch traversed (fat-tree, rail-optimized).
  double switchHopLatency = 0.5e-6;
  /// Per torus link (router + cable).
  double torusHopLatency = 0.3e-6;
  /// Per intermediate node that forwards a relayed message (RailX).
  double relayLatency = 1e-6;
};

/// A collective's predicted time, or why there is none.
struct CollectiveTime {
  std::string error;           ///< empty on success
  double seconds = 0;          ///< bandwidthSeconds + latencySeconds
  double bandwidthSeconds = 0; ///< the S / B part
  double latencySeconds = 0;   ///< the alpha part
  std::string algorithm;       ///< e.g. "ring", "railx-ring", "relayed"
  bool ok() const { return error.empty(); }
};

/// One concurrent transfer between nodes (bytes may be 0; src == dst is
/// intra-node and loads no fabric link).
struct Flow {
  int64_t src = 0, dst = 0;
  double bytes = 0;
};

/// Load of one directed fabric link (u -> v, graph vertices).
struct LinkLoad {
  int64_t from = 0, to = 0;
  double bytes = 0;    ///< sum over the flows routed through it
  double capacity = 0; ///< bytes/s: parallel links x link bandwidth
};

/// Result of computeContention.
struct ContentionResult {
  std::string error;           ///< empty on success
  double seconds = 0;          ///< bandwidthSeconds + latencySeconds
  double bandwidthSeconds = 0; ///< max over links of bytes / capacity
  double latencySeconds = 0;   ///< max over flows of its path latency
  std::vector<LinkLoad> links; ///< loaded links, sorted by (from, to)
  int64_t bottleneck = -1;     ///< index in `links` of the slowest, or -1
  bool ok() const { return error.empty(); }
};

/// Checks a group: non-empty, every chip inside the fabric, no chip twice.
/// Empty string when valid.
std::string validateGroup(const FabricGraph &g,
                          const std::vector<ChipRef> &ranks);

/// Per-link load and completion time of concurrent flows routed with
/// FabricGraph::route: max over links of load / capacity, plus the largest
/// path latency (interNodeAlpha + per-hop latencies) among flows with bytes.
ContentionResult computeContention(const FabricGraph &g,
                                   const std::vector<Flow> &flows,
                                   const CollectiveParams &p = {});

/// Latency of one inter-node path a -> b: interNodeAlpha plus the per-hop
/// latency of each link class on FabricGraph::route(a, b); 0 when a == b;
/// negative when b is unreachable.
double pathLatency(const FabricGraph &g, int64_t a, int64_t b,
                   const CollectiveParams &p = {});

/// All-reduce of `bytes` per rank (ring; R rails at once on a full RailX
/// row or column; hierarchical when a node holds several ranks).
CollectiveTime allReduceTime(const FabricGraph &g,
                             const std::vector<ChipRef> &ranks, double bytes,
                             const CollectiveParams &p = {});
/// Ring all-gather; `bytes` = the gathered (full) buffer per rank.
CollectiveTime allGatherTime(const FabricGraph &g,
                             const std::vector<ChipRef> &ranks, double bytes,
                             const CollectiveParams &p = {});
/// Ring reduce-scatter; `bytes` = the input (full) buffer per rank.
CollectiveTime reduceScatterTime(const FabricGraph &g,
                                 const std::vector<ChipRef> &ranks,
                                 double bytes, const CollectiveParams &p = {});
/// All-to-all; `bytes` = what each rank sends in all (bytes / p per peer,
/// itself included).
CollectiveTime allToAllTime(const FabricGraph &g,
                            const std::vector<ChipRef> &ranks, double bytes,
                            const CollectiveParams &p = {});
/// Point-to-point send of `bytes` from chip `from` to chip `to`.
CollectiveTime sendRecvTime(const FabricGraph &g, ChipRef from, ChipRef to,
                            double bytes, const CollectiveParams &p = {});

} // namespace plexus::fabric

#endif // PLEXUS_PASSES_FABRIC_COLLECTIVEMODEL_H
