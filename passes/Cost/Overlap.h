//===- Overlap.h - Compute beside a stream collective -----------*- C++ -*-===//
//
// What the hardware does when a collective runs on the communication stream
// beside compute (ZeRO-3's prefetched gathers and its reduce-scatters,
// overlapped gradient syncs): both contend for SMs and HBM bandwidth. The
// collective's kernels run at `commEfficiency` of the bandwidth it would get
// alone; compute runs (1 + computeSlowdown) times slower for as long as the
// collective runs. The simulator (passes/Simulate/EventSimulator) applies
// exactly these rules to every stream collective, and the planners'
// surrogates use concurrentSeconds, so the two agree on one layer of
// overlapped work. Defaults and sources: dialects/Common/ChipCatalog.h and
// docs/cost-model.md, "Overlap". Plain C++, header only.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_COST_OVERLAP_H
#define PLEXUS_PASSES_COST_OVERLAP_H

#include "dialects/Common/ChipCatalog.h"

#include <algorithm>

namespace plexus::cost {

struct Overlap {
  /// Compute under overlap takes (1 + computeSlowdown) times as long.
  double computeSlowdown = 0;
  /// A stream collective's share of its alone bandwidth, in (0, 1].
  double commEfficiency = 1;

  static Overlap of(const ChipSpec &chip) {
    return {chip.overlapComputeSlowdown, chip.overlapCommEfficiency};
  }
  /// No contention: compute and communication each as if alone.
  static Overlap none() { return {0, 1}; }

  /// Wall time of a stream collective that takes `alone` seconds alone.
  double streamSeconds(double alone) const { return alone / commEfficiency; }

  /// Wall time of `compute` seconds of work that starts while a stream
  /// collective still runs for `window` seconds: slowed while the window
  /// lasts, at full speed after it.
  double dilatedCompute(double compute, double window) const {
    if (compute <= 0 || window <= 0 || computeSlowdown <= 0)
      return compute;
    const double k = computeSlowdown;
    return std::min(compute * (1 + k), compute + window * k / (1 + k));
  }

  /// Compute of `compute` seconds and a stream collective of `comm` seconds
  /// (alone) started together: the later of the two to finish.
  double concurrentSeconds(double compute, double comm) const {
    const double stream = streamSeconds(comm);
    return std::max(dilatedCompute(compute, stream), stream);
  }
};

} // namespace plexus::cost

#endif // PLEXUS_PASSES_COST_OVERLAP_H
