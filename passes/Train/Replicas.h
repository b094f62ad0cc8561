//===- Replicas.h - A large job as data-parallel replicas -------*- C++ -*-===//
//
// How plxc plans a job of more ranks than one plan should hold: the world
// splits into R identical data-parallel replicas of world / R ranks (whole
// nodes, consecutive ranks), the step's batch into R shares balanced by
// their forward FLOPs, and every planner plans one replica for the
// heaviest share: the gradient synchronisation at the step's end waits for
// the slowest replica, so the heaviest share decides the step. Planning
// and simulation then cost what one replica costs, whatever R is (the
// lowering adds the all-reduce across replicas, LoweringOptions::replicas,
// and the simulator runs one replica with the others as its images,
// SimOptions::replicas). Inside a replica ZeRO shards over the replica's
// data-parallel ranks (hybrid sharding). docs/scale.md says what this
// assumes. Plain C++.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_TRAIN_REPLICAS_H
#define PLEXUS_PASSES_TRAIN_REPLICAS_H

#include "dialects/Common/TransformerShape.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace plexus::train {

/// What placement must hold for a job to be folded.
struct ReplicaFold {
  int64_t replicas = 1; ///< R
  int64_t ranks = 0;    ///< world / R: the ranks each replica plans for
  std::string error;    ///< why the world cannot be folded (then R = 1)
  bool ok() const { return error.empty(); }
};

/// The fewest replicas R that bring each replica to at most `maxRanks`
/// ranks, with R dividing `world` and each replica whole nodes of
/// `chipsPerNode`; R = 1 when world <= maxRanks. With `plannable`, the
/// fewest such R whose replica size it accepts (the job's own planner can
/// lay a replica out: DPP needs stages that divide the layers), when there
/// is one; else the fewest. An error when no R exists (for example a prime
/// number of nodes above maxRanks' nodes), or when R would exceed the
/// `sequences` of a step (a replica without a sequence cannot be the
/// data-parallel copy of one that has some).
ReplicaFold foldReplicas(int64_t world, int64_t chipsPerNode, int64_t maxRanks,
                         int64_t sequences,
                         const std::function<bool(int64_t)> &plannable = {});

/// One replica's share of a step's batch.
struct BatchShare {
  std::vector<int64_t> ids;     ///< indices into the step's lengths, sorted
  std::vector<int64_t> lengths; ///< their lengths, in that order
  double flops = 0;             ///< forward FLOPs of the share
  double meanFlops = 0;         ///< of the R shares
  int64_t fewestSequences = 0, mostSequences = 0; ///< over the R shares
};

/// Deals the sequences into `replicas` shares, longest forward FLOPs first
/// to the least loaded share (ties: the lower sequence id, the lower
/// share), and returns the heaviest share (ties: the lowest). Deterministic.
BatchShare heaviestShare(const cost::TransformerShape &shape,
                         const std::vector<int64_t> &lengths,
                         int64_t replicas);

} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_REPLICAS_H
