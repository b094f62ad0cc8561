//===- Faults.h - Failed chips, links and OCS ports of a fabric -*- C++ -*-===//
//
// What a .plx fabric's `failed = [...]` list names, and the range rules that
// tie it to the fabric's size. Placement and the circuit table work around
// these (docs/placement.md). Plain C++, shared by the frontend's semantic
// pass and the plx dialect's verifier.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_DIALECTS_COMMON_FAULTS_H
#define PLEXUS_DIALECTS_COMMON_FAULTS_H

#include "dialects/Common/Chip.h"
#include "dialects/Common/TopologyShape.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::fabric {

/// A failed chip (dialects/Common/Chip.h).
using FailedChip = ChipRef;

/// An inter-node link between two nodes (both directions fail).
struct FailedLink {
  int64_t a = 0;
  int64_t b = 0;
};

enum class RailAxis { Row, Col };

/// One port of a RailX optical circuit switch: the OCS of rail `rail` of
/// row (or column) `index`, at the port facing the node at `position`
/// along that row (column).
struct FailedPort {
  RailAxis axis = RailAxis::Row;
  int64_t index = 0;
  int64_t rail = 0;
  int64_t position = 0;
};

struct FabricFaults {
  std::vector<FailedChip> chips;
  std::vector<FailedLink> links;
  std::vector<FailedPort> ports;
  bool empty() const { return chips.empty() && links.empty() && ports.empty(); }
};

/// One violated rule: which entry (kind "chip" | "link" | "port" and its
/// index in that list) and a message.
struct FaultProblem {
  std::string kind;
  size_t index = 0;
  std::string message;
};

/// Rules: chip node in [0, nodes) and local in [0, chipsPerNode); a link
/// joins two different nodes in range; ports only on railx fabrics, with
/// index < rows (row axis) or < cols (col axis), rail < rails, position <
/// cols (row axis) or < rows (col axis); no entry listed twice.
std::vector<FaultProblem> checkFaults(const TopologyShape &topology,
                                      int64_t nodes, int64_t chipsPerNode,
                                      const FabricFaults &faults);

} // namespace plexus::fabric

#endif // PLEXUS_DIALECTS_COMMON_FAULTS_H
