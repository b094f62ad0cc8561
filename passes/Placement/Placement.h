//===- Placement.h - Plan groups onto chips; circuits -----------*- C++ -*-===//
//
// Maps the ranks of one or more jobs onto the chips of a FabricGraph so that
// all-to-all groups stay within one node or one RailX row's one-hop reach,
// rings follow the rails' Hamiltonian cycles and pipeline chains cross few
// hops; builds the RailX circuit table (one OCS configuration per rail of
// every row and column). Plain C++, no MLIR, no exceptions, deterministic.
// Algorithm and choices: docs/placement.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_PLACEMENT_PLACEMENT_H
#define PLEXUS_PASSES_PLACEMENT_PLACEMENT_H

#include "passes/Fabric/FabricGraph.h"
#include "dialects/Common/Faults.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace plexus::placement {

/// One accelerator: node id as FabricGraph numbers nodes, index in the node.
using Chip = fabric::ChipRef;

enum class CommKind {
  AllToAll, ///< SP / EP groups
  Ring,     ///< DP / all-reduce groups
  Pipeline, ///< PP stage chains, ranks in stage order
};
const char *commKindName(CommKind kind); // "all_to_all", "ring", "pipeline"

struct CommunicatorRequest {
  std::string name;
  CommKind kind = CommKind::Ring;
  std::vector<int64_t> ranks; ///< job-local ranks 0..rankCount-1, plan order
};

struct JobRequest {
  std::string name;
  int64_t rankCount = 0;
  std::vector<CommunicatorRequest> communicators;
};

/// Faults are the fabric library's (dialects/Common/Faults.h): failed chips,
/// links and RailX OCS ports, as a spec's `failed = [...]` names them.
using OcsAxis = fabric::RailAxis;
const char *ocsAxisName(OcsAxis axis); // "row", "col"
using FailedPort = fabric::FailedPort;
using Faults = fabric::FabricFaults;

/// Where one communicator ended up.
struct CommunicatorPlacement {
  std::string name;
  CommKind kind = CommKind::Ring;
  /// Ranks in ring order (Ring), stage order (Pipeline) or plan order
  /// (AllToAll).
  std::vector<int64_t> ringOrder;
  /// Max inter-node hops (FabricGraph::linkHops units, over healthy links)
  /// between consecutive members of ringOrder, the last back to the first
  /// for a Ring; between any two members for AllToAll. 0: one node.
  int64_t maxHops = 0;
  /// RailX rings within one row or column: the axis and index, and the rails
  /// whose surviving cycles carry the ring with every step one hop (the
  /// ring all-reduce runs on all of them). Empty / -1 otherwise.
  OcsAxis axis = OcsAxis::Row;
  int64_t axisIndex = -1;
  std::vector<int64_t> rails;
};

struct JobPlacement {
  std::string name;
  std::vector<Chip> chips;                          ///< chips[rank]
  std::vector<CommunicatorPlacement> communicators; ///< request order
};

/// Why no placement exists. needed / available are chip counts (or node
/// counts where the message says so); -1 when not applicable.
struct PlacementError {
  std::string job;          ///< empty: the request or fabric as a whole
  std::string communicator; ///< empty: the job as a whole
  int64_t needed = -1;
  int64_t available = -1;
  std::string message; ///< full sentence with the numbers
};

struct PlacementResult {
  std::vector<JobPlacement> jobs; ///< request order; empty on error
  std::vector<PlacementError> errors;
  bool ok() const { return errors.empty(); }
};

/// Places every job on disjoint healthy chips, in request order. On the
/// first job that cannot be placed, returns its error(s) and no jobs.
PlacementResult placeJobs(const fabric::FabricGraph &fabric,
                          const std::vector<JobRequest> &jobs,
                          const Faults &faults);

/// One rail of one RailX row or column.
struct CircuitEntry {
  OcsAxis axis = OcsAxis::Row;
  int64_t index = 0; ///< row or column index
  int64_t rail = 0;
  bool matching = false; ///< even-n matching slot: cycle lists pairs
  /// Node ids in ring order (matching: pairs (cycle[2i], cycle[2i+1])),
  /// bypassed nodes left out.
  std::vector<int64_t> cycle;
  std::vector<int64_t> bypassed; ///< node ids whose port on this OCS failed
  /// portPermutation[p] = the port the OCS connects port p to (ports are
  /// positions along the row / column). Successor in the cycle; partner in
  /// a matching; a bypassed or unused port maps to itself.
  std::vector<int64_t> portPermutation;
};

struct CircuitTableResult {
  std::vector<CircuitEntry> entries;  ///< rows 0.., rails 0.., then columns
  std::vector<PlacementError> errors; ///< not RailX, or a bad fault entry
  bool ok() const { return errors.empty(); }
};

/// The circuit table of a RailX fabric with `faults.ports` bypassed.
CircuitTableResult buildCircuitTable(const fabric::FabricGraph &fabric,
                                     const Faults &faults);

/// True when `perm` is a permutation of 0..perm.size()-1.
bool isPermutation(const std::vector<int64_t> &perm);

} // namespace plexus::placement

#endif // PLEXUS_PASSES_PLACEMENT_PLACEMENT_H
