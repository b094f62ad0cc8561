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

#include "passes/Fabric/Chip.h"
#include "passes/Fabric/CollectiveModel.h"
#include "passes/Fabric/FabricGraph.h"
#include "passes/Simulate/EventSimulator.h"

#include <memory>
#include <vector>

namespace plexus::sim {

/// A duration callback over `graph` with rank r on chips[r]. `graph` must
/// outlive the callback; the chips and parameters are copied.
CommTimeFn fabricCommTime(const fabric::FabricGraph &graph,
                          std::vector<fabric::ChipRef> chips,
                          fabric::CollectiveParams params);

/// The collective model's time for one request, uncached. All-gather's
/// `bytes` are one rank's part (the model takes the gathered buffer).
CommTime fabricRequestTime(const fabric::FabricGraph &graph,
                           const std::vector<fabric::ChipRef> &chips,
                           const fabric::CollectiveParams &params,
                           const CommRequest &request);

} // namespace plexus::sim

#endif // PLEXUS_PASSES_SIMULATE_FABRICCOMMTIME_H
