//===- JobGroups.h - The communicators a job's static layout needs -*- C++
//-*-===//
//
// A job's ranks laid out as a grid of parallelism degrees, and the
// communicators that layout implies: tensor groups (TP x CP, ring), Ulysses
// SP groups (all-to-all), data-parallel groups (ring) and pipeline chains,
// or for serving expert-parallel groups (all-to-all) and pipeline chains.
// These are the requests plx-place places before the per-step planners
// (FlexSP, DPP) refine them. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_INSTANTIATE_JOBGROUPS_H
#define PLEXUS_PASSES_INSTANTIATE_JOBGROUPS_H

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::instantiate {

enum class GroupKind { AllToAll, Ring, Pipeline };

struct JobGroup {
  std::string name; // "tp0", "sp3", "dp1", "pp0", "ep2"
  GroupKind kind = GroupKind::Ring;
  std::vector<int64_t> ranks; // pipeline: in stage order
};

/// Training layout. rank = ((d * P + p) * S + s) * T + t: tensor ranks are
/// adjacent (inside a node), then SP, then pipeline stages; data-parallel
/// replicas are the slowest dimension, so each replica (model copy) holds
/// P * S * T consecutive ranks, as a plan.sp_group does
/// (passes/Lower/StepLowering.h lays ranks out the same way).
struct TrainLayout {
  int64_t ranks = 0;
  int64_t tensor = 1; // TP x CP
  int64_t sp = 1;
  int64_t pp = 1;
};

/// Serving layout: `ranks / (pp * ep)` instances; rank = (i * pp + p) * ep
/// + e, so an EP group is adjacent ranks and a pipeline chain strides by ep.
struct ServeLayout {
  int64_t ranks = 0;
  int64_t ep = 1;
  int64_t pp = 1;
};

struct GroupsResult {
  std::vector<JobGroup> groups;
  std::string error; // empty on success
  bool ok() const { return error.empty(); }
};

/// Groups of size 1 are omitted (no communication). Errors: a degree < 1,
/// or a product of degrees that does not divide the ranks.
GroupsResult trainGroups(const TrainLayout &layout);
GroupsResult serveGroups(const ServeLayout &layout);

/// The Ulysses degree of the skeleton when the planner chooses SP per step
/// (sp = adaptive / best_homogeneous): the largest power of two that is at
/// most `chipsPerNode`, divides `heads` and divides `ranks / tensor`, so
/// that every group stays inside one node.
int64_t nodeLocalSpDegree(int64_t chipsPerNode, int64_t heads, int64_t ranks,
                          int64_t tensor);

} // namespace plexus::instantiate

#endif // PLEXUS_PASSES_INSTANTIATE_JOBGROUPS_H
