//===- Timeline.h - A simulated step's timeline at a chart's resolution -*- C++
//-*-===//
//
// For the HTML report's per-rank timeline: each rank's spans binned into a
// fixed number of columns over the step, each column given the kind of work
// that fills most of it ("fwd", "bwd", "recompute", "compute", "comm" or
// "idle"), on two lanes (the rank's ops and its communication stream); ranks
// whose lanes come out the same are one group. The result is bounded by the
// columns and the groups shown, however many ranks and ops the step has.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SIMULATE_TIMELINE_H
#define PLEXUS_PASSES_SIMULATE_TIMELINE_H

#include "passes/Simulate/EventSimulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::sim {

/// A run of equal columns: [start, start + length) of kind `kind`.
struct TimelineRun {
  std::string kind;
  int64_t start = 0, length = 0;
};

struct TimelineGroup {
  std::vector<int64_t> ranks;           ///< ascending
  std::vector<TimelineRun> ops, stream; ///< stream empty: no async work
};

struct Timeline {
  double stepSeconds = 0;
  int64_t columns = 0;
  std::vector<TimelineGroup> groups; ///< by first rank, at most maxGroups
  int64_t groupsNotShown = 0;
};

/// Bins `result`'s spans (SimResult::ranks[r].spans; empty lanes are
/// idle) into `columns` columns of stepSeconds / columns each.
Timeline binTimeline(const SimResult &result, int64_t columns,
                     int64_t maxGroups = 32);

/// "0-7, 16-23": ascending ranks as ranges.
std::string rankRanges(const std::vector<int64_t> &ranks);

} // namespace plexus::sim

#endif // PLEXUS_PASSES_SIMULATE_TIMELINE_H
