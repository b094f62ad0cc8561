//===- FabricCommTime.h - Communication times on a placed fabric -*- C++
//-*-===//
//
// The simulator's duration callback for ranks placed on the chips of a
// fabric: each transfer or collective is timed by the fabric library's
// collective models (passes/Fabric/CollectiveModel.h) on the chips of its
// ranks. Identical requests (same kind, ranks and bytes) are timed once and
// remembered, so a step that repeats its collectives layer after layer
// stays fast. Plain C++, deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SIMULATE_FABRICCOMMTIME_H
#define PLEXUS_PASSES_SIMULATE_FABRICCOMMTIME_H

#include "dialects/Common/Chip.h"
#include "passes/Fabric/CollectiveModel.h"
#include "passes/Fabric/FabricGraph.h"
#include "passes/Simulate/EventSimulator.h"

#include <memory>
#include <vector>

namespace plexus::sim {

/// How the models' times become the simulator's.
struct FabricCommOptions {
  /// Achieved fraction of the modeled link bandwidth (the bandwidth part of
  /// every time is divided by it): collective libraries do not reach line
  /// rate. 0.78 is FlexSP's measured all-to-all bandwidth across 8 A100
  /// nodes (4.87 GB/s per GPU at SP=64) over the 6.25 GB/s per GPU the
  /// nodes' 400 Gb/s allow; docs/simulator.md.
  double efficiency = 0.78;
  /// Concurrent communications that cross nodes share the nodes' links. A
  /// transfer uses u = (its ranks on a node) / (chips per node) of that
  /// node's links. Starting while another one (u') still has r seconds to
  /// go on a common node, the share max(0, u + u' - 1) / u of it runs at
  /// half speed for that overlap: it takes that share of min(b, r/2)
  /// longer (b its own bandwidth time). Eight rings with one rank per node
  /// do not slow each other; two all-to-alls over whole nodes do.
  bool contention = true;
};

/// A duration callback over `graph` with rank r on chips[r]. `graph` must
/// outlive the callback; the chips and parameters are copied. Stateful when
/// `options.contention`: it relies on the simulator's calls coming in
/// start-time order, and a request that starts before the previous one
/// begins a new simulation (the running set is cleared). Planners, which
/// ask for times out of order, want `contention = false`. Deterministic.
CommTimeFn fabricCommTime(const fabric::FabricGraph &graph,
                          std::vector<fabric::ChipRef> chips,
                          fabric::CollectiveParams params,
                          FabricCommOptions options = {});

/// The collective model's time for one request, uncached, at line rate
/// and alone on the fabric. All-gather's `bytes` are one rank's part (the
/// model takes the gathered buffer).
fabric::CollectiveTime fabricRequestTime(
    const fabric::FabricGraph &graph, const std::vector<fabric::ChipRef> &chips,
    const fabric::CollectiveParams &params, const CommRequest &request);

} // namespace plexus::sim

#endif // PLEXUS_PASSES_SIMULATE_FABRICCOMMTIME_H
